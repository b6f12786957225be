"""Attribution's fast paths equal the plain ones on generated inputs: the nested temperatures (all authors at
once) against one bounded search per author, the vectorised macro-F1 against scikit-learn's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import f1_score

from mteb_contrastive.metrics import attribution as am


@st.composite
def score_matrices(draw):
    n, k = draw(st.integers(3, 30)), draw(st.integers(2, 8))
    seed, scale = draw(st.integers(0, 2**16)), draw(st.sampled_from([0.01, 0.3, 1.0, 20.0]))
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, k, n)
    s = rng.normal(0, scale, (n, k))
    s[np.arange(n), gold] += scale * draw(st.sampled_from([0.0, 1.0, 5.0]))  # weak to perfect separation
    keep = s[np.arange(n), gold].copy()
    s[rng.random((n, k)) < draw(st.sampled_from([0.0, 0.3]))] = -np.inf  # not a candidate of that item
    s[np.arange(n), gold] = keep
    groups = gold if draw(st.booleans()) else rng.integers(0, 3, n)
    return s, gold, groups


@settings(max_examples=40, deadline=None)
@given(score_matrices())
def test_nested_temperatures_equal_one_search_per_group(case):
    s, gold, groups = case
    fast = am.fit_temperatures_nested(s, gold, groups)
    for g in np.unique(groups).tolist():
        rest = groups != g
        if not rest.any():
            assert g not in fast
            continue
        slow = am.fit_temperature(s[rest], gold[rest])
        if (np.isfinite(s[rest]).sum(axis=1) < 2).all():  # a flat loss (one candidate per item): the largest T
            assert fast[g] == np.exp(6.0 + np.log(_spread(s[rest])))
            continue
        # the bounded search stops within 1e-6 of log T; the fast path solves the same optimum to ~1e-12
        assert abs(np.log(fast[g]) - np.log(slow)) < 1e-4
        # and its loss is no worse than the search's (same targets)
        assert _loss(s[rest], gold[rest], fast[g]) <= _loss(s[rest], gold[rest], slow) + 1e-9


def _spread(s: np.ndarray) -> float:
    spread = float(np.mean([np.ptp(row[np.isfinite(row)]) for row in s]))
    return spread if spread > 0 else 1.0


def _loss(s: np.ndarray, gold: np.ndarray, t: float) -> float:
    n = len(gold)
    finite = np.isfinite(s)
    k = finite.sum(axis=1)
    rest = np.where(k > 1, 1.0 / (n + 2) / np.maximum(k - 1, 1), 0.0)
    target = np.where(finite, rest[:, None], 0.0)
    target[np.arange(n), gold] = np.where(k > 1, (n + 1.0) / (n + 2.0), 1.0)
    log_p = am.log_probabilities(s, t)
    return float(-np.sum(np.where(target > 0, target * log_p, 0.0)) / n)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 15),
    k=st.integers(1, 6),
    draws=st.integers(1, 4),
    seed=st.integers(0, 2**16),
    rule=st.sampled_from(["gold", "candidates"]),
)
def test_vectorised_macro_f1_equals_scikit_learn(n, k, draws, seed, rule):
    rng = np.random.default_rng(seed)
    unk = k  # code k = <UNK>
    gold = rng.integers(0, k + 1, n)
    answers = rng.integers(0, k + 1, (draws, n))
    got = am.macro_f1_codes(gold, answers, unk, labels=rule)
    for d in range(draws):
        if rule == "gold":
            labels = sorted(set(gold.tolist()) - {unk})
        else:
            labels = sorted((set(gold.tolist()) | set(answers[d].tolist())) - {unk})
        if not labels:
            assert np.isnan(got[d])
            continue
        want = f1_score(gold, answers[d], labels=labels, average="macro", zero_division=0)
        assert got[d] == np.float64(want) or abs(got[d] - want) < 1e-12


def _old_fit_margin_threshold(top, margin, gold, unknown, labels):
    """The grid evaluated answer vector by answer vector (reference)."""
    m = np.unique(np.asarray(margin, dtype=np.float64))
    grid = np.unique(np.concatenate([[0.0], (m[1:] + m[:-1]) / 2, np.nextafter(m[-1:], np.inf)]))
    answers = np.where(np.asarray(margin)[None, :] < grid[:, None], unknown, np.asarray(top)[None, :])
    f1 = np.nan_to_num(am.macro_f1_codes(np.asarray(gold), answers, unknown, labels=labels), nan=-1.0)
    return float(grid[np.flatnonzero(f1 >= f1.max() - 1e-9)[0]])  # ties: the smallest threshold


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(1, 25),
    k=st.integers(1, 5),
    seed=st.integers(0, 2**16),
    rule=st.sampled_from(["gold", "candidates"]),
    coarse=st.booleans(),
)
def test_threshold_sweep_equals_the_grid_evaluated_one_by_one(n, k, seed, rule, coarse):
    rng = np.random.default_rng(seed)
    top = rng.integers(0, k, n)
    gold = rng.integers(0, k + 1, n)  # code k = <UNK>
    margin = rng.integers(0, 4, n) / 4 if coarse else rng.random(n)  # coarse: many tied margins
    assert am.fit_margin_threshold(top, margin, gold, k, labels=rule) == _old_fit_margin_threshold(
        top, margin, gold, k, rule
    )


def test_a_tie_summed_in_another_order_goes_to_the_smallest_threshold():
    """Found by the generated test above (CI, seed 1552): macro-F1 0.375 at threshold 0 and at 0.508,
    equal in exact arithmetic, differing in the last bit between the two ways of summing; the rule is
    the smallest threshold."""
    top = np.array([0, 3, 2, 3, 1, 0, 0, 3, 3, 2, 0])
    margin = np.array([0.0834, 0.0912, 0.8918, 0.7764, 0.5652, 0.9403, 0.6480, 0.7772, 0.4419, 0.2616, 0.4514])
    gold = np.array([0, 4, 0, 0, 1, 0, 4, 3, 2, 1, 3])
    f1 = am._macro_f1_by_rejections(top, margin, gold, 4, "gold")
    assert abs(f1[0] - 0.375) < 1e-12 and abs(f1[5] - 0.375) < 1e-12  # the tie, by hand: 1.5 / 4 both
    assert am.fit_margin_threshold(top, margin, gold, 4, labels="gold") == 0.0
    assert _old_fit_margin_threshold(top, margin, gold, 4, "gold") == 0.0


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 20), k=st.integers(1, 8), seed=st.integers(0, 2**16))
def test_margins_by_partition_equal_the_sorted_ones(n, k, seed):
    log_p = np.log(np.random.default_rng(seed).dirichlet(np.ones(k), size=n))
    p = np.sort(np.exp(log_p), axis=1)[:, ::-1]
    assert np.array_equal(am.margins(log_p), p[:, 0] - (p[:, 1] if k > 1 else 0.0))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(2, 9), st.integers(0, 2**16), st.sampled_from(["gold", "candidates"]))
def test_random_macro_f1_takes_option_arrays_as_lists(n, k, seed, labels):
    """The protocol passes each item's options as an array (n x K Python ints cost gigabytes at 12,800
    texts): the same value and method as the same options as lists, exact and Monte Carlo alike, and (up to
    2,000 combinations) the exact value is the mean over every combination written out one by one."""
    import itertools

    rng = np.random.default_rng(seed)
    gold = rng.integers(0, k, n)
    options = [sorted({int(g), *rng.choice(k, rng.integers(1, k + 1), replace=False).tolist()}) for g in gold]
    as_lists = am.random_macro_f1(gold, options, -1, labels=labels)
    as_arrays = am.random_macro_f1(gold, [np.asarray(o) for o in options], -1, labels=labels)
    assert as_arrays == as_lists
    if as_lists[1] == "exact" and np.prod([len(o) for o in options]) <= 2000:
        every = [am.macro_f1_codes(gold, np.array(c), -1, labels=labels) for c in itertools.product(*options)]
        assert as_lists[0] == pytest.approx(float(np.mean(every)))
