#!/usr/bin/env bash
# Installs the dependencies, builds tcec (Release) and runs the whole test suite with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -eq 0 ]; then bash tools/install-deps.sh; fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j2
ctest --test-dir build --output-on-failure -j2
