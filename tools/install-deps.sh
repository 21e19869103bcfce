#!/usr/bin/env bash
# Installs everything tcec needs to build, test and run, from Debian 12 packages.
# Run as root; idempotent (apt-get skips what is already installed).
set -euo pipefail
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps.sh: run as root (apt-get needs it)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# Clang 14's libraries (libTooling for --from tamm, clang-format's library for generated code)
# are found with find_package(Clang), whose CMake package (ClangConfig.cmake) comes with clang-14;
# the clang-format program runs in the test tools.clang_format. libclang-rt-14-dev: clang's
# runtime libraries (libFuzzer, ASan, UBSan) for the fuzz targets (bench/fuzz.sh), only
# recommended by clang-14, so not installed with it here. llvm-14-tools: LLVM's FileCheck, which
# checks the golden dry-run reports (tests/tools/golden/*.check). nwchem: NWChem's own TCE CCSD,
# the peer bench/ccsd_bench.sh times tcec-ccsd against.
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
  g++ cmake make ccache git \
  antlr4 libantlr4-runtime-dev default-jre-headless \
  libfmt-dev libcli11-dev nlohmann-json3-dev libgtest-dev \
  libopenmpi-dev openmpi-bin libopenblas-dev libscalapack-openmpi-dev \
  llvm-14-dev llvm-14-tools libclang-14-dev libclang-cpp14-dev clang-14 libclang-rt-14-dev clang-format \
  libhdf5-openmpi-dev python3-numpy python3-h5py librsvg2-bin psi4 nwchem >/dev/null
echo "install-deps.sh: dependencies installed"
