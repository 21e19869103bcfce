#!/usr/bin/env bash
# tests/e2e/program_errors.sh TCEC WORKDIR — a generated program meets bad situations: each run
# must stop with a clear message and a non-zero exit (never hang: every run has a time limit),
# and leave no output file behind.
set -uo pipefail
tcec=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
(cd "$here/../.." && "$tcec" tests/e2e/matmul_rect.tce --machine "$here/tiny.machine" -o "$work" --build) >/dev/null || exit 1
program=$work/matmul_rect
failures=0

# expect_failure NAME EXPECTED-MESSAGE-PART COMMAND...
expect_failure() {
  local name=$1 expected=$2
  shift 2
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
  else
    echo "ok   $name: $(echo "$output" | grep -m1 -F "$expected")"
  fi
}

mpi=(mpirun --oversubscribe)
expect_failure "wrong process count" \
  "this program was planned for P = 4 processes but runs on 3; start it with mpirun -np 4" \
  "${mpi[@]}" -np 3 "$program" --quiet
mkdir -p "$work/empty"
expect_failure "missing input" "cannot open input $work/empty/A.npy" \
  "${mpi[@]}" -np 4 "$program" --quiet --input-dir "$work/empty" --output-dir "$work/out1"
/usr/bin/python3 -c "
import numpy as np
np.save('$work/A.npy', np.zeros((90, 51)))
np.save('$work/B.npy', np.zeros((50, 70)))
np.save('$work/A_int.npy', np.zeros((90, 50), dtype=np.int64))"
mkdir -p "$work/shape" "$work/dtype"
mv "$work/A.npy" "$work/shape/A.npy" && cp "$work/B.npy" "$work/shape/B.npy"
mv "$work/A_int.npy" "$work/dtype/A.npy" && cp "$work/B.npy" "$work/dtype/B.npy"
expect_failure "wrong input shape" "input A has shape (90, 51) but the program expects (90, 50)" \
  "${mpi[@]}" -np 4 "$program" --quiet --input-dir "$work/shape" --output-dir "$work/out2"
expect_failure "wrong input dtype" "has dtype '<i8' but tcert needs '<f8' (float64)" \
  "${mpi[@]}" -np 4 "$program" --quiet --input-dir "$work/dtype" --output-dir "$work/out3"
touch "$work/not-a-directory"
expect_failure "scratch not writable" "cannot create scratch directory" \
  "${mpi[@]}" -np 4 "$program" --quiet --scratch "$work/not-a-directory/scratch" --output-dir "$work/out4"
expect_failure "bad option" "invalid command line" \
  "${mpi[@]}" -np 4 "$program" --init random:x
for out in out1 out2 out3 out4; do
  if compgen -G "$work/$out/*" >/dev/null; then
    echo "FAIL $out: a failed run left files: $(ls "$work/$out")"
    failures=$((failures + 1))
  fi
done
exit $((failures > 0))
