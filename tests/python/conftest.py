"""Shared fixtures: the test corpora, the CLI (to check that the module gives the
CLI's results and messages) and small models trained once per session."""

import os
import subprocess
from pathlib import Path

import pytest

import tokenlab

SOURCE = Path(os.environ.get("TOKENLAB_SOURCE_DIR", Path(__file__).resolve().parents[2]))
DATA = Path(os.environ.get("TOKENLAB_TEST_DATA_DIR", SOURCE / "tests" / "data"))
ENGLISH = DATA / "corpus" / "english.txt"
PARALLEL = DATA / "experiments" / "parallel"
UNIGRAM_MODEL = DATA / "pretrained" / "unigram.model"
CLI = os.environ.get("TOKENLAB_CLI", "")
SHARED = Path(os.environ.get("TOKENLAB_SHARED_DIR", SOURCE.parent / "shared"))


def run_cli(*args, check=True):
    """Runs the tokenlab CLI; returns the finished process (text output)."""
    if not CLI:
        pytest.skip("TOKENLAB_CLI is not set (CTest sets it)")
    done = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"tokenlab {' '.join(map(str, args))}: {done.stderr}")
    return done


def cli_error(*args):
    """The message the CLI prints after 'error: ' for these arguments."""
    done = run_cli(*args, check=False)
    assert done.returncode != 0, f"tokenlab {args} succeeded"
    lines = [l for l in done.stderr.splitlines() if l.startswith("error: ")]
    assert lines, done.stderr
    return lines[0][len("error: ") :]


def python_error(*args):
    """The message Python gives for the same mistake: the CLI's, naming keyword
    arguments where the CLI names options."""
    return tokenlab._keyword_message(cli_error(*args))


@pytest.fixture(scope="session")
def bpe():
    return tokenlab.train("bpe", 300, corpus=ENGLISH, progress=False)


@pytest.fixture(scope="session")
def unigram():
    return tokenlab.train("unigram", 300, corpus=ENGLISH, progress=False)


@pytest.fixture(scope="session")
def english_lines():
    return ENGLISH.read_text(encoding="utf-8").splitlines()
