"""Exact expected retrieval scores of a uniformly random ranking (the chance level of a pool).

A random ranking puts the ``n_relevant`` relevant candidates of a pool of ``pool_size`` at a
uniformly random set of positions. The number of relevant candidates in the top ``k`` is then
hypergeometric (population ``N = pool_size``, ``R = n_relevant`` successes, ``m = min(k, N)``
draws), which gives every expectation below exactly (no sampling):

* ``hit_rate@k`` (mteb ``hit_rate_at_k``, trec_eval ``success_k``: the query has at least one
  relevant candidate in its top k): ``1 - C(N-R, m) / C(N, m)``;
* ``recall@k`` (mteb ``recall_at_k``, trec_eval ``recall_k``: share of the relevant candidates
  in the top k): ``m / N``;
* ``precision@k`` (trec_eval ``P_k``, divided by k): ``m * R / (N * k)``;
* ``nDCG@k`` (trec_eval ``ndcg_cut_k``, binary gains, ``1/log2(i+1)`` discount): each position
  holds a relevant candidate with probability ``R / N`` and the ideal DCG is a constant, so
  ``E[nDCG@k] = (R/N) * sum_{i=1..m} 1/log2(i+1) / sum_{i=1..min(R,k)} 1/log2(i+1)``;
* ``MRR@k`` (reciprocal rank of the first relevant candidate, 0 beyond k):
  ``sum_{i=1..m} (1/i) * C(N-i, R-1) / C(N, R)`` (the first relevant one is at rank i).

The paper's chance level for HALvest-Contrastive retrieval (Kulumba et al., arXiv 2407.20595) is
quoted as 10/14,300 = 0.07%: the recall@10 / hit rate@10 of one relevant candidate in a pool of
14,300 (``expected_scores(14300, 1)["hit_rate_at_10"]`` = 0.000699...).

A query with no relevant candidate is left out of every mean, as mteb does
(``_filter_queries_without_positives``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence

import numpy as np

#: the candidate-pool size of the paper's HALvest-Contrastive retrieval evaluation (its "10/14,300")
PAPER_POOL_SIZE = 14_300


def _check(pool_size: int, n_relevant: int, k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if pool_size < 1:
        raise ValueError(f"pool_size must be >= 1, got {pool_size}")
    if not 1 <= n_relevant <= pool_size:
        raise ValueError(f"n_relevant must be in 1..pool_size ({pool_size}), got {n_relevant}")


def expected_hit_rate(pool_size: int, n_relevant: int, k: int) -> float:
    """E[hit rate@k] = P(at least one relevant in the top k) = ``1 - C(N-R, m)/C(N, m)``, m = min(k, N).

    ``C(N-R, m)/C(N, m) = prod_{i<m} (1 - R/(N-i))``, summed in log1p and turned back with expm1
    so that ``10/14,300`` keeps its digits.

    Raises:
        ValueError: k < 1, pool_size < 1 or n_relevant outside 1..pool_size.
    """
    _check(pool_size, n_relevant, k)
    m = min(k, pool_size)
    if m > pool_size - n_relevant:
        return 1.0
    log_miss = math.fsum(math.log1p(-n_relevant / (pool_size - i)) for i in range(m))
    return float(-math.expm1(log_miss))


def expected_recall(pool_size: int, n_relevant: int, k: int) -> float:
    """E[recall@k] = ``min(k, N) / N`` (each relevant candidate is in the top k with that probability)."""
    _check(pool_size, n_relevant, k)
    return min(k, pool_size) / pool_size


def expected_precision(pool_size: int, n_relevant: int, k: int) -> float:
    """E[precision@k] = ``min(k, N) * R / (N * k)`` (trec_eval divides by k even when N < k)."""
    _check(pool_size, n_relevant, k)
    return min(k, pool_size) * n_relevant / (pool_size * k)


def _discounts(n: int) -> np.ndarray:
    return 1.0 / np.log2(np.arange(2, n + 2, dtype=np.float64))


def expected_ndcg(pool_size: int, n_relevant: int, k: int) -> float:
    """E[nDCG@k] with binary gains: ``(R/N) * sum_{i<=m} d_i / sum_{i<=min(R,k)} d_i``, ``d_i = 1/log2(i+1)``."""
    _check(pool_size, n_relevant, k)
    m = min(k, pool_size)
    return float(n_relevant / pool_size * _discounts(m).sum() / _discounts(min(n_relevant, k)).sum())


@functools.lru_cache(maxsize=4096)
def expected_mrr(pool_size: int, n_relevant: int, k: int) -> float:
    """E[MRR@k] = ``sum_{i=1..min(k,N)} (1/i) * P(first relevant at rank i)``, hypergeometric.

    ``P(first relevant at rank i) = C(N-i, R-1) / C(N, R)``. A sum of up to N terms, memoised on
    (N, R, k): the queries of one task share a few (pool, relevant) pairs (a report's retrieval chance
    levels took seconds recomputing them per query).
    """
    _check(pool_size, n_relevant, k)
    n, r = pool_size, n_relevant
    total = 0.0
    log_c_nr = math.lgamma(n + 1) - math.lgamma(r + 1) - math.lgamma(n - r + 1)
    for i in range(1, min(k, n - r + 1) + 1):
        a = n - i
        log_c = math.lgamma(a + 1) - math.lgamma(r) - math.lgamma(a - r + 2)  # C(N-i, R-1)
        total += math.exp(log_c - log_c_nr) / i
    return float(total)


def expected_rr(pool_size: int, n_relevant: int = 1) -> float:
    """E[RR] over the full ranking (no cut-off): :func:`expected_mrr` with ``k = N``; ``H_N / N`` for one
    relevant candidate (its rank is uniform on 1..N)."""
    return expected_mrr(pool_size, n_relevant, pool_size)


_METRICS = {
    "ndcg": expected_ndcg,
    "hit_rate": expected_hit_rate,
    "recall": expected_recall,
    "precision": expected_precision,
    "mrr": expected_mrr,
}


def expected_scores(pool_size: int, n_relevant: int, k_values: Sequence[int] = (10,)) -> dict[str, float]:
    """Expected ``<metric>_at_<k>`` of one query (metric in ndcg, hit_rate, recall, precision, mrr)."""
    return {f"{name}_at_{k}": fn(pool_size, n_relevant, k) for k in k_values for name, fn in _METRICS.items()}


def random_ranking_scores(
    queries: Iterable[tuple[int, int]], k_values: Sequence[int] = (10,), prefix: str = "random_"
) -> dict[str, float]:
    """Mean expected scores over queries, each given as ``(pool_size, n_relevant)``.

    Queries with ``n_relevant == 0`` are skipped (mteb drops them from every mean); with no query
    left, every value is NaN.

    Returns:
        ``{prefix + "<metric>_at_<k>": mean}`` for metric in ndcg, hit_rate, recall, precision, mrr.
    """
    sums: dict[str, float] = {}
    n = 0
    cache: dict[tuple[int, int], dict[str, float]] = {}
    for pool, rel in queries:
        if rel == 0:
            continue
        key = (int(pool), int(rel))
        if key not in cache:
            cache[key] = expected_scores(key[0], key[1], k_values)
        for name, v in cache[key].items():
            sums[name] = sums.get(name, 0.0) + v
        n += 1
    names = [f"{m}_at_{k}" for k in k_values for m in _METRICS]
    return {prefix + name: (sums[name] / n if n else float("nan")) for name in names}
