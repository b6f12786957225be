"""The fields of a user's rows: which column holds what (the field options), and the type of each value.

One module for two promises of every builder (``build-triplets``, ``build-verification``,
``build-attribution``) and of ``train``'s ``corpus`` source:

* **Field options.** :class:`FieldMap` says which column of the user's rows holds the text, the
  author(s), the id (``--text-field``, ``--author-field``, ``--id-field``), the topic
  (``--topic-field``) and the questioned-text flag (``--questioned-field``). :func:`mapped` copies the
  named columns into the names the builders read (``text``, ``author`` / ``authors``, ``id``) and
  refuses a field that **no row has** -- one line naming the option, the field and the fields the
  rows do have (with the one that differs only in case, e.g. ``'status'`` for ``--questioned-field
  Status``): a typo never turns into "no row is questioned" or "no text".
* **Value types.** :func:`text_value`, :func:`id_value`, :func:`name_value` check one value and
  say what was found (``null``, a list, a number, an object) instead of "missing or empty".

Every error is a :class:`~mteb_contrastive.data.errors.DataError`: file, 1-based line, field, what was found, the fix.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mteb_contrastive.data.errors import DataError
from mteb_contrastive.identity import nfc


class _Missing:
    """The value of a field a row does not have (``row.get(field, MISSING)``)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


def _missing(source: object, where: dict[str, int], field: str, what: str) -> DataError:
    return DataError(source, f"missing; give every row {what}", **where, field=field)


def describe(value: Any) -> str:
    """What a JSON value is, for a message: ``null``, ``true``, ``a number (5)``, ``a list ([1, 2])``,
    ``an object``, ``an empty string``, ``a string ('x')`` (shown cut to 40 characters)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"a number ({value!r})"
    if isinstance(value, str):
        if not value.strip():
            return "an empty string" if not value else "a string of only whitespace"
        return f"a string ({value[:40]!r}{'...' if len(value) > 40 else ''})"
    shown = json.dumps(value, ensure_ascii=False, default=str)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    if isinstance(value, list):
        return f"a list ({shown})" if value else "an empty list"
    if isinstance(value, dict):
        return f"an object ({shown})"
    return type(value).__name__


def text_value(value: Any, source: object, where: dict[str, int], field: str = "text") -> str:
    """A text: a string with at least one non-space character, kept as given.

    Raises:
        DataError: anything else (names what was found).
    """
    if isinstance(value, str) and value.strip():
        return value
    if value is MISSING:
        raise _missing(source, where, field, "its text (a non-empty string)")
    raise DataError(source, f"expected the text as a non-empty string, found {describe(value)}", **where, field=field)


def id_value(value: Any, source: object, where: dict[str, int], field: str = "id") -> str:
    """An id: a non-empty string or a whole number, returned as a string in NFC (an identity).

    Raises:
        DataError: null, true/false, a list, an object, a fraction, an empty string (names what was found).
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and value.strip():
        return nfc(value)
    if value is MISSING:
        raise _missing(source, where, field, "its own id (a non-empty string or a whole number)")
    raise DataError(
        source,
        f"expected an id (a non-empty string or a whole number), found {describe(value)}; give every row its own id",
        **where,
        field=field,
    )


def name_value(value: Any, source: object, where: dict[str, int], field: str = "author") -> str:
    """A name (an author): a non-empty string (a whole number is taken as its digits), stripped, in NFC.

    Raises:
        DataError: anything else (names what was found).
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and value.strip():
        return nfc(value.strip())
    if value is MISSING:
        raise _missing(source, where, field, "a name (a non-empty string)")
    raise DataError(source, f"expected a name (a non-empty string), found {describe(value)}", **where, field=field)


#: option of each field (what the messages name)
OPTIONS = {
    "text": "--text-field",
    "author": "--author-field",
    "id": "--id-field",
    "topic": "--topic-field",
    "questioned": "--questioned-field",
}


@dataclass(frozen=True)
class FieldMap:
    """Which column of the user's rows holds what; None: the builder's own name (``text``, ``author`` /
    ``authors``, ``id``; no topic, no questioned flag)."""

    text: str | None = None
    author: str | None = None
    id: str | None = None
    topic: str | None = None
    questioned: str | None = None

    def named(self) -> dict[str, str]:
        """{role: column} of the fields given (the ones :func:`mapped` checks)."""
        return {k: v for k in OPTIONS if (v := getattr(self, k)) is not None}

    def column(self, role: str, default: str) -> str:
        """The user's column for ``role`` (``"text"``, ``"author"``, ``"id"``), else ``default`` (for messages)."""
        return getattr(self, role) or default

    def renames(self) -> bool:
        """True when a text, author or id column other than the builder's own is named."""
        return any(getattr(self, k) is not None for k in ("text", "author", "id"))


def _rename(obj: dict[str, Any], fields: FieldMap) -> dict[str, Any]:
    if not fields.renames():
        return obj
    out = dict(obj)
    if fields.text is not None and fields.text in obj:
        out["text"] = obj[fields.text]
    if fields.id is not None and fields.id in obj:
        out["id"] = obj[fields.id]
    if fields.author is not None and fields.author in obj:
        value = obj[fields.author]
        out.pop("author", None)
        out.pop("authors", None)
        out["authors" if isinstance(value, list) else "author"] = value
    return out


def mapped(
    rows: Iterable[tuple[int, dict[str, Any]]], fields: FieldMap | None, source: object
) -> list[tuple[int, dict[str, Any]]]:
    """Every (line, row) with the named columns copied to the builder's names (:class:`FieldMap`),
    after checking that each named field is in some row (read in full first, so a misspelt field is
    named as such, not as a missing text on line 1).

    Raises:
        DataError: a field of ``fields`` in no row (names the option, the field, the nearest field the
            rows have and the fields they have).
    """
    fields = fields or FieldMap()
    rows = list(rows)
    named = fields.named()
    if named and rows:
        keys = dict.fromkeys(k for _, obj in rows for k in obj)
        for role, column in named.items():
            if column not in keys:
                raise DataError(source, absent_field_message(OPTIONS[role], column, list(keys)))
    return [(n, _rename(obj, fields)) for n, obj in rows]


def absent_field_message(option: str, column: str, have: list[str]) -> str:
    """``--questioned-field 'Status': no row has a field 'Status' (the rows have 'status': names are
    case-sensitive); ...``: the message of a named field that no row has."""
    near = [k for k in have if k.casefold() == column.casefold()]
    hint = f" (the rows have {near[0]!r}: field names are case-sensitive)" if near else ""
    listed = ", ".join(repr(k) for k in have[:12]) + (", ..." if len(have) > 12 else "")
    return f"{option} {column!r}: no row has a field {column!r}{hint}; give {option} one of the rows' fields: {listed}"
