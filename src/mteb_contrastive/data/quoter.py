"""QuoteR line files: reading, splits, candidate pool and queries (Qi et al., ACL 2022, arXiv 2202.13145).

Format (thunlp/QuoteR): one example per line, ``left_context \\t quote \\t right_context``.

Rules (the paper's, made explicit):

* **Splits** by line order. The official files use fixed boundaries (:data:`OFFICIAL_FILES`); the
  shared files (``shared/data/quoter``) are first shuffled with ``random.Random(20240611).shuffle``
  and then cut at ``int(0.8 n)`` and ``int(0.9 n)`` (:func:`split_by_proportions`).
* **Candidate pool** = every distinct quote of the *whole* file (train + valid + test), in order of
  first appearance in the file; identical quotes (after normalisation) are one candidate.
* **Query** = left context + mask marker + right context (``use_right_context`` and ``mask_marker``
  are parameters; the paper's choice, both contexts around a ``[MASK]`` slot, is the default).
  English is lower-cased (the paper's scripts), Chinese is not. English parts are joined with a
  space, Chinese parts with nothing.

Bad input raises :class:`~mteb_contrastive.data.errors.DataError` naming the file and the line:
a line without exactly two tabs, an empty quote, a split boundary past the end of the file.
"""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mteb_contrastive.data.errors import DataError
from mteb_contrastive.identity import nfc

#: the fixed shuffle seed of the shared files (shared/data/README.md, section 4)
SHUFFLE_SEED = 20240611
#: train / valid cut points of the shared files, as fractions of the line count
SHARED_PROPORTIONS = (0.8, 0.9)
#: the paper's default mask marker (BERT's mask token)
DEFAULT_MASK = "[MASK]"

#: official files: (file name, train end, valid end, language) -- boundaries from the QuoteR repository
OFFICIAL_FILES = {
    "english": ("english.txt", 101171, 113942, "en"),
    "modern_chinese": ("modern_chinese.txt", 32472, 36657, "zh"),
    "ancient_chinese": ("ancient_chinese.txt", 93031, 104784, "zh"),
}

SPLITS = ("train", "valid", "test")


@dataclass(frozen=True)
class QuoteRExample:
    """One line of a QuoteR file. ``line`` is the 0-based line index in the file."""

    line: int
    left: str
    quote: str
    right: str


@dataclass(frozen=True)
class QueryFormat:
    """How a query and a quote are written for the encoder.

    Args:
        language: "en" or "zh" (decides the default lower-casing and the joiner).
        mask_marker: the slot marker between the contexts (default ``[MASK]``, as the paper's BERT).
        use_right_context: include the right context (default True, as the paper).
        lowercase: lower-case queries and quotes; None = the paper's rule (English yes, Chinese no).
    """

    language: str = "en"
    mask_marker: str = DEFAULT_MASK
    use_right_context: bool = True
    lowercase: bool | None = None

    @property
    def do_lowercase(self) -> bool:
        return self.language == "en" if self.lowercase is None else self.lowercase

    @property
    def joiner(self) -> str:
        return "" if self.language == "zh" else " "

    def quote(self, text: str) -> str:
        return text.lower() if self.do_lowercase else text

    def query(self, left: str, right: str) -> str:
        if self.do_lowercase:  # the contexts, not the marker (a tokenizer's special token keeps its case)
            left, right = left.lower(), right.lower()
        parts = [left, self.mask_marker] + ([right] if self.use_right_context else [])
        return self.joiner.join(p for p in parts if p)


def read_quoter_file(path: str | os.PathLike) -> list[QuoteRExample]:
    """Read a QuoteR line file (UTF-8; a final newline is optional).

    Raises:
        DataError: a missing or non-UTF-8 file, a line without exactly two tabs, or with an empty quote (names file and line).
    """
    from mteb_contrastive.data.errors import read_text

    path = Path(path)
    text = read_text(path)  # one-line DataError for a missing / non-UTF-8 file
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out = []
    for i, raw in enumerate(lines):
        raw = raw.rstrip("\r")
        parts = raw.split("\t")
        if len(parts) != 3:
            raise DataError(path, f"line {i + 1}: expected 3 tab-separated fields (left, quote, right), found {len(parts)}", row=i)
        left, quote, right = (p.strip() for p in parts)
        if not quote:
            raise DataError(path, f"line {i + 1}: empty quote", row=i, field="quote")
        out.append(QuoteRExample(i, left, quote, right))
    return out


def split_by_boundaries(examples: Sequence[QuoteRExample], train_end: int, valid_end: int, *, source: Any = "<examples>") -> dict[str, list[QuoteRExample]]:
    """Official split: ``train = [:train_end]``, ``valid = [train_end:valid_end]``, ``test = [valid_end:]`` in line order.

    Raises:
        DataError: a boundary past the end of the file (or boundaries out of order).
    """
    n = len(examples)
    for name, b in (("train_end", train_end), ("valid_end", valid_end)):
        if b > n:
            raise DataError(source, f"split boundary {name}={b} is past the end of the file (line {b + 1} requested, the file has {n} lines)", row=b)
    if not 0 <= train_end <= valid_end:
        raise DataError(source, f"split boundaries out of order: train_end={train_end}, valid_end={valid_end}")
    return {"train": list(examples[:train_end]), "valid": list(examples[train_end:valid_end]), "test": list(examples[valid_end:])}


def split_by_proportions(examples: Sequence[QuoteRExample], proportions: tuple[float, float] = SHARED_PROPORTIONS, *, seed: int = SHUFFLE_SEED, source: Any = "<examples>") -> dict[str, list[QuoteRExample]]:
    """Shared-file split: shuffle with ``random.Random(seed).shuffle``, then cut at ``int(p n)``."""
    lines = list(examples)
    random.Random(seed).shuffle(lines)
    n = len(lines)
    a, b = int(proportions[0] * n), int(proportions[1] * n)
    return split_by_boundaries(lines, a, b, source=source)


def build_pool(examples: Sequence[QuoteRExample], fmt: QueryFormat) -> tuple[list[dict[str, str]], dict[str, str]]:
    """Candidate pool: every distinct (normalised) quote of ``examples`` in order of first appearance.

    Returns:
        (corpus rows ``{"id", "text"}``, map normalised quote text -> candidate id).
    """
    ids: dict[str, str] = {}
    for ex in sorted(examples, key=lambda e: e.line):
        q = nfc(fmt.quote(ex.quote))  # identical quotes are merged in NFC
        if q not in ids:
            ids[q] = f"c{len(ids)}"
    return [{"id": i, "text": t} for t, i in ids.items()], ids


def build_retrieval_data(examples: Sequence[QuoteRExample], splits: dict[str, list[QuoteRExample]], fmt: QueryFormat, split: str = "test") -> tuple[dict[str, Any], dict[str, int]]:
    """Corpus (pool of the whole file), queries and qrels of one split.

    Query ids are ``q<line>`` (0-based line of the file); each query has exactly one relevant
    candidate, the id of its gold quote.

    Returns:
        ({"corpus", "queries", "qrels"}, stats: n_lines, n_train, n_valid, n_test, pool_size, n_queries).
    """
    corpus, ids = build_pool(examples, fmt)
    queries, qrels = [], {}
    for ex in splits[split]:
        qid = f"q{ex.line}"
        queries.append({"id": qid, "text": fmt.query(ex.left, ex.right)})
        qrels[qid] = {ids[nfc(fmt.quote(ex.quote))]: 1}
    stats = {"n_lines": len(examples), **{f"n_{s}": len(splits[s]) for s in SPLITS}, "pool_size": len(corpus), "n_queries": len(queries)}
    return {"corpus": corpus, "queries": queries, "qrels": qrels}, stats
