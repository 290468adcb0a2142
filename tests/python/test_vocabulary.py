"""tokenlab.audit, tokenlab.agreement and compare(audit=True, agreement=True):
compare --audit and --agreement in Python, with the CLI's names and figures."""

import csv

import tokenlab
from conftest import ENGLISH, PARALLEL, UNIGRAM_MODEL


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_audit_counts_a_trained_model_and_a_real_one(bpe, english_lines):
    a = tokenlab.audit(bpe, english_lines[:50], ["the", "and", "zebra"])
    assert a["entries"] == a["ids"] == 300
    assert a["byte_fallback"] in (0, 256)  # at 300 entries, BPE's automatic rule leaves them out
    assert a["single_byte"] > 0 and a["special"] >= 1
    assert a["partial_utf8"] == 0
    assert 0 <= a["never_used"] <= a["entries"]
    assert a["words"] == 3
    assert 0.0 <= a["strr"] <= 1.0
    spm = tokenlab.audit(tokenlab.load(UNIGRAM_MODEL))
    assert spm["never_used"] is None and spm["strr"] is None
    assert spm["special"] >= 1


def test_agreement_is_symmetric_with_ones_on_the_diagonal(bpe, unigram, english_lines):
    m = tokenlab.agreement({"bpe": bpe, "unigram": unigram}, english_lines[:50])
    assert m["labels"] == ["bpe", "unigram"]
    for figure in ("jaccard", "word_agreement", "boundary_f1"):
        assert m[figure][0][0] == m[figure][1][1] == 1.0
        assert m[figure][0][1] == m[figure][1][0]
        assert 0.0 < m[figure][0][1] < 1.0
    assert m["words"] > 0


def test_compare_audit_and_agreement_give_the_clis_tables(tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("the\nand\nzebra\n", encoding="utf-8")
    r = tokenlab.compare(corpus=ENGLISH, vocab_size=250, algorithms=["bpe", "unigram"],
                         audit=True, audit_words=words, agreement=True, bootstrap=0,
                         report_dir=tmp_path / "report", progress=False)
    assert [row["segmenter"] for row in r.audit_rows] == ["bpe", "unigram"]
    on_disk = read_csv(tmp_path / "report" / "audit.csv")
    assert [row["single byte"] for row in on_disk] == [str(row["single byte"])
                                                      for row in r.audit_rows]
    assert len(r.agreement_rows) == 2
    matrix = r.agreement_matrices[""]
    assert matrix["labels"] == ["bpe", "unigram"]
    assert matrix["boundary_f1"][0][1] == r.agreement_rows[0]["boundary f1"] or abs(
        matrix["boundary_f1"][0][1] - r.agreement_rows[0]["boundary f1"]) < 1e-4


def test_compare_allocation_gives_the_clis_tables(tmp_path):
    r = tokenlab.compare(parallel=PARALLEL, vocab_size=300, algorithms=["bpe"],
                         allocation=True, allocation_sizes=[250, 200], bootstrap=0,
                         report_dir=tmp_path / "report", progress=False)
    assert [row["language"] for row in r.allocation_rows] == ["de", "en"]
    assert r.allocation_summary_rows[0]["method"] == "merges"
    on_disk = read_csv(tmp_path / "report" / "allocation-languages.csv")
    assert [row["language"] for row in on_disk] == ["de", "en"]
    kept = sorted({int(row["kept"]) for row in r.allocation_pruning_rows}, reverse=True)
    assert kept[1:3] == [250, 200]
    assert r.allocation_entry_rows
