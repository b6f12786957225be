"""The fit hook for baselines that learn from the evaluated collection (TF-IDF, Doc2Vec, ...).

Contract: a model object may define ``fit(texts: list[str], *, train_texts: list[str] | None = None) -> None``.
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
from typing import Any


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
