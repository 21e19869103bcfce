#!/usr/bin/env bash
# bench/sfc_bench.sh — the space-filling-curve method (sfc, Georganas et al., seed 002) against
# cosma and Gao et al.'s methods on prime rank counts: per rank, data moved (disk reads +
# received + disk writes of the fullest rank, both stages) over the I/O lower bound the report
# prints (`tcec --dry-run --json`, `plan.io_bound`), each method forced; for Gao et al. the best
# of the six by predicted time. Out of core: 8 MB per rank, disk 500 MB/s, network 1 GB/s.
# Rows: a square product, a flat one (M >> N), a large-K one and a 4-index step, at P = 5, 7,
# 11 and 13; and the large-K one again with 16 MB per rank (its C, 8 MB, is then one tile beside
# its panels, which the bound assumes; with 8 MB it is all of the memory: see docs/methods/sfc.md,
# "Limits").
#
#   bench/sfc_bench.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/results_file.sh"; results_begin sfc "$0" "$@"
tcec=${1:-$here/build}/bin/tcec
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
product() {   # M N K: C[i,j] = A[i,k] * B[j,k]
  printf 'range M = %s;\nrange N = %s;\nrange K = %s;\nindex i : M;\nindex j : N;\nindex k : K;\ntensor A[M,K] input;\ntensor B[N,K] input;\ntensor C[M,N] output;\nC[i,j] = A[i,k] * B[j,k];\n' "$1" "$2" "$3"
}
four_index() {   # N: T1[a,b,c,d] = A[a,b,c,p] * B[p,d]
  printf 'range N = %s;\nindex a, b, c, d, p : N;\ntensor A[N,N,N,N] input;\ntensor B[N,N] input;\ntensor T1[N,N,N,N] output;\nT1[a,b,c,d] = A[a,b,c,p] * B[p,d];\n' "$1"
}
row() {   # NAME P SOURCE... (MEMORY from the environment, default 8 MB)
  local name=$1 P=$2
  shift 2
  "$@" > "$work/$name.tce"
  printf 'machine m { processors %s; memory %s; network 1 GB/s; disk 500 MB/s; }\n' "$P" "${MEMORY:-8 MB}" \
    > "$work/m.machine"
  local files=()
  for method in sfc cosma inside-rotation inside-replication inside-accumulation outside-rotation outside-replication \
                outside-accumulation; do
    "$tcec" "$work/$name.tce" --machine "$work/m.machine" --dry-run --json --force-method "$method" > "$work/$method.json"
    files+=("$work/$method.json")
  done
  python3 "$here/bench/sfc_bench.py" "$name" "$P" "${files[@]}"
}
printf '%-22s %3s %8s %8s %8s  %-24s %s\n' case P sfc cosma Gao "(best Gao method)" least
for P in 5 7 11 13; do
  row square_4000 "$P" product 4000 4000 4000
  row flat_40000x500_k2000 "$P" product 40000 500 2000
  row largeK_1000_k100000 "$P" product 1000 1000 100000
  row four_index_N96 "$P" four_index 96
done
for P in 5 7 11 13; do
  MEMORY="16 MB" row largeK_16MB "$P" product 1000 1000 100000
done
