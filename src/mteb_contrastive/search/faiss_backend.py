"""The search backend for mteb's retrieval: exact search at the matrix-product limit, FAISS for
approximate indexes, and mteb's ``SearchEncoderWrapper`` without its per-row overheads.

:class:`FaissIndexBackend` implements mteb's ``IndexEncoderSearchProtocol``
(``add_documents`` / ``search`` / ``clear``):

* ``index="flat"`` (default, exact): torch's matrix product by blocks (query rows x pool columns,
  one reused buffer), each query's k best kept in faiss's binary heaps
  (:func:`~mteb_contrastive.search.exact.exact_top_k`);
  the pool is kept as the caller's arrays (a list of blocks, e.g. memory-mapped ``.npy`` shards), never copied or
  normalised in place. Independent of the BLAS kernel faiss-cpu's bundled OpenBLAS guesses
  (issue 11: 8.6-14 s with its generic kernel vs 1.6 s for torch's matmul on 14,336 x 28,672).
* ``index="hnsw"`` (``faiss.IndexHNSWFlat``: ``hnsw_m``, ``ef_construction``, ``ef_search``) and
  ``index="ivf"`` (``faiss.IndexIVFFlat``: ``nlist``, ``nprobe``): approximate, for pools where
  they pay back their build time. ``efSearch`` / ``nprobe`` are chosen at each search from a
  measured target (``target_recall``, default recall@10 >= 0.99 against exact search on a sample
  of the queries; ``docs/benchmarks.md`` section 5). FAISS gets its own normalised copy; the
  caller's array is untouched.

Every input is checked before it reaches torch/FAISS
(:func:`~mteb_contrastive.search.exact.as_matrix`): 2-D, numeric, finite, same dimension on both
sides, no zero vector under cosine; errors (:class:`~mteb_contrastive.search.exact.EmbeddingError`)
name the first bad row.

Similarity: :func:`~mteb_contrastive.search.similarity.model_similarity` (one decision per
model, shared with the triplet and verification protocols).

:class:`FaissSearchEncoderWrapper` is mteb's ``SearchEncoderWrapper`` with this backend, mteb's
dataloaders built column-wise (:mod:`~mteb_contrastive.search.loaders`), ids read in one Arrow
call, and results assembled from the (n, k) arrays directly. With ``ignore_identical_ids`` it
searches ``top_k + 1`` candidates and drops each query's own id, so a query whose text is in the
pool is still scored on ``top_k`` other candidates (mteb's evaluator would otherwise leave it 99
at @100).
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
from mteb.models.search_wrappers import SearchEncoderWrapper

from mteb_contrastive.search.exact import EmbeddingError, as_matrix, exact_top_k, merge_top_k, pool_norms
from mteb_contrastive.search.loaders import column_list, retrieval_dataloader
from mteb_contrastive.search.similarity import SUPPORTED, model_similarity, similarity_matrix

logger = logging.getLogger(__name__)

INDEX_KINDS = ("flat", "hnsw", "ivf")

__all__ = ["INDEX_KINDS", "EmbeddingError", "FaissIndexBackend", "FaissSearchEncoderWrapper", "similarity_of"]


def similarity_of(model: Any) -> str:
    """Deprecated alias of :func:`~mteb_contrastive.search.similarity.model_similarity`."""
    return model_similarity(model)


class FaissIndexBackend:
    """mteb ``IndexEncoderSearchProtocol``: exact torch search or a FAISS approximate index.

    Args:
        model: the encoder (:func:`model_similarity` gives the similarity); or None with ``similarity``.
        similarity: override: "cosine", "dot" or "euclidean".
        index: "flat" (exact), "hnsw" or "ivf".
        hnsw_m: HNSW graph degree M; ``ef_construction``: HNSW build breadth (the defaults 32 / 40
            reach recall@10 0.99 up to ~300k candidates; at 1M only ``hnsw_m=64,
            ef_construction=200`` did, at efSearch 512: docs/benchmarks.md section 5); ``ef_search``: HNSW
            search breadth (``max(ef_search, k)`` is used).
        nlist: IVF cells (default ``4 * sqrt(pool)``); ``nprobe``: IVF cells visited per query.
        block_bytes: exact search: bound on one block of scores (bytes).
        target_recall: approximate kinds: the recall@10 against exact search that ``efSearch`` /
            ``nprobe`` are chosen for, measured on a sample of each search's queries
            (:meth:`_calibrate`); None keeps ``ef_search`` / ``nprobe`` as given.
        calibration_queries: queries in that sample.

    Raises:
        ValueError: unknown index kind or unsupported similarity.
    """

    def __init__(
        self,
        model: Any = None,
        *,
        similarity: str | None = None,
        index: str = "flat",
        hnsw_m: int = 32,
        ef_construction: int = 40,
        ef_search: int = 16,
        nlist: int | None = None,
        nprobe: int = 8,
        block_bytes: int | None = None,
        target_recall: float | None = 0.99,
        calibration_queries: int = 200,
    ) -> None:
        if index not in INDEX_KINDS:
            raise ValueError(f"unknown FAISS index kind {index!r}; choose one of {INDEX_KINDS}")
        self.similarity = similarity or model_similarity(model)
        if self.similarity not in SUPPORTED:
            raise ValueError(
                f"unsupported similarity {self.similarity!r}; the backend supports cosine, dot and euclidean"
            )
        self.kind, self.hnsw_m, self.ef_construction, self.ef_search, self.nlist, self.nprobe = (
            index,
            hnsw_m,
            ef_construction,
            ef_search,
            nlist,
            nprobe,
        )
        self.block_bytes = block_bytes
        if target_recall is not None and not 0 < target_recall <= 1:
            raise ValueError(f"target_recall must be in (0, 1] or None, got {target_recall}")
        self.target_recall, self.calibration_queries = target_recall, calibration_queries
        #: the approximate search setting chosen by the last calibration, with its measured recall@10
        self.calibration: dict[str, float] = {}
        self.index: Any = None  # FAISS index (approximate kinds)
        self.blocks: list[np.ndarray] = []  # exact: the pool, as given
        self._norms: list[Any] = []
        self.idxs: list[str] = []
        self.dim: int | None = None

    # -- indexing ----------------------------------------------------------------------------
    @property
    def ntotal(self) -> int:
        """Candidates indexed."""
        return len(self.idxs)

    def add_documents(self, embeddings: Any, idxs: Any) -> None:
        """Index ``embeddings`` (n, dim) under ids ``idxs`` (n strings; a list, a ``datasets`` column, ...).

        The array is checked (:func:`as_matrix`), never modified; the exact index keeps a
        reference to it (no copy when it is float32 and C-contiguous, e.g. a memory-mapped shard).

        Raises:
            EmbeddingError: bad shape/dtype/values, or a dimension different from earlier documents.
            ValueError: the number of ids differs from the number of rows.
        """
        x = as_matrix(embeddings, "documents", similarity=self.similarity, dim=self.dim)
        if isinstance(idxs, list):
            ids = idxs
        elif type(idxs).__name__ == "Column":  # a lazy ``datasets`` column: one slice, not row by row
            ids = list(idxs[:])
        else:
            ids = list(idxs)
        if x.shape[0] != len(ids):
            raise ValueError(f"documents: {x.shape[0]} embeddings but {len(ids)} ids")
        self.dim = x.shape[1]
        self.blocks.append(x)  # a reference (exact search; the recall calibration of approximate ones)
        self._norms.append(pool_norms(x, self.similarity))
        if self.kind != "flat":
            self._add_faiss(x)
        self.idxs.extend(ids)

    def _faiss_copy(self, x: np.ndarray) -> np.ndarray:
        import faiss

        y = np.array(x, dtype=np.float32, copy=True)  # FAISS stores its own copy anyway; never the caller's
        if self.similarity == "cosine":
            faiss.normalize_L2(y)
        return y

    def _add_faiss(self, x: np.ndarray) -> None:
        import faiss

        y = self._faiss_copy(x)
        metric = faiss.METRIC_L2 if self.similarity == "euclidean" else faiss.METRIC_INNER_PRODUCT
        if self.index is None:
            d = y.shape[1]
            if self.kind == "hnsw":
                self.index = faiss.IndexHNSWFlat(d, self.hnsw_m, metric)
                self.index.hnsw.efConstruction = self.ef_construction
            else:
                nlist = self.nlist or max(1, int(4 * np.sqrt(y.shape[0])))
                self._quantizer = faiss.IndexFlat(d, metric)
                self.index = faiss.IndexIVFFlat(self._quantizer, d, min(nlist, y.shape[0]), metric)
                self.index.train(y)
                self.index.make_direct_map()
        self.index.add(y)

    # -- search ------------------------------------------------------------------------------
    def search_arrays(self, embeddings: Any, top_k: int) -> tuple[np.ndarray, np.ndarray]:
        """Top-``top_k`` of each query (n, dim) over the pool: (scores (n, k), positions (n, k)), best first.

        ``k = min(top_k, pool)``; an approximate index may return fewer hits for a query, marked
        by position -1 (and score -inf).

        Raises:
            ValueError: nothing indexed. EmbeddingError: bad queries (see :func:`as_matrix`).
        """
        if not self.idxs:
            raise ValueError("no documents indexed: call add_documents() first")
        q = as_matrix(embeddings, "queries", similarity=self.similarity, dim=self.dim)
        k = min(int(top_k), self.ntotal)
        if self.kind == "flat":
            return self._exact(q, k)
        if self.target_recall is not None:
            self._calibrate(q)
        return self._approximate(q, k, self.ef_search if self.kind == "hnsw" else self.nprobe)

    def _exact(self, q: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        kw = {"block_bytes": self.block_bytes} if self.block_bytes else {}
        parts, offset = [], 0
        for x, norms in zip(self.blocks, self._norms):
            s, p = exact_top_k(q, x, k, similarity=self.similarity, norms=norms, **kw)
            parts.append((s, p + offset))
            offset += x.shape[0]
        return merge_top_k(parts, k)

    def _approximate(self, q: np.ndarray, k: int, setting: int) -> tuple[np.ndarray, np.ndarray]:
        if self.kind == "hnsw":
            self.index.hnsw.efSearch = max(int(setting), k)
        else:
            self.index.nprobe = int(setting)
        raw, pos = self.index.search(self._faiss_copy(q), k)
        scores = -np.sqrt(np.maximum(raw, 0)) if self.similarity == "euclidean" else raw
        return np.where(pos >= 0, scores, -np.inf).astype(np.float32), pos

    def _calibrate(self, q: np.ndarray) -> None:
        """Choose efSearch (HNSW) / nprobe (IVF) from a measured recall target.

        On a seeded sample of ``calibration_queries`` of the queries, recall@10 of the approximate
        top-10 against the exact top-10 is measured for settings doubling from the configured one
        (``ef_search`` / ``nprobe``); the first reaching ``target_recall`` is kept for the whole
        search (IVF with ``nprobe = nlist`` is exact, HNSW stops at ``efSearch = pool``). The
        choice and its recall are in :attr:`calibration`.
        """
        n = q.shape[0]
        sample = (
            q
            if n <= self.calibration_queries
            else q[np.sort(np.random.default_rng(0).choice(n, self.calibration_queries, replace=False))]
        )
        k = min(10, self.ntotal)
        _, truth = self._exact(sample, k)
        name = "efSearch" if self.kind == "hnsw" else "nprobe"
        limit = self.ntotal if self.kind == "hnsw" else self.index.nlist
        setting = max(1, self.ef_search if self.kind == "hnsw" else self.nprobe)
        while True:
            _, got = self._approximate(sample, k, setting)
            recall = float(np.mean([len(set(a) & set(b)) / k for a, b in zip(got.tolist(), truth.tolist())]))
            if recall >= self.target_recall or setting >= limit:
                break
            setting = min(2 * setting, limit)
        if recall < self.target_recall:
            logger.warning(
                "%s: recall@10 %.3f < target %.3f even at %s=%d", self.kind, recall, self.target_recall, name, setting
            )
        if self.kind == "hnsw":
            self.ef_search = setting
        else:
            self.nprobe = setting
        self.calibration = {name: float(setting), "recall_at_10": recall, "sample_queries": float(sample.shape[0])}

    def search(
        self,
        embeddings: Any,
        top_k: int,
        similarity_fn: Any = None,
        top_ranked: dict[str, list[str]] | None = None,
        query_idx_to_id: dict[int, str] | None = None,
    ) -> tuple[list[list[float]], list[list[int]]]:
        """mteb's protocol: top-``top_k`` (scores, positions) per query as lists, best first.

        In reranking mode (``top_ranked`` given) positions index each query's candidate list.
        ``similarity_fn`` is ignored: the backend's similarity is :func:`model_similarity`'s.
        """
        if top_ranked is not None:
            return self._rerank(embeddings, top_k, top_ranked, query_idx_to_id or {})
        scores, pos = self.search_arrays(embeddings, top_k)
        keep = pos >= 0
        if keep.all():
            return scores.tolist(), pos.tolist()
        return [s[m].tolist() for s, m in zip(scores, keep)], [p[m].tolist() for p, m in zip(pos, keep)]

    def vectors(self, positions: Any = None) -> np.ndarray:
        """The indexed vectors as given (not normalised): (n, dim), or the rows at ``positions``."""
        x = self.blocks[0] if len(self.blocks) == 1 else np.concatenate(self.blocks)
        return x if positions is None else x[np.asarray(positions, dtype=np.int64)]

    def _rerank(
        self, embeddings: Any, top_k: int, top_ranked: dict[str, list[str]], query_idx_to_id: dict[int, str]
    ) -> tuple[list[list[float]], list[list[int]]]:
        q = as_matrix(embeddings, "queries", similarity=self.similarity, dim=self.dim)
        pos = {doc_id: i for i, doc_id in enumerate(self.idxs)}
        out_s, out_i = [], []
        for qi in range(q.shape[0]):
            cands = top_ranked.get(query_idx_to_id[qi], [])
            if not cands:
                out_s.append([])
                out_i.append([])
                continue
            s = similarity_matrix(self.similarity, q[qi : qi + 1], self.vectors([pos[c] for c in cands]))[0].numpy()
            order = np.argsort(-s, kind="stable")[:top_k]
            out_s.append(s[order].tolist())
            out_i.append(order.tolist())
        return out_s, out_i

    def clear(self) -> None:
        """Drop the index, the pool references and the ids."""
        self.index, self.blocks, self._norms, self.idxs, self.dim = None, [], [], [], None


class FaissSearchEncoderWrapper(SearchEncoderWrapper):
    """mteb's ``SearchEncoderWrapper`` on :class:`FaissIndexBackend`, without per-row overheads.

    Same encode calls as mteb (``model.encode(dataloader, task_metadata=..., prompt_type=...,
    **encode_kwargs)``, same batches: :func:`retrieval_dataloader`), then the backend's (n, k)
    arrays become mteb's ``{query id: {candidate id: score}}`` directly.

    Args:
        model: an mteb encoder.
        ignore_identical_ids: search one more candidate and drop each query's own id from its
            hits (mteb's ``ignore_identical_ids``; each query keeps ``top_k`` other candidates).
        **backend_kwargs: passed to :class:`FaissIndexBackend` (``index="hnsw"``, ...).
    """

    def __init__(
        self,
        model: Any,
        corpus_chunk_size: int = 50_000,
        index_backend: Any = None,
        *,
        ignore_identical_ids: bool = False,
        **backend_kwargs: Any,
    ) -> None:
        super().__init__(
            model,
            corpus_chunk_size=corpus_chunk_size,
            index_backend=index_backend or FaissIndexBackend(model, **backend_kwargs),
        )
        self.ignore_identical_ids = ignore_identical_ids

    def _encode(
        self,
        dataset: Any,
        prompt_type: Any,
        task_metadata: Any,
        hf_split: str,
        hf_subset: str,
        encode_kwargs: dict[str, Any],
        num_proc: int | None,
    ) -> Any:
        loader = retrieval_dataloader(
            dataset,
            task_metadata=task_metadata,
            prompt_type=prompt_type,
            batch_size=encode_kwargs.get("batch_size", 32),
            num_proc=num_proc,
        )
        return self.model.encode(
            loader,
            task_metadata=task_metadata,
            hf_split=hf_split,
            hf_subset=hf_subset,
            prompt_type=prompt_type,
            **encode_kwargs,
        )

    def index(
        self,
        corpus: Any,
        *,
        task_metadata: Any,
        hf_split: str,
        hf_subset: str,
        encode_kwargs: dict[str, Any],
        num_proc: int | None = None,
        **kwargs: Any,
    ) -> None:
        """Encode the corpus (mteb's document prompt) and index it under its ids."""
        from mteb.types import PromptType

        self.task_corpus = corpus
        self.index_backend.clear()
        emb = self._encode(corpus, PromptType.document, task_metadata, hf_split, hf_subset, encode_kwargs, num_proc)
        self.index_backend.add_documents(emb, column_list(corpus, "id"))

    def search(
        self,
        queries: Any,
        *,
        task_metadata: Any,
        hf_split: str,
        hf_subset: str,
        top_k: int,
        encode_kwargs: dict[str, Any],
        top_ranked: Any = None,
        num_proc: int | None = None,
        timer: Any = None,
        **kwargs: Any,
    ) -> dict[str, dict[str, float]]:
        """Encode the queries and return mteb's results: query id -> {candidate id: score} (top-k)."""
        from mteb.timing import TimingStack
        from mteb.types import PromptType

        if self.task_corpus is None:
            raise ValueError("Corpus must be indexed before searching.")
        if top_ranked is not None:  # reranking tasks: mteb's own path (lists per query)
            return super().search(
                queries,
                task_metadata=task_metadata,
                hf_split=hf_split,
                hf_subset=hf_subset,
                top_k=top_k,
                encode_kwargs=encode_kwargs,
                top_ranked=top_ranked,
                num_proc=num_proc,
                timer=timer,
                **kwargs,
            )
        timer = timer or TimingStack()
        with timer("Encoding queries", split=hf_split, subset=hf_subset):
            q = self._encode(queries, PromptType.query, task_metadata, hf_split, hf_subset, encode_kwargs, num_proc)
        qids = column_list(queries, "id")
        with timer("Computing similarity", split=hf_split, subset=hf_subset):
            self._on_query_embeddings(qids, q)
            extra = 1 if self.ignore_identical_ids else 0
            scores, pos = self.index_backend.search_arrays(q, top_k + extra)
            results = self.results_from_arrays(qids, scores, pos, top_k)
        self.index_backend.clear()
        self.task_corpus = None
        return results

    def _on_query_embeddings(self, qids: list[str], query_embeddings: Any) -> None:
        """Hook for subclasses that need the query embeddings (e.g. full-pool gold ranks)."""

    def results_from_arrays(
        self, qids: list[str], scores: np.ndarray, pos: np.ndarray, top_k: int
    ) -> dict[str, dict[str, float]]:
        """mteb's results from the backend's (n, k) arrays; own ids dropped when ``ignore_identical_ids``."""
        ids = np.asarray(self.index_backend.idxs, dtype=object)
        valid = pos >= 0
        hits = ids[np.where(valid, pos, 0)]
        keep = valid
        if self.ignore_identical_ids:
            keep = keep & (hits != np.asarray(qids, dtype=object)[:, None])
        if not keep.all() or hits.shape[1] > top_k:
            keep = keep & (np.cumsum(keep, axis=1) <= top_k)
        out: dict[str, dict[str, float]] = {}
        if keep.all():
            for qid, h, s in zip(qids, hits.tolist(), scores.tolist()):
                out[qid] = dict(zip(h, s))
        else:
            for qid, h, s, m in zip(qids, hits, scores, keep):
                out[qid] = dict(zip(h[m].tolist(), s[m].tolist()))
        return out


class IdenticalIdsExcluded:
    """Any mteb search model, asked for one more hit, with each query's own id dropped from its hits.

    For search models that are not our wrapper (e.g. mteb's BM25) in a task with mteb's
    ``ignore_identical_ids``: each query keeps ``top_k`` candidates other than itself. Only
    ``index``, ``search`` and ``mteb_model_meta`` are exposed (no attribute forwarding, so mteb's
    protocol checks see a search model and nothing else).
    """

    def __init__(self, model: Any) -> None:
        self.model = model
        self.mteb_model_meta = getattr(model, "mteb_model_meta", None)

    def index(self, corpus: Any, **kwargs: Any) -> None:  # noqa: D102
        self.model.index(corpus, **kwargs)

    def search(self, queries: Any, *, top_k: int, **kwargs: Any) -> dict[str, dict[str, float]]:  # noqa: D102
        results = self.model.search(queries, top_k=top_k + 1, **kwargs)
        out = {}
        for qid, hits in results.items():
            ranked = sorted(((s, c) for c, s in hits.items() if c != qid), key=lambda sc: -sc[0])[:top_k]
            out[qid] = {c: s for s, c in ranked}
        return out


def is_encoder(model: Any) -> bool:
    """True for a model that gives embeddings and does not search itself (mteb's ``EncoderProtocol``
    but not ``SearchProtocol``): the project searches for it (FAISS backend)."""
    from mteb.models.models_protocols import EncoderProtocol, SearchProtocol

    return isinstance(model, EncoderProtocol) and not isinstance(model, SearchProtocol)


def search_model_for(
    model: Any, *, index: str = "flat", ignore_identical_ids: bool = False, **backend_kwargs: Any
) -> Any:
    """The search model a retrieval protocol should hand mteb's evaluator.

    A dense encoder -> :class:`FaissSearchEncoderWrapper` (exact search unless ``index`` says
    otherwise); a search model -> itself, wrapped in :class:`IdenticalIdsExcluded` when
    ``ignore_identical_ids``; anything else (cross-encoders) -> unchanged, for mteb to wrap.
    """
    from mteb.models.models_protocols import SearchProtocol

    if is_encoder(model):
        return FaissSearchEncoderWrapper(
            model, index=index, ignore_identical_ids=ignore_identical_ids, **backend_kwargs
        )
    if (
        ignore_identical_ids
        and isinstance(model, SearchProtocol)
        and not isinstance(model, (FaissSearchEncoderWrapper, IdenticalIdsExcluded))
    ):
        return IdenticalIdsExcluded(model)
    return model
