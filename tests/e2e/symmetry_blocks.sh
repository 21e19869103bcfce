#!/usr/bin/env bash
# tests/e2e/symmetry_blocks.sh TCEC WORKDIR — the dry-run's symmetry blocks (stored elements and
# flops per contraction) against an independent count over NWChem's TCE block loops
# (symmetry_blocks.py): water in cc-pVDZ, C2v, restricted (examples/h2o_ccd_symmetry.tce), and
# unrestricted with tensors of another irrep, declared upper halves and a run of three
# (symmetry_open.tce); and NWChem's CCSD T2 equations for water, the symmetry on the command line.
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
# NWChem's CCSD T2 equations for water in cc-pVDZ, the symmetry given on the command line; the
# P( n ) products are antisymmetric only in the indices P( n ) does not permute.
"$tcec" --from nwchem --section ccsd_t2 "$root/data/nwchem_tce_equation_trees.txt" -D O=10 -D V=38 \
  --point-group c2v --restricted --irreps O=3,0,1,1 --irreps V=8,2,3,6 --dry-run --json > "$work/ccsd_t2.json"
python3 "$here/symmetry_blocks.py" "$work/ccsd_t2.json"
