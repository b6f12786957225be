"""Content independence: how much of an authorship score survives when the topic points the wrong way.

Definitions (``docs/content-independence.md``). Items A = all items of a result; items T = its
*topic-controlled* items, built so that the topic cue points to the wrong answer: same author on
another topic against another author on the same topic (triplets: the positive shares no topic
with the anchor, the negative shares one; verification: same-author pairs of two different
fandoms/topics and different-author pairs of one fandom -- Kirby's validation pairs; retrieval: the
same-author candidates on another topic are the relevant ones, the same-author candidates on the
anchor's topic are removed, the other authors' texts on its topic stay as distractors). A score S
with chance level c_A on A and c_T on T; m a model, t the topic-only reference
(``mteb-contrastive/tfidf-words``, a bag-of-words TF-IDF cosine) on the same items:

* ``ci`` -- the content-independent score, S_T(m); chance c_T. A perfect topic indicator scores
  0 on topic-controlled triplets and an AUC of 0 on topic-controlled pairs: on T, topic is
  worse than chance;
* ``topic_reliance`` = (S_A(m) - c_A) - (S_T(m) - c_T): the margin over chance lost when the topic
  cue is turned against the model; 0 for a random scorer (and for a model that reads no topic);
* ``topic_share`` = (S_A(t) - c_A) / (S_A(m) - c_A): the share of the model's margin over chance
  on all items that the topic reference reaches too; withheld (None) when the model's margin is
  below :data:`MIN_MARGIN`. Above 1: the topic reference beats the model.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mteb_contrastive.data.content import shares_topic

#: smallest margin over chance (S_A(m) - c_A) for which ``topic_share`` is given
MIN_MARGIN = 0.02


def topic_controlled_pairs(labels: Any, topic1: Any, topic2: Any) -> np.ndarray:
    """Mask of the topic-controlled verification pairs: same author (label 1) with different topics,
    or different authors (label 0) with the same topic. Two topics are the same when their topic sets
    meet (:func:`mteb_contrastive.data.content.shares_topic`: NFC, case-folded, ``|``-joined labels
    split), PAN's ``fandoms`` included.

    Returns:
        bool array, shape (n,).
    """
    labels = np.asarray(labels).astype(int)
    same_topic = np.array([shares_topic(a, b) for a, b in zip(topic1, topic2)], dtype=bool)
    return ((labels == 1) & ~same_topic) | ((labels == 0) & same_topic)


def roc_auc(labels: Any, scores: Any) -> float:
    """ROC AUC (scikit-learn ``roc_auc_score``; tied scores count one half); NaN unless both classes occur."""
    from sklearn.metrics import roc_auc_score

    labels = np.asarray(labels).astype(int)
    if labels.size == 0 or labels.min() == labels.max():
        return float("nan")
    return float(roc_auc_score(labels, np.asarray(scores, dtype=np.float64)))


def verification_topic_scores(labels: Any, scores: Any, topic1: Any, topic2: Any) -> dict[str, Any]:
    """``auc`` (all test pairs) and ``auc_topic_controlled`` (the pairs of :func:`topic_controlled_pairs`)
    of a verification result, with ``n_pairs_topic_controlled`` and ``n_same_author_topic_controlled``;
    ``topic_controlled_withheld`` says why the second is NaN (a class missing among those pairs)."""
    labels = np.asarray(labels).astype(int)
    scores = np.asarray(scores, dtype=np.float64)
    mask = topic_controlled_pairs(labels, topic1, topic2)
    out: dict[str, Any] = {
        "auc": roc_auc(labels, scores),
        "auc_topic_controlled": roc_auc(labels[mask], scores[mask]),
        "n_pairs_topic_controlled": int(mask.sum()),
        "n_same_author_topic_controlled": int(labels[mask].sum()),
    }
    if math.isnan(out["auc_topic_controlled"]):
        out["topic_controlled_withheld"] = (
            f"{out['n_same_author_topic_controlled']} same-author pairs on different topics and "
            f"{out['n_pairs_topic_controlled'] - out['n_same_author_topic_controlled']} different-author pairs "
            "on one topic: both are needed"
        )
    return out


def content_independence(
    all_m: float | None,
    tc_m: float | None,
    chance_all: float,
    chance_tc: float,
    all_t: float | None = None,
) -> dict[str, float | None]:
    """The figures of the module docstring for one result (None where an input is missing or NaN).

    Args:
        all_m, tc_m: the model's score on all items and on the topic-controlled items.
        chance_all, chance_tc: their chance levels.
        all_t: the topic reference's score on all items (None: not run).

    Returns:
        ``{"ci": S_T(m), "topic_reliance": ..., "topic_share": ...}``.
    """

    def ok(v: float | None) -> bool:
        return v is not None and not (isinstance(v, float) and math.isnan(v))

    margin = all_m - chance_all if ok(all_m) else None
    return {
        "ci": tc_m if ok(tc_m) else None,
        "topic_reliance": margin - (tc_m - chance_tc) if ok(all_m) and ok(tc_m) else None,
        "topic_share": (all_t - chance_all) / margin
        if ok(all_t) and margin is not None and margin >= MIN_MARGIN
        else None,
    }
