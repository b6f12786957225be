"""The release report's pieces on hand-computed cases: bootstrap interval and test, chance levels, the reader's keys."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from mteb_contrastive.families import BY_ANCHOR_AUTHOR
from mteb_contrastive.report.chance import (
    chance_levels,
    expected_ndcg_at_k,
    expected_recall_at_k,
    expected_rr,
    main_chance,
    ranking_chance,
)
from mteb_contrastive.report.compare import NotComparable, compare_per_item, paired_bootstrap
from mteb_contrastive.report.reader import (
    PerItem,
    ScoreRow,
    family_of,
    guess_main_score,
    per_item_scores,
    secondary_keys,
)


def test_exact_bootstrap_interval_by_hand():
    # per-item differences d = (0, 1, 1): the 27 resamples of 3 indices give mean(d*) = j/3 where j ~ Binomial(3, 2/3):
    # P(0) = 1/27, P(1/3) = 6/27, P(2/3) = 12/27, P(1) = 8/27. The 2.5% quantile is 0 (1/27 = 0.037 >= 0.025),
    # the 97.5% quantile is 1 (P(<= 2/3) = 19/27 = 0.70 < 0.975).
    c = paired_bootstrap([0, 0, 0], [0, 1, 1])
    assert c.exact and c.n_resamples == 27
    assert c.diff == pytest.approx(2 / 3)
    assert (c.ci_low, c.ci_high) == (0.0, 1.0)
    # randomisation test: two nonzero differences, 4 sign patterns with means 2/3, 0, 0, -2/3 -> p = 2/4
    assert c.p_value == 0.5
    assert c.verdict == "within noise"


def test_verdicts_follow_the_interval_and_the_direction():
    # d = (1, 1): every resample has mean 1 -> interval [1, 1]; p = 2/4 (patterns 1, 0, 0, -1): the interval
    # excludes 0 but the test cannot reject with two swap blocks (smallest reachable p 2/4) -> within noise
    c = paired_bootstrap([0, 0], [1, 1])
    assert (c.ci_low, c.ci_high, c.p_value, c.verdict) == (1.0, 1.0, 0.5, "within noise")
    assert (c.n_blocks, c.min_p, c.p_exact) == (2, 0.5, True)
    # six items all +1: interval [1, 1], p = 2/64 < 0.05 -> a verdict, in the score's direction
    c = paired_bootstrap([0] * 6, [1] * 6)
    assert (c.ci_low, c.ci_high, c.p_value, c.min_p, c.verdict) == (1.0, 1.0, 2 / 64, 2 / 64, "better")
    assert paired_bootstrap([0] * 6, [1] * 6, higher_is_better=False).verdict == "worse"
    assert paired_bootstrap([1] * 6, [0] * 6).verdict == "worse"


def test_small_test_set_gives_a_wide_interval():
    # 22 items (Cranfield's 22 test queries): 60% vs 50% per-item success is not a detectable difference
    rng = np.random.default_rng(3)
    a = (rng.random(22) < 0.5).astype(float)
    b = a.copy()
    b[np.flatnonzero(a == 0)[:2]] = 1.0  # two more successes: +0.0909
    c = paired_bootstrap(a, b)
    assert c.diff == pytest.approx(2 / 22)
    assert not c.exact and c.n_resamples == 1000
    # never below 0 (no item got worse); upper = 5 of 22 resampled items improved (seed 0); p exact over the 2^2 swaps
    assert (c.ci_low, c.ci_high, c.p_value, c.verdict) == (0.0, pytest.approx(5 / 22), 0.5, "within noise")
    # the same +0.09 on 2200 items (100 copies) is a clear improvement
    big = paired_bootstrap(np.tile(a, 100), np.tile(b, 100))
    assert big.verdict == "better" and big.ci_low > 0.07 and big.p_value < 0.01


def test_bootstrap_rejects_unpaired_input():
    with pytest.raises(ValueError, match="at least 2 items"):
        paired_bootstrap([1.0], [0.0])
    with pytest.raises(ValueError, match="reference has 3 items, candidate 2"):
        paired_bootstrap([1.0, 0.0, 1.0], [0.0, 1.0])


def test_compare_per_item_aligns_ids_and_says_when_it_cannot():
    ref = PerItem("ndcg_at_10", ids=["q1", "q2", "q3"], values=[0.0, 0.0, 0.0])
    cand = PerItem("ndcg_at_10", ids=["q3", "q2", "q1"], values=[1.0, 1.0, 0.0])  # same items, another order
    c = compare_per_item(ref, cand)
    assert c.n_items == 3 and c.diff == pytest.approx(2 / 3) and (c.ci_low, c.ci_high) == (0.0, 1.0)
    assert compare_per_item(ref, None) == "no per-item data"
    # like with like: a candidate with one more item (q9) is not scored on the common part
    cand = PerItem("ndcg_at_10", ids=["q3", "q2", "q1", "q9"], values=[1.0, 1.0, 0.0, 1.0])
    assert compare_per_item(ref, cand) == (
        "not the same items: 0 only in the reference, 1 only in the candidate (3 common)"
    )


def test_cluster_bootstrap_exact_by_hand():
    # 5 items in 3 groups; per-item differences d: group A (1, 1, 1), group B (0,), group C (-1,)
    ref = [0, 0, 0, 0, 1]
    cand = [1, 1, 1, 0, 0]
    groups = ["A", "A", "A", "B", "C"]
    c = paired_bootstrap(ref, cand, groups=groups)
    # 3 ** 3 = 27 group tuples enumerated; the resampled difference is sum(D) / sum(size) over the drawn
    # groups (D = 3, 0, -1; size = 3, 1, 1): C three times gives -1 (1/27 >= 0.025 -> lower = -1),
    # A three times gives +1 and every other tuple less (26/27 < 0.975 -> upper = 1)
    assert c.exact and c.n_resamples == 27 and (c.n_items, c.n_groups) == (5, 3)
    assert c.diff == pytest.approx(2 / 5)
    assert (c.ci_low, c.ci_high) == (-1.0, 1.0)
    # randomisation test, one sign per group: nonzero D = (3, -1) -> stats 2/5, 4/5, -4/5, -2/5: all >= 2/5 -> p = 1
    assert c.p_value == 1.0
    # the same items as independent: 4 nonzero d = (1, 1, 1, -1) -> 16 sign patterns, 6 with sum 0 -> p = 10/16
    assert paired_bootstrap(ref, cand).p_value == 10 / 16
    assert paired_bootstrap(ref, cand).n_groups is None


def _by_hand_cluster_bootstrap(d, groups, n_resamples=1000, seed=0):
    """An independent cluster bootstrap: draw G of the G groups with replacement (numpy default_rng(seed)),
    pool their items, take the mean difference; empirical 2.5% / 97.5% quantiles without interpolation."""
    names = list(dict.fromkeys(groups))
    items = {g: [x for x, h in zip(d, groups) if h == g] for g in names}
    rng = np.random.default_rng(seed)
    diffs = []
    for _ in range(n_resamples):
        pooled = [x for k in rng.integers(0, len(names), len(names)) for x in items[names[k]]]
        diffs.append(sum(pooled) / len(pooled))
    diffs.sort()
    lo = diffs[math.ceil(0.025 * n_resamples) - 1]
    hi = diffs[math.ceil(0.975 * n_resamples) - 1]
    return lo, hi


def test_cluster_bootstrap_matches_a_by_hand_loop():
    ref = [1, 0, 1, 1, 0, 0, 1, 0, 1, 1]
    cand = [1, 1, 1, 1, 1, 0, 0, 0, 1, 0]
    groups = ["q1", "q1", "q2", "q2", "q2", "q3", "q3", "q4", "q5", "q5"]  # 5 ** 5 > 1000: drawn, seed 0
    c = paired_bootstrap(ref, cand, groups=groups)
    assert not c.exact and c.n_groups == 5
    d = [b - a for a, b in zip(ref, cand)]
    assert (c.ci_low, c.ci_high) == pytest.approx(_by_hand_cluster_bootstrap(d, groups))
    # randomisation over groups: group sums D = (1, 1, -1, 0, -1), 4 nonzero -> 16 sign patterns, exact;
    # observed 0 -> every pattern has |stat| >= 0 -> p = 1
    assert c.diff == 0 and c.p_value == 1.0


def test_clustered_triplets_give_a_wider_interval_than_independent_items():
    # Cranfield's totals in balanced groups: 350 triplets from 22 queries (16 or 15 per query; the real split
    # has 1 to 45 per query); the candidate wins or loses whole queries
    rng = np.random.default_rng(7)
    sizes = [16] * 20 + [15] * 2
    groups = [f"q{g}" for g, k in enumerate(sizes) for _ in range(k)]
    assert len(groups) == 350
    ref = (rng.random(350) < 0.85).astype(float)
    effect = {f"q{g}": rng.choice((-0.3, 0.3)) for g in range(22)}  # per-query shift of the candidate's success rate
    cand = np.array([float(rng.random() < min(1.0, max(0.0, 0.85 + effect[g]))) for g in groups])
    clustered = paired_bootstrap(ref, cand, groups=groups)
    independent = paired_bootstrap(ref, cand)
    assert clustered.diff == independent.diff
    assert (clustered.n_items, clustered.n_groups, independent.n_groups) == (350, 22, None)
    width_c = clustered.ci_high - clustered.ci_low
    width_i = independent.ci_high - independent.ci_low
    assert width_c > 1.5 * width_i
    # -0.094 looks like a clear loss item by item, but 22 queries cannot tell it from noise
    assert (independent.verdict, clustered.verdict) == ("worse", "within noise")
    assert clustered.ci_low <= clustered.diff <= clustered.ci_high


def test_compare_per_item_uses_groups_of_the_common_items():
    ref = PerItem(
        "accuracy", ids=["t1", "t2", "t3", "t4", "t5"], values=[0, 0, 0, 0, 1], groups=["A", "A", "A", "B", "C"]
    )
    cand = PerItem(
        "accuracy", ids=["t5", "t4", "t3", "t2", "t1"], values=[0, 0, 1, 1, 1], groups=["C", "B", "A", "A", "A"]
    )
    c = compare_per_item(ref, cand)
    assert (c.n_groups, c.ci_low, c.ci_high, c.p_value) == (3, -1.0, 1.0, 1.0)  # = test_cluster_bootstrap_exact_by_hand
    cand.groups = None  # an older candidate file without groups: the reference's groups still hold
    assert compare_per_item(ref, cand).n_groups == 3 and compare_per_item(cand, ref).ci_low == -1.0
    cand.groups = ["C", "B", "A", "A", "Z"]
    assert compare_per_item(ref, cand) == "the two models' per-item files disagree on the items' groups"
    one = PerItem("accuracy", ids=["t1", "t2"], values=[0, 1], groups=["A", "A"])
    assert compare_per_item(one, one) == "2 items in 1 group: no interval"
    assert compare_per_item(one, one, resampling=BY_ANCHOR_AUTHOR) == "2 items in 1 anchor author: no interval"
    # a unit that is not the item needs the unit's ids: an older file without them is not compared by items
    old = PerItem("accuracy", ids=["t1", "t2"], values=[0, 1])
    assert compare_per_item(old, old, resampling=BY_ANCHOR_AUTHOR) == (
        "no anchor author ids in the per-item file (written by an older version): rerun to resample by anchor author"
    )
    with pytest.raises(ValueError, match="groups has 2 entries for 3 items"):
        paired_bootstrap([0, 0, 1], [1, 0, 1], groups=["a", "b"])
    with pytest.raises(ValueError, match="at least 2 groups, got 1"):
        paired_bootstrap([0, 0, 1], [1, 0, 1], groups=["a", "a", "a"])


def test_random_ranking_expectations_by_hand():
    h = [1 / math.log2(i + 1) for i in range(1, 11)]
    # N = 4 candidates, 1 relevant: each rank 1..4 holds it with probability 1/4; IDCG = 1
    assert expected_ndcg_at_k(4, 1, 10) == pytest.approx(sum(h[:4]) / 4)
    # N = 20, R = 2, k = 10: E[DCG] = (2/20) * sum_{i<=10} 1/log2(i+1), IDCG = 1 + 1/log2(3)
    assert expected_ndcg_at_k(20, 2, 10) == pytest.approx(0.1 * sum(h) / (h[0] + h[1]))
    assert expected_recall_at_k(20, 10) == 0.5 and expected_recall_at_k(5, 10) == 1.0
    assert expected_rr(3) == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)
    # N = 3, R = 2: first relevant at rank 1 with P = 2/3, at rank 2 with P = 1/3 -> 2/3 + 1/6
    assert expected_rr(3, 2) == pytest.approx(5 / 6)
    ch = ranking_chance({"a": {"x": 1}, "b": {"y": 1, "z": 1}, "c": {}}, 3)
    assert ch["random_mrr"] == pytest.approx(((11 / 18) + 5 / 6) / 2)  # query c (no relevant) is not counted


def test_chance_levels_per_family_and_stored_keys_win():
    assert chance_levels("author", {"accuracy": 0.8, "n_triplets": 10})["random_accuracy"] == 0.5
    assert chance_levels("ir-triplets", {"accuracy": 0.8, "error_rate": 20.0})["random_error_rate"] == 50.0
    ver = chance_levels("verification", {"n_pairs": 10, "n_same_author": 3, "pan_platt_abstain_overall": 0.6})
    assert ver["majority_class_accuracy"] == 0.7
    # no closed form and no simulation here (no validation counts): None and why, never "AUC 0.5"
    assert main_chance("pan_platt_abstain_overall", ver) == (
        None,
        "n/a: not simulated (validation class counts unknown)",
    )
    stored = chance_levels("quotes", {"mrr": 0.2, "random_mrr": 0.0123, "pool_size": 3}, {"qrels": {"a": {"x": 1}}})
    assert stored["random_mrr"] == 0.0123  # the protocol's own value, not the recomputed 11/18
    assert main_chance("mrr", stored) == (0.0123, "0.0123")
    assert main_chance("some_new_score", {}) == (None, "n/a")


def test_reader_keys_are_generic():
    scores = {
        "mrr": 0.3,
        "mrr_tie_expected": 0.29,
        "ndcg_at_5": 0.2,
        "recall_at_10": 0.5,
        "accuracy": 0.1,
        "random_mrr": 0.01,
        "n_queries": 29,
        "pool_size": 272,
        "n_truncated_queries": 3,
        "gold_ranks_exact": 1,
    }
    assert family_of("MyQuotes", "Retrieval", scores) == "quotes"
    assert family_of("X", "PairClassification", {"accuracy": 1, "accuracy_unrestricted": 1}) == "author"
    assert family_of("X", "PairClassification", {"accuracy": 1, "error_rate": 0}) == "ir-triplets"
    assert family_of("X", "PairClassification", {"pan_hard_auc": 0.5}) == "verification"
    assert secondary_keys(scores) == [
        "ndcg_at_5",
        "recall_at_10",
        "mrr",
        "mrr_tie_expected",
    ]  # pattern order, exact names
    row = ScoreRow("m", "1", "MyQuotes", "test", "default", "quotes", "mrr", scores)
    assert row.counts() == {"n_queries": 29, "pool_size": 272, "n_truncated_queries": 3}
    assert row.chance() == {"random_mrr": 0.01}
    assert "accuracy" not in row.secondary() and "mrr" not in row.secondary()
    assert guess_main_score({"ndcg_at_1": 0.5, "ndcg_at_10": 0.5}, 0.5) == "ndcg_at_10"


def test_per_item_contract_file(tmp_path):
    (tmp_path / "T_predictions.json").write_text(
        json.dumps({"base-2": {"test": {"per_item": {"name": "accuracy", "ids": [0, 1], "values": [1, 0]}}}})
    )
    row = ScoreRow("m", "1", "T", "test", "base-2", "author", "accuracy", {"accuracy": 0.5})
    p = per_item_scores(row, tmp_path)
    assert (p.statistic_name, p.ids, p.values) == ("accuracy", ["0", "1"], [1.0, 0.0])
    assert per_item_scores(ScoreRow("m", "1", "T", "test", "base-4", "author", "accuracy", {}), tmp_path) is None
    assert per_item_scores(row, tmp_path / "nowhere") is None
    assert p.groups is None


def test_per_item_contract_groups(tmp_path):
    per_item = {"name": "accuracy", "ids": ["a", "b", "c"], "values": [1, 0, 1], "groups": ["q1", "q1", 7]}
    (tmp_path / "T_predictions.json").write_text(json.dumps({"default": {"test": {"per_item": per_item}}}))
    row = ScoreRow("m", "1", "T", "test", "default", "ir-triplets", "accuracy", {"accuracy": 2 / 3})
    p = per_item_scores(row, tmp_path)
    assert p.groups == ["q1", "q1", "7"] and "cluster bootstrap" in p.note
    per_item["groups"] = ["q1"]  # one group id per item or the file is not used
    (tmp_path / "T_predictions.json").write_text(json.dumps({"default": {"test": {"per_item": per_item}}}))
    assert per_item_scores(row, tmp_path) is None


def test_verification_labels_in_the_file_need_no_task(tmp_path):
    pred = {"id": ["p1", "p2"], "platt_abstain": [0.9, 0.2], "labels": [1, 0]}
    (tmp_path / "V_predictions.json").write_text(json.dumps({"default": {"test": pred}}))
    row = ScoreRow("m", "1", "V", "test", "default", "verification", "pan_platt_abstain_overall", {"pan_year": 2021})

    def no_task_load():
        raise AssertionError("the task was loaded although the file has the labels")

    p = per_item_scores(row, tmp_path, no_task_load)
    assert (p.ids, p.labels, p.answers) == (["p1", "p2"], [1, 0], [0.9, 0.2])
    del pred["labels"]  # an older file: the labels come from the task (called lazily)
    (tmp_path / "V_predictions.json").write_text(json.dumps({"default": {"test": pred}}))
    assert per_item_scores(row, tmp_path, lambda: {"labels": {"p1": 0, "p2": 1}}).labels == [0, 1]
    # like with like: labels of another dataset revision than the result's are not used
    row.dataset_revision = "rev-a"
    with pytest.raises(
        NotComparable, match="result is of dataset revision rev-a, the task's data here is revision rev-b"
    ):
        per_item_scores(row, tmp_path, lambda: {"dataset_revision": "rev-b", "labels": {"p1": 0, "p2": 1}})
    assert per_item_scores(row, tmp_path, lambda: {"dataset_revision": "rev-a", "labels": {"p1": 0, "p2": 1}})
