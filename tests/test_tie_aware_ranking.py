"""Tie-aware QuoteR metrics, computed by hand: exact expectations over a random order within ties."""

import math

import numpy as np
import pytest

from mteb_contrastive.metrics.ranking import (
    expected_hit_at_k,
    expected_ndcg_at_k,
    expected_reciprocal_rank,
    gold_tie_ranges,
    tie_aware_metrics,
    tie_range_of,
)


def test_constant_scorer_over_five_distinct_quotes():
    # issue 8: a constant scorer, the gold among 5 candidates -> rank uniform on {1..5}
    h, t = gold_tie_ranges(np.zeros((1, 5)), [3])
    assert (h.tolist(), t.tolist()) == ([0], [5])
    m = tie_aware_metrics(h, t, ks=(1, 10, 100), ndcg_k=5)
    assert m["mrr_tie_expected"] == pytest.approx((1 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5) / 5)
    assert round(m["mrr_tie_expected"], 5) == 0.45667
    assert m["mrr_optimistic"] == 1.0 and m["mrr_pessimistic"] == pytest.approx(0.2)
    assert m["ndcg_at_5_tie_expected"] == pytest.approx(sum(1 / math.log2(r + 1) for r in range(1, 6)) / 5)
    assert m["ndcg_at_5_optimistic"] == 1.0 and m["ndcg_at_5_pessimistic"] == pytest.approx(1 / math.log2(6))
    assert m["recall_at_1_tie_expected"] == pytest.approx(0.2)
    assert m["recall_at_1_optimistic"] == 1.0 and m["recall_at_1_pessimistic"] == 0.0
    assert m["recall_at_10_tie_expected"] == 1.0  # every possible rank is within 10
    assert (
        m["median_rank_tie_expected"] == 3.0
        and m["median_rank_optimistic"] == 1.0
        and m["median_rank_pessimistic"] == 5.0
    )
    assert m["n_gold_tied"] == 1 and m["max_gold_tie"] == 5


def test_mixed_ties_by_hand():
    # query 0: 2 above, tied with 2 others -> ranks {3, 4, 5}; query 1: untied at rank 1; query 2: 8 above,
    # 4 tied -> {9..12}
    h, t = np.array([2, 0, 8]), np.array([3, 1, 4])
    rr = expected_reciprocal_rank(h, t)
    assert rr.tolist() == pytest.approx([(1 / 3 + 1 / 4 + 1 / 5) / 3, 1.0, (1 / 9 + 1 / 10 + 1 / 11 + 1 / 12) / 4])
    nd = expected_ndcg_at_k(h, t, 5)
    assert nd.tolist() == pytest.approx([(1 / math.log2(4) + 1 / math.log2(5) + 1 / math.log2(6)) / 3, 1.0, 0.0])
    assert expected_hit_at_k(h, t, 10).tolist() == pytest.approx([1.0, 1.0, 2 / 4])  # ranks 9, 10 of {9..12}
    assert expected_hit_at_k(h, t, 4).tolist() == pytest.approx([2 / 3, 1.0, 0.0])
    m = tie_aware_metrics(h, t, ks=(1, 10), ndcg_k=5)
    assert m["mrr_tie_expected"] == pytest.approx(float(np.mean(rr)))
    assert m["recall_at_10_tie_expected"] == pytest.approx((1 + 1 + 0.5) / 3)
    assert m["recall_at_10_optimistic"] == 1.0 and m["recall_at_10_pessimistic"] == pytest.approx(2 / 3)
    # expected ranks 4, 1, 10.5
    assert m["median_rank_tie_expected"] == 4.0 and m["mean_rank_tie_expected"] == pytest.approx(15.5 / 3)
    assert m["mrr_optimistic"] == pytest.approx((1 / 3 + 1 + 1 / 9) / 3)
    assert m["mrr_pessimistic"] == pytest.approx((1 / 5 + 1 + 1 / 12) / 3)
    assert m["n_gold_tied"] == 2


def test_no_ties_all_rules_agree():
    m = tie_aware_metrics([0, 5, 200], [1, 1, 1])
    for name in ("mrr", "ndcg_at_5", "recall_at_1", "recall_at_10", "recall_at_100", "median_rank", "mean_rank"):
        assert (
            m[f"{name}_tie_expected"]
            == pytest.approx(m[f"{name}_optimistic"])
            == pytest.approx(m[f"{name}_pessimistic"])
        )
    assert m["mrr_tie_expected"] == pytest.approx((1 + 1 / 6 + 1 / 201) / 3)
    assert m["n_gold_tied"] == 0


def test_large_tie_is_exact_not_sampled():
    # 11,084 candidates all tied: E[1/rank] = H_n / n, E[rank] = (n + 1) / 2
    n = 11084
    m = tie_aware_metrics([0], [n], ks=(100,))
    assert m["mrr_tie_expected"] == pytest.approx(sum(1 / r for r in range(1, n + 1)) / n, rel=1e-12)
    assert m["recall_at_100_tie_expected"] == pytest.approx(100 / n)
    assert m["median_rank_tie_expected"] == (n + 1) / 2


def test_tie_range_of_and_bad_input():
    assert tie_range_of(0.5, [0.5, 0.9, 0.5, 0.1]) == (1, 2)
    with pytest.raises(ValueError, match="not among"):
        tie_range_of(0.3, [0.5, 0.9])
    with pytest.raises(ValueError, match="t >= 1"):
        tie_aware_metrics([0], [0])
