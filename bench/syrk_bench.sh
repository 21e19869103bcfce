#!/usr/bin/env bash
# bench/syrk_bench.sh — symmetric contractions with triangle blocks (tbs forced, Beaumont et al.
# SPAA'22 §5.1) against the best general plan (--no-symmetry): per rank, the fullest, disk
# reads + received bytes of each plan (`tcec --dry-run --json`, compute stage and stages 1 and
# 3), their ratio, tbs's reads over the SYRK lower bound the report prints (Corollary 4.7 over P
# ranks), and the method the default plan picks (by predicted wall time). Rows: SYRK shapes
# (N = M; N >> M at N = 20√S and 40√S, S = 10^6 words; N >> M with M < √S, where a general plan
# holding whole rows of A reads less; N << M) and a symmetric 4-index step, at P = 1 and P = 4
# with 8 MB per rank (out of core); then two
# small cases run here (MPI; as root set OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1),
# measured from the traces.
#
#   bench/syrk_bench.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/results_file.sh"; results_begin syrk "$0" "$@"
tcec=${1:-$here/build}/bin/tcec
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
syrk() {   # N M: C[i,j] = A[i,k] * A[j,k]
  printf 'range N = %s;\nrange M = %s;\nindex i, j : N;\nindex k : M;\ntensor A[N,M] input;\ntensor C[N,N] output;\nC[i,j] = A[i,k] * A[j,k];\n' "$1" "$2"
}
four() {   # AB PQ: G[a,b,c,d] = X[a,b,p,q] * X[c,d,p,q], |a| = |b| = AB, |p| = |q| = PQ
  printf 'range R = %s;\nrange S = %s;\nindex a, b, c, d : R;\nindex p, q : S;\ntensor X[R,R,S,S] input;\ntensor G[R,R,R,R] output;\nG[a,b,c,d] = X[a,b,p,q] * X[c,d,p,q];\n' "$1" "$2"
}
machine() {   # P MEMORY
  printf 'machine m { processors %s; memory %s; network 1 GB/s; disk 500 MB/s; }\n' "$1" "$2"
}
row() {   # NAME P MEMORY SOURCE...
  local name=$1 P=$2 memory=$3
  shift 3
  "$@" > "$work/$name.tce"
  machine "$P" "$memory" > "$work/m.machine"
  "$tcec" "$work/$name.tce" --machine "$work/m.machine" --dry-run --json --force-method tbs > "$work/tbs.json"
  "$tcec" "$work/$name.tce" --machine "$work/m.machine" --dry-run --json --no-symmetry > "$work/general.json"
  "$tcec" "$work/$name.tce" --machine "$work/m.machine" --dry-run --json > "$work/default.json"
  python3 "$here/bench/syrk_bench.py" "$name" "$work/tbs.json" "$work/general.json" "$work/default.json"
}
printf '%-24s %2s %10s %-13s %10s %8s %10s %8s  %s\n' case P "tbs MB" general "MB/rank" ratio "SYRK bound" ratio default
for P in 1 4; do
  row "square_N4000_M4000" $P "8 MB" syrk 4000 4000
  row "tall_N20000_M2000" $P "8 MB" syrk 20000 2000
  row "tall_N40000_M2000" $P "8 MB" syrk 40000 2000
  row "tall_N20000_M500" $P "8 MB" syrk 20000 500
  row "wide_N2000_M50000" $P "8 MB" syrk 2000 50000
  row "four_index_R60_S40" $P "8 MB" four 60 40
done

# Measured: small cases generated, built and run here, both plans.
printf '\nmeasured here (mpirun; disk reads + received of the fullest rank, tbs / general):\n'
run() {   # NAME P MEMORY SOURCE...
  local name=$1 P=$2 memory=$3
  shift 3
  "$@" > "$work/$name.tce"
  machine "$P" "$memory" > "$work/m.machine"
  for how in tbs general; do
    local flags=(--force-method tbs)
    [[ $how == general ]] && flags=(--no-symmetry)
    "$tcec" "$work/$name.tce" --machine "$work/m.machine" "${flags[@]}" -o "$work/$how" --build > /dev/null
    "$tcec" "$work/$name.tce" --machine "$work/m.machine" "${flags[@]}" --dry-run --json > "$work/$how.json"
    mpirun --oversubscribe -np "$P" "$work/$how/$name" --quiet --trace "$work/$how/trace.json" --scratch "$work/$how/scratch"
  done
  python3 "$here/bench/syrk_bench.py" "$name" "$work/tbs.json" "$work/general.json" "$work/tbs.json" \
    "$work/tbs/trace.json" "$work/general/trace.json"
}
run syrk_N600_M400 1 "256 KB" syrk 600 400
run syrk_N600_M400 4 "256 KB" syrk 600 400
