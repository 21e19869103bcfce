#!/usr/bin/env bash
# e2e.package: `cmake --install` into a fresh prefix, then a user project outside the tree
# (tests/package) finds tcec, compiles its .tce at build time, and the program runs and verifies.
#   package.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$here" -B "$work/user" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release > "$work/configure.log"
cmake --build "$work/user" > "$work/build.log"
mpirun --oversubscribe -np 2 "$work/user/square" --verify --quiet --trace "$work/trace.json" --scratch "$work/scratch"
"$work/prefix/bin/tcec" compare "$work/trace.json" | tail -1
