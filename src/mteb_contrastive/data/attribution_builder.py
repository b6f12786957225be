"""Build a closed-set authorship-attribution folder: candidate authors, their known texts, questioned texts.

Input rows ``{"id", "author" | "authors": [...], "text"}`` (optional ``title``, ``language`` and any
other field), one row = one text (a work). Each row is either

* **known** -- a single author label: that author is a candidate and the text one of their known
  texts;
* **questioned** -- its author is missing (no ``author``/``authors``, empty, ``null``), or
  ``questioned_field`` names a field whose value is one of ``questioned_values`` (compared NFC,
  case-folded; e.g. ``--questioned-field status --questioned-value disputed unknown``). Its label,
  if any, is kept as ``label_note`` (shown beside the answer, never scored);
* **composite** -- a joint or disputed label: an ``authors`` list of two or more names, or an
  ``author`` string that the separators ``" or "``, ``" and "``, ``&``, ``/``, ``;``, ``|`` cut into two or
  more names of which at least one is a candidate (a single-author label of another row), or any
  ``" or "`` label. A composite label is **never a new author**: with ``composite="refuse"`` (default)
  the build stops with one line naming the row; ``composite="questioned"`` holds the text out as
  questioned, its label kept as ``label_note``. (A joint name none of whose parts writes alone,
  e.g. a two-author pseudonym, stays one author.)

Texts are cut as the verification builder cuts them
(:func:`mteb_contrastive.data.verification_builder.chunk_text`: ``chunk_words`` whitespace tokens,
jieba words or characters for text written without spaces; a last chunk shorter than
``min_words`` dropped; ids and author labels compared in NFC, texts kept as given), then a fixed
**sample of ``chunks_per_text`` chunks** per text, evenly spaced over the text (indices
``floor(j * (n - 1) / (k - 1) + 1/2)``, j = 0..k-1; all chunks when n <= k; no random draw), which
bounds the cost on novels. A text too short for one chunk is skipped and listed.

Output ``<out>/<name>/``: ``texts.jsonl`` (one row per text: ``id``, ``title``, ``author`` (null for
questioned), ``role``, ``label_note``, ``n_chunks``, ``sample`` (chunk indices), ``chunks`` (their
texts)), ``mteb_contrastive.json`` (kind ``attribution``; counts, parameters, ``build_id`` = content
fingerprint = the dataset revision) and a ``README.md`` card; written atomically. The tasks
``<name>Attribution`` and ``<name>AuthorClustering`` are made from it
(:mod:`mteb_contrastive.protocols.attribution`, :mod:`mteb_contrastive.protocols.author_clustering`).
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from mteb_contrastive.data.built_folder import built_folder
from mteb_contrastive.data.content import DUPLICATE_RULES, apply_duplicate_rule, content_key
from mteb_contrastive.data.errors import DataError, LineRows, position, where
from mteb_contrastive.data.fields import MISSING, FieldMap, describe, id_value, mapped, text_value
from mteb_contrastive.data.languages import languages_from_rows, resolve_languages, stated_fallback
from mteb_contrastive.data.readers import iter_jsonl
from mteb_contrastive.data.verification_builder import chunk_text
from mteb_contrastive.identity import fingerprint, nfc

KIND = "attribution"
TEXTS_FILE = "texts.jsonl"
#: the command that builds this kind, and the data files it writes (:mod:`mteb_contrastive.data.built_folder`)
COMMAND, OUTPUTS = "build-attribution", (TEXTS_FILE,)
KNOWN, QUESTIONED = "known", "questioned"
#: what a composite (joint or "X or Y") label becomes
COMPOSITE_RULES = ("refuse", "questioned")
_SEPARATORS = re.compile(r"\s+(?:or|and)\s+|\s*[&/;|]\s*", re.IGNORECASE)
_OR = re.compile(r"\s+or\s+", re.IGNORECASE)


def _label_key(label: str) -> str:
    return " ".join(nfc(label).casefold().split())


def label_parts(label: str) -> list[str]:
    """The names a label joins with the separators of the module docstring (one name when none)."""
    return [p.strip() for p in _SEPARATORS.split(label) if p.strip()]


def _author_label(row: dict[str, Any], pos: dict[str, int], source: object) -> tuple[str | None, list[str]]:
    """(the row's author label or None when missing, the names it lists when it is a list)."""
    if "authors" in row and row.get("author") in (None, ""):
        authors = row["authors"]
        if authors is None:
            return None, []
        if not isinstance(authors, list) or not all(isinstance(a, (str, int)) for a in authors):
            raise DataError(
                source, f"expected a list of author names, found {describe(authors)}", **pos, field="authors"
            )
        names = [nfc(str(a).strip()) for a in authors if str(a).strip()]
        return (" and ".join(names) if names else None), names
    author = row.get("author")
    if author is None or (isinstance(author, str) and not author.strip()):
        return None, []
    if not isinstance(author, (str, int)) or isinstance(author, bool):
        raise DataError(source, f"expected an author name, found {describe(author)}", **pos, field="author")
    return nfc(str(author).strip()), []


def classify_rows(
    rows: Iterable[dict[str, Any]],
    source: object = "rows",
    *,
    questioned_field: str | None = None,
    questioned_values: Sequence[str] = (),
    composite: str = "refuse",
) -> list[dict[str, Any]]:
    """Rows -> texts ``{"id", "author" (None when questioned), "role", "label_note", "text", "title",
    "language"}`` by the rules of the module docstring.

    Raises:
        DataError: a missing id or text, a duplicate id, a composite label under ``composite="refuse"``
            (one line naming the row, the label, the names and the two ways out).
        ValueError: an unknown ``composite`` rule, or ``questioned_values`` without ``questioned_field``.
    """
    if composite not in COMPOSITE_RULES:
        raise ValueError(f"composite must be one of {COMPOSITE_RULES}, got {composite!r}")
    if questioned_values and not questioned_field:
        raise ValueError("questioned values need the field they are read from (questioned_field)")
    wanted = {_label_key(str(v)) for v in questioned_values}
    staged = []
    seen: dict[str, int] = {}
    for i, row in enumerate(rows):
        did = id_value(row.get("id", MISSING), source, position(rows, i))
        if did in seen:
            raise DataError(
                source, f"duplicate id {did!r} (first at {where(rows, seen[did])})", **position(rows, i), field="id"
            )
        seen[did] = i
        text_value(row.get("text", MISSING), source, position(rows, i))
        label, names = _author_label(row, position(rows, i), source)
        flagged = None
        if questioned_field and row.get(questioned_field) is not None:
            value = row.get(questioned_field)
            if _label_key(str(value)) in wanted:
                flagged = f"{questioned_field}={value}"
        staged.append((i, did, row, label, names, flagged))
    # candidates: single-author labels of rows not marked questioned
    singles = {
        _label_key(label)
        for _, _, _, label, names, flagged in staged
        if label is not None and flagged is None and len(names) <= 1 and len(label_parts(label)) < 2
    }
    out = []
    for i, did, row, label, names, flagged in staged:
        role, note, author = KNOWN, "", label
        if label is None or flagged is not None:
            role, author = QUESTIONED, None
            note = "; ".join(x for x in (label, flagged) if x)
        else:
            parts = names if len(names) > 1 else label_parts(label)
            is_composite = len(names) > 1 or (
                len(parts) >= 2 and (bool(_OR.search(label)) or any(_label_key(p) in singles for p in parts))
            )
            if is_composite:
                field = "authors" if names else "author"
                if composite == "refuse":
                    known = [p for p in parts if _label_key(p) in singles]
                    raise DataError(
                        source,
                        f"{label!r} names {len(parts)} authors ({', '.join(parts)}; candidates among them: "
                        f"{', '.join(known) or 'none'}); a joint or disputed label is not a new author: "
                        "pass --composite questioned to hold it out as a questioned text, or fix the label",
                        **position(rows, i),
                        field=field,
                    )
                role, author, note = QUESTIONED, None, label
        out.append(
            {
                "id": did,
                "author": author,
                "role": role,
                "label_note": note,
                "text": row["text"],
                "title": str(row.get("title") or ""),
                "language": row.get("language"),
            }
        )
    if not out:
        raise DataError(source, "no texts")
    return out


def apply_text_rule(
    texts: list[dict[str, Any]], rows: Sequence[dict[str, Any]], rule: str, source: object
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The duplicate-text rule of every builder (:func:`mteb_contrastive.data.content.apply_duplicate_rule`)
    on classified texts (:func:`classify_rows`, one per row of ``rows``, in order).

    Known texts: a copy (same content: NFC, whitespace-normalised) under the same author is kept once; a
    text under two authors is an error naming both rows (``"refuse"``) or merges the authors
    (``"collapse"``). Questioned texts: a copy of another questioned text is kept once; a copy of a
    known text is an error (``"refuse"``: its author would be read off the copy) or dropped
    (``"collapse"``: the text is known).

    Returns:
        (texts, report: ``rule``, ``rows``, ``rows_dropped``, ...).

    Raises:
        DataError: a text under two authors, or a questioned copy of a known text (``"refuse"``).
        ValueError: an unknown rule.
    """
    if rule not in DUPLICATE_RULES:
        raise ValueError(f"duplicates must be one of {DUPLICATE_RULES}, got {rule!r}")
    known_at = [i for i, t in enumerate(texts) if t["role"] == KNOWN]
    option = "--duplicates collapse (build-attribution)"
    known, report = apply_duplicate_rule(
        [texts[i] for i in known_at], rule, source, option=option, where=lambda j: (source, position(rows, known_at[j]))
    )
    first_known: dict[str, int] = {}
    for i in known_at:
        first_known.setdefault(content_key(texts[i]["text"]), i)
    seen_q: set[str] = set()
    questioned, dropped = [], 0
    for i, t in enumerate(texts):
        if t["role"] != QUESTIONED:
            continue
        k = content_key(t["text"])
        if k in first_known:
            if rule == "refuse":
                j = first_known[k]
                raise DataError(
                    source,
                    f"questioned text {t['id']!r} is a copy (after NFC and whitespace normalisation) of the known "
                    f"text {texts[j]['id']!r} of {texts[j]['author']!r} ({where(rows, j)}); its author would be "
                    f"read off the copy: remove one, or pass {option} to drop the questioned copy",
                    **position(rows, i),
                    field="text",
                )
            dropped += 1
            continue
        if k in seen_q:
            dropped += 1
            continue
        seen_q.add(k)
        questioned.append(t)
    known_by_id, questioned_ids = {t["id"]: t for t in known}, {t["id"] for t in questioned}
    out = [  # input order; a known text as the rule left it (collapse: its merged author)
        known_by_id[t["id"]] if t["role"] == KNOWN else t
        for t in texts
        if t["id"] in known_by_id or t["id"] in questioned_ids
    ]
    report = {**report, "rows": len(texts), "rows_dropped": len(texts) - len(out)}
    return out, report


def sample_indices(n_chunks: int, k: int) -> list[int]:
    """``k`` evenly spaced chunk indices of ``0..n_chunks-1`` (all when ``n_chunks <= k``):
    ``floor(j * (n - 1) / (k - 1) + 1/2)``; ``[0]`` for k = 1."""
    if n_chunks <= k:
        return list(range(n_chunks))
    if k == 1:
        return [0]
    return [int(j * (n_chunks - 1) / (k - 1) + 0.5) for j in range(k)]


def read_attribution_corpus(path: str | os.PathLike, fields: FieldMap | None = None) -> list[dict[str, Any]]:
    """The rows of a JSONL corpus (``.jsonl`` / ``.jsonl.gz``) as they are (classified by :func:`classify_rows`);
    ``fields``: the columns holding the text, author(s), id and the questioned flag when named
    (``--text-field``, ``--author-field``, ``--id-field``, ``--questioned-field``).

    Returns:
        the rows as :class:`~mteb_contrastive.data.errors.LineRows` (each row's 1-based line kept for
        the errors of later checks).

    Raises:
        DataError: missing file, not UTF-8, not JSON Lines (names the line), a named field no row has
            (``--questioned-field Status`` when the rows say ``status``).
    """
    pairs = mapped(iter_jsonl(path), fields, path)
    return LineRows([obj for _, obj in pairs], [n for n, _ in pairs])


def build_attribution_dataset(
    rows: Iterable[dict[str, Any]],
    out_dir: str | os.PathLike,
    name: str,
    *,
    chunk_words: int = 1000,
    min_words: int | None = None,
    chunks_per_text: int = 10,
    questioned_field: str | None = None,
    questioned_values: Sequence[str] = (),
    composite: str = "refuse",
    open_set: bool = False,
    languages: Sequence[str] | None = None,
    source: str = "",
    description: str = "",
    duplicates: str = "refuse",
    force: bool = False,
) -> Path:
    """Write an attribution folder ``<out_dir>/<name>`` (atomically); the builder behind ``build-attribution``.

    Args:
        rows: texts ``{"id", "author" | "authors", "text"}`` (+ ``title``, ``language``, any field), e.g.
            :func:`read_attribution_corpus` or :func:`mteb_contrastive.data.verification_builder.eltec_documents`.
        name: letters and digits; the tasks are ``<name>Attribution`` and ``<name>AuthorClustering``.
        chunk_words / min_words: the verification builder's chunking (``min_words`` default ``chunk_words // 2``).
        chunks_per_text: chunks sampled per text (module docstring).
        questioned_field / questioned_values: rows whose field has one of these values are questioned.
        composite: ``"refuse"`` or ``"questioned"`` (module docstring).
        open_set: the task also answers "none of the candidates" below a validated threshold
            (:mod:`mteb_contrastive.protocols.attribution`, step 7); recorded in ``params``.
        languages: mteb codes of the texts; default the rows' ``language``, else eng-Latn with a warning.
        duplicates: the rule of every builder for texts compared by content
            (:func:`apply_text_rule`, :mod:`mteb_contrastive.data.content`): a copy of a text under the
            same author is kept once (leave-one-text-out would compare a held-out text with itself);
            a text under two authors is refused (``"refuse"``) or their labels merged (``"collapse"``).
        force: replace whatever is at ``<out_dir>/<name>`` (:mod:`mteb_contrastive.data.built_folder`).

    Raises:
        DataError: bad rows (see :func:`classify_rows`), fewer than two candidate authors, or no
            author with two known texts (nothing to score by leave-one-text-out).
        ValueError: a bad name or parameter.
    """
    folder = built_folder(out_dir, name, KIND, COMMAND, OUTPUTS, force=force)
    folder.check()  # the output place, before any work
    if chunks_per_text < 1:
        raise ValueError(f"chunks_per_text must be >= 1, got {chunks_per_text}")
    min_words = min_words or max(1, chunk_words // 2)
    where = source or name
    rows = rows if isinstance(rows, Sequence) else list(rows)
    texts = classify_rows(
        rows, where, questioned_field=questioned_field, questioned_values=questioned_values, composite=composite
    )
    texts, dup_report = apply_text_rule(texts, rows, duplicates, where)
    languages = stated_fallback(
        resolve_languages(languages_from_rows(texts, where), languages, source=where, option="--language"),
        ["eng-Latn"],
        source=where,
        option="--language",
    )
    out_rows, skipped = [], []
    for t in texts:
        chunks = chunk_text(t["text"], chunk_words, min_words)
        if not chunks:
            skipped.append(t["id"])
            continue
        sample = sample_indices(len(chunks), chunks_per_text)
        out_rows.append(
            {
                "id": t["id"],
                "title": t["title"],
                "author": t["author"],
                "role": t["role"],
                "label_note": t["label_note"],
                "n_chunks": len(chunks),
                "sample": sample,
                "chunks": [chunks[j] for j in sample],
            }
        )
    known = Counter(r["author"] for r in out_rows if r["role"] == KNOWN)
    if len(known) < 2:
        raise DataError(where, f"{len(known)} candidate author(s) with a known text; attribution needs at least 2")
    evaluable = {a: n for a, n in known.items() if n >= 2}
    if not evaluable:
        raise DataError(
            where,
            "no candidate author has two known texts: leave-one-text-out has nothing to score; add texts",
        )
    params: dict[str, Any] = {
        "chunk_words": chunk_words,
        "min_words": min_words,
        "chunks_per_text": chunks_per_text,
        "composite": composite,
        "open_set": bool(open_set),
    }
    if duplicates != "refuse":  # recorded only when not the default, so earlier builds keep their revision
        params["duplicates"] = duplicates
    if questioned_field:
        params["questioned_field"] = questioned_field
        params["questioned_values"] = sorted(str(v) for v in questioned_values)
    counts = {
        "candidates": len(known),
        "known_texts": sum(known.values()),
        "evaluable_authors": len(evaluable),
        "evaluable_texts": sum(evaluable.values()),
        "questioned_texts": sum(r["role"] == QUESTIONED for r in out_rows),
        "chunks": sum(len(r["chunks"]) for r in out_rows),
    }
    with folder.staged() as tmp:
        with open(tmp / TEXTS_FILE, "w", encoding="utf-8") as fh:
            for r in out_rows:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
        content = [[r["id"], r["author"], r["role"], r["label_note"], r["title"], r["chunks"]] for r in out_rows]
        info = {
            "kind": KIND,
            "name": name,
            "description": description,
            "languages": list(languages),
            "counts": counts,
            "skipped_texts_too_short": skipped,
            "duplicates": dup_report,
            "source": source,
            "params": params,
            # the revision is the content: every text's id, label, role and sampled chunks, the parameters
            "build_id": fingerprint(KIND, params, list(languages), content),
        }
        folder.write_info(tmp, info, _card(info, out_rows))
    return folder.path


def load_texts(folder: str | os.PathLike) -> list[dict[str, Any]]:
    """The rows of ``<folder>/texts.jsonl`` (see the module docstring).

    Raises:
        DataError: the file is missing or a row lacks ``id``, ``role`` or ``chunks``.
    """
    path = Path(folder) / TEXTS_FILE
    out = []
    for i, obj in iter_jsonl(path):
        for f in ("id", "role", "chunks"):
            if f not in obj:
                raise DataError(path, "missing", line=i, field=f)
        if obj["role"] not in (KNOWN, QUESTIONED) or (obj["role"] == KNOWN and not obj.get("author")):
            raise DataError(path, "role must be 'known' (with an author) or 'questioned'", line=i, field="role")
        out.append(obj)
    return out


def _card(info: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    p, c = info["params"], info["counts"]
    lines = [
        f"# {info['name']} (closed-set authorship attribution)",
        "",
        info["description"] or "",
        "",
        f"- Source: {info['source']}",
        f"- Languages: {', '.join(info['languages'])}; build id {info['build_id']}",
        f"- Built by `mteb-contrastive build-attribution`: chunks of {p['chunk_words']} words (last kept when "
        f">= {p['min_words']}), {p['chunks_per_text']} evenly spaced chunks per text; composite labels: "
        f"{p['composite']}; open set: {p['open_set']}.",
        f"- {c['candidates']} candidate authors, {c['known_texts']} known texts, {c['evaluable_texts']} of them "
        f"by the {c['evaluable_authors']} authors with two or more (scored by leave-one-text-out), "
        f"{c['questioned_texts']} questioned texts; {len(info['skipped_texts_too_short'])} texts too short "
        "for one chunk.",
        f"- Tasks: `{info['name']}Attribution` and `{info['name']}AuthorClustering` (set `MTEB_CONTRASTIVE_DATASETS` "
        "to this folder or its parent).",
        "",
        "| questioned text | title | label note | chunks sampled |",
        "|---|---|---|---|",
    ]
    for r in rows:
        if r["role"] == QUESTIONED:
            lines.append(f"| {r['id']} | {r['title']} | {r['label_note']} | {len(r['chunks'])} of {r['n_chunks']} |")
    return "\n".join(lines) + "\n"
