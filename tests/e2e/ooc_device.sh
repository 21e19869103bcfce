#!/usr/bin/env bash
# tests/e2e/ooc_device.sh — `tcec compare --device` on the trace tests/e2e/ooc_regime.sh left:
# the bytes each rank's process made the device read and write, out of core, within the
# predicted disk bytes plus the default slack. Exit 77 (skipped) when there is no trace (the
# regime could not be made).
#
#   ooc_device.sh TCEC TRACE
set -euo pipefail
tcec=$1 trace=$2
if [[ ! -f $trace ]]; then
  echo "ooc_device.sh: no trace at $trace (the regime test was skipped); skipped"
  exit 77
fi
exec "$tcec" compare --device "$trace"
