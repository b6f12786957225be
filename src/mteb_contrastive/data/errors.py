"""The one error type for bad input data, and the one reader error path.

Every reader opens its files through :func:`reading` (or :func:`read_text` /
:func:`mteb_contrastive.data.corpus.iter_jsonl`, which use it), so a missing file, a file that is
not UTF-8 or a truncated ``.gz`` becomes one :class:`DataError` line naming the file (and the
row where it is known) and the fix -- never a traceback.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import zlib
from collections.abc import Iterator


class DataError(ValueError):
    """Bad input data: the message names the source (file or dataset), the row and the field.

    Attributes:
        source: file path or dataset name.
        row: 0-based row (line) index, or None when the error concerns the whole source.
        field: column / JSON key, or None.
    """

    def __init__(self, source: object, message: str, *, row: int | None = None, field: str | None = None):
        self.source, self.row, self.field = str(source), row, field
        where = str(source)
        if row is not None:
            where += f", row {row}"
        if field is not None:
            where += f", field {field!r}"
        super().__init__(f"{where}: {message}")


def not_utf8(path: object, exc: UnicodeDecodeError, row: int | None = None) -> DataError:
    """The :class:`DataError` for bytes that are not UTF-8 (byte offset within the row or file)."""
    bad = exc.object[exc.start : exc.start + 4]
    where = ""
    if row is None and isinstance(exc.object, (bytes, bytearray)):  # a whole file decoded at once: find the line
        row = exc.object[: exc.start].count(b"\n")
        where = f"line {row + 1}: "
    return DataError(
        path,
        f"{where}not UTF-8 text (byte {exc.start}: {bad!r}); "
        "re-encode the file as UTF-8, e.g. iconv -f latin1 -t utf-8",
        row=row,
    )


@contextlib.contextmanager
def reading(path: str | os.PathLike, *, what: str = "file") -> Iterator[None]:
    """Turn the errors of reading ``path`` into one :class:`DataError` naming it and the fix.

    Maps: a missing file or folder (``FileNotFoundError``, ``IsADirectoryError``, ``NotADirectoryError``),
    unreadable permissions, bytes that are not UTF-8 (``UnicodeDecodeError``), a truncated or
    corrupt gzip stream (``EOFError``, ``gzip.BadGzipFile``, ``zlib.error``).
    """
    try:
        yield
    except FileNotFoundError:
        raise DataError(path, f"{what} not found; check the path (or create it)") from None
    except (IsADirectoryError, NotADirectoryError):
        raise DataError(
            path, f"expected a {what}, found a folder (or a path through a file); give the {what} itself"
        ) from None
    except PermissionError:
        raise DataError(path, f"{what} not readable (permission denied); fix its permissions") from None
    except UnicodeDecodeError as exc:
        raise not_utf8(path, exc) from None
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise DataError(
            path, f"truncated or corrupt gzip file ({exc}); re-download or re-compress it (gzip -t checks it)"
        ) from None


def read_text(path: str | os.PathLike, *, what: str = "file") -> str:
    """The UTF-8 text of ``path`` (gunzipped when it ends in ``.gz``), through :func:`reading`.

    Raises:
        DataError: missing, not UTF-8, truncated gzip (see :func:`reading`).
    """
    with reading(path, what=what):
        if str(path).endswith(".gz"):
            with gzip.open(path, "rb") as fh:
                data = fh.read()
        else:
            with open(path, "rb") as fh:
                data = fh.read()
        return data.decode("utf-8")


def read_json(path: str | os.PathLike, *, what: str = "file") -> object:
    """The parsed JSON of ``path`` (UTF-8), through :func:`reading`.

    Raises:
        DataError: missing, not UTF-8, or not JSON (names the line and column).
    """
    import json

    text = read_text(path, what=what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(path, f"not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); fix the file") from None
