"""tests/e2e/npy_check.py — numpy side of the end-to-end tests (run with /usr/bin/python3).

  npy_check.py inputs DIR SHAPES NAME...    writes random float64 DIR/NAME.npy (seed 5)
  npy_check.py check IN OUT EINSUM ALPHA C A B
        asserts OUT/C.npy == ALPHA * einsum(EINSUM, IN/A.npy, IN/B.npy) to 1e-10 (max-norm,
        relative to einsum of the absolute values) and prints the error.
  npy_check.py program-inputs DRYRUN.json DIR
        writes random DIR/NAME.npy for every input tensor of the program (tcec --dry-run --json)
  npy_check.py program-check DRYRUN.json IN OUT
        evaluates the program's statements in order with numpy.einsum (intermediates and
        outputs start at zero) and asserts every output OUT/NAME.npy equals it to 1e-10
        (max-norm, relative to the same program evaluated on absolute values).
"""
import re
from fractions import Fraction
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


STATEMENT = re.compile(r"^(\w+)\[([\w,]*)\] (=|\+=|-=) (?:([-\d./]+) \* )?(\w+)\[([\w,]*)\](?: \* (\w+)\[([\w,]*)\])?$")


def evaluate(program, values, absolute):
    """Runs the program's statements on `values` (name -> array, updated in place)."""
    letters = {}
    def subscript(indices):
        return "".join(letters.setdefault(i, chr(ord("a") + len(letters))) for i in indices.split(",") if i)
    for name, t in program["tensors"].items():
        if t["role"] != "input":
            values[name] = np.zeros(t["shape"])
    for text in program["statements"]:
        m = STATEMENT.match(text)
        assert m, "cannot parse statement: " + text
        out, out_idx, op, coef, a, a_idx, b, b_idx = m.groups()
        factor = float(Fraction(coef)) if coef else 1.0
        operands = [values[a]] + ([values[b]] if b else [])
        spec = subscript(a_idx) + ("," + subscript(b_idx) if b else "") + "->" + subscript(out_idx)
        if absolute:
            operands = [np.abs(x) for x in operands]
            factor = abs(factor)
        term = factor * np.einsum(spec, *operands)
        if op == "=":
            values[out] = term
        elif op == "+=" or absolute:
            values[out] = values[out] + term
        else:
            values[out] = values[out] - term


def program_inputs(dry_run, directory):
    program = json.load(open(dry_run))
    os.makedirs(directory, exist_ok=True)
    rng = np.random.default_rng(5)
    for name, t in program["tensors"].items():
        if t["role"] == "input":
            np.save(os.path.join(directory, name + ".npy"), rng.uniform(-1, 1, t["shape"]))


def program_check(dry_run, in_dir, out_dir):
    program = json.load(open(dry_run))
    exact, scale = {}, {}
    for name, t in program["tensors"].items():
        if t["role"] == "input":
            exact[name] = np.load(os.path.join(in_dir, name + ".npy"))
            scale[name] = exact[name]
    evaluate(program, exact, False)
    evaluate(program, scale, True)
    for name, t in program["tensors"].items():
        if t["role"] != "output":
            continue
        got = np.load(os.path.join(out_dir, name + ".npy"))
        assert got.shape == exact[name].shape, (name, got.shape, exact[name].shape)
        error = float(np.max(np.abs(got - exact[name]) / np.maximum(scale[name], 1e-300))) if got.size else 0.0
        print(f"program check: {name}{list(got.shape)} max relative error {error:.3g}")
        if not error <= 1e-10:
            sys.exit(f"program check failed for {name}: error {error} > 1e-10")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "inputs":
        inputs(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif mode == "program-inputs":
        program_inputs(sys.argv[2], sys.argv[3])
    elif mode == "program-check":
        program_check(sys.argv[2], sys.argv[3], sys.argv[4])
    elif mode == "check":
        check(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], *sys.argv[6:9])
    else:
        sys.exit("usage: npy_check.py inputs|check|program-inputs|program-check ...")
