"""Cross-encoders in the verification and triplet protocols: the pair is scored directly.

A cross-encoder (mteb ``CrossEncoderProtocol``: ``predict(inputs1, inputs2, ...)``, e.g. mteb's
``CrossEncoderWrapper`` around a sentence-transformers ``CrossEncoder``) gives one score per
(text1, text2) pair; there are no embeddings. The protocols use that score where a bi-encoder
uses the cosine of two embeddings:

* verification (:mod:`mteb_contrastive.protocols.verification`): the score of each (sentence1,
  sentence2) pair; threshold, Platt scaling, abstention and the PAN metrics are unchanged
  (Kirby compares the bi-encoder with exactly such a pair classifier);
* triplet classification (:mod:`mteb_contrastive.protocols.triplet_classification`): the score of
  (anchor, positive) against that of (anchor, negative), strict ``>`` as for cosines.

mteb's pair-classification metrics are kept for the ``similarity`` score only (the cosine,
Euclidean, Manhattan and dot metrics need vectors).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mteb_contrastive.compat import create_dataloader


def is_cross_encoder(model: Any) -> bool:
    """True for an mteb cross-encoder that is not also an encoder."""
    from mteb.models.models_protocols import CrossEncoderProtocol, EncoderProtocol

    return isinstance(model, CrossEncoderProtocol) and not isinstance(model, EncoderProtocol)


def cross_encoder_scores(
    model: Any,
    texts1: list[str],
    texts2: list[str],
    task: Any,
    *,
    hf_split: str,
    hf_subset: str,
    encode_kwargs: dict,
    num_proc: int | None = None,
) -> np.ndarray:
    """``model.predict`` on the pairs ``(texts1[i], texts2[i])`` through mteb's dataloaders.

    Returns:
        float array of shape ``(len(texts1),)`` (higher = more likely the same author).

    Raises:
        ValueError: the two lists differ in length, or the model returns another number of scores.
    """
    from datasets import Dataset

    if len(texts1) != len(texts2):
        raise ValueError(f"{len(texts1)} first texts but {len(texts2)} second texts")
    if not texts1:
        return np.zeros(0)
    loaders = [
        create_dataloader(
            Dataset.from_dict({"text": list(t)}),
            task_metadata=task.metadata,
            input_column="text",
            num_proc=num_proc,
            **encode_kwargs,
        )
        for t in (texts1, texts2)
    ]
    scores = model.predict(
        loaders[0], loaders[1], task_metadata=task.metadata, hf_split=hf_split, hf_subset=hf_subset, **encode_kwargs
    )
    scores = np.asarray(scores.detach().cpu() if hasattr(scores, "detach") else scores, dtype=np.float64).reshape(-1)
    if scores.size != len(texts1):
        raise ValueError(f"the cross-encoder returned {scores.size} scores for {len(texts1)} pairs")
    return scores


def as_distances(scores: np.ndarray) -> dict[str, list[float]]:
    """The cross-encoder score in mteb's ``PairClassificationDistances`` shape (every key the same score;
    keep only ``similarity_*`` metrics)."""
    s = np.asarray(scores, dtype=np.float64).tolist()
    return {
        "similarity_scores": s,
        "cosine_scores": s,
        "euclidean_distances": s,
        "manhattan_distances": s,
        "dot_scores": s,
    }
