"""TALN/RECITAL papers (``shared/data/taln/articles.jsonl.gz``) -> author-labelled corpora.

Per the data README, authorship tasks must use the body ``text[body_offset:refs_offset]``: the
full text still holds the byline, e-mails and the reference list, which name the authors.
Two views are made:

* ``fulltext-fr``: body of papers whose ``text_lang`` is ``fr`` (French full text);
* ``abstract-en``: ``abstract_en`` (the authors' own English abstracts) of every paper that
  has one.

Papers whose selected text is empty are dropped and counted. A topic field (``keywords_fr`` for
``fulltext-fr``, ``keywords_en`` for ``abstract-en``: the authors' own keywords) may be carried into
the rows' ``topics`` (:func:`mteb_contrastive.data.corpus.normalise_topics`); ``venue``, ``type`` and
``year`` are a main/student split, a format and a time, not topics.
"""

from __future__ import annotations

import os
from typing import Any

from mteb_contrastive.data.corpus import check_topic_field, validate_corpus_row
from mteb_contrastive.data.errors import DataError, LineRows
from mteb_contrastive.data.readers import iter_jsonl

VIEWS = ("fulltext-fr", "abstract-en")
#: the keywords field that goes with each view (the topic field ``keywords`` resolves to it)
VIEW_KEYWORDS = {"fulltext-fr": "keywords_fr", "abstract-en": "keywords_en"}


def taln_corpus(
    path: str | os.PathLike, view: str, *, topic_field: str | None = None
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Corpus rows (``id``, ``authors``, ``text``, ``year``, ``language``; ``topics`` with
    ``topic_field``: a field of the papers, or ``keywords`` for the view's own, :data:`VIEW_KEYWORDS`) for one view.

    Returns:
        (rows (:class:`~mteb_contrastive.data.errors.LineRows`: each row's line in the file kept),
        counts ``papers``, ``kept``, ``dropped_empty``, ``dropped_language``)

    Raises:
        DataError: unknown view, or a paper without the fields used.
    """
    if view not in VIEWS:
        raise DataError(path, f"unknown TALN view {view!r}; choose one of {VIEWS}")
    if topic_field == "keywords":
        topic_field = VIEW_KEYWORDS[view]
    rows, counts = LineRows(), {"papers": 0, "kept": 0, "dropped_empty": 0, "dropped_language": 0}
    for n, p in iter_jsonl(path):
        counts["papers"] += 1
        for f in ("id", "authors", "text", "body_offset", "refs_offset", "abstract_en", "text_lang"):
            if f not in p:
                raise DataError(path, "missing field", line=n, field=f)
        if view == "fulltext-fr":
            if p["text_lang"] != "fr":
                counts["dropped_language"] += 1
                continue
            text, lang = p["text"][p["body_offset"] : p["refs_offset"]], "fr"
        else:
            text, lang = p["abstract_en"], "en"
        if not text.strip():
            counts["dropped_empty"] += 1
            continue
        row = {"id": p["id"], "authors": p["authors"], "text": text, "year": p.get("year"), "language": lang}
        if topic_field is not None:
            row[topic_field] = p.get(topic_field)
        rows.append(validate_corpus_row(row, path, n, topic_field=topic_field))
        rows.lines.append(n)
        counts["kept"] += 1
    check_topic_field(rows, path, topic_field)
    return rows, counts
