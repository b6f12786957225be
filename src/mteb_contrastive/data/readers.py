"""The one reader of user files: JSON Lines (``.jsonl``, ``.jsonl.gz``), TSV and the QuoteR line format.

Every command that reads a file a user gives (the builders, ``pan-score``, ``train``'s sources,
``build-attribution``, ``build-ir-triplets``'s BEIR folder, ``report --timings``, the info files of
hand-made folders) reads it here, so each kind of bad file is one :class:`~mteb_contrastive.data.errors.DataError`
line naming the file, the 1-based line (and the field) and the fix, whichever command meets it:

* :func:`iter_lines` -- the decoded lines of a text file (gunzipped when the name ends in ``.gz``);
* :func:`iter_jsonl` -- (line, object) of a JSON Lines file;
* :func:`iter_tsv` -- (line, fields) of a tab-separated file;
* :func:`read_text` / :func:`read_json` -- a whole file as text / as one JSON value.

The error mapping itself (missing file, folder, permissions, truncated gzip) is
:func:`mteb_contrastive.data.errors.reading`.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mteb_contrastive.data.errors import DataError, not_utf8, reading


def _open_bytes(path: Path):
    return gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")


def read_text(path: str | os.PathLike, *, what: str = "file") -> str:
    """The UTF-8 text of ``path`` (gunzipped when it ends in ``.gz``), through
    :func:`~mteb_contrastive.data.errors.reading`.

    Raises:
        DataError: missing, a folder, not UTF-8 (names the line), truncated gzip.
    """
    path = Path(path)
    with reading(path, what=what):
        with _open_bytes(path) as fh:
            data = fh.read()
        return data.decode("utf-8")


def read_json(path: str | os.PathLike, *, what: str = "file") -> object:
    """The parsed JSON of ``path`` (UTF-8).

    Raises:
        DataError: missing, not UTF-8, or not JSON (names the line and column).
    """
    text = read_text(path, what=what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(path, f"not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); fix the file") from None


def iter_jsonl(path: str | os.PathLike, *, what: str = "file") -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) from a JSONL file (``.jsonl`` or ``.jsonl.gz``): the 1-based
    number of the line the object is on (blank lines are skipped and still counted).

    Lines are decoded one by one, so a non-UTF-8 byte is reported with its line.

    Raises:
        DataError: missing file, not UTF-8 (names the line), truncated gzip, a line that is not a
            JSON object (names file and line).
    """
    path = Path(path)
    with reading(path, what=what):
        with _open_bytes(path) as fh:
            for n, raw in enumerate(fh, start=1):
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise not_utf8(path, exc, line=n) from None
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DataError(path, f"not JSON Lines: {exc.msg}", line=n) from None
                if not isinstance(obj, dict):
                    raise DataError(path, f"expected a JSON object, got {type(obj).__name__}", line=n)
                yield n, obj


def iter_tsv(path: str | os.PathLike, *, what: str = "file") -> Iterator[tuple[int, list[str]]]:
    """Yield (line number, fields) of a tab-separated file: the 1-based line where the row ends.

    Raises:
        DataError: missing, not UTF-8 (names the line), truncated gzip.
    """
    text = read_text(path, what=what)  # decoded at once: a bad byte is named by its line
    reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t")
    for row in reader:
        yield reader.line_num, row


def read_lines(path: str | os.PathLike, *, what: str = "file") -> list[str]:
    """The lines of a text file (the QuoteR line format: one example a line), without their ``\\n``;
    a final newline is optional.

    Raises:
        DataError: missing, not UTF-8 (names the line), truncated gzip.
    """
    lines = read_text(path, what=what).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines
