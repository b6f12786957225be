"""Hand-computed ranking metrics of given ranks; `gold_ranks` is the optimistic rule
(1 + candidates strictly higher)."""

import math

import numpy as np
import pytest

from mteb_contrastive.metrics.ranking import (
    gold_ranks,
    median_rank,
    mrr,
    ndcg_at_k,
    rank_of,
    ranking_metrics,
    recall_at_k,
)


def test_gold_ranks_with_ties():
    scores = np.array(
        [
            [0.5, 0.9, 0.5, 0.1],  # gold 0: one strictly higher (0.9); the tie at 0.5 does not count -> 2
            [0.3, 0.3, 0.3, 0.3],  # gold 2: all tied -> 1
            [0.0, 0.2, 0.4, 0.6],  # gold 0: three strictly higher -> 4
        ]
    )
    assert gold_ranks(scores, [0, 2, 0]).tolist() == [2, 1, 4]
    assert rank_of(0.5, [0.5, 0.9, 0.5, 0.1]) == 2


def test_hand_computed_metrics():
    ranks = [2, 1, 12]
    # MRR = (1/2 + 1 + 1/12) / 3 = 19/36
    assert mrr(ranks) == pytest.approx(19 / 36)
    assert mrr(ranks) == pytest.approx(0.5277777778)
    # NDCG@5, one relevant: (1/log2(3) + 1/log2(2) + 0) / 3
    assert ndcg_at_k(ranks, 5) == pytest.approx((1 / math.log2(3) + 1.0) / 3)
    assert ndcg_at_k(ranks, 5) == pytest.approx(0.5436432667)
    assert recall_at_k(ranks, 1) == pytest.approx(1 / 3)
    assert recall_at_k(ranks, 10) == pytest.approx(2 / 3)
    assert recall_at_k(ranks, 100) == 1.0
    assert median_rank(ranks) == 2.0
    assert median_rank([1, 3, 4, 200]) == 3.5  # even count: mean of the two middle ranks


def test_metrics_from_tied_scores_end_to_end():
    # gold always tied with a distractor at the top: ranks 1, so every metric is perfect
    scores = np.array([[1.0, 1.0, 0.0], [0.2, 0.7, 0.7]])
    r = gold_ranks(scores, [1, 2])
    m = ranking_metrics(r)
    assert r.tolist() == [1, 1]
    assert m["mrr"] == 1.0 and m["ndcg_at_5"] == 1.0 and m["recall_at_1"] == 1.0 and m["median_rank"] == 1.0


def test_ranking_metrics_keys_and_values():
    m = ranking_metrics([6, 1, 101, 10])
    assert set(m) == {"mrr", "ndcg_at_5", "recall_at_1", "recall_at_10", "recall_at_100", "median_rank", "mean_rank"}
    assert m["mrr"] == pytest.approx((1 / 6 + 1 + 1 / 101 + 1 / 10) / 4)
    assert m["ndcg_at_5"] == pytest.approx(0.25)  # only rank 1 is within 5
    assert m["recall_at_10"] == 0.75 and m["recall_at_100"] == 0.75
    assert m["median_rank"] == 8.0 and m["mean_rank"] == 29.5
