#!/usr/bin/env bash
# Runs tokenlab_regex_preset_check on every corpus in ../shared: all NTREX-128 and
# mono files, the first 10 MB of English Wikipedia, random stress lines and every
# code point in context; then, with Unicode 16.0's classes (HF's), stress lines
# and every code point again (16.0 changes no class of a character assigned
# before 15.1 except U+1171E, so the corpora would only repeat the first pass).
# usage: regex_preset_check.sh CHECK_BINARY SHARED_DIR WORK_DIR
# Exits 77 (SKIPPED) when the corpora are missing.
set -euo pipefail
check=$1 shared=$2 work=$3
corpora=$shared/corpora
for p in parallel/ntrex128 mono en/wikipedia-en.txt.xz; do
  [[ -e $corpora/$p ]] || { echo "SKIPPED: $corpora/$p not found"; exit 77; }
done
mkdir -p "$work"
wiki=$work/wikipedia-en-10MB.txt
if [[ ! -s $wiki ]]; then
  # head closes the pipe early, so xz's SIGPIPE is expected.
  { xz -dc "$corpora/en/wikipedia-en.txt.xz" 2>/dev/null || true; } | head -c 10000000 > "$wiki.tmp"
  mv "$wiki.tmp" "$wiki"
fi
status=0
"$check" --stress 200000 --codepoints --show 5 "$corpora/parallel/ntrex128" "$corpora/mono" "$wiki" ||
  status=$?
"$check" --unicode 16.0 --stress 50000 --codepoints --show 5 || status=$((status > 0 ? status : $?))
exit "$status"
