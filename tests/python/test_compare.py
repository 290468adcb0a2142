"""tokenlab.compare and tokenlab.sweep: the CLI's experiments, with their rows
as Python dicts (compare.csv's and sweep.csv's columns)."""

import csv

import pytest

import tokenlab
from conftest import DATA, ENGLISH, PARALLEL, UNIGRAM_MODEL, python_error, run_cli

TIMING = {"train s", "peak MiB", "enc MB/s"}


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    report = tmp_path_factory.mktemp("report")
    return tokenlab.compare(corpus=ENGLISH, vocab_size=250, algorithms=["bpe", "unigram"],
                            report_dir=report, progress=False), report


def test_rows_have_compare_csvs_columns_and_values(result):
    compared, report = result
    on_disk = read_csv(report / "compare.csv")
    assert compared.columns == list(on_disk[0].keys())
    assert [r["segmenter"] for r in compared.rows] == ["bpe", "unigram"]
    for row, disk in zip(compared.rows, on_disk):
        assert list(row) == compared.columns
        for column, value in row.items():
            if column in TIMING:
                continue
            if value is None:
                assert disk[column] in ("", "-")
            elif isinstance(value, float):
                assert value == pytest.approx(float(disk[column]))
            else:
                assert str(value) == disk[column]
    assert isinstance(compared.rows[0]["vocab"], int)
    assert isinstance(compared.rows[0]["tok/word"], float)
    assert "bpe" in str(compared) and "tok/word" in str(compared)


def test_to_pandas_is_the_rows_as_a_data_frame(result):
    pytest.importorskip("pandas")
    compared, _ = result
    frame = compared.to_pandas()
    assert list(frame.columns) == compared.columns
    assert frame["segmenter"].tolist() == ["bpe", "unigram"]
    assert frame["tok/word"].tolist() == [r["tok/word"] for r in compared.rows]


def test_write_report_writes_the_clis_report_files(result, tmp_path):
    compared, _ = result
    files = compared.write_report(str(tmp_path / "again"))
    names = {p.split("/")[-1] for p in files}
    assert {"compare.csv", "compare.json", "compare.md", "report.html"} <= names
    assert [r["segmenter"] for r in read_csv(tmp_path / "again" / "compare.csv")] == [
        "bpe", "unigram"]


def test_parallel_corpora_and_real_tokenizers(tmp_path):
    compared = tokenlab.compare(parallel=PARALLEL, vocab_size=120, algorithms="bpe",
                                tokenizers={"spm": UNIGRAM_MODEL}, progress=False)
    rows = compared.rows
    assert {(r["segmenter"], r["lang"]) for r in rows} == {
        ("bpe", "de"), ("bpe", "en"), ("spm (pretrained)", "de"), ("spm (pretrained)", "en")}
    assert all(r["premium"] is not None for r in rows)
    assert compared.fairness_rows and "gini" in compared.fairness_rows[0]


def test_languages_as_a_dict_and_per_language_training():
    compared = tokenlab.compare(
        corpus={"en": DATA / "corpus" / "pair.en.txt", "hi": DATA / "corpus" / "pair.hi.txt"},
        vocab_size=100, algorithms=["character"], per_language=True, held_out=0.2,
        progress=False)
    assert sorted(r["lang"] for r in compared.rows) == ["en", "hi"]


def test_options_per_algorithm(tmp_path):
    compared = tokenlab.compare(corpus=ENGLISH, vocab_size=300, algorithms=["bpe"],
                                options={"bpe": {"units": "bytes"}}, progress=False)
    assert compared.rows[0]["unk tok%"] == 0.0


def test_sweep_rows_and_runs(tmp_path):
    swept = tokenlab.sweep(corpus=ENGLISH, vocab_sizes=[100, 200], algorithms=["bpe", "word"],
                           report_dir=tmp_path, progress=False)
    assert swept.vocab_sizes == [100, 200]
    assert [(r["size"], r["segmenter"]) for r in swept.rows] == [
        (100, "bpe"), (100, "word"), (200, "bpe"), (200, "word")]
    assert swept.columns == list(read_csv(tmp_path / "sweep.csv")[0].keys())
    assert [len(run.rows) for run in swept.runs] == [2, 2]
    assert swept.runs[1].rows[0]["vocab"] <= 200
    pytest.importorskip("pandas")
    assert swept.to_pandas().shape == (4, len(swept.columns))
    assert "sweep.csv" in {p.split("/")[-1] for p in swept.write_report(str(tmp_path / "w"))}


def test_bad_arguments_give_the_clis_messages_naming_keywords(tmp_path):
    # The CLI's own checks, worded for Python: each option the message names is
    # spelled as the keyword argument that sets it.
    with pytest.raises(tokenlab.InputError) as caught:
        tokenlab.compare(corpus=ENGLISH, held_out=2, progress=False)
    assert str(caught.value) == python_error("compare", "--corpus", ENGLISH, "--held-out", 2)
    assert "argument 'held_out'" in str(caught.value) and "--" not in str(caught.value)
    with pytest.raises(tokenlab.InputError) as caught:
        tokenlab.compare(corpus=ENGLISH, options={"nosuch": {"a": 1}}, progress=False)
    assert str(caught.value) == python_error("compare", "--corpus", ENGLISH, "--option",
                                               "nosuch:a=1")
    with pytest.raises(tokenlab.InputError) as caught:
        tokenlab.sweep(corpus=ENGLISH, vocab_sizes="100,x", progress=False)
    assert str(caught.value) == python_error("sweep", "--corpus", ENGLISH, "--vocab-sizes",
                                               "100,x")
    with pytest.raises(tokenlab.InputError) as caught:
        tokenlab.compare(corpus=ENGLISH, parallel=PARALLEL, progress=False)
    assert "corpus=" in str(caught.value) and "parallel=" in str(caught.value)
    assert "--" not in str(caught.value)
    with pytest.raises(tokenlab.InputError) as caught:
        tokenlab.compare(corpus=ENGLISH, pre_tokenizer="nosuch", progress=False)
    assert "--" not in str(caught.value)
    with pytest.raises(tokenlab.InputError, match="tokenizers="):
        tokenlab.compare(corpus=ENGLISH, algorithms="none", progress=False)
    with pytest.raises(tokenlab.InputError, match="unit"):
        tokenlab.compare(corpus=ENGLISH, unit="sentence", progress=False)
    with pytest.raises(TypeError):
        tokenlab.compare(corpus=ENGLISH, tokenizers=["spm"], progress=False)
    with pytest.raises(TypeError):
        tokenlab.compare(corpus=ENGLISH, no_such_argument=1)


def test_keyword_message_rewords_options_but_not_paths():
    assert tokenlab._keyword_message("give --eval or --eval-parallel, not both") == (
        "give eval= or eval_parallel=, not both")
    assert tokenlab._keyword_message("pass it with --tokenizer NAME=FILE") == (
        "pass it with tokenizers= NAME=FILE")
    assert tokenlab._keyword_message("/tmp/a--b/c.txt: --plugin-dir") == (
        "/tmp/a--b/c.txt: plugin_dirs=")


def test_missing_files_are_file_errors(tmp_path):
    with pytest.raises(tokenlab.FileError) as caught:
        tokenlab.compare(corpus=tmp_path / "none.txt", vocab_size=100, algorithms="bpe",
                         progress=False)
    assert str(caught.value) == python_error("compare", "--corpus", tmp_path / "none.txt",
                                          "--vocab-size", 100, "--algorithms", "bpe")
    with pytest.raises(tokenlab.FileError):
        tokenlab.compare(corpus=ENGLISH, tokenizers={"x": tmp_path / "none.json"}, progress=False)
    with pytest.raises(tokenlab.FileError):
        tokenlab.compare(parallel=tmp_path / "nodir", progress=False)


def without_timing(rows):
    return [{k: v for k, v in row.items() if k not in TIMING} for row in rows]


def test_compare_and_sweep_train_from_counts_made_elsewhere(tmp_path):
    # As compare --counts: the trainers see the given counts, and every line of
    # the corpus is evaluation text.
    import tempfile
    from pathlib import Path

    counts = tokenlab.count(DATA / "corpus" / "pair.en.txt", progress=False)
    counts.save(tmp_path / "en.tsv")
    leftovers = set(Path(tempfile.gettempdir()).glob("tokenlab-counts-*"))
    from_object = tokenlab.compare(corpus=ENGLISH, counts=counts, vocab_size=300,
                                   algorithms=["bpe", "word"], report_dir=tmp_path / "r",
                                   progress=False)
    assert set(Path(tempfile.gettempdir()).glob("tokenlab-counts-*")) == leftovers
    from_file = tokenlab.compare(corpus=ENGLISH, counts=tmp_path / "en.tsv", vocab_size=300,
                                 algorithms=["bpe", "word"], progress=False)
    assert [r["segmenter"] for r in from_file.rows] == ["bpe", "word"]
    assert without_timing(from_object.rows) == without_timing(from_file.rows)
    summary = (tmp_path / "r" / "compare.json").read_text(encoding="utf-8")
    lines = sum(1 for line in open(ENGLISH, encoding="utf-8") if line.strip("\n"))
    assert f'(training / held out)": "0 / {lines}"' in summary
    assert "training from counts" in summary

    swept = tokenlab.sweep(corpus=ENGLISH, counts=counts, vocab_sizes=[200, 300],
                           algorithms=["word"], progress=False)
    assert [(r["size"], r["segmenter"]) for r in swept.rows] == [(200, "word"), (300, "word")]

    lower = tokenlab.count(DATA / "corpus" / "pair.en.txt", lowercase=True, progress=False)
    with pytest.raises(tokenlab.InputError, match="counted with normalizer=nfc\\+lowercase"):
        tokenlab.compare(corpus=ENGLISH, counts=lower, algorithms=["word"], progress=False)
    assert set(Path(tempfile.gettempdir()).glob("tokenlab-counts-*")) == leftovers


def test_train_on_one_text_and_evaluate_own_models_on_another(tmp_path):
    # Issue 26: the study design "train on A, evaluate on parallel B" as one call,
    # with a model trained before beside the ones trained in the run.
    model = tmp_path / "mine.tkl"
    tokenlab.train("bpe", 300, corpus=ENGLISH, progress=False).save(model)
    compared = tokenlab.compare(corpus=ENGLISH, eval_parallel=PARALLEL, vocab_size=300,
                                algorithms=["bpe"], models={"mine": model}, progress=False)
    rows = {(r["segmenter"], r["lang"]): r for r in compared.rows}
    assert set(rows) == {("bpe", "en"), ("bpe", "de"), ("mine", "en"), ("mine", "de")}
    for language in ("en", "de"):
        assert rows[("mine", language)]["tokens"] == rows[("bpe", language)]["tokens"]
        assert rows[("mine", language)]["premium"] == rows[("bpe", language)]["premium"]
    assert rows[("bpe", "en")]["premium"] == 1.0
    only_mine = tokenlab.compare(eval={"en": f"{PARALLEL}/en.txt"},
                                 algorithms="none", models={"mine": model}, progress=False)
    assert [r["segmenter"] for r in only_mine.rows] == ["mine"]


def test_protocols_nsl_bootstrap_and_pooled_rows():
    # Issue 26: the papers' protocols, NSL and paired bootstrap intervals, with
    # the CLI's names as keywords.
    compared = tokenlab.compare(
        corpus=ENGLISH, eval_parallel=PARALLEL, vocab_size=200, algorithms=["bpe", "unigram"],
        tokenizers={"spm": UNIGRAM_MODEL}, unit="document", words="whitespace",
        squeeze_spaces=True, baseline="bpe", bootstrap=200, progress=False)
    rows = {(r["segmenter"], r["lang"]): r for r in compared.rows}
    assert rows[("bpe", "de")]["nsl"] == 1.0
    assert rows[("unigram", "de")]["nsl"] == pytest.approx(
        rows[("unigram", "de")]["tokens"] / rows[("bpe", "de")]["tokens"], abs=5e-4)
    low, high = (float(x) for x in rows[("unigram", "de")]["nsl 95% CI"].split(".."))
    assert low <= rows[("unigram", "de")]["nsl"] <= high
    # One call per file gives the real tokenizer no tokens per line to resample.
    assert rows[("spm (pretrained)", "de")]["nsl 95% CI"] == "-"
    pooled = {r["segmenter"]: r for r in compared.pooled_rows}
    assert set(pooled) == {"bpe", "unigram", "spm (pretrained)"}
    assert pooled["bpe"]["tokens"] == rows[("bpe", "de")]["tokens"] + rows[("bpe", "en")]["tokens"]
    fairness = {(r["segmenter"], r["lang"]): r for r in compared.fairness_rows}
    assert fairness[("unigram", "de")]["premium 95% CI"] != "-"
    assert "vs bpe 95% CI" in fairness[("unigram", "de")]


@pytest.mark.parametrize("function", ["count", "train", "compare", "sweep"])
def test_signatures_are_the_clis_options_with_the_clis_defaults(function):
    # One declaration of each option (framework/app) makes both: every option the
    # CLI's --help lists is a keyword here, with the default --help shows.
    import inspect
    import re

    parameters = inspect.signature(getattr(tokenlab, function)).parameters
    help_text = run_cli(function, "--help").stdout
    options = re.findall(r"--([a-z][a-z0-9-]*)(?: \] | )arg(?: \(=([^)]*)\))?", help_text)
    switches = re.findall(r"^\s+--([a-z][a-z0-9-]*)\s{2,}", help_text, re.MULTILINE)
    cli_only = {"output", "merge", "max-memory", "spill-dir", "help"}
    keywords = tokenlab._KEYWORD_OF_OPTION
    checked = 0
    for name, default in options + [(s, "") for s in switches]:
        if name in cli_only:
            continue
        keyword = keywords.get(name, name.replace("-", "_"))
        assert keyword in parameters or (function == "train" and keyword == "options"), name
        if default:
            shown = parameters[keyword].default
            shown = ",".join(map(str, shown)) if isinstance(shown, list) else str(shown)
            assert shown == default, (name, shown, default)
            checked += 1
    assert checked >= (1 if function == "train" else 5)
    assert "Arguments" in getattr(tokenlab, function).__doc__
