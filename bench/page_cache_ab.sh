#!/usr/bin/env bash
# bench/page_cache_ab.sh — issue 51's cases with every tensor in the page cache, the programs of
# two builds side by side: is a change made for tensors larger than memory slower where they fit?
#
#   bench/page_cache_ab.sh BASE_BUILD_DIR [BUILD_DIR] [CASES] [RUNS]
#
# BASE_BUILD_DIR: a build of the baseline (e.g. of a worktree at main's last commit); BUILD_DIR:
# the build measured (default build/). Each case (bench/ooc_cases.sh) is planned for the machine
# `tcec-calibrate --regime device` of BUILD_DIR measures (without its direct_read_bytes: reads
# through the page cache) with the case's memory per rank, as
# bench/ooc_regime.sh plans it, and compiled by each build's tcec for that one machine file (the
# same plan for both unless the planner changed); its inputs are written and read once, into the
# page cache; then RUNS (default 3) pairs of runs, the baseline first, in turn, with no cgroup
# and no caches dropped. Prints per case both median walls (seconds, mpirun included) and the
# median of the pairs' ratios, build / baseline (below 1: faster). Needs MPI (as root
# OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1), /usr/bin/python3 with numpy and the
# memory to hold a case's tensors (N = 160: 10.5 GB). Results topic: `page-cache-ab`.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -ge 1 ]] || { echo "usage: bench/page_cache_ab.sh BASE_BUILD_DIR [BUILD_DIR] [CASES] [RUNS]" >&2; exit 2; }
base=$(cd "$1" && pwd)
build=$(cd "${2:-$here/build}" && pwd)
wanted=${3:-}
runs=${4:-3}
source "$here/bench/results_file.sh"; results_begin page-cache-ab "$0" "$@"
source "$here/bench/ooc_cases.sh"
[[ -n $wanted ]] || wanted=$ooc_issue_cases
work=$(mktemp -d "${TMPDIR:-/tmp}/page-cache-ab-XXXXXX")
trap 'rm -rf "$work"' EXIT
commit_of() { git -C "$1/.." rev-parse --short HEAD 2> /dev/null || echo unknown; }
echo "baseline: a build of $(commit_of "$base"); build: a build of $(commit_of "$build")"
ooc_machines "$build" "$work"
printf '%-22s %2s %10s %10s %12s\n' case P base_s build_s build/base
for entry in "${ooc_cases[@]}"; do
  IFS='|' read -r name np memory _ _ source <<< "$entry"
  [[ " $wanted " == *" $name "* ]] || continue
  read -r -a args <<< "$source"
  dir=$work/$name
  mkdir -p "$dir"
  # The device's figures, but reads through the page cache, as a machine calibrated where the
  # tensors fit has them (no direct_read_bytes: docs/out-of-core.md "Direct reads").
  sed -e "s/^  memory [0-9]* MB;/  memory $memory;/" -e "/^  direct_read_bytes /d" "$work/cal.$np.machine" \
    > "$dir/m.machine"
  for which in base build; do
    tcec=$base/bin/tcec
    [[ $which == build ]] && tcec=$build/bin/tcec
    (cd "$here" && "$tcec" "${args[@]}" --machine "$dir/m.machine" -o "$dir/$which" --build > /dev/null)
  done
  "$build/bin/tcec" "${args[@]}" --machine "$dir/m.machine" --dry-run --json > "$dir/dry.json"
  /usr/bin/python3 "$here/bench/ooc_numpy.py" inputs "$dir/in" < "$dir/dry.json"
  cat "$dir"/in/*.npy > /dev/null  # into the page cache
  for ((r = 0; r < runs; ++r)); do
    for which in base build; do
      program=$(find "$dir/$which" -maxdepth 1 -type f -perm -u+x | head -1)
      rm -rf "$dir/out" "$dir/scratch"
      /usr/bin/time -f %e -o "$dir/time" mpirun --oversubscribe -np "$np" "$program" --quiet \
        --scratch "$dir/scratch" --input-dir "$dir/in" --output-dir "$dir/out" > "$dir/log" 2>&1 ||
        { echo "$name: the $which program failed:" >&2; tail -3 "$dir/log" >&2; exit 1; }
      tail -1 "$dir/time" >> "$dir/$which.walls"
    done
  done
  /usr/bin/python3 - "$name" "$np" "$dir/base.walls" "$dir/build.walls" << 'PY'
import statistics, sys
name, np, base, build = sys.argv[1], sys.argv[2], *(list(map(float, open(f).read().split())) for f in sys.argv[3:5])
ratio = statistics.median(b / a for a, b in zip(base, build))
print(f"{name:<22} {np:>2} {statistics.median(base):>10.2f} {statistics.median(build):>10.2f} {ratio:>12.3f}")
PY
  rm -rf "$dir"
done
