#!/usr/bin/env bash
# Keeps "The libraries" in docs/architecture.md true to the build files.
#
#   layers_test.sh SOURCE_DIR
#
# * The diagram's rows "   study   libtokenlab_study", ... give the layers from top
#   to bottom. Each layer that framework/CMakeLists.txt builds
#   (tokenlab_framework_layer) may link, of the other layers, only the one right
#   below it in the diagram, and the bottom one none: "each linking only those
#   below it", one step at a time.
# * A plugin carries whatever its algorithm library links. For every library an
#   algorithms/NAME/CMakeLists.txt or plugins/NAME/CMakeLists.txt adds beyond
#   tokenlab's own targets (LIBRARIES ICU::uc ...), the page must name the target
#   (tokenlab_algo_NAME or NAME.so) and that library, so that it cannot claim
#   again that every plugin links core alone.
# Every problem is printed as a FAIL line; the exit status is 1 if there is any.
set -uo pipefail

if (($# != 1)); then
  echo "usage: $0 SOURCE_DIR" >&2
  exit 2
fi
root=$1
doc=$root/docs/architecture.md
cmake=$root/framework/CMakeLists.txt
for f in "$doc" "$cmake"; do
  [[ -r $f ]] || { echo "FAIL: cannot read $f"; exit 1; }
done
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# --- layers --------------------------------------------------------------------
mapfile -t order < <(sed -nE 's/^ +([a-z]+) +libtokenlab_([a-z]+)( .*)?$/\2/p' "$doc")
if ((${#order[@]} < 2)); then
  fail "docs/architecture.md: no layer rows ('   core    libtokenlab_core') in the diagram"
fi
below() {  # layer: the one under it in the diagram, or nothing
  local i
  for ((i = 0; i < ${#order[@]} - 1; i++)); do
    [[ ${order[i]} == "$1" ]] && { echo "${order[i + 1]}"; return; }
  done
}
# One line per layer: its name, then every tokenlab::LAYER it links.
layers=$(awk '
  /^tokenlab_framework_layer\(/ { sub(/^tokenlab_framework_layer\(/, ""); layer = $1; line = layer }
  layer != "" {
    for (i = 1; i <= NF; i++) if ($i ~ /^tokenlab::[a-z]+\)?$/) { t = $i; sub(/\)$/, "", t); line = line " " t }
    if ($0 ~ /\)[ \t]*$/) { print line; layer = "" }
  }' "$cmake")
[[ -n $layers ]] || fail "framework/CMakeLists.txt: no tokenlab_framework_layer() found"
checked=0
while read -r layer deps; do
  checked=$((checked + 1))
  printf '%s\n' "${order[@]}" | grep -qxF -- "$layer" ||
    fail "framework/CMakeLists.txt builds layer '$layer', which the diagram of docs/architecture.md does not show"
  allowed=$(below "$layer")
  for dep in $deps; do
    dep=${dep#tokenlab::}
    [[ $dep == "$allowed" ]] ||
      fail "layer '$layer' links tokenlab::$dep, but the diagram puts ${allowed:-nothing} right below it"
  done
done <<<"$layers"

# --- what plugins carry ----------------------------------------------------------
for file in "$root"/algorithms/*/CMakeLists.txt "$root"/plugins/*/CMakeLists.txt; do
  [[ -r $file ]] || continue
  dir=$(basename "$(dirname "$file")")
  kind=$(basename "$(dirname "$(dirname "$file")")")
  [[ $kind == plugins && $dir == example ]] && continue  # out of tree, its own page
  target=$dir.so
  [[ $kind == algorithms ]] && target=tokenlab_algo_$dir
  # The words after LIBRARIES, up to the closing parenthesis.
  libraries=$(tr '\n' ' ' <"$file" | sed -nE 's/.*LIBRARIES ([^)]*)\).*/\1/p')
  for library in $libraries; do
    [[ $library == tokenlab* ]] && continue
    checked=$((checked + 1))
    if ! grep -qF -- "$target" "$doc" || ! grep -qF -- "$library" "$doc"; then
      fail "$kind/$dir links $library: docs/architecture.md must name $target and $library (what the plugin carries beyond core)"
    fi
  done
done

if ((failures > 0)); then
  echo "$failures problem(s)"
  exit 1
fi
echo "ok: ${#order[@]} layers and $checked link(s) match docs/architecture.md"
