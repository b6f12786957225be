"""Common machinery of the classic baselines: a scoring interface of their own.

A fitted baseline is *not* an encoder: it learns from the evaluated collection and scores texts
against each other. It offers exactly two interfaces, and the protocols use them without guessing:

* **pair scorer** (:class:`mteb_contrastive.protocols.fitting.PairScorer`; triplet
  classification, IR triplets, verification): ``fit(texts, *, train_texts=None,
  candidate_texts=None)`` then ``score_pairs(queries, docs) -> float64 array (n,)``, the score
  of ``docs[i]`` for ``queries[i]`` (higher = more similar);
* **mteb search model** (mteb's ``SearchProtocol``; retrieval tasks): ``index(corpus)`` fits on
  the corpus texts of the evaluated split, ``search(queries, top_k, top_ranked=None)`` scores
  every query against it, exactly, in query chunks; with ``top_ranked`` (reranking) each query's
  *allowed candidates* are scored and the best ``top_k`` of them returned.

Representations: **dense** (word-vector averaging, Doc2Vec) -- float vectors, score = cosine;
**sparse** (TF-IDF, BM25) -- scipy CSR rows with a *query side* and a *document side* (the same
L2-normalised TF-IDF row for TF-IDF, so the score is the cosine; term counts vs BM25 term weights
for BM25, so the score is the BM25 score of the document for the query).

**Canonical fit order.** ``fit`` removes duplicate texts and sorts them by the SHA-256 of their
UTF-8 bytes before fitting (:func:`canonical_order`), so a fitted model -- and every score --
depends only on the *set* of texts, never on their order in the dataset.

Every baseline exposes ``fit_summary`` (numbers saying what it was fitted on), which the
protocols copy into the result scores.
"""

from __future__ import annotations

import abc
import hashlib
import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from mteb_contrastive import compat

logger = logging.getLogger(__name__)

_QUERY_CHUNK = 256


def canonical_order(texts: Sequence[str] | None) -> list[str] | None:
    """Distinct ``texts`` sorted by the SHA-256 of their UTF-8 bytes (ties, impossible in practice, by text)."""
    if texts is None:
        return None
    return sorted(dict.fromkeys(texts), key=lambda t: (hashlib.sha256(t.encode("utf-8")).digest(), t))


class NotFittedError(RuntimeError):
    """A baseline was asked to score before it was fitted."""


class FittedBaseline(abc.ABC):
    """Base class; subclasses implement :meth:`_fit` and, unless they score otherwise, :meth:`_represent`."""

    sparse: bool = False
    #: scores are a function of one vector per text and side (:meth:`pair_vectors`, :meth:`block_scores`);
    #: False for a baseline that scores each pair itself (PPMd compression, bm25s)
    has_vectors: bool = True

    def __init__(
        self,
        model_name: str | None = None,
        revision: str | None = None,
        *,
        seed: int = 0,
        device: str | None = None,
        **kwargs: Any,
    ) -> None:
        self.model_name = model_name
        self.seed = seed
        self.fitted = False
        self.fit_summary: dict[str, float] = {}
        self._corpus_ids: list[str] = []
        self._corpus_vecs: Any = None
        self.mteb_model_meta: Any = None

    # -- fitting -----------------------------------------------------------------------------
    def fit(
        self,
        texts: Sequence[str],
        *,
        train_texts: Sequence[str] | None = None,
        candidate_texts: Sequence[str] | None = None,
    ) -> None:
        """Fit on the evaluated collection's ``texts`` (and, for trained models, ``train_texts``).

        Args:
            texts: the texts to be scored (duplicates and order do not matter: canonical order).
            train_texts: a train split's texts, for the trained (gensim) baselines.
            candidate_texts: the split's candidates (the HALvest BM25 background corpus).
        """
        self._fit(canonical_order(texts), canonical_order(train_texts), canonical_order(candidate_texts))
        self.fitted = True

    @abc.abstractmethod
    def _fit(self, texts: list[str], train_texts: list[str] | None, candidate_texts: list[str] | None) -> None:
        """Hook: fit the baseline's statistics."""

    def _represent(self, texts: list[str]) -> Any:
        """Dense: float array (n, dim). Sparse: (query-side csr, document-side csr). Every baseline
        that scores through this class's ``score_pairs`` / ``index`` / ``search`` defines it; one that
        overrides all three (``BM25sTripletBaseline``: bm25s' own scoring) has no vectors."""
        raise NotImplementedError(
            f"{type(self).__name__} scores without vectors (it overrides score_pairs, index and search)"
        )

    def _check_fitted(self) -> None:
        if not self.fitted:
            raise NotFittedError(
                f"{self.model_name}: this baseline learns from the evaluated texts and must be fitted first "
                "(the project's protocols call fit(); it is a pair scorer and an mteb search model, not an encoder)"
            )

    def _sides(self, texts: list[str]) -> tuple[Any, Any]:
        """(query-side, document-side) representations; dense: L2-normalised float64 both."""
        rep = self._represent(texts)
        if self.sparse:
            return rep
        x = _normalise(np.asarray(rep, dtype=np.float64))
        return x, x

    # -- pair scorer -------------------------------------------------------------------------
    def score_pairs(self, queries: Sequence[str], docs: Sequence[str]) -> np.ndarray:
        """Score of ``docs[i]`` for ``queries[i]``; float64 array of shape (n,).

        Each distinct text is represented once per side (:meth:`_sides`), then scored row by row
        (:meth:`_row_scores`). TF-IDF and dense baselines: cosine in [-1, 1]; BM25: the BM25 score of
        the document for the query (>= 0 except where an IDF is negative).

        Raises:
            NotFittedError: :meth:`fit` was not called.
            ValueError: ``queries`` and ``docs`` differ in length.
        """
        self._check_pairs(queries, docs)
        if not len(queries):
            return np.zeros(0, dtype=np.float64)
        qd, dd = list(dict.fromkeys(queries)), list(dict.fromkeys(docs))
        qmap, dmap = {t: i for i, t in enumerate(qd)}, {t: i for i, t in enumerate(dd)}
        qi, di = np.array([qmap[t] for t in queries]), np.array([dmap[t] for t in docs])
        return self._row_scores(self._sides(qd)[0][qi], self._sides(dd)[1][di])

    def pair_vectors(self, texts: Sequence[str]) -> tuple[Any, Any]:
        """(query side, document side) of ``texts`` (dense: L2-normalised float64 arrays; sparse: CSR).

        Raises:
            NotFittedError: :meth:`fit` was not called.
        """
        self._check_fitted()
        return self._sides(list(texts))

    def block_scores(self, q: Any, d: Any) -> np.ndarray:
        """Score of every document row ``d[j]`` for every query row ``q[i]``, float64 (len(q), len(d)):
        the same numbers as :meth:`_row_scores` on those pairs, as one matrix product (inner product)."""
        if self.sparse:
            return np.asarray((q @ d.T).toarray(), dtype=np.float64)
        return np.asarray(q @ d.T, dtype=np.float64)

    def _check_pairs(self, queries: Sequence[str], docs: Sequence[str]) -> None:
        """Raises NotFittedError before :meth:`fit`, ValueError when the two lists differ in length."""
        self._check_fitted()
        if len(queries) != len(docs):
            raise ValueError(f"score_pairs: {len(queries)} queries but {len(docs)} documents")

    def _row_scores(self, q: Any, d: Any) -> np.ndarray:
        """Score of row ``d[i]`` for row ``q[i]`` (query side, document side), float64 (n,): their inner
        product (the cosine of L2-normalised dense rows; TF-IDF's cosine or BM25 on sparse rows)."""
        if self.sparse:
            return np.asarray(q.multiply(d).sum(axis=1), dtype=np.float64).ravel()
        return np.einsum("ij,ij->i", q, d)

    # -- mteb SearchProtocol -----------------------------------------------------------------
    def index(
        self,
        corpus: Any,
        *,
        task_metadata: Any = None,
        hf_split: str | None = None,
        hf_subset: str | None = None,
        encode_kwargs: Any = None,
        num_proc: int | None = None,
        **kwargs: Any,
    ) -> None:
        """Fit on the corpus texts of the evaluated split and store their document-side vectors."""
        texts = [_corpus_text(r) for r in corpus]
        self._corpus_ids = [str(r["id"]) for r in corpus]
        self.fit(texts)
        self.fit_summary["fit_on_retrieval_corpus"] = 1
        self._corpus_vecs = self._sides(texts)[1]

    def search(
        self,
        queries: Any,
        *,
        task_metadata: Any = None,
        hf_split: str | None = None,
        hf_subset: str | None = None,
        top_k: int = 100,
        encode_kwargs: Any = None,
        top_ranked: Any = None,
        num_proc: int | None = None,
        **kwargs: Any,
    ) -> dict[str, dict[str, float]]:
        """Exact top-``top_k`` candidates per query, in chunks of queries.

        Without ``top_ranked``: over the whole indexed corpus. With ``top_ranked`` (query id -> its
        allowed candidate ids, mteb's reranking input): each query's allowed candidates only, all
        of them scored, the best ``top_k`` kept; a query absent from ``top_ranked`` gets no result
        (as mteb's own reranking, with a warning).
        """
        if self._corpus_vecs is None:
            raise NotFittedError("call index() before search()")
        qids = [str(i) for i in queries["id"]]
        qtexts = list(compat.combine_queries_with_instruction_text(queries)["text"])
        pos = {cid: j for j, cid in enumerate(self._corpus_ids)}
        results: dict[str, dict[str, float]] = {}
        for start in range(0, len(qids), _QUERY_CHUNK):
            chunk_ids = qids[start : start + _QUERY_CHUNK]
            q = self._sides(qtexts[start : start + _QUERY_CHUNK])[0]
            for i, qid in enumerate(chunk_ids):
                if top_ranked is not None:
                    if qid not in top_ranked:
                        logger.warning("no pre-ranked candidates for query %s: no result", qid)
                        results[qid] = {}
                        continue
                    cand = np.array([pos[str(c)] for c in top_ranked[qid]], dtype=np.int64)
                else:
                    cand = None
                results[qid] = self._top(q[i], cand, top_k)
        return results

    def _top(self, q_row: Any, cand: np.ndarray | None, top_k: int) -> dict[str, float]:
        d = self._corpus_vecs if cand is None else self._corpus_vecs[cand]
        s = np.asarray((q_row @ d.T).todense() if self.sparse else q_row @ d.T, dtype=np.float64).ravel()
        ids = np.arange(s.size) if cand is None else cand
        k = min(top_k, s.size)
        order = np.lexsort((ids, -s))[:k]  # best first, ties by corpus position
        return {self._corpus_ids[ids[j]]: float(s[j]) for j in order}


def _corpus_text(row: dict[str, Any]) -> str:
    title, text = (row.get("title") or "").strip(), (row.get("text") or "")
    return f"{title} {text}".strip() if title and not text.startswith(title) else text


def _normalise(x: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norm == 0, 1.0, norm)
