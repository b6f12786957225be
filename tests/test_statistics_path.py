"""The one statistics path (metrics.resampling): unit of independence, interval, test, multiplicity, typed failures."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mteb_contrastive.metrics import attribution as am
from mteb_contrastive.metrics.resampling import bootstrap_interval, holm, holm_verdicts, paired_bootstrap, units_of


def _ten_authors_three_texts():
    """10 authors x 3 known texts; the texts of authors 0-2 are attributed right, every other text to author 0."""
    from mteb_contrastive.protocols.attribution import Problem

    texts = [{"id": f"t{a}-{k}", "author": f"A{a}", "role": "known"} for a in range(10) for k in range(3)]
    problem = Problem(texts)
    gold = problem.gold_codes
    closed = np.zeros((len(gold), 10))
    closed[np.arange(len(gold)), np.where(gold < 3, gold, 0)] = 1.0
    return problem, closed


def test_attribution_intervals_resample_authors():
    from mteb_contrastive.protocols.attribution import AbsTaskAttribution

    problem, closed = _ten_authors_three_texts()
    scores = AbsTaskAttribution._closed_set_scores(None, problem, closed)
    assert scores["accuracy"] == pytest.approx(0.3)
    # by author: the accuracy of a resample is (draws of authors 0-2) / 10, Binomial(10, 0.3) / 10 -> [0.0, 0.6];
    # the 30 texts resampled as independent gave [0.167, 0.467]
    assert (scores["accuracy_ci_low"], scores["accuracy_ci_high"]) == (0.0, pytest.approx(0.6))
    gold = problem.gold_codes
    hits = (gold < 3).astype(float)
    assert am.bootstrap_interval(lambda i: float(hits[i].mean()), 30, groups=gold) == (0.0, pytest.approx(0.6))
    from mteb_contrastive.families import PROTOCOLS

    assert PROTOCOLS["attribution"].resampling.unit == "author"


def test_one_bootstrap_implementation():
    src = Path(__file__).resolve().parents[1] / "src" / "mteb_contrastive"
    users = [p.name for p in src.rglob("*.py") if "scipy.stats import bootstrap" in p.read_text(encoding="utf-8")]
    assert users == []


def _pan14_like_author_graph():
    """192 pairs in 7 swap blocks: block 0 a chain of 40 authors holding 130 pairs, six blocks of 2 authors holding
    the other 62 (11, 11, 10, 10, 10, 10)."""
    groups: list = []
    for k in range(130):
        groups.append([f"a{k}", f"a{(k + 1) % 40}"] if k < 40 else f"a{k % 40}")  # a ring of 40 authors
    for b, size in enumerate((11, 11, 10, 10, 10, 10)):
        groups += [[f"b{b}x", f"b{b}y"] if k % 3 else f"b{b}x" for k in range(size)]
    return groups


def test_the_test_states_its_blocks_and_smallest_reachable_p():
    groups = _pan14_like_author_graph()
    assert len(groups) == 192
    blocks = units_of(groups, 192).blocks()
    assert sorted(len(b) for b in blocks) == [10, 10, 10, 10, 11, 11, 130]
    # a perfect model against a poor one: every resample favours the candidate (interval above 0), yet with
    # 7 blocks the swaps "none" and "all" are 2 of 2^7 patterns: p = 1/64, the smallest reachable
    ref = np.zeros(192)
    cand = np.ones(192)
    c = paired_bootstrap(ref, cand, groups=groups, unit="author")
    assert (c.n_blocks, c.min_p, c.p_exact, c.p_value) == (7, 1 / 64, True, 1 / 64)
    assert c.ci_low == c.ci_high == 1.0 and c.verdict == "better"
    # 21 such comparisons in one table: Holm multiplies the smallest p by 21 -> no verdict survives
    entries = [{**c.as_dict(), "higher_is_better": True} for _ in range(21)]
    assert holm_verdicts(entries) == 21
    assert {e["p_holm"] for e in entries} == {21 / 64}
    assert {e["verdict"] for e in entries} == {"within noise"}


def test_holm_by_hand():
    # sorted 0.01, 0.03, 0.04 (m = 3): 0.03, 0.06, max(0.06, 0.04) = 0.06
    assert holm([0.04, 0.01, 0.03]).tolist() == pytest.approx([0.06, 0.03, 0.06])
    assert holm([0.5, 0.9]).tolist() == [1.0, 1.0]
    assert holm([]).size == 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=1, max_size=30))
def test_holm_never_below_raw_and_keeps_the_order(ps):
    p = np.asarray(ps)
    adj = holm(p)
    assert np.all(adj >= p - 1e-15) and np.all(adj <= 1.0)
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(adj[order]) >= -1e-15)
    # Holm is never stricter than Bonferroni and never looser than the raw p
    assert np.all(adj <= np.minimum(1.0, p * p.size) + 1e-15)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(0, 5), min_size=2, max_size=25),
    st.lists(st.integers(0, 5), min_size=1, max_size=25),
)
def test_a_resample_draws_whole_units(groups, draws):
    """Every item of a unit enters a resample as often as its unit was drawn (items of one unit together)."""
    u = units_of(groups, len(groups))
    d = np.asarray([x % u.n_units for x in draws])
    w = u.weights(d)
    drawn = np.bincount(d, minlength=u.n_units)
    for i, g in enumerate(groups):
        assert w[i] == drawn[u.names.index(g)]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-1.0, 1.0, allow_nan=False), min_size=3, max_size=12))
def test_each_item_its_own_unit_is_the_item_bootstrap(values):
    a = bootstrap_interval(values)
    b = bootstrap_interval(values, groups=[f"u{i}" for i in range(len(values))])
    assert (a.ci_low, a.ci_high, a.n_units) == (b.ci_low, b.ci_high, b.n_units)


def test_failures_are_typed():
    from mteb_contrastive.report.compare import Failure, compare_per_item, interval_per_item
    from mteb_contrastive.report.reader import PerItem

    ref = PerItem("ndcg_at_10", ids=["q1", "q2"], values=[0.0, 1.0])
    other = PerItem("ndcg_at_10", ids=["q1", "q3"], values=[0.0, 1.0])
    f = compare_per_item(ref, other)
    assert isinstance(f, Failure) and f.kind == "different_items" and f.startswith("not the same items")
    f = compare_per_item(ref, None)
    assert (f.kind, str(f)) == ("no_items", "no per-item data")
    from mteb_contrastive.families import BY_AUTHOR

    f = interval_per_item(ref, resampling=BY_AUTHOR)
    assert f.kind == "no_units"
    with pytest.raises(ValueError, match="unknown failure kind"):
        Failure("x", "typo")
