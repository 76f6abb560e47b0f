#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# foreign-shm.sh OSHRUN PROGRAM EXPECT
# Another user pre-creates an empty, world-writable /dev/shm/<pid>:<uid>:0
# for each PE's process id (the libfabric shm provider's region name) before
# the PE starts. EXPECT "refuse": the job must fail cleanly with weft's
# message (not SIGBUS); EXPECT "pass": the job must pass (the direct path
# opens no provider region). Needs root to create a file owned by another
# user: skipped (77) otherwise. The planted files are removed afterwards.
set -u
oshrun=$1 prog=$2 expect=$3
[ "$(id -u)" = 0 ] || { echo "foreign-shm.sh: not root, cannot plant another user's file; skipping"; exit 77; }
list=$(mktemp "${TMPDIR:-/tmp}/weft-planted.XXXXXX")
out=$(mktemp "${TMPDIR:-/tmp}/weft-planted-out.XXXXXX")
trap 'xargs -r rm -f <"$list"; rm -f "$list" "$out"' EXIT
export WEFT_PLANT_LIST=$list
# sh -c keeps its pid through exec: the file is named for the PE's pid.
timeout -k 5 30 "$oshrun" -n 2 sh -c 'f=/dev/shm/$$:$(id -u):0; : >"$f" && chown 65534 "$f" &&
    chmod 666 "$f" && echo "$f" >>"$WEFT_PLANT_LIST"; exec "$0" pass' "$prog" >"$out" 2>&1
rc=$?
cat "$out"
echo "foreign-shm.sh: exit status $rc"
[ "$(wc -l <"$list")" -ge 1 ] || { echo "FAIL: no file was planted"; exit 1; }
case $expect in
refuse)
    grep -q "belongs to user 65534, not to us" "$out" || { echo "FAIL: no refusal message"; exit 1; }
    [ $rc -eq 1 ] || { echo "FAIL: status $rc, expected 1"; exit 1; } ;;
pass)
    [ $rc -eq 0 ] || { echo "FAIL: status $rc, expected 0"; exit 1; } ;;
esac
echo "foreign-shm.sh: ok"
