"""Type stubs for tokenlab (the C++ classes of tokenlab._tokenlab and the functions)."""

import os
from typing import Any, Callable, Iterator, Mapping, Optional, Sequence, Union

import numpy
import numpy.typing
import pandas

__version__: str

PathLike = Union[str, os.PathLike[str]]
Progress = Union[None, bool, Callable[[str, Optional[float]], Any]]

class Error(Exception):
    """A tokenlab failure, with the CLI's message."""

class InputError(Error, ValueError):
    """Bad input: arguments, options, file contents."""

class FileError(Error, OSError):
    """A file that cannot be read or written."""

class WordCounts:
    """Distinct pre-tokenized words with their counts, in first-occurrence order."""

    def __init__(self) -> None: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[tuple[str, int]]: ...
    def __getitem__(self, word: str) -> int: ...
    def __contains__(self, word: object) -> bool: ...
    def __add__(self, other: WordCounts) -> WordCounts: ...
    def __iadd__(self, other: WordCounts) -> WordCounts: ...
    @property
    def total(self) -> int: ...
    @property
    def settings(self) -> str: ...
    def most_common(self, n: Optional[int] = None) -> list[tuple[str, int]]: ...
    def save(self, path: PathLike) -> None: ...
    @staticmethod
    def load(path: PathLike) -> WordCounts: ...

class Tokenizer:
    """A trained or loaded tokenizer; immutable and thread-safe."""

    @property
    def vocab_size(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def capabilities(self) -> list[str]: ...
    @property
    def unknown_id(self) -> Optional[int]: ...
    def encode(self, text: str) -> list[int]: ...
    def tokens(self, text: str) -> list[str]: ...
    def decode(self, ids: Sequence[int]) -> str: ...
    def encode_batch(
        self, texts: Sequence[str], threads: int = 0, numpy: bool = False
    ) -> Union[
        list[list[int]],
        tuple[numpy.typing.NDArray[numpy.uint32], numpy.typing.NDArray[numpy.int64]],
    ]: ...
    def vocabulary(self) -> list[str]: ...
    def save(self, path: PathLike) -> None: ...
    def export(
        self, path: PathLike, format: str, approximate: bool = False, dropout: bool = False
    ) -> None: ...
    def sample(
        self,
        text: str,
        dropout: Optional[float] = None,
        alpha: Optional[float] = None,
        seed: int = 0,
    ) -> list[int]: ...
    def nbest(self, word: str, k: int = 5) -> list[tuple[list[int], float]]: ...

class CompareResult:
    """tokenlab.compare's result: compare.csv's rows."""

    @property
    def rows(self) -> list[dict[str, Any]]: ...
    @property
    def columns(self) -> list[str]: ...
    @property
    def fairness_rows(self) -> list[dict[str, Any]]: ...
    @property
    def pooled_rows(self) -> list[dict[str, Any]]: ...
    @property
    def morphology_rows(self) -> list[dict[str, Any]]: ...
    @property
    def inference_rows(self) -> list[dict[str, Any]]: ...
    @property
    def audit_rows(self) -> list[dict[str, Any]]: ...
    @property
    def agreement_rows(self) -> list[dict[str, Any]]: ...
    @property
    def agreement_matrices(self) -> dict[str, dict[str, Any]]: ...
    @property
    def allocation_rows(self) -> list[dict[str, Any]]: ...
    @property
    def allocation_summary_rows(self) -> list[dict[str, Any]]: ...
    @property
    def allocation_pruning_rows(self) -> list[dict[str, Any]]: ...
    @property
    def allocation_entry_rows(self) -> list[dict[str, Any]]: ...
    def to_pandas(self) -> pandas.DataFrame: ...
    def write_report(self, dir: PathLike) -> list[str]: ...

class SweepResult:
    """tokenlab.sweep's result: sweep.csv's rows and one CompareResult per size."""

    @property
    def rows(self) -> list[dict[str, Any]]: ...
    @property
    def columns(self) -> list[str]: ...
    @property
    def vocab_sizes(self) -> list[int]: ...
    @property
    def runs(self) -> list[CompareResult]: ...
    def to_pandas(self) -> pandas.DataFrame: ...
    def write_report(self, dir: PathLike) -> list[str]: ...

def plugins(plugin_dirs: Sequence[PathLike] = ()) -> list[dict[str, Any]]: ...
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
) -> WordCounts: ...
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
) -> Tokenizer: ...
def load(
    path: PathLike, format: str = "auto", plugin_dirs: Sequence[PathLike] = ()
) -> Tokenizer: ...
def audit(
    tokenizer: Tokenizer,
    lines: Sequence[str] = (),
    words: Sequence[str] = (),
    threads: int = 0,
) -> dict[str, Any]: ...
def agreement(
    tokenizers: Mapping[str, Tokenizer], lines: Sequence[str], threads: int = 0
) -> dict[str, Any]: ...
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
    eval: Union[None, PathLike, Sequence[PathLike], Mapping[str, Any]] = None,
    eval_parallel: Optional[PathLike] = None,
    models: Optional[Mapping[str, PathLike]] = None,
    unit: Optional[str] = None,
    words: Optional[str] = None,
    squeeze_spaces: bool = False,
    baseline: Optional[str] = None,
    bootstrap: Optional[int] = None,
    morph_gold: Union[None, PathLike, Sequence[PathLike]] = None,
    morph_space: bool = False,
    inference: Optional[str] = None,
    audit: bool = False,
    audit_words: Optional[PathLike] = None,
    agreement: bool = False,
    allocation: bool = False,
    allocation_sizes: Union[None, int, Sequence[int]] = None,
    allocation_held_out: bool = False,
    plugin_dirs: Sequence[PathLike] = (),
    threads: int = 0,
    normalization: Optional[str] = None,
    lowercase: bool = False,
    pre_tokenizer: Optional[str] = None,
    marker: Optional[str] = None,
    invalid_utf8: Optional[str] = None,
    progress: Progress = None,
) -> CompareResult: ...
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
    eval: Union[None, PathLike, Sequence[PathLike], Mapping[str, Any]] = None,
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
) -> SweepResult: ...
