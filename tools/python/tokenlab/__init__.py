"""tokenlab: train, run and compare subword tokenizers, in-process.

The C++ library behind the ``tokenlab`` command, as a Python module::

    import tokenlab
    bpe = tokenlab.train("bpe", 8000, corpus="bible.txt")
    bpe.encode("In the beginning")          # [...]
    result = tokenlab.compare(corpus="bible.txt", vocab_size=8000)
    result.to_pandas()

Every function takes the options of the CLI command of the same name, spelled
as keywords (``--vocab-size`` is ``vocab_size``): both front ends are made from
one declaration of each option (framework/app), so they share names,
defaults (docs/defaults.md), ranges and messages. An argument given as
``None`` keeps its default. Failures raise :class:`Error`: an
:class:`InputError` (also a ``ValueError``) for bad input, a :class:`FileError`
(also an ``OSError``) for a file that cannot be read or written.

Long work runs with the GIL released. Training, counting, compare and sweep
show a tqdm bar when tqdm is installed (``progress=False`` turns it off, a
callable ``progress(stage, fraction)`` gets the events instead; ``fraction`` is
``None`` while counting), and Ctrl-C stops them with ``KeyboardInterrupt``.
"""

from __future__ import annotations

import inspect
import os
import re
import sys
from typing import Any, Callable, Mapping, Optional, Sequence, Union

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
    "agreement",
    "audit",
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


# The keyword that stands for a CLI option, from the application layer's
# option tables (framework/app/src/option_tables.cpp): "plugin-dir" is
# plugin_dirs, "tokenizer" tokenizers, and any other option its name with '-'
# spelled '_'.
_KEYWORD_OF_OPTION = _tokenlab.python_keywords()
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


# ------------------------------------------------------------------ signatures


def _signature(
    function: str,
    positional: Sequence[str],
    required: Sequence[str] = (),
    algorithm_options: bool = False,
) -> inspect.Signature:
    """The function's signature from its option table: the keywords, defaults
    and required arguments every front end shares. ``positional`` may also be
    given by position, in that order; ``algorithm_options``: any other keyword
    is an option of the algorithm (train's ``**options``)."""
    table = {p[0]: p for p in _tokenlab.parameters(function)}
    empty = inspect.Parameter.empty

    def parameter(keyword: str, kind: Any) -> inspect.Parameter:
        _, default, is_required, _ = table[keyword]
        return inspect.Parameter(
            keyword, kind, default=empty if is_required or keyword in required else default)

    parameters = [parameter(k, inspect.Parameter.POSITIONAL_OR_KEYWORD) for k in positional]
    for keyword in table:
        if keyword in positional or (algorithm_options and keyword == "options"):
            continue
        parameters.append(parameter(keyword, inspect.Parameter.KEYWORD_ONLY))
    parameters.append(
        inspect.Parameter("progress", inspect.Parameter.KEYWORD_ONLY, default=None))
    if algorithm_options:
        parameters.append(inspect.Parameter("options", inspect.Parameter.VAR_KEYWORD))
    return inspect.Signature(parameters)


def _arguments_doc(function: str) -> str:
    """An "Arguments" section from the option table's help texts."""
    lines = ["Arguments (the command's options; docs/defaults.md):", ""]
    for keyword, default, required, help_text in _tokenlab.parameters(function):
        shown = " (required)" if required else ("" if default is None else f" (default {default!r})")
        lines.append(f"    {keyword}{shown}: {help_text}")
    return "\n".join(lines)


def _command(
    function: str,
    doc: str,
    one_bar: bool,
    positional: Sequence[str],
    required: Sequence[str] = (),
    algorithm_options: bool = False,
) -> Callable[..., Any]:
    """tokenlab.<function>: its arguments bound to its signature, passed to the
    C++ module as a dict that converts each into the request's typed field."""
    signature = _signature(function, positional, required, algorithm_options)
    run_in_cpp = getattr(_tokenlab, function)

    def run(*args: Any, **kwargs: Any) -> Any:
        arguments = dict(signature.bind(*args, **kwargs).arguments)
        progress = arguments.pop("progress", None)
        return _with_progress(progress, one_bar, lambda cb: run_in_cpp(arguments, cb))

    run.__name__ = run.__qualname__ = function
    run.__module__ = __name__
    run.__signature__ = signature  # type: ignore[attr-defined]
    run.__doc__ = inspect.cleandoc(doc) + "\n\n" + _arguments_doc(function)
    return run


# ------------------------------------------------------------------ functions


def plugins(plugin_dirs: Sequence[PathLike] = ()) -> list[dict]:
    """The segmenter plugins found, as ``tokenlab plugins`` lists them.

    Each is a dict with ``name``, ``version``, ``capabilities`` (a list of
    ``"sampling"``, ``"nbest"``, ``"trace"``), ``description`` and ``file``.
    Plugins are searched in ``plugin_dirs``, then ``$TOKENLAB_PLUGIN_PATH``, then
    beside this module's tokenlab (the build or install tree it came from).
    """
    return _tokenlab.plugins([os.fspath(d) for d in plugin_dirs])


count = _command(
    "count",
    """Counts the words of a corpus (files, ``.gz``, ``.xz``), as ``tokenlab count``.

    Returns a :class:`WordCounts` that records the normalizer and pre-tokenizer,
    so that :func:`train` refuses it for other settings. ``threads=0`` uses
    every core.
    """,
    one_bar=False,
    positional=("corpus", "threads", "normalization", "pre_tokenizer", "marker"),
    required=("corpus",),
)

train = _command(
    "train",
    """Trains one segmenter and returns its :class:`Tokenizer`, as ``tokenlab train``.

    Give exactly one of ``corpus`` (files to count) and ``counts`` (a
    :class:`WordCounts`, or counts files from ``tokenlab count``). Any other
    keyword is an option of the algorithm (``tokenlab train --option
    key=value``), e.g. ``train("bpe", 8000, corpus=..., units="bytes")``; an
    unknown one raises InputError listing the valid keys. ``special_tokens``:
    a list (``[]`` for none) or the CLI's comma-separated string.
    """,
    one_bar=False,
    positional=("algorithm", "vocab_size", "corpus", "counts", "threads"),
    # Required here though not in the table: train --like FILE needs no algorithm,
    # but like= is for the command line (it writes the file's own format).
    required=("algorithm",),
    algorithm_options=True,
)


def load(path: PathLike, format: str = "auto", plugin_dirs: Sequence[PathLike] = ()) -> Tokenizer:
    """Reads a tokenlab model (``.tkl``) or a real model's tokenizer file.

    ``format``: ``"auto"`` detects tokenizer.json, tiktoken and SentencePiece
    ``.model`` from the content; or name one (``"tokenizer.json"``,
    ``"tiktoken"``, ``"tiktoken:cl100k_base"``, ``"sentencepiece"``), as
    ``tokenlab encode --format``.
    """
    return _tokenlab.load(os.fspath(path), format, [os.fspath(d) for d in plugin_dirs])


def audit(
    tokenizer: Tokenizer,
    lines: Sequence[str] = (),
    words: Sequence[str] = (),
    threads: int = 0,
) -> dict:
    """The vocabulary audit of ``compare --audit`` for one tokenizer (docs/metrics.md).

    Counts of its entries: ``single_byte``, ``partial_utf8`` (2+ bytes, not
    valid UTF-8 on their own), ``unreachable`` (encoding the entry's own text
    does not give it), ``special``, ``added``, ``byte_fallback``,
    ``continuation``; ``never_used`` on ``lines`` (each encoded alone; None
    without lines); ``strr`` and ``strr_space``: the share of ``words`` encoded
    as one token alone and after a space (None without words).
    """
    return _tokenlab.audit(tokenizer, list(lines), list(words), threads)


def agreement(tokenizers: Mapping[str, Tokenizer], lines: Sequence[str], threads: int = 0) -> dict:
    """Tokenizers against each other, as ``compare --agreement`` (docs/metrics.md).

    ``tokenizers``: ``{name: Tokenizer}``. Returns ``labels`` and three square
    matrices (lists of rows, in ``labels`` order): ``jaccard`` (vocabulary
    overlap, markers normalised), ``word_agreement`` (share of the whitespace
    words of ``lines`` that two tokenizers cut alike) and ``boundary_f1``; and
    ``words``, the word occurrences.
    """
    return _tokenlab.agreement(dict(tokenizers), list(lines), threads)


compare = _command(
    "compare",
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
    the intervals (0 for none). ``audit=True`` (with ``audit_words``, a word
    list file) and ``agreement=True`` fill ``audit_rows``, ``agreement_rows``
    and ``agreement_matrices`` (:func:`audit`, :func:`agreement`).
    ``allocation=True`` (with ``allocation_sizes``, the pruning curve's
    vocabulary sizes, and ``allocation_held_out``) fills ``allocation_rows`` (per row and language),
    ``allocation_summary_rows``, ``allocation_pruning_rows`` and
    ``allocation_entry_rows`` (docs/metrics.md, "What each language gets from
    the vocabulary"). With ``report_dir`` the CLI's report files are
    written there too. Returns a :class:`CompareResult`.
    """,
    one_bar=True,
    positional=("corpus",),
)

sweep = _command(
    "sweep",
    """Repeats :func:`compare` over vocabulary sizes, counting once, as ``tokenlab sweep``.

    ``vocab_sizes``: a list of ints (or the CLI's "500,1000"). The other
    arguments are :func:`compare`'s. Returns a :class:`SweepResult`, whose
    ``rows`` are sweep.csv's and ``runs`` one :class:`CompareResult` per size.
    """,
    one_bar=True,
    positional=("corpus",),
)
