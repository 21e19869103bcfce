#!/usr/bin/env bash
# e2e.calibrate: tcec-calibrate --quick on 2 ranks writes a machine block with every property
# (and no temporary file; the overlap line's comment gives the overlap with O_DIRECT reads), says
# which regime its disk figures describe and what the device does past the page cache (header
# comment and --json), and tcec plans with it; with --regime device the block takes the device's
# figures.
#   calibrate.sh TCEC TCEC_CALIBRATE WORK_DIR
set -euo pipefail
tcec=$1 calibrate=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
# The scratch directory is made when missing, as generated programs make theirs.
mpirun --oversubscribe -np 2 "$calibrate" --quick --memory "8 MB" --scratch "$work/new/scratch" -o "$work/c.machine" \
  --json "$work/c.json" 2> "$work/log"
for property in processors memory network disk_read disk_write disk_latency page_fault replication_factor reduction_factor flops overlap; do
  grep -q "^  $property " "$work/c.machine" || { echo "missing $property"; cat "$work/c.machine"; exit 1; }
done
grep -q "processors 2;" "$work/c.machine"
# The overlap line's comment also gives the overlap with O_DIRECT reads (or that it was refused).
grep -q "^  overlap .*(with O_DIRECT reads, past the page cache: .* MB/s, overlap [0-9.]*)$\|O_DIRECT refused here)$" \
  "$work/c.machine"
grep -q "memory 8 MB;" "$work/c.machine"
# Which regime the disk figures describe, and the device past the page cache (docs/out-of-core.md):
# in the header comment, and in --json with a regime for every disk figure.
grep -q "^# Regimes (docs/out-of-core.md): disk_read, disk_write, disk_latency and page_fault describe the \(page cache\|device\)" \
  "$work/c.machine"
grep -q "^# Past the page cache (" "$work/c.machine"
/usr/bin/python3 - "$work/c.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
f = j["figures"]
assert j["processors"] == 2 and j["memory_bytes"] == 8000000, j
for name in ("disk_read", "disk_write", "disk_latency", "page_fault", "device_synced_write", "device_cold_read"):
    # Times beyond the bytes (latency, fault) may be measured as 0 on a busy machine: not below.
    least = 0 if name in ("disk_latency", "page_fault") else 1e-300
    assert f[name]["regime"] in ("page cache", "device") and f[name]["value"] >= least, (name, f[name])
assert j["block_regime"] == "page cache", j["block_regime"]
for name in ("network", "flops", "memory_bandwidth", "overlap", "replication_factor", "reduction_factor"):
    assert name in f, name
PY
if ls "$work"/c.machine.tmp-* > /dev/null 2>&1; then echo "a temporary file is left"; exit 1; fi
here=$(cd "$(dirname "$0")/../.." && pwd)
"$tcec" "$here/examples/matmul.tce" -D N=64 --machine "$work/c.machine" --dry-run | grep -q "^machine: P = 2, memory 8 MB"
# --regime device: the block's disk figures are the device's past the page cache.
mpirun --oversubscribe -np 2 "$calibrate" --quick --regime device --memory "8 MB" --scratch "$work/new/scratch" \
  -o "$work/d.machine" --json "$work/d.json" 2> "$work/d.log"
grep -q "^# Regimes (docs/out-of-core.md): --regime device: disk_read, disk_write, disk_latency, page_fault and" \
  "$work/d.machine"
grep -q "^  disk_read [0-9.]* MB/s; *# the device: " "$work/d.machine"
grep -q "^  page_fault 0.000 us; " "$work/d.machine"
grep -q "^  disk_latency [0-9.]* us; *# runs of 16 elements 16384 apart from the device, each a request of its own" \
  "$work/d.machine"
/usr/bin/python3 - "$work/d.json" "$work/d.machine" << 'PY'
import json, re, sys
j = json.load(open(sys.argv[1]))
assert j["block_regime"] == "device", j["block_regime"]
f = j["figures"]
for name in ("device_lone_read", "device_lone_write", "device_streamed_run"):
    assert f[name]["unit"] == "s" and f[name]["value"] >= 0, (name, f[name])
assert f["device_streamed_write"]["value"] > 0, f["device_streamed_write"]
# The block's disk_latency is the mean of the lone read and write (written in us, 3 decimals).
latency = float(re.search(r"^  disk_latency ([0-9.]+) us;", open(sys.argv[2]).read(), re.M).group(1))
mean = 0.5 * (f["device_lone_read"]["value"] + f["device_lone_write"]["value"]) * 1e6
assert abs(latency - mean) <= 0.0005 + 1e-9 * mean, (latency, mean)
PY
"$tcec" "$here/examples/matmul.tce" -D N=64 --machine "$work/d.machine" --dry-run | grep -q "^machine: P = 2, memory 8 MB"
mpirun --oversubscribe -np 2 "$calibrate" --regime cache -o "$work/bad.machine" 2> "$work/bad.log" && exit 1
grep -q "regime: cache not in {page-cache,device}" "$work/bad.log"
mpirun --oversubscribe -np 2 "$calibrate" --memory lots -o "$work/bad.machine" 2> "$work/bad.log" && exit 1
grep -q "expects a size such as '64 MB', got 'lots'" "$work/bad.log"
test ! -e "$work/bad.machine"
echo "calibrate: ok"
