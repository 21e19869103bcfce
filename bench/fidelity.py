#!/usr/bin/env python3
"""bench/fidelity.py — the tables of bench/fidelity.sh.

    fidelity.py times TRACE.json
        prints the predicted and measured seconds of a run's compute stage (sum over its
        contractions of the trace's predicted seconds, and of the slowest rank's measured
        seconds) and of the whole contractions (plus stages 1 and 3): four numbers.
    fidelity.py summary RUNS.tsv
        RUNS.tsv has one line per run: P, case, method, then the four numbers of `times`.
        Prints every run with predicted / measured, then per P and in all: the runs within
        ±25% (compute stage and whole contraction), the worst ratios, and per case the default
        plan's measured whole time over the fastest forced method's (goal ≤ 1.10).
"""
import json
import sys


def times(path):
    with open(path) as f:
        t = json.load(f)
    cs = t["contractions"]
    p = sum(c["predicted"]["seconds"] for c in cs)
    m = sum(max(c["measured"]["seconds"]) for c in cs)
    rp = sum(c["redistribution"]["predicted"]["seconds"] for c in cs)
    rm = sum(max(c["redistribution"]["measured"]["seconds"]) for c in cs)
    print(p, m, p + rp, m + rm)


def summary(path):
    runs = []
    with open(path) as f:
        for line in f:
            P, case, method, *nums = line.split()
            runs.append((int(P), case, method, *map(float, nums)))
    print(f"{'P':>2} {'case':<22} {'method':<22} {'compute_pred':>12} {'compute_meas':>12} {'ratio':>6} "
          f"{'total_pred':>10} {'total_meas':>10} {'ratio':>6}")
    for P, case, method, p, m, tp, tm in runs:
        print(f"{P:>2} {case:<22} {method:<22} {p:>12.3f} {m:>12.3f} {p / m:>6.2f} {tp:>10.3f} {tm:>10.3f} "
              f"{tp / tm:>6.2f}")
    print()

    def within(group, label):
        if not group:
            return
        compute = [r[3] / r[4] for r in group]
        whole = [r[5] / r[6] for r in group]
        ok_c = sum(abs(x - 1) <= 0.25 for x in compute)
        ok_w = sum(abs(x - 1) <= 0.25 for x in whole)
        print(f"{label}: {len(group)} runs; predicted / measured within ±25%: compute stage {ok_c}, whole "
              f"contraction {ok_w}; range {min(compute):.2f}-{max(compute):.2f} and {min(whole):.2f}-{max(whole):.2f}")

    for P in sorted({r[0] for r in runs}):
        within([r for r in runs if r[0] == P], f"P = {P}")
    within(runs, "all")
    for P, case in dict.fromkeys((r[0], r[1]) for r in runs):
        group = [r for r in runs if r[0] == P and r[1] == case]
        default = [r[6] for r in group if r[2] == "default"]
        forced = [r[6] for r in group if r[2] != "default"]
        if default and forced:
            print(f"P = {P} {case}: default / fastest forced (whole contraction, measured) "
                  f"{default[0] / min(forced):.2f}")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "times":
        times(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "summary":
        summary(sys.argv[2])
    else:
        sys.exit("usage: fidelity.py times TRACE.json | fidelity.py summary RUNS.tsv")


if __name__ == "__main__":
    main()
