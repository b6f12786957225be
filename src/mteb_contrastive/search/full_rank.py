"""The gold's rank over the *full* candidate pool, beside mteb's truncated top-k search.

mteb's retrieval returns each query's top-k only; the QuoteR MRR and median rank need the gold's
rank among all candidates. :func:`with_gold_ranks` wraps a model so that, while mteb searches, the
wrapper also fills

* ``gold_ties``: query id -> :class:`GoldTie` ``(higher, tied, score)``: the candidates of the whole
  pool scored strictly higher than the gold, those scored equal (gold included, >= 1), and the gold's
  score; the tie-aware metrics (:func:`mteb_contrastive.metrics.ranking.tie_aware_metrics`) read it;
* ``gold_ranks``: query id -> ``higher + 1`` (the optimistic rank, kept for callers that want one rank).

Sources of the pool scores:

* a dense encoder: :class:`GoldRankingFaissWrapper` (our FAISS backend); the gold's score against
  every candidate comes from the embeddings, by query chunks (a chunk x pool block at a time; no
  queries x pool matrix is kept);
* mteb's BM25 (``mteb/baseline-bm25s``): :class:`BM25GoldRanks` scores each query against the
  whole index with ``bm25s``' ``get_scores``;
* a search model with ``pool_scores(queries)`` (query id -> score of every candidate, in
  ``corpus_ids`` order; e.g. :class:`~mteb_contrastive.baselines.bm25_lang.LanguageBM25Search`):
  :class:`PoolScoresGoldRanks`;
* a model that takes the gold itself (``set_gold``; e.g. :class:`~mteb_contrastive.search.rerank.TwoStageSearch`);
* any other search model: :class:`ResultsGoldRanks`, ranks read from the returned top-k; a gold
  outside it gets the lower bound ``len(results) + 1`` (``tied`` 1, ``score`` None) and is counted
  in ``n_lower_bound``; a tie inside the list is exact only if no unreturned candidate has the same score.
"""

from __future__ import annotations

import abc
import logging
from typing import Any, NamedTuple

import numpy as np

from mteb_contrastive.metrics.ranking import tie_range_of
from mteb_contrastive.search.faiss_backend import FaissSearchEncoderWrapper

logger = logging.getLogger(__name__)

#: queries scored against the whole pool at once (a chunk x pool float32 block)
QUERY_CHUNK = 256


class GoldTie(NamedTuple):
    """Where a gold stands in the full pool: ``higher`` candidates strictly above it, ``tied`` equal
    to it (itself included, >= 1), and its ``score`` (None when unknown). Its rank lies in
    ``{higher + 1, ..., higher + tied}``."""

    higher: int
    tied: int
    score: float | None


def tie_from_scores(scores: np.ndarray, gold_pos: int) -> GoldTie:
    """:class:`GoldTie` of candidate ``gold_pos`` in one query's (n_pool,) score vector."""
    g = scores[gold_pos]
    return GoldTie(int((scores > g).sum()), int((scores == g).sum()), float(g))


def below_head(first: GoldTie | None, head_len: int) -> GoldTie:
    """A gold left out of a reranked head of ``head_len`` candidates, which keeps the first stage's order below it.

    Its rank range is the first stage's, cut at the head: ``{max(h, head_len) + 1, ..., h + t}``
    (the tied candidates that went into the head are no longer beside it). Without first-stage
    information: the lower bound ``head_len + 1``.
    """
    if first is None:
        return GoldTie(head_len, 1, None)
    h = max(first.higher, head_len)
    return GoldTie(h, max(first.higher + first.tied - h, 1), first.score)


def dense_gold_ties(q: np.ndarray, x: np.ndarray, gold_pos: np.ndarray, *, euclidean: bool = False, chunk: int = QUERY_CHUNK) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Full-pool ``(higher, tied, gold score)`` from prepared query vectors ``q`` (n, d) and candidate vectors ``x`` (m, d).

    Score = inner product (vectors already normalised for cosine), or ``-||q - x||`` when ``euclidean``.
    Returns three (n,) arrays (int64, int64, float).
    """
    n = q.shape[0]
    higher, tied, gs = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64), np.empty(n, dtype=np.float64)
    x_sq = (x * x).sum(1) if euclidean else None
    for s in range(0, n, chunk):
        block = q[s : s + chunk] @ x.T
        if euclidean:
            block = -np.sqrt(np.maximum((q[s : s + chunk] ** 2).sum(1)[:, None] - 2 * block + x_sq[None, :], 0))
        rows = np.arange(block.shape[0])
        g = block[rows, gold_pos[s : s + chunk]]
        higher[s : s + chunk] = (block > g[:, None]).sum(1)
        tied[s : s + chunk] = (block == g[:, None]).sum(1)
        gs[s : s + chunk] = g
    return higher, tied, gs


def dense_gold_ranks(q: np.ndarray, x: np.ndarray, gold_pos: np.ndarray, *, euclidean: bool = False, chunk: int = QUERY_CHUNK) -> np.ndarray:
    """Optimistic full-pool gold ranks (``higher + 1``); see :func:`dense_gold_ties`."""
    return dense_gold_ties(q, x, gold_pos, euclidean=euclidean, chunk=chunk)[0] + 1


def _set_ties(obj: Any, ties: dict[str, GoldTie]) -> None:
    obj.gold_ties = ties
    obj.gold_ranks = {q: t.higher + 1 for q, t in ties.items()}


class GoldRankingFaissWrapper(FaissSearchEncoderWrapper):
    """FAISS search (mteb's ``SearchEncoderWrapper``) that also records full-pool gold ranks.

    Args:
        model: an mteb encoder.
        gold: query id -> gold candidate id.
    """

    def __init__(self, model: Any, gold: dict[str, str], **kwargs: Any) -> None:
        super().__init__(model, **kwargs)
        self.gold = dict(gold)
        self.gold_ranks: dict[str, int] = {}
        self.gold_ties: dict[str, GoldTie] = {}
        self.gold_ranks_exact = True

    def _on_query_embeddings(self, qids: list[str], query_embeddings: Any) -> None:  # noqa: D102
        from mteb_contrastive.search.exact import as_matrix

        be = self.index_backend
        rows = [i for i, qid in enumerate(qids) if qid in self.gold]
        if not rows:
            return
        pos = {cid: i for i, cid in enumerate(be.idxs)}
        q = as_matrix(query_embeddings, "queries", similarity=be.similarity, dim=be.dim)[rows]
        x = be.vectors()
        if be.similarity == "cosine":  # normalised copies (the backend's arrays stay untouched)
            q = q / np.linalg.norm(q, axis=1, keepdims=True)
            x = x / np.linalg.norm(x, axis=1, keepdims=True)
        gp = np.asarray([pos[self.gold[qids[i]]] for i in rows], dtype=np.int64)
        h, t, g = dense_gold_ties(q, x, gp, euclidean=be.similarity == "euclidean")
        _set_ties(self, {qids[i]: GoldTie(int(a), int(b), float(c)) for i, a, b, c in zip(rows, h, t, g)})


class _Delegate(abc.ABC):
    """A search model that delegates ``index``/``search`` and records gold ranks after search."""

    def __init__(self, model: Any, gold: dict[str, str]) -> None:
        self.model = model
        self.mteb_model_meta = getattr(model, "mteb_model_meta", None)
        self.gold = dict(gold)
        self.gold_ranks: dict[str, int] = {}
        self.gold_ties: dict[str, GoldTie] = {}
        self.gold_ranks_exact = True
        self.n_lower_bound = 0

    def index(self, corpus: Any, **kwargs: Any) -> None:
        self.model.index(corpus, **kwargs)

    def search(self, queries: Any, **kwargs: Any) -> dict[str, dict[str, float]]:
        results = self.model.search(queries, **kwargs)
        self._record(queries, results)
        return results

    @abc.abstractmethod
    def _record(self, queries: Any, results: dict[str, dict[str, float]]) -> None:
        """Hook: what a subclass keeps of each search."""


class BM25GoldRanks(_Delegate):
    """mteb's ``BM25Search`` with full-pool gold ranks from ``bm25s.BM25.get_scores``."""

    def _record(self, queries: Any, results: dict[str, dict[str, float]]) -> None:
        from mteb_contrastive import compat

        texts = list(compat.combine_queries_with_instruction_text(queries)["text"])
        ties = {}
        for qid, text in zip(queries["id"], texts):
            if qid not in self.gold:
                continue
            pos, scores = compat.bm25_pool_scores(self.model, text)
            ties[qid] = tie_from_scores(scores, pos[self.gold[qid]])
        _set_ties(self, ties)


class PoolScoresGoldRanks(_Delegate):
    """A search model with ``pool_scores(queries) -> {query id: (n_pool,) scores}`` and ``corpus_ids``."""

    def _record(self, queries: Any, results: dict[str, dict[str, float]]) -> None:
        pos = {cid: i for i, cid in enumerate(self.model.corpus_ids)}
        wanted = [q for q in queries["id"] if q in self.gold]
        scores = self.model.pool_scores(queries, only=set(wanted))
        _set_ties(self, {q: tie_from_scores(np.asarray(scores[q]), pos[self.gold[q]]) for q in wanted})


class ResultsGoldRanks(_Delegate):
    """Any search model: gold ranks from its returned results (lower bound when the gold is absent)."""

    def _record(self, queries: Any, results: dict[str, dict[str, float]]) -> None:
        self.n_lower_bound = 0
        ties = {}
        for qid, cid in self.gold.items():
            res = results.get(qid, {})
            if cid in res:
                ties[qid] = GoldTie(*tie_range_of(res[cid], res.values()), float(res[cid]))
            else:
                ties[qid] = GoldTie(len(res), 1, None)
                self.n_lower_bound += 1
        _set_ties(self, ties)
        self.gold_ranks_exact = self.n_lower_bound == 0


def with_gold_ranks(model: Any, gold: dict[str, str], *, faiss_index: str = "flat") -> Any:
    """A search model for mteb that records ``gold_ties`` and ``gold_ranks`` (see the module docstring).

    Args:
        model: an mteb encoder, mteb's BM25, a model with ``set_gold`` (it fills ``gold_ties``
            itself), a model with ``pool_scores``, or any mteb search model.
        gold: query id -> gold candidate id.

    Raises:
        TypeError: ``model`` is neither an encoder nor a search model.
    """
    from mteb.models.models_protocols import EncoderProtocol, SearchProtocol

    if hasattr(model, "set_gold"):
        model.set_gold(gold)
        return model
    if isinstance(model, EncoderProtocol) and not isinstance(model, SearchProtocol):
        return GoldRankingFaissWrapper(model, gold, index=faiss_index)
    if hasattr(model, "pool_scores") and hasattr(model, "corpus_ids"):
        return PoolScoresGoldRanks(model, gold)
    from mteb_contrastive import compat

    if compat.is_mteb_bm25(model):
        return BM25GoldRanks(model, gold)
    if isinstance(model, SearchProtocol):
        return ResultsGoldRanks(model, gold)
    raise TypeError(f"cannot rank the full pool with {type(model).__name__}: need an encoder or a search model")
