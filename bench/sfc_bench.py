#!/usr/bin/env python3
"""bench/sfc_bench.py — one row of bench/sfc_bench.sh: data moved per rank (the fullest rank's disk
reads + received + disk writes, compute stage and stages 1 and 3) over the I/O lower bound the
report prints (`plan.io_bound`), for sfc, cosma and the best of Gao et al.'s six methods.

  sfc_bench.py NAME P SFC.json COSMA.json GAO.json...

Each JSON is `tcec --dry-run --json` with that method forced; an infeasible plan prints "-".
Prints: NAME P sfc cosma gao(best by time, its name) and which of the three moves least.
"""
import json
import sys


def plan_of(path):
    """The first contraction's plan of a dry-run (None when infeasible)."""
    return json.load(open(path))["contractions"][0].get("plan")


def ratio(plan):
    return plan["io_bound"]["bytes_ratio"] if plan else None


def text(value):
    return f"{value:8.3f}" if value is not None else "       -"


def main():
    name, P, sfc_path, cosma_path = sys.argv[1:5]
    sfc, cosma = plan_of(sfc_path), plan_of(cosma_path)
    gao = [plan_of(p) for p in sys.argv[5:]]
    gao = [p for p in gao if p]
    best_gao = min(gao, key=lambda p: p["total_time_s"]) if gao else None
    rows = {"sfc": ratio(sfc), "cosma": ratio(cosma), "gao": ratio(best_gao)}
    least = min((v, k) for k, v in rows.items() if v is not None)[1]
    gao_name = best_gao["algorithm"] + "/" + best_gao["comm"] if best_gao else "-"
    print(f"{name:<22} {P:>3} {text(rows['sfc'])} {text(rows['cosma'])} {text(rows['gao'])}  {gao_name:<24} {least}")


if __name__ == "__main__":
    main()
