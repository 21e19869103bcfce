#!/usr/bin/env bash
# bench/fidelity.sh — the time model against the machine it runs on.
#
#   bench/fidelity.sh [BUILD_DIR] [PS] [MEMORY] [RUNS]
#
# For each P in PS (default "2 4"): calibrates the machine with tcec-calibrate (P ranks; MEMORY of
# tile memory per rank, default "12 MB", small enough that the cases run out of core), then for
# each case runs every method forced (where feasible) and the default plan, RUNS times each
# (default 1; the measured times are their medians: this host's runs of one plan vary by up to
# 1.6x from one to the next), and prints per plan the predicted wall time of the compute stage
# (the trace's predicted seconds), the measured one (slowest rank) and their ratio, then the same
# for the whole contraction (compute stage plus stages 1 and 3, which the plan choice weighs);
# then per P and in all, how many plans are within ±25% and the worst ratios, and per case the
# default plan's measured whole time over the fastest forced method's, naming the forced method
# whose plan the default is (bench/fidelity.py). Cases: two products (2400×3000×2400, and a large
# K, 1200×12000×1200), the 4-index step of Gao et al. (N = 64) and a CCSD term (the
# particle-particle ladder, O = 16, V = 64). The inputs are .npy files (bench/write_inputs.py,
# with Debian's python3-numpy), read as a user's would be. MPI: as root set
# OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1.
# PAUSE=S (environment, default 0): sleep S seconds before the calibration and before every run,
# so that each starts as a user's program does after a pause. On a virtual machine with free
# page reporting a run's writes into new pages are up to 2x slower after a pause than right
# after another program has freed memory (bench/pause_effect.sh); back to back, which of the two
# a run sees depends on the run before it.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/results_file.sh"; results_begin fidelity "$0" "$@"
build=${1:-$here/build}
ps=${2:-2 4}
memory=${3:-12 MB}
runs=${4:-1}
pause=${PAUSE:-0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
methods=(inside-rotation inside-replication inside-accumulation outside-rotation outside-replication
         outside-accumulation cosma sfc)
cases=("rect_2400x3000x2400|$here/bench/rect.tce -D M=2400 -D N=3000"
       "rect_1200x12000x1200|$here/bench/rect.tce -D M=1200 -D N=12000"
       "four_index_N64|$here/examples/four_index.tce -D N=64"
       "ladder_O16_V64|$here/bench/ladder.tce -D O=16 -D V=64")
for np in $ps; do
  machine="$work/calibrated-$np.machine"
  sleep "$pause"
  mpirun --oversubscribe -np "$np" "$build/bin/tcec-calibrate" --memory "$memory" --scratch "$work" \
    -o "$machine" 2> "$work/calibrate.log"
  echo "P = $np:"
  grep -v '^#' "$machine" | sed 's/^/  /'
  for entry in "${cases[@]}"; do
    name=${entry%%|*}
    read -r -a args <<< "${entry#*|}"
    [[ -d $work/$name.inputs ]] ||
      "$build/bin/tcec" "${args[@]}" --machine "$machine" --dry-run --json |
      /usr/bin/python3 "$here/bench/write_inputs.py" "$work/$name.inputs"
    for method in "${methods[@]}" default; do
      force=()
      [[ $method != default ]] && force=(--force-method "$method")
      dir="$work/$np.$name.$method"
      if ! "$build/bin/tcec" "${args[@]}" --machine "$machine" "${force[@]}" -o "$dir" --build \
          > /dev/null 2>&1; then
        echo "  $name $method: infeasible"
        continue
      fi
      program=$(find "$dir" -maxdepth 1 -type f -perm -u+x | head -1)
      for ((run = 0; run < runs; ++run)); do
        sleep "$pause"
        mpirun --oversubscribe -np "$np" "$program" --quiet --trace "$dir/trace.json" --scratch "$dir/scratch" \
          --input-dir "$work/$name.inputs"
        echo "$np $name $method $(python3 "$here/bench/fidelity.py" times "$dir/trace.json")" >> "$work/runs.tsv"
      done
      rm -rf "$dir"
    done
  done
done
echo
python3 "$here/bench/fidelity.py" summary "$work/runs.tsv"
