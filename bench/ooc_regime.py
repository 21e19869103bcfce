#!/usr/bin/env python3
"""bench/ooc_regime.py — the table of bench/ooc_regime.sh.

    ooc_regime.py header
    ooc_regime.py row NAME DIR P RUNS CALIBRATION.json

DIR holds one case's files: dry.json (`tcec ... --dry-run --json`), and per run R (0 .. RUNS-1)
tcec.R.report.json and numpy.R.report.json (tools/ooc-regime.sh --report), tcec.R.trace.json
(the program's --trace) and numpy.R.json (bench/ooc_numpy.py's own figures). CALIBRATION.json is
`tcec-calibrate --json` (its device figures, past the page cache: device_read, O_DIRECT;
device_write, the faster of O_DIRECT and the runtime's write-behind; device_mixed, both at once;
its flops). Prints one line per case: medians over the runs of
  tcec_s    tcec's program, wall time of the whole mpirun in the cgroup
  numpy_s   the streaming numpy loop, the same
  bound_s   the device bound: the compulsory bytes (inputs read once, outputs written once, all
            ranks: one device) at the calibrated device bandwidths (the longer of the reads at
            device_read and the writes at device_write, or all of them at device_mixed if that
            is longer; without device_mixed, their sum), or the kernel's time (the
            contractions' flops at the calibrated rate of one rank, which uses all the node's
            cores) if larger
  tcec/bound, tcec/numpy
  pred_s    the dry-run's predicted time of the contractions (compute stages and stages 1 and 3,
            for the machine tcec-calibrate --regime device measured)
  prog_s    the program's measured time of the same (its trace: the slowest rank's per stage)
  pred/prog their ratio (the model's fidelity in the device regime; goal 0.75 .. 1.25)
  dev_read  the device bytes tcec's ranks read over the run (trace "device", GB) against the
            predicted disk reads (GB), and likewise numpy's (its /proc/self/io)
  pgpgin    machine-wide pgpgin over tcec's run (GB)
  peak      the cgroup's peak usage during tcec's run (MB)
  busy      tcec's compute stages: slowest rank's wall over the largest of its disk, network and
            kernel busy times, summed over contractions (1.0 = fully overlapped). The disk busy
            time is summed over a rank's I/O threads (overlapped Gao plans have two, reading
            operands and writing C at once), so it can exceed the wall: below 1.0, the disk was
            the longest and both threads worked at once
"""
import json
import math
import statistics
import sys

GB = 1e9


def load(path):
    with open(path) as f:
        return json.load(f)


def figure(cal, name):
    f = cal["figures"].get(name)
    return f["value"] if f and f["value"] > 0 else None


def bound(dry, cal):
    size = {name: 8 * math.prod(t["shape"]) for name, t in dry["tensors"].items()}
    reads = sum(size[n] for n, t in dry["tensors"].items() if t["role"] == "input")
    writes = sum(size[n] for n, t in dry["tensors"].items() if t["role"] == "output")
    read_bw = figure(cal, "device_read") or figure(cal, "device_cold_read")
    write_bw = max(figure(cal, "device_write") or 0, figure(cal, "device_streamed_write") or 0) or figure(
        cal, "device_synced_write")
    mixed_bw = figure(cal, "device_mixed")
    device = reads / read_bw + writes / write_bw
    if mixed_bw:  # reads and writes at once: the longer stream, or all bytes at the rate of both
        device = max(reads / read_bw, writes / write_bw, (reads + writes) / mixed_bw)
    flops = sum(c.get("flops", 0) for c in dry["contractions"])
    kernel = flops / figure(cal, "flops")  # one rank on all the node's cores
    return max(device, kernel), device, kernel, reads + writes, sum(size.values())


def tcec_run(d, r):
    rep, trace = load(f"{d}/tcec.{r}.report.json"), load(f"{d}/tcec.{r}.trace.json")
    dev = trace.get("device", {})
    read = sum(dev.get("read_bytes", [0]))
    predicted = 0
    wall = busy = 0.0
    for c in trace["contractions"]:
        predicted += sum(c["predicted"]["disk_read_bytes"]) + sum(c["redistribution"]["predicted"]["disk_read_bytes"])
        m = c["measured"]
        slow = max(range(len(m["seconds"])), key=lambda q: m["seconds"][q])
        wall += m["seconds"][slow]
        busy += max(m["disk_seconds"][slow], m["comm_seconds"][slow], m["kernel_seconds"][slow])
    stages = wall + sum(max(c["redistribution"]["measured"].get("seconds", [0]) or [0]) for c in trace["contractions"])
    return (rep["wall_s"], read, predicted, rep["pgpgin_bytes"], rep["peak_bytes"] or 0, wall / busy if busy else 0,
            stages)


def header():
    print(f"{'case':<22} {'P':>2} {'tensors_GB':>10} {'limit_MB':>8} {'tcec_s':>8} {'numpy_s':>8} {'bound_s':>8} "
          f"{'(device,kernel)':>15} {'tcec/bound':>10} {'tcec/numpy':>10} {'pred_s':>7} {'prog_s':>7} {'pred/prog':>9} "
          f"{'dev_read_GB(pred)':>17} {'numpy_read_GB':>13} {'pgpgin_GB':>9} {'peak_MB':>7} {'busy':>5}")


def row(name, d, P, runs, cal_path):
    dry, cal = load(f"{d}/dry.json"), load(cal_path)
    b, device, kernel, compulsory, tensors = bound(dry, cal)
    t = [tcec_run(d, r) for r in range(runs)]
    n = [load(f"{d}/numpy.{r}.report.json") for r in range(runs)]
    nj = [load(f"{d}/numpy.{r}.json") for r in range(runs)]
    med = statistics.median
    tw, nw = med([x[0] for x in t]), med([x["wall_s"] for x in n])
    limit = n[0]["limit_bytes"] / 2**20
    pred = dry.get("total_predicted_time_s", 0)
    prog = med([x[6] for x in t])
    nread = med([x["read_bytes"] or 0 for x in nj])
    print(f"{name:<22} {P:>2} {tensors / GB:>10.2f} {limit:>8.0f} {tw:>8.2f} {nw:>8.2f} {b:>8.2f} "
          f"{f'({device:.2f},{kernel:.2f})':>15} {tw / b:>10.2f} {tw / nw:>10.2f} {pred:>7.2f} {prog:>7.2f} {pred / prog:>9.2f} "
          f"{f'{med([x[1] for x in t]) / GB:.2f}({t[0][2] / GB:.2f})':>17} {nread / GB:>13.2f} "
          f"{med([x[3] for x in t]) / GB:>9.2f} {med([x[4] for x in t]) / 2**20:>7.0f} {med([x[5] for x in t]):>5.2f}")


def main():
    if sys.argv[1:] == ["header"]:
        return header()
    if len(sys.argv) == 7 and sys.argv[1] == "row":
        return row(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
    sys.exit(__doc__)


if __name__ == "__main__":
    main()
