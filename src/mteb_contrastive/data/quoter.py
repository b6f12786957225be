"""QuoteR line files: reading, splits, candidate pool and queries (Qi et al., ACL 2022, arXiv 2202.13145).

Format (thunlp/QuoteR): one example per line, ``left_context \\t quote \\t right_context``.

Rules (the paper's, made explicit):

* **Splits** by line order. The official files use fixed boundaries (:data:`OFFICIAL_FILES`); the
  shared files (``shared/data/quoter``) are first shuffled with ``random.Random(20240611).shuffle``
  and then cut at ``int(0.8 n)`` and ``int(0.9 n)`` (:func:`split_by_proportions`).
* **Candidate pool** = every distinct quote of the *whole* file (train + valid + test), in order of
  first appearance in the file; identical quotes (after normalisation) are one candidate.
* **Query** = ``left + mask_marker + right``, nothing added between the parts, as the official
  scripts build it (``sent = f + "[MASK]" + l``, thunlp/QuoteR ``english_train_test.py`` line 68,
  ``modern_chinese_train_test.py`` line 68, ``ancient_chinese_train_test.py`` line 67);
  ``use_right_context`` and ``mask_marker`` are parameters (defaults: both contexts, ``[MASK]``).
  English is lower-cased (``line.strip().lower()``, ``english_train_test.py`` line 24), the other
  languages are not (the Chinese scripts' line 24 has no ``lower()``); the marker keeps its case.
* **Fields** are kept as they are in the file, as the official ``line.strip().split('\t')``: only
  the whitespace at the two ends of the line goes (the start of the left context, the end of the
  right context); spaces next to a tab stay, so ``"a \tq\t b"`` gives the query ``"a [MASK] b"``.
  Unlike the official reader, an empty left or right context keeps its tab (the official
  ``strip()`` would drop it and misread the line).

Bad input raises :class:`~mteb_contrastive.data.errors.DataError` naming the file and the line:
a line without exactly two tabs, an empty quote, a split boundary past the end of the file.
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mteb_contrastive.data.built_folder import built_folder
from mteb_contrastive.data.errors import DataError
from mteb_contrastive.data.readers import read_lines
from mteb_contrastive.identity import fingerprint, nfc

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
        language: "en" lower-cases by default (the official English script); any other value ("zh", ...) does not.
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

    def quote(self, text: str) -> str:
        return text.lower() if self.do_lowercase else text

    def query(self, left: str, right: str) -> str:
        if self.do_lowercase:  # the contexts, not the marker (a tokenizer's special token keeps its case)
            left, right = left.lower(), right.lower()
        return left + self.mask_marker + (right if self.use_right_context else "")


def read_quoter_file(path: str | os.PathLike) -> list[QuoteRExample]:
    """Read a QuoteR line file (UTF-8; a final newline is optional).

    Raises:
        DataError: a missing or non-UTF-8 file (names file and line), an empty file, a line without
        exactly two tabs, or with an empty quote (names file and line).
    """
    path = Path(path)
    lines = read_lines(path)  # one-line DataError for a missing / non-UTF-8 file
    out = []
    for i, raw in enumerate(lines):
        parts = raw.split("\t")
        if len(parts) != 3:
            raise DataError(
                path, f"expected 3 tab-separated fields (left, quote, right), found {len(parts)}", line=i + 1
            )
        left, quote, right = parts[0].lstrip(), parts[1], parts[2].rstrip()  # the official line.strip()
        if not quote.strip():
            raise DataError(path, "empty quote", line=i + 1, field="quote")
        out.append(QuoteRExample(i, left, quote, right))
    if not out:
        raise DataError(
            path, "the file holds no example; a QuoteR file has one left<TAB>quote<TAB>right line per example"
        )
    return out


def split_by_boundaries(
    examples: Sequence[QuoteRExample], train_end: int, valid_end: int, *, source: Any = "<examples>"
) -> dict[str, list[QuoteRExample]]:
    """Official split: ``train = [:train_end]``, ``valid = [train_end:valid_end]``,
    ``test = [valid_end:]`` in line order.

    Raises:
        DataError: a boundary past the end of the file (or boundaries out of order).
    """
    n = len(examples)
    for name, b in (("train_end", train_end), ("valid_end", valid_end)):
        if b > n:
            raise DataError(
                source,
                f"split boundary {name}={b} is past the end of the file "
                f"(line {b + 1} requested, the file has {n} lines)",
            )
    if not 0 <= train_end <= valid_end:
        raise DataError(source, f"split boundaries out of order: train_end={train_end}, valid_end={valid_end}")
    return {
        "train": list(examples[:train_end]),
        "valid": list(examples[train_end:valid_end]),
        "test": list(examples[valid_end:]),
    }


def split_by_proportions(
    examples: Sequence[QuoteRExample],
    proportions: tuple[float, float] = SHARED_PROPORTIONS,
    *,
    seed: int = SHUFFLE_SEED,
    source: Any = "<examples>",
    shuffle: bool = True,
) -> dict[str, list[QuoteRExample]]:
    """Proportional split: shuffle with ``random.Random(seed).shuffle`` (when ``shuffle``; else keep the
    line order, for files already ordered for a disjoint split), then cut at ``int(p n)`` for each
    ``p`` of ``proportions`` (train end, valid end; fractions in [0, 1])."""
    lines = list(examples)
    if shuffle:
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


def build_retrieval_data(
    examples: Sequence[QuoteRExample], splits: dict[str, list[QuoteRExample]], fmt: QueryFormat, split: str = "test"
) -> tuple[dict[str, Any], dict[str, int]]:
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
    stats = {
        "n_lines": len(examples),
        **{f"n_{s}": len(splits[s]) for s in SPLITS},
        "pool_size": len(corpus),
        "n_queries": len(queries),
    }
    return {"corpus": corpus, "queries": queries, "qrels": qrels}, stats


# ----------------------------------------------------------------------------- your own QuoteR file

#: ``kind`` of a folder built by :func:`build_quoter_folder` (in its ``mteb_contrastive.json``)
QUOTER_KIND = "quoter"
#: the copied file's name inside a built folder
BUILT_FILE = "quoter.txt"
#: the command that builds a QuoteR folder, and the data files it writes (:mod:`mteb_contrastive.data.built_folder`)
COMMAND, OUTPUTS = "build-quoter", (BUILT_FILE,)
SPLIT_RULES = ("shuffled", "line-order")
_LANG_TAG = re.compile(r"^[a-z]{3}-[A-Z][a-z]{3}$")


def query_language(mteb_language: str) -> str:
    """The :class:`QueryFormat` language of an mteb language tag: ``"en"`` for ``eng-*`` (lower-cased),
    else the ISO 639-3 code."""
    code = mteb_language.split("-", 1)[0]
    return "en" if code == "eng" else code


def build_quoter_folder(
    path: str | os.PathLike,
    out: str | os.PathLike,
    name: str,
    language: str,
    *,
    split: str = "shuffled",
    proportions: tuple[float, float] = SHARED_PROPORTIONS,
    seed: int = SHUFFLE_SEED,
    boundaries: tuple[int, int] | None = None,
    force: bool = False,
) -> Path:
    """Make a task folder ``out/<name>`` from your own QuoteR-format file; it becomes the task
    ``<name>QuoteRRetrieval`` when ``MTEB_CONTRASTIVE_DATASETS`` names ``out`` (or the folder).

    The file is checked (:func:`read_quoter_file`), split once to check the rule, and copied with its
    rule into ``mteb_contrastive.json`` (``kind``, ``name``, ``language``, ``query_language``,
    ``split``, ``seed``, ``proportions``, ``boundaries``, ``n_lines``, ``n_train``/``n_valid``/``n_test``,
    ``source``, ``build_id``). ``build_id`` (the task's dataset revision) is a fingerprint of the
    file's bytes and the rule: it changes exactly when the file or the rule changes. Written atomically.

    Args:
        path: the QuoteR line file (``left<TAB>quote<TAB>right`` per line, UTF-8).
        out: parent folder of the built folder.
        name: letters and digits, starting with a letter (the task is ``<name>QuoteRRetrieval``).
        language: mteb language tag ``xxx-Xxxx`` (ISO 639-3 + script), e.g. ``eng-Latn``, ``lzh-Hant``;
            ``eng`` queries and quotes are lower-cased (the official English script), others not.
        split: ``"shuffled"`` (``random.Random(seed).shuffle`` then cut at ``int(p n)``; the shared
            files' rule) or ``"line-order"`` (cut in file order: for files already ordered for a
            disjoint split, e.g. the official QuoteR files).
        proportions: (train end, valid end) as fractions of the line count, 0 <= a <= b <= 1.
        seed: the shuffle seed (``"shuffled"`` only).
        boundaries: explicit (train end, valid end) line counts, ``"line-order"`` only (the official
            files: ``(101171, 113942)`` for English); instead of ``proportions``.

    Returns:
        The built folder.

    Raises:
        ValueError: a bad name, language tag, split rule, proportions or boundaries with ``"shuffled"``.
        DataError: a bad line of the file, an empty file, boundaries past its end, or no line left for
            the test split (file and line named).
    """
    folder = built_folder(out, name, QUOTER_KIND, COMMAND, OUTPUTS, force=force, name_option="--name")
    folder.check()  # the output place, before any work
    if not _LANG_TAG.match(language):
        raise ValueError(
            "--language must be an mteb language tag xxx-Xxxx (ISO 639-3 code and script), "
            f"e.g. eng-Latn, cmn-Hans, lzh-Hant; got {language!r}"
        )
    if split not in SPLIT_RULES:
        raise ValueError(f"--split must be one of {', '.join(SPLIT_RULES)}, got {split!r}")
    a, b = proportions
    if not 0.0 <= a <= b <= 1.0:
        raise ValueError(f"--proportions must satisfy 0 <= train_end <= valid_end <= 1, got {a} {b}")
    if boundaries is not None and split != "line-order":
        raise ValueError("--boundaries needs --split line-order (boundaries are line counts in file order)")
    path = Path(path)
    examples = read_quoter_file(path)
    if boundaries is not None:
        splits = split_by_boundaries(examples, *boundaries, source=path)
    else:
        splits = split_by_proportions(examples, proportions, seed=seed, source=path, shuffle=split == "shuffled")
    if not splits["test"]:
        raise DataError(
            path,
            f"the test split is empty ({len(examples)} lines: {len(splits['train'])} train, "
            f"{len(splits['valid'])} valid); --"
            + ("boundaries" if boundaries is not None else "proportions")
            + " must leave lines for test (the evaluated split): add lines or lower the valid end",
        )
    raw = path.read_bytes()
    import hashlib

    rule = {
        "language": language,
        "query_language": query_language(language),
        "split": split,
        "seed": seed if split == "shuffled" else None,
        "proportions": None if boundaries is not None else [a, b],
        "boundaries": list(boundaries) if boundaries is not None else None,
    }
    info = {
        "kind": QUOTER_KIND,
        "name": name,
        **rule,
        "n_lines": len(examples),
        **{f"n_{s}": len(splits[s]) for s in SPLITS},
        "source": str(path.resolve()),
        "file": BUILT_FILE,
        "build_id": fingerprint(QUOTER_KIND, hashlib.sha256(raw).hexdigest(), rule),
    }
    with folder.staged() as tmp:
        (tmp / BUILT_FILE).write_bytes(raw)
        folder.write_info(tmp, info, indent=1)
    return folder.path
