"""The gold's rank over the *full* candidate pool, beside mteb's truncated top-k search.

mteb's retrieval returns each query's top-k only; the QuoteR MRR and median rank need the gold's
rank among all candidates. :func:`with_gold_ranks` wraps a model so that, while mteb searches, the
wrapper also fills ``gold_ranks`` (query id -> 1-based rank, ties counted in the gold's favour:
``1 + #candidates scored strictly higher``):

* a dense encoder: :class:`GoldRankingFaissWrapper` (our FAISS backend); the gold's score against
  every candidate comes from the embeddings, by query chunks (a chunk x pool block at a time; no
  queries x pool matrix is kept);
* mteb's BM25 (``mteb/baseline-bm25s``): :class:`BM25GoldRanks` scores each query against the
  whole index with ``bm25s``' ``get_scores``;
* a model that takes the gold itself (``set_gold``; e.g. :class:`~mteb_contrastive.search.rerank.TwoStageSearch`);
* any other search model: :class:`ResultsGoldRanks`, ranks read from the returned top-k; a gold
  outside it gets the lower bound ``len(results) + 1`` and is counted in ``n_lower_bound``.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from mteb_contrastive.metrics.ranking import rank_of
from mteb_contrastive.search.faiss_backend import FaissSearchEncoderWrapper

logger = logging.getLogger(__name__)

#: queries scored against the whole pool at once (a chunk x pool float32 block)
QUERY_CHUNK = 256


def dense_gold_ranks(q: np.ndarray, x: np.ndarray, gold_pos: np.ndarray, *, euclidean: bool = False, chunk: int = QUERY_CHUNK) -> np.ndarray:
    """Full-pool gold ranks from prepared query vectors ``q`` (n, d) and candidate vectors ``x`` (m, d).

    Score = inner product (vectors already normalised for cosine), or ``-||q - x||`` when ``euclidean``.
    """
    out = np.empty(q.shape[0], dtype=np.int64)
    x_sq = (x * x).sum(1) if euclidean else None
    for s in range(0, q.shape[0], chunk):
        block = q[s : s + chunk] @ x.T
        if euclidean:
            block = -np.sqrt(np.maximum((q[s : s + chunk] ** 2).sum(1)[:, None] - 2 * block + x_sq[None, :], 0))
        rows = np.arange(block.shape[0])
        g = block[rows, gold_pos[s : s + chunk]]
        out[s : s + chunk] = 1 + (block > g[:, None]).sum(1)
    return out


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
        ranks = dense_gold_ranks(q, x, gp, euclidean=be.similarity == "euclidean")
        self.gold_ranks = {qids[i]: int(r) for i, r in zip(rows, ranks)}


class _Delegate:
    """A search model that delegates ``index``/``search`` and records gold ranks after search."""

    def __init__(self, model: Any, gold: dict[str, str]) -> None:
        self.model = model
        self.mteb_model_meta = getattr(model, "mteb_model_meta", None)
        self.gold = dict(gold)
        self.gold_ranks: dict[str, int] = {}
        self.gold_ranks_exact = True
        self.n_lower_bound = 0

    def index(self, corpus: Any, **kwargs: Any) -> None:
        self.model.index(corpus, **kwargs)

    def search(self, queries: Any, **kwargs: Any) -> dict[str, dict[str, float]]:
        results = self.model.search(queries, **kwargs)
        self._record(queries, results)
        return results

    def _record(self, queries: Any, results: dict[str, dict[str, float]]) -> None:
        raise NotImplementedError


class BM25GoldRanks(_Delegate):
    """mteb's ``BM25Search`` with full-pool gold ranks from ``bm25s.BM25.get_scores``."""

    def _record(self, queries: Any, results: dict[str, dict[str, float]]) -> None:
        from mteb._create_dataloaders import _combine_queries_with_instruction_text

        m = self.model
        pos = {cid: i for i, cid in m.corpus_idx_to_id.items()}
        texts = list(_combine_queries_with_instruction_text(queries)["text"])
        n = len(pos)
        for qid, text in zip(queries["id"], texts):
            if qid not in self.gold:
                continue
            tok = m._tokenizer.transform([text])
            inv = {i: t for t, i in tok.vocab.items()}
            strings = [inv[i] for i in tok.ids[0]]
            strings = [t for t in strings if t in m.retriever.vocab_dict]
            scores = m.retriever.get_scores(strings) if strings else np.zeros(n, dtype=np.float32)
            g = scores[pos[self.gold[qid]]]
            self.gold_ranks[qid] = int(1 + (scores > g).sum())


class ResultsGoldRanks(_Delegate):
    """Any search model: gold ranks from its returned results (lower bound when the gold is absent)."""

    def _record(self, queries: Any, results: dict[str, dict[str, float]]) -> None:
        self.n_lower_bound = 0
        for qid, cid in self.gold.items():
            res = results.get(qid, {})
            if cid in res:
                self.gold_ranks[qid] = rank_of(res[cid], res.values())
            else:
                self.gold_ranks[qid] = len(res) + 1
                self.n_lower_bound += 1
        self.gold_ranks_exact = self.n_lower_bound == 0


def with_gold_ranks(model: Any, gold: dict[str, str], *, faiss_index: str = "flat") -> Any:
    """A search model for mteb that records ``gold_ranks`` (see the module docstring).

    Args:
        model: an mteb encoder, mteb's BM25, a model with ``set_gold``, or any mteb search model.
        gold: query id -> gold candidate id.
    """
    from mteb.models.models_protocols import EncoderProtocol, SearchProtocol

    if hasattr(model, "set_gold"):
        model.set_gold(gold)
        return model
    if isinstance(model, EncoderProtocol) and not isinstance(model, SearchProtocol):
        return GoldRankingFaissWrapper(model, gold, index=faiss_index)
    if hasattr(model, "retriever") and hasattr(model, "_tokenizer") and hasattr(model, "corpus_idx_to_id"):
        return BM25GoldRanks(model, gold)
    if isinstance(model, SearchProtocol):
        return ResultsGoldRanks(model, gold)
    raise TypeError(f"cannot rank the full pool with {type(model).__name__}: need an encoder or a search model")
