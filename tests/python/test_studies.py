"""tokenlab.compare's studies beyond compression, under the CLI's names:
morph_gold= (--morph-gold) and inference= (--inference), with their tables as
morphology_rows and inference_rows, the same as the CLI's report files."""

import csv

import pytest

import tokenlab
from conftest import DATA, ENGLISH, run_cli

GOLD = DATA / "studies" / "english-gold.tsv"
MORPHSCORE = DATA / "studies" / "english-morphscore.csv"


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def studied(tmp_path_factory):
    report = tmp_path_factory.mktemp("report")
    result = tokenlab.compare(corpus=ENGLISH, vocab_size=300, algorithms=["bpe", "unigram"],
                              morph_gold=[GOLD, f"ms={MORPHSCORE}"],
                              inference="longest-prefix,merges", bootstrap=0,
                              report_dir=report, progress=False)
    return result, report


def test_each_method_is_a_row_of_the_comparison(studied):
    result, _ = studied
    labels = [r["segmenter"] for r in result.rows]
    assert labels == ["bpe", "bpe/longest-prefix", "bpe/merges", "unigram",
                      "unigram/longest-prefix"]


def test_inference_rows_compare_each_method_with_the_own_encoding(studied):
    result, report = studied
    rows = {(r["segmenter"], r["method"]): r for r in result.inference_rows}
    # BPE's own rule, rerun from its vocabulary, cuts every word as the model does.
    assert rows[("bpe", "merges")]["differ%"] == 0.0
    assert rows[("bpe", "merges")]["b F1"] == 1.0
    assert rows[("unigram", "merges")]["note"].startswith("no merges")
    assert len(read_csv(report / "inference.csv")) == len(result.inference_rows)


def test_morphology_rows_score_every_row_on_every_gold_set(studied):
    result, report = studied
    rows = result.morphology_rows
    assert {r["gold"] for r in rows} == {"english-gold", "ms"}
    assert len(rows) == 2 * 5
    for row in rows:
        assert row["words"] == (22 if row["gold"] == "english-gold" else 8)
    assert [r["segmenter"] for r in read_csv(report / "morphology.csv")] == [
        r["segmenter"] for r in rows]


def test_the_cli_gives_the_same_morphology_table(studied, tmp_path):
    result, _ = studied
    run_cli("compare", "--corpus", ENGLISH, "-v", "300", "--algorithms", "bpe,unigram",
            "--morph-gold", GOLD, f"ms={MORPHSCORE}", "--inference", "longest-prefix,merges",
            "--bootstrap", "0", "--report-dir", tmp_path)
    on_disk = read_csv(tmp_path / "morphology.csv")
    assert [r["morphscore"] for r in on_disk] == [
        "-" if r["morphscore"] is None else f"{r['morphscore']:.3f}"
        for r in result.morphology_rows]


def test_a_bad_method_is_named():
    with pytest.raises(Exception, match="greedy"):
        tokenlab.compare(corpus=ENGLISH, vocab_size=300, algorithms=["bpe"],
                         inference="greedy", progress=False)
