#!/usr/bin/env bash
# tests/e2e/resume.sh — a generated program stopped at any point continues with --resume and
# writes exactly the outputs of an uninterrupted run; a checkpoint that does not belong to the
# program or its inputs is refused with a clear error.
#
#   resume.sh TCEC WORKDIR
#
# The program is the chain of three products through two intermediates (tests/e2e/chain.tce at
# N = 48 on tiny.machine: 4 ranks of 16 KB, out of core), once planned with --no-handoff (every
# step boundary is a checkpoint) and once under outside accumulation, whose plan keeps the
# intermediates on the ranks (the hand-off), so that checkpoints are fewer. A rank kills itself
# with SIGKILL (runtime/fault.h TCERT_FAULT) in the middle of a contraction, after a step before its
# checkpoint, right after a checkpoint, and while the outputs are written (rank 0, which renames
# them into place); every resumed run must
# give Z.npy byte for byte as the uninterrupted run, remove its checkpoint, and say in its trace
# how many steps it skipped.
set -euo pipefail
tcec=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work/in"
mpi=(mpirun --oversubscribe -np 4 -x TCERT_FAULT)
fail() {
  echo "resume.sh: $*" >&2
  exit 1
}

/usr/bin/python3 - "$work/in" << 'EOF'
import sys
import numpy as np
rng = np.random.default_rng(5)
for name in "ABCD":
    np.save(f"{sys.argv[1]}/{name}.npy", rng.uniform(-1, 1, (48, 48)))
EOF

for variant in store handoff; do
  options=(-D N=48 --machine "$here/tiny.machine")
  [[ $variant == store ]] && options+=(--no-handoff) || options+=(--force-method outside-accumulation)
  "$tcec" "$here/chain.tce" "${options[@]}" -o "$work/$variant" --build > /dev/null
done
prog_store=$work/store/chain prog_handoff=$work/handoff/chain
grep -q "spec.take_A = true\|spec.take_B = true" "$work/handoff/chain.cpp" ||
  fail "the outside accumulation plan of the chain no longer uses the hand-off; pick a case that does"

run() {  # run PROGRAM OUTDIR [options...]: the program on the shared inputs
  local program=$1 out=$2
  shift 2
  mkdir -p "$out"
  "${mpi[@]}" "$program" --quiet --scratch "$work/scratch" --input-dir "$work/in" --output-dir "$out" "$@"
}

export TCERT_FAULT=
for variant in store handoff; do  # the uninterrupted runs (plans differ, and so may their rounding)
  run "$work/$variant/chain" "$work/ref/$variant"
  [[ -f $work/ref/$variant/Z.npy ]] || fail "the uninterrupted run of the $variant plan wrote no Z.npy"
done

# stopped_then_resumed PROGRAM RANK:POINT EXPECTED_SKIPPED
stopped_then_resumed() {
  local program=$1 fault=$2 skipped=$3 ck=$work/ck out=$work/out
  rm -rf "$ck" "$out"
  if TCERT_FAULT="$fault" run "$program" "$out" --checkpoint "$ck" > "$work/killed.log" 2>&1; then
    fail "the run with TCERT_FAULT=1:$fault was not stopped"
  fi
  [[ -f $ck/manifest.json ]] || fail "no checkpoint manifest after a stop at $fault"
  [[ ! -f $out/Z.npy ]] || fail "an output was written by the run stopped at $fault"
  run "$program" "$out" --checkpoint "$ck" --resume --trace "$work/resumed.json" ||
    fail "the run stopped at $fault did not resume"
  cmp -s "$out/Z.npy" "$work/ref/$(basename "$(dirname "$program")")/Z.npy" || fail "Z.npy after a stop at $fault differs from the uninterrupted run's"
  [[ ! -e $ck ]] || fail "the checkpoint directory is left after the resumed run completed ($fault)"
  local got
  got=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("resumed_steps", 0))' \
    "$work/resumed.json")
  [[ $skipped == any || $got == "$skipped" ]] || fail "stopped at $fault: the resumed run skipped $got steps, expected $skipped"
  echo "resume.sh: $(basename "$(dirname "$program")") stopped at $fault, resumed after $got steps: Z.npy identical"
}

stopped_then_resumed "$prog_store" 1:compute:2 1     # in the middle of contraction 2
stopped_then_resumed "$prog_store" 1:step:2 1        # contraction 2 done, its checkpoint not written
stopped_then_resumed "$prog_store" 1:checkpoint:1 1  # between steps
stopped_then_resumed "$prog_store" 3:checkpoint:3 3  # all steps done, outputs not written
stopped_then_resumed "$prog_store" 0:export 3        # the outputs written, not yet renamed into place
stopped_then_resumed "$prog_handoff" 2:compute:2 any
stopped_then_resumed "$prog_handoff" 0:export 3

# expect_error MESSAGE COMMAND...: fails with MESSAGE on stderr, writes no output.
expect_error() {
  local message=$1
  shift
  rm -rf "$work/out"
  if "$@" > "$work/error.log" 2>&1; then fail "no error (expected '$message'): $*"; fi
  grep -qF -- "$message" "$work/error.log" || fail "expected '$message', got: $(cat "$work/error.log")"
  [[ ! -f $work/out/Z.npy ]] || fail "an output was written by a run that failed with '$message'"
}

ck=$work/ck
rm -rf "$ck"
TCERT_FAULT=1:checkpoint:1 run "$prog_store" "$work/out" --checkpoint "$ck" > /dev/null 2>&1 || true
expect_error "$ck holds a checkpoint of chain (step 1 of 3 done); continue it with --resume, or remove $ck to start again" \
  run "$prog_store" "$work/out" --checkpoint "$ck"
expect_error "cannot resume from $ck: it was made for another plan (the program was generated again since)" \
  run "$prog_handoff" "$work/out" --checkpoint "$ck" --resume
expect_error "cannot resume from $ck: it was made for input A from another source (now random:3)" \
  "${mpi[@]}" "$prog_store" --quiet --scratch "$work/scratch" --init random:3 --output-dir "$work/out" \
  --checkpoint "$ck" --resume
cp -p "$work/in/A.npy" "$work/A.saved"
touch -d '2001-01-01' "$work/in/A.npy"
expect_error "cannot resume from $ck: it was made for another input A ($work/in/A.npy is not the file the run started with" \
  run "$prog_store" "$work/out" --checkpoint "$ck" --resume
cp -p "$work/A.saved" "$work/in/A.npy"
version=$(ls "$ck/store" | head -1)
printf 'x' | dd of="$ck/store/$version" bs=1 seek=200 conv=notrunc status=none
expect_error "cannot resume from $ck: the store's file $version has changed since the checkpoint" \
  run "$prog_store" "$work/out" --checkpoint "$ck" --resume
expect_error "--resume: no checkpoint in $work/empty" run "$prog_store" "$work/out" --checkpoint "$work/empty" --resume
expect_error "--resume requires --checkpoint" run "$prog_store" "$work/out" --resume
echo "resume.sh: refused a foreign checkpoint, a changed input, a changed store file, a missing checkpoint"
