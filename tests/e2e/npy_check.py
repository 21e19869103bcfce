"""tests/e2e/npy_check.py — numpy side of the end-to-end tests (run with /usr/bin/python3).

  npy_check.py inputs DIR SHAPES NAME...    writes random float64 DIR/NAME.npy (seed 5)
  npy_check.py check IN OUT EINSUM ALPHA C A B
        asserts OUT/C.npy == ALPHA * einsum(EINSUM, IN/A.npy, IN/B.npy) to 1e-10 (max-norm,
        relative to einsum of the absolute values) and prints the error.
"""
import json
import os
import sys

import numpy as np


def inputs(directory, shape_json, names):
    os.makedirs(directory, exist_ok=True)
    table = json.loads(shape_json)
    rng = np.random.default_rng(5)
    for name in names:
        np.save(os.path.join(directory, name + ".npy"), rng.uniform(-1, 1, table[name]))


def check(in_dir, out_dir, spec, alpha, c_name, a_name, b_name):
    a = np.load(os.path.join(in_dir, a_name + ".npy"))
    b = np.load(os.path.join(in_dir, b_name + ".npy"))
    got = np.load(os.path.join(out_dir, c_name + ".npy"))
    want = float(alpha) * np.einsum(spec, a, b)
    scale = abs(float(alpha)) * np.einsum(spec, np.abs(a), np.abs(b))
    assert got.shape == want.shape, (got.shape, want.shape)
    error = float(np.max(np.abs(got - want) / np.maximum(scale, 1e-300)))
    print(f"npy check: {c_name}{list(got.shape)} max relative error {error:.3g}")
    if not error <= 1e-10:
        sys.exit(f"npy check failed: error {error} > 1e-10")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "inputs":
        inputs(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif mode == "check":
        check(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], *sys.argv[6:9])
    else:
        sys.exit("usage: npy_check.py inputs|check ...")
