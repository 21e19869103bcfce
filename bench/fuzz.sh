#!/usr/bin/env bash
# bench/fuzz.sh — runs the libFuzzer target of each front end (tests/fuzz/: tce, tccg, nwchem,
# machine, tamm) one after the other, one job each, and prints its executions and executions per second
# (issue 21).
#   bash bench/fuzz.sh [BUILD] [SECONDS | -runs=N] [TARGET...]
# BUILD (default build-fuzz) is configured with clang-14 and -DTCEC_FUZZ=ON if it has no
# CMakeCache.txt (TCEC_FUZZ_SANITIZERS=undefined in the environment: a faster tree without ASan),
# and built. Each target runs SECONDS (default 60) or N executions with -max_len=4096 and
# -timeout=10, on the corpus CORPUS/TARGET (FUZZ_CORPUS, default BUILD/fuzz/corpus): kept between
# runs, and given the seeds every run (examples/, the tests' inputs and data/, copied
# there; large seed files are cut into one piece per section). `-runs=0` replays the corpus only,
# e.g. under ASan what a faster TCEC_FUZZ_SANITIZERS=undefined tree found (FUZZ_CORPUS=its corpus). A crash, hang, leak,
# sanitizer report or broken fuzz_check.h rule saves the input as BUILD/fuzz/TARGET-crash-…
# (or -timeout-, -leak-, …) and makes the script exit 1 after the other targets; such an input
# belongs in tests/frontend/fuzz_regressions/ once fixed. FUZZ_FLAGS adds libFuzzer flags.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/results_file.sh"; results_begin fuzzing "$0" "$@"
build=${1:-$here/build-fuzz}
limit=${2:-60}
shift $(( $# > 2 ? 2 : $# )) || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(tce tccg nwchem machine tamm)
case $limit in
  -runs=*) limit_flag=$limit ;;
  *[!0-9]* | '') echo "fuzz.sh: expected SECONDS or -runs=N, got '$limit'" >&2; exit 2 ;;
  *) limit_flag=-max_total_time=$limit ;;
esac
data=$here/data

if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=${CC:-clang-14} CXX=${CXX:-clang++-14} cmake -S "$here" -B "$build" -DTCEC_FUZZ=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTCEC_FUZZ_SANITIZERS="${TCEC_FUZZ_SANITIZERS:-address,undefined}" > /dev/null
fi
cmake --build "$build" -j2 --target "${targets[@]/%/_fuzz}" > /dev/null

# seed_split FILE DIR PATTERN: FILE as is, and one piece per line matching PATTERN (a section
# header) up to the next, so that seeds fit -max_len.
seed_split() {
  local file=$1 dir=$2 pattern=$3 name
  [ -f "$file" ] || return 0
  name=$(basename "$file")
  cp "$file" "$dir/seed-$name"
  awk -v out="$dir/seed-$name" -v pattern="$pattern" '
    $0 ~ pattern { n++ } n > 0 { print > (out "." n) }' "$file"
}

# seeds TARGET DIR: copies the target's seed inputs into DIR.
seeds() {
  local dir=$2 f
  case $1 in
    tce)
      for f in "$here"/examples/*.tce "$here"/tests/e2e/*.tce "$here"/tests/package/*.tce \
               "$here"/tests/frontend/verify/*.tce "$here"/tests/frontend/fuzz_regressions/*; do
        cp "$f" "$dir/seed-$(basename "$f")"
      done ;;
    tccg)
      for f in "$data"/tccg_*.txt; do seed_split "$f" "$dir" '^\[' ; done
      for f in "$here"/tests/frontend/fuzz_regressions/*; do cp "$f" "$dir/seed-$(basename "$f")"; done ;;
    nwchem)
      for f in "$data"/nwchem_*; do seed_split "$f" "$dir" '^### file:' ; done
      for f in "$here"/tests/frontend/fuzz_regressions/*; do cp "$f" "$dir/seed-$(basename "$f")"; done ;;
    machine)
      for f in "$here"/examples/*.machine "$here"/tests/e2e/*.machine "$here"/tests/package/*.machine \
               "$here"/tests/frontend/verify/machine*.tce "$here"/tests/frontend/fuzz_regressions/*; do
        cp "$f" "$dir/seed-$(basename "$f")"
      done ;;
    tamm) ;;  # bytes decoded into operation lists (tests/fuzz/tamm_fuzz.cpp): no text seeds
  esac
}

out=$build/fuzz
mkdir -p "$out"
status=0
printf '%-8s %12s %8s %8s %s\n' target executions exec/s seconds result
for t in "${targets[@]}"; do
  corpus=${FUZZ_CORPUS:-$out/corpus}/$t
  mkdir -p "$corpus"
  seeds "$t" "$corpus"
  log=$out/$t.log
  start=$(date +%s)
  rc=0
  # shellcheck disable=SC2086  # FUZZ_FLAGS: several flags
  "$build/bin/${t}_fuzz" "$limit_flag" -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$out/$t-" ${FUZZ_FLAGS:-} "$corpus" > "$log" 2>&1 || rc=$?
  seconds=$(( $(date +%s) - start ))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  result=ok
  if [ "$rc" -ne 0 ]; then
    result="FAILED (exit $rc): $(grep -m1 -E 'ERROR|fuzz check failed|runtime error|SUMMARY' "$log" || true); see $log"
    status=1
  fi
  printf '%-8s %12s %8s %8s %s\n' "$t" "${runs:-?}" "${rate:-?}" "$seconds" "$result"
done
exit $status
