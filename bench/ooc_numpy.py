#!/usr/bin/env python3
"""bench/ooc_numpy.py — the plain streaming numpy baseline of bench/ooc_regime.sh.

    ooc_numpy.py inputs DIR < dry-run.json        write the inputs as .npy, slab by slab
    ooc_numpy.py run KIND IN OUT [SLAB_MB]        stream one case's contraction (below)
    ooc_numpy.py check X.npy Y.npy                largest relative difference, slab by slab

`inputs` writes DIR/NAME.npy (float64, uniform in [-1, 1)) for every input tensor of
`tcec ... --dry-run --json`, in slabs of 64 MB, so that no tensor is ever whole in memory.

`run` is what a user with numpy and no library would write: every operand is read with plain
read(2)s (os.readv into numpy buffers) in slabs of SLAB_MB (default 64), multiplied with `@`, the
result written with plain write(2)s (os.write) and fsync'ed. KIND and the files it reads from IN
and writes to OUT (shapes from the .npy headers):
  four_index  T1[a,b,c,d] = A[a,b,c,p] * B[p,d]      A as (N^3 x N) @ B
  matmul      C[i,j] = A[i,k] * B[j,k]               A @ B.T
  doubles     r[a,b,i,j] = w[a,b,c,d] * t[c,d,i,j]   w as (V^2 x V^2) @ t as (V^2 x O^2)
  chain       X = A B, Y = X C, Z = Y D              three products (X and Y in OUT, removed)
A right operand of at most 2 slabs stays in memory; a larger one is streamed in slabs for every
slab of the left one. On exit it writes OUT/numpy.json: {"seconds", "read_bytes",
"write_bytes"} (the device bytes of /proc/self/io over the run; null where unreadable).
Needs numpy (Debian's python3-numpy: run with /usr/bin/python3).
"""
import io
import json
import os
import sys
import time

import numpy as np

MB = 1 << 20


def header(path):
    """(shape, data offset in bytes) of a float64 C-order .npy file."""
    with open(path, "rb") as f:
        version = np.lib.format.read_magic(f)
        read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, fortran, dtype = read(f)
        if fortran or dtype != np.float64:
            sys.exit(f"{path}: expected a C-order float64 array")
        return shape, f.tell()


def read_rows(fd, offset, row_bytes, r0, out):
    """Reads rows r0.. of a row-major matrix into `out` (rows x cols) with plain read(2)s."""
    view = memoryview(out).cast("B")
    at, done = offset + r0 * row_bytes, 0
    while done < len(view):
        n = os.preadv(fd, [view[done:]], at + done)
        if n <= 0:
            sys.exit("short read")
        done += n


class Writer:
    """A .npy file of `shape`, written front to back with plain write(2)s, fsync'ed at close."""

    def __init__(self, path, shape):
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        buf = io.BytesIO()
        np.lib.format.write_array_header_1_0(buf, {"descr": "<f8", "fortran_order": False, "shape": tuple(shape)})
        self._write(buf.getvalue())

    def _write(self, data):
        view = memoryview(data).cast("B")
        while len(view):
            view = view[os.write(self.fd, view):]

    def rows(self, block):
        self._write(np.ascontiguousarray(block))

    def close(self):
        os.fsync(self.fd)
        os.close(self.fd)


def stream_product(a, b, c_path, c_shape, m, k, n, trans_b, slab_bytes):
    """a, b: (fd, offset) of row-major A (m x k) and B (k x n, or n x k when trans_b).
    Writes C (m x n, stored with c_shape) to c_path."""
    rows_a = max(1, min(m, slab_bytes // (8 * max(k, n))))
    b_rows = n if trans_b else k
    b_cols = k if trans_b else n
    whole_b = 8 * b_rows * b_cols <= 2 * slab_bytes
    if whole_b:
        B = np.empty((b_rows, b_cols))
        read_rows(b[0], b[1], 8 * b_cols, 0, B)
    rows_b = max(1, min(b_rows, slab_bytes // (8 * b_cols)))
    out = Writer(c_path, c_shape)
    A = np.empty((rows_a, k))
    C = np.empty((rows_a, n))
    for r0 in range(0, m, rows_a):
        r = min(rows_a, m - r0)
        read_rows(a[0], a[1], 8 * k, r0, A[:r])
        if whole_b:
            np.matmul(A[:r], B.T if trans_b else B, out=C[:r])
        else:
            C[:r] = 0
            slab = np.empty((rows_b, b_cols))
            for s0 in range(0, b_rows, rows_b):
                s = min(rows_b, b_rows - s0)
                read_rows(b[0], b[1], 8 * b_cols, s0, slab[:s])
                if trans_b:
                    C[:r, s0:s0 + s] = A[:r] @ slab[:s].T
                else:
                    C[:r] += A[:r, s0:s0 + s] @ slab[:s]
        out.rows(C[:r])
    out.close()


def run(kind, in_dir, out_dir, slab_bytes):
    os.makedirs(out_dir, exist_ok=True)
    fds = []

    def open_npy(directory, name):
        path = os.path.join(directory, name + ".npy")
        shape, offset = header(path)
        fds.append(os.open(path, os.O_RDONLY))
        return (fds[-1], offset), shape

    def step(left_dir, left, right, result, trans_b, matrix, result_shape):
        """result = left @ right (right.T when trans_b); matrix(ash) is left's (rows, cols)."""
        a, ash = open_npy(left_dir, left)
        b, bsh = open_npy(in_dir, right)
        m, k = matrix(ash)
        n = int(np.prod(bsh)) // k
        stream_product(a, b, os.path.join(out_dir, result + ".npy"), result_shape(ash, bsh), m, k, n, trans_b,
                       slab_bytes)

    if kind == "four_index":  # T1[a,b,c,d] = A[a,b,c,p] B[p,d]
        step(in_dir, "A", "B", "T1", False, lambda s: (int(np.prod(s[:3])), s[3]), lambda a, b: a[:3] + (b[1],))
    elif kind == "matmul":  # C[i,j] = A[i,k] B[j,k]
        step(in_dir, "A", "B", "C", True, lambda s: s, lambda a, b: (a[0], b[0]))
    elif kind == "doubles":  # r[a,b,i,j] = w[a,b,c,d] t[c,d,i,j]
        step(in_dir, "w", "t", "r", False, lambda s: (s[0] * s[1], s[2] * s[3]), lambda a, b: a[:2] + b[2:])
    elif kind == "chain":  # X = A B, Y = X C, Z = Y D
        for left_dir, left, right, result in ((in_dir, "A", "B", "X"), (out_dir, "X", "C", "Y"),
                                              (out_dir, "Y", "D", "Z")):
            step(left_dir, left, right, result, False, lambda s: s, lambda a, b: (a[0], b[1]))
            if left_dir == out_dir:
                os.remove(os.path.join(out_dir, left + ".npy"))  # an intermediate, read once
    else:
        sys.exit(f"unknown kind {kind}")
    for fd in fds:
        os.close(fd)


def device_bytes():
    try:
        with open("/proc/self/io") as f:
            d = dict(line.split(": ") for line in f.read().splitlines())
        return int(d["read_bytes"]), int(d["write_bytes"])
    except (OSError, KeyError, ValueError):
        return None


def write_inputs(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(1)
    for name, tensor in json.load(sys.stdin)["tensors"].items():
        if tensor["role"] != "input":
            continue
        shape = tuple(tensor["shape"])
        w = Writer(os.path.join(out, name + ".npy"), shape)
        total = int(np.prod(shape))
        step = 64 * MB // 8  # elements per slab
        for at in range(0, total, step):
            w.rows(rng.uniform(-1.0, 1.0, min(step, total - at)))
        w.close()


def check(x_path, y_path):
    (xs, xo), (ys, yo) = header(x_path), header(y_path)
    if xs != ys:
        sys.exit(f"shapes differ: {xs} and {ys}")
    total, step, worst, scale = int(np.prod(xs)), 8 * MB, 0.0, 0.0
    fx, fy = os.open(x_path, os.O_RDONLY), os.open(y_path, os.O_RDONLY)
    for at in range(0, total, step):
        n = min(step, total - at)
        x, y = np.empty(n), np.empty(n)
        read_rows(fx, xo + 8 * at, 0, 0, x)
        read_rows(fy, yo + 8 * at, 0, 0, y)
        worst, scale = max(worst, float(np.max(np.abs(x - y)))), max(scale, float(np.max(np.abs(y))))
    print(f"{worst / scale if scale else worst:.3g}")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "inputs":
        return write_inputs(sys.argv[2])
    if len(sys.argv) == 4 and sys.argv[1] == "check":
        return check(sys.argv[2], sys.argv[3])
    if len(sys.argv) in (5, 6) and sys.argv[1] == "run":
        slab = int(sys.argv[5]) * MB if len(sys.argv) == 6 else 64 * MB
        before, start = device_bytes(), time.monotonic()
        run(sys.argv[2], sys.argv[3], sys.argv[4], slab)
        seconds, after = time.monotonic() - start, device_bytes()
        moved = [b - a for a, b in zip(before, after)] if before and after else [None, None]
        with open(os.path.join(sys.argv[4], "numpy.json"), "w") as f:
            json.dump({"seconds": seconds, "read_bytes": moved[0], "write_bytes": moved[1]}, f)
        return None
    sys.exit(__doc__)


if __name__ == "__main__":
    main()
