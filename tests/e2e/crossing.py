#!/usr/bin/env python3
"""tests/e2e/crossing.py — the bytes a run sent across nodes against the dry-run's prediction.

    crossing.py PROGRAM_JSON TRACE_JSON

PROGRAM_JSON is `tcec --dry-run --json` for a machine of several nodes (its
"internode_sent_bytes": compute stages, stages 1 and 3, copy steps, total); TRACE_JSON the run's
--trace (its "network": per rank, the whole run's payload and what crossed nodes). Prints both
totals; exits 1 when they differ, 2 when either file lacks them.
"""
import json
import sys


def main():
    with open(sys.argv[1]) as f:
        predicted = json.load(f).get("internode_sent_bytes")
    with open(sys.argv[2]) as f:
        network = json.load(f).get("network")
    if predicted is None or network is None:
        print("crossing.py: no bytes across nodes in the dry-run or the trace", file=sys.stderr)
        return 2
    sent, received = sum(network["internode_sent_bytes"]), sum(network["internode_recv_bytes"])
    print(f"bytes across nodes: predicted {predicted['total']} (compute stages {predicted['compute']}, "
          f"stages 1 and 3 {predicted['stages']}, copy steps {predicted['copies']}), measured sent {sent}, "
          f"received {received}")
    return 0 if predicted["total"] == sent == received else 1


if __name__ == "__main__":
    sys.exit(main())
