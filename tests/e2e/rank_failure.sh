#!/usr/bin/env bash
# tests/e2e/rank_failure.sh — one rank of a running program dies (SIGKILL): the job must end
# within seconds, not hang, with a non-zero status and a message naming the rank.
#
#   rank_failure.sh TCEC WORKDIR
#
# The program is the 4-index transform at N = 96 on 4 ranks of 8 MB (seconds of work); one of
# its processes is killed once all four run. Open MPI's mpirun notices the death, aborts the
# other ranks and says "process rank R ... exited on signal 9".
set -euo pipefail
tcec=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rm -rf "$work"
mkdir -p "$work"
(cd "$root" && "$tcec" examples/four_index.tce -D N=96 --machine examples/small.machine -o "$work" --build) > /dev/null
mpirun --oversubscribe -np 4 "$work/four_index" --quiet --scratch "$work/scratch" > "$work/out.log" 2> "$work/err.log" &
job=$!
for ((i = 0; i < 200; i++)); do   # until the four ranks run (at most 20 s)
  ranks=$(pgrep -f "^$work/four_index" || true)
  [[ $(wc -w <<< "$ranks") -eq 4 ]] && break
  sleep 0.1
done
victim=$(awk '{print $NF}' <<< "$ranks" | tail -1)
[[ -n "$victim" ]] || { echo "rank_failure.sh: the program's ranks never ran" >&2; kill "$job" || true; exit 1; }
sleep 0.3
kill -9 "$victim"
start=$SECONDS
status=0
for ((i = 0; i < 300; i++)); do   # the job must end within 30 s
  kill -0 "$job" 2> /dev/null || break
  sleep 0.1
done
if kill -0 "$job" 2> /dev/null; then
  echo "rank_failure.sh: the job still runs 30 s after a rank died" >&2
  pkill -9 -f "^$work/four_index" || true
  kill -9 "$job" || true
  exit 1
fi
wait "$job" || status=$?
if [[ $status -eq 0 ]]; then
  echo "rank_failure.sh: the job exited 0 although a rank was killed" >&2
  exit 1
fi
if ! grep -q "process rank [0-9]* .*signal 9" "$work/err.log"; then
  echo "rank_failure.sh: no message names the dead rank:" >&2
  cat "$work/err.log" >&2
  exit 1
fi
echo "rank_failure.sh: the job ended $((SECONDS - start)) s after the kill with status $status: $(grep -o 'process rank [0-9]*' "$work/err.log" | head -1)"
