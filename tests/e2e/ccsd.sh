#!/usr/bin/env bash
# e2e.ccsd.*: the CCSD correlation energy of a molecule from tcec-ccsd, under mpirun at P = NP
# (default 4) and out of core, equals psi4's within 1e-8 Eh. With RESUME = resume, a second run
# is killed (SIGKILL) after its third checkpoint (RESUME = stop: stopped by --max-iter 3) and
# resumed, and must print the same energy, digit for digit; a resume against another machine, or
# while another process holds the scratch directory's lock, is refused. With MODE = h5 the
# integrals are one HDF5 file instead of a directory of .npy files. The first run prints
# --timings: every iteration's five phase columns must add up to its seconds. EQUATIONS `-`: no
# --equations, tcec-ccsd's built-in equations; then a resume given the same trees as a file
# (data/nwchem_tce_equation_trees.txt) is refused, the checkpoint being made for the built-in ones.
#   ccsd.sh TCEC_CCSD EQUATIONS|- WORK_DIR MOLECULE BASIS MEMORY [resume|stop|h5|-] [NP]
set -euo pipefail
ccsd=$1 equations=$2 work=$3 molecule=$4 basis=$5 memory=$6 resume=${7:-} np=${8:-4}
here=$(cd "$(dirname "$0")/../.." && pwd)
eq=(--equations "$equations")
if [ "$equations" = - ]; then eq=(); fi
rm -rf "$work" && mkdir -p "$work"
ints=$work/ints
if [ "$resume" = h5 ]; then ints=$work/ints.h5; fi
/usr/bin/python3 "$here/tools/psi4_integrals.py" "$molecule" "$basis" "$ints" > "$work/psi4.log"
cat > "$work/ranks.machine" <<MACHINE
machine test {
  processors $np;
  memory ${memory/KB/ KB};
  network 200 MB/s;
  disk 100 MB/s;
}
MACHINE
mpirun --oversubscribe -np "$np" "$ccsd" --integrals "$ints" "${eq[@]}" --machine "$work/ranks.machine" \
  --scratch "$work" --timings > "$work/out" 2> "$work/err" || { cat "$work/out" "$work/err"; exit 1; }
cat "$work/out"
/usr/bin/python3 - "$work/out" <<'PY'
import sys
lines = [l.split() for l in open(sys.argv[1]).read().splitlines()]
head = next(l for l in lines if l[:1] == ["iter"])
assert head[-10:] == ["t1", "s", "t2", "s", "update", "s", "e", "s", "other", "s"], head
rows = [l for l in lines if l and l[0].isdigit()]
assert rows, "no iteration lines"
for r in rows:  # seconds, then t1, t2, update, e and the rest, each printed to 4 decimals
    assert len(r) == 10 and abs(sum(map(float, r[5:])) - float(r[4])) <= 0.0004, r
PY
energy=$(sed -n 's/^CCSD correlation energy: //p' "$work/out")
/usr/bin/python3 - "$ints" "$energy" "$memory" <<'PY'
import json, sys
if sys.argv[1].endswith(".h5"):
    import h5py
    meta = dict(h5py.File(sys.argv[1], "r").attrs)
else:
    meta = json.load(open(sys.argv[1] + "/meta.json"))
energy, reference = float(sys.argv[2]), meta["ccsd_correlation_energy"]
V = meta["V"]
print(f"tcec-ccsd {energy:.12f} Eh, psi4 {reference:.12f} Eh, difference {energy - reference:.2e} Eh; "
      f"v_pppp {8 * V**4} bytes, memory per rank {sys.argv[3]}")
sys.exit(0 if abs(energy - reference) <= 1e-8 else 1)
PY
if [ -e "$work/tcec-ccsd" ]; then echo "the work directory is left"; exit 1; fi
if [ "$resume" = stop ]; then  # stopped after 3 iterations (one rank converges too fast to kill)
  run=(mpirun --oversubscribe -np "$np" "$ccsd" --integrals "$ints" "${eq[@]}" --machine "$work/ranks.machine"
       --scratch "$work/r")
  "${run[@]}" --max-iter 3 > "$work/stopped.out" 2> "$work/stopped.err" && exit 1
  grep -q "not converged in 3 iterations .* holds the state for --resume" "$work/stopped.err"
fi
if [ "$resume" = resume ]; then
  run=(mpirun --oversubscribe -np "$np" "$ccsd" --integrals "$ints" "${eq[@]}" --machine "$work/ranks.machine"
       --scratch "$work/r")
  setsid "${run[@]}" > "$work/killed.out" 2>&1 &
  job=$!
  # Until the third checkpoint, at most five minutes (the residuals compile first: a minute or
  # more on a busy machine). A run that ends before it is a failure (grep below).
  for _ in $(seq 3000); do
    if grep -qs '"iteration": [3-9]' "$work/r/tcec-ccsd/checkpoint.json"; then break; fi
    kill -0 "$job" 2> /dev/null || break
    sleep 0.1
  done
  # The ranks are in process groups of their own, so the whole session is killed, and waited
  # for: a rank left running would go on writing checkpoints under the resumed run.
  session() { # the processes of session $1
    local f line sid
    for f in /proc/[0-9]*/stat; do
      line=$(cat "$f" 2> /dev/null) || continue
      read -r _ _ _ sid _ <<< "${line##*) }"
      if [ "$sid" = "$1" ]; then f=${f#/proc/}; echo "${f%/stat}"; fi
    done
  }
  for _ in $(seq 100); do
    pids=$(session "$job")
    [ -n "$pids" ] || break
    kill -KILL $pids 2> /dev/null || true
    sleep 0.1
  done
  wait "$job" 2> /dev/null || true
  [ -z "$(session "$job")" ] || { echo "the killed run's processes did not end"; exit 1; }
fi
if [ "$resume" = resume ] || [ "$resume" = stop ]; then
  grep -q '"iteration"' "$work/r/tcec-ccsd/checkpoint.json"
  # A run on a scratch directory whose lock another process holds is refused, and changes nothing.
  cp "$work/r/tcec-ccsd/checkpoint.json" "$work/checkpoint.before"
  flock "$work/r/tcec-ccsd.lock" "${run[@]}" --resume > /dev/null 2> "$work/locked.err" && exit 1
  grep -q "tcec-ccsd.lock is held by another process (another tcec-ccsd run" "$work/locked.err"
  cmp -s "$work/checkpoint.before" "$work/r/tcec-ccsd/checkpoint.json"
  sed 's/network 200/network 100/' "$work/ranks.machine" > "$work/other.machine"
  mpirun --oversubscribe -np "$np" "$ccsd" --integrals "$ints" "${eq[@]}" --machine "$work/other.machine" \
    --scratch "$work/r" --resume > /dev/null 2> "$work/refused.err" && exit 1
  grep -q "cannot resume from .*: it was made for another machine" "$work/refused.err"
  if [ "$equations" = - ]; then
    mpirun --oversubscribe -np "$np" "$ccsd" --integrals "$ints" --equations "$here/data/nwchem_tce_equation_trees.txt" \
      --machine "$work/ranks.machine" --scratch "$work/r" --resume > /dev/null 2> "$work/refused.err" && exit 1
    grep -q "cannot resume from .*: it was made for another equations (\"built-in [0-9a-f]\{16\}\" there" "$work/refused.err"
  fi
  "${run[@]}" --resume > "$work/resumed.out" 2> "$work/resumed.err" || { cat "$work/resumed.out" "$work/resumed.err"; exit 1; }
  grep -q "resuming after iteration" "$work/resumed.err"
  again=$(sed -n 's/^CCSD correlation energy: //p' "$work/resumed.out")
  [ "$again" = "$energy" ] || { echo "resumed: $again, uninterrupted: $energy"; exit 1; }
  echo "interrupted ($resume) after a checkpoint and resumed: $again Eh, as uninterrupted"
fi
echo "ccsd: ok"
