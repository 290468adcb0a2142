#!/usr/bin/env bash
# Every page reads as Markdown: it opens with a "# " title, and outside code
# fences every heading has a space after its hashes. A page once went through a
# C++ formatter by mistake ("#Benchmarks", "##Byte\n- level BPE", comments in
# its code blocks rewritten) and no other test noticed.
# usage: markdown_test.sh PAGE...
set -euo pipefail
status=0
for page in "$@"; do
  first=$(head -n 1 "$page")
  if [[ $first != "# "* ]]; then
    echo "$page:1: the page does not open with a '# ' title: $first"
    status=1
  fi
  # awk: fences toggle; a '#' line outside them must be '#... ' (a heading).
  if ! awk -v page="$page" '
      /^[ \t]*```/ { fenced = !fenced; next }
      !fenced && /^#+[^# \t]/ { printf "%s:%d: a heading without a space: %s\n", page, NR, $0; bad = 1 }
      END { exit bad }' "$page"; then
    status=1
  fi
done
exit $status
