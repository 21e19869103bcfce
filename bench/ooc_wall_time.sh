#!/usr/bin/env bash
# bench/ooc_wall_time.sh — out-of-core runs overlapped and serial, side by side.
#
#   bench/ooc_wall_time.sh [BUILD_DIR] [RUNS]
#
# For each case below: compiles it, then runs the program RUNS times (default 3) overlapped and
# RUNS times with --no-overlap, alternating, on the plan's ranks (MPI; as root set
# OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1). Per contraction and mode it
# reports, for the slowest rank of the median run, the compute phase's wall time over the
# largest of its disk, network and kernel busy times (1.00 = fully overlapped; serially the
# wall is about their sum) and the overlapped wall over the serial wall. Both modes run the same
# plan and move the same bytes; --no-overlap only stops the I/O thread from running ahead. The
# inputs are .npy files (bench/write_inputs.py, with Debian's python3-numpy).
# A Gao plan without overlap (its text has no "overlap=yes") runs serially in both modes; cosma's
# streamed rounds (t > 2) read ahead unless --no-overlap. four_index_N96_calibrated plans N = 96
# with the machine's overlap as tcec-calibrate measures it here: compare its wall with
# four_index_N96's (planned with the default overlap 1).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/results_file.sh"; results_begin ooc-wall-time "$0" "$@"
build=${1:-$here/build}
runs=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'machine m12 { processors 4; memory 12 MB; network 1 GB/s; disk 500 MB/s; }\n' > "$work/m12.machine"
printf 'machine m24 { processors 4; memory 24 MB; network 1 GB/s; disk 500 MB/s; }\n' > "$work/m24.machine"
# examples/small.machine with the overlap tcec-calibrate measures here at P = 4 (the planner then
# chooses overlapped plans only as far as an I/O thread really runs beside the multiply).
mpirun --oversubscribe -np 4 "$build/bin/tcec-calibrate" --quick --scratch "$work" -o "$work/cal.machine" 2> /dev/null
overlap=$(sed -n 's/^  overlap \([0-9.]*\);.*/\1/p' "$work/cal.machine")
sed "s|^}|  overlap $overlap;\n}|" "$here/examples/small.machine" > "$work/small_calibrated.machine"
echo "overlap measured by tcec-calibrate at P = 4: $overlap"
cases=(
  "four_index_N64|$here/examples/four_index.tce -D N=64 --machine $here/examples/small.machine"
  "four_index_N96|$here/examples/four_index.tce -D N=96 --machine $here/examples/small.machine"
  "four_index_N96_calibrated|$here/examples/four_index.tce -D N=96 --machine $work/small_calibrated.machine"
  "rect_inside_rotation|$here/bench/rect.tce -D M=3000 -D N=2500 --machine $work/m12.machine --force-method inside-rotation"
  "rect_inside_replication|$here/bench/rect.tce -D M=3000 -D N=2500 --machine $work/m12.machine --force-method inside-replication"
  "rect_outside_accumulation|$here/bench/rect.tce -D M=3000 -D N=2500 --machine $work/m12.machine --force-method outside-accumulation"
  "rect_cosma_24MB|$here/bench/rect.tce -D M=3000 -D N=2500 --machine $work/m24.machine --force-method cosma"
)
printf '%-28s %-12s %10s %8s %8s %8s %12s %12s\n' case mode wall_s disk_s net_s kernel_s wall/max overlap/serial
for entry in "${cases[@]}"; do
  name=${entry%%|*}
  read -r -a args <<< "${entry#*|}"
  dir="$work/$name"
  "$build/bin/tcec" "${args[@]}" -o "$dir" --build > /dev/null
  "$build/bin/tcec" "${args[@]}" --dry-run --json | /usr/bin/python3 "$here/bench/write_inputs.py" "$dir/inputs"
  np=$("$build/bin/tcec" "${args[@]}" --dry-run --json |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["machine"]["processors"])')
  program=$(find "$dir" -maxdepth 1 -type f -perm -u+x | head -1)
  for ((r = 0; r < runs; ++r)); do
    for mode in overlap serial; do
      flag=()
      [[ $mode == serial ]] && flag=(--no-overlap)
      mpirun --oversubscribe -np "$np" "$program" --quiet --trace "$dir/$mode.$r.json" \
        --scratch "$dir/scratch" --input-dir "$dir/inputs" "${flag[@]}"
    done
  done
  python3 - "$name" "$dir" "$runs" <<'PY'
import json, statistics, sys
name, d, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
def slowest(path, n):
    m = json.load(open(path))["contractions"][n]["measured"]
    r = max(range(len(m["seconds"])), key=lambda q: m["seconds"][q])
    return m["seconds"][r], m["disk_seconds"][r], m["comm_seconds"][r], m["kernel_seconds"][r]
count = len(json.load(open(f"{d}/overlap.0.json"))["contractions"])
for n in range(count):
    plan = json.load(open(f"{d}/overlap.0.json"))["contractions"][n]["plan"]
    median = {}
    for mode in ("overlap", "serial"):
        rows = sorted((slowest(f"{d}/{mode}.{r}.json", n) for r in range(runs)), key=lambda t: t[0])
        median[mode] = rows[len(rows) // 2]
    for mode in ("overlap", "serial"):
        wall, disk, net, kernel = median[mode]
        ratio = median["overlap"][0] / median["serial"][0]
        label = f"{name}" + (f"#{n + 1}" if count > 1 else "")
        print(f"{label:<28} {mode:<12} {wall:>10.3f} {disk:>8.3f} {net:>8.3f} {kernel:>8.3f} "
              f"{wall / max(disk, net, kernel):>12.2f} {ratio if mode == 'overlap' else 1.0:>12.2f}")
    print(f"  plan: {plan}")
PY
done
