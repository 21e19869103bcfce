#!/usr/bin/env bash
# tests/e2e/ooc_device.sh — `tcec compare --device` on the trace tests/e2e/ooc_regime.sh left:
# the bytes each rank's process made the device read and write, out of core, within the
# predicted disk bytes plus SLACK_MB (2^20 bytes) per rank. Exit 77 (skipped) when there is no
# trace (the regime could not be made).
#
#   ooc_device.sh TCEC TRACE SLACK_MB
set -euo pipefail
tcec=$1 trace=$2 slack_mb=$3
if [[ ! -f $trace ]]; then
  echo "ooc_device.sh: no trace at $trace (the regime test was skipped); skipped"
  exit 77
fi
exec "$tcec" compare --device-slack "$slack_mb" "$trace"
