#!/usr/bin/env bash
# tests/e2e/cluster.sh — a generated program on 2 emulated nodes of 2 ranks each (on_node.sh:
# each node's node-local scratch is a directory only its ranks see), docs/cluster.md.
#
#   cluster.sh TCEC WORKDIR
#
# The 4-index step (N = 12, 4 ranks of 16 KB, out of core, numpy inputs) must
#  - run with a shared --scratch; with node-local scratch (the default, $TMPDIR: the result, an
#    output larger than the memory per rank, goes straight into the shared output directory and
#    no store is made); and with node-local scratch when the store is on a shared --checkpoint
#    directory; and so with node-local scratch for a sample of the Gao methods and orders, sfc and
#    (on a symmetric product) tbs, each forced: values against numpy.einsum, measured = predicted
#    bytes, and nothing left in any node's scratch afterwards;
#  - on machines of 2 nodes (tiny_cluster, small4_cluster), hold the bytes that crossed nodes, per
#    contraction and over the whole run, against the dry-run's prediction (crossing.py), for a
#    chain, a sample of the Gao methods, cosma, sfc, resident accumulation and NWChem's CCSD T2;
#  - run programs of several steps (a chain kept on the ranks on tiny_cluster.machine, outputs
#    several statements add to, a small output, an HDF5 output) against numpy, and a chain through
#    the store on a shared --checkpoint killed on node 1 and resumed, byte for byte;
#  - run NWChem's CCSD T2 equations (30 contractions, 34 copy steps) on tiny_cluster.machine,
#    with the hand-off and with --no-handoff: the intermediates that copy steps write go through
#    the store, one directory per node, each version completed on every node over MPI; values
#    against numpy, measured = predicted bytes;
#  - calibrate on the nodes (tcec-calibrate finds them by their scratch: ranks_per_node, and the
#    network between nodes), and plan with the block it writes;
#  - warn where a program planned for one node runs on node-local scratch on several nodes;
#  - refuse with an error naming the first rank that cannot see it, its host and the path,
#    before any work: an output directory, a checkpoint directory and an input file that only
#    node 0 has. No output is written.
# Exit 77 (skipped) where mount namespaces cannot be made (unshare -m needs root).
set -euo pipefail
tcec=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if ! bash "$here/on_node.sh" --check; then
  echo "cluster.sh: cannot make mount namespaces here (unshare -m needs root); skipped"
  exit 77
fi
fail() {
  echo "cluster.sh: $*" >&2
  exit 1
}
rm -rf "$work"
mkdir -p "$work/local" "$work/in" "$work/nodes/node-0/in"
(cd "$root" && "$tcec" examples/four_index.tce -D N=12 --machine "$here/tiny.machine" -o "$work/prog" --build) > /dev/null
/usr/bin/python3 "$here/npy_check.py" inputs "$work/in" '{"A": [12, 12, 12, 12], "B": [12, 12]}' A B > /dev/null
cp "$work/in/"*.npy "$work/nodes/node-0/in/"
export OMPI_MCA_orte_tmpdir_base=/tmp  # Open MPI's session files on the shared /tmp, not in a node's scratch
# on_nodes [program options...]: the program on 2 nodes of 2 ranks; $work/local is each node's scratch
program=$work/prog/four_index
check=("$work/in" "abcp,pd->abcd" 1 T1 A B)  # what npy_check.py compares an output with
on_nodes() {
  mpirun --oversubscribe -np 4 bash "$here/on_node.sh" "$work/nodes" 2 "$work/local" "$program" --quiet "$@"
}
# nodes_clean WHAT: every node's scratch is empty (the ranks removed their files)
nodes_clean() {
  local left
  left=$(find "$work/nodes" -mindepth 2 -not -path "$work/nodes/node-0/in*" | head -5)
  [[ -z $left ]] || fail "$1 left files in the nodes' scratch: $left"
}
# verified WHAT OUT [program options...]: a run that writes OUT/T1.npy equal to numpy's
verified() {
  local what=$1 out=$2
  shift 2
  rm -rf "$out" "$work/trace.json"
  on_nodes --input-dir "${check[0]}" --output-dir "$out" --trace "$work/trace.json" "$@" || fail "$what failed"
  /usr/bin/python3 "$here/npy_check.py" check "${check[0]}" "$out" "${check[@]:1}" > /dev/null ||
    fail "$what: ${check[3]} differs from numpy's"
  "$tcec" compare "$work/trace.json" > "$work/compare.log" || fail "$what: measured != predicted: $(cat "$work/compare.log")"
  nodes_clean "$what"
  echo "cluster.sh: $what: ${check[3]} equals numpy's, measured = predicted bytes"
}
# refused WHAT MESSAGE [program options...]: the run fails with MESSAGE and writes no output
refused() {
  local what=$1 message=$2
  shift 2
  rm -rf "$work/out"
  if on_nodes "$@" > "$work/err.log" 2>&1; then fail "$what: the run did not fail"; fi
  grep -qF -- "$message" "$work/err.log" || fail "$what: expected '$message', got: $(cat "$work/err.log")"
  [[ ! -e $work/out/T1.npy && ! -e $work/nodes/node-0/out/T1.npy ]] || fail "$what: an output was written"
  echo "cluster.sh: $what: refused ($message...)"
}

verified "shared --scratch" "$work/out" --scratch "$work/shared_scratch" --verify
verified "node-local scratch, the output written in place" "$work/out" --verify
verified "node-local scratch, the store on a shared --checkpoint" "$work/out" --checkpoint "$work/ck"
# A sample of the methods and orders, each with node-local scratch and the output written in place.
for forced in "inside-rotation ACB" "inside-accumulation CAB" "outside-rotation BAC" "outside-replication CBA" \
  "outside-accumulation ABC" "sfc -"; do
  read -r method order <<< "$forced"
  options=(--force-method "$method")
  [[ $order == - ]] || options+=(--force-order "$order")
  (cd "$root" && "$tcec" examples/four_index.tce -D N=12 --machine "$here/tiny.machine" "${options[@]}" \
    -o "$work/prog-$method" --build) > /dev/null
  program=$work/prog-$method/four_index
  verified "node-local scratch, ${forced% -}" "$work/out" --verify
done
# tbs: a symmetric product in triangle blocks (C = 0.5 A Aᵀ, 38 KB, out of core on 16 KB per rank).
mkdir -p "$work/syrk_in"
/usr/bin/python3 "$here/npy_check.py" inputs "$work/syrk_in" '{"A": [70, 45]}' A > /dev/null
(cd "$root" && "$tcec" tests/e2e/syrk.tce --machine "$here/tiny.machine" --force-method tbs -o "$work/prog-tbs" \
  --build) > /dev/null
program=$work/prog-tbs/syrk check=("$work/syrk_in" "ik,jk->ij" 0.5 C A A)
verified "node-local scratch, tbs" "$work/syrk_out" --verify
# Programs of several steps, checked statement by statement against numpy (npy_check.py
# program-check): on tiny_cluster.machine (2 nodes of 2 ranks, node-local scratch) the planner
# keeps every intermediate on the ranks, so the three-step chain runs with no store; outputs
# small enough for one rank's memory, outputs several statements add to, and an HDF5 output are
# written in place.
# program_verified WHAT TCE MACHINE [-D ...]: compiled, run on the nodes, values and bytes checked
program_verified() {
  local what=$1 tce=$2 machine=$3 dir=$work/steps
  local name=${name:-$(basename "$tce" .tce)}  # the program's name ($name: another, e.g. an NWChem section's)
  shift 3
  rm -rf "$dir" "$work/trace.json"
  mkdir -p "$dir/in"
  (cd "$root" && "$tcec" "$tce" "$@" --machine "$machine" --dry-run --json > "$dir/program.json" &&
    "$tcec" "$tce" "$@" --machine "$machine" -o "$dir/prog" --build) > /dev/null
  /usr/bin/python3 "$here/npy_check.py" program-inputs "$dir/program.json" "$dir/in"
  on_nodes_program "$dir/prog/$name" --input-dir "$dir/in" --output-dir "$dir/out" \
    --trace "$work/trace.json" || fail "$what failed"
  /usr/bin/python3 "$here/npy_check.py" program-check "$dir/program.json" "$dir/in" "$dir/out" > /dev/null ||
    fail "$what: an output differs from numpy's"
  "$tcec" compare "$work/trace.json" > "$work/compare.log" || fail "$what: measured != predicted: $(cat "$work/compare.log")"
  if grep -q ranks_per_node "$machine"; then  # planned for several nodes: the whole run's bytes across them
    /usr/bin/python3 "$here/crossing.py" "$dir/program.json" "$work/trace.json" > "$work/crossing.log" ||
      fail "$what: $(cat "$work/crossing.log")"
  fi
  nodes_clean "$what"
  echo "cluster.sh: $what: outputs equal numpy's, measured = predicted bytes"
}
on_nodes_program() {
  local prog=$1
  shift
  mpirun --oversubscribe -np 4 bash "$here/on_node.sh" "$work/nodes" 2 "$work/local" "$prog" --quiet "$@"
}
grep -q "3 contractions planned with kept tensors" <(cd "$root" && "$tcec" tests/e2e/chain.tce -D N=64 \
  --machine "$here/tiny_cluster.machine" --dry-run) || fail "the chain on tiny_cluster does not keep X and Y"
program_verified "a three-step chain, intermediates kept on the ranks" tests/e2e/chain.tce \
  "$here/tiny_cluster.machine" -D N=64
# Each method on a cluster machine: its messages to the ranks of the other node predicted exactly.
for method in inside-rotation inside-accumulation outside-replication cosma sfc; do
  program_verified "a matrix product by $method, bytes across nodes" examples/matmul.tce \
    "$here/small4_cluster.machine" -D N=64 --force-method $method
done
program_verified "an output four statements add to (out of core)" examples/ccd_terms.tce "$here/tiny.machine" \
  -D O=6 -D V=14
program_verified "an output four statements add to (in memory)" examples/ccd_terms.tce "$here/small4.machine" \
  -D O=4 -D V=8
program_verified "resident accumulation of four statements on a cluster machine" examples/ccd_terms.tce \
  "$here/small4_cluster.machine" -D O=6 -D V=14 --resident all
program_verified "a matrix product whose output fits in memory" examples/matmul.tce "$here/small4.machine" -D N=40
# NWChem's CCSD T2: copy steps write intermediates (i1 += v) and add kept ones into others (the
# P(n) terms): through the store, one directory per node, each version completed on every node.
for handoff in "" --no-handoff; do
  name=ccsd_t2 program_verified "NWChem's CCSD T2 ${handoff:-with the hand-off}, copy steps through the per-node store" \
    data/nwchem_tce_equation_trees.txt "$here/tiny_cluster.machine" --from nwchem --section ccsd_t2 -D O=4 -D V=8 \
    $handoff
done
# An HDF5 output (npy inputs): its version beside the HDF5 file, the dataset written from it at the end.
rm -rf "$work/h5" "$work/trace.json"
mkdir -p "$work/h5/in"
(cd "$root" && "$tcec" examples/matmul.tce -D N=40 --machine "$here/small4.machine" -o "$work/h5/prog" --build) > /dev/null
/usr/bin/python3 "$here/npy_check.py" inputs "$work/h5/in" '{"A": [40, 40], "B": [40, 40]}' A B > /dev/null
on_nodes_program "$work/h5/prog/matmul" --input-dir "$work/h5/in" --output "$work/h5/out/result.h5" \
  --trace "$work/trace.json" || fail "an HDF5 output failed"
/usr/bin/python3 - "$work/h5" << 'PY' || fail "an HDF5 output: C differs from numpy's"
import sys, h5py, numpy as np
d = sys.argv[1]
A, B = np.load(f"{d}/in/A.npy"), np.load(f"{d}/in/B.npy")
with h5py.File(f"{d}/out/result.h5") as f:
    assert np.abs(f["C"][...] - A @ B.T).max() <= 1e-10 * (np.abs(A) @ np.abs(B).T).max()
PY
[[ $(ls "$work/h5/out") == result.h5 ]] || fail "an HDF5 output left files beside it: $(ls "$work/h5/out")"
"$tcec" compare "$work/trace.json" > "$work/compare.log" || fail "an HDF5 output: measured != predicted"
nodes_clean "an HDF5 output"
echo "cluster.sh: an HDF5 output: C equals numpy's, measured = predicted bytes"

# tcec-calibrate on the nodes: it finds the 2 nodes by their scratch and measures the network
# within and between them; tcec plans with the block it writes.
calibrate=$(dirname "$tcec")/tcec-calibrate
rm -rf "$work/cal"
mkdir -p "$work/cal"
mpirun --oversubscribe -np 4 bash "$here/on_node.sh" "$work/nodes" 2 "$work/local" "$calibrate" --quick \
  -o "$work/cal/nodes.machine" > "$work/cal/log" 2>&1 || fail "tcec-calibrate on the nodes failed: $(tail -5 "$work/cal/log")"
grep -q "^  ranks_per_node 2;" "$work/cal/nodes.machine" && grep -q "^  internode_network [0-9.]* MB/s;" \
  "$work/cal/nodes.machine" || fail "tcec-calibrate on 2 nodes wrote no ranks_per_node 2 and internode_network"
(cd "$root" && "$tcec" examples/matmul.tce --machine "$work/cal/nodes.machine" --dry-run) |
  grep -q "2 nodes of 2 processors, each with node-local scratch, B_c between nodes" ||
  fail "tcec does not plan for the calibrated nodes"
nodes_clean "tcec-calibrate"
echo "cluster.sh: tcec-calibrate on the nodes: ranks_per_node 2 and the network between nodes"

# Killed and resumed on the nodes: the chain through the store (--no-handoff: a checkpoint after
# every step) with node-local scratch and a shared --checkpoint; rank 2 (node 1) kills itself
# after the first checkpoint; the resumed run writes Z.npy byte for byte as an uninterrupted one.
rm -rf "$work/kill"
mkdir -p "$work/kill/in"
(cd "$root" && "$tcec" tests/e2e/chain.tce -D N=48 --machine "$here/tiny.machine" --no-handoff \
  -o "$work/kill/prog" --build) > /dev/null
/usr/bin/python3 "$here/npy_check.py" inputs "$work/kill/in" \
  '{"A": [48, 48], "B": [48, 48], "C": [48, 48], "D": [48, 48]}' A B C D > /dev/null
kill_run() {  # kill_run OUT [program options...]
  local out=$1
  shift
  mpirun --oversubscribe -np 4 -x TCERT_FAULT bash "$here/on_node.sh" "$work/nodes" 2 "$work/local" \
    "$work/kill/prog/chain" --quiet --input-dir "$work/kill/in" --output-dir "$out" "$@"
}
TCERT_FAULT= kill_run "$work/kill/whole" --checkpoint "$work/kill/ck0" || fail "the uninterrupted chain failed"
if TCERT_FAULT=2:checkpoint:1 kill_run "$work/kill/out" --checkpoint "$work/kill/ck" > "$work/kill.log" 2>&1; then
  fail "the run with TCERT_FAULT=2:checkpoint:1 was not stopped"
fi
# The killed ranks leave their tile directories (a batch system clears $TMPDIR after a job); the
# resumed run must leave nothing more.
left=$(find "$work/nodes" -mindepth 2 -not -path "$work/nodes/node-0/in*" | sort)
TCERT_FAULT= kill_run "$work/kill/out" --checkpoint "$work/kill/ck" --resume || fail "the resumed chain failed"
cmp -s "$work/kill/whole/Z.npy" "$work/kill/out/Z.npy" || fail "the resumed chain's Z.npy differs from the uninterrupted run's"
[[ ! -e $work/kill/ck ]] || fail "the resumed chain left its checkpoint"
[[ $(find "$work/nodes" -mindepth 2 -not -path "$work/nodes/node-0/in*" | sort) == "$left" ]] ||
  fail "the resumed chain left files in the nodes' scratch"
rm -rf "${work:?}"/nodes/node-*/tcert-*
echo "cluster.sh: killed on node 1 after a checkpoint and resumed on the nodes: Z.npy byte for byte as uninterrupted"

program=$work/prog/four_index check=("$work/in" "abcp,pd->abcd" 1 T1 A B)
host=$(hostname)
# Planned for one node (tiny.machine), its result kept in the store (no output location): the run
# is right, but says that the prediction did not count the store's copies to every node.
mpirun --oversubscribe -np 4 bash "$here/on_node.sh" "$work/nodes" 2 "$work/local" "$program" \
  --input-dir "$work/in" > "$work/warn.log" 2>&1 || fail "the program planned for one node failed on the nodes"
grep -qF "four_index: warning: the plans are for one node, but the ranks see the scratch as node-local on 2 nodes" \
  "$work/warn.log" || fail "no warning that the plans are for one node: $(cat "$work/warn.log")"
nodes_clean "the program planned for one node"
echo "cluster.sh: a program planned for one node runs on node-local scratch, and warns"
refused "a node-local output directory" \
  "rank 2 (host $host) does not see the output directory of T1 $work/local/out as rank 0 (host $host) does" \
  --input-dir "$work/in" --scratch "$work/shared_scratch" --output-dir "$work/local/out"
refused "a node-local checkpoint directory" \
  "rank 2 (host $host) does not see the checkpoint directory $work/local/ck as rank 0 (host $host) does" \
  --input-dir "$work/in" --output-dir "$work/out" --checkpoint "$work/local/ck"
refused "inputs on node 0 only" \
  "rank 2 (host $host) does not see the file of input A $work/local/in/A.npy as rank 0 (host $host) does" \
  --input-dir "$work/local/in" --scratch "$work/shared_scratch" --output-dir "$work/out"
