"""Exact chance levels of a random ranking: hand values, a brute-force enumeration, the paper's 10/14,300."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from mteb_contrastive.metrics.chance import (
    expected_hit_rate,
    expected_mrr,
    expected_ndcg,
    expected_precision,
    expected_recall,
    expected_scores,
    random_ranking_scores,
)


def test_hand_values_pool_4_two_relevant():
    # N = 4, R = 2. k = 1: P(top-1 relevant) = 1/2 -> hit = nDCG = MRR = 1/2, recall = 1/4
    assert expected_hit_rate(4, 2, 1) == pytest.approx(0.5)
    assert expected_recall(4, 2, 1) == pytest.approx(0.25)
    assert expected_ndcg(4, 2, 1) == pytest.approx(0.5)
    assert expected_mrr(4, 2, 1) == pytest.approx(0.5)
    assert expected_precision(4, 2, 1) == pytest.approx(0.5)
    # k = 2: hit = 1 - C(2,2)/C(4,2) = 5/6; MRR = 1 * 3/6 + 1/2 * 2/6 = 2/3; nDCG = 1/2 (each position p = 1/2)
    assert expected_hit_rate(4, 2, 2) == pytest.approx(5 / 6)
    assert expected_mrr(4, 2, 2) == pytest.approx(2 / 3)
    assert expected_ndcg(4, 2, 2) == pytest.approx(0.5)
    # k beyond the pool: everything is retrieved
    assert expected_hit_rate(4, 2, 10) == 1.0 and expected_recall(4, 2, 10) == 1.0
    assert expected_precision(4, 2, 10) == pytest.approx(4 * 2 / (4 * 10))


def test_paper_chance_level_is_10_over_14300():
    s = expected_scores(14300, 1, (10,))
    assert s["hit_rate_at_10"] == pytest.approx(10 / 14300, rel=1e-9)
    assert s["recall_at_10"] == pytest.approx(10 / 14300, rel=1e-12)
    # nDCG@10 of one relevant candidate: sum of the first 10 discounts / N (4.5436 / 14300), not 10 / N
    assert s["ndcg_at_10"] == pytest.approx(sum(1 / math.log2(i + 1) for i in range(1, 11)) / 14300)


@pytest.mark.parametrize("n,r,k", [(6, 2, 3), (7, 3, 2), (5, 1, 4), (6, 4, 5)])
def test_equals_the_mean_over_every_ranking(n, r, k):
    """Enumerate every placement of the r relevant candidates among n positions."""
    d = 1 / np.log2(np.arange(2, n + 2))
    idcg = d[: min(r, k)].sum()
    vals = {"ndcg": [], "hit": [], "recall": [], "mrr": []}
    for pos in itertools.combinations(range(n), r):
        top = [p for p in pos if p < k]
        vals["ndcg"].append(sum(d[p] for p in top) / idcg)
        vals["hit"].append(1.0 if top else 0.0)
        vals["recall"].append(len(top) / r)
        vals["mrr"].append(1 / (min(pos) + 1) if min(pos) < k else 0.0)
    assert expected_ndcg(n, r, k) == pytest.approx(np.mean(vals["ndcg"]))
    assert expected_hit_rate(n, r, k) == pytest.approx(np.mean(vals["hit"]))
    assert expected_recall(n, r, k) == pytest.approx(np.mean(vals["recall"]))
    assert expected_mrr(n, r, k) == pytest.approx(np.mean(vals["mrr"]))


def test_mean_over_queries_skips_queries_without_relevant():
    s = random_ranking_scores([(4, 2), (4, 0), (3, 1)], (1,))
    assert s["random_hit_rate_at_1"] == pytest.approx((0.5 + 1 / 3) / 2)
    assert math.isnan(random_ranking_scores([(4, 0)], (1,))["random_ndcg_at_1"])


def test_bad_arguments():
    with pytest.raises(ValueError, match="n_relevant"):
        expected_ndcg(4, 5, 10)
    with pytest.raises(ValueError, match="k must be"):
        expected_hit_rate(4, 1, 0)
