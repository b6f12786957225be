"""Author-labelled corpora (JSONL): reading with validation, and sentence spans.

Row schema: ``id`` (str/int, unique), ``authors`` (non-empty list of str), ``text`` (non-empty),
optional ``domains`` (list of str), ``year`` (int/str), ``language`` (ISO 639-1 like ``fr``).
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

from mteb_contrastive.data.errors import DataError

#: Abbreviations after which a sentence break is undone -- ``MERGE_TRIGGERS`` of the
#: HALvest-Contrastive sampler (``halvesting_contrastive/utils/data/sampler.py``).
MERGE_TRIGGERS = (
    "et al.", "e.g.", "i.e.", "vs.", "cf.", "etc.", "approx.", "fig.", "figs.", "tab.", "sec.",
    "chap.", "dr.", "mr.", "mrs.", "ms.", "prof.", "p.", "pp.", "vol.", "no.", "a.d.", "b.c.",
)


def open_text(path: str | os.PathLike):
    """Open a UTF-8 text file, gzip-compressed when the name ends in ``.gz``."""
    path = Path(path)
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def iter_jsonl(path: str | os.PathLike):
    """Yield (row index, object) from a JSONL file.

    Raises:
        DataError: a line that is not a JSON object (names file and row).
    """
    with open_text(path) as fh:
        for i, line in enumerate(fh):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(path, f"not JSON Lines: {exc.msg}", row=i) from None
            if not isinstance(obj, dict):
                raise DataError(path, f"expected a JSON object, got {type(obj).__name__}", row=i)
            yield i, obj


def validate_corpus_row(obj: dict[str, Any], source: object, row: int) -> dict[str, Any]:
    """Check and normalise one corpus row (see module docstring).

    Raises:
        DataError: missing field, empty text, empty or malformed author list.
    """
    for f in ("id", "authors", "text"):
        if f not in obj:
            raise DataError(source, "missing field", row=row, field=f)
    text = obj["text"]
    if not isinstance(text, str) or not text.strip():
        raise DataError(source, "empty or whitespace-only text", row=row, field="text")
    authors = obj["authors"]
    if not isinstance(authors, list) or not all(isinstance(a, str) and a.strip() for a in authors):
        raise DataError(source, "authors must be a list of non-empty strings", row=row, field="authors")
    if not authors:
        raise DataError(source, "empty author set", row=row, field="authors")
    domains = obj.get("domains") or []
    if not isinstance(domains, list):
        raise DataError(source, "domains must be a list", row=row, field="domains")
    return {
        "id": str(obj["id"]),
        "authors": [a.strip() for a in authors],
        "text": text,
        "domains": [str(d) for d in domains],
        "year": obj.get("year"),
        "language": obj.get("language"),
    }


def read_corpus(path: str | os.PathLike) -> list[dict[str, Any]]:
    """Read and validate an author-labelled JSONL corpus (``.jsonl`` or ``.jsonl.gz``).

    Raises:
        DataError: bad JSON, bad row, or a duplicate ``id`` (names both rows).
    """
    rows, seen = [], {}
    for i, obj in iter_jsonl(path):
        row = validate_corpus_row(obj, path, i)
        if row["id"] in seen:
            raise DataError(path, f"duplicate id {row['id']!r} (first at row {seen[row['id']]})", row=i, field="id")
        seen[row["id"]] = i
        rows.append(row)
    if not rows:
        raise DataError(path, "empty corpus")
    return rows


def split_sentences(text: str, language: str = "en") -> list[str]:
    """Sentences of ``text`` (sentencex segmenter), re-merged after :data:`MERGE_TRIGGERS`.

    The merge rule is the HALvest-Contrastive sampler's ``tokenize_and_merge_sentences``
    (which uses NLTK punkt; sentencex needs no data download).
    """
    from sentencex import segment

    sentences = [s.strip() for s in segment(language or "en", text) if s.strip()]
    merged: list[str] = []
    i = 0
    while i < len(sentences):
        cur = sentences[i]
        while i + 1 < len(sentences) and cur.lower().endswith(MERGE_TRIGGERS):
            cur += " " + sentences[i + 1]
            i += 1
        merged.append(cur)
        i += 1
    return merged
