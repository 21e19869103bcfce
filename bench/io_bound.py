#!/usr/bin/env python3
"""bench/io_bound.py — a program's predicted whole-program time over its compulsory I/O time.

Reads `tcec --dry-run --json` on stdin. Compulsory (per rank, the fullest): every input tensor
read once and every output tensor written once, shared evenly over the P ranks, at the
machine's disk bandwidths (intermediates count zero: a perfect program would keep them in
memory). The predicted time is the program's: the hand-off sequence's total when the program
runs it, else the sum over contractions and copy steps. The report's own bound
(`io_lower_bound_s`: per contraction the largest of its compulsory I/O, Theorem 1 of
Kwasniewski et al. and Theorem 1 over the disks of all memories, summed; copy steps count 0) is the other reference. Prints one line:
  NAME  predicted_s  compulsory_s  predicted/compulsory  bound_s  predicted/bound
"""
import json
import sys


def compulsory_bytes(report):
    """Bytes per rank every input is read with and every output written with, once each:
    (read, write), the tensors' sizes shared evenly over the ranks (intermediates count 0)."""
    m = report["machine"]
    read = write = 0.0
    for tensor in report["tensors"].values():
        elements = 1
        for extent in tensor["shape"]:
            elements *= extent
        if tensor["role"] == "input":
            read += elements * m["element_size_bytes"]
        elif tensor["role"] == "output":
            write += elements * m["element_size_bytes"]
    return read / m["processors"], write / m["processors"]


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "program"
    report = json.load(sys.stdin)
    m = report["machine"]
    read, write = compulsory_bytes(report)
    compulsory = read / m["disk_read_bytes_per_s"] + write / m["disk_write_bytes_per_s"]
    handoff = report.get("handoff")
    predicted = report["total_predicted_time_s"]
    if handoff and not handoff["model_only"]:
        predicted = handoff["total_predicted_time_s"]
    bound = report["io_lower_bound_s"]
    print(f"{name:<28} {predicted:>14.6g} {compulsory:>14.6g} {predicted / compulsory:>8.3f} "
          f"{bound:>14.6g} {predicted / bound:>8.3f}")


if __name__ == "__main__":
    main()
