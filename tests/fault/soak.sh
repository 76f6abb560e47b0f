#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# soak.sh OSHRUN PROGRAM [RUNS] [SEED]   (ctest fault.soak, LABELS soak)
# Runs PROGRAM's "pass" scenario (ring puts, barriers, a reduction) RUNS
# times (default 300) through OSHRUN, each time on a random path (the direct
# path, shm, tcp, or mixed: two simulated nodes) with a random number of PEs
# from 1 to 8, and reports failures (non-zero status) and hangs (no end
# within 60 s). Exit 0 only if every run passed. The last line is the
# summary recorded in docs/reliability.md.
set -u
oshrun=$1 prog=$2 runs=${3:-300} seed=${4:-$$}
RANDOM=$seed
paths=(default shm tcp mixed)
declare -A ok fail hang
for p in "${paths[@]}"; do ok[$p]=0 fail[$p]=0 hang[$p]=0; done
log=$(mktemp "${TMPDIR:-/tmp}/weft-soak.XXXXXX")
trap 'rm -f "$log"' EXIT
start=$(date +%s)
for ((i = 1; i <= runs; i++)); do
    p=${paths[RANDOM % ${#paths[@]}]}
    np=$((RANDOM % 8 + 1))
    [ "$p" = mixed ] && [ $np -lt 2 ] && np=2
    env=(env -u FI_PROVIDER -u WEFT_PROVIDER -u WEFT_ONNODE -u WEFT_TOPOLOGY WEFT_SPIN_YIELD=64)
    case $p in
    shm | tcp) env+=(FI_PROVIDER=$p WEFT_ONNODE=0) ;;
    mixed) env+=(WEFT_TOPOLOGY=nodes=2) ;;
    esac
    t0=$(date +%s.%N)
    timeout -k 5 60 "${env[@]}" "$oshrun" -n $np "$prog" pass >"$log" 2>&1
    rc=$?
    dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    if [ $rc -eq 0 ] && grep -q "fault pass: $np PE(s) OK" "$log"; then
        ok[$p]=$((ok[$p] + 1))
    elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        hang[$p]=$((hang[$p] + 1))
        echo "soak: run $i ($p, $np PEs): HANG (no end within 60 s)"
        cat "$log"
    else
        fail[$p]=$((fail[$p] + 1))
        echo "soak: run $i ($p, $np PEs): FAILED with status $rc after $dt s"
        cat "$log"
    fi
done
total_fail=0
summary=""
for p in "${paths[@]}"; do
    summary+=" $p ${ok[$p]}/$((ok[$p] + fail[$p] + hang[$p])) ok, ${fail[$p]} failed, ${hang[$p]} hung;"
    total_fail=$((total_fail + fail[$p] + hang[$p]))
done
echo "soak: $runs runs (seed $seed) in $(($(date +%s) - start)) s:$summary"
[ $total_fail -eq 0 ]
