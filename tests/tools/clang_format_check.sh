#!/usr/bin/env bash
# tests/tools/clang_format_check.sh — generated programs, and the sources written in the project's
# clang-format style, pass `clang-format --style=file:.clang-format --dry-run --Werror`.
#
#   clang_format_check.sh TCEC CLANG_FORMAT SOURCE_DIR DATA_DIR WORKDIR
#
# tcec -o emits one program per emitter: Gao et al.'s methods (inside rotation, outside
# accumulation), cosma, tbs, sfc, copies and chained statements, the hand-off (keep and take), an
# NWChem tree and TAMM's ccsd_t2. SOURCES below are all the project's C++ files.
set -euo pipefail
tcec=$1 clang_format=$2 src=$3 data=$4 work=$5
rm -rf "$work"
mkdir -p "$work"
cd "$src"
machine=tests/e2e/tiny.machine
programs=(
  "matmul_rotation examples/matmul.tce --force-method inside-rotation"
  "matmul_accumulation examples/matmul.tce --force-method outside-accumulation"
  "matmul_cosma examples/matmul.tce --force-method cosma"
  "matmul_sfc examples/matmul.tce --force-method sfc"
  "syrk_tbs tests/e2e/syrk.tce --machine $machine --force-method tbs"
  "ccd_terms examples/ccd_terms.tce -D O=4 -D V=8 --machine $machine"
  "handoff $data/nwchem_tce_equation_trees.txt --from nwchem --section ccd_t2 -D O=4 -D V=8 --machine $machine --force-method outside-accumulation"
  "tamm_ccsd_t2 $data/tamm_ccsd_canonical_e_t1_t2.hpp.txt --from tamm --function ccsd_t2 -D O=4 -D V=8 --machine $machine"
)
emitted=()
for program in "${programs[@]}"; do
  read -r -a words <<< "$program"
  "$tcec" "${words[@]:1}" -o "$work/${words[0]}" > /dev/null
  emitted+=("$work/${words[0]}"/*.cpp)
done
grep -q 'spec.keep_result = true' "$work/handoff/ccd_t2.cpp"  # the hand-off is among them
# Every C++ source and header of the project (the tree is one style).
mapfile -t SOURCES < <(find bench codegen costmodel diag frontend grammar ir runtime tests tools \
  -type f \( -name '*.h' -o -name '*.cpp' -o -name '*.hpp' \) 2> /dev/null | sort)
"$clang_format" --style=file:.clang-format --dry-run --Werror "${emitted[@]}" "${SOURCES[@]}"
echo "clang_format_check: ${#emitted[@]} generated programs and ${#SOURCES[@]} sources are clang-format clean"
