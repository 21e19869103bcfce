#!/usr/bin/env bash
# tools/ooc-regime.sh — runs a command in the out-of-core regime: inside a fresh memory cgroup
# whose limit counts the page cache, caches dropped first (docs/out-of-core.md).
#
#   ooc-regime.sh --limit SIZE [--no-drop] [--report FILE] -- COMMAND [ARGS...]
#   ooc-regime.sh --check
#
# SIZE: bytes, or a number with K, M or G (binary: 384M = 384 MiB). The cgroup is made below
# the memory cgroup this script runs in (cgroup v1: memory.limit_in_bytes; v2: memory.max, both
# charge the page cache of the files its processes read and write), COMMAND and all its
# children (mpirun and its ranks included) run inside it, and it is removed afterwards (with
# any process COMMAND left in it). Before COMMAND: `sync` and `echo 3 > /proc/sys/vm/drop_caches`
# (the whole machine's clean page cache, so that inputs are read from the device), unless
# --no-drop.
#
# Exit status: COMMAND's (128 + N when a signal N ended it); 2 with one line on stderr when the
# regime cannot be made here (not root, no memory controller, no cgroup can be made, the caches
# cannot be dropped) or on a bad command line. --check only tells whether it can be made (0 or 2).
#
# At the end one line on stderr, "ooc-regime: ..." with COMMAND's wall time, the cgroup's peak
# usage (v1 memory.max_usage_in_bytes, v2 memory.peak), how often it hit its limit, the
# cgroup's major page faults and the machine-wide pgpgin/pgpgout of /proc/vmstat over the run
# (every process on the machine counts there: on a shared machine, an upper bound). --report
# FILE also writes them as JSON: {"limit_bytes", "cgroup", "peak_bytes", "limit_hits",
# "major_faults", "oom_kills", "pgpgin_bytes", "pgpgout_bytes", "wall_s", "status"} (null where
# unknown). A limit below the command's own memory (not its page cache) ends it through the
# kernel's out-of-memory killer; a line says so.
set -uo pipefail
me=ooc-regime

fail() {  # one clear line, exit 2
  echo "$me: $*" >&2
  exit 2
}

usage() {
  echo "usage: ooc-regime.sh --limit SIZE [--no-drop] [--report FILE] -- COMMAND [ARGS...]" >&2
  echo "       ooc-regime.sh --check" >&2
  exit 2
}

# bytes of SIZE (e.g. 384M, 1G, 65536), or empty when not a size
size_bytes() {
  local n=${1%[KkMmGg]} unit=${1##*[0-9]}
  [[ $n =~ ^[0-9]+$ ]] || return 0
  case $unit in
    '') echo "$n" ;;
    [Kk]) echo $((n << 10)) ;;
    [Mm]) echo $((n << 20)) ;;
    [Gg]) echo $((n << 30)) ;;
  esac
}

limit= drop=1 report= check=0
while (($#)); do
  case $1 in
    --limit) (($# >= 2)) || usage; limit=$(size_bytes "$2"); [[ -n $limit && $limit -gt 0 ]] || fail "--limit expects a size such as 384M, got '$2'"; shift 2 ;;
    --limit=*) limit=$(size_bytes "${1#*=}"); [[ -n $limit && $limit -gt 0 ]] || fail "--limit expects a size such as 384M, got '${1#*=}'"; shift ;;
    --no-drop) drop=0; shift ;;
    --report) (($# >= 2)) || usage; report=$2; shift 2 ;;
    --check) check=1; shift ;;
    --) shift; break ;;
    -h | --help) sed -n '2,27s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) usage ;;
  esac
done
((check || $# > 0)) || usage
((check)) || [[ -n $limit ]] || fail "--limit SIZE is required"

[[ $(id -u) == 0 ]] || fail "needs root (a memory cgroup and dropping the page cache); running as uid $(id -u)"

# The memory controller: v1 where it is mounted on its own (this script nests its cgroup under
# the one it runs in), else v2 (the unified hierarchy's root must delegate memory).
version= parent=
v1_mount=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ {print $2; exit}' /proc/mounts)
if [[ -n $v1_mount ]]; then
  version=1
  parent=$v1_mount$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3; exit}' /proc/self/cgroup)
else
  v2_mount=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
  if [[ -n $v2_mount ]] && grep -qw memory "$v2_mount/cgroup.controllers" 2>/dev/null; then
    version=2 parent=$v2_mount
    grep -qw memory "$parent/cgroup.subtree_control" ||
      echo +memory > "$parent/cgroup.subtree_control" 2>/dev/null ||
      fail "cgroup v2 at $parent does not delegate the memory controller to its children"
  fi
fi
[[ -n $version ]] || fail "no memory cgroup controller on this machine (neither cgroup v1 'memory' nor v2 with 'memory')"
[[ -d $parent && -w $parent ]] || fail "cannot make a cgroup under $parent (cgroup v$version): not writable"
((check)) && { echo "$me: can run in the regime (cgroup v$version under $parent)" >&2; exit 0; }

cg=$parent/tcec-ooc-$$
mkdir "$cg" 2>/dev/null || fail "cannot make the cgroup $cg (cgroup v$version)"
if ((version == 1)); then
  limit_file=memory.limit_in_bytes peak_file=memory.max_usage_in_bytes
else
  limit_file=memory.max peak_file=memory.peak
fi

remove_cgroup() {  # after COMMAND: what it left running ends, then the cgroup goes
  local pid tries
  for tries in 1 2 3 4 5 6 7 8 9 10; do
    [[ -s $cg/cgroup.procs ]] || break
    ((tries == 5)) && while read -r pid; do kill -KILL "$pid" 2>/dev/null; done < "$cg/cgroup.procs"
    sleep 0.5
  done
  for tries in 1 2 3 4 5 6 7 8 9 10; do
    rmdir "$cg" 2>/dev/null && return
    sleep 0.2
  done
  echo "$me: could not remove the cgroup $cg" >&2
}
trap remove_cgroup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "$limit" > "$cg/$limit_file" 2>/dev/null || fail "cannot set $cg/$limit_file to $limit"
if ((drop)); then
  sync
  echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || fail "cannot drop the page cache (/proc/sys/vm/drop_caches not writable)"
fi

vmstat() { awk -v k="$1" '$1 == k {print $2}' /proc/vmstat; }
major_faults() {  # the cgroup's, since it was made
  if ((version == 1)); then awk '$1 == "total_pgmajfault" {print $2}' "$cg/memory.stat"
  else awk '$1 == "pgmajfault" {print $2}' "$cg/memory.stat"; fi
}
limit_hits() {
  if ((version == 1)); then cat "$cg/memory.failcnt"
  else awk '$1 == "max" {print $2}' "$cg/memory.events"; fi
}
oom_kills() {
  if ((version == 1)); then awk '$1 == "oom_kill" {print $2}' "$cg/memory.oom_control"
  else awk '$1 == "oom_kill" {print $2}' "$cg/memory.events"; fi
}

in0=$(vmstat pgpgin) out0=$(vmstat pgpgout)
start=$(date +%s.%N)
(
  echo "$BASHPID" > "$cg/cgroup.procs" || { echo "$me: cannot enter the cgroup $cg" >&2; exit 2; }
  exec "$@"
) &
child=$!
trap 'kill -INT $child 2>/dev/null' INT
trap 'kill -TERM $child 2>/dev/null' TERM
wait "$child"
status=$?
while kill -0 "$child" 2>/dev/null; do wait "$child"; status=$?; done  # a trapped signal interrupted wait
end=$(date +%s.%N)
in1=$(vmstat pgpgin) out1=$(vmstat pgpgout)

peak=$(cat "$cg/$peak_file" 2>/dev/null) || peak=
hits=$(limit_hits 2>/dev/null) || hits=
faults=$(major_faults 2>/dev/null) || faults=
kills=$(oom_kills 2>/dev/null) || kills=
wall=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f", b - a}')
pgpgin=$(((in1 - in0) * 1024)) pgpgout=$(((out1 - out0) * 1024))  # /proc/vmstat counts KiB
mib() { [[ -n $1 ]] && awk -v b="$1" 'BEGIN {printf "%.1f MiB", b / 1048576}' || echo unknown; }
echo "$me: status $status, wall $wall s, limit $(mib "$limit") (cgroup v$version), peak $(mib "$peak"), limit hit ${hits:-?} times, ${faults:-?} major faults; machine-wide pgpgin $(mib "$pgpgin"), pgpgout $(mib "$pgpgout")" >&2
if [[ -n $kills && $kills != 0 ]]; then
  echo "$me: the out-of-memory killer ended $kills process(es) of the command: the limit is below its own memory" >&2
fi
if [[ -n $report ]]; then
  j() { [[ -n $1 ]] && echo "$1" || echo null; }
  printf '{"limit_bytes": %s, "cgroup": %s, "peak_bytes": %s, "limit_hits": %s, "major_faults": %s, "oom_kills": %s, "pgpgin_bytes": %s, "pgpgout_bytes": %s, "wall_s": %s, "status": %s}\n' \
    "$limit" "$version" "$(j "$peak")" "$(j "$hits")" "$(j "$faults")" "$(j "$kills")" "$pgpgin" "$pgpgout" "$wall" "$status" > "$report"
fi
exit "$status"
