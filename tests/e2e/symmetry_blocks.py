#!/usr/bin/env python3
"""tests/e2e/symmetry_blocks.py DRYRUN.json — an independent count of a symmetry-blocked
program's stored elements and flops, as NWChem's TCE loops over its tile blocks
(src/tce/tce_tile.F, the generated ccsd_t2_*.F), held against the dry-run's (`tcec --dry-run
--json`, contractions[].symmetry). One tile per orbital group: a range's spin orbitals are its
alpha orbitals by irrep, then its beta ones; a tile block conserves spin between the tensor's upper
and lower halves, its tiles' irreps XOR to the tensor's irrep, and an antisymmetric run (two or
more consecutive dims over one range within a half) is looped in one order (tile numbers
non-decreasing), a diagonal block whole; in restricted mode no all-beta block of a tensor is stored
or computed. Summed indices that lie in one run of A and one run of B are looped in one order too.
Exit 0 when every count equals the dry-run's, 1 (with the differences) otherwise."""
import itertools
import json
import re
import sys


def tiles_of(irreps):
    """(spin, irrep, size) of each non-empty group: alpha by irrep, then beta."""
    return [(spin, g, n) for spin in (+1, -1) for g, n in enumerate(irreps) if n > 0]


def runs_of(ranges, upper):
    """Dim positions of each antisymmetric run: consecutive dims of one range within a half."""
    out = []
    for first, last in ((0, upper), (upper, len(ranges))):
        d = first
        while d < last:
            e = d + 1
            while e < last and ranges[e] == ranges[d]:
                e += 1
            if e - d >= 2:
                out.append(list(range(d, e)))
            d = e
    return out


def parse(statement):
    """'r[p1,p2] += 1/2 * t[p3,p1] * v[p3,p2];' -> [(name, [indices])] for C, A, B."""
    refs = re.findall(r"(\w+)\[([^\]]*)\]", statement)
    return [(name, [i.strip() for i in idx.split(",") if i.strip()]) for name, idx in refs]


class Tensor:
    def __init__(self, name, indices, decl):
        self.name, self.indices = name, indices
        self.upper, self.irrep = decl["upper"], decl["irrep"]
        # The TCE's rule, or the runs an importer gave (an NWChem P( n ) product's: not the permuted ones).
        runs = decl["antisymmetric"] if "antisymmetric" in decl else runs_of(decl["ranges"], self.upper)
        self.runs = [[indices[d] for d in run] for run in runs]

    def conserves(self, tile):
        spin = sum(tile[i][0] * (1 if d < self.upper else -1) for d, i in enumerate(self.indices))
        irrep = 0
        for i in self.indices:
            irrep ^= tile[i][1]
        return spin == 0 and irrep == self.irrep

    def all_beta(self, tile):
        return len(self.indices) > 0 and all(tile[i][0] < 0 for i in self.indices)


def in_order(runs, number):
    return all(number[run[q - 1]] <= number[run[q]] for run in runs for q in range(1, len(run)))


def stored(t, tiles, restricted):
    n = 0
    for choice in itertools.product(*(range(len(tiles[i])) for i in t.indices)):
        number = dict(zip(t.indices, choice))
        tile = {i: tiles[i][number[i]] for i in t.indices}
        if not in_order(t.runs, number) or not t.conserves(tile) or (restricted and t.all_beta(tile)):
            continue
        size = 1
        for i in t.indices:
            size *= tile[i][2]
        n += size
    return n


def flops(C, A, B, tiles, restricted):
    summed = [i for i in A.indices if i not in C.indices]
    summed_runs = []
    for run in A.runs:
        s = [i for i in run if i in summed]
        if len(s) >= 2 and any(all(i in other for i in s) for other in B.runs):
            summed_runs.append(s)
    total = 0
    for c_choice in itertools.product(*(range(len(tiles[i])) for i in C.indices)):  # C's stored blocks
        number = dict(zip(C.indices, c_choice))
        tile = {i: tiles[i][number[i]] for i in C.indices}
        if not in_order(C.runs, number) or not C.conserves(tile) or (restricted and C.all_beta(tile)):
            continue
        for s_choice in itertools.product(*(range(len(tiles[i])) for i in summed)):  # the sum
            number.update(zip(summed, s_choice))
            tile.update({i: tiles[i][number[i]] for i in summed})
            if not in_order(summed_runs, number) or not A.conserves(tile) or not B.conserves(tile):
                continue
            size = 2
            for i in set(C.indices) | set(summed):
                size *= tile[i][2]
            total += size
    return total


def main():
    report = json.load(open(sys.argv[1]))
    sym = report["symmetry"]
    restricted = sym["restricted"]
    failures, checked = [], 0
    for c in report["contractions"]:
        (cn, ci), (an, ai), (bn, bi) = parse(c["statement"])
        decls = {n: report["tensors"][n]["symmetry"] for n in (cn, an, bn)}
        if any(d["dense"] for d in decls.values()):
            if c["symmetry"] is not None:
                failures.append(f"line {c['line']}: a dense tensor, yet symmetry counts")
            continue
        C, A, B = Tensor(cn, ci, decls[cn]), Tensor(an, ai, decls[an]), Tensor(bn, bi, decls[bn])
        tiles = {}
        for t in (C, A, B):
            for d, i in enumerate(t.indices):
                tiles[i] = tiles_of(sym["irreps"][decls[t.name]["ranges"][d]])
        want = {"A": stored(A, tiles, restricted), "B": stored(B, tiles, restricted), "C": stored(C, tiles, restricted)}
        got = c["symmetry"]
        if got["stored_elements"] != want:
            failures.append(f"line {c['line']}: stored {got['stored_elements']}, the TCE's loops {want}")
        f = flops(C, A, B, tiles, restricted)
        if got["flops"] != f:
            failures.append(f"line {c['line']}: flops {got['flops']}, the TCE's loops {f}")
        checked += 1
        fewer = f"{c['flops'] / f:.0f}x fewer than dense" if f > 0 else "no non-zero block"
        print(f"line {c['line']}: stored A {want['A']}, B {want['B']}, C {want['C']} elements; flops {f} ({fewer})")
    for line in failures:
        print(line, file=sys.stderr)
    if failures or checked == 0:
        sys.exit(1)
    print(f"symmetry blocks: {checked} contractions, every count equals the TCE's loops")


main()
