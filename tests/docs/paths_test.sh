#!/usr/bin/env bash
# Checks that the files and directories the documentation names exist, so that a
# page cannot keep describing a tree that has moved on.
#
#   paths_test.sh SOURCE_DIR DOC.md...
#
# For each Markdown file given:
# * every relative link [text](target) resolves, from the page's directory, to a
#   file or directory, and its #anchor, if any, to a heading of the target page
#   (GitHub's rule: lower case, punctuation dropped, spaces to hyphens);
# * every repository path in the text, a word starting with framework/,
#   algorithms/, plugins/, tests/, docs/ or tools/, matches something under
#   SOURCE_DIR.
#   A path may also be relative to the page (docs/tutorial.md names
#   algorithms/bpe.md). Placeholders match anything: <name> and an upper-case
#   word such as NAME become *, a/.../b is a/**/b, and {a,b} expands to each
#   name;
# * every header or source file named alone in backquotes (`segmenter.hpp`,
#   `compare.cpp`, `TokenlabPlugin.cmake`) exists somewhere in the tree (a
#   generated file through its template, NAME.in; a course assignment's
#   template, `my_bpe.cpp`, under docs/).
#
# Every problem is printed as a FAIL line; the exit status is 1 if there is any.
set -uo pipefail

if (($# < 2)); then
  echo "usage: $0 SOURCE_DIR DOC.md..." >&2
  exit 2
fi
root=$(cd "$1" && pwd) || { echo "FAIL: cannot enter $1"; exit 1; }
shift
export LC_ALL=C.UTF-8

roots='framework|algorithms|plugins|tests|docs|tools'
failures=0
checked=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# Does a glob (placeholders already turned into *) match, relative to $root or
# to the page's directory (a page may name a sibling page, algorithms/bpe.md)?
# (compgen -G returns a pattern without wildcards as it is, hence the -e.)
exists() {  # pattern page_dir
  local match
  while IFS= read -r match; do
    [[ -e $match ]] && return 0
  done < <(
    shopt -s globstar
    compgen -G "$root/$1"
    compgen -G "$2/$1"
  )
  return 1
}

# The anchors of a page: its headings as GitHub spells them.
anchors() {  # file
  grep -E '^#{1,6} ' "$1" | sed -E 's/^#+ +//; s/ +#*$//' |
    tr '[:upper:]' '[:lower:]' | sed -E 's/[^[:alnum:] _-]//g; s/ /-/g'
}

# Turns placeholders into globs: <name> and NAME become *, and an elided middle,
# a/.../b, becomes a/**/b.
globbed() {  # path
  sed -E 's/<[^>]*>/*/g; s/(^|[^A-Za-z])[A-Z][A-Z_]+([^A-Za-z]|$)/\1*\2/g; s#/\.\.\./#/**/#g' <<<"$1"
}

# Prints each name a {a,b,...} group stands for (one group at most, as the pages
# write them).
expanded() {  # path
  local path=$1
  if [[ $path =~ ^(.*)\{([^{}]*)\}(.*)$ ]]; then
    local head=${BASH_REMATCH[1]} list=${BASH_REMATCH[2]} tail=${BASH_REMATCH[3]} item
    IFS=, read -ra items <<<"$list"
    for item in "${items[@]}"; do printf '%s\n' "$head$item$tail"; done
  else
    printf '%s\n' "$path"
  fi
}

for doc in "$@"; do
  [[ -r $doc ]] || { fail "cannot read $doc"; continue; }
  name=${doc#"$root"/}
  dir=$(cd "$(dirname "$doc")" && pwd)
  # Fenced code blocks hold commands and output, not links: links come from
  # the prose only. Paths are taken from both (the layout block is one).
  prose=$(awk '/^```/ { code = !code; next } !code' "$doc")

  # --- links -------------------------------------------------------------------
  while IFS= read -r target; do
    [[ -z $target || $target =~ ^[a-z]+: ]] && continue  # https:, mailto:
    checked=$((checked + 1))
    file=${target%%#*}
    anchor=
    [[ $target == *#* ]] && anchor=${target#*#}
    path=$doc
    if [[ -n $file ]]; then
      path=$dir/$file
      if [[ ! -e $path ]]; then
        fail "$name: link '$target': no such file or directory"
        continue
      fi
    fi
    # Not grep -q: it stops at the first match, and under pipefail the writer
    # it leaves behind (killed by SIGPIPE once a page's anchors pass one 4 KiB
    # write) failed the pipeline at random.
    if [[ -n $anchor && -f $path && $path == *.md ]] &&
      ! anchors "$path" | grep -xF -- "$anchor" >/dev/null; then
      fail "$name: link '$target': no heading '#$anchor' in $(realpath -m --relative-to="$root" "$path")"
    fi
  done < <(grep -oE '\]\([^)[:space:]]+\)' <<<"$prose" | sed -E 's/^\]\(//; s/\)$//' | sort -u)

  # --- repository paths in the text ------------------------------------------
  while IFS= read -r path; do
    while IFS= read -r one; do
      checked=$((checked + 1))
      exists "$(globbed "$one")" "$dir" || fail "$name: names '$one', which does not exist"
    done < <(expanded "$path")
  done < <(sed -E 's/\]\([^)]*\)/]/g' "$doc" |
    grep -oE "(^|[^A-Za-z0-9_./-])($roots)/[A-Za-z0-9_./<>{},*-]*" |
    sed -E 's/^[^a-z]//; s/[.,:;]+$//' | sort -u)

  # --- file names alone in backquotes --------------------------------------------
  # shellcheck disable=SC2016 # the backquotes are Markdown's, not the shell's
  files=$(grep -oE '`[A-Za-z0-9_.-]+\.(hpp|cpp|cmake|proto)`' "$doc" | tr -d '`' | sort -u)
  while IFS= read -r file; do
    [[ -z $file ]] && continue
    checked=$((checked + 1))
    # A generated file counts when its template (NAME.in) exists.
    if [[ -z $(find "$root/framework" "$root/algorithms" "$root/plugins" "$root/tests" \
      "$root/tools" "$root/docs" \( -name "$file" -o -name "$file.in" \) -print -quit 2>/dev/null) ]]; then
      fail "$name: names \`$file\`, which is no file of the tree"
    fi
  done <<<"$files"
done

if ((failures > 0)); then
  echo "$failures problem(s) in $checked name(s) checked"
  exit 1
fi
echo "ok: $checked links and paths in $# page(s) exist"
