"""Beyond one machine: embeddings encoded in shards (Ray Data or any worker), written as ``.npy``
files to shared storage, and an index built from them without concatenating them.

Layout of a shard folder (``docs/scale-out.md``)::

    <dir>/shard-<first row, 12 digits>.npy        float32 (n, dim) embeddings
    <dir>/shard-<first row, 12 digits>.ids.json   {"ids": [n ids], "rows": [n row numbers], "model": ..., "prompt": ...}

Each shard is written atomically (a temporary name, then ``os.replace``; the ids file last, so a
shard without its ids file is incomplete and rejected). :func:`read_shards` memory-maps the arrays
(read-only) and checks the set: no row twice, no gap, one dimension, one model;
:func:`index_from_shards` adds each shard to a :class:`FaissIndexBackend` as it is (the exact
backend keeps references, never copies).

:func:`encode_with_ray` runs the encoder over a corpus with Ray Data: ``map_batches`` with
:class:`ShardEncoder` (one model per actor, ``concurrency`` actors, one shard per batch), each
actor writing its shards itself, the driver collecting only the manifest. On one machine
``ray.init(num_cpus=...)`` gives a local cluster; across machines, ``ray.init(address="auto")``
and a shared ``out_dir`` (NFS, a bucket mount).

:class:`ShardedIndexSearch` is an mteb ``SearchProtocol``: ``index`` reads the corpus embeddings
from a shard folder (checked against the corpus ids) instead of encoding; ``search`` encodes the
queries with the model and searches exactly as :class:`FaissSearchEncoderWrapper`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from mteb_contrastive.data.atomic import atomic_file, write_text_atomic
from mteb_contrastive.search.faiss_backend import FaissIndexBackend, FaissSearchEncoderWrapper
from mteb_contrastive.search.loaders import column_list

_SHARD = re.compile(r"^shard-(\d{12})\.npy$")


class ShardError(ValueError):
    """A shard folder that does not hold one complete, consistent set of embeddings."""


def write_shard(
    out_dir: str | Path,
    first_row: int,
    ids: list[str],
    rows: list[int],
    embeddings: Any,
    *,
    model: str = "",
    prompt: str | None = None,
) -> Path:
    """Write one shard atomically; returns the ``.npy`` path.

    Raises:
        ShardError: ``len(ids)``, ``len(rows)`` and the number of embedding rows differ.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    emb = np.ascontiguousarray(np.asarray(embeddings, dtype=np.float32))
    if not (emb.ndim == 2 and emb.shape[0] == len(ids) == len(rows)):
        raise ShardError(f"shard at row {first_row}: {emb.shape} embeddings, {len(ids)} ids, {len(rows)} rows")
    stem = out / f"shard-{int(first_row):012d}"
    with atomic_file(stem.with_suffix(".npy")) as tmp, open(tmp, "wb") as fh:
        np.save(fh, emb)
    write_text_atomic(
        stem.with_suffix(".ids.json"),
        json.dumps({"ids": [str(i) for i in ids], "rows": [int(r) for r in rows], "model": model, "prompt": prompt}),
    )
    return stem.with_suffix(".npy")


def read_shards(shard_dir: str | Path) -> list[tuple[list[str], np.ndarray]]:
    """The shards of a folder in row order: [(ids, read-only memory-mapped (n, dim) float32)].

    Raises:
        ShardError: no shard; a shard without its ids file (incomplete write); ids/rows/array
            lengths differ; a row in two shards or a gap in rows 0..N-1; different dimensions or
            models across shards. The message names the shard file.
    """
    d = Path(shard_dir)
    files = sorted(p for p in d.glob("shard-*.npy") if _SHARD.match(p.name)) if d.is_dir() else []
    if not files:
        raise ShardError(f"{d}: no shard-<row>.npy files; write them with encode_with_ray() or write_shard()")
    out, seen, dim, model = [], 0, None, None
    all_rows: list[np.ndarray] = []
    for f in files:
        meta_path = f.with_name(f.name[: -len(".npy")] + ".ids.json")
        if not meta_path.is_file():
            raise ShardError(
                f"{f}: its ids file {meta_path.name} is missing (an interrupted write); re-encode that shard"
            )
        meta = json.loads(meta_path.read_text())
        emb = np.load(f, mmap_mode="r")
        if emb.ndim != 2 or emb.shape[0] != len(meta["ids"]) or len(meta["rows"]) != len(meta["ids"]):
            raise ShardError(f"{f}: {emb.shape} embeddings but {len(meta['ids'])} ids and {len(meta['rows'])} rows")
        if dim is not None and emb.shape[1] != dim:
            raise ShardError(f"{f}: dimension {emb.shape[1]}, other shards have {dim}")
        if model is not None and meta.get("model") != model:
            raise ShardError(f"{f}: encoded by {meta.get('model')!r}, other shards by {model!r}")
        dim, model = emb.shape[1], meta.get("model")
        all_rows.append(np.asarray(meta["rows"], dtype=np.int64))
        out.append((meta["ids"], emb))
        seen += emb.shape[0]
    rows = np.concatenate(all_rows)
    if not np.array_equal(np.sort(rows), np.arange(seen)):
        counts = np.bincount(rows, minlength=seen)
        bad = int(np.argmax(counts != 1))
        raise ShardError(
            f"{d}: row {bad} appears {counts[bad]} times across shards (each of rows 0..{seen - 1} must appear once)"
        )
    return out


def index_from_shards(shard_dir: str | Path, backend: FaissIndexBackend) -> FaissIndexBackend:
    """Add every shard of ``shard_dir`` (row order) to ``backend``; the arrays stay memory-mapped."""
    for ids, emb in read_shards(shard_dir):
        backend.add_documents(emb, ids)
    return backend


class ShardEncoder:
    """Ray Data ``map_batches`` callable: encodes one batch with a sentence-transformers model and
    writes it as one shard (:func:`write_shard`); returns the manifest row.

    Args:
        model: a sentence-transformers model name or path (loaded once per actor).
        out_dir: the shared folder shards are written to.
        prompt: text prepended by sentence-transformers (the model's query/document prompt), or None.
        batch_size: texts per forward pass; ``device``: torch device of this actor.
    """

    def __init__(
        self, model: str, out_dir: str, prompt: str | None = None, batch_size: int = 32, device: str = "cpu"
    ) -> None:
        from sentence_transformers import SentenceTransformer

        self.name, self.out_dir, self.prompt, self.batch_size = model, out_dir, prompt, batch_size
        self.model = SentenceTransformer(model, device=device)

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        texts = [str(t) for t in batch["text"]]
        emb = self.model.encode(
            texts, batch_size=self.batch_size, prompt=self.prompt, convert_to_numpy=True, show_progress_bar=False
        )
        rows = [int(r) for r in batch["row"]]
        path = write_shard(
            self.out_dir, min(rows), [str(i) for i in batch["id"]], rows, emb, model=self.name, prompt=self.prompt
        )
        return {"shard": np.asarray([path.name]), "first_row": np.asarray([min(rows)]), "n": np.asarray([len(rows)])}


def encode_with_ray(
    ids: list[str],
    texts: list[str],
    model: str,
    out_dir: str | Path,
    *,
    rows_per_shard: int = 1024,
    concurrency: int = 1,
    batch_size: int = 32,
    prompt: str | None = None,
    device: str = "cpu",
) -> list[dict[str, Any]]:
    """Encode ``texts`` (ids ``ids``) with Ray Data into shards under ``out_dir``; returns the manifest.

    Ray must be initialised by the caller (``ray.init(num_cpus=2)`` locally, ``ray.init(address=...)``
    on a cluster). A corpus too large for the driver's memory should be read by Ray itself
    (``ray.data.read_parquet``) and passed through ``map_batches(ShardEncoder, ...)`` the same way.

    Raises:
        ValueError: ``ids`` and ``texts`` differ in length, or ids repeat.
    """
    import ray

    if len(ids) != len(texts):
        raise ValueError(f"{len(ids)} ids but {len(texts)} texts")
    if len(set(ids)) != len(ids):
        raise ValueError("ids must be unique (one embedding per corpus id)")
    ds = ray.data.from_items([{"row": i, "id": str(d), "text": t} for i, (d, t) in enumerate(zip(ids, texts))])
    manifest = ds.map_batches(
        ShardEncoder,
        fn_constructor_kwargs={
            "model": model,
            "out_dir": str(out_dir),
            "prompt": prompt,
            "batch_size": batch_size,
            "device": device,
        },
        batch_size=rows_per_shard,
        batch_format="numpy",
        concurrency=concurrency,
    ).take_all()
    return sorted(
        ({"shard": str(m["shard"]), "first_row": int(m["first_row"]), "n": int(m["n"])} for m in manifest),
        key=lambda m: m["first_row"],
    )


class ShardedIndexSearch(FaissSearchEncoderWrapper):
    """mteb ``SearchProtocol`` whose corpus embeddings come from a shard folder (not encoded here).

    Args:
        model: the mteb encoder that encodes the queries (the same model the shards were made with).
        shard_dir: folder written by :func:`encode_with_ray` / :func:`write_shard`.
        **kwargs: as :class:`FaissSearchEncoderWrapper` (``ignore_identical_ids``, ``index``, ...).

    Raises (at ``index``):
        ShardError: the shards' ids are not exactly the corpus ids.
    """

    def __init__(self, model: Any, shard_dir: str | Path, **kwargs: Any) -> None:
        super().__init__(model, **kwargs)
        self.shard_dir = Path(shard_dir)

    def index(
        self,
        corpus: Any,
        *,
        task_metadata: Any = None,
        hf_split: str = "",
        hf_subset: str = "",
        encode_kwargs: Any = None,
        num_proc: int | None = None,
        **kwargs: Any,
    ) -> None:  # noqa: D102
        self.task_corpus = corpus
        self.index_backend.clear()
        index_from_shards(self.shard_dir, self.index_backend)
        want, have = set(column_list(corpus, "id")), set(self.index_backend.idxs)
        if want != have:
            missing, extra = sorted(want - have)[:3], sorted(have - want)[:3]
            raise ShardError(
                f"{self.shard_dir}: shard ids differ from the corpus ids (missing e.g. {missing}, "
                f"extra e.g. {extra}); re-encode the corpus"
            )
