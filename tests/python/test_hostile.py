"""Misuse from Python that must never crash (issue 27): encode_batch while
another thread edits the list it was given, and n-best requests too large."""

import threading

import pytest

import tokenlab


@pytest.mark.parametrize("numpy", [False, True])
def test_encode_batch_survives_the_list_being_cleared_by_another_thread(bpe, numpy):
    # encode_batch reads the texts with the GIL released; it used the list itself
    # (PySequence_Fast), so a thread clearing the list freed the strs under it.
    if numpy:
        pytest.importorskip("numpy")
    base = ["a line of text with some words in it, number %d" % i for i in range(2000)]
    expected = bpe.encode_batch(base)
    for _ in range(20):
        texts = [("%s " % t) * 20 for t in base]
        copy = list(texts)
        stop = threading.Event()

        def vandal():
            while not stop.is_set():
                texts.clear()
                texts.extend(copy[:100])
                texts[:] = [t + "!" for t in texts]

        thread = threading.Thread(target=vandal)
        thread.start()
        try:
            for _ in range(3):
                result = bpe.encode_batch(texts, threads=2, numpy=numpy)
                assert result is not None
        finally:
            stop.set()
            thread.join()
    # The model is unharmed.
    assert bpe.encode_batch(base) == expected


def test_encode_batch_reads_the_texts_as_they_were_at_the_call(bpe):
    texts = ["one line", "two lines"]
    assert bpe.encode_batch(texts) == [bpe.encode(t) for t in texts]
    assert bpe.encode_batch(("one line",)) == [bpe.encode("one line")]
    with pytest.raises(TypeError):
        bpe.encode_batch(x for x in texts)


def test_nbest_k_is_bounded_as_sentencepiece_bounds_it(unigram):
    # k = 10**7 grew to 5.9 GB; SentencePiece clamps nbest_size to 1024.
    assert unigram.nbest("the", 1024)
    with pytest.raises(tokenlab.Error, match="1024"):
        unigram.nbest("the", 10**7)
    with pytest.raises(tokenlab.Error, match="1024"):
        unigram.nbest("the", 1025)


def test_a_bad_text_is_named_even_while_other_chunks_are_being_encoded(bpe):
    # The workers stopped mid-chunk by the bad line must not raise "interrupted"
    # in its place.
    texts = ["a lone \udc80 surrogate"] + ["word " * 1000] * 3000
    for _ in range(5):
        with pytest.raises(UnicodeEncodeError):
            bpe.encode_batch(texts, threads=2)
