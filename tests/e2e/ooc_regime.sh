#!/usr/bin/env bash
# tests/e2e/ooc_regime.sh — a generated program out of core for real: inside a memory cgroup
# that counts the page cache (tools/ooc-regime.sh), with its tensors at least 4x the limit.
#
#   ooc_regime.sh TCEC WORKDIR LIMIT_MB N NP [DIRECT_KIB]
#
# DIRECT_KIB (default 0: none): the machine's direct_read_bytes in KiB, so that reads of that size
# or more bypass the page cache (docs/out-of-core.md "Direct reads").
# Builds examples/four_index.tce with -D N=N for NP ranks of 8 MB tile memory, and runs it in a
# cgroup of LIMIT_MB (caches dropped first) on random .npy inputs, with --trace and its output
# written to a .npy file; then, outside the cgroup, checks the output against numpy.einsum
# (tests/e2e/npy_check.py), with `tcec compare` that every rank's measured bytes equal the
# prediction, and that the trace carries the device bytes (read and written per rank,
# /proc/self/io). The values are checked by numpy rather than --verify: --verify samples A
# element by element through its mapping, and in a cgroup far smaller than A each sample faults
# in a readahead window of its own (about 40 s here, for 8 MB windows, against 12 s for the run).
# Exit 77 (skipped) where the regime cannot be made (not root, no memory cgroup). WORKDIR/trace.json
# is left for tests/e2e/ooc_device.sh.
set -euo pipefail
tcec=$1 work=$2 limit_mb=$3 n=$4 np=$5 direct_kib=${6:-0}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
regime=$root/tools/ooc-regime.sh
rm -rf "$work"  # no trace of an earlier run for ooc_device.sh
if ! "$regime" --check; then
  echo "ooc_regime.sh: the out-of-core regime cannot be made here; skipped"
  exit 77
fi
a_bytes=$((n * n * n * n * 8))
if ((a_bytes < 4 * limit_mb * 1048576)); then
  echo "ooc_regime.sh: A is $a_bytes bytes, less than 4x the cgroup's $limit_mb MB: not out of core" >&2
  exit 1
fi
mkdir -p "$work"
direct=""
((direct_kib == 0)) || direct=" direct_read_bytes $direct_kib KiB;"
printf 'machine ooc { processors %s; memory 8 MB; network 1 GB/s; disk 1300 MB/s;%s }\n' "$np" "$direct" > "$work/ooc.machine"
(cd "$root" && "$tcec" examples/four_index.tce -D "N=$n" --machine "$work/ooc.machine" -o "$work" --build) > /dev/null
/usr/bin/python3 "$here/npy_check.py" inputs "$work/in" "{\"A\": [$n, $n, $n, $n], \"B\": [$n, $n]}" A B
"$regime" --limit "${limit_mb}M" -- mpirun --oversubscribe -np "$np" "$work/four_index" --quiet \
  --trace "$work/trace.json" --scratch "$work/scratch" --input-dir "$work/in" --output-dir "$work/out"
/usr/bin/python3 "$here/npy_check.py" check "$work/in" "$work/out" "abcp,pd->abcd" 1 T1 A B
"$tcec" compare "$work/trace.json"
/usr/bin/python3 - "$work/trace.json" "$np" <<'PY'
import json, sys
t, P = json.load(open(sys.argv[1])), int(sys.argv[2])
for c in t["contractions"]:
    for key in ("device_read_bytes", "device_write_bytes"):
        assert len(c["measured"][key]) == P, f"{key}: {c['measured'].get(key)}"
assert len(t["device"]["read_bytes"]) == P and "compute" in t["device"]["phases"], t.get("device")
PY
rm -rf "$work/in" "$work/out" "$work/scratch"
echo "ooc_regime: ok"
