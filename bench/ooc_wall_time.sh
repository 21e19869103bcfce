#!/usr/bin/env bash
# bench/ooc_wall_time.sh — an out-of-core run's wall time against max(disk, compute, network).
#
#   bench/ooc_wall_time.sh [BUILD_DIR] [FILE.tce] [tcec options...]
#
# Compiles FILE.tce (default: the 4-index transform with N = 64 on examples/small.machine,
# where A alone is 134 MB against 8 MB of tile memory per rank), runs it on the plan's ranks,
# and reports from its trace, per contraction and for the slowest rank, the compute phase's
# wall time and the time the rank was busy with disk transfers, with MPI transfers and in the
# tile kernel. Without overlap the wall time is about their sum; with perfect overlap it would
# be their maximum. The ratio wall / max(busy) is what overlapping I/O with compute can gain.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
file=${2:-$here/examples/four_index.tce}
shift $(( $# > 2 ? 2 : $# ))
options=("$@")
if [[ ${#options[@]} -eq 0 ]]; then options=(-D N=64 --machine "$here/examples/small.machine"); fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bin/tcec" "$file" -o "$work" --build "${options[@]}" >/dev/null
np=$("$build/bin/tcec" "$file" --dry-run --json "${options[@]}" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["machine"]["processors"])')
stem=$(basename "${file%.*}")
mpirun --oversubscribe -np "$np" "$work/$stem" --quiet --trace "$work/trace.json" --scratch "$work/scratch"
python3 - "$work/trace.json" <<'PY'
import json, sys
trace = json.load(open(sys.argv[1]))
for n, c in enumerate(trace["contractions"], 1):
    m = c["measured"]
    ranks = range(len(m["seconds"]))
    slow = max(ranks, key=lambda r: m["seconds"][r])
    wall = m["seconds"][slow]
    busy = {k: m[k + "_seconds"][slow] for k in ("disk", "comm", "kernel")}
    bound = max(busy.values())
    print(f"contraction {n}: {c['plan']}")
    print(f"  slowest rank {slow}: wall {wall:.3f} s; busy: disk {busy['disk']:.3f} s, "
          f"network {busy['comm']:.3f} s, kernel {busy['kernel']:.3f} s; sum {sum(busy.values()):.3f} s")
    print(f"  wall / max(disk, network, kernel) = {wall / bound:.2f}  (1.00 = fully overlapped)")
    print(f"  model prediction (disk + network at the machine's bandwidths): {c['predicted']['seconds']:.3f} s")
PY
