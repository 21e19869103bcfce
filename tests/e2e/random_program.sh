#!/usr/bin/env bash
# tests/e2e/random_program.sh — one program of the random sample end to end.
#
#   random_program.sh TCEC GENERATOR WORKDIR SEED [tcec options...]
#
# Writes the random program of SEED (tcec_random_program SEED 8 5: extents up to 8, P up to 5;
# tests/random/random_program.h), or of SEED + 1000, SEED + 2000, … when tcec (with the options,
# e.g. --force-method outside-accumulation) finds no feasible plan for it (the memory is drawn
# down to a few elements), then runs it with run_generated.sh: built, run under mpirun -np P
# with --verify (none with NO_VERIFY=1) and --trace, every output checked against numpy
# evaluating the whole program, and measured = predicted bytes and disk requests on every rank
# (tcec compare).
set -euo pipefail
tcec=$1 generator=$2 work=$3 seed=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
for ((try = 0; try < 20; try++)); do
  s=$((seed + 1000 * try))
  file="$work/random$s.tce"
  "$generator" "$s" 8 5 > "$file"
  if "$tcec" "$file" -o "$work/probe" "$@" > "$work/probe.log" 2>&1; then
    np=$(sed -n 's/.*processors \([0-9]*\);.*/\1/p' "$file")
    echo "random_program.sh: seed $s, $np ranks:"
    cat "$file"
    NPY_PROGRAM=1 exec bash "$here/run_generated.sh" "$tcec" "$work/run" "$file" "$np" "$@"
  fi
  if ! grep -q "no feasible plan" "$work/probe.log"; then
    cat "$work/probe.log" >&2
    exit 1
  fi
done
echo "random_program.sh: no seed from $seed on could be planned" >&2
exit 1
