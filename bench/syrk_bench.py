#!/usr/bin/env python3
"""bench/syrk_bench.py — one row of bench/syrk_bench.sh: a symmetric contraction planned with
tbs (the default) and with --no-symmetry, from two `tcec --dry-run --json` reports.

  syrk_bench.py NAME TBS.json GENERAL.json DEFAULT.json [TRACE_TBS.json TRACE_GENERAL.json]

Per rank, the fullest: disk reads + received bytes, compute stage and redistribution. Prints
  NAME  P  tbs_bytes  general_method  general_bytes  tbs/general  syrk_bound  tbs/bound  default_method
and, with traces of runs of the two programs, the measured ratio.
"""
import json
import sys


def fullest(plan):
    """Max over ranks of disk reads + received bytes (compute stage and stages 1 and 3)."""
    redistribution = plan.get("redistribution") or {}
    reads = redistribution.get("disk_read_bytes") or [0] * len(plan["disk_read_bytes"])
    received = redistribution.get("comm_recv_bytes") or [0] * len(plan["disk_read_bytes"])
    return max(a + b + c + d for a, b, c, d in
               zip(plan["disk_read_bytes"], plan["comm_recv_bytes"], reads, received))


def measured(trace):
    """Max over ranks of measured disk reads + received bytes of the trace's contraction."""
    c = json.load(open(trace))["contractions"][0]
    m = c["measured"]
    red = c.get("redistribution", {}).get("measured", {})
    ranks = len(m["disk_read_bytes"])
    extra = [red.get("disk_read_bytes", [0] * ranks)[q] for q in range(ranks)]
    return max(m["disk_read_bytes"][q] + m["comm_recv_bytes"][q] + extra[q] for q in range(ranks))


def main():
    name, tbs_path, general_path, default_path = sys.argv[1:5]
    tbs = json.load(open(tbs_path))["contractions"][0]
    general = json.load(open(general_path))["contractions"][0]
    P = json.load(open(tbs_path))["machine"]["processors"]
    t, g = fullest(tbs["plan"]), fullest(general["plan"])
    bound = tbs["plan"].get("syrk_lower_bound_bytes", 0.0)
    chosen = json.load(open(default_path))["contractions"][0]["plan"]["algorithm"]
    row = (f"{name:<24} {P:>2} {t / 1e6:>10.1f} {general['plan']['algorithm']:<13} {g / 1e6:>10.1f} "
           f"{t / g:>8.3f} {bound / 1e6:>10.1f} {t / bound:>8.3f}  {chosen}")
    if len(sys.argv) > 6:
        mt, mg = measured(sys.argv[5]), measured(sys.argv[6])
        row += f"   measured {mt / 1e6:.3f} / {mg / 1e6:.3f} MB = {mt / mg:.3f}"
    print(row)


if __name__ == "__main__":
    main()
