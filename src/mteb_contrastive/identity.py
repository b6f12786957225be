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

from mteb_contrastive.config import cache_root


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


def file_fingerprint(
    paths: Iterable[str | os.PathLike], *, root: str | os.PathLike | None = None, length: int = 16
) -> str:
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


def folder_fingerprint(
    folder: str | os.PathLike, *, patterns: tuple[str, ...] = ("**/*",), exclude_hidden: bool = True, length: int = 16
) -> str:
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


# --- revisions of folders on disk (models, PAN folders, local copies) --------------------------

#: file patterns that make a sentence-transformers / transformers model: weights, configs, tokenizer.
MODEL_FILE_PATTERNS = (
    "**/*.json",
    "**/*.safetensors",
    "**/*.bin",
    "**/*.pt",
    "**/*.pth",
    "**/*.model",
    "**/*.txt",
    "**/*.onnx",
)


def _digest_cache_file() -> Path:
    return cache_root() / "file_digests.json"


_memo: dict[str, str] = {}


def file_digest(path: str | os.PathLike) -> str:
    """Full SHA-256 of the bytes of ``path``, remembered by (absolute path, size, mtime).

    The digest of a large file (model weights, a PAN folder) is computed once and kept in
    ``$MTEB_CONTRASTIVE_CACHE/file_digests.json`` (default ``~/.cache/mteb_contrastive``); a file
    whose size or modification time changes is hashed again. (A rewrite that keeps both the size
    and the nanosecond mtime would go unseen, as with ``make``.)

    Raises:
        FileNotFoundError: ``path`` does not exist.
    """
    p = Path(path).resolve()
    st = p.stat()
    key = f"{p}|{st.st_size}|{st.st_mtime_ns}"
    if key in _memo:
        return _memo[key]
    cache_file = _digest_cache_file()
    try:
        disk = json.loads(cache_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        disk = {}
    if key not in disk:
        h = hashlib.sha256()
        with open(p, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        disk = {k: v for k, v in disk.items() if os.path.exists(k.rsplit("|", 2)[0])}  # forget deleted files
        disk[key] = h.hexdigest()
        try:  # best effort: a read-only home only costs re-hashing
            cache_file.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache_file.with_name(f".{cache_file.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps(disk), encoding="utf-8")
            os.replace(tmp, cache_file)
        except OSError:
            pass
    _memo[key] = disk[key]
    return disk[key]


def folder_revision(folder: str | os.PathLike, *, patterns: tuple[str, ...] = ("**/*",), length: int = 12) -> str:
    """Content revision of a folder: fingerprint of (relative name, SHA-256 of bytes) of every file
    matching ``patterns`` (hidden files and folders skipped), with :func:`file_digest`'s cache.

    Equal to itself wherever the folder is copied (names are relative); changes when a file's
    bytes change, or a file is added, removed or renamed.

    Raises:
        FileNotFoundError: ``folder`` is not a folder.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: not a folder")
    files = {}
    for pat in patterns:
        for p in folder.glob(pat):
            rel = p.relative_to(folder)
            if p.is_file() and not any(part.startswith(".") for part in rel.parts):
                files[rel.as_posix()] = p
    return fingerprint(sorted((name, file_digest(p)) for name, p in files.items()), length=length)


def model_folder_revision(folder: str | os.PathLike) -> str:
    """``local-<fingerprint>`` of a model folder's weights, configs and tokenizer files.

    Files: :data:`MODEL_FILE_PATTERNS` (``*.json``, ``*.safetensors``, ``*.bin``, ``*.pt``,
    ``*.txt``, ...), at any depth, hidden files excluded; a README does not count. Equal for two
    copies of the same model in different places; changes when a weight or a config changes.

    Raises:
        FileNotFoundError: ``folder`` is not a folder.
    """
    return "local-" + folder_revision(folder, patterns=MODEL_FILE_PATTERNS)
