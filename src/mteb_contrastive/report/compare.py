"""Intervals and paired comparisons, resampled by each family's unit of independence.

Method (Efron & Tibshirani 1993, ch. 13 percentile interval; Koehn 2004 paired bootstrap):

* the **units** (:class:`mteb_contrastive.families.Resampling`: queries, IR queries, anchor
  authors, the authors of a pair) are drawn with replacement, ``G`` out of ``G``; an item enters
  the resample once per draw of its unit -- or, for an item of several units (a pair of two
  authors), the product of its units' draw counts (the vertex bootstrap of dyadic data,
  Snijders & Borgatti 1999, "Non-parametric standard errors and tests for network statistics";
  for items of one unit each this is the cluster bootstrap of Davison & Hinkley 1997, section 3.8,
  first stage only; with no groups every item is its own unit). A paired comparison uses the same
  resample for both models and records ``statistic(candidate) - statistic(reference)``;
* when ``G ** G <= n_resamples`` every unit tuple is enumerated (exact bootstrap distribution);
  else ``n_resamples`` draws from ``numpy.random.default_rng(seed)``;
* **undefined resamples are redrawn, never scored**: a resample on which the statistic is
  undefined (PAN overall on one class only, where AUC does not exist; no item at all) is left
  out and another is drawn (enumerated: left out), so the interval is the bootstrap distribution
  given a defined statistic. ``n_undefined`` counts them; when half or more of the draws are
  undefined there is no interval (:class:`NotComparable`);
* 95% interval: lower = the smallest value d with P(<= d) >= 0.025, upper = the smallest d with
  P(<= d) >= 0.975 (empirical quantiles, no interpolation);
* paired test: randomisation (permutation) test -- the two models' values are swapped with
  probability 1/2, one coin per *swap block*: the connected groups of units (two units are
  connected when an item belongs to both; one block per item without groups); p = share of the
  swapped statistics with |diff| >= |observed diff| (all ``2 ** b`` swaps of the ``b`` blocks with
  a nonzero summed difference enumerated when ``b <= exact_swaps_max``, else ``n_resamples``
  draws); None when there are fewer than 2 blocks;
* verdict: ``better`` when the whole interval is above 0 (below 0 for a lower-is-better score),
  ``worse`` when it is wholly on the other side, else ``within noise``.

Like with like (:func:`compare_per_item`): two models are compared only on the same items --
the same dataset revision is checked by the caller (:mod:`.write`); here the two per-item
records must hold the same item ids, else :class:`NotComparable`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from mteb_contrastive.metrics.pan import evaluate_all


class NotComparable(ValueError):
    """No interval or comparison can be drawn; the message says why in one line."""


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
    p_value: float | None
    verdict: str
    n_resamples: int
    exact: bool
    #: number of units resampled when they are not the items (groups), None when the items were resampled
    n_groups: int | None = None
    #: what was resampled (a :class:`~mteb_contrastive.families.Resampling` unit: "query", "author", ...)
    unit: str = "item"
    #: resamples left out because the statistic was undefined on them (redrawn)
    n_undefined: int = 0

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Interval:
    """A single model's score with its 95% bootstrap interval (:func:`bootstrap_interval`)."""

    statistic: str
    value: float
    ci_low: float
    ci_high: float
    n_items: int
    n_units: int
    unit: str
    n_resamples: int
    exact: bool
    n_undefined: int = 0

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _mean(values: np.ndarray, idx: np.ndarray) -> float:
    return float(values[idx].mean()) if idx.size else float("nan")


def _quantile_low(sorted_vals: np.ndarray, weights: np.ndarray, q: float) -> float:
    cdf = np.cumsum(weights) / weights.sum()
    return float(sorted_vals[np.searchsorted(cdf, q - 1e-12)])


# ----------------------------------------------------------------------------- units


@dataclass
class _Units:
    """Items -> units: ``pad`` (n, K) unit indices per item (-1 = none), ``names`` of the G units."""

    pad: np.ndarray
    names: list[Any]

    @property
    def n_units(self) -> int:
        return len(self.names)

    def weights(self, draws: np.ndarray) -> np.ndarray:
        """Each item's count in a resample whose drawn unit indices are ``draws``."""
        m = np.bincount(draws, minlength=self.n_units)
        w = np.where(self.pad >= 0, m[np.maximum(self.pad, 0)], 1)
        return w.prod(axis=1)

    def blocks(self) -> list[np.ndarray]:
        """Item indices of each swap block (connected units), blocks in first-seen order."""
        parent = list(range(self.n_units))

        def find(u: int) -> int:
            while parent[u] != u:
                parent[u] = parent[parent[u]]
                u = parent[u]
            return u

        for row in self.pad:
            us = [int(u) for u in row if u >= 0]
            for u in us[1:]:
                a, b = find(us[0]), find(u)
                if a != b:
                    parent[max(a, b)] = min(a, b)
        by: dict[int, list[int]] = {}
        for i, row in enumerate(self.pad):
            by.setdefault(find(int(row[0])), []).append(i)
        return [np.asarray(v, dtype=np.int64) for v in by.values()]


def _units(groups: Any, n: int) -> _Units:
    """The units of ``n`` items: each item its own unit (``groups`` None), else one id or a list of ids per item."""
    if groups is None:
        return _Units(np.arange(n, dtype=np.int64).reshape(n, 1), list(range(n)))
    groups = list(groups)
    if len(groups) != n:
        raise ValueError(f"groups has {len(groups)} entries for {n} items")
    index: dict[Any, int] = {}
    rows = []
    for g in groups:
        ids = list(dict.fromkeys(g)) if isinstance(g, (list, tuple)) else [g]
        if not ids:
            raise ValueError("an item has no group id")
        rows.append([index.setdefault(x, len(index)) for x in ids])
    k = max(len(r) for r in rows)
    pad = np.full((n, k), -1, dtype=np.int64)
    for i, r in enumerate(rows):
        pad[i, : len(r)] = r
    return _Units(pad, list(index))


def _resamples(units: _Units, n_resamples: int, seed: int) -> tuple[bool, Any, int]:
    """(exact, iterator of drawn unit-index arrays, total): every tuple when ``G ** G <= n_resamples``."""
    g = units.n_units
    if g**g <= n_resamples:
        return True, (np.asarray(t) for t in itertools.product(range(g), repeat=g)), g**g
    rng = np.random.default_rng(seed)
    return False, (rng.integers(0, g, g) for _ in itertools.count()), n_resamples


def _bootstrap(
    stats: Callable[[np.ndarray], float], units: _Units, n_resamples: int, seed: int
) -> tuple[np.ndarray, bool, int]:
    """Sorted defined values of ``stats(idx)`` over the resamples, exact flag, undefined count.

    Raises:
        NotComparable: half or more of the resamples (or draws) undefined.
    """
    exact, draws, total = _resamples(units, n_resamples, seed)
    out: list[float] = []
    undefined = 0
    max_draws = total if exact else 2 * n_resamples
    for k, d in enumerate(draws):
        if k >= max_draws or (not exact and len(out) >= n_resamples):
            break
        w = units.weights(d)
        v = stats(np.repeat(np.arange(w.size), w))
        if np.isnan(v):
            undefined += 1
            continue
        out.append(v)
    if not out or undefined >= (total if exact else len(out) + undefined) / 2:
        raise NotComparable(
            f"the statistic is undefined on {undefined} of {undefined + len(out)} resamples "
            "(one class only): too few units of each class for an interval"
        )
    return np.sort(np.asarray(out)), exact, undefined


def _interval(values: np.ndarray) -> tuple[float, float]:
    w = np.ones_like(values)
    return _quantile_low(values, w, 0.025), _quantile_low(values, w, 0.975)


# ----------------------------------------------------------------------------- one model


def bootstrap_interval(
    data: Any,
    *,
    statistic: Callable[[Any, np.ndarray], float] | None = None,
    n: int | None = None,
    groups: Any = None,
    unit: str = "item",
    statistic_name: str = "mean",
    n_resamples: int = 1000,
    seed: int = 0,
) -> Interval:
    """95% bootstrap interval of one model's ``statistic`` (default: mean of per-item values), by unit.

    Raises:
        NotComparable: fewer than 2 units, or the statistic undefined on half the resamples.
        ValueError: ``groups`` not of length ``n``.
    """
    stat = statistic or _mean
    if statistic is None:
        data = np.asarray(data, dtype=np.float64)
    n = len(data) if n is None else n
    units = _units(groups, n)
    if units.n_units < 2:
        raise NotComparable(f"{n} items in {units.n_units} {unit}: no interval")
    vals, exact, undefined = _bootstrap(lambda idx: stat(data, idx), units, n_resamples, seed)
    lo, hi = _interval(vals)
    return Interval(
        statistic_name,
        stat(data, np.arange(n)),
        lo,
        hi,
        n,
        units.n_units,
        unit,
        len(vals) + undefined,
        exact,
        undefined,
    )


# ----------------------------------------------------------------------------- two models


def paired_bootstrap(
    reference: Any,
    candidate: Any,
    *,
    statistic: Callable[[Any, np.ndarray], float] | None = None,
    n: int | None = None,
    groups: Any = None,
    unit: str | None = None,
    higher_is_better: bool = True,
    statistic_name: str = "mean",
    n_resamples: int = 1000,
    exact_swaps_max: int = 12,
    seed: int = 0,
) -> Comparison:
    """Paired bootstrap interval and randomisation test of ``statistic(candidate) - statistic(reference)``.

    Args:
        reference, candidate: per-item data aligned by position: 1-D arrays of per-item values
            (statistic = mean) or any objects ``statistic(data, idx)`` understands (NaN = undefined).
        statistic: ``f(data, idx) -> float`` over the items ``idx`` (int array, may repeat).
        n: number of items (default ``len(reference)``).
        groups: optional unit id per item, or a list of unit ids per item (length ``n``, hashable
            values): resample and swap by units (module docstring); None = independent items.
        unit: the units' name for the result (default "item" without groups, "group" with).
        higher_is_better: direction of the score, for the verdict.
        n_resamples: bootstrap draws (and permutation draws) when not exact.

    Returns:
        :class:`Comparison`; ``n_items`` counts items, ``n_groups`` units (None without groups).

    Raises:
        ValueError: fewer than 2 items (or fewer than 2 groups), reference and candidate of
            different lengths, or ``groups`` not of length ``n``.
        NotComparable: the statistic undefined on half the resamples.
    """
    stat = statistic or _mean
    if statistic is None:
        reference, candidate = np.asarray(reference, dtype=np.float64), np.asarray(candidate, dtype=np.float64)
    n = len(reference) if n is None else n
    if n < 2:
        raise ValueError(f"a paired comparison needs at least 2 items, got {n}")
    if statistic is None and len(candidate) != n:
        raise ValueError(f"reference has {n} items, candidate {len(candidate)}")
    units = _units(groups, n)
    if units.n_units < 2:
        raise ValueError(f"a paired comparison needs at least 2 groups, got {units.n_units}")
    all_idx = np.arange(n)
    ref_v, cand_v = stat(reference, all_idx), stat(candidate, all_idx)
    observed = cand_v - ref_v

    diffs, exact, undefined = _bootstrap(
        lambda idx: stat(candidate, idx) - stat(reference, idx), units, n_resamples, seed
    )
    lo, hi = _interval(diffs)
    blocks = units.blocks()
    p = (
        None
        if len(blocks) < 2
        else _randomisation_p(
            reference,
            candidate,
            stat,
            n,
            observed,
            n_resamples,
            exact_swaps_max,
            seed,
            vector=statistic is None,
            blocks=blocks,
        )
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
        len(diffs) + undefined,
        exact,
        None if groups is None else units.n_units,
        unit or ("item" if groups is None else "group"),
        undefined,
    )


def _randomisation_p(
    reference, candidate, stat, n, observed, n_resamples, exact_max, seed, *, vector: bool, blocks: list[np.ndarray]
) -> float:
    all_idx = np.arange(n)
    if vector:
        d = candidate - reference
        d = np.array([d[m].sum() for m in blocks])  # one sign per block: the block's summed difference
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
        swap = np.zeros(n, dtype=bool)
        for m, s in zip(blocks, rng.random(len(blocks)) < 0.5):
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


def _fast_sklearn() -> Any:
    """scikit-learn's input checks skipped inside (the PAN metrics check their inputs themselves): same values."""
    import sklearn

    return sklearn.config_context(skip_parameter_validation=True, assume_finite=True)


def pan_overall_statistic(data: dict[str, Any], idx: np.ndarray) -> float:
    """PAN overall score (official metrics, :func:`mteb_contrastive.metrics.pan.evaluate_all`) of the items ``idx``.

    ``data``: ``{"labels": int array, "answers": float array, "year": 2020|2021}``. NaN (undefined)
    when ``idx`` holds one class only (AUC does not exist) or no item.
    """
    if idx.size == 0:
        return float("nan")
    labels = data["labels"][idx]
    if labels.min() == labels.max():
        return float("nan")
    return float(evaluate_all(labels, data["answers"][idx], year=data["year"])["overall"])


# ----------------------------------------------------------------------------- per-item records


def _aligned_groups(reference: Any, candidate: Any, a_idx: np.ndarray, b_idx: np.ndarray) -> list | None:
    """The units of the common items: both records' (which must agree), else the one that has them."""
    if reference.groups is None and candidate.groups is None:
        return None
    ref_groups = None if reference.groups is None else [reference.groups[j] for j in a_idx]
    cand_groups = None if candidate.groups is None else [candidate.groups[j] for j in b_idx]
    if ref_groups is not None and cand_groups is not None and ref_groups != cand_groups:
        raise NotComparable("the two models' per-item files disagree on the items' groups")
    return ref_groups if ref_groups is not None else cand_groups


def _same_items(reference: Any, candidate: Any) -> list[str]:
    """The item ids, when both records hold the same set (order may differ).

    Raises:
        NotComparable: the sets differ (with the counts on each side).
    """
    a, b = set(reference.ids), set(candidate.ids)
    if a != b:
        raise NotComparable(
            f"not the same items: {len(a - b)} only in the reference, {len(b - a)} only in the candidate "
            f"({len(a & b)} common)"
        )
    return list(reference.ids)


def _statistic_of(item: Any) -> tuple[Callable | None, int]:
    """(statistic, kwargs default n_resamples) of a per-item record: mean of values, or PAN overall."""
    return (None, 1000) if item.values is not None else (pan_overall_statistic, 300)


def _data(item: Any, idx: np.ndarray, labels: np.ndarray | None = None) -> Any:
    if item.values is not None:
        return np.asarray(item.values, dtype=np.float64)[idx]
    labels = np.asarray(item.labels)[idx] if labels is None else labels
    return {"labels": labels, "answers": np.asarray(item.answers, dtype=np.float64)[idx], "year": item.year}


def _check_units(groups: Any, n: int, resampling: Any) -> None:
    if resampling is not None and resampling.grouped and groups is None:
        raise NotComparable(
            f"no {resampling.unit} ids in the per-item file (written by an older version): "
            f"rerun to resample by {resampling.unit}"
        )
    if groups is not None and _units(groups, n).n_units < 2:
        unit = resampling.unit if resampling is not None else "group"
        raise NotComparable(f"{n} items in 1 {unit}: no interval")


def compare_per_item(
    reference: Any, candidate: Any, higher_is_better: bool = True, *, resampling: Any = None, **kwargs: Any
) -> Comparison | str:
    """Compare two :class:`~mteb_contrastive.report.reader.PerItem` records item by item.

    The two records must hold the same items (like with like); the resampling unit is
    ``resampling`` (a :class:`~mteb_contrastive.families.Resampling`): when it is not the item, the
    records' ``groups`` give each item's unit(s) -- a record without them cannot be compared by
    that unit. Items treated as independent would give too narrow an interval.

    Returns the :class:`Comparison`, or a one-line reason when no comparison is possible.
    """
    if reference is None or candidate is None:
        return "no per-item data"
    try:
        ids = _same_items(reference, candidate)
        if len(ids) < 2:
            return "fewer than 2 items"
        ri = {k: j for j, k in enumerate(reference.ids)}
        ci = {k: j for j, k in enumerate(candidate.ids)}
        a_idx, b_idx = np.array([ri[i] for i in ids]), np.array([ci[i] for i in ids])
        groups = _aligned_groups(reference, candidate, a_idx, b_idx)
        _check_units(groups, len(ids), resampling)
        unit = resampling.unit if resampling is not None else (None if groups is None else "group")
        stat, default_resamples = _statistic_of(reference)
        kwargs.setdefault("n_resamples", default_resamples)
        with _fast_sklearn():
            return _compare(reference, candidate, a_idx, b_idx, ids, groups, unit, stat, higher_is_better, kwargs)
    except NotComparable as exc:
        return str(exc)


def _compare(
    reference: Any,
    candidate: Any,
    a_idx: np.ndarray,
    b_idx: np.ndarray,
    ids: list[str],
    groups: list | None,
    unit: str | None,
    stat: Callable | None,
    higher_is_better: bool,
    kwargs: dict[str, Any],
) -> Comparison:
    """:func:`paired_bootstrap` of two aligned records: per-item values (mean) or labelled answers (``stat``)."""
    if stat is None:
        return paired_bootstrap(
            _data(reference, a_idx),
            _data(candidate, b_idx),
            groups=groups,
            unit=unit,
            higher_is_better=higher_is_better,
            statistic_name=reference.statistic_name,
            **kwargs,
        )
    labels = np.asarray(reference.labels)[a_idx]
    return paired_bootstrap(
        _data(reference, a_idx, labels),
        _data(candidate, b_idx, labels),
        statistic=stat,
        n=len(ids),
        groups=groups,
        unit=unit,
        higher_is_better=higher_is_better,
        statistic_name=reference.statistic_name,
        **kwargs,
    )


def interval_per_item(
    item: Any, *, resampling: Any = None, statistic: Callable | None = None, **kwargs: Any
) -> Interval | str:
    """:func:`bootstrap_interval` of one :class:`~mteb_contrastive.report.reader.PerItem` record by
    ``resampling``'s unit; a one-line reason when there is none. ``statistic`` (``f({"labels",
    "answers", "year"}, idx)``) replaces the PAN overall score of a labelled record (the ROC AUC of
    the similarities, say)."""
    if item is None:
        return "no per-item data"
    try:
        if len(item.ids) < 2:
            return "fewer than 2 items"
        _check_units(item.groups, len(item.ids), resampling)
        stat, default_resamples = _statistic_of(item)
        if statistic is not None and item.values is None:
            stat = statistic
        kwargs.setdefault("n_resamples", default_resamples)
        idx = np.arange(len(item.ids))
        with _fast_sklearn():
            return bootstrap_interval(
                _data(item, idx),
                statistic=stat,
                n=len(item.ids),
                groups=item.groups,
                unit=resampling.unit if resampling is not None else "item",
                statistic_name=item.statistic_name,
                **kwargs,
            )
    except NotComparable as exc:
        return str(exc)
