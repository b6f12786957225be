"""PAN authorship-verification files (JSON Lines): reading with validation, answers writing.

Formats (PAN 2020/2021, https://pan.webis.de/clef21/pan21-web/author-identification.html):

* pairs file: ``{"id": str, "fandoms": [f1, f2], "pair": [text1, text2]}``
* truth file: ``{"id": str, "same": bool, "authors": [a1, a2]}`` -- same ids as the pairs file
* answers file: ``{"id": str, "value": float in [0, 1]}``; 0.5 = non-answer; an id of the truth
  file missing from the answers counts as 0.5 (as the PAN evaluator does).

A folder in PAN format (what :func:`load_split` reads, what the verification builder writes)
holds ``<split>/pairs.jsonl`` and ``<split>/truth.jsonl`` for each split.

Every problem is a :class:`~mteb_contrastive.data.errors.DataError` naming the file, the
1-based line and the field. Ids and author names are compared in Unicode NFC.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from mteb_contrastive.data.atomic import write_text_atomic
from mteb_contrastive.data.errors import DataError, LineRows, position
from mteb_contrastive.data.fields import id_value
from mteb_contrastive.data.readers import iter_jsonl
from mteb_contrastive.identity import nfc


def _str_id(obj: dict[str, Any], source: object, line: int) -> str:
    if "id" not in obj:
        raise DataError(source, "missing field", line=line, field="id")
    return id_value(obj["id"], source, {"line": line})  # ids are identities: compared in NFC


def read_pairs(path: str | os.PathLike) -> list[dict[str, Any]]:
    """Read a PAN pairs file.

    Returns:
        rows ``{"id", "fandoms": [f1, f2], "pair": [t1, t2]}`` in file order
        (:class:`~mteb_contrastive.data.errors.LineRows`: their line numbers kept).

    Raises:
        DataError: bad JSON, missing field, ``pair`` not two strings, an empty or whitespace-only
            text, duplicate id, empty file.
    """
    rows, seen = LineRows(), {}
    for n, obj in iter_jsonl(path):
        pid = _str_id(obj, path, n)
        if pid in seen:
            raise DataError(path, f"duplicate id {pid!r} (first at line {seen[pid]})", line=n, field="id")
        seen[pid] = n
        pair = obj.get("pair")
        if not isinstance(pair, list) or len(pair) != 2 or not all(isinstance(t, str) for t in pair):
            raise DataError(path, "must be a list of two texts", line=n, field="pair")
        for k, t in enumerate(pair):
            if not t.strip():
                raise DataError(path, f"text {k + 1} of the pair is empty", line=n, field="pair")
        fandoms = obj.get("fandoms", ["", ""])
        if not isinstance(fandoms, list) or len(fandoms) != 2:
            raise DataError(path, "must be a list of two fandom names", line=n, field="fandoms")
        rows.append({"id": pid, "fandoms": [str(f) for f in fandoms], "pair": list(pair)})
        rows.lines.append(n)
    if not rows:
        raise DataError(path, "no pairs")
    return rows


def read_truth(path: str | os.PathLike) -> list[dict[str, Any]]:
    """Read a PAN truth file.

    Returns:
        rows ``{"id", "same": bool, "authors": [a1, a2]}`` in file order
        (:class:`~mteb_contrastive.data.errors.LineRows`: their line numbers kept).

    Raises:
        DataError: bad JSON, missing id, ``same`` not a boolean (or 0/1), duplicate id, empty file.
    """
    rows, seen = LineRows(), {}
    for n, obj in iter_jsonl(path):
        pid = _str_id(obj, path, n)
        if pid in seen:
            raise DataError(path, f"duplicate id {pid!r} (first at line {seen[pid]})", line=n, field="id")
        seen[pid] = n
        same = obj.get("same")
        if isinstance(same, bool):
            pass
        elif isinstance(same, int) and same in (0, 1):
            same = bool(same)
        else:
            raise DataError(path, f"must be true or false, got {same!r}", line=n, field="same")
        authors = obj.get("authors", [])
        if not isinstance(authors, list):
            raise DataError(path, "must be a list", line=n, field="authors")
        rows.append({"id": pid, "same": same, "authors": [nfc(str(a)) for a in authors]})
        rows.lines.append(n)
    if not rows:
        raise DataError(path, "no truth rows")
    return rows


def read_answers(path: str | os.PathLike) -> dict[str, float]:
    """Read a PAN answers file into ``{id: value}``.

    A value may be a number (int or float) or, as some PAN 2020 submissions wrote, a one-element
    list (the organisers' ``collect.ipynb`` took its first element).

    Raises:
        DataError: bad JSON, missing id or value, a value that is not a number, NaN, or outside
            [0, 1], duplicate id.
    """
    out: dict[str, float] = {}
    rows: dict[str, int] = {}
    for n, obj in iter_jsonl(path):
        pid = _str_id(obj, path, n)
        if pid in rows:
            raise DataError(path, f"duplicate id {pid!r} (first at line {rows[pid]})", line=n, field="id")
        rows[pid] = n
        if "value" not in obj:
            raise DataError(path, "missing field", line=n, field="value")
        v = obj["value"]
        if isinstance(v, list) and len(v) == 1:
            v = v[0]
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise DataError(path, f"must be a number in [0, 1], got {v!r}", line=n, field="value")
        v = float(v)
        if math.isnan(v) or not 0.0 <= v <= 1.0:
            raise DataError(path, f"must be in [0, 1], got {v!r}", line=n, field="value")
        out[pid] = v
    return out


def check_aligned(
    pairs: list[dict[str, Any]], truth: list[dict[str, Any]], pairs_source: object, truth_source: object
) -> None:
    """Pairs and truth must hold the same ids in the same number.

    Raises:
        DataError: the counts differ, or an id of one file is missing from the other (names the
            first such id, its file and line: rows read by :func:`read_pairs` / :func:`read_truth`
            keep their line numbers).
    """
    if len(pairs) != len(truth):
        raise DataError(truth_source, f"{len(truth)} truth rows but {len(pairs)} pairs in {pairs_source}")
    truth_ids = {r["id"] for r in truth}
    for i, r in enumerate(pairs):
        if r["id"] not in truth_ids:
            raise DataError(
                pairs_source, f"id {r['id']!r} has no truth row in {truth_source}", **position(pairs, i), field="id"
            )
    pair_ids = {r["id"] for r in pairs}
    for i, r in enumerate(truth):
        if r["id"] not in pair_ids:
            raise DataError(
                truth_source, f"id {r['id']!r} has no pair in {pairs_source}", **position(truth, i), field="id"
            )


def read_pairs_with_truth(pairs_path: str | os.PathLike, truth_path: str | os.PathLike) -> list[dict[str, Any]]:
    """Pairs joined with their truth by id, in pairs-file order.

    Returns:
        rows ``{"id", "fandoms", "pair", "same", "authors"}`` (:class:`~mteb_contrastive.data.errors.LineRows`
        with each row's line in the pairs file).

    Raises:
        DataError: any error of :func:`read_pairs`, :func:`read_truth`, :func:`check_aligned`.
    """
    pairs = read_pairs(pairs_path)
    truth = read_truth(truth_path)
    check_aligned(pairs, truth, pairs_path, truth_path)
    by_id = {r["id"]: r for r in truth}
    return LineRows(
        ({**p, "same": by_id[p["id"]]["same"], "authors": by_id[p["id"]]["authors"]} for p in pairs), pairs.lines
    )


def align_answers(
    truth: list[dict[str, Any]], answers: dict[str, float], answers_source: object = "answers"
) -> tuple[list[int], list[float]]:
    """(labels, values) in truth order; a truth id without an answer gets 0.5 (PAN evaluator rule).

    Raises:
        DataError: an answered id that is not in the truth file.
    """
    ids = {r["id"] for r in truth}
    extra = [k for k in answers if k not in ids]
    if extra:
        raise DataError(
            answers_source, f"{len(extra)} answered ids are not in the truth file, e.g. {extra[0]!r}", field="id"
        )
    return [int(r["same"]) for r in truth], [answers.get(r["id"], 0.5) for r in truth]


def load_split(folder: str | os.PathLike, split: str) -> list[dict[str, Any]]:
    """Rows of ``<folder>/<split>/pairs.jsonl`` joined with ``<folder>/<split>/truth.jsonl``.

    Raises:
        FileNotFoundError: a file is missing (names it).
        DataError: bad content (see :func:`read_pairs_with_truth`).
    """
    base = Path(folder) / split
    pairs, truth = base / "pairs.jsonl", base / "truth.jsonl"
    for f in (pairs, truth):
        if not f.is_file():
            raise FileNotFoundError(
                f"{f}: missing (a PAN-format folder holds <split>/pairs.jsonl and <split>/truth.jsonl)"
            )
    return read_pairs_with_truth(pairs, truth)


def answers_jsonl(ids: list[str], values: list[float]) -> str:
    """The text of a PAN answers file (one ``{"id", "value"}`` per line)."""
    if len(ids) != len(values):
        raise ValueError(f"{len(ids)} ids but {len(values)} values")
    lines = []
    for pid, v in zip(ids, values):
        v = float(v)
        if math.isnan(v) or not 0.0 <= v <= 1.0:
            raise ValueError(f"answer for {pid!r} is {v!r}, not in [0, 1]")
        lines.append(json.dumps({"id": pid, "value": v}))
    return "\n".join(lines) + "\n"


def write_answers(path: str | os.PathLike, ids: list[str], values: list[float]) -> Path:
    """Write a PAN answers file atomically (it appears whole or not at all)."""
    path = Path(path)
    write_text_atomic(path, answers_jsonl(ids, values))
    return path


def write_pairs_and_truth(folder: str | os.PathLike, rows: list[dict[str, Any]]) -> None:
    """Write ``pairs.jsonl`` and ``truth.jsonl`` for rows ``{"id", "fandoms", "pair", "same", "authors"}``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    pairs = "".join(
        json.dumps({"id": r["id"], "fandoms": r["fandoms"], "pair": r["pair"]}, ensure_ascii=False) + "\n" for r in rows
    )
    truth = "".join(
        json.dumps({"id": r["id"], "same": bool(r["same"]), "authors": r["authors"]}, ensure_ascii=False) + "\n"
        for r in rows
    )
    write_text_atomic(folder / "pairs.jsonl", pairs)
    write_text_atomic(folder / "truth.jsonl", truth)
