#!/usr/bin/env bash
# train_sentencepiece_like against spm_train --model_type=bpe: for each case,
# spm_train (Debian's sentencepiece 0.1.97, the reference) trains a model on a
# text, then tokenlab retrains "like" that model on the same text, and the two
# .model files must hold the same pieces, scores and types at every id.
#
# Texts (fixed prefixes of the shared corpora, ~7 MB in all): English Wikipedia
# (6,000 lines), mono/hi.txt (all), mono/ja.txt and mono/zh-Hans.txt (3,000
# lines each), mono/am.txt (all), at 8,000 pieces with the defaults (nmt_nfkc);
# then the flags that change training, on 2,000 English lines at 4,000 pieces:
# byte_fallback, split_digits with user-defined and control symbols,
# treat_whitespace_as_suffix, split_by_whitespace=false, character_coverage,
# required_chars, Japanese without white-space splitting and with suffix markers,
# max_sentencepiece_length with the script and number splits off, sampled and
# first-N input_sentence_size, identity normalization, moved special ids,
# hostile bytes, and a template whose flags are changed by overrides. Prints the seconds each side
# took (spm_train with --num_threads=1: its BPE trainer has one thread).
#
# usage: spm_training.sh CHECK_TOOL SHARED_DIR WORK_DIR
#   CHECK_TOOL: tokenlab_sentencepiece_train_check; SHARED_DIR: the shared
#   corpora's parent (../shared; $TOKENLAB_SHARED_DIR overrides it).
# Exits 77 (SKIPPED) when spm_train, xz or a corpus is missing.
set -euo pipefail
[[ $# == 3 ]] || { echo "usage: spm_training.sh CHECK_TOOL SHARED_DIR WORK_DIR" >&2; exit 2; }
tool=$1 shared=${TOKENLAB_SHARED_DIR:-$2}
mkdir -p "$3"
work=$(cd "$3" && pwd)
corpora=$shared/corpora
skip() { echo "SKIPPED: $*"; exit 77; }
command -v spm_train >/dev/null || skip "spm_train not found (Debian package sentencepiece)"
command -v xz >/dev/null || skip "xz not found"
for f in en/wikipedia-en.txt.xz mono/hi.txt mono/ja.txt mono/zh-Hans.txt mono/am.txt; do
  [[ -f $corpora/$f ]] || skip "$corpora/$f not found"
done

cd "$work"
# head closes the pipe early, so xz's SIGPIPE is expected.
{ xz -dc "$corpora/en/wikipedia-en.txt.xz" 2>/dev/null || true; } | head -n 6000 > en.txt
head -n 2000 en.txt > en2k.txt
cp "$corpora/mono/hi.txt" hi.txt
head -n 3000 "$corpora/mono/ja.txt" > ja.txt
head -n 3000 "$corpora/mono/zh-Hans.txt" > zh.txt
cp "$corpora/mono/am.txt" am.txt
[[ $(wc -l < en.txt) -eq 6000 ]] || { echo "error: could not read the English text" >&2; exit 1; }

now() { date +%s%N; }
status=0 spm_ns=0 tokenlab_ns=0
# check NAME TEXT VOCAB TEMPLATE [spm flags...] [-- tokenlab overrides...]
# TEMPLATE "self": tokenlab trains like spm's own model; else like TEMPLATE.model.
check() {
  local name=$1 text=$2 vocab=$3 template=$4 spm_flags=() overrides=()
  shift 4
  while [[ $# -gt 0 && $1 != -- ]]; do spm_flags+=("$1"); shift; done
  [[ $# -gt 0 ]] && shift
  for o in "$@"; do overrides+=(--flag "$o"); done
  local start
  start=$(now)
  spm_train --input="$text" --model_prefix="$name" --model_type=bpe --vocab_size="$vocab" \
    --num_threads=1 "${spm_flags[@]}" > "$name.spm.log" 2>&1 || {
    echo "FAIL: $name: spm_train failed"; tail -3 "$name.spm.log"; status=1; return; }
  spm_ns=$((spm_ns + $(now) - start))
  [[ $template == self ]] && template=$name
  start=$(now)
  "$tool" train "$template.model" "$name.tokenlab.model" "$vocab" "$text" \
    "${overrides[@]}" > "$name.tokenlab.log" 2>&1 || {
    echo "FAIL: $name: tokenlab failed"; tail -3 "$name.tokenlab.log"; status=1; return; }
  tokenlab_ns=$((tokenlab_ns + $(now) - start))
  if result=$("$tool" compare "$name.model" "$name.tokenlab.model"); then
    echo "$name: $result"
  else
    echo "FAIL: $name: $result"
    status=1
  fi
}

check en en.txt 8000 self
check hi hi.txt 8000 self
check ja ja.txt 8000 self
check zh-Hans zh.txt 8000 self
check am am.txt 8000 self
check byte_fallback en2k.txt 4000 self --byte_fallback=true
check digits_symbols en2k.txt 4000 self --split_digits=true --user_defined_symbols=the,of \
  --control_symbols='[SEP]'
check suffix en2k.txt 4000 self --treat_whitespace_as_suffix=true
check no_whitespace_split en2k.txt 4000 self --split_by_whitespace=false
check coverage hi.txt 4000 self --character_coverage=1.0
check required_chars hi.txt 3000 self --character_coverage=0.98 --required_chars=XYZ
head -c 300000 ja.txt > ja300k.txt
check suffix_no_split ja300k.txt 3000 self --split_by_whitespace=false --treat_whitespace_as_suffix=true
check length_scripts hi.txt 4000 self --max_sentencepiece_length=4 \
  --split_by_unicode_script=false --split_by_number=false
check sampled en.txt 4000 self --input_sentence_size=2000 --shuffle_input_sentence=true
check first_lines en.txt 4000 self --input_sentence_size=2000 --shuffle_input_sentence=false
check identity en2k.txt 4000 self --normalization_rule_name=identity \
  --remove_extra_whitespaces=false --add_dummy_prefix=false
check special_ids en2k.txt 4000 self --unk_id=3 --bos_id=-1 --eos_id=0 --pad_id=1 --unk_piece=UNK
check whitespace_only en2k.txt 4000 self --allow_whitespace_only_pieces=true \
  --split_by_whitespace=false --remove_extra_whitespaces=false
# Hostile bytes: ill-formed UTF-8, NUL, CR, tabs, meta pieces and ▁ in the text.
for i in $(seq 1 400); do
  printf 'w%d \377a\000b <s>%d\tx\r \342\226 \342\226\201\342\226\201y%d </s>z <0x41>\n' \
    $((i % 7)) $((i % 13)) $((i % 5))
done > hostile.txt
check hostile hostile.txt 300 self --hard_vocab_limit=false --byte_fallback=true
# The template's flags changed by overrides: like the default English model.
check overrides en2k.txt 4000 en --byte_fallback=true --split_digits=true --character_coverage=1.0 \
  -- byte_fallback=true split_digits=true character_coverage=1.0

awk -v s="$spm_ns" -v t="$tokenlab_ns" 'BEGIN {
  printf "time: spm_train %.1f s, tokenlab %.1f s (%.1fx)\n", s / 1e9, t / 1e9, s / t }'
exit $status
