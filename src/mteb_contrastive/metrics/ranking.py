"""Ranking metrics for one relevant item per query (QuoteR, Qi et al., ACL 2022).

Rank rule (ties): the gold's 1-based rank is ``1 + number of candidates scored strictly higher``
than the gold, so a tie is resolved in the gold's favour and the rank does not depend on the order
of tied candidates. Ranks are over the *full* candidate pool (nothing truncated).

Metrics of a list of ranks ``r_1..r_n`` (one per query):

* MRR = mean(1 / r_i), full ranking;
* NDCG@k with one relevant item = mean(1 / log2(r_i + 1) if r_i <= k else 0) (the ideal DCG is 1);
* Recall@k = mean(r_i <= k);
* median rank = the median of the ranks (numpy's: the mean of the two middle values for even n).

Example:
    >>> import numpy as np
    >>> gold_ranks(np.array([[0.9, 0.5, 0.9, 0.1]]), np.array([2]))  # one tie above the gold -> rank 1
    array([1])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

DEFAULT_KS = (1, 10, 100)


def gold_ranks(scores: np.ndarray, gold: Sequence[int] | np.ndarray) -> np.ndarray:
    """1-based ranks of the gold candidates, one per row.

    Args:
        scores: (n_queries, n_candidates) scores, higher is better.
        gold: (n_queries,) column of each query's gold candidate.

    Returns:
        (n_queries,) int ranks = 1 + #(scores[i] > scores[i, gold[i]]).
    """
    scores = np.asarray(scores)
    gold = np.asarray(gold, dtype=np.int64)
    g = scores[np.arange(scores.shape[0]), gold]
    return 1 + (scores > g[:, None]).sum(axis=1)


def rank_of(score_of_gold: float, other_scores: Iterable[float]) -> int:
    """Rank of a gold with score ``score_of_gold`` among ``other_scores`` (which may include it)."""
    return 1 + sum(1 for s in other_scores if s > score_of_gold)


def mrr(ranks: Sequence[int] | np.ndarray) -> float:
    r = np.asarray(ranks, dtype=np.float64)
    return float(np.mean(1.0 / r)) if r.size else float("nan")


def ndcg_at_k(ranks: Sequence[int] | np.ndarray, k: int = 5) -> float:
    r = np.asarray(ranks, dtype=np.float64)
    if not r.size:
        return float("nan")
    return float(np.mean(np.where(r <= k, 1.0 / np.log2(r + 1.0), 0.0)))


def recall_at_k(ranks: Sequence[int] | np.ndarray, k: int) -> float:
    r = np.asarray(ranks)
    return float(np.mean(r <= k)) if r.size else float("nan")


def median_rank(ranks: Sequence[int] | np.ndarray) -> float:
    r = np.asarray(ranks, dtype=np.float64)
    return float(np.median(r)) if r.size else float("nan")


def ranking_metrics(ranks: Sequence[int] | np.ndarray, ks: Sequence[int] = DEFAULT_KS, ndcg_k: int = 5) -> dict[str, float]:
    """``mrr``, ``ndcg_at_<ndcg_k>``, ``recall_at_<k>`` for each k, ``median_rank``, ``mean_rank``."""
    out = {"mrr": mrr(ranks), f"ndcg_at_{ndcg_k}": ndcg_at_k(ranks, ndcg_k)}
    out.update({f"recall_at_{k}": recall_at_k(ranks, k) for k in ks})
    out["median_rank"] = median_rank(ranks)
    out["mean_rank"] = float(np.mean(ranks)) if len(ranks) else float("nan")
    return out
