"""The Python side of tools/bench/bench-python: tokenlab's encode_batch and
encode, timed in the interpreter as tokenlab_bench_encode times the C++ library.

usage: bench_python.py batch MODEL TEXT THREADS [list|numpy]
         prints "BYTES TOKENS SECONDS MB/s" for encode_batch over TEXT's lines
         (a second pass, as tokenlab_bench_encode MODEL TEXT THREADS auto batch)
       bench_python.py one MODEL SENTENCE_FILE
         prints "one NANOSECONDS_PER_CALL TOKENS" for encode of the file's first line
"""

import sys
import time

import tokenlab


def lines_of(path):
    with open(path, "rb") as f:
        data = f.read()
    text = data.decode("utf-8")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return len(data), lines


def main(argv):
    mode, model_path, text_path = argv[1:4]
    model = tokenlab.load(model_path)
    if mode == "one":
        _, lines = lines_of(text_path)
        line = lines[0]
        encode = model.encode
        for _ in range(10000):
            encode(line)
        calls = 1000000
        start = time.perf_counter()
        for _ in range(calls):
            encode(line)
        seconds = time.perf_counter() - start
        print(f"one {seconds * 1e9 / calls:.1f} {len(encode(line))}")
        return
    threads = int(argv[4])
    numpy = len(argv) > 5 and argv[5] == "numpy"
    size, lines = lines_of(text_path)
    # Steady state, as tokenlab_bench_encode's batch mode: one untimed pass, then
    # the timed one on new str objects (their UTF-8 and the copy are timed).
    model.encode_batch(lines, threads=threads)
    size, lines = lines_of(text_path)
    start = time.perf_counter()
    encoded = model.encode_batch(lines, threads=threads, numpy=numpy)
    seconds = time.perf_counter() - start
    tokens = len(encoded[0]) if numpy else sum(len(ids) for ids in encoded)
    print(f"{size} {tokens} {seconds:.3f} {size / 1e6 / seconds:.2f}")


if __name__ == "__main__":
    main(sys.argv)
