#!/usr/bin/env bash
# tests/e2e/resume.sh — a generated program stopped at any point continues with --resume and
# writes exactly the outputs of an uninterrupted run; a checkpoint that does not belong to the
# program or its inputs is refused with a clear error.
#
#   resume.sh TCEC WORKDIR [PART]
#
# PART (default all) runs one part, so that CTest runs the parts side by side: `steps` (stops
# between and inside steps of the store and hand-off plans), `within` and `within_more` (the
# checkpoints inside a contraction: direct, overlapped and replayed Gao plans; rotation, sfc, cosma
# and tbs), `refusals` (the checkpoints that are refused).
#
# The program is the chain of three products through two intermediates (tests/e2e/chain.tce at
# N = 48 on tiny.machine: 4 ranks of 16 KB, out of core), once planned with --no-handoff (every
# step boundary is a checkpoint) and once under outside accumulation, whose plan keeps the
# intermediates on the ranks (the hand-off), so that checkpoints are fewer. A rank kills itself
# with SIGKILL (runtime/base/fault.h TCERT_FAULT) in the middle of a contraction, after a step before its
# checkpoint, right after a checkpoint, and while the outputs are written (rank 0, which renames
# them into place); every resumed run must
# give Z.npy byte for byte as the uninterrupted run, remove its checkpoint, and say in its trace
# how many steps it skipped.
#
# With --checkpoint-every 0 a checkpoint is also saved at every K-pass boundary inside a
# contraction, for the chain at N = 96 under
#  - a Gao plan with direct C, serial; one with tiled C files, overlapped;
#  - a Gao plan (outside accumulation, order ABC) whose first checkpoint comes while A's and B's
#    tiles are still to be multiplied with the next tiles of C: the resumed run reads them again;
#  - an outside rotation plan, whose resumed run shifts A's and B's files again as far as the
#    rounds before the checkpoint did;
#  - an sfc plan, replicated along K, whose checkpoints come before each of its tiles;
#  - a cosma plan of 32 rounds, whose checkpoints between rounds copy each rank's C block from
#    memory;
# and for a symmetric product (syrk.tce at N = 200) in tbs triangle blocks, with checkpoints
# before blocks. A rank kills itself right after such a checkpoint, and after writing tiles of C
# past one (which the resumed run must not add to twice); every resumed run gives the same bytes,
# and a snapshot of a partial C that changed is refused.
set -euo pipefail
tcec=$1 work=$(realpath -m "$2") part=${3:-all}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work/in"
mpi=(mpirun --oversubscribe -np 4 -x TCERT_FAULT)
fail() {
  echo "resume.sh: $*" >&2
  exit 1
}

mkdir -p "$work/in96" "$work/in_syrk"
/usr/bin/python3 - "$work/in" "$work/in96" "$work/in_syrk" << 'EOF'
import sys
import numpy as np
rng = np.random.default_rng(5)
for d, n in ((sys.argv[1], 48), (sys.argv[2], 96)):
    for name in "ABCD":
        np.save(f"{d}/{name}.npy", rng.uniform(-1, 1, (n, n)))
np.save(f"{sys.argv[3]}/A.npy", rng.uniform(-1, 1, (200, 45)))
EOF

# A slow kernel (100 MFLOP/s, about as slow as the disk) makes the overlapped plan the faster one.
printf 'machine slow_kernel { processors 4; memory 32 KB; network 200 MB/s; disk 8 MB/s; flops 100 MFLOP/s; }\n' \
  > "$work/slow_kernel.machine"
printf 'machine cosma_rounds { processors 4; memory 24 KB; network 200 MB/s; disk 8 MB/s; }\n' > "$work/cosma.machine"
# program VARIANT: the variant's generated program (the chain, or the symmetric product for tbs)
program() { if [[ $1 == within_tbs ]]; then echo "$work/$1/syrk"; else echo "$work/$1/chain"; fi; }
# output VARIANT: the file its program writes (Z.npy of the chain, C.npy of the symmetric product)
output() { if [[ $1 == within_tbs ]]; then echo C.npy; else echo Z.npy; fi; }
# part NAME: whether the run includes part NAME
part() { [[ $part == all || $part == "$1" ]]; }
variants=()
! part steps || variants+=(store handoff)
! part within || variants+=(within_direct within_overlap within_replay)
! part within_more || variants+=(within_rotation within_sfc within_cosma within_tbs)
if part refusals; then
  for v in store handoff within_overlap within_cosma; do
    [[ " ${variants[*]} " == *" $v "* ]] || variants+=("$v")
  done
fi
[[ ${#variants[@]} -gt 0 ]] || fail "no part '$part' (all, steps, within, within_more, refusals)"
# built VARIANT: whether this run built VARIANT's program
built() { [[ " ${variants[*]} " == *" $1 "* ]]; }
for variant in "${variants[@]}"; do
  source=$here/chain.tce
  case $variant in
    store) options=(-D N=48 --machine "$here/tiny.machine" --no-handoff) ;;
    handoff) options=(-D N=48 --machine "$here/tiny.machine" --force-method outside-accumulation) ;;
    within_direct) options=(-D N=96 --machine "$here/tiny.machine" --no-handoff --force-method inside-replication
                            --force-order BCA) ;;
    within_overlap) options=(-D N=96 --machine "$work/slow_kernel.machine" --no-handoff
                             --force-method outside-accumulation --force-order BCA) ;;
    within_replay) options=(-D N=96 --machine "$here/tiny.machine" --no-handoff --force-method outside-accumulation
                            --force-order ABC) ;;
    within_rotation) options=(-D N=96 --machine "$here/tiny.machine" --no-handoff --force-method outside-rotation) ;;
    within_sfc) options=(-D N=96 --machine "$here/tiny.machine" --no-handoff --force-method sfc) ;;
    within_cosma) options=(-D N=96 --machine "$work/cosma.machine" --no-handoff --force-method cosma) ;;
    within_tbs) source=$here/syrk.tce options=(-D N=200 --machine "$here/tiny.machine" --force-method tbs) ;;
  esac
  # from the checkout's root: the generated text is the same in every clone (run_generated.sh)
  (cd "$here/../.." && exec "$tcec" "tests/e2e/$(basename "$source")" "${options[@]}" -o "$work/$variant" --build) \
    > /dev/null
done
# expect_in VARIANT PATTERN WHAT: VARIANT's program (when built) has PATTERN, else it fails with WHAT
expect_in() {
  local source=$work/$1/chain.cpp
  [[ $1 == within_tbs ]] && source=$work/$1/syrk.cpp
  ! built "$1" || grep -q "$2" "$source" || fail "the $1 plan $3"
}
expect_in within_direct "spec.direct_C = true" "has no direct C"
expect_in within_overlap "overlap=yes" "is not overlapped"
expect_in within_sfc "sfc tiles=.* c=[2-9]" "does not replicate along K"
expect_in within_cosma "cosma grid=2x2x1 rounds=32" "is not 32 rounds on a 2x2x1 grid"
expect_in within_tbs "tbs = spec.method" "is not tbs"
expect_in within_rotation "x.shift_operand_files()" "shifts no files"
expect_in handoff "spec.take_A = true\|spec.take_B = true" \
  "(outside accumulation) no longer uses the hand-off; pick a case that does"
prog_store=$work/store/chain prog_handoff=$work/handoff/chain

run() {  # run PROGRAM OUTDIR [options...]: the program on the shared inputs (N = 96 for within_*)
  local program=$1 out=$2 in=$work/in
  shift 2
  [[ $program == */within_* ]] && in=$work/in96
  [[ $program == */within_tbs/* ]] && in=$work/in_syrk
  mkdir -p "$out"
  "${mpi[@]}" "$program" --quiet --scratch "$work/scratch" --input-dir "$in" --output-dir "$out" "$@"
}

export TCERT_FAULT=
for variant in "${variants[@]}"; do  # uninterrupted (plans differ, so may rounding)
  [[ $part != refusals ]] || break      # the refusals compare no outputs
  run "$(program "$variant")" "$work/ref/$variant"
  [[ -f $work/ref/$variant/$(output "$variant") ]] ||
    fail "the uninterrupted run of the $variant plan wrote no $(output "$variant")"
done

# stopped_then_resumed PROGRAM RANK:POINT EXPECTED_SKIPPED [OPTIONS...]: OPTIONS for the stopped run
stopped_then_resumed() {
  local program=$1 fault=$2 skipped=$3 ck=$work/ck out=$work/out z
  z=$(output "$(basename "$(dirname "$program")")")
  shift 3
  rm -rf "$ck" "$out"
  if TCERT_FAULT="$fault" run "$program" "$out" --checkpoint "$ck" "$@" > "$work/killed.log" 2>&1; then
    fail "the run with TCERT_FAULT=1:$fault was not stopped"
  fi
  [[ -f $ck/manifest.json ]] || fail "no checkpoint manifest after a stop at $fault"
  [[ ! -f $out/$z ]] || fail "an output was written by the run stopped at $fault"
  run "$program" "$out" --checkpoint "$ck" --resume --trace "$work/resumed.json" ||
    fail "the run stopped at $fault did not resume"
  cmp -s "$out/$z" "$work/ref/$(basename "$(dirname "$program")")/$z" || fail "$z after a stop at $fault differs from the uninterrupted run's"
  [[ ! -e $ck ]] || fail "the checkpoint directory is left after the resumed run completed ($fault)"
  local got
  got=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("resumed_steps", 0))' \
    "$work/resumed.json")
  [[ $skipped == any || $got == "$skipped" ]] || fail "stopped at $fault: the resumed run skipped $got steps, expected $skipped"
  "$tcec" compare "$work/resumed.json" > "$work/compare.log" ||
    fail "stopped at $fault: tcec compare finds the resumed run's volumes off: $(cat "$work/compare.log")"
  RESUMED_INSIDE=$(/usr/bin/python3 -c 'import json, sys
print(" ".join("%d/%d" % tuple(c["measured"]["resumed_at_nest_step"]) for c in json.load(open(sys.argv[1]))["contractions"]
               if "resumed_at_nest_step" in c["measured"]))' "$work/resumed.json")
  echo "resume.sh: $(basename "$(dirname "$program")") stopped at $fault, resumed after $got steps${RESUMED_INSIDE:+ and $RESUMED_INSIDE loop-nest steps}: $z identical"
}

if part steps; then
  stopped_then_resumed "$prog_store" 1:compute:2 1     # in the middle of contraction 2
  stopped_then_resumed "$prog_store" 1:step:2 1        # contraction 2 done, its checkpoint not written
  stopped_then_resumed "$prog_store" 1:checkpoint:1 1  # between steps
  stopped_then_resumed "$prog_store" 3:checkpoint:3 3  # all steps done, outputs not written
  stopped_then_resumed "$prog_store" 0:export 3        # the outputs written, not yet renamed into place
  stopped_then_resumed "$prog_handoff" 2:compute:2 any
  stopped_then_resumed "$prog_handoff" 0:export 3
fi

# Checkpoints inside a contraction (K-pass boundaries).
within_variants=()
! part within || within_variants+=(within_direct within_overlap within_replay)
! part within_more || within_variants+=(within_rotation within_sfc within_cosma within_tbs)
for variant in "${within_variants[@]}"; do
  rm -rf "$work/ck"
  run "$(program "$variant")" "$work/out" --checkpoint "$work/ck" --checkpoint-every 0 --trace "$work/every.json"
  z=$(output "$variant")
  cmp -s "$work/out/$z" "$work/ref/$variant/$z" || fail "$variant with --checkpoint-every 0 gives another $z"
  /usr/bin/python3 - "$work/every.json" << 'EOF' || fail "$variant: the checkpoints inside changed the counted volumes"
import json, sys
for c in json.load(open(sys.argv[1]))["contractions"]:
    for key in ("disk_read_bytes", "disk_write_bytes", "comm_sent_bytes", "comm_recv_bytes", "disk_requests"):
        assert c["predicted"][key] == c["measured"][key], (c["statement"], key)
EOF
done
if part within; then
  prog=$work/within_direct/chain
  stopped_then_resumed "$prog" 1:within:2 any --checkpoint-every 0  # right after the 2nd checkpoint inside
  [[ -n $RESUMED_INSIDE ]] || fail "within:2 did not resume inside a contraction"
  stopped_then_resumed "$prog" 1:write_C:9 any --checkpoint-every 0  # tiles of C written past the checkpoint
  [[ -n $RESUMED_INSIDE ]] || fail "write_C:9 did not resume inside a contraction"
  prog=$work/within_overlap/chain
  stopped_then_resumed "$prog" 2:within:3 any --checkpoint-every 0
  [[ -n $RESUMED_INSIDE ]] || fail "within:3 (overlapped) did not resume inside a contraction"
  stopped_then_resumed "$prog" 1:write_C:35 any --checkpoint-every 0
  [[ -n $RESUMED_INSIDE ]] || fail "write_C:35 (overlapped) did not resume inside a contraction"
  stopped_then_resumed "$prog" 1:write_C:25 any --checkpoint-every 3600  # none due: between steps only
  [[ -z $RESUMED_INSIDE ]] || fail "--checkpoint-every 3600 saved a checkpoint inside a contraction"
  prog=$work/within_replay/chain  # A's and B's tiles of nest step 4 multiplied again after the checkpoint
  stopped_then_resumed "$prog" 1:within:1 any --checkpoint-every 0
  [[ $RESUMED_INSIDE == 5/115 ]] || fail "within:1 (tiles read again) resumed at '$RESUMED_INSIDE', not after 5 of 115"
fi
if part within_more; then
  prog=$work/within_rotation/chain  # resumed in the second round: A's and B's files shifted again
  stopped_then_resumed "$prog" 1:within:9 any --checkpoint-every 0
  [[ $RESUMED_INSIDE == 58/78 ]] || fail "within:9 (outside rotation) resumed at '$RESUMED_INSIDE', not after 58 of 78"
  prog=$work/within_sfc/chain
  stopped_then_resumed "$prog" 2:within:5 any --checkpoint-every 0  # before the 6th tile of step 1
  [[ -n $RESUMED_INSIDE ]] || fail "within:5 (sfc) did not resume inside a contraction"
  stopped_then_resumed "$prog" 3:write_C:24 any --checkpoint-every 0  # step 2's 8th tile: rows past a checkpoint
  [[ -n $RESUMED_INSIDE ]] || fail "write_C:24 (sfc) did not resume inside a contraction"
  prog=$work/within_cosma/chain
  stopped_then_resumed "$prog" 2:within:40 any --checkpoint-every 0  # step 2, after its 9th round
  [[ $RESUMED_INSIDE == 9/32 ]] || fail "within:40 (cosma) resumed at '$RESUMED_INSIDE', not after round 9 of 32"
  stopped_then_resumed "$prog" 1:compute:1 any --checkpoint-every 0  # step 1's rounds done, not yet written
  [[ $RESUMED_INSIDE == 31/32 ]] || fail "compute:1 (cosma) resumed at '$RESUMED_INSIDE', not after round 31 of 32"
  prog=$work/within_tbs/syrk
  stopped_then_resumed "$prog" 3:within:2 any --checkpoint-every 0  # before each rank's 3rd block
  [[ $RESUMED_INSIDE == 2/4 ]] || fail "within:2 (tbs) resumed at '$RESUMED_INSIDE', not before block 2 of 4"
fi
part refusals || exit 0

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
exec {held}> "$ck/lock"  # a run still going: this shell holds the checkpoint's lock
flock -n "$held"
expect_error "$ck/lock is held by another process (another run on this checkpoint directory, still running or its ranks not yet ended)" \
  run "$prog_store" "$work/out" --checkpoint "$ck" --resume
exec {held}>&-
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
rm -rf "$ck"
TCERT_FAULT=1:within:2 run "$work/within_overlap/chain" "$work/out" --checkpoint "$ck" --checkpoint-every 0 \
  > /dev/null 2>&1 || true
for snapshot in "$ck"/rank-2/within.*.C.bin; do  # the one the manifest names among them
  printf 'x' | dd of="$snapshot" bs=1 seek=100 conv=notrunc status=none
done
expect_error "cannot resume from $ck: the partial result of step 1 on rank 2 has changed since the checkpoint" \
  run "$work/within_overlap/chain" "$work/out" --checkpoint "$ck" --resume
rm -rf "$ck"
TCERT_FAULT=0:within:3 run "$work/within_cosma/chain" "$work/out" --checkpoint "$ck" --checkpoint-every 0 \
  > /dev/null 2>&1 || true
truncate -s -8 "$ck"/rank-3/within.*.C.bin  # a C block snapshot one element short
expect_error "cannot resume from $ck: the partial result of step 1 on rank 3 has changed since the checkpoint" \
  run "$work/within_cosma/chain" "$work/out" --checkpoint "$ck" --resume
rm -rf "$ck"
expect_error "--resume: no checkpoint in $work/empty" run "$prog_store" "$work/out" --checkpoint "$work/empty" --resume
expect_error "--resume requires --checkpoint" run "$prog_store" "$work/out" --resume
echo "resume.sh: refused a foreign checkpoint, a held lock, a changed input, a changed store file, a missing checkpoint"
