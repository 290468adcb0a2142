"""tokenlab: train, run and compare subword tokenizers, in-process.

The C++ library behind the ``tokenlab`` command, as a Python module::

    import tokenlab
    bpe = tokenlab.train("bpe", 8000, corpus="bible.txt")
    bpe.encode("In the beginning")          # [...]
    result = tokenlab.compare(corpus="bible.txt", vocab_size=8000)
    result.to_pandas()

Every function takes the arguments of the CLI command of the same name, spelled
as keywords (``--vocab-size`` is ``vocab_size``), checks them with the CLI's own
option parser and gives the CLI's messages: an argument left at ``None`` takes
the CLI's default (docs/defaults.md). Failures raise :class:`Error`: an
:class:`InputError` (also a ``ValueError``) for bad input, a :class:`FileError`
(also an ``OSError``) for a file that cannot be read or written.

Long work runs with the GIL released. Training, counting, compare and sweep
show a tqdm bar when tqdm is installed (``progress=False`` turns it off, a
callable ``progress(stage, fraction)`` gets the events instead; ``fraction`` is
``None`` while counting), and Ctrl-C stops them with ``KeyboardInterrupt``.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

from . import _tokenlab
from ._tokenlab import (
    CompareResult,
    Error,
    FileError,
    InputError,
    SweepResult,
    Tokenizer,
    WordCounts,
    __version__,
)

__all__ = [
    "CompareResult",
    "Error",
    "FileError",
    "InputError",
    "SweepResult",
    "Tokenizer",
    "WordCounts",
    "compare",
    "count",
    "load",
    "plugins",
    "sweep",
    "train",
    "__version__",
]

PathLike = Union[str, "os.PathLike[str]"]
Progress = Union[None, bool, Callable[[str, Optional[float]], Any]]


# ------------------------------------------------------------------ progress


class _TqdmProgress:
    """A tqdm bar per stage (training), or one bar whose label follows the stage."""

    def __init__(self, tqdm: Any, one_bar: bool) -> None:
        self._tqdm = tqdm
        self._one_bar = one_bar
        self._bar: Any = None
        self._stage: Optional[str] = None

    def __call__(self, stage: str, fraction: Optional[float]) -> None:
        label = stage.split(":")[0]
        if self._bar is None or (not self._one_bar and label != self._stage):
            self.close()
            counting = fraction is None and not self._one_bar
            self._bar = self._tqdm(
                total=None if counting else 100,
                desc=label,
                leave=False,
                file=sys.stderr,
                dynamic_ncols=True,
                bar_format="{desc}" if counting else "{desc}: {percentage:3.0f}%|{bar}| {elapsed}",
            )
            self._stage = label
        if self._one_bar or fraction is None:
            self._bar.set_description_str(stage, refresh=False)
        if fraction is not None:
            self._bar.n = max(0, min(100, round(fraction * 100)))
        self._bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _progress(progress: Progress, one_bar: bool) -> Any:
    """The callback for the C++ side: the user's, a tqdm bar, or None."""
    if progress is False:
        return None
    if progress is None or progress is True:
        try:
            from tqdm.auto import tqdm
        except ImportError:
            return None
        return _TqdmProgress(tqdm, one_bar)
    if not callable(progress):
        raise TypeError("progress must be None, a bool or a callable(stage, fraction)")
    return progress


# The keyword that stands for a CLI option where it is not the option's name
# with '-' spelled '_'.
_KEYWORD_OF_OPTION = {
    "tokenizer": "tokenizers",
    "model": "models",
    "option": "options",
    "plugin-dir": "plugin_dirs",
}
_OPTION_NAME = r"--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)"
_QUOTED_OPTION = re.compile(r"option '" + _OPTION_NAME + "'")
_OPTION_IN_MESSAGE = re.compile(r"(?<![\w/.-])" + _OPTION_NAME)


def _keyword(option: str) -> str:
    return _KEYWORD_OF_OPTION.get(option, option.replace("-", "_"))


def _keyword_message(message: str) -> str:
    """The CLI's message with each option spelled as the keyword that sets it here:
    "for option '--held-out'" reads "for argument 'held_out'", and any other
    --held-out reads held_out=."""
    message = _QUOTED_OPTION.sub(lambda m: f"argument '{_keyword(m.group(1))}'", message)
    return _OPTION_IN_MESSAGE.sub(lambda m: _keyword(m.group(1)) + "=", message)


def _with_progress(progress: Progress, one_bar: bool, run: Callable[[Any], Any]) -> Any:
    callback = _progress(progress, one_bar)
    try:
        return run(callback)
    except Error as error:
        # The C++ side words its messages for the command line; here the same
        # settings are keyword arguments, so the message names those.
        message = str(error)
        reworded = _keyword_message(message)
        if reworded == message:
            raise
        raise type(error)(reworded) from None
    finally:
        if isinstance(callback, _TqdmProgress):
            callback.close()


# ------------------------------------------------------------------ arguments


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    return str(value)


def _list(value: Any) -> list:
    if value is None:
        return []
    if isinstance(value, (str, bytes, os.PathLike)) or not isinstance(value, Iterable):
        return [value]
    return list(value)


class _Args:
    """The CLI's option list, built from keyword arguments."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, option: str, value: Any) -> None:
        """--option=value, or nothing for None; a list gives the option once per item."""
        if value is None:
            return
        for item in _list(value):
            self.items.append(f"--{option}={_text(item)}")

    def switch(self, option: str, value: Any) -> None:
        if value:
            self.items.append(f"--{option}")

    def joined(self, option: str, value: Any) -> None:
        """--option=a,b for a list (or the string as given)."""
        if value is None:
            return
        if isinstance(value, str):
            self.add(option, value)
        else:
            self.add(option, ",".join(_text(v) for v in value))

    def pipeline(
        self,
        threads: Any,
        normalization: Any,
        lowercase: Any,
        pre_tokenizer: Any,
        marker: Any,
        invalid_utf8: Any,
    ) -> None:
        self.add("threads", threads)
        self.add("normalization", normalization)
        self.switch("lowercase", lowercase)
        self.add("pre-tokenizer", pre_tokenizer)
        self.add("marker", marker)
        self.add("invalid-utf8", invalid_utf8)


# ------------------------------------------------------------------ functions


def plugins(plugin_dirs: Sequence[PathLike] = ()) -> list[dict]:
    """The segmenter plugins found, as ``tokenlab plugins`` lists them.

    Each is a dict with ``name``, ``version``, ``capabilities`` (a list of
    ``"sampling"``, ``"nbest"``, ``"trace"``), ``description`` and ``file``.
    Plugins are searched in ``plugin_dirs``, then ``$TOKENLAB_PLUGIN_PATH``, then
    beside this module's tokenlab (the build or install tree it came from).
    """
    return _tokenlab.plugins([os.fspath(d) for d in plugin_dirs])


def count(
    corpus: Union[PathLike, Sequence[PathLike]],
    threads: int = 0,
    normalization: Optional[str] = None,
    pre_tokenizer: Optional[str] = None,
    marker: Optional[str] = None,
    *,
    lowercase: bool = False,
    invalid_utf8: Optional[str] = None,
    progress: Progress = None,
) -> WordCounts:
    """Counts the words of a corpus (files, ``.gz``, ``.xz``), as ``tokenlab count``.

    Returns a :class:`WordCounts` that records the normalizer and pre-tokenizer,
    so that :func:`train` refuses it for other settings. ``threads=0`` uses
    every core.
    """
    args = _Args()
    args.add("corpus", corpus)
    args.pipeline(threads, normalization, lowercase, pre_tokenizer, marker, invalid_utf8)
    return _with_progress(progress, False, lambda cb: _tokenlab.count(args.items, cb))


def train(
    algorithm: str,
    vocab_size: int,
    corpus: Union[None, PathLike, Sequence[PathLike]] = None,
    counts: Union[None, WordCounts, PathLike, Sequence[PathLike]] = None,
    threads: int = 0,
    *,
    normalization: Optional[str] = None,
    lowercase: bool = False,
    pre_tokenizer: Optional[str] = None,
    marker: Optional[str] = None,
    invalid_utf8: Optional[str] = None,
    min_frequency: Optional[int] = None,
    character_coverage: Optional[float] = None,
    seed: Optional[int] = None,
    special_tokens: Union[None, str, Sequence[str]] = None,
    plugin_dirs: Sequence[PathLike] = (),
    progress: Progress = None,
    **options: Any,
) -> Tokenizer:
    """Trains one segmenter and returns its :class:`Tokenizer`, as ``tokenlab train``.

    Give exactly one of ``corpus`` (files to count) and ``counts`` (a
    :class:`WordCounts`, or counts files from ``tokenlab count``). Any other
    keyword is an option of the algorithm (``tokenlab train --option
    key=value``), e.g. ``train("bpe", 8000, corpus=..., units="bytes")``; an
    unknown one raises InputError listing the valid keys. ``special_tokens``:
    a list (``[]`` for none) or the CLI's comma-separated string.
    """
    args = _Args()
    args.add("algorithm", algorithm)
    args.add("vocab-size", vocab_size)
    args.add("corpus", corpus)
    given = None
    if isinstance(counts, WordCounts):
        given = counts
    else:
        args.add("counts", counts)
    args.pipeline(threads, normalization, lowercase, pre_tokenizer, marker, invalid_utf8)
    args.add("min-frequency", min_frequency)
    args.add("character-coverage", character_coverage)
    args.add("seed", seed)
    if special_tokens is not None:
        args.joined("special-tokens", special_tokens)
    args.add("plugin-dir", list(plugin_dirs))
    for key, value in options.items():
        args.add("option", f"{key}={_text(value)}")
    return _with_progress(progress, False, lambda cb: _tokenlab.train(args.items, given, cb))


def load(path: PathLike, format: str = "auto", plugin_dirs: Sequence[PathLike] = ()) -> Tokenizer:
    """Reads a tokenlab model (``.tkl``) or a real model's tokenizer file.

    ``format``: ``"auto"`` detects tokenizer.json, tiktoken and SentencePiece
    ``.model`` from the content; or name one (``"tokenizer.json"``,
    ``"tiktoken"``, ``"tiktoken:cl100k_base"``, ``"sentencepiece"``), as
    ``tokenlab encode --format``.
    """
    return _tokenlab.load(os.fspath(path), format, [os.fspath(d) for d in plugin_dirs])


def _add_corpora(args: _Args, option: str, corpora: Any) -> None:
    """Files, or {language: file(s)} as LANG=FILE entries, for --corpus or --eval."""
    if isinstance(corpora, Mapping):
        for language, files in corpora.items():
            for file in _list(files):
                args.add(option, f"{language}={_text(file)}")
    else:
        args.add(option, corpora)


def _add_named(args: _Args, option: str, named: Any, wrong_type: str) -> None:
    """{name: path} as NAME=FILE entries, for --tokenizer or --model."""
    if named is None:
        return
    if not isinstance(named, Mapping):
        raise TypeError(wrong_type)
    for name, file in named.items():
        args.add(option, f"{name}={_text(file)}")


def _experiment(
    args: _Args,
    corpus: Any,
    parallel: Any,
    languages: Any,
    per_language: bool,
    reference: Optional[str],
    algorithms: Any,
    held_out: Optional[float],
    d_model: Any,
    context: Optional[int],
    jobs: Optional[int],
    options: Any,
    seed: Optional[int],
    min_frequency: Optional[int],
    character_coverage: Optional[float],
    report_dir: Optional[PathLike],
    tokenizers: Optional[Mapping[str, PathLike]],
    plugin_dirs: Sequence[PathLike],
    pipeline: tuple,
    counts: Any = None,
    temporary: Optional[list] = None,
    eval: Any = None,  # noqa: A002 (compare --eval's name)
    eval_parallel: Optional[PathLike] = None,
    models: Optional[Mapping[str, PathLike]] = None,
    protocol: tuple = (None, None, False, None, None),
) -> None:
    _add_corpora(args, "corpus", corpus)
    args.add("parallel", parallel)
    args.joined("languages", languages)
    args.switch("per-language", per_language)
    args.add("reference", reference)
    args.joined("algorithms", algorithms)
    args.add("held-out", held_out)
    args.add("d-model", d_model)
    args.add("context", context)
    args.add("jobs", jobs)
    if isinstance(options, Mapping):
        for algorithm, values in options.items():
            for key, value in values.items():
                args.add("option", f"{algorithm}:{key}={_text(value)}")
    else:
        args.add("option", options)
    args.add("seed", seed)
    args.add("min-frequency", min_frequency)
    args.add("character-coverage", character_coverage)
    args.add("report-dir", report_dir)
    _add_named(args, "tokenizer", tokenizers, "tokenizers must be a dict {name: path}")
    args.add("plugin-dir", list(plugin_dirs))
    if isinstance(counts, WordCounts):
        # The CLI reads counts from files: hand it this table as one, removed
        # after the run (the caller's finally).
        handle, path = tempfile.mkstemp(prefix="tokenlab-counts-", suffix=".tsv")
        os.close(handle)
        if temporary is not None:
            temporary.append(path)
        counts.save(path)
        counts = path
    args.add("counts", counts)
    _add_corpora(args, "eval", eval)
    args.add("eval-parallel", eval_parallel)
    _add_named(
        args,
        "model",
        models,
        "models must be a dict {name: path of a .tkl, or of the tokenizer.json exported from one}",
    )
    unit, words, squeeze_spaces, baseline, bootstrap = protocol
    args.add("unit", unit)
    args.add("words", words)
    args.switch("squeeze-spaces", squeeze_spaces)
    args.add("baseline", baseline)
    args.add("bootstrap", bootstrap)
    args.pipeline(*pipeline)


def _removing(paths: list, run: Callable[[], Any]) -> Any:
    try:
        return run()
    finally:
        for path in paths:
            try:
                os.remove(path)
            except OSError:
                pass


def compare(
    corpus: Union[None, PathLike, Sequence[PathLike], Mapping[str, Any]] = None,
    *,
    vocab_size: Optional[int] = None,
    parallel: Optional[PathLike] = None,
    languages: Union[None, str, Sequence[str]] = None,
    per_language: bool = False,
    reference: Optional[str] = None,
    algorithms: Union[None, str, Sequence[str]] = None,
    held_out: Optional[float] = None,
    d_model: Union[None, int, Sequence[int]] = None,
    context: Optional[int] = None,
    jobs: Optional[int] = None,
    options: Union[None, Mapping[str, Mapping[str, Any]], Sequence[str]] = None,
    seed: Optional[int] = None,
    min_frequency: Optional[int] = None,
    character_coverage: Optional[float] = None,
    report_dir: Optional[PathLike] = None,
    tokenizers: Optional[Mapping[str, PathLike]] = None,
    counts: Union[None, WordCounts, PathLike, Sequence[PathLike]] = None,
    eval: Union[None, PathLike, Sequence[PathLike], Mapping[str, Any]] = None,  # noqa: A002
    eval_parallel: Optional[PathLike] = None,
    models: Optional[Mapping[str, PathLike]] = None,
    unit: Optional[str] = None,
    words: Optional[str] = None,
    squeeze_spaces: bool = False,
    baseline: Optional[str] = None,
    bootstrap: Optional[int] = None,
    plugin_dirs: Sequence[PathLike] = (),
    threads: int = 0,
    normalization: Optional[str] = None,
    lowercase: bool = False,
    pre_tokenizer: Optional[str] = None,
    marker: Optional[str] = None,
    invalid_utf8: Optional[str] = None,
    progress: Progress = None,
) -> CompareResult:
    """Trains every segmenter on one corpus and compares them, as ``tokenlab compare``.

    ``corpus``: files (one corpus), or ``{"en": "en.txt", "hi": "hi.txt"}`` for
    several languages; ``parallel``: a directory of line-aligned ``LANG.txt``
    files (premiums); neither: the bundled World English Bible. ``tokenizers``:
    ``{name: path}`` of real models' tokenizers evaluated on the same held-out
    text. ``options``: ``{"bpe": {"units": "bytes"}}``. ``counts``: train from
    word counts made elsewhere (a :class:`WordCounts`, or files from ``tokenlab
    count``, merged if several; refused if made with other settings), as
    ``compare --counts``: every line of ``corpus`` is then evaluation text.
    ``eval`` (files, or ``{"en": ..., "hi": ...}``) and ``eval_parallel`` (a
    directory of line-aligned ``LANG.txt``): evaluation text apart from the
    training text (``corpus`` or ``counts``), every line of it evaluated, as
    ``compare --eval/--eval-parallel``. ``models``: ``{name: path}`` of models
    tokenlab trained before (a ``.tkl``, or the tokenizer.json ``tokenlab
    export`` wrote of one), evaluated as the models trained in the run
    (``compare --model``). ``algorithms="none"`` trains nothing. The
    protocol (docs/metrics.md, "Protocols"): ``unit`` (``"auto"``, ``"word"``,
    ``"line"``, ``"document"``: what one call of a real tokenizer sees),
    ``words`` (``"pretokenizer"`` or ``"whitespace"``: tok/word's words),
    ``squeeze_spaces`` (clean each evaluation line as swiss-ai's loader does).
    ``baseline``: a row label, NSL's denominator; ``bootstrap``: resamples for
    the intervals (default 1000, 0 for none). With ``report_dir`` the CLI's
    report files are written there too. Returns a :class:`CompareResult`.
    """
    args = _Args()
    args.add("vocab-size", vocab_size)
    temporary: list = []
    _experiment(
        args, corpus, parallel, languages, per_language, reference, algorithms, held_out,
        d_model, context, jobs, options, seed, min_frequency, character_coverage, report_dir,
        tokenizers, plugin_dirs,
        (threads, normalization, lowercase, pre_tokenizer, marker, invalid_utf8),
        counts, temporary, eval, eval_parallel, models,
        (unit, words, squeeze_spaces, baseline, bootstrap),
    )  # fmt: skip
    return _removing(temporary, lambda: _with_progress(
        progress, True, lambda cb: _tokenlab.compare(args.items, cb)))


def sweep(
    corpus: Union[None, PathLike, Sequence[PathLike], Mapping[str, Any]] = None,
    *,
    vocab_sizes: Union[None, str, Sequence[int]] = None,
    parallel: Optional[PathLike] = None,
    languages: Union[None, str, Sequence[str]] = None,
    per_language: bool = False,
    reference: Optional[str] = None,
    algorithms: Union[None, str, Sequence[str]] = None,
    held_out: Optional[float] = None,
    d_model: Union[None, int, Sequence[int]] = None,
    context: Optional[int] = None,
    jobs: Optional[int] = None,
    options: Union[None, Mapping[str, Mapping[str, Any]], Sequence[str]] = None,
    seed: Optional[int] = None,
    min_frequency: Optional[int] = None,
    character_coverage: Optional[float] = None,
    report_dir: Optional[PathLike] = None,
    tokenizers: Optional[Mapping[str, PathLike]] = None,
    counts: Union[None, WordCounts, PathLike, Sequence[PathLike]] = None,
    eval: Union[None, PathLike, Sequence[PathLike], Mapping[str, Any]] = None,  # noqa: A002
    eval_parallel: Optional[PathLike] = None,
    models: Optional[Mapping[str, PathLike]] = None,
    unit: Optional[str] = None,
    words: Optional[str] = None,
    squeeze_spaces: bool = False,
    baseline: Optional[str] = None,
    bootstrap: Optional[int] = None,
    plugin_dirs: Sequence[PathLike] = (),
    threads: int = 0,
    normalization: Optional[str] = None,
    lowercase: bool = False,
    pre_tokenizer: Optional[str] = None,
    marker: Optional[str] = None,
    invalid_utf8: Optional[str] = None,
    progress: Progress = None,
) -> SweepResult:
    """Repeats :func:`compare` over vocabulary sizes, counting once, as ``tokenlab sweep``.

    ``vocab_sizes``: a list of ints (default 500 to 32000, doubling). The other
    arguments are :func:`compare`'s. Returns a :class:`SweepResult`, whose
    ``rows`` are sweep.csv's and ``runs`` one :class:`CompareResult` per size.
    """
    args = _Args()
    args.joined("vocab-sizes", vocab_sizes)
    temporary: list = []
    _experiment(
        args, corpus, parallel, languages, per_language, reference, algorithms, held_out,
        d_model, context, jobs, options, seed, min_frequency, character_coverage, report_dir,
        tokenizers, plugin_dirs,
        (threads, normalization, lowercase, pre_tokenizer, marker, invalid_utf8),
        counts, temporary, eval, eval_parallel, models,
        (unit, words, squeeze_spaces, baseline, bootstrap),
    )  # fmt: skip
    return _removing(temporary, lambda: _with_progress(
        progress, True, lambda cb: _tokenlab.sweep(args.items, cb)))
