"""The gold's rank over the *full* candidate pool, beside mteb's truncated top-k search.

mteb's retrieval returns each query's top-k only; the QuoteR MRR and median rank need the gold's
rank among all candidates. :func:`with_gold_ranks` wraps a model in a :class:`GoldRankingSearch`:
while mteb searches, it works out where each query's gold stands in the whole pool, and its
:meth:`~GoldRankingSearch.gold_ranking` returns that as a typed :class:`GoldRanking`:

* ``ties``: query id -> :class:`GoldTie` ``(higher, tied, score)``: the candidates of the whole
  pool scored strictly higher than the gold, those scored equal (gold included, >= 1), and the gold's
  score; the tie-aware metrics (:func:`mteb_contrastive.metrics.ranking.tie_aware_metrics`) read it;
* ``n_lower_bound``: golds whose range is a lower bound (outside a truncated result list);
* ``stage_scores``: numbers a two-stage model reports (``rerank_k``, stage times).

Sources of the pool scores:

* a dense encoder: :class:`GoldRankingFaissWrapper` (our FAISS backend); the gold's score against
  every candidate comes from the embeddings, by query chunks (a chunk x pool block at a time; no
  queries x pool matrix is kept);
* mteb's BM25 (``mteb/baseline-bm25s``): :class:`BM25GoldRanks` scores each query against the
  whole index with ``bm25s``' ``get_scores``;
* a search model with ``pool_scores(queries)`` (query id -> score of every candidate, in
  ``corpus_ids`` order; e.g. :class:`~mteb_contrastive.baselines.bm25_lang.LanguageBM25Search`):
  :class:`PoolScoresGoldRanks`;
* a model that is a :class:`GoldRankingSearch` itself (``set_gold``;
  e.g. :class:`~mteb_contrastive.search.rerank.TwoStageSearch`);
* any other search model: :class:`ResultsGoldRanks`, ranks read from the returned top-k; a gold
  outside it gets the lower bound ``len(results) + 1`` (``tied`` 1, ``score`` None) and is counted
  in ``n_lower_bound``; a tie inside the list is exact only if no unreturned candidate has the same score.
"""

from __future__ import annotations

import abc
import logging
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from mteb_contrastive import compat
from mteb_contrastive.metrics.ranking import tie_range_of
from mteb_contrastive.search.exact import as_matrix
from mteb_contrastive.search.faiss_backend import FaissSearchEncoderWrapper, is_encoder

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


def dense_gold_ties(
    q: np.ndarray, x: np.ndarray, gold_pos: np.ndarray, *, euclidean: bool = False, chunk: int = QUERY_CHUNK
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Full-pool ``(higher, tied, gold score)`` from prepared query vectors ``q`` (n, d) and candidate vectors
    ``x`` (m, d).

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


def dense_gold_ranks(
    q: np.ndarray, x: np.ndarray, gold_pos: np.ndarray, *, euclidean: bool = False, chunk: int = QUERY_CHUNK
) -> np.ndarray:
    """Optimistic full-pool gold ranks (``higher + 1``); see :func:`dense_gold_ties`."""
    return dense_gold_ties(q, x, gold_pos, euclidean=euclidean, chunk=chunk)[0] + 1


@dataclass(frozen=True)
class GoldRanking:
    """Where each query's gold stands in the full pool after one search.

    ``ties``: query id -> :class:`GoldTie`; ``n_lower_bound``: how many of them are lower bounds
    (the gold outside a truncated result list); ``stage_scores``: numbers a two-stage model adds
    to the result (``rerank_k``, seconds per stage, rescored pairs).
    """

    ties: dict[str, GoldTie] = field(default_factory=dict)
    n_lower_bound: int = 0
    stage_scores: dict[str, float] = field(default_factory=dict)

    @property
    def exact(self) -> bool:
        """True when every gold's tie range is over the full pool (no lower bound)."""
        return self.n_lower_bound == 0

    @property
    def ranks(self) -> dict[str, int]:
        """query id -> the optimistic rank ``higher + 1``."""
        return {q: t.higher + 1 for q, t in self.ties.items()}


class GoldRankingSearch(abc.ABC):
    """An mteb search model that knows, after each search, where every gold stands in the full pool.

    :meth:`set_gold` says which candidate is each query's gold; after ``search``,
    :meth:`gold_ranking` returns the :class:`GoldRanking`. ``gold_ties`` / ``gold_ranks`` /
    ``gold_ranks_exact`` / ``n_lower_bound`` are read-only views of it.
    """

    gold: dict[str, str]
    _ranking: GoldRanking = GoldRanking()

    def set_gold(self, gold: dict[str, str]) -> None:
        """Ask for full-pool gold ranks (query id -> gold candidate id) in the next search."""
        self.gold = dict(gold)

    def gold_ranking(self) -> GoldRanking:
        """The gold ranking of the last search (empty before one)."""
        return self._ranking

    @property
    def gold_ties(self) -> dict[str, GoldTie]:
        return self._ranking.ties

    @property
    def gold_ranks(self) -> dict[str, int]:
        return self._ranking.ranks

    @property
    def gold_ranks_exact(self) -> bool:
        return self._ranking.exact

    @property
    def n_lower_bound(self) -> int:
        return self._ranking.n_lower_bound


class GoldRankingFaissWrapper(GoldRankingSearch, FaissSearchEncoderWrapper):
    """FAISS search (mteb's ``SearchEncoderWrapper``) that also records full-pool gold ranks.

    Args:
        model: an mteb encoder.
        gold: query id -> gold candidate id.
    """

    def __init__(self, model: Any, gold: dict[str, str], **kwargs: Any) -> None:
        super().__init__(model, **kwargs)
        self.gold = dict(gold)

    def _on_query_embeddings(self, qids: list[str], query_embeddings: Any) -> None:  # noqa: D102
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
        self._ranking = GoldRanking({qids[i]: GoldTie(int(a), int(b), float(c)) for i, a, b, c in zip(rows, h, t, g)})


class _Delegate(GoldRankingSearch):
    """A search model that delegates ``index``/``search`` and records gold ranks after search."""

    def __init__(self, model: Any, gold: dict[str, str]) -> None:
        self.model = model
        self.mteb_model_meta = getattr(model, "mteb_model_meta", None)
        self.gold = dict(gold)

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
        texts = list(compat.combine_queries_with_instruction_text(queries)["text"])
        wanted = [(qid, text) for qid, text in zip(queries["id"], texts) if qid in self.gold]
        pos, scores = compat.bm25_pool_scores(self.model, [text for _, text in wanted])
        self._ranking = GoldRanking(
            {qid: tie_from_scores(scores[k], pos[self.gold[qid]]) for k, (qid, _) in enumerate(wanted)}
        )


class PoolScoresGoldRanks(_Delegate):
    """A search model with ``pool_scores(queries) -> {query id: (n_pool,) scores}`` and ``corpus_ids``."""

    def _record(self, queries: Any, results: dict[str, dict[str, float]]) -> None:
        pos = {cid: i for i, cid in enumerate(self.model.corpus_ids)}
        wanted = [q for q in queries["id"] if q in self.gold]
        scores = self.model.pool_scores(queries, only=set(wanted))
        self._ranking = GoldRanking({q: tie_from_scores(np.asarray(scores[q]), pos[self.gold[q]]) for q in wanted})


class ResultsGoldRanks(_Delegate):
    """Any search model: gold ranks from its returned results (lower bound when the gold is absent)."""

    def _record(self, queries: Any, results: dict[str, dict[str, float]]) -> None:
        ties, lower = {}, 0
        for qid, cid in self.gold.items():
            res = results.get(qid, {})
            if cid in res:
                ties[qid] = GoldTie(*tie_range_of(res[cid], res.values()), float(res[cid]))
            else:
                ties[qid] = GoldTie(len(res), 1, None)
                lower += 1
        self._ranking = GoldRanking(ties, n_lower_bound=lower)


def with_gold_ranks(model: Any, gold: dict[str, str], *, faiss_index: str = "flat") -> GoldRankingSearch:
    """A search model for mteb whose :meth:`~GoldRankingSearch.gold_ranking` says where each gold
    stands in the full pool after the search (see the module docstring).

    Args:
        model: an mteb encoder, mteb's BM25, a :class:`GoldRankingSearch` (it ranks the golds
            itself), a model with ``pool_scores``, or any mteb search model.
        gold: query id -> gold candidate id.

    Raises:
        TypeError: ``model`` is neither an encoder nor a search model.
    """
    from mteb.models.models_protocols import SearchProtocol

    if isinstance(model, GoldRankingSearch):
        model.set_gold(gold)
        return model
    if is_encoder(model):
        return GoldRankingFaissWrapper(model, gold, index=faiss_index)
    if hasattr(model, "pool_scores") and hasattr(model, "corpus_ids"):
        return PoolScoresGoldRanks(model, gold)
    if compat.is_mteb_bm25(model):
        return BM25GoldRanks(model, gold)
    if isinstance(model, SearchProtocol):
        return ResultsGoldRanks(model, gold)
    raise TypeError(f"cannot rank the full pool with {type(model).__name__}: need an encoder or a search model")
