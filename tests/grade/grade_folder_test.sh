#!/usr/bin/env bash
# grade-folder on a folder of two submissions (the bpe-training reference and its
# tie_last variant, copied in as a class hands them in, plus an empty one): one CSV
# row each, with the score tokenlab grade gives.
#   grade_folder_test.sh GRADE_FOLDER TOKENLAB SUBMISSIONS_DIR
set -euo pipefail
script=$1 tokenlab=$2 submissions=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/class/alice" "$work/class/bob" "$work/class/carol"
cp "$submissions/bpe-training/reference/my_bpe.so" "$work/class/alice/"
cp "$submissions/bpe-training/tie_last/my_bpe.so" "$work/class/bob/"
"$script" bpe-training "$work/class" --tokenlab "$tokenlab" --time 120 --memory 4096 -o "$work/scores.csv"
cat "$work/scores.csv"
fail() { echo "FAIL: $*"; exit 1; }
[[ $(sed -n 1p "$work/scores.csv") == "submission,score,max,status,reasons" ]] || fail "header"
[[ $(sed -n 2p "$work/scores.csv") == "alice,100,100,graded," ]] || fail "alice's row"
sed -n 3p "$work/scores.csv" | grep -q '^bob,56,100,graded,"-2 step 1: expected e + s' || fail "bob's row"
sed -n 4p "$work/scores.csv" | grep -q '^carol,0,,no-plugin,' || fail "carol's row"
[[ -s $work/class/alice/grade.json ]] || fail "no grade.json beside alice's plugin"
echo "ok"
