"""tests/e2e/orbital_check.py — two programs of the same spin-orbital equations on the same inputs
(run with /usr/bin/python3 and numpy), e.g. TAMM's ccsd_t2 (tcec --from tamm) against NWChem's
(tcec --from nwchem).

  orbital_check.py inputs O V DRYRUN.json DIR [DRYRUN.json DIR]...
        writes DIR/NAME.npy for every input of each program (tcec --dry-run --json): the block
        NAME_TYPES (h: the O occupied orbitals, p: the V virtual ones) of one tensor over all
        N = O + V orbitals with the symmetries of coupled-cluster theory, the same for both
        programs: f (TAMM's f1) symmetric; v (v2) antisymmetric within (0,1) and (2,3) and
        v[pqrs] = v[rspq]; t of rank 2 (t1) arbitrary; t of rank 4 (t2) antisymmetric within
        (0,1) and (2,3). Seed 7.
  orbital_check.py compare A_OUT B_OUT NAME=NAME... [--input IN NAME=NAME]...
        asserts A_OUT/X.npy == B_OUT/Y.npy for each X=Y (max |difference| over max |Y|, at most
        1e-12) and prints each error; after --input IN, X=Y compares A_OUT/X.npy with IN/Y.npy.
"""
import itertools
import json
import os
import sys

import numpy as np

# Tensor names of either importer -> (tensor, rank).
NAMES = {"f": "f", "f1": "f", "v": "v", "v2": "v", "t": "t", "t1": "t", "t2": "t"}


def parity(perm):
    inversions = sum(1 for i in range(len(perm)) for j in range(i + 1, len(perm)) if perm[i] > perm[j])
    return -1 if inversions % 2 else 1


def antisymmetrise(x):
    """Sums the signed permutations within the first and the second half of x's dimensions."""
    half = x.ndim // 2
    out = np.zeros_like(x)
    for upper in itertools.permutations(range(half)):
        for lower in itertools.permutations(range(half, x.ndim)):
            out += parity(upper) * parity(lower) * np.transpose(x, upper + lower)
    return out


def full_tensors(n):
    rng = np.random.default_rng(7)
    f = rng.uniform(-1, 1, (n, n))
    v = antisymmetrise(rng.uniform(-1, 1, (n, n, n, n)))
    return {
        ("f", 2): f + f.T,
        ("v", 4): v + np.transpose(v, (2, 3, 0, 1)),
        ("t", 2): rng.uniform(-1, 1, (n, n)),
        ("t", 4): antisymmetrise(rng.uniform(-1, 1, (n, n, n, n))),
    }


def block(full, types, o, n):
    ranges = [np.arange(0, o) if c == "h" else np.arange(o, n) for c in types]
    return full[np.ix_(*ranges)] if ranges else full


def inputs(o, v, pairs):
    full = full_tensors(o + v)
    for dry_run, directory in pairs:
        os.makedirs(directory, exist_ok=True)
        program = json.load(open(dry_run))
        for name, t in program["tensors"].items():
            if t["role"] != "input":
                continue
            base, _, types = name.rpartition("_")
            key = (NAMES[base], len(types))
            assert key in full and len(types) == len(t["shape"]), (name, t["shape"])
            np.save(os.path.join(directory, name + ".npy"), block(full[key], types, o, o + v))


def compare(a_out, b_out, args):
    failed = False
    directory = b_out
    args = list(args)
    while args:
        arg = args.pop(0)
        if arg == "--input":
            directory = args.pop(0)
            continue
        x, y = arg.split("=")
        got = np.load(os.path.join(a_out, x + ".npy"))
        want = np.load(os.path.join(directory, y + ".npy"))
        assert got.shape == want.shape, (x, got.shape, y, want.shape)
        scale = max(float(np.max(np.abs(want))) if want.size else 0.0, 1e-300)
        error = float(np.max(np.abs(got - want))) / scale if got.size else 0.0
        print(f"orbital check: {x}{list(got.shape)} against {os.path.basename(directory)}/{y}: "
              f"max |difference| {error:.3g} of max |{y}| {scale:.6g}")
        failed = failed or not error <= 1e-12
    if failed:
        sys.exit("orbital check failed: a difference above 1e-12")


if __name__ == "__main__":
    if sys.argv[1] == "inputs":
        rest = sys.argv[4:]
        inputs(int(sys.argv[2]), int(sys.argv[3]), list(zip(rest[0::2], rest[1::2])))
    elif sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        sys.exit("usage: orbital_check.py inputs|compare ...")
