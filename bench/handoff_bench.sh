#!/usr/bin/env bash
# bench/handoff_bench.sh — a program of many contractions with the sequence hand-off against the
# same program through the tensor store (--no-handoff), run side by side.
#
#   bench/handoff_bench.sh [BUILD_DIR] [RUNS] [tcec options...]
#
# Default: NWChem's CCSD T2 tree with O = 10, V = 30 on four ranks with 1 MB of tile memory
# each (every plan out of core), forced to outside accumulation, whose partial C files the
# hand-off saves (the other Gao methods read and write the store directly, which a hand-off does
# not beat, and cosma, the default winner there, keeps nothing).
# Compiles both variants, runs them alternately RUNS times (default 3) on the same random
# inputs, compares their i0 (numpy under /usr/bin/python3), and reports per variant the redistribution bytes
# summed over contractions and ranks (predicted and measured: disk read + write, from the
# traces) and the median wall time of the whole mpirun, then the ratios hand-off / store.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/results_file.sh"; results_begin handoff "$0" "$@"
build=${1:-$here/build}
runs=${2:-3}
shift $(( $# > 2 ? 2 : $# ))
options=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ ${#options[@]} -eq 0 ]]; then
  printf 'machine bench {\n  processors 4;\n  memory 1 MB;\n  network 1 GB/s;\n  disk 200 MB/s;\n}\n' > "$work/bench.machine"
  options=("$here/data/nwchem_tce_equation_trees.txt" --from nwchem --section ccsd_t2 -D O=10 -D V=30
           --machine "$work/bench.machine" --force-method outside-accumulation)
fi
for variant in handoff store; do
  extra=()
  [[ $variant == store ]] && extra=(--no-handoff)
  mkdir -p "$work/$variant"
  "$build/bin/tcec" "${options[@]}" "${extra[@]}" -o "$work/$variant" --build >/dev/null
done
np=$("$build/bin/tcec" "${options[@]}" --dry-run --json |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["machine"]["processors"])')
program() { find "$1" -maxdepth 1 -type f -perm -u+x | head -1; }
for ((i = 0; i < runs; ++i)); do
  for variant in handoff store; do
    start=$(date +%s.%N)
    mpirun --oversubscribe -np "$np" "$(program "$work/$variant")" --quiet --init random:7 \
      --trace "$work/$variant/trace.json" --scratch "$work/$variant/scratch" --output-dir "$work/$variant/out"
    echo "$(date +%s.%N) - $start" | bc >> "$work/$variant/seconds"
  done
done
# The plans differ (so do summation orders): the outputs agree to rounding, not bitwise.
same=$(/usr/bin/python3 -c 'import numpy as np, sys; a, b = (np.load(f) for f in sys.argv[1:]); print(f"max |difference| / max |i0| = {np.abs(a - b).max() / np.abs(b).max():.2g}")' \
  "$work/handoff/out/i0.npy" "$work/store/out/i0.npy")
python3 - "$work" "$same" <<'PY'
import json, statistics, sys
work, same = sys.argv[1], sys.argv[2]
rows = {}
for variant in ("handoff", "store"):
    trace = json.load(open(f"{work}/{variant}/trace.json"))
    total = lambda side: sum(sum(c["redistribution"][side][k]) for c in trace["contractions"]
                             for k in ("disk_read_bytes", "disk_write_bytes"))
    seconds = [float(x) for x in open(f"{work}/{variant}/seconds")]
    rows[variant] = (total("predicted"), total("measured"), statistics.median(seconds), len(trace["contractions"]))
print(f"{'variant':10} {'contractions':>12} {'redistribution predicted B':>27} {'measured B':>12} {'median wall s':>14}")
for variant, (p, m, s, n) in rows.items():
    print(f"{variant:10} {n:>12} {p:>27} {m:>12} {s:>14.3f}")
h, st = rows["handoff"], rows["store"]
print(f"hand-off / store: redistribution bytes {h[1] / st[1]:.3f}, wall time {h[2] / st[2]:.3f}; i0: {same}")
PY
