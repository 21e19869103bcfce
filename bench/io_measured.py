#!/usr/bin/env python3
"""bench/io_measured.py — a run's measured disk bytes over its compulsory disk bytes.

Arguments: the program's `tcec --dry-run --json` report and the run's `--trace` file. Measured:
per rank, every disk byte read and written by the compute phases and the redistributions of all
contractions (copy steps are not counted by the runtime); the fullest rank. Compulsory: every
input read once and every output written once, shared evenly over the ranks. Prints one line:
  NAME  measured_bytes  compulsory_bytes  ratio
"""
import json
import sys

from io_bound import compulsory_bytes


def main():
    name, report_path, trace_path = sys.argv[1:4]
    report = json.load(open(report_path))
    trace = json.load(open(trace_path))
    P = report["machine"]["processors"]
    compulsory = sum(compulsory_bytes(report))
    per_rank = [0] * P
    for c in trace["contractions"]:
        for key in ("disk_read_bytes", "disk_write_bytes"):
            for r in range(P):
                per_rank[r] += c["measured"][key][r] + c["redistribution"]["measured"][key][r]
    measured = max(per_rank)
    print(f"{name:<28} {measured:>14.6g} {compulsory:>14.6g} {measured / compulsory:>8.3f}")


if __name__ == "__main__":
    main()
