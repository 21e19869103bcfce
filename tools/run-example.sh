#!/usr/bin/env bash
# Installs the dependencies, builds tcec (Release) and runs the main job on an example: the
# 4-index transform of Gao et al. (Eq. 6.2) with N = 64 on examples/small.machine (4 processes,
# 8 MB of tile memory each; A alone is 134 MB), compiled, run out of core under mpirun with
# --verify, and its measured bytes compared with the plan's prediction.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -eq 0 ]; then
  bash tools/install-deps.sh
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j2 --target tcec tcert
out=build/example
rm -rf "$out"
build/bin/tcec --dry-run -D N=64 --machine examples/small.machine examples/four_index.tce
build/bin/tcec examples/four_index.tce -D N=64 --machine examples/small.machine -o "$out" --build
mpirun --oversubscribe -np 4 "$out/four_index" --verify --trace "$out/trace.json" --scratch "$out/scratch"
build/bin/tcec compare "$out/trace.json"
