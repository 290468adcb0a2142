"""tokenlab.count and WordCounts: the counts `tokenlab count` writes, as a Python object."""

import pytest

import tokenlab
from conftest import DATA, ENGLISH, python_error, run_cli


def test_count_gives_the_table_the_cli_writes(tmp_path):
    counts = tokenlab.count(ENGLISH, progress=False)
    run_cli("count", ENGLISH, "-o", tmp_path / "cli.tsv")
    counts.save(tmp_path / "py.tsv")
    assert (tmp_path / "py.tsv").read_bytes() == (tmp_path / "cli.tsv").read_bytes()


def test_words_come_in_first_occurrence_order_with_their_counts():
    counts = tokenlab.count(DATA / "corpus" / "count_small.txt", progress=False)
    words = list(counts)
    assert len(words) == len(counts) > 0
    assert all(isinstance(w, str) and isinstance(c, int) and c > 0 for w, c in words)
    assert sum(c for _, c in words) == counts.total
    first_word = words[0][0]
    assert counts[first_word] == words[0][1]
    assert first_word in counts
    assert counts["no-such-word-here"] == 0 and "no-such-word-here" not in counts
    assert counts.settings == "normalizer=nfc pre-tokenizer=unicode/prefix"


def test_most_common_sorts_by_count_keeping_first_occurrence_for_ties():
    counts = tokenlab.count(ENGLISH, progress=False)
    top = counts.most_common(5)
    assert len(top) == 5
    assert [c for _, c in top] == sorted((c for _, c in top), reverse=True)
    everything = counts.most_common()
    assert len(everything) == len(counts)
    assert everything[:5] == top
    order = {w: i for i, (w, _) in enumerate(counts)}
    for (w1, c1), (w2, c2) in zip(everything, everything[1:]):
        assert c1 > c2 or (c1 == c2 and order[w1] < order[w2])


def test_save_and_load_round_trip(tmp_path):
    counts = tokenlab.count(ENGLISH, progress=False)
    counts.save(tmp_path / "counts.tsv")
    back = tokenlab.WordCounts.load(tmp_path / "counts.tsv")
    assert list(back) == list(counts) and back.settings == counts.settings


def test_plus_merges_counts_like_count_merge(tmp_path):
    a = tokenlab.count(DATA / "corpus" / "pair.en.txt", progress=False)
    b = tokenlab.count(ENGLISH, progress=False)
    merged = a + b
    assert merged.total == a.total + b.total
    assert len(merged) <= len(a) + len(b)
    a.save(tmp_path / "a.tsv")
    b.save(tmp_path / "b.tsv")
    run_cli("count", "--merge", tmp_path / "a.tsv", tmp_path / "b.tsv", "-o", tmp_path / "m.tsv")
    merged.save(tmp_path / "py.tsv")
    assert (tmp_path / "py.tsv").read_bytes() == (tmp_path / "m.tsv").read_bytes()
    a += b
    assert list(a) == list(merged)


def test_counts_made_another_way_do_not_merge():
    a = tokenlab.count(ENGLISH, progress=False)
    b = tokenlab.count(ENGLISH, lowercase=True, progress=False)
    with pytest.raises(tokenlab.InputError, match="lowercase"):
        a + b


def test_count_options_are_the_clis():
    counts = tokenlab.count(ENGLISH, threads=1, pre_tokenizer="whitespace", marker="suffix",
                            normalization="nfkc", lowercase=True, progress=False)
    assert counts.settings.startswith("normalizer=nfkc+lowercase")
    assert "whitespace/suffix" in counts.settings


def test_a_missing_corpus_is_a_file_error_with_the_clis_message(tmp_path):
    missing = tmp_path / "missing.txt"
    with pytest.raises(tokenlab.FileError) as caught:
        tokenlab.count(missing, progress=False)
    assert isinstance(caught.value, OSError) and isinstance(caught.value, tokenlab.Error)
    assert str(caught.value) == python_error("count", missing, "-o", tmp_path / "out.tsv")


def test_bad_options_are_input_errors_with_the_clis_message(tmp_path):
    with pytest.raises(tokenlab.InputError) as caught:
        tokenlab.count(ENGLISH, pre_tokenizer="nonsense", progress=False)
    assert isinstance(caught.value, ValueError)
    assert str(caught.value) == python_error("count", ENGLISH, "--pre-tokenizer", "nonsense",
                                          "-o", tmp_path / "out.tsv")
    with pytest.raises(tokenlab.InputError) as caught:
        tokenlab.count(ENGLISH, threads=-1, progress=False)
    assert str(caught.value) == python_error("count", ENGLISH, "--threads", "-1", "-o",
                                          tmp_path / "o.tsv")


def test_loading_a_directory_or_a_malformed_file_fails_cleanly(tmp_path):
    with pytest.raises(tokenlab.FileError):
        tokenlab.WordCounts.load(tmp_path)
    bad = tmp_path / "bad.tsv"
    bad.write_text("word\tnot-a-number\n")
    with pytest.raises(tokenlab.InputError, match="bad.tsv:1"):
        tokenlab.WordCounts.load(bad)
