#!/usr/bin/env bash
# bench/write_avoiding.sh — whole-program writes per rank against the outputs' share (Carson et
# al., seed 004) on a machine whose disk writes are 20 times dearer than its reads, measured.
#
#   bench/write_avoiding.sh [BUILD_DIR]
#
# On `processors 4; memory 32 MB; network 2 GB/s; disk_read 2 GB/s; disk_write 100 MB/s` builds
# and runs (mpirun -np 4, generated inputs) a matrix product (examples/matmul.tce, N = 1200), a
# 4-index step (examples/four_index.tce, N = 48) and the CCD terms (examples/ccd_terms.tce,
# O = 16, V = 64) with the default plans (--resident auto), and the CCD terms again with
# --resident off. Prints per run the fullest rank's bytes written and read over the whole program
# (compute stages and stages 1 and 3, from the trace), the writes over the outputs' share, whether
# every measured disk byte and request equals the prediction, and the compute stages' seconds.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/results_file.sh"; results_begin write-avoiding "$0" "$@"
build=${1:-$here/build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
export OPENBLAS_NUM_THREADS=1
printf 'machine dear_writes {\n  processors 4;\n  memory 32 MB;\n  network 2 GB/s;\n  disk_read 2 GB/s;\n  disk_write 100 MB/s;\n}\n' \
  > "$work/dear.machine"
printf '%-34s %14s %14s %10s %10s %10s\n' run "writes/rank" "reads/rank" "x share" "= pred" "compute s"
run() {  # NAME FILE [tcec options...]
  local name=$1 file=$2
  shift 2
  local dir=$work/$name stem
  stem=$(basename "${file%.*}")
  "$build/bin/tcec" "$file" --machine "$work/dear.machine" -o "$dir" --build "$@" > /dev/null
  "$build/bin/tcec" "$file" --machine "$work/dear.machine" --dry-run --json "$@" > "$dir/plan.json"
  mpirun --oversubscribe -np 4 -x OPENBLAS_NUM_THREADS "$dir/$stem" --quiet --scratch "$dir/scratch" \
    --trace "$dir/trace.json"
  /usr/bin/python3 - "$name" "$dir/trace.json" "$dir/plan.json" <<'PY'
import json, sys
name, trace = sys.argv[1], json.load(open(sys.argv[2]))
share = json.load(open(sys.argv[3]))["program_writes"]["bound_bytes"]  # the outputs' share per rank
writes = reads = None
equal, seconds = True, 0.0
for c in trace["contractions"]:
    m, d = c["measured"], c["redistribution"]["measured"]
    if writes is None:
        writes, reads = [0] * len(m["disk_write_bytes"]), [0] * len(m["disk_write_bytes"])
    for q in range(len(writes)):
        writes[q] += m["disk_write_bytes"][q] + d["disk_write_bytes"][q]
        reads[q] += m["disk_read_bytes"][q] + d["disk_read_bytes"][q]
    for k in ("disk_read_bytes", "disk_write_bytes", "disk_requests"):
        equal = equal and m[k] == c["predicted"][k]
    for k in ("disk_read_bytes", "disk_write_bytes"):
        equal = equal and d[k] == c["redistribution"]["predicted"][k]
    seconds += max(m["seconds"])
print(f"{name:<34} {max(writes):>14} {max(reads):>14} {max(writes) / share:>10.3f} "
      f"{'yes' if equal else 'NO':>10} {seconds:>10.3f}")
PY
}
run matmul_N1200 "$here/examples/matmul.tce" -D N=1200
run four_index_N48 "$here/examples/four_index.tce" -D N=48
run ccd_terms_O16_V64 "$here/examples/ccd_terms.tce" -D O=16 -D V=64
run ccd_terms_O16_V64_resident_off "$here/examples/ccd_terms.tce" -D O=16 -D V=64 --resident off
