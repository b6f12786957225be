"""The one error type for bad input data."""

from __future__ import annotations


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
