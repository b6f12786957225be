"""Common machinery of the classic baselines as mteb models.

Each baseline is both an mteb ``EncoderProtocol`` (triplet tasks: fitted through the fit hook of
:mod:`mteb_contrastive.protocols.fitting`, then ``encode`` + ``similarity_pairwise``) and an mteb
``SearchProtocol`` (retrieval tasks: ``index`` fits on the corpus of the evaluated split and
stores its vectors, ``search`` scores every query against it, exact, in query chunks).

Two kinds of representation:

* **dense** (word-vector averaging, Doc2Vec): ``encode`` returns float32 vectors; similarity is
  cosine.
* **sparse** (TF-IDF, BM25): a vocabulary-sized dense vector per text would need gigabytes, so the
  fitted model keeps the sparse rows itself and ``encode`` returns, for each text, a one-column
  *row key* into that store (an integer stored as float, exact below 2**24). The keys are only
  meaningful to the model instance that produced them; ``similarity``/``similarity_pairwise``
  look the rows up and compute the exact sparse score. Each row has two sides: the *query* side
  (used for the first argument, the anchor) and the *document* side (second argument); they are
  the same L2-normalised TF-IDF vector for TF-IDF (cosine) and differ for BM25 (term counts vs
  BM25 term weights), which makes ``sim(anchor, candidate)`` the BM25 score of the candidate
  for the anchor as query.

Every baseline exposes ``fit_summary`` (numbers saying what it was fitted on), which the triplet
protocols copy into the result scores.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

logger = logging.getLogger(__name__)

_QUERY_CHUNK = 256


def texts_of(inputs: Any) -> list[str]:
    """The texts of an mteb dataloader (batches with a ``text`` column) or of a list of strings."""
    if isinstance(inputs, (list, tuple)) and (not inputs or isinstance(inputs[0], str)):
        return list(inputs)
    out: list[str] = []
    for batch in inputs:
        out.extend(batch["text"])
    return out


def _as_numpy(x: Any) -> np.ndarray:
    if hasattr(x, "detach"):
        x = x.detach().cpu().numpy()
    return np.asarray(x)


class NotFittedError(RuntimeError):
    """A baseline was asked to encode before it was fitted."""


class FittedBaseline:
    """Base class; subclasses implement :meth:`_fit` and :meth:`_represent`."""

    sparse: bool = False

    def __init__(self, model_name: str | None = None, revision: str | None = None, *, seed: int = 0, device: str | None = None, **kwargs: Any) -> None:
        self.model_name = model_name
        self.seed = seed
        self.fitted = False
        self.fit_summary: dict[str, float] = {}
        self._q_rows: list[Any] = []
        self._d_rows: list[Any] = []
        self._n_rows = 0
        self._corpus_ids: list[str] = []
        self._corpus_vecs: Any = None
        self.mteb_model_meta: Any = None

    # -- fitting -----------------------------------------------------------------------------
    def fit(self, texts: list[str], *, train_texts: list[str] | None = None, candidate_texts: list[str] | None = None) -> None:
        """Fit on the evaluated split's distinct ``texts`` (and, for trained models, ``train_texts``)."""
        self._fit(list(texts), None if train_texts is None else list(train_texts), None if candidate_texts is None else list(candidate_texts))
        self.fitted = True
        self._q_rows, self._d_rows, self._n_rows = [], [], 0

    def _fit(self, texts: list[str], train_texts: list[str] | None, candidate_texts: list[str] | None) -> None:
        raise NotImplementedError

    def _represent(self, texts: list[str]) -> Any:
        """Dense: float array (n, dim). Sparse: (query-side csr, document-side csr)."""
        raise NotImplementedError

    # -- EncoderProtocol ---------------------------------------------------------------------
    def encode(self, inputs: Any, *, task_metadata: Any = None, hf_split: str | None = None, hf_subset: str | None = None, prompt_type: Any = None, **kwargs: Any) -> np.ndarray:
        if not self.fitted:
            raise NotFittedError(
                f"{self.model_name}: this baseline learns from the evaluated texts and must be fitted first "
                "(the project's protocols call mteb_contrastive.protocols.fitting.fit_if_needed); "
                "other tasks cannot use it as a plain encoder"
            )
        texts = texts_of(inputs)
        rep = self._represent(texts)
        if not self.sparse:
            return np.asarray(rep, dtype=np.float32)
        q, d = rep
        keys = np.arange(self._n_rows, self._n_rows + len(texts), dtype=np.float64)[:, None]
        self._q_rows.append(q)
        self._d_rows.append(d)
        self._n_rows += len(texts)
        if self._n_rows >= 2**24:
            raise OverflowError("more than 2**24 sparse rows encoded: row keys are no longer exact in float32")
        return keys

    def _stores(self) -> tuple[Any, Any]:
        import scipy.sparse as sp

        if len(self._q_rows) > 1:
            self._q_rows = [sp.vstack(self._q_rows, format="csr")]
            self._d_rows = [sp.vstack(self._d_rows, format="csr")]
        return self._q_rows[0], self._d_rows[0]

    def _keys(self, e: Any) -> np.ndarray:
        k = _as_numpy(e).reshape(-1)
        return np.rint(k).astype(np.int64)

    def similarity_pairwise(self, embeddings1: Any, embeddings2: Any) -> Any:
        import torch

        if self.sparse:
            q, d = self._stores()
            a, b = self._keys(embeddings1), self._keys(embeddings2)
            s = np.asarray(q[a].multiply(d[b]).sum(axis=1), dtype=np.float64).ravel()
            return torch.as_tensor(s)
        x, y = _normalise(_as_numpy(embeddings1)), _normalise(_as_numpy(embeddings2))
        return torch.as_tensor(np.sum(x.astype(np.float64) * y, axis=1))

    def similarity(self, embeddings1: Any, embeddings2: Any) -> Any:
        import torch

        if self.sparse:
            q, d = self._stores()
            a, b = self._keys(embeddings1), self._keys(embeddings2)
            return torch.as_tensor(np.asarray((q[a] @ d[b].T).todense(), dtype=np.float64))
        x, y = _normalise(_as_numpy(embeddings1)), _normalise(_as_numpy(embeddings2))
        return torch.as_tensor(x.astype(np.float64) @ y.astype(np.float64).T)

    # -- SearchProtocol ----------------------------------------------------------------------
    def index(self, corpus: Any, *, task_metadata: Any = None, hf_split: str | None = None, hf_subset: str | None = None, encode_kwargs: Any = None, num_proc: int | None = None, **kwargs: Any) -> None:
        """Fit on the corpus texts of the evaluated split and store their vectors."""
        texts = [_corpus_text(r) for r in corpus]
        self._corpus_ids = [str(r["id"]) for r in corpus]
        self.fit(texts)
        self.fit_summary["fit_on_retrieval_corpus"] = 1
        rep = self._represent(texts)
        self._corpus_vecs = rep[1] if self.sparse else _normalise(np.asarray(rep, dtype=np.float32))

    def search(self, queries: Any, *, task_metadata: Any = None, hf_split: str | None = None, hf_subset: str | None = None, top_k: int = 100, encode_kwargs: Any = None, top_ranked: Any = None, num_proc: int | None = None, **kwargs: Any) -> dict[str, dict[str, float]]:
        """Exact top-``top_k`` candidates per query (sparse dot / cosine), in chunks of queries."""
        if self._corpus_vecs is None:
            raise NotFittedError("call index() before search()")
        from mteb._create_dataloaders import _combine_queries_with_instruction_text

        qids = [str(i) for i in queries["id"]]
        qtexts = list(_combine_queries_with_instruction_text(queries)["text"])
        k = min(top_k, len(self._corpus_ids))
        results: dict[str, dict[str, float]] = {}
        for start in range(0, len(qids), _QUERY_CHUNK):
            chunk = qtexts[start:start + _QUERY_CHUNK]
            rep = self._represent(chunk)
            if self.sparse:
                scores = np.asarray((rep[0] @ self._corpus_vecs.T).todense(), dtype=np.float32)
            else:
                scores = _normalise(np.asarray(rep, dtype=np.float32)) @ self._corpus_vecs.T
            top = np.argpartition(-scores, k - 1, axis=1)[:, :k] if k < scores.shape[1] else np.tile(np.arange(scores.shape[1]), (len(chunk), 1))
            for i, qid in enumerate(qids[start:start + _QUERY_CHUNK]):
                allowed = set(top_ranked[qid]) if top_ranked and qid in top_ranked else None
                results[qid] = {
                    self._corpus_ids[j]: float(scores[i, j])
                    for j in top[i]
                    if allowed is None or self._corpus_ids[j] in allowed
                }
        return results


def _corpus_text(row: dict[str, Any]) -> str:
    title, text = (row.get("title") or "").strip(), (row.get("text") or "")
    return f"{title} {text}".strip() if title and not text.startswith(title) else text


def _normalise(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    norm = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norm == 0, 1.0, norm)
