#!/usr/bin/env bash
# tests/e2e/run_generated.sh — one end-to-end run of a generated program.
#
#   run_generated.sh TCEC WORKDIR FILE.tce NP [tcec options...]
#
# Generates and builds the program with `tcec FILE.tce -o WORKDIR --build OPTIONS`, runs it
# with `mpirun -np NP` on random inputs with --verify and --trace, then checks with
# `tcec compare` that every rank's measured bytes equal the prediction and, with
# TCEC_RESIDENT_SLACK_MB set (the test suite sets 64), that every rank's peak resident memory is
# within the plan's tile memory plus that many MB (--resident-slack).
# With NPY_EINSUM set (e.g. "abcp,pd->abcd"), the inputs are instead random .npy files made by
# numpy (NPY_SHAPES='{"A": [8, 8], ...}', NPY_INPUTS="A B", NPY_OUTPUT=T1, NPY_ALPHA=1) and the
# output .npy is compared with
# numpy.einsum (needs /usr/bin/python3 with python3-numpy). With NPY_PROGRAM=1 the whole program
# (every statement, in order, from `tcec --dry-run --json`) is evaluated by numpy instead.
# With EXPECT_HANDOFF=1 the generated program must keep a result on the ranks and take it rank
# to rank (the sequence hand-off); with EXPECT_RESIDENT=1 it must run a resident accumulation
# step (costmodel/program/resident.h). With NO_VERIFY=1 the program runs without --verify, as
# users run it: additions then update a tensor's latest version in place (runtime/program/run.h
# Run::updates_in_place), which only the numpy checks above see.
set -euo pipefail
tcec=$1 work=$(realpath -m "$2") file=$3 np=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
# tcec runs in the checkout's root on FILE's path from there: the generated text names FILE as
# given, so it is the same in every clone and a compiler cache warmed by another compiles nothing.
root=$(cd "$here/../.." && pwd)
(cd "$root" && exec "$tcec" "$(realpath -m --relative-to="$root" "$file")" -o "$work" --build "$@")
stem=$(basename "${file%.*}")
for ((i = 1; i <= $#; i++)); do   # a program taken from a --section is named after it
  if [[ "${!i}" == "--section" ]]; then j=$((i + 1)); stem=${!j}; fi
done
if [[ -n "${EXPECT_HANDOFF:-}" ]] && ! { grep -q 'spec.keep_result = true' "$work/$stem.cpp" &&
                                        grep -q 'spec.take_[ABC] = true' "$work/$stem.cpp"; }; then
  echo "run_generated.sh: $work/$stem.cpp keeps or takes no tensor on the ranks" >&2
  exit 1
fi
if [[ -n "${EXPECT_RESIDENT:-}" ]] && ! grep -q 'tcert::ResidentGemm x' "$work/$stem.cpp"; then
  echo "run_generated.sh: $work/$stem.cpp runs no resident accumulation step" >&2
  exit 1
fi
run=(mpirun --oversubscribe -np "$np" "$work/$stem" --quiet --trace "$work/trace.json"
     --scratch "$work/scratch")
[[ -n "${NO_VERIFY:-}" ]] || run+=(--verify)
if [[ -n "${NPY_PROGRAM:-}" ]]; then
  "$tcec" "$file" --dry-run --json "$@" > "$work/program.json"
  /usr/bin/python3 "$here/npy_check.py" program-inputs "$work/program.json" "$work/in"
  "${run[@]}" --input-dir "$work/in" --output-dir "$work/out"
  /usr/bin/python3 "$here/npy_check.py" program-check "$work/program.json" "$work/in" "$work/out"
elif [[ -n "${NPY_EINSUM:-}" ]]; then
  /usr/bin/python3 "$here/npy_check.py" inputs "$work/in" "$NPY_SHAPES" $NPY_INPUTS
  "${run[@]}" --input-dir "$work/in" --output-dir "$work/out"
  /usr/bin/python3 "$here/npy_check.py" check "$work/in" "$work/out" "$NPY_EINSUM" "${NPY_ALPHA:-1}" \
    "$NPY_OUTPUT" $NPY_INPUTS
else
  "${run[@]}"
fi
"$tcec" compare ${TCEC_RESIDENT_SLACK_MB:+--resident-slack "$TCEC_RESIDENT_SLACK_MB"} "$work/trace.json"
# On a CPU with AVX2 and FMA the tile kernel never runs OpenBLAS's SSE3 fallback (kernel.h
# use_native_blas_kernels), unless the environment chose the kernels.
if [[ -z "${OPENBLAS_CORETYPE:-}" ]] && grep -m1 '^flags' /proc/cpuinfo | grep -qw avx2 &&
  grep -m1 '^flags' /proc/cpuinfo | grep -qw fma; then
  kernels=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("blas_kernels", ""))' \
    "$work/trace.json")
  [[ $kernels != Prescott ]] || { echo "run_generated.sh: the program ran OpenBLAS's Prescott kernels" >&2; exit 1; }
fi
