#!/usr/bin/env bash
# Installs the dependencies, builds tcec (Release) and runs the whole test suite with CTest; then
# builds what the tests that exercise memory and threads need again with AddressSanitizer and
# UndefinedBehaviorSanitizer (build-asan/, TCEC_SANITIZE) and runs those tests (CTest label
# matching `sanitize`: the frontend's and ir's unit tests, the runtime's unit and MPI tests, a few
# end-to-end programs compiled with the same sanitizers) under them. The unit and MPI tests
# (label `sanitize-only`: the same assertions hold under the sanitizers) run in that pass only.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -eq 0 ]; then bash tools/install-deps.sh; fi
# The compiler cache keys on paths relative to the checkout, so that a clone in another folder
# (CI's) reuses what an earlier build compiled, generated programs included (codegen compiles
# them through the launcher tcec was built with).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR=1
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j2
ctest --test-dir build --output-on-failure -j2 -LE sanitize-only
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTCEC_SANITIZE=ON
cmake --build build-asan -j2 --target tcec_sanitized_tests
# Leaks are not checked (Open MPI's own allocations at exit); any other report fails the test.
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j2 -L sanitize
