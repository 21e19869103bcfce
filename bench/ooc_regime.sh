#!/usr/bin/env bash
# bench/ooc_regime.sh — the out-of-core regime (issue 51): tcec's program, a plain streaming numpy
# loop and the device bound, side by side, in one memory cgroup that counts the page cache.
#
#   bench/ooc_regime.sh [BUILD_DIR] [CASES] [RUNS]
#
# Needs root (tools/ooc-regime.sh: a memory cgroup, caches dropped before every run), MPI (as
# root OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1) and /usr/bin/python3 with numpy.
# CASES: names from the list below (default: issue 51's cases, "Numbers this must reach"); RUNS
# (default 1) runs of each of tcec and numpy, alternating, caches dropped before each. Each case
# is compiled for the machine `tcec-calibrate --regime device` measured with P ranks (the device
# past the page cache, docs/out-of-core.md), its memory per rank set to the case's, its inputs written as .npy files (bench/ooc_numpy.py inputs, outside the cgroup), then run inside a
# cgroup of LIMIT (at most a quarter of its tensors): tcec's program with --input-dir,
# --output-dir and --trace, and `bench/ooc_numpy.py run KIND` (BLAS threads: the node's cores, as
# the program's ranks have together). The outputs of the last runs are compared (largest relative
# difference). The device bound takes the device bandwidths and the kernel rate from
# `tcec-calibrate --json` on one rank (O_DIRECT figures, past the page cache). The table
# (bench/ooc_regime.py) prints per case the medians of both walls, the bound, their ratios, the
# predicted whole-program time, tcec's device reads against its predicted disk reads and numpy's,
# pgpgin, the cgroup's peak and the compute stages' wall over busy time.
# Disk: the inputs, outputs and scratch of one case at a time (N = 160: ~16 GB), removed after it;
# the work directory goes at the end unless KEEP=1 (traces, reports and logs per case).
# RUN_ARGS (environment): more arguments for tcec's program, e.g. RUN_ARGS=--buffered-reads to
# compare the page cache's reads with the machine's direct reads (docs/out-of-core.md).
# Results topic: `ooc-regime`.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
wanted=${2:-}
runs=${3:-1}
regime=$here/tools/ooc-regime.sh
"$regime" --check 2> /dev/null || { "$regime" --check; exit 2; }
source "$here/bench/results_file.sh"; results_begin ooc-regime "$0" "$@"
[[ -z ${RUN_ARGS:-} ]] || echo "    tcec's program with: $RUN_ARGS"
# Open MPI's cm PML probes the PSM, PSM2 and OFI fabrics in MPI_Init (about 0.2 s of every start on
# a node without them, part of tcec's wall and not numpy's); one node needs none of them. Unless
# the caller chose a PML, leave cm out (docs/programs.md "Start-up").
export OMPI_MCA_pml=${OMPI_MCA_pml-^cm}
echo "    Open MPI: OMPI_MCA_pml=$OMPI_MCA_pml"
source "$here/bench/ooc_cases.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/ooc-regime-XXXXXX")
trap '[[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT
ooc_machines "$build" "$work"
cp "$work/cal.1.json" "$work/cal.json"  # the device bound's figures (one rank: the whole device)
# in_regime REPORT COMMAND...: COMMAND in the case's cgroup (its lines to the case's log); on a
# failure, the log's last lines and the end of the benchmark.
in_regime() {
  local report=$1
  shift
  "$regime" --limit "$limit" --report "$report" -- "$@" 2>> "$dir/log" && return 0
  echo "$name: failed in the cgroup: $*" >&2
  tail -3 "$dir/log" >&2
  exit 1
}
/usr/bin/python3 "$here/bench/ooc_regime.py" header
[[ -n $wanted ]] || wanted=$ooc_issue_cases
for entry in "${ooc_cases[@]}"; do
  IFS='|' read -r name np memory limit kind source <<< "$entry"
  [[ " $wanted " == *" $name "* ]] || continue
  read -r -a args <<< "$source"
  slab=$((${limit%M} / 8 < 64 ? ${limit%M} / 8 : 64))  # MB per slab: numpy holds about three at once
  dir=$work/$name
  mkdir -p "$dir"
  sed "s/^  memory [0-9]* MB;/  memory $memory;/" "$work/cal.$np.machine" > "$dir/m.machine"
  "$build/bin/tcec" "${args[@]}" --machine "$dir/m.machine" -o "$dir/prog" --build > /dev/null
  "$build/bin/tcec" "${args[@]}" --machine "$dir/m.machine" --dry-run --json > "$dir/dry.json"
  /usr/bin/python3 "$here/bench/ooc_numpy.py" inputs "$dir/in" < "$dir/dry.json"
  program=$(find "$dir/prog" -maxdepth 1 -type f -perm -u+x | head -1)
  for ((r = 0; r < runs; ++r)); do
    rm -rf "$dir/out_tcec" "$dir/out_numpy" "$dir/scratch"
    in_regime "$dir/tcec.$r.report.json" mpirun --oversubscribe -np "$np" "$program" --quiet \
      --trace "$dir/tcec.$r.trace.json" --scratch "$dir/scratch" --input-dir "$dir/in" --output-dir "$dir/out_tcec" \
      ${RUN_ARGS:-}
    in_regime "$dir/numpy.$r.report.json" env OPENBLAS_NUM_THREADS="$(nproc)" /usr/bin/python3 \
      "$here/bench/ooc_numpy.py" run "$kind" "$dir/in" "$dir/out_numpy" "$slab"
    cp "$dir/out_numpy/numpy.json" "$dir/numpy.$r.json"
  done
  /usr/bin/python3 "$here/bench/ooc_regime.py" row "$name" "$dir" "$np" "$runs" "$work/cal.json"
  for output in "$dir"/out_tcec/*.npy; do
    echo "  $(basename "$output"): tcec against numpy, largest relative difference" \
      "$(/usr/bin/python3 "$here/bench/ooc_numpy.py" check "$output" "$dir/out_numpy/$(basename "$output")")"
  done
  rm -rf "$dir/in" "$dir/out_tcec" "$dir/out_numpy" "$dir/scratch"
done
