#!/usr/bin/env bash
# tokenlab nbest --ids on SentencePiece unigram .model files against spm_encode
# --output_format=nbest_id (Debian's sentencepiece), line by line: the first 100
# NTREX-128 lines of English, Hindi and Japanese, the 5 best segmentations of each
# whole line, on the models spm_models.sh trains (en, hi, ja; en with byte fallback
# also on Hindi, whose characters it mostly lacks).
# usage: spm_nbest.sh TOKENLAB SHARED_DIR WORK_DIR
# Exits 77 (SKIPPED) when spm_train/spm_encode or the corpora are missing.
set -euo pipefail
tokenlab=$1 shared=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
ntrex=$shared/corpora/parallel/ntrex128
skip() { echo "SKIPPED: $*"; exit 77; }
command -v spm_encode >/dev/null || skip "spm_encode not found (Debian package sentencepiece)"
[[ -d $ntrex ]] || skip "NTREX-128 not found in $ntrex"
mkdir -p "$work"
"$here/spm_models.sh" "$work/spm" "$shared" > "$work/spm_models.log" || {
  rc=$?; cat "$work/spm_models.log"; exit $rc; }
status=0
check() {  # check MODEL LANG
  local model=$work/spm/$1.model text=$work/$2.txt ref=$work/$1.$2.ref out=$work/$1.$2.out
  head -n 100 "$ntrex/$2.txt" > "$text"
  spm_encode --model="$model" --output_format=nbest_id --nbest_size=5 < "$text" > "$ref"
  : > "$out"
  while IFS= read -r line; do
    "$tokenlab" nbest -m "$model" -k 5 --ids -- "$line" >> "$out"
  done < "$text"
  local differ
  differ=$(paste -d '|' "$ref" "$out" | awk -F '|' '$1 != $2' | wc -l)
  echo "$1 $2: $differ of $(wc -l < "$ref") n-best lines differ ($(wc -l < "$out") from tokenlab)"
  if ((differ > 0)) || [[ $(wc -l < "$ref") != $(wc -l < "$out") ]]; then
    status=1
    paste -d '|' "$ref" "$out" | awk -F '|' '$1 != $2 { print "  line " NR ": " $1 " / " $2 }' | head -5
  fi
}
check spm-en-unigram en
check spm-hi-unigram hi
check spm-ja-unigram ja
check spm-en-unigram-bytefallback hi
exit $status
