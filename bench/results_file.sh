# bench/results_file.sh — sourced by the benchmark scripts: appends what a script prints on stdout
# to bench/results/DATE-TOPIC.md (DATE as YYYY-MM-DD), under a heading with the time, the command
# line and the git commit, while still printing it.
#
#   source "$here/bench/results_file.sh"; results_begin TOPIC "$0" "$@"
#
# TCEC_BENCH_RESULTS=0 in the environment records nothing; TCEC_BENCH_RESULTS_DIR=DIR writes to
# DIR instead of bench/results/. The output is appended as an indented (code) block, so tables
# print as the script wrote them.

# results_begin TOPIC SCRIPT [ARGS...]: from here on, stdout is also appended to the results file.
results_begin() {
  local topic=$1 script=$2
  shift 2
  [[ ${TCEC_BENCH_RESULTS:-1} == 0 ]] && return 0
  local root dir commit
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  dir=${TCEC_BENCH_RESULTS_DIR:-$root/bench/results}
  mkdir -p "$dir"
  RESULTS_FILE="$dir/$(date +%F)-$topic.md"
  commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
  if [[ $commit != unknown ]] && ! git -C "$root" diff --quiet HEAD -- 2>/dev/null; then
    commit="$commit (with uncommitted changes)"
  fi
  if [[ ! -s $RESULTS_FILE ]]; then
    printf '# %s, %s\n\nAppended by the benchmark scripts (bench/README.md).\n' "$topic" "$(date +%F)" >"$RESULTS_FILE"
  fi
  local command="bench/$(basename "$script")"
  local arg
  for arg in "$@"; do command+=" $(printf '%q' "$arg")"; done
  # The load at the start: other work on the host slows a benchmark (2 cores busy with builds
  # show as a load of 4 or more).
  printf '\n## %s\n\n- command: `bash %s`\n- commit: %s\n- host: %s cores, load average %s (1, 5, 15 min) at the start\n\n' \
    "$(date '+%F %T %Z')" "$command" "$commit" "$(nproc 2>/dev/null || echo '?')" \
    "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')" >>"$RESULTS_FILE"
  echo "results: appending to ${RESULTS_FILE#"$root"/}" >&2
  exec > >(tee >(sed -u 's/^/    /' >>"$RESULTS_FILE"))
}
