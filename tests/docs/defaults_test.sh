#!/usr/bin/env bash
# Keeps docs/defaults.md in sync with the program.
#
#   defaults_test.sh TOKENLAB_BINARY DEFAULTS_MD
#
# Collects every default the program states:
#   * every command's --help, for each option Boost.Program_options prints with
#     "(=value)" (commands from 'tokenlab --help');
#   * every built-in plugin's option list (key and "default X" in its description),
#     which 'tokenlab train --option' prints when given an unknown key;
# and checks that docs/defaults.md has, under "### <command>" in "## Commands" or
# under "### <plugin>" in "## Plugin options", a table row
#   | `--option` | `default` | reason | peer |      (commands)
#   | `key`      | `default` | reason | peer |      (plugins)
# with that default. Numbers are compared as numbers (0.99950000000000006, as
# Boost prints a double, equals 0.9995). It also fails on a row that names an
# option the command or plugin no longer has. Every problem is named; the exit
# status is 1 if there is any.
#
# Built-in plugins are those found in $TOKENLAB_PLUGIN_PATH (CTest sets it to the
# build's plugin directory); without it, every plugin 'tokenlab plugins' lists.
set -uo pipefail

if (($# != 2)); then
  echo "usage: $0 TOKENLAB_BINARY DEFAULTS_MD" >&2
  exit 2
fi
tokenlab=$1
doc=$2
[[ -x "$tokenlab" ]] || { echo "FAIL: $tokenlab is not an executable" >&2; exit 1; }
[[ -r "$doc" ]] || { echo "FAIL: cannot read $doc" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# --- what the documentation says ---------------------------------------------
# One line per row: kind <TAB> section <TAB> option <TAB> default
# kind is "command" (## Commands) or "plugin" (## Plugin options).
awk '
  function cell(s) {
    gsub(/^[ \t]+|[ \t]+$/, "", s)
    if (s ~ /^`.*`$/) s = substr(s, 2, length(s) - 2)
    return s
  }
  /^## / {
    kind = ""
    if ($0 ~ /^## Commands[ \t]*$/) kind = "command"
    else if ($0 ~ /^## Plugin options[ \t]*$/) kind = "plugin"
    section = ""
    next
  }
  /^### / {
    section = $0
    sub(/^### +/, "", section)
    sub(/[ \t]+$/, "", section)
    next
  }
  kind != "" && section != "" && /^\|/ {
    n = split($0, c, "|")
    if (n < 4) next
    opt = cell(c[2])
    def = cell(c[3])
    if (opt == "option" || opt == "key" || opt ~ /^-+$/ || opt ~ /^:?-+:?$/) next
    # "--vocab-size, -v" or "`-v`, `--vocab-size`": keep the long name.
    if (kind == "command") {
      m = split(opt, names, /[`, ]+/)
      for (i = 1; i <= m; i++) if (names[i] ~ /^--/) { opt = names[i]; break }
    }
    printf "%s\t%s\t%s\t%s\n", kind, section, opt, def
  }
' "$doc" >"$work/doc.tsv"

if [[ ! -s "$work/doc.tsv" ]]; then
  fail "$doc has no table rows under '## Commands' / '## Plugin options' and '### <name>'"
fi

# Looks up the documented default; prints it, or nothing and status 1.
doc_default() {  # kind section option
  awk -F'\t' -v k="$1" -v s="$2" -v o="$3" \
    '$1 == k && $2 == s && $3 == o { print $4; found = 1; exit } END { exit !found }' \
    "$work/doc.tsv"
}

# Same value? Numbers compare as numbers, everything else as text.
same_value() {  # program doc
  local a=$1 b=$2
  [[ "$a" == "$b" ]] && return 0
  local number='^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$'
  if [[ "$a" =~ $number && "$b" =~ $number ]]; then
    awk -v a="$a" -v b="$b" 'BEGIN {
      d = a - b; if (d < 0) d = -d
      m = (a < 0 ? -a : a); if ((b < 0 ? -b : b) > m) m = (b < 0 ? -b : b)
      exit !(d <= 1e-12 * (m > 1 ? m : 1))
    }'
    return
  fi
  return 1
}

check() {  # kind section option program_default
  local kind=$1 section=$2 option=$3 value=$4 documented
  local where="$kind '$section'"
  [[ $kind == command ]] && where="tokenlab $section"
  [[ $kind == plugin ]] && where="plugin $section, --option"
  checked=$((checked + 1))
  if ! documented=$(doc_default "$kind" "$section" "$option"); then
    fail "$where $option: default '$value' is not in $doc (no row for $option under '### $section')"
  elif ! same_value "$value" "$documented"; then
    fail "$where $option: the program says '$value', $doc says '$documented'"
  fi
}
checked=0

# --- commands ------------------------------------------------------------------
commands=$("$tokenlab" --help 2>&1 |
  awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
if [[ -z "$commands" ]]; then
  fail "'$tokenlab --help' lists no commands"
fi
for command in $commands; do
  if ! "$tokenlab" "$command" --help >"$work/help-$command" 2>&1; then
    fail "'tokenlab $command --help' failed: $(head -n 1 "$work/help-$command")"
    continue
  fi
  # Option lines start with two spaces and a dash; the long name is the first
  # "--name", the default the "(=value)" right after "arg".
  grep -E '^  -' "$work/help-$command" |
    sed -E 's/^  (-[A-Za-z0-9] \[ )?--([A-Za-z0-9][A-Za-z0-9-]*)( \])?(.*)$/\2\t\4/' |
    while IFS=$'\t' read -r name rest; do
      if [[ "$rest" =~ ^\ arg\ \(=([^\)]*)\) ]]; then
        printf -- '--%s\t%s\n' "$name" "${BASH_REMATCH[1]}"
      else
        printf -- '--%s\t\n' "$name"
      fi
    done >"$work/options-$command"
  if [[ ! -s "$work/options-$command" ]]; then
    fail "could not read any option from 'tokenlab $command --help'"
    continue
  fi
  while IFS=$'\t' read -r option value; do
    [[ -n "$value" ]] && check command "$command" "$option" "$value"
  done <"$work/options-$command"
  # A documented option the command no longer has.
  awk -F'\t' -v s="$command" '$1 == "command" && $2 == s { print $3 }' "$work/doc.tsv" |
    while read -r option; do
      # grep -F without -q reads to the end: under pipefail, -q's early exit
      # can kill cut with SIGPIPE and fail the pipeline (paths_test.sh).
      if ! cut -f1 "$work/options-$command" | grep -xF -- "$option" >/dev/null; then
        echo "FAIL: $doc documents '$option' under '### $command', but 'tokenlab $command --help' has no such option"
      fi
    done >>"$work/stale"
done
# Documented commands that do not exist.
awk -F'\t' '$1 == "command" { print $2 }' "$work/doc.tsv" | sort -u | while read -r section; do
  grep -qxF -- "$section" <<<"$commands" ||
    echo "FAIL: $doc has a section '### $section' under '## Commands', but tokenlab has no command '$section'"
done >>"$work/stale"

# --- plugins -------------------------------------------------------------------
"$tokenlab" plugins >"$work/plugins" 2>&1 || fail "'tokenlab plugins' failed: $(head -n 1 "$work/plugins")"
plugin_dir=${TOKENLAB_PLUGIN_PATH:-}
plugin_dir=${plugin_dir%%:*}
plugin_dir=${plugin_dir%/}
plugins=$(awk -v dir="$plugin_dir" '
  NR > 2 && NF >= 2 {
    file = $NF
    if (dir == "" || index(file, dir "/") == 1) print $1
  }' "$work/plugins")
if [[ -z "$plugins" ]]; then
  fail "no plugin found${plugin_dir:+ in $plugin_dir} ('tokenlab plugins' printed: $(head -n 3 "$work/plugins" | tr '\n' ' '))"
fi
printf 'hello world\n' >"$work/corpus.txt"
for plugin in $plugins; do
  # An unknown key makes the plugin list its options, with their defaults.
  "$tokenlab" train --algorithm "$plugin" --corpus "$work/corpus.txt" --vocab-size 10 \
    --option zz_no_such_option=1 -o "$work/model.tkl" >"$work/train-$plugin" 2>&1
  list=$(sed -n 's/.*valid options: //p' "$work/train-$plugin" | head -n 1)
  if [[ -z "$list" ]]; then
    fail "plugin $plugin did not list its options: $(head -n 1 "$work/train-$plugin")"
    continue
  fi
  [[ "$list" == "(none)" ]] && list=""
  # Split "key (description), key (description)" at the commas outside parentheses.
  awk -v s="$list" 'BEGIN {
    depth = 0; item = ""
    for (i = 1; i <= length(s); i++) {
      ch = substr(s, i, 1)
      if (ch == "(") depth++
      else if (ch == ")") depth--
      if (ch == "," && depth == 0) { print item; item = ""; continue }
      item = item ch
    }
    if (item != "") print item
  }' | sed -E 's/^ +//' >"$work/items-$plugin"
  : >"$work/keys-$plugin"
  while IFS= read -r item; do
    [[ -z "$item" ]] && continue
    key=${item%% *}
    key=${key%%(*}
    echo "$key" >>"$work/keys-$plugin"
    description=${item#"$key"}
    # "default X" at the start of a clause (after "(" or ","), else "X (the default)".
    value=$(sed -nE 's/.*[(,] *default ([^ ,()]+).*/\1/p' <<<"$description")
    [[ -z "$value" ]] && value=$(sed -nE 's/.*[ (|:]([^ ,()|:]+) \(the default\).*/\1/p' <<<"$description")
    if [[ -z "$value" ]]; then
      fail "plugin $plugin, --option $key: its description states no default: $item"
      continue
    fi
    check plugin "$plugin" "$key" "$value"
  done <"$work/items-$plugin"
  if ! grep -qxF -- "### $plugin" <(awk '/^## Plugin options[ \t]*$/ { on = 1; next } /^## / { on = 0 } on' "$doc"); then
    fail "$doc has no section '### $plugin' under '## Plugin options' (plugin $plugin exists, options: ${list:-none})"
  fi
  awk -F'\t' -v s="$plugin" '$1 == "plugin" && $2 == s { print $3 }' "$work/doc.tsv" |
    while read -r key; do
      grep -qxF -- "$key" "$work/keys-$plugin" ||
        echo "FAIL: $doc documents '$key' under '### $plugin', but plugin $plugin has no such option"
    done >>"$work/stale"
done

if [[ -s "$work/stale" ]]; then
  cat "$work/stale"
  failures=$((failures + $(wc -l <"$work/stale")))
fi

if ((checked == 0)); then
  fail "no default was checked: the help or option lists could not be read"
fi
if ((failures > 0)); then
  echo "$failures problem(s); $checked default(s) checked against $doc"
  exit 1
fi
echo "ok: $checked defaults of $(wc -w <<<"$commands") commands and $(wc -w <<<"$plugins") plugins match $doc"
