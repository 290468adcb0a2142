"""The Python side of tools/bench/bench-python: tokenlab's encode_batch and
encode, timed in the interpreter as tokenlab_bench_encode times the C++ library.

usage: bench_python.py batch MODEL TEXT THREADS [list|numpy]
         prints "BYTES TOKENS SECONDS MB/s" for encode_batch over TEXT's lines
         (a second pass, as tokenlab_bench_encode MODEL TEXT THREADS auto batch)
       bench_python.py pairs MODEL TEXT THREADS ROUNDS
         the C++ library's encode_batch (in this process) and Python's, alternated
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


def pairs(model, text_path, threads, rounds):
    """C++ encode_batch and Python encode_batch (list, NumPy) alternated in this
    process, so that a slower spell of a shared machine falls on all three."""
    size, lines = lines_of(text_path)
    model.encode_batch(lines, threads=threads)  # the caches, as the others
    cxx, lists, arrays = [], [], []
    for _ in range(rounds):
        cxx.append(model._time_encode_batch(lines, threads))
        for numpy, times in ((False, lists), (True, arrays)):
            _, fresh = lines_of(text_path)  # new str objects: their UTF-8 is timed
            start = time.perf_counter()
            model.encode_batch(fresh, threads=threads, numpy=numpy)
            times.append(time.perf_counter() - start)
    for name, times in (("c++", cxx), ("python", lists), ("python-numpy", arrays)):
        ratios = sorted(c / t for c, t in zip(cxx, times))
        print(f"{name} {threads} best {size / 1e6 / min(times):.2f} MB/s, "
              f"median {size / 1e6 / sorted(times)[len(times) // 2]:.2f} MB/s, "
              f"median of the rounds' ratios to c++ {ratios[len(ratios) // 2]:.3f}")


def main(argv):
    mode, model_path, text_path = argv[1:4]
    model = tokenlab.load(model_path)
    if mode == "pairs":
        pairs(model, text_path, int(argv[4]), int(argv[5]))
        return
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
