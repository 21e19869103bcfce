#!/usr/bin/env bash
# Installs the dependencies, builds tcec (Release) and runs the whole test suite with CTest; then
# builds it again with AddressSanitizer and UndefinedBehaviorSanitizer (build-asan/, TCEC_SANITIZE)
# and runs the unit tests of every stage, the MPI runtime tests and a few end-to-end programs
# (compiled with the same sanitizers) under them.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -eq 0 ]; then bash tools/install-deps.sh; fi
# The compiler cache keys on paths relative to the checkout, so that a clone in another folder
# (CI's) reuses what an earlier build compiled, generated programs included (codegen compiles
# them through the launcher tcec was built with).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR=1
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j2
ctest --test-dir build --output-on-failure -j2
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTCEC_SANITIZE=ON
cmake --build build-asan -j2
# Leaks are not checked (Open MPI's own allocations at exit); any other report fails the test.
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j2 \
  -R '^(frontend|ir|costmodel|runtime|tools)\.|^e2e\.(matmul_rect\.(inside-rotation|outside-accumulation)\.ABC|four_index\.npy|chain_np2|syrk\.tbs|matmul_rect\.sfc|accumulate\.one_rank\.cosma)$' \
  -E '^tools\.(Cli|clang_format)'
