"""Author-labelled corpora (JSONL): reading with validation, and sentence spans.

Row schema: ``id`` (str/int, unique), ``authors`` (non-empty list of str), ``text`` (non-empty),
optional ``domains`` (list of str), ``year`` (int/str), ``language`` (ISO 639-1 like ``fr``), and
the column named as the *topic field* by the builder's caller (``--topic-field``; any column: keywords,
a domain, a genre), read into ``topics`` by :func:`normalise_topics`.

Identity fields (``id``, ``authors``, ``domains``) are returned in Unicode NFC
(:func:`mteb_contrastive.identity.nfc`): an author typed in NFC in one row and NFD in another is
one author. ``text`` is kept exactly as given.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from mteb_contrastive.data.content import topic_set
from mteb_contrastive.data.errors import DataError, LineRows
from mteb_contrastive.data.fields import OPTIONS, FieldMap, describe, id_value, mapped, text_value
from mteb_contrastive.data.readers import iter_jsonl
from mteb_contrastive.identity import nfc

#: Abbreviations after which a sentence break is undone -- ``MERGE_TRIGGERS`` of the
#: HALvest-Contrastive sampler (``halvesting_contrastive/utils/data/sampler.py``).
MERGE_TRIGGERS = (
    "et al.",
    "e.g.",
    "i.e.",
    "vs.",
    "cf.",
    "etc.",
    "approx.",
    "fig.",
    "figs.",
    "tab.",
    "sec.",
    "chap.",
    "dr.",
    "mr.",
    "mrs.",
    "ms.",
    "prof.",
    "p.",
    "pp.",
    "vol.",
    "no.",
    "a.d.",
    "b.c.",
)


def normalise_topics(
    value: Any, source: object = "corpus", where: dict[str, int] | None = None, field: str = "topic"
) -> list[str]:
    """The topics of one row: a string or a list of strings -> sorted distinct normalised topics.

    Each topic: NFC, case-folded, the typographic apostrophe U+2019 written ``'``, runs of whitespace
    made one space, stripped, a string's ``|``-joined labels split; empty ones dropped
    (:func:`mteb_contrastive.data.content.topic_set`, the one topic rule). ``None`` or ``""`` -> ``[]``
    (the row takes no part in topic-controlled items). Two rows are on the same topic when their topic sets intersect.
    ``where``: the row's position for errors (``{"line": n}`` or ``{"record": n}``, 1-based).

    Raises:
        DataError: a value that is neither a string nor a list of strings (names the line and field).
    """
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DataError(source, "a topic must be a string or a list of strings", **(where or {}), field=field)
    return sorted(topic_set(value))


def _a(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def validate_corpus_row(
    obj: dict[str, Any],
    source: object,
    line: int,
    *,
    topic_field: str | None = None,
    fields: FieldMap | None = None,
) -> dict[str, Any]:
    """Check and normalise one corpus row (see module docstring); ``line``: its 1-based line number.
    With ``topic_field``, the row also gets ``topics`` (:func:`normalise_topics` of that column;
    absent -> ``[]``). ``authors`` may also be one name under ``author``. ``fields``: the user's
    column names (:class:`~mteb_contrastive.data.fields.FieldMap`, already applied by
    :func:`~mteb_contrastive.data.fields.mapped`), for the messages.

    Raises:
        DataError: a missing field, a text that is not a non-empty string, an id that is not a string
            or whole number, an empty or malformed author list, a malformed topic (each names what was found).
    """
    fields = fields or FieldMap()
    where = {"line": line}
    col = {"id": fields.column("id", "id"), "text": fields.column("text", "text")}
    if "authors" not in obj and "author" in obj:
        obj = {**obj, "authors": [obj["author"]]}
    col["authors"] = fields.column("author", "authors")
    for f in ("id", "authors", "text"):
        if f not in obj:
            opt = OPTIONS["author" if f == "authors" else f]
            raise DataError(
                source,
                f"missing; give every row {_a(col[f])} {col[f]!r} (or name the field that holds it with {opt})",
                **where,
                field=col[f],
            )
    text = text_value(obj["text"], source, where, col["text"])
    authors = obj["authors"]
    if not isinstance(authors, list) or not all(isinstance(a, str) and a.strip() for a in authors):
        raise DataError(
            source,
            f"expected a list of non-empty author names, found {describe(authors)}",
            **where,
            field=col["authors"],
        )
    if not authors:
        raise DataError(source, "empty author set", **where, field=col["authors"])
    domains = obj.get("domains") or []
    if not isinstance(domains, list):
        raise DataError(source, f"expected a list of domains, found {describe(domains)}", **where, field="domains")
    out = {
        "id": id_value(obj["id"], source, where, col["id"]),  # identity fields in NFC (see mteb_contrastive.identity)
        "authors": [nfc(a.strip()) for a in authors],
        "text": text,
        "domains": [nfc(str(d)) for d in domains],
        "year": obj.get("year"),
        "language": obj.get("language"),
    }
    if topic_field is not None:
        out["topics"] = normalise_topics(obj.get(topic_field), source, where, topic_field)
    return out


def check_topic_field(rows: list[dict[str, Any]], source: object, topic_field: str | None) -> None:
    """A topic field that no row has is a typo, not a corpus without topics.

    Raises:
        DataError: ``topic_field`` is set and no row has a topic (names the option).
    """
    if topic_field is not None and not any(r.get("topics") for r in rows):
        raise DataError(
            source,
            f"--topic-field {topic_field!r}: no row has a non-empty {topic_field!r}; "
            "name a column that holds each document's topics (a string or a list of strings)",
        )


def read_corpus(
    path: str | os.PathLike, *, topic_field: str | None = None, fields: FieldMap | None = None
) -> list[dict[str, Any]]:
    """Read and validate an author-labelled JSONL corpus (``.jsonl`` or ``.jsonl.gz``); with
    ``topic_field``, each row gets ``topics`` (:func:`validate_corpus_row`); ``fields``: the columns
    holding the text, authors and id when they are not ``text``, ``authors``, ``id`` (``--text-field``, ...).

    Returns:
        the rows, as :class:`~mteb_contrastive.data.errors.LineRows` (their line numbers kept for
        later checks such as :func:`~mteb_contrastive.data.languages.languages_from_rows`).

    Raises:
        DataError: bad JSON, bad row, a duplicate ``id`` (names both lines), a named field no row has.
    """
    rows, seen = LineRows(), {}
    fields = replace(fields or FieldMap(), topic=topic_field)
    for n, obj in mapped(iter_jsonl(path), fields, path):
        row = validate_corpus_row(obj, path, n, topic_field=topic_field, fields=fields)
        if row["id"] in seen:
            raise DataError(path, f"duplicate id {row['id']!r} (first at line {seen[row['id']]})", line=n, field="id")
        seen[row["id"]] = n
        rows.append(row)
        rows.lines.append(n)
    if not rows:
        raise DataError(path, "empty corpus")
    check_topic_field(rows, path, topic_field)
    return rows


_OPENERS = "([{\"'\u00ab\u201c\u2018"
_TRIGGER_TOKENS = tuple(tuple(t.split()) for t in MERGE_TRIGGERS)


def ends_with_abbreviation(sentence: str) -> bool:
    """True when the last whitespace token(s) of ``sentence`` are one of :data:`MERGE_TRIGGERS`.

    Matching is on whole tokens, case-insensitive, after stripping opening brackets and quotes
    from the first token (``"(e.g."`` matches ``e.g.``): ``"We had to stop."`` does not end
    with ``p.``, ``"Smith et al."`` ends with ``et al.``.
    """
    tokens = sentence.lower().split()
    for trig in _TRIGGER_TOKENS:
        n = len(trig)
        if len(tokens) < n:
            continue
        tail = tokens[-n:]
        tail[0] = tail[0].lstrip(_OPENERS)
        if tuple(tail) == trig:
            return True
    return False


def sentence_offsets(text: str, language: str = "en") -> list[tuple[int, int]]:
    """Character offsets ``(start, end)`` of the sentences of ``text``; ``text[start:end]`` is a sentence.

    Segmenter: sentencex (``segment(language, text)``), each segment stripped of surrounding
    whitespace and located in ``text``; then a sentence whose last token is an abbreviation of
    :data:`MERGE_TRIGGERS` (whole-token match, :func:`ends_with_abbreviation`) is merged with the
    next one -- the rule of the HALvest-Contrastive sampler's ``tokenize_and_merge_sentences``
    (``halvesting_contrastive/utils/data/sampler.py``; its list, its rule on whole tokens).

    Offsets are into ``text`` as given (no normalisation), so a span ``text[s0:e1]`` keeps the
    source's own separators (none between Chinese sentences, spaces or newlines elsewhere).
    """
    from sentencex import segment

    spans: list[tuple[int, int]] = []
    cursor = 0
    for seg in segment(language or "en", text):
        s = seg.strip()
        if not s:
            continue
        start = text.find(s, cursor)
        if start < 0:  # the segmenter altered the text: fall back to the cursor
            start = cursor
        end = start + len(s)
        spans.append((start, end))
        cursor = end
    merged: list[tuple[int, int]] = []
    i = 0
    while i < len(spans):
        start, end = spans[i]
        while i + 1 < len(spans) and ends_with_abbreviation(text[start:end]):
            end = spans[i + 1][1]
            i += 1
        merged.append((start, end))
        i += 1
    return merged


def split_sentences(text: str, language: str = "en") -> list[str]:
    """Sentences of ``text``: substrings at :func:`sentence_offsets` (abbreviation merge included)."""
    return [text[a:b] for a, b in sentence_offsets(text, language)]


def sentence_span(text: str, offsets: list[tuple[int, int]], start: int, k: int) -> str:
    """The ``k`` contiguous sentences from sentence ``start`` as one substring of ``text``.

    ``text[offsets[start][0]:offsets[start + k - 1][1]]``: the original separators are kept
    (``"我喜欢苹果。你呢？"`` for two Chinese sentences, not ``"我喜欢苹果。 你呢？"``).

    Raises:
        IndexError: ``start + k`` exceeds the number of sentences, or ``k < 1``.
    """
    if k < 1 or start < 0 or start + k > len(offsets):
        raise IndexError(f"sentences {start}..{start + k - 1} of {len(offsets)}")
    return text[offsets[start][0] : offsets[start + k - 1][1]]
