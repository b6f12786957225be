"""The one error type for bad input data, and the one reader error path.

Every reader opens its files through :func:`reading` (the readers of
:mod:`mteb_contrastive.data.readers` use it), so a missing file, a file that is
not UTF-8 or a truncated ``.gz`` becomes one :class:`DataError` line naming the file (and the
1-based line where it is known) and the fix -- never a traceback.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import zlib
from collections.abc import Iterable, Iterator, Sequence
from typing import Any


class InputError(ValueError):
    """Bad input the user can fix -- a file, an option, a model name, an environment variable: the
    message names it and the fix, in one line. ``mteb-contrastive`` and ``mteb run``
    (:func:`mteb_contrastive.plugin.registration.is_input_error`) print it as one ``error:`` line
    with exit status 2, never a traceback."""


class DataError(InputError):
    """Bad input data: the message names the source (file or dataset), where in it, and the field.

    One convention for where (issue 20): the **1-based line number** of a text file (JSON Lines,
    TSV, a QuoteR line file) -- the number an editor shows -- or, for a source without lines (a
    Hugging Face dataset, a Parquet file, a list given in Python), the 1-based record number.
    Rendered ``<source>, line 3, field 'text': <message>`` / ``<source>, record 3, ...``.

    Attributes:
        source: file path or dataset name.
        line: 1-based line number in a text file, or None.
        record: 1-based record number in a source without lines, or None.
        field: column / JSON key, or None.
    """

    def __init__(
        self,
        source: object,
        message: str,
        *,
        line: int | None = None,
        record: int | None = None,
        field: str | None = None,
    ):
        self.source, self.line, self.record, self.field = str(source), line, record, field
        where = str(source)
        if line is not None:
            where += f", line {line}"
        elif record is not None:
            where += f", record {record}"
        if field is not None:
            where += f", field {field!r}"
        super().__init__(f"{where}: {message}")


class LineRows(list):
    """Rows read from a text file, with ``lines[i]`` = the 1-based line number of row ``i`` (blank
    lines are skipped, so row and line numbers differ); what :func:`position` reads."""

    def __init__(self, rows: Iterable[Any] = (), lines: Iterable[int] = ()):
        super().__init__(rows)
        self.lines = list(lines)


def position(rows: Sequence[Any], i: int) -> dict[str, int]:
    """:class:`DataError`'s keyword for row ``i`` of ``rows``: ``{"line": n}`` for rows read from a
    file (:class:`LineRows`), else ``{"record": i + 1}``."""
    lines = getattr(rows, "lines", None)
    if lines is not None and i < len(lines):
        return {"line": lines[i]}
    return {"record": i + 1}


def where(rows: Sequence[Any], i: int) -> str:
    """``"line n"`` / ``"record n"`` of row ``i`` of ``rows`` (:func:`position`), for a message naming a second row."""
    ((unit, n),) = position(rows, i).items()
    return f"{unit} {n}"


def not_utf8(path: object, exc: UnicodeDecodeError, line: int | None = None) -> DataError:
    """The :class:`DataError` for bytes that are not UTF-8 (byte offset within the line, or within
    the file when ``line`` is None; the line is then found from the bytes decoded at once)."""
    bad = exc.object[exc.start : exc.start + 4]
    if line is None and isinstance(exc.object, (bytes, bytearray)):  # a whole file decoded at once: find the line
        line = exc.object[: exc.start].count(b"\n") + 1
    return DataError(
        path,
        f"not UTF-8 text (byte {exc.start}: {bad!r}); re-encode the file as UTF-8, e.g. iconv -f latin1 -t utf-8",
        line=line,
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
