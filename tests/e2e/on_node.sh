#!/usr/bin/env bash
# tests/e2e/on_node.sh — runs one MPI rank as if on its own node of a cluster, on one machine.
#
#   mpirun -np P bash on_node.sh NODES_DIR RANKS_PER_NODE LOCAL_DIR PROGRAM [ARGS...]
#
# Rank r (OMPI_COMM_WORLD_RANK) is on node n = r / RANKS_PER_NODE: it runs PROGRAM in a mount
# namespace of its own (unshare -m) in which LOCAL_DIR (an existing, empty directory) is
# NODES_DIR/node-n bind-mounted, with TMPDIR=LOCAL_DIR. So LOCAL_DIR is each node's node-local
# scratch disk, seen by that node's ranks only, and every other path is the shared file system.
# Open MPI's own session files stay in /tmp (OMPI_MCA_orte_tmpdir_base, set by the caller).
# Needs root (or unprivileged user namespaces): `on_node.sh --check` exits 0 where it can run,
# 77 (CTest's skip code in these tests) where it cannot.
set -euo pipefail
if [[ ${1:-} == --check ]]; then
  unshare -m --propagation private true 2> /dev/null || exit 77
  exit 0
fi
nodes=$1 per_node=$2 local_dir=$3
shift 3
rank=${OMPI_COMM_WORLD_RANK:?on_node.sh runs one rank under mpirun}
node_dir=$nodes/node-$((rank / per_node))
mkdir -p "$node_dir"
export TMPDIR=$local_dir
exec unshare -m --propagation private bash -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' on_node \
  "$node_dir" "$local_dir" "$@"
