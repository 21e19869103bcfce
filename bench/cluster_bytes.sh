#!/usr/bin/env bash
# bench/cluster_bytes.sh — the bytes that cross emulated nodes against the model's prediction.
#
#   bench/cluster_bytes.sh [BUILD_DIR] [CASES...]
#
# Each case is compiled for bench/cluster.machine (4 processors on 2 nodes of 2, node-local
# scratch, a slower network between nodes) and run on 2 emulated nodes of 2 ranks
# (tests/e2e/on_node.sh: each rank in its own mount namespace, its node's own directory as
# $TMPDIR; root needed). Per case: the dry-run's bytes across nodes (all ranks, by compute stages,
# stages 1 and 3, copy steps) and what the run counted (its trace's `network`, the whole run's),
# `tcec compare` over every contraction (the per-stage bytes across nodes included), and the wall
# time. CASES are names from the list below (default: all). BUILD_DIR: default build/.
# Results topic: `cluster-bytes`.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/results_file.sh"
build=$(cd "${1:-$here/build}" && pwd)
shift $(($# > 0 ? 1 : 0))
declare -A how=(
  [four_index]="examples/four_index.tce -D N=48"
  [chain]="tests/e2e/chain.tce -D N=768"
  [matmul_rotation]="examples/matmul.tce -D N=768 --force-method inside-rotation"
  [matmul_cosma]="examples/matmul.tce -D N=768 --force-method cosma"
  [matmul_sfc]="examples/matmul.tce -D N=768 --force-method sfc"
  [ccsd_t1]="data/nwchem_tce_equation_trees.txt --from nwchem --section ccsd_t1 -D O=8 -D V=24"
  [ccsd_t2]="data/nwchem_tce_equation_trees.txt --from nwchem --section ccsd_t2 -D O=8 -D V=24"
)
order=(four_index chain matmul_rotation matmul_cosma matmul_sfc ccsd_t1 ccsd_t2)
cases=("$@")
[[ ${#cases[@]} -gt 0 ]] || cases=("${order[@]}")
if ! bash "$here/tests/e2e/on_node.sh" --check; then
  echo "cluster_bytes.sh: cannot make mount namespaces here (unshare -m needs root)" >&2
  exit 2
fi
results_begin cluster-bytes "$0" "$@"
work=$(mktemp -d "${TMPDIR:-/tmp}/cluster-bytes-XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMPI_MCA_orte_tmpdir_base=/tmp  # Open MPI's session files on the shared /tmp
machine=$here/bench/cluster.machine
printf '%-16s %14s %14s %14s %14s %14s %10s %8s\n' case predicted measured "compute" "stages 1,3" "copy steps" compare "wall s"
for name in "${cases[@]}"; do
  [[ -n ${how[$name]:-} ]] || { echo "cluster_bytes.sh: unknown case $name (one of ${order[*]})" >&2; exit 2; }
  dir=$work/$name
  mkdir -p "$dir/in" "$dir/nodes" "$dir/local"
  read -r -a args <<< "${how[$name]}"
  (cd "$here" && "$build/bin/tcec" "${args[@]}" --machine "$machine" --dry-run --json > "$dir/program.json" &&
    "$build/bin/tcec" "${args[@]}" --machine "$machine" -o "$dir/prog" --build) > /dev/null
  /usr/bin/python3 "$here/tests/e2e/npy_check.py" program-inputs "$dir/program.json" "$dir/in"
  prog=$(find "$dir/prog" -maxdepth 1 -type f -executable | head -1)
  start=$(date +%s.%N)
  mpirun --oversubscribe -np 4 bash "$here/tests/e2e/on_node.sh" "$dir/nodes" 2 "$dir/local" "$prog" --quiet \
    --input-dir "$dir/in" --output-dir "$dir/out" --trace "$dir/trace.json"
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  verdict=equal
  "$build/bin/tcec" compare "$dir/trace.json" > "$dir/compare.log" || verdict=DIFFERS
  /usr/bin/python3 - "$dir/program.json" "$dir/trace.json" "$name" "$verdict" "$wall" << 'PY'
import json, sys
p = json.load(open(sys.argv[1]))["internode_sent_bytes"]
n = json.load(open(sys.argv[2]))["network"]
measured = sum(n["internode_sent_bytes"])
print(f"{sys.argv[3]:<16} {p['total']:>14} {measured:>14} {p['compute']:>14} {p['stages']:>14} {p['copies']:>14} "
      f"{sys.argv[4]:>10} {float(sys.argv[5]):>8.2f}")
PY
done
echo
echo "predicted: the dry-run's bytes that all ranks send to ranks of the other node; measured: the"
echo "run's trace, the same over the whole run (copy steps included); compare: tcec compare over every"
echo "contraction (each rank's bytes, the crossing ones in the compute stage and stages 1 and 3)."
