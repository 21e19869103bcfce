#!/usr/bin/env bash
# tests/e2e/cluster_ccsd.sh — tcec-ccsd on 2 emulated nodes of 2 ranks each (on_node.sh: each
# node's node-local scratch, $TMPDIR, is a directory only its ranks see), docs/cluster.md.
#
#   cluster_ccsd.sh TCEC_CCSD WORK_DIR
#
# Water from psi4 (tools/psi4_integrals.py), out of core: STO-3G with 16 KB per rank and 6-31G
# with 256 KB, each with the default node-local scratch and the work directory on a shared
# --checkpoint DIR, must
#  - give psi4's CCSD correlation energy within 1e-8 Eh (the compiled residuals built on node 0
#    and sent to node 1's scratch);
#  - leave in each node's scratch only the compiled residuals and the empty directory of the
#    ranks' tile files, and nothing of the run in the shared directory but its lock;
#  - STO-3G: stopped by --max-iter 3 and continued with --resume on the nodes, print the same
#    energy, digit for digit;
#  - without --checkpoint (each node's own work directory, each rank's ranges of the vectors in
#    files of its own, the residuals called with them as parts in memory): psi4's energy within
#    1e-8 Eh, nothing made in the shared directory, each node's scratch left with only the
#    compiled residuals (and node 0 the lock);
#  - STO-3G without --checkpoint: stopped by --max-iter 2, say that nothing is kept to resume
#    from, and --resume is refused (no checkpoint).
# Exit 77 (skipped) where mount namespaces cannot be made (unshare -m needs root).
set -euo pipefail
ccsd=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if ! bash "$here/on_node.sh" --check; then
  echo "cluster_ccsd.sh: cannot make mount namespaces here (unshare -m needs root); skipped"
  exit 77
fi
fail() {
  echo "cluster_ccsd.sh: $*" >&2
  exit 1
}
rm -rf "$work"
mkdir -p "$work/local"
export OMPI_MCA_orte_tmpdir_base=/tmp  # Open MPI's session files on the shared /tmp, not in a node's scratch
# on_nodes MACHINE [tcec-ccsd options...]: tcec-ccsd on the 2 nodes, $work/local each node's scratch
on_nodes() {
  local machine=$1
  shift
  mpirun --oversubscribe -np 4 bash "$here/on_node.sh" "$work/nodes" 2 "$work/local" "$ccsd" --integrals "$ints" \
    --equations "$root/data/nwchem_tce_equation_trees.txt" --machine "$machine" "$@"
}
energy_of() { sed -n 's/^CCSD correlation energy: //p' "$1"; }
for case in sto-3g:16 6-31g:256; do
  basis=${case%:*} kb=${case#*:}
  ints=$work/ints-$basis shared=$work/shared-$basis
  /usr/bin/python3 "$root/tools/psi4_integrals.py" h2o "$basis" "$ints" > "$work/psi4.log"
  printf 'machine nodes {\n  processors 4;\n  memory %s KB;\n  network 200 MB/s;\n  disk 100 MB/s;\n}\n' "$kb" \
    > "$work/$basis.machine"
  rm -rf "$work/nodes" "$shared"
  mkdir -p "$shared"
  on_nodes "$work/$basis.machine" --checkpoint "$shared" > "$work/out" 2> "$work/err" ||
    fail "$basis: the run failed: $(tail -5 "$work/err")"
  got=$(energy_of "$work/out")
  psi4=$(/usr/bin/python3 -c "import json; print(json.load(open('$ints/meta.json'))['ccsd_correlation_energy'])")
  /usr/bin/python3 -c "import sys; sys.exit(abs($got - ($psi4)) > 1e-8)" ||
    fail "$basis: tcec-ccsd's energy $got is not psi4's $psi4"
  for node in 0 1; do
    left=$(cd "$work/nodes/node-$node" && find . -mindepth 1 -not -path './tcec-ccsd-cache*' -not -path ./tcec-ccsd-tiles)
    [[ -z $left ]] || fail "$basis: node $node's scratch holds more than the compiled residuals: $left"
    ls "$work/nodes/node-$node/tcec-ccsd-cache/"*/residuals.so > /dev/null || fail "$basis: node $node has no residuals"
  done
  left=$(cd "$shared" && find . -mindepth 1 -not -name tcec-ccsd.lock)
  [[ -z $left ]] || fail "$basis: the shared directory holds more than the lock: $left"
  echo "cluster_ccsd.sh: $basis on 2 nodes: $got (psi4 $psi4), each node's scratch only its compiled residuals"
  # Without --checkpoint: each node's work directory, each rank's ranges of the vectors in files
  # of its own, the residuals called with them as parts in memory; nothing shared.
  rm -rf "$work/nodes" "$shared"
  on_nodes "$work/$basis.machine" > "$work/out" 2> "$work/err" ||
    fail "$basis without --checkpoint: the run failed: $(tail -5 "$work/err")"
  local_energy=$(energy_of "$work/out")
  /usr/bin/python3 -c "import sys; sys.exit(abs($local_energy - ($psi4)) > 1e-8)" ||
    fail "$basis without --checkpoint: tcec-ccsd's energy $local_energy is not psi4's $psi4"
  [[ ! -e $shared ]] || fail "$basis without --checkpoint: made $shared"
  for node in 0 1; do
    left=$(cd "$work/nodes/node-$node" && find . -mindepth 1 -not -path './tcec-ccsd-cache*' -not -name tcec-ccsd.lock)
    [[ -z $left ]] || fail "$basis without --checkpoint: node $node's scratch holds more than the compiled residuals: $left"
  done
  echo "cluster_ccsd.sh: $basis on 2 nodes without --checkpoint (node-local vectors): $local_energy (psi4 $psi4)"
  [[ $basis == sto-3g ]] || continue
  if on_nodes "$work/$basis.machine" --checkpoint "$shared" --max-iter 3 > "$work/stopped" 2>&1; then
    fail "the run stopped after 3 iterations did not fail"
  fi
  on_nodes "$work/$basis.machine" --checkpoint "$shared" --resume > "$work/resumed" 2> "$work/err" ||
    fail "the resumed run failed: $(tail -5 "$work/err")"
  [[ $(energy_of "$work/resumed") == "$got" ]] ||
    fail "the resumed run's energy $(energy_of "$work/resumed") is not the uninterrupted run's $got"
  echo "cluster_ccsd.sh: $basis stopped after 3 iterations and resumed on the nodes: the same $got"
  # --resume needs the checkpoint on a shared directory
  if on_nodes "$work/$basis.machine" --max-iter 2 > "$work/stopped" 2>&1; then fail "a run of 2 iterations converged"; fi
  grep -qF "on several nodes without --checkpoint nothing is kept to resume from" "$work/stopped" ||
    fail "expected the node-local not-converged message, got: $(cat "$work/stopped")"
  if on_nodes "$work/$basis.machine" --resume > "$work/refused" 2>&1; then fail "--resume without --checkpoint did not fail"; fi
  message="cannot resume: no checkpoint $work/local/tcec-ccsd/checkpoint.json"
  grep -qF -- "$message" "$work/refused" || fail "expected '$message', got: $(cat "$work/refused")"
  echo "cluster_ccsd.sh: --resume without --checkpoint on the nodes: refused ($message...)"
done
