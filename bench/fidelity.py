#!/usr/bin/env python3
"""bench/fidelity.py — the tables of bench/fidelity.sh.

    fidelity.py times TRACE.json
        prints the predicted and measured seconds of a run's compute stage (sum over its
        contractions of the trace's predicted seconds, and of the slowest rank's measured
        seconds) and of the whole contractions (plus stages 1 and 3): four numbers; then the
        run's plans (one word: the plans' texts, spaces as '_', joined by '/').
    fidelity.py summary RUNS.tsv
        RUNS.tsv has one line per run: P, case, method, then the five words of `times`; a
        plan run several times has several lines, and its measured times are their medians.
        Prints every plan with predicted / measured, then per P and in all: the plans within
        ±25% (compute stage and whole contraction), the worst ratios, and per case the default
        plan's measured whole time over the fastest forced method's (goal ≤ 1.10), naming the
        forced method whose plan the default is, if any (then the two differ only by noise).
"""
import json
import statistics
import sys


def times(path):
    with open(path) as f:
        t = json.load(f)
    cs = t["contractions"]
    p = sum(c["predicted"]["seconds"] for c in cs)
    m = sum(max(c["measured"]["seconds"]) for c in cs)
    rp = sum(c["redistribution"]["predicted"]["seconds"] for c in cs)
    rm = sum(max(c["redistribution"]["measured"]["seconds"]) for c in cs)
    plans = "/".join(c["plan"].replace(" ", "_") for c in cs)
    print(p, m, p + rp, m + rm, plans)


def summary(path):
    lines = {}  # (P, case, method) -> its runs' numbers, and its plans
    with open(path) as f:
        for line in f:
            P, case, method, p, m, tp, tm, plans = line.split()
            lines.setdefault((int(P), case, method), ([], plans))[0].append(tuple(map(float, (p, m, tp, tm))))
    runs, plan_of = [], {}
    for (P, case, method), (numbers, plans) in lines.items():
        p, tp = numbers[0][0], numbers[0][2]
        m, tm = (statistics.median(n[i] for n in numbers) for i in (1, 3))
        runs.append((P, case, method, p, m, tp, tm, len(numbers)))
        plan_of[(P, case, method)] = plans
    print(f"{'P':>2} {'case':<22} {'method':<22} {'compute_pred':>12} {'compute_meas':>12} {'ratio':>6} "
          f"{'total_pred':>10} {'total_meas':>10} {'ratio':>6} {'runs':>4}")
    for P, case, method, p, m, tp, tm, n in runs:
        print(f"{P:>2} {case:<22} {method:<22} {p:>12.3f} {m:>12.3f} {p / m:>6.2f} {tp:>10.3f} {tm:>10.3f} "
              f"{tp / tm:>6.2f} {n:>4}")
    print()

    def within(group, label):
        if not group:
            return
        compute = [r[3] / r[4] for r in group]
        whole = [r[5] / r[6] for r in group]
        ok_c = sum(abs(x - 1) <= 0.25 for x in compute)
        ok_w = sum(abs(x - 1) <= 0.25 for x in whole)
        print(f"{label}: {len(group)} plans; predicted / measured within ±25%: compute stage {ok_c}, whole "
              f"contraction {ok_w}; range {min(compute):.2f}-{max(compute):.2f} and {min(whole):.2f}-{max(whole):.2f}")

    for P in sorted({r[0] for r in runs}):
        within([r for r in runs if r[0] == P], f"P = {P}")
    within(runs, "all")
    for P, case in dict.fromkeys((r[0], r[1]) for r in runs):
        group = [r for r in runs if r[0] == P and r[1] == case]
        default = [r[6] for r in group if r[2] == "default"]
        forced = [r[6] for r in group if r[2] != "default"]
        if default and forced:
            same = [r[2] for r in group if r[2] != "default" and plan_of[(P, case, r[2])] == plan_of[(P, case, "default")]]
            print(f"P = {P} {case}: default / fastest forced (whole contraction, measured) "
                  f"{default[0] / min(forced):.2f}" + (f" (the default is {same[0]}'s plan)" if same else ""))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "times":
        times(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "summary":
        summary(sys.argv[2])
    else:
        sys.exit("usage: fidelity.py times TRACE.json | fidelity.py summary RUNS.tsv")


if __name__ == "__main__":
    main()
