"""FAISS index backend for mteb's retrieval evaluation (its ``index_backend`` hook).

:class:`FaissIndexBackend` implements mteb's ``IndexEncoderSearchProtocol``;
:class:`FaissSearchEncoderWrapper` is mteb's ``SearchEncoderWrapper`` with that backend and with
result collection that reads corpus ids from a plain list. (mteb 2.26's shipped path looks every
hit's id up one by one in a lazy ``datasets`` column: 33.8 s vs 3.9 s for mteb's default exact
search on 14,336 x 28,672; ``scripts/bench_faiss_search.py`` measures ours beside the default.)

Similarity: the model's mteb metadata ``similarity_fn_name``; cosine when it names none (the
sentence-transformers default). Cosine = inner product on L2-normalised float32 vectors;
dot product = inner product; euclidean = L2 index, scores returned as ``-distance`` so that
higher is better. Memory is O(pool x dim) float32; no pool x pool matrix is formed.

Index kinds: ``"flat"`` (exact, default), ``"hnsw"`` (``IndexHNSWFlat``, M, efSearch) and
``"ivf"`` (``IndexIVFFlat``, nlist, nprobe), the approximate ones for pools far larger than
HALvest's.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
from mteb.models.search_wrappers import SearchEncoderWrapper

logger = logging.getLogger(__name__)

INDEX_KINDS = ("flat", "hnsw", "ivf")


def _to_float32(x: Any) -> np.ndarray:
    if hasattr(x, "detach"):
        x = x.detach().cpu().numpy()
    return np.ascontiguousarray(np.asarray(x, dtype=np.float32))


def similarity_of(model: Any) -> str:
    """The model's similarity function name ("cosine", "dot" or "euclidean"); cosine if unset.

    Raises:
        ValueError: a similarity FAISS cannot serve exactly (e.g. manhattan, max_sim).
    """
    meta = getattr(model, "mteb_model_meta", None)
    sim = getattr(meta, "similarity_fn_name", None)
    name = getattr(sim, "value", sim) or "cosine"
    if name not in ("cosine", "dot", "euclidean"):
        raise ValueError(f"FAISS backend supports cosine, dot and euclidean similarity, not {name!r}")
    return name


class FaissIndexBackend:
    """mteb ``IndexEncoderSearchProtocol`` over a FAISS index.

    Args:
        model: the encoder (its metadata gives the similarity); or None with ``similarity``.
        similarity: override: "cosine", "dot" or "euclidean".
        index: "flat" (exact), "hnsw" or "ivf".
        hnsw_m: HNSW graph degree M. ``ef_search``: HNSW search breadth (>= top_k is used).
        nlist: IVF cells (default ~4*sqrt(pool)). ``nprobe``: IVF cells visited per query.

    Raises:
        ValueError: unknown index kind or unsupported similarity.
    """

    def __init__(self, model: Any = None, *, similarity: str | None = None, index: str = "flat", hnsw_m: int = 32, ef_search: int = 128, nlist: int | None = None, nprobe: int = 16) -> None:
        if index not in INDEX_KINDS:
            raise ValueError(f"unknown FAISS index kind {index!r}; choose one of {INDEX_KINDS}")
        self.similarity = similarity or similarity_of(model)
        if self.similarity not in ("cosine", "dot", "euclidean"):
            raise ValueError(f"unsupported similarity {self.similarity!r}")
        self.kind, self.hnsw_m, self.ef_search, self.nlist, self.nprobe = index, hnsw_m, ef_search, nlist, nprobe
        self.index: Any = None
        self.idxs: list[str] = []

    def _metric(self) -> int:
        import faiss

        return faiss.METRIC_L2 if self.similarity == "euclidean" else faiss.METRIC_INNER_PRODUCT

    def _prepare(self, x: Any) -> np.ndarray:
        import faiss

        x = _to_float32(x)
        if self.similarity == "cosine":
            faiss.normalize_L2(x)
        return x

    def add_documents(self, embeddings: Any, idxs: list[str]) -> None:
        """Index ``embeddings`` (shape (n, dim)) under ids ``idxs`` (len n)."""
        import faiss

        x = self._prepare(embeddings)
        ids = list(idxs)
        if x.shape[0] != len(ids):
            raise ValueError(f"{x.shape[0]} embeddings but {len(ids)} ids")
        d = x.shape[1]
        if self.index is None:
            if self.kind == "flat":
                self.index = faiss.IndexFlat(d, self._metric())
            elif self.kind == "hnsw":
                self.index = faiss.IndexHNSWFlat(d, self.hnsw_m, self._metric())
            else:
                nlist = self.nlist or max(1, int(4 * np.sqrt(x.shape[0])))
                quantizer = faiss.IndexFlat(d, self._metric())
                self.index = faiss.IndexIVFFlat(quantizer, d, min(nlist, x.shape[0]), self._metric())
                self.index.train(x)
                self.index.make_direct_map()
                self._quantizer = quantizer
        self.index.add(x)
        self.idxs.extend(ids)

    def _scores(self, raw: np.ndarray) -> np.ndarray:
        if self.similarity == "euclidean":
            return -np.sqrt(np.maximum(raw, 0))
        return raw

    def search(self, embeddings: Any, top_k: int, similarity_fn: Any = None, top_ranked: dict[str, list[str]] | None = None, query_idx_to_id: dict[int, str] | None = None) -> tuple[list[list[float]], list[list[int]]]:
        """Top-``top_k`` (scores, positions) per query, best first.

        In reranking mode (``top_ranked`` given) positions index each query's candidate list.
        """
        if self.index is None:
            raise ValueError("no documents indexed: call add_documents() first")
        q = self._prepare(embeddings)
        if top_ranked is not None:
            return self._rerank(q, top_k, top_ranked, query_idx_to_id or {})
        k = min(top_k, self.index.ntotal)
        if self.kind == "hnsw":
            self.index.hnsw.efSearch = max(self.ef_search, k)
        elif self.kind == "ivf":
            self.index.nprobe = self.nprobe
        raw, ids = self.index.search(q, k)
        scores = self._scores(raw)
        out_s, out_i = [], []
        for s_row, i_row in zip(scores, ids):
            keep = i_row >= 0  # approximate indexes may return fewer than k hits
            out_s.append(s_row[keep].tolist())
            out_i.append(i_row[keep].tolist())
        return out_s, out_i

    def _rerank(self, q: np.ndarray, top_k: int, top_ranked: dict[str, list[str]], query_idx_to_id: dict[int, str]) -> tuple[list[list[float]], list[list[int]]]:
        pos = {doc_id: i for i, doc_id in enumerate(self.idxs)}
        out_s, out_i = [], []
        for qi in range(q.shape[0]):
            cands = top_ranked.get(query_idx_to_id[qi], [])
            if not cands:
                out_s.append([])
                out_i.append([])
                continue
            vecs = self.index.reconstruct_batch(np.asarray([pos[c] for c in cands], dtype=np.int64))
            if self.similarity == "euclidean":
                raw = ((vecs - q[qi]) ** 2).sum(1)
            else:
                raw = vecs @ q[qi]
            s = self._scores(raw)
            order = np.argsort(-s, kind="stable")[:top_k]
            out_s.append(s[order].tolist())
            out_i.append(order.tolist())
        return out_s, out_i

    def clear(self) -> None:
        """Drop the index and ids."""
        self.index = None
        self.idxs = []


class FaissSearchEncoderWrapper(SearchEncoderWrapper):
    """mteb's ``SearchEncoderWrapper`` with a :class:`FaissIndexBackend`.

    Full-corpus results are read from the backend's plain id list: FAISS returns each query's
    hits already sorted, so they are stored as they come instead of being pushed one by one
    through a heap keyed on a lazy ``datasets`` column (mteb 2.26's slow path).

    Args:
        model: an mteb encoder.
        **backend_kwargs: passed to :class:`FaissIndexBackend` (``index="hnsw"``, ...).
    """

    def __init__(self, model: Any, corpus_chunk_size: int = 50_000, index_backend: Any = None, **backend_kwargs: Any) -> None:
        super().__init__(model, corpus_chunk_size=corpus_chunk_size, index_backend=index_backend or FaissIndexBackend(model, **backend_kwargs))

    def _sort_full_corpus_results(self, *, result_heaps, query_idx_to_id, query_embeddings, cos_scores_top_k_idx, cos_scores_top_k_values, sub_corpus_ids, top_k):  # noqa: D102
        ids = self.index_backend.idxs
        for qi in range(len(cos_scores_top_k_idx)):
            result_heaps[query_idx_to_id[qi]] = [
                (s, ids[i]) for i, s in zip(cos_scores_top_k_idx[qi][:top_k], cos_scores_top_k_values[qi][:top_k])
            ]
        return result_heaps
