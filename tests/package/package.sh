#!/usr/bin/env bash
# e2e.package: `cmake --install` into a fresh prefix, then a user project outside the tree
# (tests/package) finds tcec, compiles its .tce and its TAMM function at build time, and the
# programs run and verify; the installed tcec --build compiles against the installed runtime and
# reads TAMM programs with the installed stub header; and the user's own MPI program calls the
# library form of the same .tce (tcec_add_library) repeatedly.
#   package.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$here" -B "$work/user" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release > "$work/configure.log"
cmake --build "$work/user" > "$work/build.log"
mpirun --oversubscribe -np 2 "$work/user/square" --verify --quiet --trace "$work/trace.json" --scratch "$work/scratch"
"$work/prefix/bin/tcec" compare "$work/trace.json" | tail -1
# The TAMM function, compiled by tcec_add_program(... FROM tamm FUNCTION energy) with the installed
# stub header, runs out of core and verifies.
mpirun --oversubscribe -np 2 "$work/user/energy" --verify --quiet --trace "$work/energy.json" --scratch "$work/scratch3"
"$work/prefix/bin/tcec" compare "$work/energy.json" | tail -1
# The installed tcec builds programs against the installed runtime (its headers and libtcert
# under the prefix), not the build tree it came from: a compiler wrapper logs the command (one call:
# no compiler launcher, which would compile and link apart and rewrite paths).
cat > "$work/cxx.sh" <<WRAPPER
#!/usr/bin/env bash
printf '%s\n' "\$@" > "$work/cxx.args"
exec mpicxx "\$@"
WRAPPER
chmod +x "$work/cxx.sh"
TCEC_CXX_LAUNCHER= TCEC_CXX="$work/cxx.sh" "$work/prefix/bin/tcec" "$here/square.tce" --machine "$here/tiny.machine" -o "$work/direct" --build > /dev/null
grep -qx -- "-I$work/prefix/include/tcec" "$work/cxx.args" || { echo "package.sh: not the installed headers:"; cat "$work/cxx.args"; exit 1; }
grep -q "^$work/prefix/lib.*/libtcert.a\$" "$work/cxx.args" || { echo "package.sh: not the installed libtcert:"; cat "$work/cxx.args"; exit 1; }
mpirun --oversubscribe -np 2 "$work/direct/square" --verify --quiet --trace "$work/direct.json" --scratch "$work/scratch2"
"$work/prefix/bin/tcec" compare "$work/direct.json" | tail -1
# The installed tcec reads TAMM programs with the installed stub header (PREFIX/include/tcec/tamm),
# not the source tree's: a constant only the installed copy declares resolves.
echo 'namespace tamm { inline constexpr double kInstalledStub = 0.5; }' >> "$work/prefix/include/tcec/tamm/tamm_stub.h"
cat > "$work/stub_check.cpp" <<'TAMM'
#include "tamm/tamm.hpp"
using namespace tamm;
template <typename T>
void energy(Scheduler& sch, const TiledIndexSpace& MO, Tensor<T>& e, const Tensor<T>& t, const Tensor<T>& v) {
  TiledIndexLabel i = MO.label("occ"), a = MO.label("virt");
  sch(e() = kInstalledStub * t(a, i) * v(i, a));
}
TAMM
"$work/prefix/bin/tcec" "$work/stub_check.cpp" --from tamm -D O=3 -D V=5 --dry-run | grep -F 'e() = kInstalledStub * t(a, i) * v(i, a)'
# The library form (tcec_add_library) in the user's own MPI program (driver.cpp): four calls on a
# communicator of two of the three ranks, HDF5 and .npy inputs and outputs, a missing input
# that returns an error Status without aborting, a call after it, and a call on the whole
# world that fails on every rank. The results against numpy.
lib=$work/lib
/usr/bin/python3 - "$lib" << 'PY'
import os, sys
import h5py
import numpy as np
lib = sys.argv[1]
os.makedirs(lib + "/in2", exist_ok=True)
rng = np.random.default_rng(23)
with h5py.File(lib + "/in1.h5", "w") as f:
    f["A"] = rng.uniform(-1, 1, (48, 48))
    f["B"] = rng.uniform(-1, 1, (48, 48))
np.save(lib + "/in2/A.npy", rng.uniform(-1, 1, (48, 48)))
np.save(lib + "/in2/B.npy", rng.uniform(-1, 1, (48, 48)))
PY
mpirun --oversubscribe -np 3 "$work/user/driver" "$lib/in1.h5" "$lib/in2" "$lib/out"
/usr/bin/python3 - "$lib" << 'PY'
import os, sys
import h5py
import numpy as np
lib = sys.argv[1]
def check(name, got, a, b):
    want, scale = a @ b.T, np.abs(a) @ np.abs(b).T
    error = float(np.max(np.abs(got - want) / scale))
    assert error <= 1e-10, (name, error)
    print(f"{name}: C = A·Bᵀ, max relative error {error:.3g}")
with h5py.File(lib + "/in1.h5", "r") as f:
    a1, b1 = f["A"][()], f["B"][()]
with h5py.File(lib + "/out/c1.h5", "r") as f:
    assert list(f.keys()) == ["C"] and f["C"].dtype == np.float64, list(f.keys())
    c1 = f["C"][()]
check("call 1", c1, a1, b1)
check("call 2", np.load(lib + "/out/c2.npy"), np.load(lib + "/in2/A.npy"), np.load(lib + "/in2/B.npy"))
check("call 4", np.load(lib + "/out/c4.npy"), a1, b1)
assert np.array_equal(np.load(lib + "/out/c4.npy"), c1), "call 4 differs from call 1"
left = sorted(set(os.listdir(lib + "/out")) - {"c1.h5", "c2.npy", "c4.npy", "scratch"})
assert not left, f"left behind: {left}"
assert not os.listdir(lib + "/out/scratch"), os.listdir(lib + "/out/scratch")
print("library calls: results equal numpy's, nothing left behind")
PY
