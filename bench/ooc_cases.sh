# bench/ooc_cases.sh — sourced by bench/ooc_regime.sh and bench/page_cache_ab.sh: issue 51's cases
# and the machine each is planned for.
#
#   here=REPO; source "$here/bench/ooc_cases.sh"; ooc_machines BUILD_DIR WORK_DIR
#
# ooc_cases: one entry per case, "name | P | memory per rank | cgroup limit | numpy kind | tce
# file and definitions". ooc_machines writes WORK_DIR/cal.P.machine and cal.P.json for P = 1
# and 2 (`tcec-calibrate --regime device` with P ranks: the device's figures per rank with all
# ranks at once, past the page cache, on the file system of WORK_DIR) and prints its summary line;
# with CALIBRATION=DIR (environment) it takes DIR's cal.P.machine, cal.P.json and cal.P.log (an
# earlier run's, KEEP=1) instead, so that runs compared with each other plan for the same machine.
ooc_cases=(
  "four_index_N64_P1|1|8 MB|64M|four_index|$here/examples/four_index.tce -D N=64"
  "four_index_N96_P1|1|64 MB|162M|four_index|$here/examples/four_index.tce -D N=96"
  "four_index_N128_P1|1|64 MB|384M|four_index|$here/examples/four_index.tce -D N=128"
  "four_index_N128_P2|2|64 MB|384M|four_index|$here/examples/four_index.tce -D N=128"
  "four_index_N160_P1|1|64 MB|768M|four_index|$here/examples/four_index.tce -D N=160"
  "four_index_N160_P2|2|64 MB|768M|four_index|$here/examples/four_index.tce -D N=160"
  "matmul_N8000_P2|2|64 MB|384M|matmul|$here/examples/matmul.tce -D N=8000"
  "doubles_O24_V120_P2|2|64 MB|384M|doubles|$here/bench/ooc_doubles.tce -D O=24 -D V=120"
  "chain_N6000_P2|2|64 MB|384M|chain|$here/bench/ooc_chain.tce -D N=6000"
)
# The cases of issue 51's "Numbers this must reach".
ooc_issue_cases="four_index_N128_P1 four_index_N128_P2 four_index_N160_P1 four_index_N160_P2 matmul_N8000_P2 doubles_O24_V120_P2 chain_N6000_P2"

ooc_machines() {
  local build=$1 work=$2 np
  for np in 1 2; do
    if [[ -n ${CALIBRATION:-} ]]; then
      cp "$CALIBRATION/cal.$np.machine" "$CALIBRATION/cal.$np.json" "$CALIBRATION/cal.$np.log" "$work/"
      echo "calibration (P = $np): taken from $CALIBRATION"
    else
      mpirun --oversubscribe -np "$np" "$build/bin/tcec-calibrate" --regime device --scratch "$work" \
        -o "$work/cal.$np.machine" --json "$work/cal.$np.json" 2> "$work/cal.$np.log"
    fi
    grep -E "past the page cache" "$work/cal.$np.log" | sed "s/^tcec-calibrate: /calibration (P = $np): /"
  done
}
