"""Intervals and paired comparisons of the report's per-item records, by each family's unit of independence.

The statistics themselves (units, bootstrap, randomisation test, verdict, Holm) are the one path of
:mod:`mteb_contrastive.metrics.resampling`; this module aligns two
:class:`~mteb_contrastive.report.reader.PerItem` records, picks the statistic (mean of per-item
values, or the PAN overall score of labelled answers) and says, as a typed :class:`Failure`, why no
interval or comparison can be drawn.

Like with like (:func:`compare_per_item`): two models are compared only on the same items --
the same dataset revision is checked by the caller (:mod:`.write`); here the two per-item
records must hold the same item ids, else a :class:`Failure` of kind ``different_items``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mteb_contrastive.metrics.pan import evaluate_all_batch
from mteb_contrastive.metrics.resampling import (
    ALPHA,
    Comparison,
    Interval,
    NotComparable,
    bootstrap_interval,
    holm,
    holm_verdicts,
    paired_bootstrap,
    units_of,
)
from mteb_contrastive.metrics.resampling import units_of as _units  # noqa: F401 (older name)

__all__ = [
    "ALPHA",
    "Comparison",
    "Failure",
    "Interval",
    "NotComparable",
    "bootstrap_interval",
    "compare_per_item",
    "holm",
    "holm_verdicts",
    "interval_per_item",
    "paired_bootstrap",
    "pan_overall_statistic",
    "units_of",
]


class Failure(str):
    """Why no interval or comparison was drawn: the one-line reason (the string itself, shown as is)
    and its ``kind``, which callers test instead of the text:

    * ``no_items`` -- no per-item data (no prediction file, or an older one);
    * ``too_few`` -- fewer than 2 items, or all items in one unit;
    * ``different_items`` -- the two records do not hold the same items (not comparable);
    * ``no_units`` -- the per-item file lacks the unit ids the family resamples (rerun);
    * ``undefined`` -- the statistic is undefined on half the resamples (one class only);
    * ``other_revision`` -- the result is of another dataset revision than the data it is scored against;
    * ``other`` -- anything else :class:`NotComparable` said.
    """

    KINDS = ("no_items", "too_few", "different_items", "no_units", "undefined", "other_revision", "other")
    kind: str

    def __new__(cls, reason: str, kind: str = "other") -> Failure:
        if kind not in cls.KINDS:
            raise ValueError(f"unknown failure kind {kind!r}")
        obj = super().__new__(cls, reason)
        obj.kind = kind
        return obj

    @classmethod
    def of(cls, exc: NotComparable) -> Failure:
        return cls(str(exc), exc.kind if exc.kind in cls.KINDS else "other")


def _fast_sklearn() -> Any:
    """scikit-learn's input checks skipped inside (the PAN metrics check their inputs themselves): same values."""
    import sklearn

    return sklearn.config_context(skip_parameter_validation=True, assume_finite=True)


def pan_overall_statistic(data: dict[str, Any], idx: np.ndarray) -> float:
    """PAN overall score (official metrics, :func:`mteb_contrastive.metrics.pan.evaluate_all`) of the items ``idx``.

    ``data``: ``{"labels": int array, "answers": float array, "year": 2020|2021}``. NaN (undefined)
    when ``idx`` holds one class only (AUC does not exist) or no item. Computed by
    :func:`~mteb_contrastive.metrics.pan.evaluate_all_batch` on one row (the same rules, equal to
    ``evaluate_all`` to 1e-12, tested): a bootstrap calls this hundreds of times, and scikit-learn's
    input checks were most of each call.

    Raises:
        ValueError: ``year`` not 2020 or 2021.
    """
    if idx.size == 0:
        return float("nan")
    labels = data["labels"][idx]
    if labels.min() == labels.max():
        return float("nan")
    return float(evaluate_all_batch(labels[None, :], data["answers"][idx][None, :], year=data["year"])["overall"][0])


# ----------------------------------------------------------------------------- per-item records


def _aligned_groups(reference: Any, candidate: Any, a_idx: np.ndarray, b_idx: np.ndarray) -> list | None:
    """The units of the common items: both records' (which must agree), else the one that has them."""
    if reference.groups is None and candidate.groups is None:
        return None
    ref_groups = None if reference.groups is None else [reference.groups[j] for j in a_idx]
    cand_groups = None if candidate.groups is None else [candidate.groups[j] for j in b_idx]
    if ref_groups is not None and cand_groups is not None and ref_groups != cand_groups:
        raise NotComparable("the two models' per-item files disagree on the items' groups", "different_items")
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
            f"({len(a & b)} common)",
            "different_items",
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
            f"rerun to resample by {resampling.unit}",
            "no_units",
        )
    if groups is not None and _units(groups, n).n_units < 2:
        unit = resampling.unit if resampling is not None else "group"
        raise NotComparable(f"{n} items in 1 {unit}: no interval", "too_few")


def compare_per_item(
    reference: Any, candidate: Any, higher_is_better: bool = True, *, resampling: Any = None, **kwargs: Any
) -> Comparison | Failure:
    """Compare two :class:`~mteb_contrastive.report.reader.PerItem` records item by item.

    The two records must hold the same items (like with like); the resampling unit is
    ``resampling`` (a :class:`~mteb_contrastive.families.Resampling`): when it is not the item, the
    records' ``groups`` give each item's unit(s) -- a record without them cannot be compared by
    that unit. Items treated as independent would give too narrow an interval.

    Returns the :class:`Comparison`, or a :class:`Failure` (its one-line reason and kind) when no
    comparison is possible.
    """
    if reference is None or candidate is None:
        return Failure("no per-item data", "no_items")
    try:
        ids = _same_items(reference, candidate)
        if len(ids) < 2:
            return Failure("fewer than 2 items", "too_few")
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
        return Failure.of(exc)


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
) -> Interval | Failure:
    """:func:`bootstrap_interval` of one :class:`~mteb_contrastive.report.reader.PerItem` record by
    ``resampling``'s unit; a one-line reason when there is none. ``statistic`` (``f({"labels",
    "answers", "year"}, idx)``) replaces the PAN overall score of a labelled record (the ROC AUC of
    the similarities, say); a :class:`Failure` when there is none."""
    if item is None:
        return Failure("no per-item data", "no_items")
    try:
        if len(item.ids) < 2:
            return Failure("fewer than 2 items", "too_few")
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
        return Failure.of(exc)
