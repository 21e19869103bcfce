#!/usr/bin/env bash
# e2e.package: `cmake --install` into a fresh prefix, then a user project outside the tree
# (tests/package) finds tcec, compiles its .tce and its TAMM function at build time, and the
# programs run and verify;
# and the installed tcec --build compiles against the installed runtime.
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
# under the prefix), not the build tree it came from: a compiler wrapper logs the command.
cat > "$work/cxx.sh" <<WRAPPER
#!/usr/bin/env bash
printf '%s\n' "\$@" > "$work/cxx.args"
exec mpicxx "\$@"
WRAPPER
chmod +x "$work/cxx.sh"
TCEC_CXX="$work/cxx.sh" "$work/prefix/bin/tcec" "$here/square.tce" --machine "$here/tiny.machine" -o "$work/direct" --build > /dev/null
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
