#!/usr/bin/env bash
# tests/e2e/tamm_vs_nwchem.sh — a TAMM function and the NWChem TCE tree of the same equations,
# both generated, built and run out of core under mpirun on the same inputs; their results must
# be equal (both are spin-orbital CCSD).
#
#   tamm_vs_nwchem.sh TCEC WORKDIR TAMM.cpp NWCHEM.txt FUNCTION NP O V MACHINE PAIRS...
#
# FUNCTION is the TAMM function and the NWChem section (ccsd_e, ccsd_t1, ccsd_t2). The inputs
# are blocks of the same spin-orbital tensors (orbital_check.py inputs). Each PAIRS word
# X=Y asserts the TAMM program's output X equals the NWChem program's output Y to 1e-12; after
# the word `--input`, X=Y compares the TAMM output X with the input Y (a tensor updated in place
# that must come back unchanged). Both programs run with --verify and --trace, and `tcec compare`
# checks every rank's measured bytes against the prediction.
set -euo pipefail
tcec=$1 work=$2 tamm=$3 nwchem=$4 function=$5 np=$6 o=$7 v=$8 machine=$9
shift 9
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
# tcec runs from the checkout's root on paths from there: the generated text is the same in every
# clone (run_generated.sh)
root=$(cd "$here/../.." && pwd)
tamm=$(realpath -m --relative-to="$root" "$tamm") nwchem=$(realpath -m --relative-to="$root" "$nwchem")
work=$(realpath -m "$work") machine=$(realpath -m "$machine")
cd "$root"
declare -A from=([tamm]="$tamm --from tamm --function $function" [nwchem]="$nwchem --from nwchem --section $function")
for side in tamm nwchem; do
  # shellcheck disable=SC2086  # the options are words
  "$tcec" ${from[$side]} -D O="$o" -D V="$v" --machine "$machine" -o "$work/$side" --build
  # shellcheck disable=SC2086
  "$tcec" ${from[$side]} -D O="$o" -D V="$v" --machine "$machine" --dry-run --json > "$work/$side.json"
done
/usr/bin/python3 "$here/orbital_check.py" inputs "$o" "$v" "$work/tamm.json" "$work/tamm/in" \
  "$work/nwchem.json" "$work/nwchem/in"
for side in tamm nwchem; do
  mpirun --oversubscribe -np "$np" "$work/$side/$function" --quiet --verify --trace "$work/$side/trace.json" \
    --scratch "$work/$side/scratch" --input-dir "$work/$side/in" --output-dir "$work/$side/out"
done
pairs=()
for pair in "$@"; do
  if [[ "$pair" == "--input" ]]; then pairs+=(--input "$work/tamm/in"); else pairs+=("$pair"); fi
done
/usr/bin/python3 "$here/orbital_check.py" compare "$work/tamm/out" "$work/nwchem/out" "${pairs[@]}"
"$tcec" compare ${TCEC_RESIDENT_SLACK_MB:+--resident-slack "$TCEC_RESIDENT_SLACK_MB"} "$work/tamm/trace.json"
"$tcec" compare ${TCEC_RESIDENT_SLACK_MB:+--resident-slack "$TCEC_RESIDENT_SLACK_MB"} "$work/nwchem/trace.json"
