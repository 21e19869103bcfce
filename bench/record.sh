#!/usr/bin/env bash
# bench/record.sh — runs a benchmark program and appends what it prints to
# bench/results/DATE-TOPIC.md with the date, the command line and the git commit
# (bench/results_file.sh), e.g.
#
#   bash bench/record.sh kernel build/bin/kernel_bench --reps 3
#   OPENBLAS_NUM_THREADS=1 bash bench/record.sh cosma mpirun -np 4 build/bin/cosma_bench
set -euo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: bash bench/record.sh TOPIC COMMAND [ARGS...]" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")/.." && pwd)
topic=$1
shift
source "$here/bench/results_file.sh"
results_begin "$topic" "$0" "$topic" "$@"
"$@"
