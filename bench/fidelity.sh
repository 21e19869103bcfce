#!/usr/bin/env bash
# bench/fidelity.sh — the time model against the machine it runs on.
#
#   bench/fidelity.sh [BUILD_DIR] [P] [MEMORY]
#
# Calibrates the machine with tcec-calibrate (P ranks, default 4; MEMORY of tile memory per
# rank, default "12 MB", small enough that the cases run out of core), then for each case runs
# every method forced (where feasible) and the default plan, and prints per run the predicted
# wall time of the compute stage (the trace's predicted seconds), the measured one (slowest
# rank) and their ratio, then the same for the whole contraction (compute stage plus stages 1
# and 3, which the plan choice weighs), and per case the default plan's measured whole time over
# the fastest forced method's. The inputs are .npy files (bench/write_inputs.py, with Debian's
# python3-numpy), read as a user's would be. MPI: as root set OMPI_ALLOW_RUN_AS_ROOT=1
# OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
np=${2:-4}
memory=${3:-12 MB}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpirun --oversubscribe -np "$np" "$build/bin/tcec-calibrate" --memory "$memory" --scratch "$work" \
  -o "$work/calibrated.machine" 2> "$work/calibrate.log"
grep -v '^#' "$work/calibrated.machine" | sed 's/^/  /'
methods=(inside-rotation inside-replication inside-accumulation outside-rotation outside-replication
         outside-accumulation cosma)
cases=("rect_2400x3000x2400|$here/bench/rect.tce -D M=2400 -D N=3000" "four_index_N64|$here/examples/four_index.tce -D N=64")
printf '\n%-22s %-22s %12s %12s %8s %12s %12s %8s\n' case method compute_pred compute_meas ratio \
  total_pred total_meas ratio
for entry in "${cases[@]}"; do
  name=${entry%%|*}
  read -r -a args <<< "${entry#*|}"
  "$build/bin/tcec" "${args[@]}" --machine "$work/calibrated.machine" --dry-run --json |
    /usr/bin/python3 "$here/bench/write_inputs.py" "$work/$name.inputs"
  best=""
  default_s=""
  for method in "${methods[@]}" default; do
    force=()
    [[ $method != default ]] && force=(--force-method "$method")
    dir="$work/$name.$method"
    if ! "$build/bin/tcec" "${args[@]}" --machine "$work/calibrated.machine" "${force[@]}" -o "$dir" --build \
        > /dev/null 2>&1; then
      printf '%-22s %-22s %12s\n' "$name" "$method" "infeasible"
      continue
    fi
    program=$(find "$dir" -maxdepth 1 -type f -perm -u+x | head -1)
    mpirun --oversubscribe -np "$np" "$program" --quiet --trace "$dir/trace.json" --scratch "$dir/scratch" \
      --input-dir "$work/$name.inputs"
    read -r predicted measured total_p total_m < <(python3 - "$dir/trace.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
cs = t["contractions"]
p = sum(c["predicted"]["seconds"] for c in cs)
m = sum(max(c["measured"]["seconds"]) for c in cs)
rp = sum(c["redistribution"]["predicted"]["seconds"] for c in cs)
rm = sum(max(c["redistribution"]["measured"]["seconds"]) for c in cs)
print(p, m, p + rp, m + rm)
PY
)
    python3 -c "import sys; p, m, tp, tm = map(float, sys.argv[1:5]); print(f'{sys.argv[5]:<22} {sys.argv[6]:<22} {p:>12.3f} {m:>12.3f} {p / m:>8.2f} {tp:>12.3f} {tm:>12.3f} {tp / tm:>8.2f}')" \
      "$predicted" "$measured" "$total_p" "$total_m" "$name" "$method"
    if [[ $method == default ]]; then default_s=$total_m
    elif [[ -z $best ]] || python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)" "$total_m" "$best"; then
      best=$total_m
    fi
  done
  python3 -c "import sys; print(f'  default / fastest forced (whole contraction, measured): {float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "$default_s" "$best"
done
