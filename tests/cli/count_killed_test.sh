#!/usr/bin/env bash
# count --max-memory killed while it spills: no output, no spill file left, in
# the spill directory or the output's.
# usage: count_killed_test.sh TOKENLAB WORK_DIR
set -uo pipefail
tokenlab=$1 work=$2
rm -rf "$work" && mkdir -p "$work/spill" "$work/out" || exit 1
# An endless stream of distinct words: the table outgrows 1M within a second.
seq 1 1000000000 | sed 's/^/word/' |
  "$tokenlab" count --corpus - --max-memory 1M --spill-dir "$work/spill" -o "$work/out/counts.tsv" \
    2> "$work/err" &
pid=$!
sleep 2
kill -0 "$pid" 2>/dev/null || { echo "FAIL: count ended before it was killed"; cat "$work/err"; exit 1; }
# It is spilling: it holds open files in the spill directory that have no name there.
open_spills=$(ls -l "/proc/$pid/fd" 2>/dev/null | grep -c "$work/spill")
kill -9 "$pid"
wait "$pid" 2>/dev/null
status=0
if [[ -n $(ls -A "$work/spill") ]]; then
  echo "FAIL: spill files left: $(ls -A "$work/spill")"; status=1
fi
if [[ -n $(ls -A "$work/out") ]]; then
  echo "FAIL: output left: $(ls -A "$work/out")"; status=1
fi
if ((open_spills == 0)); then
  echo "FAIL: the process had no spill file open when it was killed"; status=1
fi
((status == 0)) && echo "killed with $open_spills spill files open: no output, no spill files left"
exit $status
