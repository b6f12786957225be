"""Full-pool tie ranges of the gold (search/full_rank.py), by hand on tiny score vectors."""

import numpy as np

from mteb_contrastive.search.full_rank import GoldTie, ResultsGoldRanks, below_head, dense_gold_ties, tie_from_scores


def test_tie_from_scores():
    assert tie_from_scores(np.array([0.0, 2.0, 0.0, 0.0, 1.0]), 2) == GoldTie(2, 3, 0.0)  # ranks 3..5
    assert tie_from_scores(np.array([0.5, 0.1]), 0) == GoldTie(0, 1, 0.5)


def test_dense_gold_ties_counts_exact_equal_scores():
    x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.6, 0.8]])  # candidates 0 and 2 are the same vector
    q = np.array([[1.0, 0.0], [0.0, 1.0]])
    h, t, g = dense_gold_ties(q, x, np.array([2, 3]), chunk=1)
    # query 0: gold 2 scores 1.0, tied with candidate 0 -> ranks 1..2; query 1: gold 3 scores 0.8,
    # below candidate 1 only
    assert h.tolist() == [0, 1] and t.tolist() == [2, 1] and g.tolist() == [1.0, 0.8]


def test_below_head_cuts_the_first_stage_range():
    # first stage: 8 above, tied with 4 others (ranks 9..13); a head of 10 took two of the tied -> ranks 11..13
    assert below_head(GoldTie(8, 5, 0.0), 10) == GoldTie(10, 3, 0.0)
    assert below_head(GoldTie(20, 2, 1.5), 10) == GoldTie(20, 2, 1.5)  # wholly below the head: unchanged
    assert below_head(None, 10) == GoldTie(10, 1, None)  # unknown: the lower bound


def test_results_gold_ranks_ties_within_the_returned_list():
    class Fixed:
        def index(self, corpus, **kw):
            pass

        def search(self, queries, **kw):
            return {"q0": {"a": 1.0, "b": 1.0, "c": 0.5}, "q1": {"a": 2.0}}

    m = ResultsGoldRanks(Fixed(), {"q0": "b", "q1": "z"})
    m.search({"id": ["q0", "q1"]})
    assert m.gold_ties == {"q0": GoldTie(0, 2, 1.0), "q1": GoldTie(1, 1, None)}
    assert m.gold_ranks == {"q0": 1, "q1": 2} and m.n_lower_bound == 1 and not m.gold_ranks_exact
