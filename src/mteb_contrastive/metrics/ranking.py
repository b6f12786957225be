"""Ranking metrics for one relevant item per query, with exact tie handling (QuoteR, Qi et al., ACL 2022).

Ties. A gold candidate that ``h`` candidates score strictly higher and ``t - 1`` others score
exactly the same (``t >= 1`` counts the gold itself) has no single rank: any order within the
tie puts it somewhere in ``{h + 1, ..., h + t}``. Three rules are reported, each under its own name:

* ``tie_expected`` (the main values): the tied candidates are in a uniformly random order, so the
  gold's rank is uniform on ``{h + 1, ..., h + t}``; each metric is its exact expectation over
  that range (no sampling):

  - reciprocal rank: ``(1/t) * sum_{r=h+1}^{h+t} 1/r``;
  - NDCG@k contribution (one relevant item, ideal DCG 1): ``(1/t) * sum_{r=h+1}^{min(h+t, k)} 1/log2(r+1)``;
  - hit within k (Recall@k with one relevant item): ``P(rank <= k) = clip(k - h, 0, t) / t``;
  - rank: ``h + (t + 1) / 2``; the reported median rank is the median over queries of this
    expected rank, the mean rank its mean;

* ``optimistic``: rank ``h + 1`` (the gold first among its ties). The official QuoteR scripts' MRR
  and NDCG@5 use this rule: ``rank_gold`` takes ``sorted(predict, reverse=True).index(gold_score)``,
  the first position of the gold's score (thunlp/QuoteR ``english_train_test.py`` lines 407-420,
  ``MRR = np.average([1.0 / (r + 1) ...])`` line 493 of ``modern_chinese_train_test.py``);
  their Recall@k reads ``np.argsort(-predicts)`` (line 436), i.e. numpy's arbitrary order within
  a tie, which none of the three rules reproduces;
* ``pessimistic``: rank ``h + t`` (the gold last among its ties).

For a model without ties (``t = 1`` everywhere) the three agree. A constant scorer over ``n``
candidates has ``h = 0, t = n``: expected MRR ``H_n / n``, optimistic 1, pessimistic ``1/n``.

Metrics of ranks ``r_1..r_n`` (one per query, one rule): MRR = mean(1/r_i) over the full ranking;
NDCG@k = mean(1/log2(r_i + 1) if r_i <= k else 0); Recall@k = mean(r_i <= k); median rank = numpy's
median (mean of the two middle values for an even n).

Example:
    >>> import numpy as np
    >>> h, t = gold_tie_ranges(np.array([[0.9, 0.5, 0.9, 0.1]]), np.array([2]))
    >>> h.tolist(), t.tolist()   # nothing strictly above the gold, tied with candidate 0
    ([0], [2])
    >>> round(tie_aware_metrics(h, t)["mrr_tie_expected"], 4)   # (1 + 1/2) / 2
    0.75
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

DEFAULT_KS = (1, 10, 100)
#: the three tie rules, in the order they appear in results
TIE_RULES = ("tie_expected", "optimistic", "pessimistic")


def gold_ranks(scores: np.ndarray, gold: Sequence[int] | np.ndarray) -> np.ndarray:
    """Optimistic 1-based ranks of the gold candidates, one per row: ``1 + #(scores[i] > scores[i, gold[i]])``.

    Args:
        scores: (n_queries, n_candidates) scores, higher is better.
        gold: (n_queries,) column of each query's gold candidate.
    """
    h, _ = gold_tie_ranges(scores, gold)
    return h + 1


def gold_tie_ranges(scores: np.ndarray, gold: Sequence[int] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: ``h`` = candidates scored strictly higher than the gold, ``t`` = candidates scored equal
    (gold included).

    Args:
        scores: (n_queries, n_candidates) scores, higher is better (no NaN).
        gold: (n_queries,) column of each query's gold candidate.

    Returns:
        (h, t), two (n_queries,) int64 arrays; ``t >= 1``.
    """
    scores = np.asarray(scores)
    gold = np.asarray(gold, dtype=np.int64)
    g = scores[np.arange(scores.shape[0]), gold][:, None]
    return (scores > g).sum(axis=1).astype(np.int64), (scores == g).sum(axis=1).astype(np.int64)


def rank_of(score_of_gold: float, other_scores: Iterable[float]) -> int:
    """Optimistic rank of a gold with score ``score_of_gold`` among ``other_scores`` (which may include it)."""
    return 1 + sum(1 for s in other_scores if s > score_of_gold)


def tie_range_of(score_of_gold: float, pool_scores: Iterable[float]) -> tuple[int, int]:
    """``(h, t)`` of a gold among ``pool_scores``, which must include the gold's own score.

    Raises:
        ValueError: ``pool_scores`` does not contain ``score_of_gold``.
    """
    h = t = 0
    for s in pool_scores:
        h += s > score_of_gold
        t += s == score_of_gold
    if t < 1:
        raise ValueError(f"the gold's score {score_of_gold!r} is not among the pool scores")
    return int(h), int(t)


def mrr(ranks: Sequence[int] | np.ndarray) -> float:
    """Mean reciprocal rank of 1-based ranks (NaN for no ranks)."""
    r = np.asarray(ranks, dtype=np.float64)
    return float(np.mean(1.0 / r)) if r.size else float("nan")


def ndcg_at_k(ranks: Sequence[int] | np.ndarray, k: int = 5) -> float:
    """NDCG@k with one relevant item per query: mean(1/log2(r+1) if r <= k else 0)."""
    r = np.asarray(ranks, dtype=np.float64)
    if not r.size:
        return float("nan")
    return float(np.mean(np.where(r <= k, 1.0 / np.log2(r + 1.0), 0.0)))


def recall_at_k(ranks: Sequence[int] | np.ndarray, k: int) -> float:
    """Share of queries whose gold rank is <= k."""
    r = np.asarray(ranks)
    return float(np.mean(r <= k)) if r.size else float("nan")


def median_rank(ranks: Sequence[int] | np.ndarray) -> float:
    """numpy's median of the ranks (mean of the two middle values for an even count)."""
    r = np.asarray(ranks, dtype=np.float64)
    return float(np.median(r)) if r.size else float("nan")


def ranking_metrics(
    ranks: Sequence[int] | np.ndarray, ks: Sequence[int] = DEFAULT_KS, ndcg_k: int = 5
) -> dict[str, float]:
    """``mrr``, ``ndcg_at_<ndcg_k>``, ``recall_at_<k>`` for each k, ``median_rank``, ``mean_rank`` of given ranks."""
    out = {"mrr": mrr(ranks), f"ndcg_at_{ndcg_k}": ndcg_at_k(ranks, ndcg_k)}
    out.update({f"recall_at_{k}": recall_at_k(ranks, k) for k in ks})
    out["median_rank"] = median_rank(ranks)
    out["mean_rank"] = float(np.mean(ranks)) if len(ranks) else float("nan")
    return out


def _check(h: np.ndarray, t: np.ndarray) -> None:
    if h.shape != t.shape:
        raise ValueError(f"h and t differ in shape: {h.shape} vs {t.shape}")
    if h.size and (h.min() < 0 or t.min() < 1):
        raise ValueError("need h >= 0 (candidates strictly above the gold) and t >= 1 (tie size, gold included)")


def expected_reciprocal_rank(h: Sequence[int] | np.ndarray, t: Sequence[int] | np.ndarray) -> np.ndarray:
    """Per query, ``E[1/rank]`` for a rank uniform on ``{h+1..h+t}``: ``(H_{h+t} - H_h) / t`` (exact prefix sums)."""
    h, t = np.asarray(h, dtype=np.int64), np.asarray(t, dtype=np.int64)
    _check(h, t)
    if not h.size:
        return np.zeros(0)
    harmonic = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, int((h + t).max()) + 1, dtype=np.float64))])
    return (harmonic[h + t] - harmonic[h]) / t


def expected_ndcg_at_k(h: Sequence[int] | np.ndarray, t: Sequence[int] | np.ndarray, k: int) -> np.ndarray:
    """Per query, ``E[1/log2(rank+1) if rank <= k else 0]`` for a rank uniform on ``{h+1..h+t}``."""
    h, t = np.asarray(h, dtype=np.int64), np.asarray(t, dtype=np.int64)
    _check(h, t)
    gains = np.concatenate([[0.0], np.cumsum(1.0 / np.log2(np.arange(1, k + 1, dtype=np.float64) + 1.0))])
    return (gains[np.minimum(h + t, k)] - gains[np.minimum(h, k)]) / t


def expected_hit_at_k(h: Sequence[int] | np.ndarray, t: Sequence[int] | np.ndarray, k: int) -> np.ndarray:
    """Per query, ``P(rank <= k) = clip(k - h, 0, t) / t`` for a rank uniform on ``{h+1..h+t}``."""
    h, t = np.asarray(h, dtype=np.int64), np.asarray(t, dtype=np.int64)
    _check(h, t)
    return np.clip(k - h, 0, t) / t


def tie_aware_metrics(
    h: Sequence[int] | np.ndarray, t: Sequence[int] | np.ndarray, ks: Sequence[int] = DEFAULT_KS, ndcg_k: int = 5
) -> dict[str, float]:
    """Every metric under the three tie rules (module docstring), plus the tie counts.

    Args:
        h: (n,) candidates scored strictly higher than each query's gold.
        t: (n,) candidates scored equal to the gold, the gold included (>= 1).
        ks: the Recall@k cut-offs; ndcg_k: the NDCG cut-off.

    Returns:
        ``<metric>_<rule>`` for metric in ``mrr``, ``ndcg_at_<ndcg_k>``, ``recall_at_<k>``,
        ``median_rank``, ``mean_rank`` and rule in :data:`TIE_RULES`; ``n_gold_tied`` (queries whose
        gold ties with at least one other candidate) and ``max_gold_tie`` (the largest ``t``).
        Values in [0, 1] except the ranks (1-based) and the counts.

    Raises:
        ValueError: shapes differ, ``h < 0`` or ``t < 1``.
    """
    h, t = np.asarray(h, dtype=np.int64), np.asarray(t, dtype=np.int64)
    _check(h, t)
    nan = float("nan")
    mean = (lambda a: float(np.mean(a))) if h.size else (lambda a: nan)
    out: dict[str, float] = {
        "mrr_tie_expected": mean(expected_reciprocal_rank(h, t)),
        f"ndcg_at_{ndcg_k}_tie_expected": mean(expected_ndcg_at_k(h, t, ndcg_k)),
        **{f"recall_at_{k}_tie_expected": mean(expected_hit_at_k(h, t, k)) for k in ks},
        "median_rank_tie_expected": median_rank(h + (t + 1) / 2.0),
        "mean_rank_tie_expected": mean(h + (t + 1) / 2.0),
    }
    for rule, ranks in (("optimistic", h + 1), ("pessimistic", h + t)):
        out.update({f"{k}_{rule}": v for k, v in ranking_metrics(ranks, ks, ndcg_k).items()})
    out["n_gold_tied"] = int((t > 1).sum())
    out["max_gold_tie"] = int(t.max()) if t.size else 0
    return out
