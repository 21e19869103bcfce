#!/usr/bin/env bash
# bench/ccsd_bench.sh — time per CCSD iteration of tcec-ccsd at P = 1, 2 and 4 against psi4's
# CCSD on the same molecule, side by side (issue 24). Integrals and psi4's time come from
# tools/psi4_integrals.py (one psi4 run: SCF + CCSD).
#   bash bench/ccsd_bench.sh [BUILD_DIR] [EQUATIONS] [CASES...]
# CASES are MOLECULE:BASIS:MEMORY (memory per rank, below v_pppp's size so that the residuals run
# out of core), default h2o:6-31g:256KB h2o:cc-pvdz:2MB. Prints per case and P the median
# seconds per iteration over the run (after the first), and psi4's wall time for SCF, CCSD and the
# integrals together (an upper bound on its CCSD).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
equations=${2:-$here/../shared/inputs/nwchem_tce_equation_trees.txt}
shift $(( $# > 2 ? 2 : $# )) || true
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(h2o:6-31g:256KB h2o:cc-pvdz:2MB)
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-22s %3s %5s %5s %12s %12s %14s\n' case P O V "s/iter" iterations "psi4 all (s)"
for c in "${cases[@]}"; do
  IFS=: read -r molecule basis memory <<< "$c"
  ints=$work/$molecule-$basis
  start=$(date +%s.%N)
  /usr/bin/python3 "$here/tools/psi4_integrals.py" "$molecule" "$basis" "$ints" > /dev/null
  psi4_s=$(python3 -c "print($(date +%s.%N) - $start)")   # psi4's SCF, CCSD and integrals together
  O=$(/usr/bin/python3 -c "import json; print(json.load(open('$ints/meta.json'))['O'])")
  V=$(/usr/bin/python3 -c "import json; print(json.load(open('$ints/meta.json'))['V'])")
  for P in 1 2 4; do
    printf 'machine bench {\n  processors %s;\n  memory %s;\n  network 1 GB/s;\n  disk 500 MB/s;\n}\n' "$P" \
      "$(sed 's/\([0-9]\)\([KMG]B\)/\1 \2/' <<< "$memory")" > "$work/p$P.machine"
    # The first run compiles the residuals (cached); the second is timed.
    for run in compile timed; do
      mpirun --oversubscribe -np "$P" "$build/bin/tcec-ccsd" --integrals "$ints" --equations "$equations" \
        --machine "$work/p$P.machine" --scratch "$work/s" > "$work/out" 2> /dev/null
    done
    /usr/bin/python3 - "$work/out" "$c" "$P" "$O" "$V" "$psi4_s" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.split() and l.split()[0].isdigit()]
times = [float(r[-1]) for r in rows[1:]] or [float(rows[0][-1])]
print(f"{sys.argv[2]:<22} {sys.argv[3]:>3} {sys.argv[4]:>5} {sys.argv[5]:>5} {statistics.median(times):12.4f} "
      f"{len(rows):12d} {float(sys.argv[6]):14.2f}")
PY
  done
done
