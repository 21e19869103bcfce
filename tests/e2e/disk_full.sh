#!/usr/bin/env bash
# tests/e2e/disk_full.sh — a scratch disk that fills up: the program stops with a clean
# "disk full" error (non-zero status, no hang, no result file left behind).
#
#   disk_full.sh TCEC WORKDIR
#
# The scratch and the output directory are on a 1 MB tmpfs mounted here (exit 77, skipped, where
# mounting is not allowed); the 4-index transform at N = 32 needs an 8 MB result file there (the
# output, larger than the memory per rank, is written beside its final name, T1.npy.part-<pid>).
set -euo pipefail
tcec=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rm -rf "$work"
mkdir -p "$work/small"
if ! mount -t tmpfs -o size=1M tmpfs "$work/small" 2> /dev/null; then
  echo "disk_full.sh: cannot mount a tmpfs here; skipped"
  exit 77
fi
trap 'umount "$work/small" 2> /dev/null || true' EXIT
(cd "$root" && "$tcec" examples/four_index.tce -D N=32 --machine examples/small.machine -o "$work" --build) > /dev/null
status=0
timeout 120 mpirun --oversubscribe -np 4 "$work/four_index" --quiet --scratch "$work/small/scratch" \
  --output-dir "$work/small/out" 2> "$work/err.log" || status=$?
if [[ $status -eq 0 || $status -eq 124 ]]; then
  echo "disk_full.sh: the program exited with status $status (0: no error; 124: it hung)" >&2
  exit 1
fi
if ! grep -q "error: disk full: " "$work/err.log"; then
  echo "disk_full.sh: no clean disk-full message:" >&2
  cat "$work/err.log" >&2
  exit 1
fi
if compgen -G "$work/small/out/*.npy*" > /dev/null; then
  echo "disk_full.sh: an output file was left behind" >&2
  exit 1
fi
echo "disk_full.sh: $(grep -o 'error: disk full: [^(]*' "$work/err.log" | head -1)"
