"""Author-labelled documents ``{"id", "author", "text", "group", "title"}`` from every kind of source.

One table (:data:`DOCUMENT_SOURCES`) for the verification builder (``build-verification``), the
shared-data benchmarks and training (``train --docs KIND=PATH``):

* ``corpus`` -- a JSONL the builders read (``{"id", "author" | "authors": [one], "text"}``);
* ``eltec`` / ``pan14`` -- the shared ELTeC novels / PAN 2014 known documents (author = novelist /
  PAN problem);
* ``taln`` -- the TALN papers' French full-text bodies (``text[body_offset:refs_offset]``,
  :func:`mteb_contrastive.data.taln.taln_corpus`), author = first author;
* ``pan-folder`` -- the ``train`` split of a PAN-format folder (``pairs.jsonl`` + ``truth.jsonl``
  with ``authors``): each distinct text is a document of the author the truth file names.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mteb_contrastive.data import verification_builder as vb
from mteb_contrastive.data.errors import DataError, LineRows
from mteb_contrastive.data.fields import OPTIONS, FieldMap
from mteb_contrastive.data.pan import load_split, read_truth
from mteb_contrastive.data.taln import taln_corpus


def taln_documents(path: str | os.PathLike, topic_field: str | None = None) -> list[dict[str, Any]]:
    """The TALN papers' French full-text bodies, author = first author (a ``topic_field`` names a
    field of :func:`~mteb_contrastive.data.taln.taln_corpus`'s rows, e.g. ``domains``)."""
    rows, _ = taln_corpus(path, "fulltext-fr")
    docs = LineRows(({**r, "id": r["id"], "author": r["authors"][0], "text": r["text"]} for r in rows), rows.lines)
    return vb.validate_documents(docs, path, topic_field=topic_field)


def documents_from_pan_folder(
    folder: str | os.PathLike, split: str = "train", topic_field: str | None = None
) -> list[dict[str, Any]]:
    """Distinct texts of one split of a PAN-format folder, each labelled with its author (the pair's
    ``fandoms`` entry is kept as ``fandom``: ``topic_field="fandom"`` makes it the topic).

    Raises:
        DataError: the split's truth rows have no ``authors`` (PAN truth without author ids cannot
            give documents), or one text is given two different authors.
    """
    rows = load_split(folder, split)
    truth = Path(folder) / split / "truth.jsonl"
    truth_rows = read_truth(truth)
    truth_line = dict(zip((r["id"] for r in truth_rows), truth_rows.lines))  # the errors name the truth file's line
    docs: dict[str, dict[str, Any]] = {}
    doc_lines: list[int] = []  # the pairs file's line where each text first occurs
    for r, pair_line in zip(rows, rows.lines):
        authors = r.get("authors")
        line = truth_line[r["id"]]
        if not isinstance(authors, list) or len(authors) != 2:
            raise DataError(truth, 'needs the two authors of the pair ("authors": [a, b])', line=line, field="authors")
        for text, author, fandom in zip(r["pair"], authors, r.get("fandoms") or ["", ""]):
            old = docs.get(text)
            if old is not None and old["author"] != str(author):
                raise DataError(
                    truth, f"the same text is labelled {old['author']!r} and {author!r}", line=line, field="authors"
                )
            if text not in docs:
                doc_lines.append(pair_line)
            docs.setdefault(
                text,
                {
                    "id": f"{split}-{len(docs)}",
                    "author": str(author),
                    "text": text,
                    "group": "",
                    "title": str(fandom),
                    "fandom": str(fandom),
                },
            )
    if topic_field:  # a missing topic is named at the pairs file's line
        pairs = Path(folder) / split / "pairs.jsonl"
        return vb.validate_documents(LineRows(docs.values(), doc_lines), pairs, topic_field=topic_field)
    return list(docs.values())


#: kind -> reader of ``path`` (see the module docstring); each takes an optional ``topic_field``
DOCUMENT_SOURCES: dict[str, Callable[..., list[dict[str, Any]]]] = {
    "corpus": vb.corpus_documents,
    "eltec": vb.eltec_documents,
    "pan14": vb.pan14_documents,
    "taln": taln_documents,
    "pan-folder": documents_from_pan_folder,
}


def load_documents(
    kind: str, path: str | os.PathLike, *, topic_field: str | None = None, fields: FieldMap | None = None
) -> list[dict[str, Any]]:
    """Documents of one source (:data:`DOCUMENT_SOURCES`); with ``topic_field`` (any field of the source's
    rows: a fandom, a HAL domain set, keywords, a genre), each document's ``topic`` is that field
    (:func:`~mteb_contrastive.data.verification_builder.topic_value`).

    Texts are returned as the source files them: a text under two authors is caught later, by
    content, where documents are used (:func:`mteb_contrastive.data.content.apply_duplicate_rule`).

    ``fields`` (``--text-field``, ``--author-field``, ``--id-field``: :class:`~mteb_contrastive.data.fields.FieldMap`)
    name the columns of a ``corpus`` file; the shared-data kinds have their own.

    Raises:
        DataError: unknown kind, a missing file, unreadable rows, a row without the topic field
            (file, row, field named), a named field no row has, field options for a kind other than ``corpus``.
    """
    if kind not in DOCUMENT_SOURCES:
        raise DataError(kind, f"unknown document source; choose one of {tuple(DOCUMENT_SOURCES)}")
    if kind == "corpus":
        return vb.corpus_documents(path, topic_field=topic_field, fields=fields)
    if fields is not None and fields.renames():
        options = " ".join(f"{OPTIONS[k]} {v}" for k, v in fields.named().items() if k in ("text", "author", "id"))
        raise DataError(path, f"{options}: field options name the columns of a corpus file; {kind} has its own")
    return DOCUMENT_SOURCES[kind](path, topic_field=topic_field)
