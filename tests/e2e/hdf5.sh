#!/usr/bin/env bash
# tests/e2e/hdf5.sh TCEC WORKDIR — generated programs read their inputs from and write their
# outputs to HDF5 files (--input FILE.h5, --output FILE.h5), checked with h5py and numpy:
#   1. the matrix product out of core (examples/matmul.tce, N = 64, 4 ranks of 16 KB);
#   2. two outputs into one file, one of them a scalar, from permuted 3-index inputs;
# each against numpy.einsum to 1e-10, with --verify and measured = predicted bytes (the
# import and export are counted apart from the contractions); then bad inputs and outputs:
# a clear "error: input NAME: …" or "error: output …", a non-zero exit, no output file left.
set -uo pipefail
tcec=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rm -rf "$work"
mkdir -p "$work"
failures=0
mpi=(mpirun --oversubscribe -np 4)

# round_trip NAME FILE.tce [tcec options...]: generate, build, write inputs, run, check.
round_trip() {
  local name=$1 file=$2
  shift 2
  local dir=$work/$name
  mkdir -p "$dir"
  # from the checkout's root: the generated text is the same in every clone (run_generated.sh)
  (cd "$here/../.." && "$tcec" "$(realpath -m --relative-to=. "$file")" --machine "$here/tiny.machine" -o "$dir" \
    --build "$@") > /dev/null || return 1
  "$tcec" "$file" --machine "$here/tiny.machine" --dry-run --json "$@" > "$dir/program.json" || return 1
  /usr/bin/python3 "$here/h5_check.py" program-inputs "$dir/program.json" "$dir/in.h5" || return 1
  "${mpi[@]}" "$dir/$(basename "${file%.*}")" --quiet --verify --trace "$dir/trace.json" --scratch "$dir/scratch" \
    --input "$dir/in.h5" --output "$dir/out/result.h5" || return 1
  /usr/bin/python3 "$here/h5_check.py" program-check "$dir/program.json" "$dir/in.h5" "$dir/out/result.h5" || return 1
  "$tcec" compare ${TCEC_RESIDENT_SLACK_MB:+--resident-slack "$TCEC_RESIDENT_SLACK_MB"} "$dir/trace.json" > "$dir/compare.txt" || return 1   # measured = predicted bytes
  tail -1 "$dir/compare.txt"
  # The import reads every input element from HDF5 and writes it into the store once, the
  # export reads every output element from the store and writes it into HDF5 once (bytes over
  # the ranks, every rank taking part), outside the contractions' counts.
  /usr/bin/python3 - "$dir/trace.json" "$dir/program.json" << 'PY' || return 1
import json, math, sys
files = json.load(open(sys.argv[1]))["files"]
tensors = json.load(open(sys.argv[2]))["tensors"].values()
def total(role):
    return sum(8 * math.prod(t["shape"]) for t in tensors if t["role"] == role)
for phase, role in (("import", "input"), ("export", "output")):
    f = files[phase]
    assert sum(f["disk_read_bytes"]) == total(role) == sum(f["disk_write_bytes"]), (phase, f, total(role))
assert all(b > 0 for b in files["import"]["disk_read_bytes"]), files["import"]
print(f"import {total('input')} B, export {total('output')} B: each element once")
PY
}
if round_trip matmul "$root/examples/matmul.tce" -D N=64; then echo "ok   matmul"; else echo "FAIL matmul"; failures=$((failures + 1)); fi
if round_trip two_outputs "$here/two_outputs.tce"; then echo "ok   two_outputs"; else echo "FAIL two_outputs"; failures=$((failures + 1)); fi

# expect_failure NAME EXPECTED-MESSAGE-PART OUTPUT COMMAND...: the run fails (not a hang) with
# the message, and neither OUTPUT nor a temporary file beside it is left.
expect_failure() {
  local name=$1 expected=$2 output_file=$3
  shift 3
  local output status
  output=$(timeout 120 "$@" 2>&1)
  status=$?
  if [[ $status -eq 0 || $status -eq 124 ]]; then
    echo "FAIL $name: exit status $status (expected a failure, not success or a hang)"
    failures=$((failures + 1))
  elif [[ "$output" != *"$expected"* ]]; then
    echo "FAIL $name: the output lacks '$expected':"
    echo "$output" | head -5
    failures=$((failures + 1))
  elif [[ -e "$output_file" ]] || compgen -G "$output_file.tmp-*" > /dev/null; then
    echo "FAIL $name: a failed run left $(ls -d "$output_file"*)"
    failures=$((failures + 1))
  else
    echo "ok   $name: $(echo "$output" | grep -m1 -F "$expected")"
  fi
}
program=$work/matmul/matmul
json=$work/matmul/program.json
bad=$work/bad
mkdir -p "$bad"
/usr/bin/python3 "$here/h5_check.py" program-inputs "$json" "$bad/no_B.h5" B
/usr/bin/python3 -c "
import h5py, numpy as np
with h5py.File('$bad/shape.h5', 'w') as f:
    f['A'] = np.zeros((64, 63)); f['B'] = np.zeros((64, 64))
with h5py.File('$bad/dtype.h5', 'w') as f:
    f['A'] = np.zeros((64, 64), dtype=np.int64); f['B'] = np.zeros((64, 64))
"
expect_failure "missing dataset" "matmul: error: input B: $bad/no_B.h5 has no dataset B" "$bad/out1.h5" \
  "${mpi[@]}" "$program" --quiet --input "$bad/no_B.h5" --output "$bad/out1.h5"
expect_failure "wrong shape" "matmul: error: input A: dataset A in $bad/shape.h5 has shape (64, 63) but the program expects (64, 64)" \
  "$bad/out2.h5" "${mpi[@]}" "$program" --quiet --input "$bad/shape.h5" --output "$bad/out2.h5"
expect_failure "wrong dtype" "matmul: error: input A: dataset A in $bad/dtype.h5 holds 8-byte integers but tcert needs 8-byte floats (float64)" \
  "$bad/out3.h5" "${mpi[@]}" "$program" --quiet --input "$bad/dtype.h5" --output "$bad/out3.h5"
expect_failure "missing file" "matmul: error: input A: cannot open $bad/none.h5: No such file or directory" \
  "$bad/out4.h5" "${mpi[@]}" "$program" --quiet --input "$bad/none.h5" --output "$bad/out4.h5"
# An output that cannot be renamed into place (a directory of that name): the error comes after
# the whole run, and the temporary file is removed.
mkdir -p "$bad/taken.h5"
output=$(timeout 120 "${mpi[@]}" "$program" --quiet --input "$work/matmul/in.h5" --output "$bad/taken.h5" 2>&1)
status=$?
if [[ $status -eq 0 || $status -eq 124 || "$output" != *"matmul: error: cannot write $bad/taken.h5: "* ]] ||
   compgen -G "$bad/taken.h5.tmp-*" > /dev/null || [[ -n "$(ls -A "$bad/taken.h5")" ]]; then
  echo "FAIL output not renamed: status $status, $(echo "$output" | head -2), left: $(ls -d "$bad"/taken.h5*)"
  failures=$((failures + 1))
else
  echo "ok   output not renamed: $(echo "$output" | grep -m1 "error")"
fi
exit $((failures > 0))
