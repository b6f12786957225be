"""The one statistics path of every family: intervals and paired comparisons resampled by the unit of
independence, the randomisation test, and the family-wise error control of a report's comparisons.

Every interval and comparison of the project comes from here (the release report's
:mod:`mteb_contrastive.report.compare`, the attribution protocol's intervals, the training
tables' script); the caller only says which unit an item belongs to.

Method (Efron & Tibshirani 1993, ch. 13 percentile interval; Koehn 2004 paired bootstrap):

* the **units** (:class:`mteb_contrastive.families.Resampling`: queries, IR queries, anchor
  authors, the authors of a pair, the author of an attributed text) are drawn with replacement,
  ``G`` out of ``G``; an item enters the resample once per draw of its unit -- or, for an item of
  several units (a pair of two authors), the product of its units' draw counts (the vertex
  bootstrap of dyadic data, Snijders & Borgatti 1999, "Non-parametric standard errors and tests
  for network statistics"; for items of one unit each this is the cluster bootstrap of Davison &
  Hinkley 1997, section 3.8, first stage only; with no groups every item is its own unit). A
  paired comparison uses the same resample for both models and records
  ``statistic(candidate) - statistic(reference)``;
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
  swapped statistics with |diff| >= |observed diff|. Every one of the ``2 ** b`` swaps is
  enumerated when ``2 ** b <= n_resamples`` (for a mean: ``b`` = the blocks with a nonzero summed
  difference, up to ``exact_swaps_max``), else ``n_resamples`` draws; None when there are fewer
  than 2 blocks. No swap and the full swap give the same ``|diff|``, so **the smallest reachable p
  is** ``2 / 2 ** b`` (``min_p``; ``n_blocks`` beside it): with 7 blocks p cannot fall below 1/64,
  whatever the difference;
* **verdict: the interval and the test** -- ``better`` when the whole interval is above 0 (below 0
  for a lower-is-better score) *and* p < :data:`ALPHA`, ``worse`` when both say the other side,
  else ``within noise``;
* **multiplicity**: the comparisons of one report (or one table) are one family; :func:`holm`
  (Holm 1979, "A simple sequentially rejective multiple test procedure") adjusts their p values,
  which controls the family-wise error rate at :data:`ALPHA` under any dependence, and
  :func:`holm_verdicts` re-decides each verdict with its adjusted p (``p_holm``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: the level of the test and of the interval (two-sided 95%)
ALPHA = 0.05


class NotComparable(ValueError):
    """No interval or comparison can be drawn; the message says why in one line, ``kind`` which case
    (:class:`mteb_contrastive.report.compare.Failure` lists them)."""

    def __init__(self, message: str, kind: str = "other") -> None:
        super().__init__(message)
        self.kind = kind


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
    #: swap blocks of the randomisation test (connected groups of units)
    n_blocks: int = 0
    #: the smallest p the swap blocks can give (2 / 2 ** b, b = the blocks whose swap can change the
    #: statistic: for a mean those with a nonzero summed difference); None without a test
    min_p: float | None = None
    #: whether the test's p is exact (every swap enumerated)
    p_exact: bool = False
    #: Holm-adjusted p over the report's comparisons (:func:`holm_verdicts`); None until adjusted
    p_holm: float | None = None

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
class Units:
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


def units_of(groups: Any, n: int) -> Units:
    """The units of ``n`` items: each item its own unit (``groups`` None), else one id or a list of ids per item.

    Raises:
        ValueError: ``groups`` not of length ``n``, or an item without a group id.
    """
    if groups is None:
        return Units(np.arange(n, dtype=np.int64).reshape(n, 1), list(range(n)))
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
    return Units(pad, list(index))


def _resamples(units: Units, n_resamples: int, seed: int) -> tuple[bool, Any, int]:
    """(exact, iterator of drawn unit-index arrays, total): every tuple when ``G ** G <= n_resamples``."""
    g = units.n_units
    if g**g <= n_resamples:
        return True, (np.asarray(t) for t in itertools.product(range(g), repeat=g)), g**g
    rng = np.random.default_rng(seed)
    return False, (rng.integers(0, g, g) for _ in itertools.count()), n_resamples


def _bootstrap(
    stats: Callable[[np.ndarray], float], units: Units, n_resamples: int, seed: int
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
            "(one class only): too few units of each class for an interval",
            "undefined",
        )
    return np.sort(np.asarray(out)), exact, undefined


def _singletons(units: Units, n: int) -> bool:
    """Whether every item is its own unit (item i is unit i)."""
    return units.pad.shape[1] == 1 and units.n_units == n and bool((units.pad[:, 0] == np.arange(n)).all())


def _bootstrap_mean_of_items(values: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """:func:`_bootstrap` of the mean where every item is its own unit and every value is finite, all
    resamples at once: the same draws (one ``integers(0, n, n)`` call per resample, as
    :func:`_resamples`), each resample's items in the same order (sorted: ``np.repeat`` of the counts),
    and each row's mean by numpy's same pairwise sum: the same floats as the loop (a test), about
    20x faster. Rows are taken in blocks of about 4M items."""
    n = values.size
    rng = np.random.default_rng(seed)
    block = max(1, (1 << 22) // n)
    out = []
    for start in range(0, n_resamples, block):
        rows = min(block, n_resamples - start)
        draws = np.sort(np.stack([rng.integers(0, n, n) for _ in range(rows)]), axis=1)
        out.append(values[draws].mean(axis=1))
    return np.sort(np.concatenate(out))


def _interval(values: np.ndarray) -> tuple[float, float]:
    w = np.ones_like(values)
    return _quantile_low(values, w, ALPHA / 2), _quantile_low(values, w, 1 - ALPHA / 2)


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

    Args:
        data: per-item values (1-D, statistic = mean) or anything ``statistic(data, idx)`` reads.
        statistic: ``f(data, idx) -> float`` over the items ``idx`` (int array, may repeat; NaN = undefined).
        n: number of items (default ``len(data)``).
        groups: the unit id (or list of ids) of each item (module docstring); None = every item its own unit.

    Raises:
        NotComparable: fewer than 2 units, or the statistic undefined on half the resamples.
        ValueError: ``groups`` not of length ``n``.
    """
    stat = statistic or _mean
    if statistic is None:
        data = np.asarray(data, dtype=np.float64)
    n = len(data) if n is None else n
    units = units_of(groups, n)
    if units.n_units < 2:
        raise NotComparable(f"{n} items in {units.n_units} {unit}: no interval", "too_few")
    fast = statistic is None and _singletons(units, n) and units.n_units**units.n_units > n_resamples
    if fast and np.isfinite(data).all():
        vals, exact, undefined = _bootstrap_mean_of_items(data, n_resamples, seed), False, 0
    else:
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


def verdict_of(ci_low: float, ci_high: float, p: float | None, higher_is_better: bool = True) -> str:
    """``better`` / ``worse`` when the interval excludes 0 on that side and ``p < ALPHA``; else ``within noise``."""
    if p is None or not p < ALPHA:
        return "within noise"
    if (ci_low > 0 and higher_is_better) or (ci_high < 0 and not higher_is_better):
        return "better"
    if (ci_high < 0 and higher_is_better) or (ci_low > 0 and not higher_is_better):
        return "worse"
    return "within noise"


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
        :class:`Comparison`; ``n_items`` counts items, ``n_groups`` units (None without groups),
        ``n_blocks`` / ``min_p`` the test's swap blocks and its smallest reachable p.

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
    units = units_of(groups, n)
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
    p, n_swapping, p_exact = None, len(blocks), False
    if len(blocks) >= 2:
        p, n_swapping, p_exact = _randomisation_p(
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
    return Comparison(
        statistic_name,
        n,
        ref_v,
        cand_v,
        observed,
        lo,
        hi,
        p,
        verdict_of(lo, hi, p, higher_is_better),
        len(diffs) + undefined,
        exact,
        None if groups is None else units.n_units,
        unit or ("item" if groups is None else "group"),
        undefined,
        len(blocks),
        None if p is None else 2.0 ** (1 - n_swapping),
        p_exact,
    )


def _randomisation_p(
    reference, candidate, stat, n, observed, n_resamples, exact_max, seed, *, vector: bool, blocks: list[np.ndarray]
) -> tuple[float, int, bool]:
    """(p, the blocks that count, exact): for a mean the blocks with a nonzero summed difference."""
    all_idx = np.arange(n)
    if vector:
        d = candidate - reference
        d = np.array([d[m].sum() for m in blocks])  # one sign per block: the block's summed difference
        nz = np.flatnonzero(d)
        if nz.size <= exact_max:
            signs = np.array(list(itertools.product((1.0, -1.0), repeat=nz.size))) if nz.size else np.ones((1, 0))
            stats = (signs * d[nz]).sum(axis=1) / n
            return float(np.mean(np.abs(stats) >= abs(observed) - 1e-12)), max(int(nz.size), 1), True
        rng = np.random.default_rng(seed + 1)
        stats = (rng.choice((1.0, -1.0), size=(n_resamples, d.size)) * d).sum(axis=1) / n
        return float(np.mean(np.abs(stats) >= abs(observed) - 1e-12)), int(nz.size), False
    b = len(blocks)
    if 2**b <= n_resamples:
        patterns: Any = (np.asarray(t, dtype=bool) for t in itertools.product((False, True), repeat=b))
        total, exact = 2**b, True
    else:
        rng = np.random.default_rng(seed + 1)
        patterns = (rng.random(b) < 0.5 for _ in range(n_resamples))
        total, exact = n_resamples, False
    hits = 0
    for pattern in patterns:
        swap = np.zeros(n, dtype=bool)
        for m, s in zip(blocks, pattern):
            swap[m] = s
        a, c = _swap(reference, candidate, swap)
        hits += abs(stat(c, all_idx) - stat(a, all_idx)) >= abs(observed) - 1e-12
    return hits / total, b, exact


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


# ----------------------------------------------------------------------------- multiplicity


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p values (Holm 1979): with the m p values sorted ascending,
    ``p_(i) * (m - i + 1)``, made non-decreasing in that order and capped at 1. Rejecting where the
    adjusted p < alpha controls the family-wise error rate at alpha. Same order as the input; () -> ()."""
    p = np.asarray(p_values, dtype=np.float64)
    m = p.size
    if m == 0:
        return p
    order = np.argsort(p, kind="stable")
    adj = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    out = np.empty(m)
    out[order] = adj
    return out


def holm_verdicts(comparisons: list[dict[str, Any]]) -> int:
    """Holm-adjust the p values of one report's comparisons (dicts of :meth:`Comparison.as_dict`
    plus ``higher_is_better``) in place: ``p_holm`` and the ``verdict`` from the interval and the
    adjusted p (:func:`verdict_of`). Entries without a p value (no test, not compared) are left as
    they are. Returns the family size m (the comparisons with a p value)."""
    tested = [c for c in comparisons if c.get("p_value") is not None and c.get("statistic") is not None]
    for c, p in zip(tested, holm([c["p_value"] for c in tested])):
        c["p_holm"] = float(p)
        c["verdict"] = verdict_of(c["ci_low"], c["ci_high"], float(p), c.get("higher_is_better", True))
    return len(tested)
