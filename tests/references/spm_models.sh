#!/usr/bin/env bash
# Trains the SentencePiece models that pretrained_exactness.sh reads with tokenlab
# and encodes with spm_encode (the reference): real .model files, made by
# SentencePiece's own trainer (Debian's spm_train), for English, Hindi and Japanese,
# unigram and BPE, vocabulary 8,000, default normalization (nmt_nfkc), plus unigram
# and BPE models with --byte_fallback=true:
#   WORK_DIR/spm-{en,hi,ja}-{unigram,bpe}.model
#   WORK_DIR/spm-en-{unigram,bpe}-bytefallback.model
# Models already present are kept, so reruns cost nothing.
#
# Training text (a fixed prefix, so the models do not depend on anything but the
# shared corpora): the first 10,000 lines (4.8 MB) of English Wikipedia, all of
# mono/hi.txt (3,188 lines, 0.75 MB), the first 6,000 lines (2.2 MB) of mono/ja.txt.
# Each model takes at most ~20 s on one core (Japanese unigram is the slowest).
#
# Determinism: spm_train gives byte-identical models for identical flags and input,
# but the bytes depend on three things:
#   * --num_threads: unigram's EM sums expected counts per thread, so another thread
#     count changes scores in the last digits (433 of 8,000 lines of the Hindi .vocab
#     differ between 1 and 16 threads) and can change which pieces survive. Fixed
#     here at 1.
#   * the trainer_spec stored in the model records --input and --model_prefix as
#     given, so training runs in a scratch directory on relative names
#     (train.txt, model) and the models do not depend on WORK_DIR or SHARED_DIR.
#   * --random_seed (default: from std::random_device) matters only when sentences
#     are sampled (--input_sentence_size > 0, not used here); fixed at 1 anyway.
# usage: spm_models.sh WORK_DIR SHARED_DIR [check]
#   check: train every model a second time and compare the bytes (exit 1 if any
#   differ).
# Exits 77 (SKIPPED) when spm_train or the corpora are missing.
set -euo pipefail
[[ $# == 2 || ($# == 3 && $3 == check) ]] || {
  echo "usage: spm_models.sh WORK_DIR SHARED_DIR [check]" >&2
  exit 2
}
mkdir -p "$1"
work=$(cd "$1" && pwd) shared=$2 check=${3:-}
corpora=$shared/corpora
skip() { echo "SKIPPED: $*"; exit 77; }
command -v spm_train >/dev/null || skip "spm_train not found (Debian package sentencepiece)"
command -v xz >/dev/null || skip "xz not found"
for f in en/wikipedia-en.txt.xz mono/hi.txt mono/ja.txt; do
  [[ -f $corpora/$f ]] || skip "$corpora/$f not found"
done

scratch=$(mktemp -d "$work/spm-train.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# seconds_since START_NS: elapsed time, one decimal.
seconds_since() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }

# training_text LANG OUT: the deterministic training subset for LANG.
training_text() {
  local lines
  case $1 in
    # head closes the pipe early, so xz's SIGPIPE is expected: the count is checked.
    en) lines=10000
        { xz -dc "$corpora/en/wikipedia-en.txt.xz" 2>/dev/null || true; } | head -n $lines > "$2" ;;
    hi) lines=$(wc -l < "$corpora/mono/hi.txt"); cp "$corpora/mono/hi.txt" "$2" ;;
    ja) lines=6000; head -n $lines "$corpora/mono/ja.txt" > "$2" ;;
  esac
  [[ $(wc -l < "$2") -eq $lines ]] || { echo "error: could not read the $1 training text" >&2; exit 1; }
}

# train DIR LANG TYPE [FLAGS...]: DIR/model.model, trained from DIR/train.txt.
train() {
  local dir=$1 lang=$2 type=$3
  shift 3
  mkdir -p "$dir"
  [[ -f $dir/train.txt ]] || training_text "$lang" "$dir/train.txt"
  (cd "$dir" && spm_train --input=train.txt --model_prefix=model --model_type="$type" \
      --vocab_size=8000 --num_threads=1 --random_seed=1 "$@" > train.log 2>&1) || {
    echo "error: spm_train failed ($lang $type $*):" >&2
    tail -5 "$dir/train.log" >&2
    exit 1
  }
}

status=0
# name lang type extra-flags
while read -r name lang type flags; do
  model=$work/$name.model
  # shellcheck disable=SC2086  # flags: zero or more words
  if [[ ! -f $model ]]; then
    start=$(date +%s%N)
    train "$scratch/$lang" "$lang" "$type" $flags
    mv "$scratch/$lang/model.model" "$model"
    echo "$name: trained in $(seconds_since "$start") s"
  else
    echo "$name: present"
  fi
  if [[ $check == check ]]; then
    rm -rf "$scratch/again"
    # shellcheck disable=SC2086
    train "$scratch/again" "$lang" "$type" $flags
    if cmp -s "$model" "$scratch/again/model.model"; then
      echo "$name: trained again, byte-identical"
    else
      echo "FAIL: $name: trained again, the model bytes differ"
      status=1
    fi
  fi
done <<'EOF'
spm-en-unigram en unigram
spm-en-bpe en bpe
spm-hi-unigram hi unigram
spm-hi-bpe hi bpe
spm-ja-unigram ja unigram
spm-ja-bpe ja bpe
spm-en-unigram-bytefallback en unigram --byte_fallback=true
spm-en-bpe-bytefallback en bpe --byte_fallback=true
EOF
exit $status
