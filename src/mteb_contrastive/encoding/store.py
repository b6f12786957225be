"""Embedding stores for mteb's ``CachedEmbeddingWrapper`` (its ``CacheBackendProtocol``).

mteb ships ``NumpyCache`` (a memory-mapped ``vectors.npy`` + ``index.json`` rewritten on every
save): two processes that add to one folder each append at the same row numbers and the last
``index.json`` written wins, and a run killed between the two writes leaves an index that points
at rows never written. Both faults are ruled out here by SQLite:

* :class:`SqliteEmbeddingStore` -- one SQLite database ``embeddings.sqlite3`` in the cache folder,
  one row per (namespace, SHA-256 of the text) with the float32 vector as a blob. Write-ahead
  log, a 10-minute busy timeout and ``INSERT OR IGNORE``: concurrent writers serialise on the
  database lock, the first vector stored for a key wins (equal keys mean equal model, settings
  and text, so equal vectors up to run-to-run float noise), a reader never sees half a batch,
  and a killed process loses at most its open transaction (SQLite's atomic commit).
* :class:`MemoryEmbeddingStore` -- the same interface in a dict (the cache switched off: texts
  are still encoded once per model object, e.g. a text that is both a query and a candidate).

A namespace is the fingerprint of everything but the text that decides a vector (model identity,
settings, prompt; :func:`mteb_contrastive.encoding.wrapper.cache_namespace`); its description is
kept in the ``namespaces`` table for inspection.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

import numpy as np

DB_NAME = "embeddings.sqlite3"
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS vectors (namespace TEXT NOT NULL, text_sha256 TEXT NOT NULL, "
    "dim INTEGER NOT NULL, vec BLOB NOT NULL, PRIMARY KEY (namespace, text_sha256)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS namespaces (namespace TEXT PRIMARY KEY, description TEXT NOT NULL)",
)


def text_key(item: dict[str, Any] | str) -> str:
    """SHA-256 hex of the item's text (UTF-8, exactly as encoded: no normalisation).

    Raises:
        TypeError: the item has no ``text`` (image/audio items are not cached here).
    """
    text = item if isinstance(item, str) else item.get("text")
    if not isinstance(text, str):
        raise TypeError("the embedding store caches text items only (an item without a 'text' string)")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class MemoryEmbeddingStore:
    """In-memory store with ``CacheBackendProtocol``'s interface (nothing is written to disk)."""

    def __init__(
        self,
        directory: str | Path | None = None,
        namespace: str = "",
        description: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self.namespace = namespace
        self._vectors: dict[str, np.ndarray] = {}

    def add(self, item: list[dict[str, Any]], vectors: Any) -> None:
        """Store ``vectors`` (shape (len(item), dim)) for the items' texts."""
        for it, v in zip(item, np.asarray(vectors, dtype=np.float32), strict=True):
            self._vectors.setdefault(text_key(it), np.array(v, dtype=np.float32))

    def get_vector(self, item: dict[str, Any]) -> np.ndarray | None:
        """The stored float32 vector of the item's text, or None."""
        return self._vectors.get(text_key(item))

    def __contains__(self, item: dict[str, Any]) -> bool:
        return text_key(item) in self._vectors

    def __len__(self) -> int:
        return len(self._vectors)

    def save(self) -> None:
        """Nothing to persist."""

    def load(self) -> None:
        """Nothing to load."""

    def close(self) -> None:
        """Nothing to release."""


class SqliteEmbeddingStore:
    """Concurrency- and kill-safe disk store of one namespace (see the module docstring).

    Args:
        directory: cache folder (created); the database is ``directory/embeddings.sqlite3``.
        namespace: key prefix of this model/settings/prompt.
        description: JSON-serialisable description of the namespace (stored once).
        timeout: seconds a writer waits for another process's lock.

    Raises:
        sqlite3.DatabaseError: the file exists but is not a SQLite database.
    """

    def __init__(
        self,
        directory: str | Path,
        namespace: str = "",
        description: dict[str, Any] | None = None,
        timeout: float = 600.0,
        **kwargs: Any,
    ) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / DB_NAME
        self.namespace = namespace
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, timeout=timeout, isolation_level=None, check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                for stmt in _SCHEMA:
                    self._conn.execute(stmt)
                self._conn.execute(
                    "INSERT OR IGNORE INTO namespaces VALUES (?, ?)",
                    (namespace, json.dumps(description or {}, sort_keys=True, ensure_ascii=False, default=str)),
                )
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise

    def add(self, item: list[dict[str, Any]], vectors: Any) -> None:
        """Store ``vectors`` (shape (len(item), dim), cast to float32) in one transaction."""
        arr = np.asarray(vectors, dtype=np.float32)
        if arr.ndim == 1:
            arr = arr[None, :]
        rows = [
            (self.namespace, text_key(it), int(v.shape[0]), np.ascontiguousarray(v).tobytes())
            for it, v in zip(item, arr, strict=True)
        ]
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.executemany("INSERT OR IGNORE INTO vectors VALUES (?, ?, ?, ?)", rows)
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise

    def get_vector(self, item: dict[str, Any]) -> np.ndarray | None:
        """The stored float32 vector of the item's text (shape (dim,)), or None."""
        with self._lock:
            row = self._conn.execute(
                "SELECT dim, vec FROM vectors WHERE namespace = ? AND text_sha256 = ?", (self.namespace, text_key(item))
            ).fetchone()
        if row is None:
            return None
        return np.frombuffer(row[1], dtype=np.float32, count=row[0]).copy()

    def __contains__(self, item: dict[str, Any]) -> bool:
        return self.get_vector(item) is not None

    def __len__(self) -> int:
        with self._lock:
            return int(
                self._conn.execute("SELECT COUNT(*) FROM vectors WHERE namespace = ?", (self.namespace,)).fetchone()[0]
            )

    def save(self) -> None:
        """Every :meth:`add` is already committed."""

    def load(self) -> None:
        """Rows are read on demand."""

    def close(self) -> None:
        """Close the connection (idempotent)."""
        conn = getattr(self, "_conn", None)
        if conn is not None:
            conn.close()
            self._conn = None  # type: ignore[assignment]

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass
