#!/usr/bin/env bash
# tests/e2e/odd_path.sh — a program from a path with quotes, a backslash, `*/` and a newline.
#
#   odd_path.sh TCEC WORKDIR
#
# The path reaches the generated C++ in string literals (escaped) and comments (sanitised):
# the program must compile, run under mpirun with --verify, and measure what it predicts
# (run_generated.sh), and its source must hold the path only as an escaped literal.
set -euo pipefail
tcec=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
dir="$work/src/we\"ird\\ *"
mkdir -p "$dir"
file="$dir/"$'na\nme.tce'
cp "$here/matmul_rect.tce" "$file"
bash "$here/run_generated.sh" "$tcec" "$work/run" "$file" 4 --machine "$here/tiny.machine"
source=$work/run/$'na\nme.cpp'
grep -qF '"na\nme",' "$source"                    # the name as an escaped literal
grep -qF 'we\"ird\\ */na\nme.tce",' "$source"   # the path, escaped
echo "odd_path.sh: the program from an odd path compiles, runs and verifies"
