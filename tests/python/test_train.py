"""tokenlab.train: the model `tokenlab train` makes, with its arguments and messages."""

import pytest

import tokenlab
from conftest import ENGLISH, python_error, run_cli


@pytest.mark.parametrize("algorithm", ["bpe", "unigram", "wordpiece", "character", "word"])
def test_train_saves_the_bytes_the_cli_saves(tmp_path, algorithm):
    model = tokenlab.train(algorithm, 200, corpus=ENGLISH, progress=False)
    model.save(str(tmp_path / "py.tkl"))
    run_cli("train", "-a", algorithm, "-v", 200, "--corpus", ENGLISH, "-o", tmp_path / "cli.tkl")
    assert (tmp_path / "py.tkl").read_bytes() == (tmp_path / "cli.tkl").read_bytes()
    assert model.kind == algorithm
    assert 0 < model.vocab_size <= 200


def test_options_are_the_clis_and_algorithm_options_are_keywords(tmp_path):
    model = tokenlab.train("bpe", 400, corpus=[ENGLISH], threads=1, seed=3, min_frequency=2,
                           character_coverage=1.0, special_tokens=["<unk>", "<pad>"],
                           lowercase=True, units="bytes", progress=False)
    model.save(str(tmp_path / "py.tkl"))
    run_cli("train", "-a", "bpe", "-v", 400, "--corpus", ENGLISH, "--threads", 1, "--seed", 3,
            "--min-frequency", 2, "--character-coverage", 1.0, "--special-tokens", "<unk>,<pad>",
            "--lowercase", "--option", "units=bytes", "-o", tmp_path / "cli.tkl")
    assert (tmp_path / "py.tkl").read_bytes() == (tmp_path / "cli.tkl").read_bytes()
    assert model.vocabulary()[:2] == ["<unk>", "<pad>"]


def test_train_from_counts_object_or_file(tmp_path):
    counts = tokenlab.count(ENGLISH, progress=False)
    from_object = tokenlab.train("bpe", 300, counts=counts, progress=False)
    counts.save(tmp_path / "counts.tsv")
    from_file = tokenlab.train("bpe", 300, counts=tmp_path / "counts.tsv", progress=False)
    from_corpus = tokenlab.train("bpe", 300, corpus=ENGLISH, progress=False)
    assert from_object.vocabulary() == from_file.vocabulary() == from_corpus.vocabulary()


def test_counts_made_with_other_settings_are_refused_naming_both():
    counts = tokenlab.count(ENGLISH, lowercase=True, progress=False)
    with pytest.raises(tokenlab.InputError, match="counted with .*lowercase.* and train was given"):
        tokenlab.train("bpe", 300, counts=counts, progress=False)


def test_progress_callback_gets_stages_and_fractions():
    events = []
    tokenlab.train("bpe", 300, corpus=ENGLISH, progress=lambda s, f: events.append((s, f)))
    stages = [s for s, _ in events]
    assert any(s.startswith("counting") for s in stages)
    merges = [f for s, f in events if s == "bpe merges"]
    assert merges and merges == sorted(merges) and merges[-1] == 1.0
    assert all(f is None or 0.0 <= f <= 1.0 for _, f in events)


def test_an_exception_in_the_progress_callback_stops_training_and_propagates():
    def fail(stage, fraction):
        if stage == "bpe merges":
            raise ZeroDivisionError("from the callback")

    with pytest.raises(ZeroDivisionError, match="from the callback"):
        tokenlab.train("bpe", 300, corpus=ENGLISH, progress=fail)


def test_tqdm_bar_is_shown_when_progress_is_left_default(capsys):
    pytest.importorskip("tqdm")
    tokenlab.train("bpe", 300, corpus=ENGLISH)
    assert "bpe merges" in capsys.readouterr().err


def test_unknown_plugin_is_an_input_error_with_the_clis_message(tmp_path):
    with pytest.raises(tokenlab.InputError) as caught:
        tokenlab.train("nosuch", 300, corpus=ENGLISH, progress=False)
    assert "nosuch" in str(caught.value) and "bpe" in str(caught.value)
    assert str(caught.value) == python_error("train", "-a", "nosuch", "-v", 300, "--corpus", ENGLISH,
                                          "-o", tmp_path / "m.tkl")


def test_unknown_algorithm_option_lists_the_valid_keys(tmp_path):
    with pytest.raises(tokenlab.InputError) as caught:
        tokenlab.train("bpe", 300, corpus=ENGLISH, colour="blue", progress=False)
    assert "colour" in str(caught.value) and "units" in str(caught.value)
    assert str(caught.value) == python_error("train", "-a", "bpe", "-v", 300, "--corpus", ENGLISH,
                                          "--option", "colour=blue", "-o", tmp_path / "m.tkl")


@pytest.mark.parametrize("vocab_size", [0, -1, "many", 2**40, True])
def test_bad_vocabulary_sizes_give_the_clis_range(tmp_path, vocab_size):
    with pytest.raises(tokenlab.InputError, match="argument 'vocab_size' is invalid: expected an integer in"):
        tokenlab.train("bpe", vocab_size, corpus=ENGLISH, progress=False)


def test_exactly_one_of_corpus_and_counts():
    with pytest.raises(tokenlab.InputError, match="give exactly one of corpus= and counts="):
        tokenlab.train("bpe", 300, progress=False)
    counts = tokenlab.count(ENGLISH, progress=False)
    with pytest.raises(tokenlab.InputError, match="give exactly one of corpus= and counts="):
        tokenlab.train("bpe", 300, corpus=ENGLISH, counts=counts, progress=False)


def test_missing_corpus_is_a_file_error(tmp_path):
    with pytest.raises(tokenlab.FileError) as caught:
        tokenlab.train("bpe", 300, corpus=tmp_path / "none.txt", progress=False)
    assert str(caught.value) == python_error("train", "-a", "bpe", "-v", 300, "--corpus",
                                          tmp_path / "none.txt", "-o", tmp_path / "m.tkl")


def test_bad_character_coverage_and_progress_types():
    with pytest.raises(tokenlab.InputError, match="character_coverage"):
        tokenlab.train("bpe", 300, corpus=ENGLISH, character_coverage=1.5, progress=False)
    with pytest.raises(TypeError):
        tokenlab.train("bpe", 300, corpus=ENGLISH, progress="yes")
