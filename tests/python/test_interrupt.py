"""Ctrl-C during training: SIGINT to the process stops a long training with
KeyboardInterrupt, and the interpreter goes on (or exits as Python does)."""

import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import pytest

SCRIPT = textwrap.dedent(
    """
    import sys, tokenlab

    def progress(stage, fraction):
        if stage == "bpe merges":
            print("training", flush=True)

    try:
        tokenlab.train("bpe", 60000, corpus=sys.argv[1], threads=1, progress=progress)
    except KeyboardInterrupt:
        print("KeyboardInterrupt", flush=True)
        # The interpreter and the module still work.
        model = tokenlab.train("character", 100, corpus=sys.argv[1], progress=False)
        print("alive", len(model.encode("abc")), flush=True)
        sys.exit(0)
    print("finished before the interrupt", flush=True)
    sys.exit(3)
    """
)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    # Enough distinct words that 60,000 merges take many seconds.
    rng = random.Random(1)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(3, 12))) for _ in range(200000)]
    path = tmp_path_factory.mktemp("corpus") / "words.txt"
    with open(path, "w") as f:
        for i in range(0, len(words), 10):
            f.write(" ".join(words[i : i + 10]) + "\n")
    return path


def start(script, corpus):
    return subprocess.Popen([sys.executable, "-c", script, str(corpus)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=os.environ.copy())


def wait_for_training(process):
    line = process.stdout.readline()
    assert line == "training\n", line + process.stderr.read()


def test_sigint_during_training_raises_keyboard_interrupt_and_python_goes_on(corpus):
    process = start(SCRIPT, corpus)
    wait_for_training(process)
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, out + err
    assert out.startswith("KeyboardInterrupt\nalive ")
    # Stopped at the next progress report, not at the end of training.
    assert time.monotonic() - sent < 60


def test_an_uncaught_interrupt_ends_python_as_ctrl_c_does(corpus):
    script = SCRIPT.replace("except KeyboardInterrupt:", "except ZeroDivisionError:")
    process = start(script, corpus)
    wait_for_training(process)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert "KeyboardInterrupt" in err
    assert "Traceback" in err and "Segmentation" not in err and "terminate" not in err
    assert process.returncode in (-signal.SIGINT, 128 + signal.SIGINT, 1), err


ENCODE_SCRIPT = textwrap.dedent(
    """
    import sys, time, tokenlab
    model = tokenlab.train("character", 100, corpus=sys.argv[1], progress=False)
    lines = open(sys.argv[1]).read().splitlines() * 40
    text = " ".join(lines[:200000])
    mode = sys.argv[2]

    def call(part):
        if mode == "encode":
            model.encode(text[: len(text) // part])
        else:
            model.encode_batch(lines[: len(lines) // part], threads=1, numpy=(mode == "numpy"))

    # What one whole call costs on this machine now, from a tenth of one (calls
    # are linear in their input): the parent's yardstick, not a fixed bound.
    start = time.monotonic()
    call(10)
    print("call_seconds", 10 * (time.monotonic() - start), flush=True)
    print("encoding", flush=True)
    try:
        for _ in range(1000):
            call(1)
    except KeyboardInterrupt:
        print("KeyboardInterrupt", flush=True)
        print("alive", len(model.encode("abc")), flush=True)
        sys.exit(0)
    except ImportError as e:
        print("ImportError", e, flush=True)
        sys.exit(4)
    print("finished before the interrupt", flush=True)
    sys.exit(3)
    """
)


@pytest.mark.parametrize("mode", ["encode", "lists", "numpy"])
def test_sigint_during_encode_is_answered_at_once(corpus, mode):
    # Issue 27: Ctrl-C waited until encode or encode_batch returned (6 to 25 s),
    # and with numpy=True a pending SIGINT came out as ImportError "needs NumPy".
    if mode == "numpy":
        pytest.importorskip("numpy")
    process = subprocess.Popen([sys.executable, "-c", ENCODE_SCRIPT, str(corpus), mode],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=os.environ.copy())
    first = process.stdout.readline().split()
    assert first[0] == "call_seconds", first
    call_seconds = float(first[1])
    assert process.stdout.readline() == "encoding\n"
    time.sleep(1.0)  # well inside the first calls
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    answered = time.monotonic() - sent
    assert process.returncode == 0, out + err
    assert out.startswith("KeyboardInterrupt\nalive "), out + err
    # A prompt answer means the call itself was stopped, not waited for: measured
    # against a whole call's cost on this machine at this moment (seconds; the
    # answer typically takes well under 0.5 s), so a loaded machine slows both.
    assert answered < call_seconds / 2, (answered, call_seconds)
