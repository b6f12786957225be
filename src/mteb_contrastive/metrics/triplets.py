"""Triplet accuracy with the HALvest-Contrastive tie rule."""

from __future__ import annotations

import numpy as np


def triplet_accuracy(sim_positive: np.ndarray, sim_negative: np.ndarray) -> float:
    """Share of triplets whose anchor is strictly closer to the positive than to the negative.

    ``accuracy = mean(sim(a, p) > sim(a, n))`` with a strict ``>``: a tie counts as an error,
    as in the paper's evaluation code (``(pos_scores > neg_scores).float().mean()`` in
    ``halvesting_contrastive/callbacks/retrieval_evaluation.py``; ``scores[0] > scores[1]`` in
    ``bm25_experiments.py``).

    Args:
        sim_positive: shape (n,), similarity of each anchor to its positive (higher = closer).
        sim_negative: shape (n,), similarity of each anchor to its negative.

    Returns:
        accuracy in [0, 1]; NaN when n == 0.

    Raises:
        ValueError: shapes differ, or a score is NaN.
    """
    p = np.asarray(sim_positive, dtype=np.float64).ravel()
    n = np.asarray(sim_negative, dtype=np.float64).ravel()
    if p.shape != n.shape:
        raise ValueError(f"positive and negative scores differ in shape: {p.shape} vs {n.shape}")
    if np.isnan(p).any() or np.isnan(n).any():
        raise ValueError(f"NaN similarity scores: {int(np.isnan(p).sum())} positive, {int(np.isnan(n).sum())} negative")
    if p.size == 0:
        return float("nan")
    return float(np.mean(p > n))
