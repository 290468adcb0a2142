"""docs/python.md runs: its python blocks, in order, as one script, print what
its text blocks show (a line ending in "..." is a prefix of the printed line)."""

import os
import re
import subprocess
import sys

import pytest

from conftest import SHARED, SOURCE

PAGE = SOURCE / "docs" / "python.md"


def blocks(kind):
    return re.findall(r"^```" + kind + r"\n(.*?)^```", PAGE.read_text(encoding="utf-8"),
                      re.MULTILINE | re.DOTALL)


def test_the_study_in_docs_python_md_runs_and_prints_what_the_page_shows(tmp_path):
    corpora = SHARED / "corpora"
    if not (corpora / "en" / "wikipedia-en.txt.xz").is_file():
        pytest.skip(f"no corpora in {corpora} (../shared/corpora)")
    for module in ("matplotlib", "pandas", "numpy"):
        pytest.importorskip(module)
    script = tmp_path / "study.py"
    script.write_text("\n".join(blocks("python")), encoding="utf-8")
    env = dict(os.environ, CORPORA=str(corpora), MPLBACKEND="Agg")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=800)
    assert done.returncode == 0, done.stderr
    printed = [line.rstrip() for line in done.stdout.splitlines()]
    for block in blocks("text"):
        for line in block.splitlines():
            expected = line.rstrip()
            if expected.endswith("..."):
                prefix = expected[:-3].rstrip()
                assert any(p.startswith(prefix) for p in printed), (line, done.stdout)
            elif expected:
                assert expected in printed, (line, done.stdout)
    assert (tmp_path / "tokens-per-word.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "report-8000" / "compare.csv").is_file()
