#!/usr/bin/env bash
# bench/ccsd_bench.sh — time per CCSD iteration of tcec-ccsd at P = 1, 2 and 4 against psi4's
# CCSD and NWChem's TCE CCSD on the same molecule, side by side (issue 24), and tcec's
# sustained flop rate against the calibrated GEMM rate.
#   bash bench/ccsd_bench.sh [BUILD_DIR] [EQUATIONS] [CASES...]
# CASES are MOLECULE:BASIS:MEMORY (memory per rank, below v_pppp's size so that the residuals run
# out of core), default h2o:6-31g:256KB h2o:cc-pvdz:2MB h2o:cc-pvdz:512MB (the last in core: every
# tensor fits, so it shows the rate without out-of-core traffic). Prints per case and P:
#  - tcec s/iter: the median seconds per iteration of tcec-ccsd over the run (after the first);
#  - GFLOP/s: the residuals' contraction flops per iteration (tcec-ccsd prints them: Σ 2·|I|·|J|·|K|,
#    dense spin orbitals) over that time, and the ratio to the GEMM rate of all P ranks
#    (tcec-calibrate --quick: the tile kernel's GFLOP/s per rank with all ranks busy, times P;
#    its measured `overlap` goes into the machine file tcec-ccsd plans for);
#  - NWChem s/iter: NWChem's TCE CCSD (Debian's nwchem, spin-adapted, in core) on the same
#    geometry and basis (spherical), on P ranks: (wall of `task tce energy` − wall of `task scf
#    energy`) / its CCSD iterations, each the median of 3 runs (the TCE's integral transformation is
#    inside the difference; NWChem prints iteration times only to 0.1 s);
#  - psi4 all: psi4's wall time for SCF, CCSD and the integrals together (an upper bound on its CCSD).
# Energies: tcec's against psi4's (meta.json) and NWChem's in the last columns.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/results_file.sh"; results_begin ccsd "$0" "$@"
build=${1:-$here/build}
equations=${2:-$here/data/nwchem_tce_equation_trees.txt}
shift $(( $# > 2 ? 2 : $# )) || true
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(h2o:6-31g:256KB h2o:cc-pvdz:2MB h2o:cc-pvdz:512MB)
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
# The peers (psi4, NWChem) load the same OpenBLAS as tcec's programs: give them the kernels for this
# CPU too, as tcec's programs choose them (runtime/kernel/kernel.h use_native_blas_kernels), so that an
# OpenBLAS that does not know the CPU by model does not run them on its SSE3 kernels.
if [ -z "${OPENBLAS_CORETYPE:-}" ]; then
  flags=$(grep -m1 '^flags' /proc/cpuinfo || true)
  has() { for f in "$@"; do [[ " $flags " == *" $f "* ]] || return 1; done; }
  if has avx512f avx512cd avx512bw avx512dq avx512vl; then export OPENBLAS_CORETYPE=SkylakeX
  elif has avx2 fma; then export OPENBLAS_CORETYPE=Haswell; fi
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
have_nwchem=$(command -v nwchem > /dev/null && echo 1 || echo 0)

# nwchem_input TASK BASIS: H2O as tools/psi4_integrals.py builds it (Z-matrix, no symmetry, all
# electrons correlated), converged as tightly as psi4 there.
nwchem_input() {
  cat << EOF
start h2o_$1
permanent_dir $work/nw
scratch_dir $work/nw
memory 1000 mb
geometry units angstrom noautoz nocenter
 symmetry c1
 zmatrix
  O
  H 1 0.96
  H 1 0.96 2 104.5
 end
end
basis spherical
 * library $2
end
scf
 thresh 1e-10
 tol2e 1e-14
end
tce
 ccsd
 thresh 1e-8
 maxiter 100
end
task $1 energy
EOF
}

# nwchem_per_iteration P BASIS: prints "SECONDS_PER_ITERATION ITERATIONS ENERGY" (see above).
nwchem_per_iteration() {
  local P=$1 basis=$2
  mkdir -p "$work/nw"
  nwchem_input scf "$basis" > "$work/scf.nw"
  nwchem_input tce "$basis" > "$work/tce.nw"
  local scf=() tce=()
  for _ in 1 2 3; do
    for task in scf tce; do
      rm -rf "$work/nw"/*
      local start
      start=$(now)
      mpirun --oversubscribe -np "$P" nwchem "$work/$task.nw" > "$work/$task.out" 2>&1
      local s
      s=$(python3 -c "print($(now) - $start)")
      [[ $task == scf ]] && scf+=("$s") || tce+=("$s")
    done
  done
  python3 - "$work/tce.out" "${scf[*]}" "${tce[*]}" << 'PY'
import re, statistics, sys
text = open(sys.argv[1]).read()
iterations = len(re.findall(r"^\s+\d+\s+[0-9.]+\s+-?[0-9.]+\s+[0-9.]+\s+[0-9.]+\s*$", text, re.M))
energy = re.search(r"CCSD correlation energy / hartree =\s+(-?[0-9.]+)", text).group(1)
scf = statistics.median(map(float, sys.argv[2].split()))
tce = statistics.median(map(float, sys.argv[3].split()))
print(f"{(tce - scf) / max(iterations, 1):.4f} {iterations} {energy}")
PY
}

printf '%-20s %3s %4s %4s %11s %9s %7s %12s %10s %18s %18s\n' case P O V "tcec s/it" GFLOP/s "of GEMM" \
  "NWChem s/it" "psi4 all" "tcec - psi4 (Eh)" "NWChem - psi4 (Eh)"
for c in "${cases[@]}"; do
  IFS=: read -r molecule basis memory <<< "$c"
  ints=$work/$molecule-$basis
  start=$(now)
  (cd "$work" && /usr/bin/python3 "$here/tools/psi4_integrals.py" "$molecule" "$basis" "$ints" > /dev/null)  # psi4 writes timer.dat
  psi4_s=$(python3 -c "print($(now) - $start)")   # psi4's SCF, CCSD and integrals together
  meta() { /usr/bin/python3 -c "import json; print(json.load(open('$ints/meta.json'))['$1'])"; }
  O=$(meta O) V=$(meta V) psi4_energy=$(meta ccsd_correlation_energy)
  for P in 1 2 4; do
    mem_text=$(sed 's/\([0-9]\)\([KMG]B\)/\1 \2/' <<< "$memory")
    mpirun --oversubscribe -np "$P" "$build/bin/tcec-calibrate" --quick --memory "$mem_text" --scratch "$work/cal" \
      -o "$work/cal$P.machine" 2> /dev/null
    gemm=$(sed -n 's/^  flops \([0-9.]*\) GFLOP\/s.*/\1/p' "$work/cal$P.machine")
    # The measured overlap decides whether plans take an I/O thread (0 here: the page cache's
    # copies and the kernel share the memory system; overlapped plans ran 1.2-1.5x slower).
    overlap=$(sed -n 's/^  overlap \([0-9.]*\);.*/\1/p' "$work/cal$P.machine")
    printf 'machine bench {\n  processors %s;\n  memory %s;\n  network 1 GB/s;\n  disk 500 MB/s;\n  overlap %s;\n}\n' \
      "$P" "$mem_text" "${overlap:-1}" > "$work/p$P.machine"
    # The first run compiles the residuals (cached); the second is timed.
    for run in compile timed; do
      mpirun --oversubscribe -np "$P" "$build/bin/tcec-ccsd" --integrals "$ints" --equations "$equations" \
        --machine "$work/p$P.machine" --scratch "$work/s" > "$work/out" 2> "$work/err"
    done
    nwchem_row="- 0 0"
    [[ $have_nwchem == 1 ]] && nwchem_row=$(nwchem_per_iteration "$P" "$basis")
    /usr/bin/python3 - "$work/out" "$work/err" "$c" "$P" "$O" "$V" "$psi4_s" "$gemm" "$psi4_energy" $nwchem_row << 'PY'
import re, statistics, sys
out, err, case, P, O, V, psi4_s, gemm, psi4_e, nw_s, nw_it, nw_e = sys.argv[1:13]
rows = [l.split() for l in open(out) if l.split() and l.split()[0].isdigit()]
times = [float(r[-1]) for r in rows[1:]] or [float(rows[0][-1])]
per_iteration = statistics.median(times)
flops = float(re.search(r"([0-9.e+]+) flops per iteration", open(err).read()).group(1))
rate = flops / per_iteration / 1e9
of_gemm = rate / (float(gemm) * int(P))
energy = float(re.search(r"CCSD correlation energy: (-?[0-9.]+)", open(out).read()).group(1))
nw = f"{float(nw_s):12.4f}" if nw_s != "-" else f"{'-':>12}"
nw_diff = f"{float(nw_e) - float(psi4_e):18.2e}" if nw_s != "-" else f"{'-':>18}"
print(f"{case:<20} {P:>3} {O:>4} {V:>4} {per_iteration:11.4f} {rate:9.2f} {of_gemm:7.3f} {nw} {float(psi4_s):10.2f} "
      f"{energy - float(psi4_e):18.2e} {nw_diff}")
PY
  done
done
