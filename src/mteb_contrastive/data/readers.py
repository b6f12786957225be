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
from mteb_contrastive.data.fields import describe

BOM = b"\xef\xbb\xbf"
_GZIP_MAGIC = b"\x1f\x8b"


def _open_bytes(path: Path):
    return gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")


def _check_not_gzip(path: Path, first: bytes, exc: UnicodeDecodeError, line: int | None) -> DataError:
    """A gzip file under a name without ``.gz`` reads as bytes that are not UTF-8: say what it is."""
    if line in (None, 1) and first.startswith(_GZIP_MAGIC) and path.suffix != ".gz":
        return DataError(
            path, "a gzip-compressed file under a name without .gz; name it .gz (e.g. corpus.jsonl.gz) or gunzip it"
        )
    return not_utf8(path, exc, line=line)


def read_text(path: str | os.PathLike, *, what: str = "file") -> str:
    """The UTF-8 text of ``path`` (gunzipped when it ends in ``.gz``; a leading UTF-8 BOM dropped),
    through :func:`~mteb_contrastive.data.errors.reading`.

    Raises:
        DataError: missing, a folder, not UTF-8 (names the line), truncated gzip.
    """
    path = Path(path)
    with reading(path, what=what):
        with _open_bytes(path) as fh:
            data = fh.read()
        try:
            return data.removeprefix(BOM).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _check_not_gzip(path, data[:2], exc, None) from None


def read_json(path: str | os.PathLike, *, what: str = "file") -> object:
    """The parsed JSON of ``path`` (UTF-8).

    Raises:
        DataError: missing, not UTF-8, or not JSON (names the line and column).
    """
    text = read_text(path, what=what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(
            path, f"not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); fix the file", line=exc.lineno
        ) from None


def _json_error(exc: json.JSONDecodeError, line: str) -> str:
    """The whole message for a line that is not JSON (a cut line says so, with the column)."""
    where = f"column {exc.colno}"
    if exc.msg.startswith("Unterminated string"):
        return (
            f"not JSON: the line ends inside a string (the string opens at {where}): the line is cut or a quote "
            "is missing; close the string and the object, or remove the line"
        )
    if exc.msg.startswith("Expecting") and exc.pos >= len(line.rstrip()):
        return f"not JSON: the line ends before the object does ({exc.msg} at {where}): the line is cut; complete it"
    return f"not JSON: {exc.msg} at {where}; write one JSON object per line"


def iter_jsonl(
    path: str | os.PathLike, *, what: str = "file", allow_empty: bool = False
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) from a JSONL file (``.jsonl`` or ``.jsonl.gz``): the 1-based
    number of the line the object is on (blank lines are skipped and still counted).

    Accepted as they are: a UTF-8 BOM before the first line, CRLF line ends. Lines are decoded one by
    one, so a non-UTF-8 byte is reported with its line.

    Raises:
        DataError: missing file, a folder, not UTF-8 (names the line), a gzip file named without
            ``.gz``, truncated gzip (names the last line read), a line that is not JSON (a cut line
            says so), a line that is JSON but not an object (names what it is: a list, a number, ...),
            a file with no JSON line (unless ``allow_empty``).
    """
    path = Path(path)
    n = 0
    rows = 0
    try:
        with reading(path, what=what):
            with _open_bytes(path) as fh:
                for n, raw in enumerate(fh, start=1):
                    if n == 1:
                        raw = raw.removeprefix(BOM)
                    try:
                        line = raw.decode("utf-8")
                    except UnicodeDecodeError as exc:
                        raise _check_not_gzip(path, raw[:2], exc, n) from None
                    if not line.strip():
                        continue
                    try:
                        obj = json.loads(line)
                    except json.JSONDecodeError as exc:
                        raise DataError(path, _json_error(exc, line), line=n) from None
                    if not isinstance(obj, dict):
                        raise DataError(path, f"expected a JSON object {{...}} per line, found {describe(obj)}", line=n)
                    rows += 1
                    yield n, obj
    except DataError as exc:
        if (
            "truncated or corrupt gzip" in str(exc) and n and exc.line is None
        ):  # a stream cut after some lines: say where
            raise DataError(path, f"{str(exc).removeprefix(f'{path}: ')} (cut after line {n})") from None
        raise
    if not rows and not allow_empty:
        raise DataError(path, f"empty {what}: no JSON line; give one JSON object per line")


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
    a final newline is optional, CRLF line ends and a leading BOM are accepted.

    Raises:
        DataError: missing, not UTF-8 (names the line), truncated gzip.
    """
    lines = read_text(path, what=what).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [x.removesuffix("\r") for x in lines]  # CRLF line ends
