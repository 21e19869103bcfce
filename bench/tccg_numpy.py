#!/usr/bin/env python3
"""bench/tccg_numpy.py — the numpy baseline of tccg_bench: times np.einsum(spec, A, B, out=C,
optimize=True) per case and prints [{"name", "spec", "gflops", "time_s"}, ...] as JSON on stdout.

Usage: tccg_numpy.py [--reps N] CASE...   with CASE = "NAME;A,B->C;a:312,b:24,..."
(extents in elements). Random float64 data; one warm-up, then the best of N runs (default 3).
C is preallocated in C order and passed as out=, so numpy materialises the result in C's index
order, as tcert::contract() does. Run it with OPENBLAS_NUM_THREADS=1 and OMP_NUM_THREADS=1 for a
one-thread comparison (tccg_bench sets both).
"""
import json
import sys
import time

import numpy as np


def parse_case(text):
    name, spec, sizes = text.split(";")
    extents = {}
    for item in sizes.split(","):
        letter, value = item.split(":")
        extents[letter] = int(value)
    return name, spec, extents


def flops(spec, extents):
    letters = set(spec.replace(",", "").replace("->", ""))
    n = 2.0
    for letter in letters:
        n *= extents[letter]
    return n


def run_case(name, spec, extents, reps):
    inputs, result = spec.split("->")
    a, b = inputs.split(",")
    rng = np.random.default_rng(1)
    A = rng.random([extents[x] for x in a])
    B = rng.random([extents[x] for x in b])
    C = np.empty([extents[x] for x in result])
    best = float("inf")
    for i in range(reps + 1):
        start = time.perf_counter()
        np.einsum(spec, A, B, out=C, optimize=True)
        elapsed = time.perf_counter() - start
        if i > 0:  # run 0 is the warm-up
            best = min(best, elapsed)
    return {"name": name, "spec": spec, "gflops": flops(spec, extents) / best * 1e-9, "time_s": best}


def main(argv):
    reps = 3
    cases = []
    i = 0
    while i < len(argv):
        if argv[i] == "--reps":
            reps = max(1, int(argv[i + 1]))
            i += 2
            continue
        cases.append(parse_case(argv[i]))
        i += 1
    results = []
    for name, spec, extents in cases:
        results.append(run_case(name, spec, extents, reps))
        print(f"numpy {name} {spec}: {results[-1]['gflops']:.2f} GFLOP/s", file=sys.stderr, flush=True)
    json.dump(results, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
