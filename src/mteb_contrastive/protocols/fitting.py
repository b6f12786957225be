"""Baselines that learn from the evaluated collection (TF-IDF, BM25, Doc2Vec, ...): their interface.

**Pair scorers.** The project's fitted baselines are not encoders: they implement
:class:`PairScorer` -- ``fit(texts, *, train_texts=None, candidate_texts=None)`` then
``score_pairs(queries, docs)`` -- and mteb's ``SearchProtocol`` for retrieval tasks. The
classification protocols (triplets, IR triplets, verification) test :func:`is_pair_scorer` and
then fit and score texts directly: no embeddings, no row keys, no guessing.

**The fit hook for encoders.** An mteb encoder may also define ``fit(texts: list[str], *,
train_texts: list[str] | None = None) -> None``.
Every protocol of this project that encodes texts calls :func:`fit_if_needed` first with all
distinct texts of the evaluated split (never their labels) and, when the task has one, the texts
of its train split. Neural encoders have no ``fit`` and are untouched.

Optional extras (passed only to a ``fit`` whose signature names them, or takes ``**kwargs``, so
a ``fit(texts, *, train_texts=None)`` keeps working unchanged):

* ``candidate_texts`` -- the distinct candidate texts of the split (positives and negatives of a
  triplet task), the background corpus of the HALvest BM25 protocol.

After fitting, :func:`fit_summary` reads the model's optional ``fit_summary`` attribute (a dict of
numbers saying what it was fitted on) so that protocols can put it in the result scores.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class PairScorer(Protocol):
    """A model that is fitted on the evaluated texts, then scores (query, document) text pairs.

    ``fit(texts, *, train_texts=None, candidate_texts=None)``: ``texts`` are all distinct texts the
    protocol will score (never labels), ``train_texts`` a train split's texts when the task has
    one, ``candidate_texts`` the split's candidates (triplet tasks). ``score_pairs(queries,
    docs)``: float array (n,), the score of ``docs[i]`` for ``queries[i]``, higher = more similar.
    """

    def fit(
        self,
        texts: Sequence[str],
        *,
        train_texts: Sequence[str] | None = None,
        candidate_texts: Sequence[str] | None = None,
    ) -> None: ...

    def score_pairs(self, queries: Sequence[str], docs: Sequence[str]) -> np.ndarray: ...


@runtime_checkable
class VectorScorer(Protocol):
    """A pair scorer whose score is a function of one vector per text and side (TF-IDF, BM25, word
    vectors, Doc2Vec, Delta): ``has_vectors`` True, ``pair_vectors(texts) -> (query side, document
    side)`` (rows: dense arrays or scipy CSR) and ``block_scores(q, d) -> float64 (len(q), len(d))``,
    the score of every document row for every query row (equal to ``score_pairs`` on those pairs).
    The scoring path (:mod:`mteb_contrastive.protocols.scoring`) scores many pairs by blocks with it."""

    has_vectors: bool

    def pair_vectors(self, texts: Sequence[str]) -> tuple[Any, Any]: ...

    def block_scores(self, q: Any, d: Any) -> np.ndarray: ...


def has_vectors(model: Any) -> bool:
    """True when ``model`` is a :class:`VectorScorer` (its ``has_vectors`` true)."""
    return bool(getattr(model, "has_vectors", False)) and callable(getattr(model, "block_scores", None))


def is_pair_scorer(model: Any) -> bool:
    """True when ``model`` implements :class:`PairScorer` (callable ``fit`` and ``score_pairs``)."""
    return callable(getattr(model, "score_pairs", None)) and callable(getattr(model, "fit", None))


def score_pairs(model: PairScorer, queries: Sequence[str], docs: Sequence[str]) -> np.ndarray:
    """``model.score_pairs`` as a float64 array of shape (n,).

    Raises:
        ValueError: the model returned a different number of scores, or NaN.
    """
    s = np.asarray(model.score_pairs(list(queries), list(docs)), dtype=np.float64).ravel()
    if s.size != len(queries):
        raise ValueError(f"{type(model).__name__}.score_pairs returned {s.size} scores for {len(queries)} pairs")
    if np.isnan(s).any():
        raise ValueError(f"{type(model).__name__}.score_pairs returned NaN")
    return s


def _accepted(fit: Any, extras: dict[str, Any]) -> dict[str, Any]:
    try:
        params = inspect.signature(fit).parameters
    except (TypeError, ValueError):
        return {}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return extras
    return {k: v for k, v in extras.items() if k in params}


def fit_if_needed(model: Any, texts: list[str], train_texts: list[str] | None = None, **extras: Any) -> bool:
    """Call ``model.fit(texts, train_texts=train_texts, **accepted extras)`` when the model defines ``fit``.

    Returns:
        True when the model was fitted.
    """
    fit = getattr(model, "fit", None)
    if not callable(fit):
        return False
    extras = {k: (None if v is None else list(v)) for k, v in extras.items()}
    fit(list(texts), train_texts=None if train_texts is None else list(train_texts), **_accepted(fit, extras))
    return True


def fit_summary(model: Any) -> dict[str, float]:
    """The numeric entries of ``model.fit_summary`` (what a fitted baseline learnt from); {} if none."""
    summary = getattr(model, "fit_summary", None)
    if not isinstance(summary, dict):
        return {}
    return {str(k): v for k, v in summary.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
