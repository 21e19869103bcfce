#!/usr/bin/env python3
"""bench/write_inputs.py — input tensors as .npy files for a benchmark's runs.

    tcec FILE.tce ... --dry-run --json | /usr/bin/python3 bench/write_inputs.py DIR

Writes DIR/NAME.npy (float64, uniform in [-1, 1), seed 1) for every input tensor the dry-run's
JSON lists, so that a program run with --input-dir DIR reads its operands from files as a user's
would, instead of generating them element by element (--init random, whose cost the trace
would count as disk time). Needs numpy (Debian's python3-numpy: run with /usr/bin/python3).
"""
import json
import os
import sys

import numpy as np


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: write_inputs.py DIR < dry-run.json")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(1)
    for name, tensor in json.load(sys.stdin)["tensors"].items():
        if tensor["role"] == "input":
            np.save(os.path.join(out, name + ".npy"), rng.uniform(-1.0, 1.0, tensor["shape"]))


if __name__ == "__main__":
    main()
