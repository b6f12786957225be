"""Paired comparison of two models on the same items: bootstrap interval, paired test, verdict.

Method (Efron & Tibshirani 1993, ch. 13 percentile interval; Koehn 2004 paired bootstrap):

* the items (queries, triplets, pairs) common to both models are resampled with replacement,
  the same indices for both models; the statistic (mean of per-item values, or PAN overall
  recomputed from labels and answers) is computed for each model on the resample and the
  difference ``candidate - reference`` recorded;
* when ``n ** n <= n_resamples`` every resample is enumerated (exact bootstrap distribution,
  each of the ``n ** n`` index tuples once); else ``n_resamples`` draws from
  ``numpy.random.default_rng(seed)``;
* 95% interval: lower = the smallest difference d with P(diff <= d) >= 0.025, upper = the
  smallest d with P(diff <= d) >= 0.975 (the empirical quantiles, no interpolation);
* paired test: randomisation (permutation) test -- each item's two values are swapped with
  probability 1/2; p = share of the swapped statistics with |diff| >= |observed diff|
  (all ``2 ** n`` swaps enumerated when ``n <= exact_swaps_max``, else ``n_resamples`` draws);
* verdict: ``better`` when the whole interval is above 0 (below 0 for a lower-is-better score),
  ``worse`` when it is wholly on the other side, else ``within noise``.

Clustered items (cluster bootstrap, Davison & Hinkley 1997 section 3.8 "multistage sampling",
first stage only; Field & Welsh 2007): when a group id is given per item (the triplets of one IR
query, of one anchor author), the resampling unit is the group, not the item. A resample draws
``G`` groups with replacement (``G`` = number of groups) and takes every item of each drawn group
(a group drawn twice contributes its items twice); the statistic is computed on those items (for
the mean: sum of their values / their count). The randomisation test swaps the two models' values
of all the items of a group together (one sign per group). Exact enumeration applies to groups:
every one of the ``G ** G`` group tuples when ``G ** G <= n_resamples``, all ``2 ** g`` swaps
when ``g <= exact_swaps_max`` groups have a nonzero summed difference. Items within a group are
correlated (same query, same author), so an item-level interval would be too narrow.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from mteb_contrastive.metrics.pan import evaluate_all


@dataclass
class Comparison:
    """Result of :func:`paired_bootstrap` (differences are candidate - reference)."""

    statistic: str
    n_items: int
    reference_value: float
    candidate_value: float
    diff: float
    ci_low: float
    ci_high: float
    p_value: float
    verdict: str
    n_resamples: int
    exact: bool
    #: number of groups resampled (cluster bootstrap), None when the items were resampled
    n_groups: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _mean(values: np.ndarray, idx: np.ndarray) -> float:
    return float(values[idx].mean())


def _quantile_low(sorted_vals: np.ndarray, weights: np.ndarray, q: float) -> float:
    cdf = np.cumsum(weights) / weights.sum()
    return float(sorted_vals[np.searchsorted(cdf, q - 1e-12)])


def paired_bootstrap(
    reference: Any,
    candidate: Any,
    *,
    statistic: Callable[[Any, np.ndarray], float] | None = None,
    n: int | None = None,
    groups: Any = None,
    higher_is_better: bool = True,
    statistic_name: str = "mean",
    n_resamples: int = 1000,
    exact_swaps_max: int = 12,
    seed: int = 0,
) -> Comparison:
    """Paired bootstrap interval and randomisation test of ``statistic(candidate) - statistic(reference)``.

    Args:
        reference, candidate: per-item data aligned by position: 1-D arrays of per-item values
            (statistic = mean) or any objects ``statistic(data, idx)`` understands.
        statistic: ``f(data, idx) -> float`` over the items ``idx`` (int array, may repeat).
        n: number of items (default ``len(reference)``).
        groups: optional group id per item (length ``n``, any hashable values): resample and swap
            whole groups (cluster bootstrap, see the module docstring); None = independent items.
        higher_is_better: direction of the score, for the verdict.
        n_resamples: bootstrap draws (and permutation draws) when not exact.

    Returns:
        :class:`Comparison`; ``n_items`` counts items, ``n_groups`` groups (None without groups).

    Raises:
        ValueError: fewer than 2 items (or fewer than 2 groups), reference and candidate of
            different lengths, or ``groups`` not of length ``n``.
    """
    stat = statistic or _mean
    if statistic is None:
        reference, candidate = np.asarray(reference, dtype=np.float64), np.asarray(candidate, dtype=np.float64)
    n = len(reference) if n is None else n
    if n < 2:
        raise ValueError(f"a paired comparison needs at least 2 items, got {n}")
    if statistic is None and len(candidate) != n:
        raise ValueError(f"reference has {n} items, candidate {len(candidate)}")
    members = _group_members(groups, n)
    n_units = n if members is None else len(members)
    if n_units < 2:
        raise ValueError(f"a paired comparison needs at least 2 groups, got {n_units}")
    all_idx = np.arange(n)
    ref_v, cand_v = stat(reference, all_idx), stat(candidate, all_idx)
    observed = cand_v - ref_v

    exact = n_units**n_units <= n_resamples
    if exact:
        unit_samples = (np.asarray(t) for t in itertools.product(range(n_units), repeat=n_units))
        total = n_units**n_units
    else:
        rng = np.random.default_rng(seed)
        unit_samples = (rng.integers(0, n_units, n_units) for _ in range(n_resamples))
        total = n_resamples
    if members is None:
        samples = unit_samples
    else:
        samples = (np.concatenate([members[g] for g in units]) for units in unit_samples)
    diffs = np.sort(np.array([stat(candidate, idx) - stat(reference, idx) for idx in samples]))
    w = np.ones_like(diffs)
    lo, hi = _quantile_low(diffs, w, 0.025), _quantile_low(diffs, w, 0.975)

    p = _randomisation_p(
        reference,
        candidate,
        stat,
        n,
        observed,
        n_resamples,
        exact_swaps_max,
        seed,
        vector=statistic is None,
        members=members,
    )
    if (lo > 0 and higher_is_better) or (hi < 0 and not higher_is_better):
        verdict = "better"
    elif (hi < 0 and higher_is_better) or (lo > 0 and not higher_is_better):
        verdict = "worse"
    else:
        verdict = "within noise"
    return Comparison(
        statistic_name,
        n,
        ref_v,
        cand_v,
        observed,
        lo,
        hi,
        p,
        verdict,
        total,
        exact,
        None if members is None else n_units,
    )


def _group_members(groups: Any, n: int) -> list[np.ndarray] | None:
    """Item indices of each group, groups in first-seen order; None without groups."""
    if groups is None:
        return None
    groups = list(groups)
    if len(groups) != n:
        raise ValueError(f"groups has {len(groups)} entries for {n} items")
    by: dict[Any, list[int]] = {}
    for i, g in enumerate(groups):
        by.setdefault(g, []).append(i)
    return [np.asarray(v, dtype=np.int64) for v in by.values()]


def _randomisation_p(
    reference,
    candidate,
    stat,
    n,
    observed,
    n_resamples,
    exact_max,
    seed,
    *,
    vector: bool,
    members: list[np.ndarray] | None = None,
) -> float:
    all_idx = np.arange(n)
    if vector:
        d = candidate - reference
        if members is not None:  # one sign per group: the group's summed difference
            d = np.array([d[m].sum() for m in members])
        nz = np.flatnonzero(d)
        if nz.size <= exact_max:
            signs = np.array(list(itertools.product((1.0, -1.0), repeat=nz.size))) if nz.size else np.ones((1, 0))
            stats = (signs * d[nz]).sum(axis=1) / n
        else:
            rng = np.random.default_rng(seed + 1)
            stats = (rng.choice((1.0, -1.0), size=(n_resamples, d.size)) * d).sum(axis=1) / n
        return float(np.mean(np.abs(stats) >= abs(observed) - 1e-12))
    rng = np.random.default_rng(seed + 1)
    hits = 0
    for _ in range(n_resamples):
        if members is None:
            swap = rng.random(n) < 0.5
        else:
            swap = np.zeros(n, dtype=bool)
            for m, s in zip(members, rng.random(len(members)) < 0.5):
                swap[m] = s
        a, b = _swap(reference, candidate, swap)
        hits += abs(stat(b, all_idx) - stat(a, all_idx)) >= abs(observed) - 1e-12
    return hits / n_resamples


def _swap(reference: Any, candidate: Any, swap: np.ndarray) -> tuple[Any, Any]:
    """Swap the items where ``swap`` is true (for dict-of-arrays data: every array)."""
    if isinstance(reference, dict):
        a = {k: np.where(swap, candidate[k], v) if k in _SWAPPED else v for k, v in reference.items()}
        b = {k: np.where(swap, reference[k], v) if k in _SWAPPED else v for k, v in candidate.items()}
        return a, b
    ra, ca = np.asarray(reference), np.asarray(candidate)
    return np.where(swap, ca, ra), np.where(swap, ra, ca)


#: keys of a verification item dict that belong to a model (labels are shared)
_SWAPPED = {"answers"}


def pan_overall_statistic(data: dict[str, Any], idx: np.ndarray) -> float:
    """PAN overall score (official metrics, :func:`mteb_contrastive.metrics.pan.evaluate_all`) of the items ``idx``.

    ``data``: ``{"labels": int array, "answers": float array, "year": 2020|2021}``.
    """
    labels = data["labels"][idx]
    if labels.min() == labels.max():  # AUC undefined on one class: not a usable resample
        return float("nan")
    return float(evaluate_all(labels, data["answers"][idx], year=data["year"])["overall"])


def compare_per_item(reference: Any, candidate: Any, higher_is_better: bool = True, **kwargs: Any) -> Comparison | str:
    """Compare two :class:`~mteb_contrastive.report.reader.PerItem` records on their common items.

    When a record carries ``groups`` (both, or one whose partner's file predates them) the comparison
    is a cluster bootstrap over the groups of the common items (:func:`paired_bootstrap` ``groups=``);
    items treated as independent would give too narrow an interval.

    Returns the :class:`Comparison`, or a one-line reason when no comparison is possible.
    """
    if reference is None or candidate is None:
        return "no per-item data"
    common = [i for i in reference.ids if i in set(candidate.ids)]
    if len(common) < 2:
        return "fewer than 2 common items"
    ri = {k: j for j, k in enumerate(reference.ids)}
    ci = {k: j for j, k in enumerate(candidate.ids)}
    a_idx, b_idx = np.array([ri[i] for i in common]), np.array([ci[i] for i in common])
    groups = None
    if reference.groups is not None or candidate.groups is not None:
        # one side's file may predate groups: its items are the same items, so the other side's groups hold
        ref_groups = None if reference.groups is None else [reference.groups[j] for j in a_idx]
        cand_groups = None if candidate.groups is None else [candidate.groups[j] for j in b_idx]
        if ref_groups is not None and cand_groups is not None and ref_groups != cand_groups:
            return "the two models' per-item files disagree on the items' groups"
        groups = ref_groups if ref_groups is not None else cand_groups
        if len(set(groups)) < 2:
            return f"{len(common)} items in 1 group: no cluster bootstrap"
    if reference.values is not None and candidate.values is not None:
        return paired_bootstrap(
            np.asarray(reference.values)[a_idx],
            np.asarray(candidate.values)[b_idx],
            groups=groups,
            higher_is_better=higher_is_better,
            statistic_name=reference.statistic_name,
            **kwargs,
        )
    labels = np.asarray(reference.labels)[a_idx]
    a = {"labels": labels, "answers": np.asarray(reference.answers)[a_idx], "year": reference.year}
    b = {"labels": labels, "answers": np.asarray(candidate.answers)[b_idx], "year": candidate.year}
    kwargs.setdefault("n_resamples", 300)
    return paired_bootstrap(
        a,
        b,
        statistic=_nan_safe(pan_overall_statistic),
        n=len(common),
        groups=groups,
        higher_is_better=higher_is_better,
        statistic_name=reference.statistic_name,
        **kwargs,
    )


def _nan_safe(stat: Callable) -> Callable:
    def f(data: Any, idx: np.ndarray) -> float:
        v = stat(data, idx)
        return 0.0 if np.isnan(v) else v

    return f
