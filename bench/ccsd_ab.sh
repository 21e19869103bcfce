#!/usr/bin/env bash
# bench/ccsd_ab.sh — tcec-ccsd's seconds per iteration of two builds side by side: is a change to
# the runtime (e.g. how a result is written) slower for a CCSD run on one node?
#
#   bench/ccsd_ab.sh BASE_BUILD_DIR [BUILD_DIR] [PAIRS] [CASES...]
#
# BASE_BUILD_DIR: a build of the baseline (e.g. of a worktree at main's last commit; tcec-ccsd
# built); BUILD_DIR: the build measured (default build/). CASES are MOLECULE:BASIS:P:MEMORY
# (memory per rank), default h2o:cc-pvdz:2:2MB h2o:cc-pvdz:2:512MB h2o:cc-pvdz:4:2MB
# h2o:cc-pvdz:4:512MB (2 MB: the residuals run out of core; 512 MB: every tensor fits). Each
# case: psi4's integrals (tools/psi4_integrals.py), one untimed run per build (it compiles the
# residuals, cached), then PAIRS (default 3) pairs of runs, the baseline first, in turn. Prints
# per case both builds' medians over the pairs of the median seconds per iteration (the first
# iteration left out) and the median of the pairs' ratios, build / baseline (below 1: faster).
# Needs MPI (as root OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1) and psi4.
# Results topic: `ccsd-ab`.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -ge 1 ]] || { echo "usage: bench/ccsd_ab.sh BASE_BUILD_DIR [BUILD_DIR] [PAIRS] [CASES...]" >&2; exit 2; }
source "$here/bench/results_file.sh"; results_begin ccsd-ab "$0" "$@"
base=$(cd "$1" && pwd)
build=$(cd "${2:-$here/build}" && pwd)
pairs=${3:-3}
shift $(($# > 3 ? 3 : $#))
cases=("$@")
[[ ${#cases[@]} -gt 0 ]] || cases=(h2o:cc-pvdz:2:2MB h2o:cc-pvdz:2:512MB h2o:cc-pvdz:4:2MB h2o:cc-pvdz:4:512MB)
work=$(mktemp -d "${TMPDIR:-/tmp}/ccsd-ab-XXXXXX")
trap 'rm -rf "$work"' EXIT
commit_of() { git -C "$1/.." rev-parse --short HEAD 2> /dev/null || echo unknown; }
echo "baseline: a build of $(commit_of "$base"); build: a build of $(commit_of "$build")"
# per_iteration BUILD P MACHINE: the median seconds per iteration of one run
per_iteration() {
  mpirun --oversubscribe -np "$2" "$1/bin/tcec-ccsd" --integrals "$ints" \
    --equations "$here/data/nwchem_tce_equation_trees.txt" --machine "$3" --scratch "$work/s" 2> /dev/null |
    /usr/bin/python3 -c '
import statistics, sys
rows = [l.split() for l in sys.stdin if l.split() and l.split()[0].isdigit()]
print(statistics.median([float(r[-1]) for r in rows[1:]] or [float(rows[0][-1])]))'
}
printf '%-24s %12s %12s %14s\n' case "base s/it" "build s/it" "build / base"
for c in "${cases[@]}"; do
  IFS=: read -r molecule basis P memory <<< "$c"
  ints=$work/$molecule-$basis
  [[ -d $ints ]] || (cd "$work" && /usr/bin/python3 "$here/tools/psi4_integrals.py" "$molecule" "$basis" "$ints" > /dev/null)
  machine=$work/$P-$memory.machine
  printf 'machine ab {\n  processors %s;\n  memory %s;\n  network 1 GB/s;\n  disk 500 MB/s;\n}\n' \
    "$P" "$(sed 's/\([0-9]\)\([KMG]B\)/\1 \2/' <<< "$memory")" > "$machine"
  per_iteration "$base" "$P" "$machine" > /dev/null  # compiles the residuals
  per_iteration "$build" "$P" "$machine" > /dev/null
  b=() n=()
  for ((i = 0; i < pairs; ++i)); do
    b+=("$(per_iteration "$base" "$P" "$machine")")
    n+=("$(per_iteration "$build" "$P" "$machine")")
  done
  /usr/bin/python3 - "$c" "${b[*]}" "${n[*]}" << 'PY'
import statistics, sys
case, base, build = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
ratio = statistics.median(n / b for b, n in zip(base, build))
print(f"{case:<24} {statistics.median(base):12.4f} {statistics.median(build):12.4f} {ratio:14.3f}")
PY
done
