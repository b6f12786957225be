"""The fit hook for baselines that learn from the evaluated collection (TF-IDF, Doc2Vec, ...).

Contract: a model object may define ``fit(texts: list[str], *, train_texts: list[str] | None = None) -> None``.
Every protocol of this project that encodes texts calls :func:`fit_if_needed` first with all
distinct texts of the evaluated split (never their labels) and, when the task has one, the texts
of its train split. Neural encoders have no ``fit`` and are untouched.
"""

from __future__ import annotations

from typing import Any


def fit_if_needed(model: Any, texts: list[str], train_texts: list[str] | None = None) -> bool:
    """Call ``model.fit(texts, train_texts=train_texts)`` when the model defines ``fit``.

    Returns:
        True when the model was fitted.
    """
    fit = getattr(model, "fit", None)
    if not callable(fit):
        return False
    fit(list(texts), train_texts=None if train_texts is None else list(train_texts))
    return True
