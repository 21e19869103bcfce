#!/usr/bin/env bash
# tests/e2e/symmetry_blocks.sh TCEC WORKDIR — the dry-run's symmetry blocks (stored elements and
# flops per contraction) against an independent count over NWChem's TCE block loops
# (symmetry_blocks.py): water in cc-pVDZ, C2v, restricted (examples/h2o_ccd_symmetry.tce), and
# unrestricted with tensors of another irrep, declared upper halves and a run of three
# (symmetry_open.tce).
set -euo pipefail
tcec=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$work"
for tce in "$root/examples/h2o_ccd_symmetry.tce" "$here/symmetry_open.tce"; do
  json=$work/$(basename "$tce" .tce).json
  "$tcec" "$tce" --dry-run --json > "$json"
  python3 "$here/symmetry_blocks.py" "$json"
done
