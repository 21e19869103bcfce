"""tests/e2e/h5_check.py — h5py side of the HDF5 end-to-end test (run with /usr/bin/python3).

  h5_check.py program-inputs DRYRUN.json FILE.h5 [SKIP]
        writes a random float64 dataset NAME (seed 5, C order, the tensor's shape) into FILE.h5
        for every input tensor of the program (tcec --dry-run --json), except the one named SKIP
  h5_check.py program-check DRYRUN.json IN.h5 OUT.h5
        evaluates the program's statements with numpy.einsum (npy_check.evaluate) on IN.h5's
        datasets and asserts that OUT.h5 holds exactly one float64 dataset per output, of its
        shape, equal to it to 1e-10 (max-norm, relative to the program on absolute values)
"""
import json
import sys

import h5py
import numpy as np

from npy_check import evaluate


def program_inputs(dry_run, path, skip):
    program = json.load(open(dry_run))
    rng = np.random.default_rng(5)
    with h5py.File(path, "w") as f:
        for name, t in program["tensors"].items():
            if t["role"] == "input" and name != skip:
                f.create_dataset(name, data=rng.uniform(-1, 1, t["shape"]))


def program_check(dry_run, in_path, out_path):
    program = json.load(open(dry_run))
    exact, scale = {}, {}
    with h5py.File(in_path, "r") as f:
        for name, t in program["tensors"].items():
            if t["role"] == "input":
                exact[name] = f[name][()]
                scale[name] = exact[name]
    evaluate(program, exact, False)
    evaluate(program, scale, True)
    outputs = sorted(name for name, t in program["tensors"].items() if t["role"] == "output")
    with h5py.File(out_path, "r") as f:
        assert sorted(f.keys()) == outputs, (sorted(f.keys()), outputs)
        for name in outputs:
            dataset = f[name]
            assert dataset.dtype == np.float64, (name, dataset.dtype)
            got = dataset[()]
            assert got.shape == exact[name].shape, (name, got.shape, exact[name].shape)
            error = float(np.max(np.abs(got - exact[name]) / np.maximum(scale[name], 1e-300)))
            print(f"h5 check: {name}{list(got.shape)} max relative error {error:.3g}")
            if not error <= 1e-10:
                sys.exit(f"h5 check failed for {name}: error {error} > 1e-10")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "program-inputs":
        program_inputs(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
    elif mode == "program-check":
        program_check(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit("usage: h5_check.py program-inputs|program-check ...")
