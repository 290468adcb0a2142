#!/usr/bin/env bash
# Issue 17's promise, on real data: with default settings, a subword model trained
# on the 100 MB English Wikipedia corpus never makes a printable ASCII character
# unknown, and encode | decode gives back text with every printable ASCII
# character and the common typographic punctuation.
# usage: ascii_never_unknown.sh TOKENLAB SHARED_DIR WORK_DIR
# Exits 77 (SKIPPED) when the corpus is missing.
set -euo pipefail
tokenlab=$1 shared=$2 work=$3
corpus=$shared/corpora/en/wikipedia-en.txt.xz
[[ -f $corpus ]] || { echo "SKIPPED: $corpus not found"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work"

"$tokenlab" count --corpus "$corpus" -o counts.tsv 2>/dev/null
# Every printable ASCII character alone on a line, then lines mixing them with
# curly quotes, dashes, an ellipsis and a no-break space.
for c in $(seq 33 126); do printf "\\$(printf %03o "$c")\n"; done > ascii.txt
cat > mixed.txt <<'TEXT'
Say "hi" -- it's ~50% off @ 3^2 = 9 {really} [sic] <tags> a_b \path\ `code` | pipe #1 $5 & more!
“Curly quotes,” she said — and an en dash – then an ellipsis… ‘single’ too.
A no-break space: 10 km, and a tab	here.
TEXT
status=0
for algorithm in bpe unigram wordpiece; do
  "$tokenlab" train --algorithm "$algorithm" --counts counts.tsv --vocab-size 32000 \
    -o "$algorithm.tkl" 2>/dev/null
  unknown=$("$tokenlab" encode -m "$algorithm.tkl" --pieces -i ascii.txt |
    paste ascii.txt - | awk -F '\t' '$2 ~ /(<unk>|\[UNK\])/ { printf "%s ", $1 }')
  if [[ -n $unknown ]]; then
    echo "FAIL: $algorithm makes these printable ASCII characters unknown: $unknown"
    status=1
  else
    echo "$algorithm: no printable ASCII character is unknown"
  fi
  # The normalizer (NFC, white space collapsed) is the only change decode may show.
  "$tokenlab" encode -m "$algorithm.tkl" -i mixed.txt | "$tokenlab" decode -m "$algorithm.tkl" > decoded.txt
  sed -e 's/\xC2\xA0/ /g' -e 's/\t/ /g' mixed.txt > expected.txt
  if cmp -s expected.txt decoded.txt; then
    echo "$algorithm: encode | decode gives the text back"
  else
    echo "FAIL: $algorithm: encode | decode changed the text:"
    diff expected.txt decoded.txt || true
    status=1
  fi
done
exit $status
