#!/usr/bin/env bash
# e2e.ccsd.*: the CCSD correlation energy of a molecule from tcec-ccsd, under mpirun at P = 4
# and out of core, equals psi4's within 1e-8 Eh.
#   ccsd.sh TCEC_CCSD EQUATIONS WORK_DIR MOLECULE BASIS MEMORY
set -euo pipefail
ccsd=$1 equations=$2 work=$3 molecule=$4 basis=$5 memory=$6
here=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work" && mkdir -p "$work"
/usr/bin/python3 "$here/tools/psi4_integrals.py" "$molecule" "$basis" "$work/ints" > "$work/psi4.log"
cat > "$work/p4.machine" <<MACHINE
machine test {
  processors 4;
  memory ${memory/KB/ KB};
  network 200 MB/s;
  disk 100 MB/s;
}
MACHINE
mpirun --oversubscribe -np 4 "$ccsd" --integrals "$work/ints" --equations "$equations" --machine "$work/p4.machine" \
  --scratch "$work" > "$work/out" 2> "$work/err" || { cat "$work/out" "$work/err"; exit 1; }
cat "$work/out"
energy=$(sed -n 's/^CCSD correlation energy: //p' "$work/out")
/usr/bin/python3 - "$work/ints/meta.json" "$energy" "$memory" <<'PY'
import json, sys
meta = json.load(open(sys.argv[1]))
energy, reference = float(sys.argv[2]), meta["ccsd_correlation_energy"]
V = meta["V"]
print(f"tcec-ccsd {energy:.12f} Eh, psi4 {reference:.12f} Eh, difference {energy - reference:.2e} Eh; "
      f"v_pppp {8 * V**4} bytes, memory per rank {sys.argv[3]}")
sys.exit(0 if abs(energy - reference) <= 1e-8 else 1)
PY
if ls "$work"/tcec-ccsd-* > /dev/null 2>&1; then echo "the work directory is left"; exit 1; fi
echo "ccsd: ok"
