#!/usr/bin/env bash
# tokenlab count across MPI ranks writes the bytes one process writes, at 1 to 4
# ranks and however the corpus is cut; a failing rank fails the whole run with
# its message and leaves no output.
# usage: count_mpi_test.sh TOKENLAB WORK_DIR FIXTURE_DIR [SHARED_DIR]
set -uo pipefail
tokenlab=$1 work=$2 fixtures=$3 shared=${4:-}
command -v mpirun >/dev/null || { echo "SKIPPED: no mpirun (apt-get install openmpi-bin)"; exit 77; }
# CI runs as root; Open MPI refuses that unless told. Containers lack the
# shared-memory single-copy mechanism; ranks on 2 cores need oversubscription.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
rm -rf "$work" && mkdir -p "$work/out" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }

# A multi-script corpus of a few MB: the fixtures, and real text when ../shared is there.
corpus=("$work/fixtures.txt")
cat "$fixtures"/corpus/*.txt > "$work/fixtures.txt"
if [[ -n $shared && -d $shared/corpora ]]; then
  xz -dc "$shared/corpora/en/wikipedia-en.txt.xz" | head -n 40000 > "$work/en.txt"
  cp "$shared/corpora/mono/hi.txt" "$work/hi.txt"
  head -n 8000 "$shared/corpora/mono/ja.txt" | xz -0 > "$work/ja.txt.xz"  # a compressed file is one piece
  corpus+=("$work/en.txt" "$work/hi.txt" "$work/ja.txt.xz")
else
  echo "note: no ../shared corpora; the fixtures only"
fi

check_same() {  # NAME PIECES COUNT-ARGS...: one process against 1 to 4 ranks, each cut
  local name=$1 pieces=$2; shift 2
  "$tokenlab" count "$@" -o "$work/$name.single.tsv" 2>/dev/null || { fail "$name: single process failed"; return; }
  for np in 1 2 3 4; do
    for piece in $pieces; do  # 0: the default cut
      local env=()
      ((piece > 0)) && env=(-x TOKENLAB_MPI_PIECE_BYTES=$piece)
      local out="$work/$name.np$np.p$piece.tsv"
      if ! mpirun --oversubscribe -np "$np" "${env[@]}" "$tokenlab" count "$@" -o "$out" 2> "$work/err"; then
        fail "$name: mpirun -np $np (piece $piece) failed: $(tail -3 "$work/err")"; continue
      fi
      cmp -s "$work/$name.single.tsv" "$out" || fail "$name: -np $np, piece $piece: output differs from one process"
    done
  done
  echo "$name: $(wc -l < "$work/$name.single.tsv") lines, identical at 1 to 4 ranks"
}

# 4099-byte pieces cut inside lines and inside characters, everywhere.
check_same fixtures "0 4099" --corpus "$work/fixtures.txt" --threads 1
check_same corpora "0 1000000" --corpus "${corpus[@]}" --threads 1
# Pieces that keep white space: tabs inside words, so the file is escaped.
printf 'a\tb  c\n\tx\ty\n' > "$work/tabs.txt"
check_same escaped "0 4099" --corpus "$work/tabs.txt" "$work/fixtures.txt" --pre-tokenizer gpt2 --threads 1
head -2 "$work/escaped.single.tsv" | grep -q "escaped" || fail "the gpt2 counts are not escaped"

# A rank that meets invalid UTF-8 fails the run, naming the file and line; no output.
{ cat "$work/fixtures.txt"; printf 'bad \xC3\x28 byte\n'; cat "$work/fixtures.txt"; } > "$work/bad.txt"
bad_line=$(($(wc -l < "$work/fixtures.txt") + 1))
if TOKENLAB_MPI_PIECE_BYTES=4096 mpirun --oversubscribe -np 4 -x TOKENLAB_MPI_PIECE_BYTES \
    "$tokenlab" count --corpus "$work/bad.txt" -o "$work/out/counts.tsv" 2> "$work/err"; then
  fail "invalid UTF-8 under MPI exited 0"
fi
grep -q "bad.txt:$bad_line: invalid UTF-8" "$work/err" || fail "no file:line message: $(head -5 "$work/err")"
grep -q "(rank [0-9] of 4)" "$work/err" || fail "the message does not name the rank"
[[ -z $(ls -A "$work/out") ]] || fail "output left after a failed run: $(ls -A "$work/out")"

# A missing file fails on every rank before any work, with one message.
if mpirun --oversubscribe -np 2 "$tokenlab" count --corpus "$work/missing.txt" -o "$work/out/counts.tsv" 2> "$work/err"; then
  fail "a missing file under MPI exited 0"
fi
[[ $(grep -c "missing.txt: no such file" "$work/err") == 1 ]] || fail "missing file: want one message, got: $(cat "$work/err")"
[[ -z $(ls -A "$work/out") ]] || fail "output left after a missing file"
# Killed while counting (an endless FIFO): no output, no temporary file beside it.
mkfifo "$work/endless"
(seq 1 1000000000 | sed 's/^/word/' > "$work/endless") 2>/dev/null &
writer=$!
mpirun --oversubscribe -np 2 "$tokenlab" count --corpus "$work/endless" -o "$work/out/counts.tsv" \
  2> "$work/err" &
launcher=$!
sleep 3
kill -0 "$launcher" 2>/dev/null || fail "count of an endless FIFO ended by itself: $(cat "$work/err")"
kill -TERM "$launcher"; wait "$launcher" 2>/dev/null
kill "$writer" 2>/dev/null; wait "$writer" 2>/dev/null
sleep 1
[[ -z $(ls -A "$work/out") ]] || fail "a killed run left: $(ls -A "$work/out")"
pgrep -f "count --corpus $work/endless" >/dev/null && fail "ranks outlived the killed launcher"

# The MPI work is a module beside the libraries (lib/tokenlab/), loaded only under a
# launcher: a tokenlab moved away from it says so, and writes nothing. The copy
# keeps its libraries where its run path looks, as installed (bin/ and the
# library directory, TOKENLAB_LIB_DIR, at the same place relative to it), but
# not lib/tokenlab/.
lib_dir=${TOKENLAB_LIB_DIR:-$(dirname "$tokenlab")/../lib}
moved_lib="$work/moved/bin/$(realpath -m --relative-to="$(dirname "$tokenlab")" "$lib_dir")"
mkdir -p "$work/moved/bin" "$moved_lib" && cp "$tokenlab" "$work/moved/bin/tokenlab" &&
  cp -a "$lib_dir"/libtokenlab_*.so* "$moved_lib/" || fail "could not copy tokenlab and its libraries"
if mpirun --oversubscribe -np 2 "$work/moved/bin/tokenlab" count --corpus "$work/fixtures.txt" \
    -o "$work/out/counts.tsv" 2> "$work/err"; then
  fail "count under MPI without the module exited 0"
fi
grep -q "libtokenlab_count_mpi_ranks.so: tokenlab's MPI counting module is missing" "$work/err" ||
  fail "no message naming the missing module: $(head -3 "$work/err")"
[[ -z $(ls -A "$work/out") ]] || fail "output left without the module"
# ...and as one process it does not need the module at all.
"$work/moved/bin/tokenlab" count --corpus "$work/fixtures.txt" -o "$work/moved/counts.tsv" 2>/dev/null ||
  fail "a single count failed without the MPI module"
cmp -s "$work/moved/counts.tsv" "$work/fixtures.single.tsv" || fail "single count without the module differs"

# Only count runs across ranks.
mpirun --oversubscribe -np 2 "$tokenlab" train --corpus "$work/fixtures.txt" -a bpe -v 300 -o "$work/out/m.tkl" 2> "$work/err" &&
  fail "train under MPI exited 0"
grep -q "only 'count' runs across MPI ranks" "$work/err" || fail "train under MPI: $(cat "$work/err")"
exit $status
