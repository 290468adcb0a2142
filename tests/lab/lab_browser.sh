#!/usr/bin/env bash
# Runs `tokenlab lab` on the English fixture and drives the page in headless
# Chromium (lab_browser.js), checking its numbers against `tokenlab trace`.
# usage: lab_browser.sh TOKENLAB CORPUS WORK_DIR
# Exits 0 when the page is right, 1 when not, 77 (SKIPPED) without chromium,
# node or puppeteer-core (tools/scripts/fetch-references caches it).
set -uo pipefail
tokenlab=$1 corpus=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
modules=${TOKENLAB_REFERENCES:-${XDG_CACHE_HOME:-$HOME/.cache}/tokenlab/references}/node_modules
skip() { echo "SKIPPED: $*"; exit 77; }
[[ -x /usr/bin/chromium ]] || skip "chromium not installed (Debian: chromium)"
command -v node >/dev/null || skip "node not found"
[[ -d $modules/puppeteer-core ]] || skip "puppeteer-core missing from $modules: run tools/scripts/fetch-references"
export TOKENLAB_REFERENCES_MODULES=$modules
mkdir -p "$work" && cd "$work" || exit 1

# The trace the page must reproduce, as JSON rows.
"$tokenlab" trace bpe --words "low:5 lower:2 newest:6 widest:3 wider:2" --merges 8 \
    --marker suffix > trace.txt || { echo "FAIL: tokenlab trace"; exit 1; }
awk '/^ +[0-9]+ / { n = NF; printf "%s{\"pair\": \"%s + %s\", \"tokens\": %s, \"vocabulary\": %s}",
    (c++ ? "," : "["), $2, $4, $(n-1), $n } END { print "]" }' trace.txt > trace.json

# Real tokenizers, when tools/scripts/fetch-references cached them: the default
# ticks must be gpt4o and llama3 (not the first two by name, deepseek_v3 and
# gpt2), and GPT-2 must be on the vocabulary-size section.
real=()
for name in deepseek_v3 gpt4o llama3; do
  file=$modules/@lenml/tokenizer-$name/models/tokenizer.json
  [[ -f $file ]] && real+=(--tokenizer "$name=$file")
done
[[ -f $modules/tiktoken/encoders/gpt2.json ]] && real+=(--tokenizer "gpt2=$modules/tiktoken/encoders/gpt2.json")
export LAB_REAL_TOKENIZERS=$(( ${#real[@]} / 2 ))

"$tokenlab" lab --port 0 --corpus "$corpus" -v 400 --sweep-sizes 100,200,400 --no-pretrained \
    "${real[@]}" > lab.out 2> lab.err &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null' EXIT
url=
for _ in $(seq 1 600); do
  url=$(grep -o 'http://[^ ]*' lab.out 2>/dev/null | head -n 1)
  [[ -n $url ]] && break
  kill -0 $server 2>/dev/null || { echo "FAIL: tokenlab lab exited"; cat lab.err; exit 1; }
  sleep 0.1
done
[[ -n $url ]] || { echo "FAIL: tokenlab lab printed no URL"; cat lab.err; exit 1; }
node "$here/lab_browser.js" "$url" trace.json lab.png || exit 1
# A blank page compresses to a few kilobytes; chips, tables and the plot do not.
size=$(stat -c %s lab.png)
((size > 50000)) || { echo "FAIL: the screenshot is $size bytes: a blank page?"; exit 1; }
echo "screenshot: $work/lab.png ($size bytes)"
