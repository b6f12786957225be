"""Identity: one text normaliser for every identity comparison, one content fingerprint.

Two rules hold everywhere in the project:

* **Identity comparisons are made on NFC text.** An author ``"José Müller"`` typed in NFC and in
  NFD is one author; two spans that differ only by Unicode normal form are one text. Use
  :func:`nfc` (or :func:`nfc_key` for collections) wherever names, ids or texts are compared,
  grouped or merged. The texts themselves are encoded as they are.
* **A revision is a content fingerprint.** A dataset, model or baseline revision changes exactly
  when its content changes: use :func:`fingerprint` over the content (texts, parameters, file
  bytes), never over sizes, paths or constants.
"""

from __future__ import annotations

import hashlib
import json
import os
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def nfc(text: str) -> str:
    """``text`` in Unicode normal form C (canonical composition); the form of every identity comparison."""
    return unicodedata.normalize("NFC", text)


def nfc_key(values: Iterable[Any]) -> frozenset[str]:
    """A set identity (e.g. an author set) as a frozenset of NFC strings; ``str()`` is applied first."""
    return frozenset(nfc(str(v)) for v in values)


def _canonical(obj: Any) -> Any:
    if isinstance(obj, str):
        return nfc(obj)
    if isinstance(obj, dict):
        return {str(k): _canonical(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_canonical(v) for v in obj]
    if isinstance(obj, (set, frozenset)):
        return sorted((_canonical(v) for v in obj), key=lambda v: json.dumps(v, sort_keys=True, default=str))
    if isinstance(obj, Path):
        return str(obj)
    return obj


def fingerprint(*parts: Any, length: int = 16) -> str:
    """Hex SHA-256 prefix of the canonical JSON of ``parts`` (strings NFC, dict keys sorted, sets sorted).

    Equal content gives an equal fingerprint whatever the dict or set order; any change of a text,
    number or parameter changes it.

    Args:
        parts: JSON-like values (str, numbers, bool, None, lists, tuples, dicts, sets, Paths).
        length: number of hex characters returned (1..64).
    """
    blob = json.dumps(_canonical(list(parts)), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:length]


def file_fingerprint(paths: Iterable[str | os.PathLike], *, root: str | os.PathLike | None = None, length: int = 16) -> str:
    """Fingerprint of the bytes of ``paths`` (and their names relative to ``root``), in sorted order.

    Raises:
        FileNotFoundError: a path does not exist.
    """
    h = hashlib.sha256()
    for p in sorted(Path(p) for p in paths):
        name = str(p.relative_to(root)) if root is not None else p.name
        h.update(name.encode("utf-8") + b"\0")
        with open(p, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        h.update(b"\0")
    return h.hexdigest()[:length]


def folder_fingerprint(folder: str | os.PathLike, *, patterns: tuple[str, ...] = ("**/*",), exclude_hidden: bool = True, length: int = 16) -> str:
    """Fingerprint of every file under ``folder`` matching ``patterns`` (names and bytes).

    Hidden files and folders (a leading ``.``) are skipped by default, so temporaries and caches
    inside the folder do not change it.

    Raises:
        FileNotFoundError: ``folder`` is not a folder.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: not a folder")
    files = set()
    for pat in patterns:
        for p in folder.glob(pat):
            rel = p.relative_to(folder)
            if p.is_file() and not (exclude_hidden and any(part.startswith(".") for part in rel.parts)):
                files.add(p)
    return file_fingerprint(files, root=folder, length=length)
