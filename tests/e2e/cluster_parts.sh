#!/usr/bin/env bash
# tests/e2e/cluster_parts.sh — the library form on 2 emulated nodes of 2 ranks each (on_node.sh),
# its inputs and outputs as each rank's part in memory (TensorLocations::input_parts,
# output_parts) and its scratch node-local ($TMPDIR): runtime.mpi.generated's
# Generated.PartsInMemoryAreReadAndWrittenRankByRank passes there with no shared path, and no
# node's scratch holds a file afterwards.
#
#   cluster_parts.sh GENERATED_MPI_TEST WORKDIR
#
# Exit 77 (skipped) where mount namespaces cannot be made (unshare -m needs root).
set -euo pipefail
test_binary=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
if ! bash "$here/on_node.sh" --check; then
  echo "cluster_parts.sh: cannot make mount namespaces here (unshare -m needs root); skipped"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work/local" "$work/nodes"
export OMPI_MCA_orte_tmpdir_base=/tmp  # Open MPI's session files on the shared /tmp
mpirun --oversubscribe -np 4 bash "$here/on_node.sh" "$work/nodes" 2 "$work/local" "$test_binary" \
  --gtest_filter=Generated.PartsInMemoryAreReadAndWrittenRankByRank
left=$(find "$work/nodes" -mindepth 2 | head -5)
[[ -z $left ]] || { echo "cluster_parts.sh: files left in the nodes' scratch: $left" >&2; exit 1; }
echo "cluster_parts.sh: passed"
