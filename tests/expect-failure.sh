#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# expect-failure.sh: run a job that is expected to fail (or to print a
# particular message) and judge how it ended.
#
#   expect-failure.sh [--status nonzero|N] [--regex ERE]... [--time S] -- cmd args...
#
#   --status nonzero  the job must exit with a non-zero status (default)
#   --status N        the job must exit with exactly N (0 for "must pass")
#   --regex ERE       the combined stdout+stderr must contain a line matching
#                     this extended regular expression (repeatable: all must)
#   --time S          the job must end within S seconds (default 10); a job
#                     still running then is killed and reported as a hang
#
# Exit status: 0 when every expectation holds, 1 otherwise, with a line
# saying which expectation failed. The job's output is always echoed.
set -u

status=nonzero
time_limit=10
regexes=()
while [ $# -gt 0 ]; do
    case "$1" in
    --status) status=$2; shift 2 ;;
    --regex) regexes+=("$2"); shift 2 ;;
    --time) time_limit=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "expect-failure.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
if [ $# -eq 0 ]; then
    echo "expect-failure.sh: no command" >&2
    exit 2
fi

log=$(mktemp "${TMPDIR:-/tmp}/weft-expect.XXXXXX")
trap 'rm -f "$log"' EXIT

start=$(date +%s.%N)
# SIGTERM at the bound, SIGKILL 5 s later if the launcher ignores it.
timeout -k 5 "$time_limit" "$@" >"$log" 2>&1
rc=$?
end=$(date +%s.%N)
elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')

echo "---- job output ----"
cat "$log"
echo "---- end of job output (exit status $rc, ${elapsed} s) ----"

fail=0
timed_out=$(awk -v e="$elapsed" -v t="$time_limit" 'BEGIN { print (e >= t) ? 1 : 0 }')
if [ $rc -eq 124 ] || { [ $rc -eq 137 ] && [ "$timed_out" = 1 ]; }; then
    echo "EXPECT-FAILURE: FAIL: the job did not end within ${time_limit} s (hang; exit status $rc)"
    fail=1
elif [ "$status" = nonzero ]; then
    if [ $rc -eq 0 ]; then
        echo "EXPECT-FAILURE: FAIL: the job exited with status 0, expected a non-zero status"
        fail=1
    fi
elif [ $rc -ne "$status" ]; then
    echo "EXPECT-FAILURE: FAIL: the job exited with status $rc, expected $status"
    fail=1
fi
for re in ${regexes[@]+"${regexes[@]}"}; do
    if ! grep -Eq -- "$re" "$log"; then
        echo "EXPECT-FAILURE: FAIL: no output line matches /$re/"
        fail=1
    fi
done
if [ $fail -eq 0 ]; then
    echo "EXPECT-FAILURE: ok (status $rc, ${elapsed} s, ${#regexes[@]} pattern(s) matched)"
fi
exit $fail
