#!/usr/bin/env bash
# tokenlab train --like against Hugging Face tokenizers' own trainers (npm
# @anush008/tokenizers 0.6.0, HF tokenizers 0.22): four untrained templates (GPT-2's
# byte-level BPE, a Whitespace BPE, a Metaspace BPE and BERT's WordPiece) trained
# by HF (Tokenizer.train: the default BpeTrainer/WordPieceTrainer, vocab_size
# 30000) and by tokenlab on the same text, in English, Hindi, Japanese and Chinese.
# The two files must be byte-identical: same vocabulary, same ids, same merges in
# the same order, same bytes.
#
# Two settings say what the HF run did that is not a default of --like:
#  - --option initial_alphabet= : Tokenizer.train's trainer has no initial
#    alphabet; --like adds the 256 byte characters for a ByteLevel pre-tokenizer,
#    as transformers' train_new_from_iterator does;
#  - WordPiece: --option symbol_ids_from=HF.json : HF numbers the "##x" symbols
#    in the order of a randomly seeded hash map, so two HF runs differ (76 of
#    30,000 entries on 3 MB of English); given HF's file, tokenlab numbers them as
#    that run did. Without it, the difference to HF's file is printed (not a failure).
#
# usage: hf_trainers.sh TOKENLAB SHARED_DIR WORK_DIR
#        hf_trainers.sh --templates-only DIR   (writes the four templates, for
#                                               tools/bench/bench-train-like)
# Exits 77 (SKIPPED) when node, the npm references or the corpora are missing.
set -uo pipefail
write_templates() {
local bpe_model='"model":{"type":"BPE","dropout":null,"unk_token":null,"continuing_subword_prefix":null,"end_of_word_suffix":null,"fuse_unk":false,"byte_fallback":false,"ignore_merges":false,"vocab":{},"merges":[]}'
local head='"version":"1.0","truncation":null,"padding":null,"added_tokens":[]'
cat > byte-level.json <<JSON
{$head,"normalizer":null,"pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true},"post_processor":null,"decoder":{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true},$bpe_model}
JSON
cat > whitespace.json <<JSON
{$head,"normalizer":{"type":"NFC"},"pre_tokenizer":{"type":"Whitespace"},"post_processor":null,"decoder":null,$bpe_model}
JSON
cat > metaspace.json <<JSON
{$head,"normalizer":null,"pre_tokenizer":{"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true},"post_processor":null,"decoder":{"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true},$bpe_model}
JSON
cat > bert.json <<JSON
{$head,"normalizer":{"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,"strip_accents":null,"lowercase":true},"pre_tokenizer":{"type":"BertPreTokenizer"},"post_processor":null,"decoder":{"type":"WordPiece","prefix":"##","cleanup":true},"model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##","max_input_chars_per_word":100,"vocab":{}}}
JSON

}
if [[ ${1:-} == --templates-only ]]; then
  mkdir -p "$2" && cd "$2" && write_templates
  exit
fi
(($# >= 3)) || { echo "usage: hf_trainers.sh TOKENLAB SHARED_DIR WORK_DIR" >&2; exit 2; }
tokenlab=$1 shared=$2 work=$3
[[ $tokenlab != */* ]] || tokenlab=$(cd "$(dirname "$tokenlab")" && pwd)/$(basename "$tokenlab")
here=$(cd "$(dirname "$0")" && pwd)
modules=${TOKENLAB_REFERENCES:-${XDG_CACHE_HOME:-$HOME/.cache}/tokenlab/references}/node_modules
mono=$shared/corpora/mono
wiki=$shared/corpora/en/wikipedia-en.txt.xz
skip() { echo "SKIPPED: $*"; exit 77; }
[[ -f $wiki && -f $mono/hi.txt && -f $mono/ja.txt && -f $mono/zh-Hans.txt ]] ||
  skip "corpora not found in $shared/corpora"
command -v node >/dev/null || skip "node not found"
[[ -d $modules/@anush008/tokenizers ]] ||
  skip "HF tokenizers missing from $modules: run tools/scripts/fetch-references"
export TOKENLAB_REFERENCES_MODULES=$modules
mkdir -p "$work"
cd "$work" || exit 1

# Texts: 4 MB of English Wikipedia; 2 MB of each other language, whole lines.
xz -dc "$wiki" | head -c 4000000 | sed '$d' > en.txt
for lang in hi ja zh-Hans; do head -c 2000000 "$mono/$lang.txt" | sed '$d' > "$lang.txt"; done

write_templates

status=0
for template in byte-level whitespace metaspace bert; do
  for lang in en hi ja zh-Hans; do
    name=$template-$lang
    node "$here/hf_train_template.js" "$template.json" "$lang.txt" "hf-$name.json" >/dev/null 2>hf-$name.log ||
      { echo "FAIL  $name: HF's trainer failed: $(tail -3 hf-$name.log)"; status=1; continue; }
    options=()
    [[ $template != byte-level ]] || options+=(--option initial_alphabet=)
    [[ $template != bert ]] || options+=(--option "symbol_ids_from=hf-$name.json")
    if ! "$tokenlab" train --like "$template.json" --corpus "$lang.txt" -v 30000 "${options[@]}" \
      -o "tl-$name.json" 2>tl-$name.log; then
      echo "FAIL  $name: tokenlab train --like failed: $(tail -3 tl-$name.log)"; status=1; continue
    fi
    vocab=$(grep -c '^      "' "hf-$name.json")
    if cmp -s "hf-$name.json" "tl-$name.json"; then
      echo "ok    $name: byte-identical to HF's file ($(wc -c < "hf-$name.json") bytes)"
    else
      echo "FAIL  $name: differs from HF's file; first difference:"
      diff "hf-$name.json" "tl-$name.json" | head -6
      status=1
    fi
    if [[ $template == bert ]]; then
      "$tokenlab" train --like bert.json --corpus "$lang.txt" -v 30000 -o "tl-$name-own.json" 2>/dev/null
      differing=$(comm -3 <(grep '^      "' "hf-$name.json" | sed 's/: [0-9]*,*$//' | sort) \
        <(grep '^      "' "tl-$name-own.json" | sed 's/: [0-9]*,*$//' | sort) | wc -l)
      echo "      $name without symbol_ids_from: $differing entries differ from this HF run (## symbols in code point order; HF's own runs differ among themselves likewise)"
    fi
  done
done
exit $status
