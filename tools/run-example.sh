#!/usr/bin/env bash
# Installs the dependencies, builds tcec (Release) and runs the main job on an example.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -eq 0 ]; then bash tools/install-deps.sh; fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j2 --target tcec
build/bin/tcec --dry-run examples/matmul.tce
