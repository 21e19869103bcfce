#!/usr/bin/env bash
# bench/io_bound.sh — whole programs against their compulsory I/O: the predicted time of each
# program (`tcec --dry-run --json`) over the time to read every input once and write every
# output once, per rank, at the machine's disk bandwidths (bench/io_bound.py), and over the
# report's I/O lower bound (the sum of its contractions' bounds, each the largest of its
# compulsory I/O, Theorem 1 of Kwasniewski et al. and Theorem 1 over the disks of all memories).
#
#   bench/io_bound.sh [BUILD_DIR]
#
# Rows: the examples of Gao et al. §6 on their Table 8 machine (64 MB), the Table 9 matmul at
# 24 MB, and NWChem's CCSD T2 at O = 100, V = 500 on 64 ranks with 256 MB each; then one run
# here (MPI; as root set OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1), measured.
# The machines take the tile kernel as free (flops 10^15 per second) so that the rows compare
# I/O time with the I/O bound; the plans may overlap disk with the network (issue 17).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/results_file.sh"; results_begin io-bound "$0" "$@"
tcec=${1:-$here/build}/bin/tcec
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'machine t8 { processors 4; memory 64 MB; network 200 MB/s; disk 8 MB/s; flops 1000 TFLOP/s; }\n' > "$work/t8.machine"
printf 'machine t9 { processors 4; memory 24 MB; network 200 MB/s; disk 8 MB/s; flops 1000 TFLOP/s; }\n' > "$work/t9_24.machine"
printf 'machine big { processors 64; memory 256 MB; network 1 GB/s; disk 500 MB/s; flops 1000 TFLOP/s; }\n' > "$work/big.machine"
row() {
  local name=$1
  shift
  "$tcec" "$@" --dry-run --json | python3 "$here/bench/io_bound.py" "$name"
}
printf '%-28s %14s %14s %8s %14s %8s\n' "program" "predicted (s)" "compulsory (s)" "ratio" "bound (s)" "ratio"
row matmul "$here/examples/matmul.tce" --machine "$work/t8.machine"
row matmul_24MB "$here/examples/matmul.tce" --machine "$work/t9_24.machine"
row four_index "$here/examples/four_index.tce" --machine "$work/t8.machine"
row ccsd_term "$here/examples/ccsd_term.tce" --machine "$work/t8.machine"
row ccsd_t2_O100_V500_P64 "$here/data/nwchem_tce_equation_trees.txt" --from nwchem --section ccsd_t2 \
  -D O=100 -D V=500 --machine "$work/big.machine"

# Measured: the set-up example of tools/run-example.sh (the 4-index transform, N = 64, 4 ranks of 8 MB) run here, its
# disk bytes from the trace (compute phase and redistribution) over the compulsory bytes.
example=("$here/examples/four_index.tce" -D N=64 --machine "$here/examples/small.machine")
"$tcec" "${example[@]}" -o "$work/run" --build > /dev/null
"$tcec" "${example[@]}" --dry-run --json > "$work/run/report.json"
mpirun --oversubscribe -np 4 "$work/run/four_index" --quiet --trace "$work/run/trace.json" --scratch "$work/run/scratch"
printf '\n%-28s %14s %14s %8s\n' "run (measured)" "disk bytes" "compulsory" "ratio"
python3 "$here/bench/io_measured.py" four_index_N64_P4_8MB "$work/run/report.json" "$work/run/trace.json"
