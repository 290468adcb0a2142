"""Tokenizer: encode, tokens, decode, encode_batch, vocabulary, save, export,
sample and nbest, for trained models and real tokenizer files."""

import pytest

import tokenlab
from conftest import DATA, ENGLISH, UNIGRAM_MODEL, cli_error, run_cli

SENTENCE = "In the beginning God created the heaven and the earth."


def test_encode_gives_the_clis_ids_and_decode_the_text(tmp_path, bpe, english_lines):
    bpe.save(str(tmp_path / "bpe.tkl"))
    out = run_cli("encode", "-m", tmp_path / "bpe.tkl", "-i", ENGLISH).stdout.splitlines()
    assert [bpe.encode(line) for line in english_lines] == [
        [int(i) for i in line.split()] for line in out
    ]
    for line in english_lines:
        ids = bpe.encode(line)
        if bpe.unknown_id not in ids:  # characters outside the alphabet are unknown
            assert bpe.decode(ids) == line


def test_tokens_are_the_clis_pieces(tmp_path, bpe):
    bpe.save(str(tmp_path / "bpe.tkl"))
    (tmp_path / "in.txt").write_text(SENTENCE + "\n")
    pieces = run_cli("encode", "-m", tmp_path / "bpe.tkl", "--pieces", "-i", tmp_path / "in.txt")
    assert " ".join(bpe.tokens(SENTENCE)) == pieces.stdout.strip()
    assert len(bpe.tokens(SENTENCE)) == len(bpe.encode(SENTENCE))


def test_encode_batch_is_encode_for_each_line_at_any_thread_count(bpe, english_lines):
    expected = [bpe.encode(line) for line in english_lines]
    assert bpe.encode_batch(english_lines) == expected
    assert bpe.encode_batch(english_lines, threads=1) == expected
    assert bpe.encode_batch(english_lines, threads=2) == expected
    assert bpe.encode_batch(tuple(english_lines[:3])) == expected[:3]
    assert bpe.encode_batch([]) == []


def test_encode_batch_reads_every_kind_of_str_as_encode_does(bpe):
    # Python keeps str as 1, 2 or 4 bytes a character; encode_batch converts them itself.
    texts = ["plain ascii", "café déjà vu", "दिल्ली भारत", "emoji 🙂 and 𝄞", "", "ÿ" * 300]
    for threads in (1, 2):
        assert bpe.encode_batch(texts * 100, threads=threads) == [bpe.encode(t) for t in texts] * 100
    with pytest.raises(UnicodeEncodeError):
        bpe.encode_batch(["fine"] * 300 + ["lone \udc80 surrogate"] + ["fine"], threads=2)


def test_encode_batch_returns_numpy_ids_and_offsets(bpe, english_lines):
    numpy = pytest.importorskip("numpy")
    ids, offsets = bpe.encode_batch(english_lines, numpy=True)
    assert ids.dtype == numpy.uint32 and offsets.dtype == numpy.int64
    assert len(offsets) == len(english_lines) + 1 and offsets[-1] == len(ids)
    for i, line in enumerate(english_lines):
        assert ids[offsets[i] : offsets[i + 1]].tolist() == bpe.encode(line)
    assert bpe.decode(ids[offsets[0] : offsets[1]]) == bpe.decode(bpe.encode(english_lines[0]))


def test_vocabulary_and_size(bpe, tmp_path):
    vocabulary = bpe.vocabulary()
    assert len(vocabulary) == bpe.vocab_size
    assert vocabulary[0] == "<unk>" and bpe.unknown_id == 0
    assert bpe.capabilities == ["sampling", "trace"]
    assert [vocabulary[i] for i in bpe.encode(SENTENCE)] == bpe.tokens(SENTENCE)
    assert repr(bpe).startswith("<tokenlab.Tokenizer bpe")


def test_save_and_load_give_the_same_tokenizer(bpe, tmp_path):
    bpe.save(str(tmp_path / "bpe.tkl"))
    back = tokenlab.load(tmp_path / "bpe.tkl")
    assert back.kind == "bpe" and back.vocabulary() == bpe.vocabulary()
    assert back.encode(SENTENCE) == bpe.encode(SENTENCE)


def test_export_writes_what_the_cli_writes_and_reads_back(tmp_path):
    # HF and SentencePiece have no pre-tokenizer like tokenlab's default unicode one.
    # SentencePiece joins runs of unknown characters: the BPE needs byte fallback.
    bpe = tokenlab.train("bpe", 400, corpus=ENGLISH, pre_tokenizer="whitespace",
                         byte_fallback=True, progress=False)
    bpe.save(str(tmp_path / "bpe.tkl"))
    for fmt, name in [("tokenizer.json", "tokenizer.json"), ("sentencepiece", "bpe.model")]:
        bpe.export(str(tmp_path / f"py-{name}"), fmt, approximate=True)
        run_cli("export", "--format", fmt, "--approximate", "-m", tmp_path / "bpe.tkl", "-o",
                tmp_path / f"cli-{name}")
        assert (tmp_path / f"py-{name}").read_bytes() == (tmp_path / f"cli-{name}").read_bytes()
    real = tokenlab.load(tmp_path / "py-tokenizer.json")
    assert real.kind == "tokenizer.json"
    assert real.encode(SENTENCE) == bpe.encode(SENTENCE)


def test_export_arguments_are_checked_as_the_cli_checks_them(bpe, tmp_path):
    bpe.save(str(tmp_path / "bpe.tkl"))
    with pytest.raises(tokenlab.InputError) as caught:
        bpe.export(str(tmp_path / "x"), "yaml")
    assert str(caught.value) == cli_error("export", "--format", "yaml", "-m", tmp_path / "bpe.tkl",
                                          "-o", tmp_path / "x")
    with pytest.raises(tokenlab.InputError, match="--dropout needs --format tokenizer.json"):
        bpe.export(str(tmp_path / "x"), "sentencepiece", dropout=True)
    with pytest.raises(tokenlab.FileError):
        bpe.export(str(tmp_path / "no" / "such" / "dir" / "t.json"), "tokenizer.json")


def test_sample_draws_segmentations_repeatably_by_seed(bpe):
    word = "beginning"
    deterministic = bpe.encode(word)
    assert bpe.sample(word, dropout=0.0) == deterministic
    draws = {tuple(bpe.sample(word, dropout=0.5, seed=s)) for s in range(20)}
    assert len(draws) > 1
    assert bpe.sample(word, dropout=0.5, seed=7) == bpe.sample(word, dropout=0.5, seed=7)
    for ids in draws:
        assert bpe.decode(list(ids)) == word
    with pytest.raises(tokenlab.InputError, match="dropout must be in"):
        bpe.sample(word, dropout=2.0)


def test_nbest_lists_segmentations_best_first(unigram):
    best = unigram.nbest("beginning", 4)
    assert 1 <= len(best) <= 4
    scores = [score for _, score in best]
    assert scores == sorted(scores, reverse=True)
    assert best[0][0] == unigram.encode("beginning")
    for ids, _ in best:
        assert unigram.decode(ids) == "beginning"
    with pytest.raises(tokenlab.InputError, match="one word"):
        unigram.nbest("two words", 2)


def test_capabilities_a_plugin_lacks_are_errors_with_the_clis_message(bpe, tmp_path):
    with pytest.raises(tokenlab.InputError, match="does not support n-best"):
        bpe.nbest("word", 2)
    word = tokenlab.train("word", 100, corpus=ENGLISH, progress=False)
    word.save(str(tmp_path / "word.tkl"))
    with pytest.raises(tokenlab.InputError) as caught:
        word.sample("word", dropout=0.1)
    assert str(caught.value) == cli_error("encode", "-m", tmp_path / "word.tkl", "--dropout", 0.1,
                                          "-i", ENGLISH)


def test_a_real_tokenizer_file_loads_and_encodes_as_the_cli_does():
    spm = tokenlab.load(UNIGRAM_MODEL)
    assert spm.kind == "sentencepiece"
    text = (DATA / "pretrained" / "spm_text.txt").read_text(encoding="utf-8").splitlines()[0]
    out = run_cli("encode", "-m", UNIGRAM_MODEL, "-i", DATA / "pretrained" / "spm_text.txt")
    assert spm.encode(text) == [int(i) for i in out.stdout.splitlines()[0].split()]
    assert spm.decode(spm.encode(text)) == text
    assert spm.nbest("hello", 2)
    with pytest.raises(tokenlab.InputError, match="save writes models tokenlab trained"):
        spm.save("/tmp/never-written.tkl")
    with pytest.raises(tokenlab.InputError, match="export writes models tokenlab trained"):
        spm.export("/tmp/never-written.json", "tokenizer.json")


def test_missing_and_malformed_model_files(tmp_path):
    with pytest.raises(tokenlab.FileError) as caught:
        tokenlab.load(tmp_path / "none.tkl")
    assert str(caught.value) == cli_error("encode", "-m", tmp_path / "none.tkl", "-i", ENGLISH)
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\x00\x01 not a model at all")
    with pytest.raises(tokenlab.InputError) as caught:
        tokenlab.load(junk)
    assert str(caught.value) == cli_error("encode", "-m", junk, "-i", ENGLISH)
    with pytest.raises(tokenlab.FileError):
        tokenlab.load(tmp_path)
    truncated = tmp_path / "truncated.tkl"
    (tmp_path / "ok.tkl").write_bytes(b"")
    tokenlab.train("bpe", 100, corpus=ENGLISH, progress=False).save(str(tmp_path / "ok.tkl"))
    truncated.write_bytes((tmp_path / "ok.tkl").read_bytes()[:-10])
    with pytest.raises(tokenlab.InputError):
        tokenlab.load(truncated)


def test_bad_arguments_raise_and_never_crash(bpe):
    with pytest.raises(TypeError):
        bpe.encode(None)
    with pytest.raises(TypeError):
        bpe.encode(b"bytes")
    with pytest.raises(TypeError):
        bpe.encode_batch("a string, not a list")
    with pytest.raises(TypeError):
        bpe.encode_batch(["ok", 3])
    with pytest.raises(TypeError):
        bpe.decode(["a"])
    with pytest.raises(TypeError):
        bpe.decode(5)
    for bad in ([-1], [bpe.vocab_size], [2**70]):
        with pytest.raises(tokenlab.InputError, match="outside the vocabulary"):
            bpe.decode(bad)
    with pytest.raises(UnicodeEncodeError):
        bpe.encode("lone surrogate \udc80")
    with pytest.raises(tokenlab.InputError):
        bpe.nbest("word", 0)
    assert bpe.encode("") == [] and bpe.decode([]) == ""
