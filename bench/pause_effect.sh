#!/usr/bin/env bash
# bench/pause_effect.sh — one generated program, run at once after the one before or after a
# pause: how much of a run's time depends on when memory was last freed.
#
#   bench/pause_effect.sh [BUILD_DIR] [PAIRS] [PAUSE_S]
#
# Builds the 4-index step (examples/four_index.tce, N = 64) under outside replication at P = 2
# with 12 MB per rank (a plan that writes its result and stage 3's copies: new pages), then runs
# it PAIRS times (default 6) twice in turn: at once after the run before, and after PAUSE_S
# seconds (default 8) of nothing. Per run it prints the compute stage's and stages 1 and 3's
# measured seconds (slowest rank) and, where the kernel has free page reporting (a virtual
# machine giving freed memory back to its host), the MiB it gave back during the pause before the
# run; then the median whole contraction per mode and their ratio. On a machine without free page
# reporting the two modes should measure the same. MPI: as root set OMPI_ALLOW_RUN_AS_ROOT=1
# OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1. The inputs are .npy files (bench/write_inputs.py, Debian's
# python3-numpy).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/results_file.sh"; results_begin pause-effect "$0" "$@"
build=${1:-$here/build}
pairs=${2:-6}
pause=${3:-8}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'machine m { processors 2; memory 12 MB; network 1 GB/s; disk 500 MB/s; }\n' > "$work/m.machine"
args=("$here/examples/four_index.tce" -D N=64 --machine "$work/m.machine" --force-method outside-replication)
"$build/bin/tcec" "${args[@]}" -o "$work/program" --build > /dev/null
"$build/bin/tcec" "${args[@]}" --dry-run --json | /usr/bin/python3 "$here/bench/write_inputs.py" "$work/inputs"
program=$(find "$work/program" -maxdepth 1 -type f -perm -u+x | head -1)
reported=/sys/module/page_reporting/parameters/reported_kib
kib() { if [[ -r $reported ]]; then cat "$reported"; else echo -1; fi; }
for ((r = 0; r < pairs; ++r)); do
  for mode in at_once after_pause; do
    before=$(kib)
    [[ $mode == after_pause ]] && sleep "$pause"
    after=$(kib)
    mpirun --oversubscribe -np 2 "$program" --quiet --trace "$work/$mode.$r.json" --scratch "$work/scratch" \
      --input-dir "$work/inputs"
    if ((before < 0)); then echo -1; else echo $(((after - before) / 1024)); fi > "$work/$mode.$r.mib"
  done
done
python3 - "$work" "$pairs" "$pause" <<'PY'
import json, statistics, sys
work, pairs, pause = sys.argv[1], int(sys.argv[2]), sys.argv[3]
print(f"{'run':>3} {'mode':<12} {'compute_s':>9} {'stages13_s':>10} {'whole_s':>8} {'MiB_to_host':>11}")
whole = {"at_once": [], "after_pause": []}
for r in range(pairs):
    for mode in whole:
        c = json.load(open(f"{work}/{mode}.{r}.json"))["contractions"][0]
        compute = max(c["measured"]["seconds"])
        stages = max(c.get("redistribution", {}).get("measured", {}).get("seconds", [0.0]))
        mib = int(open(f"{work}/{mode}.{r}.mib").read())
        whole[mode].append(compute + stages)
        print(f"{r:>3} {mode:<12} {compute:>9.3f} {stages:>10.3f} {compute + stages:>8.3f} "
              f"{'-' if mib < 0 else mib:>11}")
a, p = statistics.median(whole["at_once"]), statistics.median(whole["after_pause"])
print(f"median whole contraction: at once {a:.3f} s, after a {pause} s pause {p:.3f} s: {p / a:.2f}x")
PY
