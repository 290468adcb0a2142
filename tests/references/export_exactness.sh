#!/usr/bin/env bash
# Exported tokenizers against the libraries they are exported for: each built-in
# segmenter is trained on real text (English Wikipedia and Hindi; Japanese too for
# BPE and unigram) and exported with `tokenlab export`:
#   - tokenizer.json, loaded into Hugging Face tokenizers (npm @anush008/tokenizers
#     0.6.0, Tokenizer.fromFile);
#   - tiktoken, the rank file with tiktoken's own pattern and the encoder JSON,
#     loaded into npm tiktoken 1.0.22 (new Tiktoken(ranks, specials, pat_str));
#   - sentencepiece, the .model file, run by spm_encode and spm_decode.
# On every other line of all 45 NTREX-128 languages (11 MB) and every 4th line of
# the first 10 MB of English Wikipedia (2.5 MB), the reference's ids must equal
# `tokenlab encode` of the trained model, and its decoded text must equal
# `tokenlab decode`. (Sampled, not cut: every script and every kind of line stays
# in, and the test runs in less than half the time of the whole 32 MB, which
# TOKENLAB_REFERENCE_FULL=1 takes.) The models trained
# with every default (*-default: the unicode pre-tokenizer, which HF runs as a
# Split pattern) are compared on held-out samples instead, so that they do not
# double the test's run time: every 10th line of each NTREX-128 language, the
# first 2,000 of the Wikipedia lines the others skip, and every 20th line of the Amharic,
# Marathi, Tamil and Chinese monolingual corpora (none of it training text). `tokenlab export
# --verify` (tokenlab's own readers) must agree too, and so must the model that
# `tokenlab import` makes of the exported file.
#
# usage: export_exactness.sh TOKENLAB SHARED_DIR WORK_DIR [NAME...]
# Exits 0 if every line of every model is identical, 1 otherwise, 77 (SKIPPED)
# when node, the npm references (tools/scripts/fetch-references), spm_encode or the
# corpora are missing.
set -uo pipefail
(($# >= 3)) || { echo "usage: export_exactness.sh TOKENLAB SHARED_DIR WORK_DIR [NAME...]" >&2; exit 2; }
tokenlab=$1 shared=$2 work=$3
shift 3
[[ $tokenlab != */* ]] || tokenlab=$(cd "$(dirname "$tokenlab")" && pwd)/$(basename "$tokenlab")
[[ ! -d $shared ]] || shared=$(cd "$shared" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
modules=${TOKENLAB_REFERENCES:-${XDG_CACHE_HOME:-$HOME/.cache}/tokenlab/references}/node_modules
ntrex=$shared/corpora/parallel/ntrex128
wiki=$shared/corpora/en/wikipedia-en.txt.xz

skip() { echo "SKIPPED: $*"; exit 77; }
[[ -d $ntrex && -f $wiki && -f $shared/corpora/mono/hi.txt ]] || skip "corpora not found in $shared/corpora"
command -v node >/dev/null || skip "node not found"
[[ -d $modules/@anush008/tokenizers && -d $modules/tiktoken ]] ||
  skip "HF tokenizers or tiktoken missing from $modules: run tools/scripts/fetch-references"
command -v spm_encode >/dev/null || skip "spm_encode not found (Debian: sentencepiece)"
export TOKENLAB_REFERENCES_MODULES=$modules
mkdir -p "$work"
work=$(cd "$work" && pwd)
cd "$work" || exit 1

# NAME: algorithm, then train options. The pipelines are the exportable ones:
# SentencePiece-style (whitespace, ▁ before each word), BERT's, and a GPT regex.
declare -A spec=(
  [bpe-sp]="bpe --pre-tokenizer whitespace"
  [bpe-bytes-o200k]="bpe --pre-tokenizer o200k --option units=bytes"
  [bpe-bytes-cl100k-raw]="bpe --pre-tokenizer cl100k --normalization none --option units=bytes"
  [bpe-chars-cl100k]="bpe --pre-tokenizer cl100k --normalization none"
  [unigram-sp]="unigram --pre-tokenizer whitespace"
  [unigram-sp-nfkc]="unigram --pre-tokenizer whitespace --normalization nfkc --option byte_fallback=true"
  [bpe-sp-raw]="bpe --pre-tokenizer whitespace --normalization none --option byte_fallback=true"
  [wordpiece-bert]="wordpiece --normalization bert --lowercase --pre-tokenizer bert --marker none"
  [wordpiece-sp]="wordpiece --pre-tokenizer whitespace"
  [word-sp]="word --pre-tokenizer whitespace"
  [character-sp]="character --pre-tokenizer whitespace"
  # Every default: what `tokenlab train -a ALGO -v 8000` gives, nothing else set.
  [bpe-default]="bpe"
  [unigram-default]="unigram"
  [wordpiece-default]="wordpiece"
  [word-default]="word"
  [character-default]="character"
)
# The formats each model is exported to (tokenizer.json when not listed).
declare -A formats=(
  [bpe-sp]="tokenizer.json sentencepiece"
  [bpe-sp-raw]="tokenizer.json sentencepiece"
  [bpe-bytes-cl100k-raw]="tokenizer.json tiktoken tiktoken-json"
  [unigram-sp]="tokenizer.json sentencepiece"
  [unigram-sp-nfkc]="tokenizer.json sentencepiece"
)
names=("$@")
((${#names[@]})) || names=(bpe-sp bpe-sp-raw bpe-bytes-o200k bpe-bytes-cl100k-raw bpe-chars-cl100k unigram-sp unigram-sp-nfkc wordpiece-bert wordpiece-sp word-sp character-sp
  bpe-default unigram-default wordpiece-default word-default character-default)

# ---- texts --------------------------------------------------------------------------
# TOKENLAB_REFERENCE_FULL=1: every line of NTREX and of the 10 MB (in a fresh WORK_DIR).
full=${TOKENLAB_REFERENCE_FULL:-0}
if [[ ! -f ntrex.txt || ! -f wiki.txt || ! -f train-en-hi.txt || ! -f train-en-hi-ja.txt ]]; then
  for f in "$ntrex"/*.txt; do awk -v full="$full" 'full == 1 || NR % 2 == 1' "$f"; done > ntrex.txt
  { xz -dc "$wiki" 2>/dev/null || true; } | head -c 10000000 > wiki10m.txt
  truncate -s $(($(wc -c < wiki10m.txt) - $(tail -n 1 wiki10m.txt | wc -c))) wiki10m.txt
  awk -v full="$full" 'full == 1 || NR % 4 == 1' wiki10m.txt > wiki.txt
  # Training text: Wikipedia after the 10 MB the tests encode, then Hindi (and Japanese).
  { xz -dc "$wiki" 2>/dev/null || true; } | tail -c +10000001 | head -n 5000 | tail -n +2 > train.tmp
  cat "$shared/corpora/mono/hi.txt" >> train.tmp
  mv train.tmp train-en-hi.txt
  cat train-en-hi.txt "$shared/corpora/mono/ja.txt" > train-en-hi-ja.txt
fi
# The samples the default models are compared on (held out, as the texts above).
if [[ ! -f ntrex-sample.txt || ! -f wiki-sample.txt || ! -f mono-sample.txt ]]; then
  for f in "$ntrex"/*.txt; do awk 'NR % 10 == 2' "$f"; done > ntrex-sample.txt
  awk 'NR % 4 == 2' wiki10m.txt | head -n 2000 > wiki-sample.txt
  for l in am mr ta zh-Hans; do
    [[ ! -f $shared/corpora/mono/$l.txt ]] || awk 'NR % 20 == 1' "$shared/corpora/mono/$l.txt"
  done > mono-sample.txt
fi

# Columns side by side, U+001F between them: no corpus line holds it.
sep=$'\x1f'
status=0
# compare WHAT TEXT REFERENCE TOKENLAB: counts the lines where the two files
# differ and shows the first three with the input line; any difference fails.
compare() {
  local what=$1 text=$2 theirs=$3 ours=$4 differ
  differ=$(paste -d "$sep" "$theirs" "$ours" | awk -F "$sep" '$1 != $2' | wc -l)
  echo "$what: $differ of $(wc -l < "$text") lines differ between the reference and tokenlab"
  ((differ == 0)) && return
  status=1
  paste -d "$sep" "$text" "$theirs" "$ours" |
    awk -F "$sep" '$2 != $3 && n++ < 3 { printf "  line %d: %.200s\n    reference: %.200s\n    tokenlab:  %.200s\n", NR, $1, $2, $3 }'
}
# reference FORMAT FILE TEXT IDS DECODED: the reference library's ids and decoded
# text for every line of TEXT, from the exported FILE.
reference() {
  local format=$1 file=$2 text=$3 ids=$4 decoded=$5
  case $format in
    tokenizer.json) node "$here/pretrained_reference.js" hf "$file" "$text" "$ids" "$decoded" ;;
    tiktoken) node "$here/pretrained_reference.js" tiktoken "$file:$(cat "$file.pattern")" \
                "$text" "$ids" "$decoded" ;;
    tiktoken-json) node "$here/pretrained_reference.js" tiktoken "$file" "$text" "$ids" "$decoded" ;;
    sentencepiece)
      spm_encode --model "$file" --output_format id < "$text" > "$ids" &&
        spm_decode --model "$file" --input_format id < "$ids" > "$decoded" ;;
  esac
}
# The file name each format is written to (npm tiktoken wants .json for JSON).
declare -A suffix=([tokenizer.json]=json [tiktoken]=tiktoken [tiktoken-json]=tiktoken.json
  [sentencepiece]=model)
for name in "${names[@]}"; do
  [[ -v spec[$name] ]] || { echo "error: unknown model '$name'" >&2; exit 2; }
done
# check_model NAME: trains, exports and compares one model; sets status=1 on any
# difference or failure.
check_model() {
  local name=$1 algorithm options corpus texts ntrex_text text format file import_format
  read -r algorithm options <<< "${spec[$name]}"
  corpus=train-en-hi.txt
  [[ $algorithm == bpe || $algorithm == unigram || $name == *-default ]] && corpus=train-en-hi-ja.txt
  # The texts compared: NTREX and Wikipedia, or the samples for the default models.
  texts=(ntrex wiki)
  [[ $name != *-default ]] || texts=(ntrex-sample wiki-sample mono-sample)
  ntrex_text=${texts[0]}
  # shellcheck disable=SC2086  # options are words
  "$tokenlab" train -a "$algorithm" -v 8000 --corpus "$corpus" $options -o "$name.tkl" 2> "$name.train.log" ||
    { echo "FAIL: $name: training failed"; cat "$name.train.log"; status=1; return; }
  for text in "${texts[@]}"; do
    "$tokenlab" encode -m "$name.tkl" -i "$text.txt" -o "$name.$text.ids"
    "$tokenlab" decode -m "$name.tkl" -i "$name.$text.ids" -o "$name.$text.decoded"
  done
  for format in ${formats[$name]:-tokenizer.json}; do
    file=$name.${suffix[$format]}
    if ! "$tokenlab" export -m "$name.tkl" --format "$format" -o "$file" \
        --verify $ntrex_text.txt 2> "$file.verify.log"; then
      echo "FAIL: $name: export --format $format --verify"; cat "$file.verify.log"; status=1; continue
    fi
    echo "$name $format: $(tail -n 1 "$file.verify.log")"
    # The rank file's pattern, as export names it to the user.
    [[ $format != tiktoken ]] ||
      sed -n 's/.*use them with the pattern \([a-z0-9_]*\).*/\1/p' "$file.verify.log" > "$file.pattern"
    # import(export(m)) encodes as m: the file made a tokenlab model again.
    import_format=auto
    [[ $format != tiktoken ]] || import_format=tiktoken:$(cat "$file.pattern")
    if "$tokenlab" import "$file" --format "$import_format" -o "$file.tkl" 2> "$file.import.log" &&
        "$tokenlab" encode -m "$file.tkl" -i $ntrex_text.txt -o "$file.ntrex.imported.ids"; then
      compare "$name $format imported $ntrex_text ids" $ntrex_text.txt "$file.ntrex.imported.ids" \
        "$name.$ntrex_text.ids"
    else
      echo "FAIL: $name: tokenlab import of the $format export"; cat "$file.import.log"; status=1
    fi
    for text in "${texts[@]}"; do
      reference "$format" "$file" "$text.txt" "$file.$text.ref.ids" "$file.$text.ref.decoded" ||
        { echo "FAIL: $name: the reference could not run the $format export"; status=1; continue; }
      compare "$name $format $text ids" "$text.txt" "$file.$text.ref.ids" "$name.$text.ids"
      # Decoding: the reference's decoder on its ids against `tokenlab decode` on tokenlab's.
      compare "$name $format $text decoded text" "$text.txt" "$file.$text.ref.decoded" \
        "$name.$text.decoded"
    done
  done
}
# A model that passes leaves nothing behind: every model's files together are
# 1.8 GB, which with the other reference tests once filled CI's disk. A failing
# one keeps its files; TOKENLAB_REFERENCE_KEEP=1 keeps every model's. (Names
# never extend each other past a dot, so NAME.* is one model's files.)
for name in "${names[@]}"; do
  status_before=$status status=0
  check_model "$name"
  ((status != 0)) || [[ ${TOKENLAB_REFERENCE_KEEP:-0} == 1 ]] || rm -f -- "$name".*
  ((status |= status_before))
done
((status == 0)) && echo "all identical"
exit $status
