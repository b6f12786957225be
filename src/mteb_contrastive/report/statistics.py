"""The report's per-row statistics: chance level, the main score's 95% interval (by the family's unit
of independence), the paired comparison of two models' rows and which models the intervals separate.

Chance levels come from :mod:`.chance`, intervals and tests from :mod:`.compare`; this module
decides which of them a row or a pair of rows gets (like with like: the same dataset revision and
the same items, else "not comparable" and the reason).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from mteb_contrastive.families import Resampling, higher_is_better, resampling_of
from mteb_contrastive.metrics.resampling import verdict_of
from mteb_contrastive.report.chance import (
    SIMULATION_RUNS,
    cached_calibrated_chance,
    calibrated_kind,
    chance_levels,
    main_chance,
    stored_ranges,
    verification_counts,
)
from mteb_contrastive.report.compare import (
    Comparison,
    Failure,
    Interval,
    NotComparable,
    bootstrap_interval,
    compare_per_item,
    holm,
    interval_per_item,
    paired_bootstrap,
)
from mteb_contrastive.report.reader import PerItem, ScoreRow, task_class
from mteb_contrastive.report.rows import ComparisonRow, ReportRow, RowInterval, Separability

logger = logging.getLogger(__name__)

#: a row's per-item data, or the one-line reason there is none
Items = Callable[[ScoreRow], "PerItem | str"]


def resampling(r: ScoreRow) -> Resampling:
    """The row's unit of resampling (:func:`mteb_contrastive.families.resampling_of`)."""
    return resampling_of(task_class(r.task), r.family, r.scores)


def row_chance(
    r: ScoreRow, reference: Callable[[ScoreRow], Any], runs: int = SIMULATION_RUNS
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """(chance levels, simulated ones with their ranges) of one row.

    Exact and stored values (:func:`~.chance.chance_levels`) win: a verification result stores the
    chance of its calibrated scores simulated at the model's own scale (its scores, the labels
    permuted; :func:`~.chance.own_scale_chance_scores`, ranges :func:`~.chance.stored_ranges`). An
    older result without them gets the simulation on uniform scores
    (:func:`~.chance.cached_calibrated_chance`, cached per dataset revision). The task is loaded only
    when the result lacks what is needed (retrieval qrels for pool expectations; validation labels
    of a result that predates ``n_validation_same_author``).
    """
    needs_ref = r.family in ("author", "quotes", "retrieval") and "pool_size" in r.scores
    ch = chance_levels(r.family, r.scores, reference(r) if needs_ref else None)
    ranges: dict[str, dict[str, float]] = stored_ranges(r.scores)  # simulated by the protocol at the model's scale
    if r.family == "verification" and not ranges and any(calibrated_kind(k) for k in r.scores):
        counts = verification_counts(r.scores)
        if counts is None:
            counts = verification_counts(r.scores, reference(r))
        if counts is not None:
            try:
                sim = cached_calibrated_chance(
                    r.task,
                    r.subset,
                    r.split,
                    r.dataset_revision,
                    counts,
                    year=int(r.scores.get("pan_year", 2021)),
                    runs=runs,
                )
            except ValueError as exc:  # a single-class split: the protocol itself could not calibrate
                logger.warning("%s: no simulated chance level: %s", r.task, exc)
                sim = {}
            for k, v in sim.items():
                if f"random_{k}" not in ch:  # exact values (AUC 0.5) and stored ones win
                    ch[f"random_{k}"] = v["mean"]
                    ranges[k] = v
    return ch, ranges


def chance_method(name: str, scores: dict[str, Any], sim: dict[str, Any] | None) -> str:
    """How the chance level of score ``name`` was obtained: simulated, stored by the protocol, or exact."""
    if sim is not None and sim.get("scale") == "own":
        return (
            f"simulated at the model's own scale ({sim['runs']} runs of its validation and test scores "
            "with the labels permuted, through the protocol's calibration)"
        )
    if sim is not None:
        return (
            f"simulated on uniform scores ({sim['runs']} random runs through the protocol's calibration; "
            "the result predates the model's own-scale simulation)"
        )
    if f"random_{name}" in scores or f"chance_{name}" in scores:
        return "stored by the protocol"
    return "exact"


def _labelled_data(it: PerItem, idx: np.ndarray, labels: np.ndarray | None = None) -> dict[str, Any]:
    """The data of a labelled record with its own statistic (``it.statistic``) for the items ``idx``."""
    labels = np.asarray(it.labels)[idx] if labels is None else labels
    return {"labels": labels, "answers": np.asarray(it.answers)[idx], **it.extra}


def _units_present(it: PerItem, res: Resampling) -> None:
    if res.grouped and it.groups is None:
        raise NotComparable(f"no {res.unit} ids in the per-item file: rerun to resample by {res.unit}", "no_units")


def own_statistic_interval(it: PerItem, res: Resampling) -> Interval | Failure:
    """:func:`~.compare.bootstrap_interval` of a record that carries its own statistic (attribution's
    macro-F1); a one-line reason when there is none."""
    try:
        _units_present(it, res)
        return bootstrap_interval(
            _labelled_data(it, np.arange(len(it.ids))),
            statistic=it.statistic,
            n=len(it.ids),
            groups=it.groups,
            unit=res.unit,
            statistic_name=it.statistic_name,
        )
    except NotComparable as exc:
        return Failure.of(exc)


def own_statistic_comparison(a: PerItem, b: PerItem, hib: bool, res: Resampling) -> Comparison | Failure:
    """:func:`~.compare.paired_bootstrap` of two records that carry their own statistic, on the same
    items (the candidate's aligned to the reference's ids); a one-line reason when there is none."""
    if set(a.ids) != set(b.ids):
        sa, sb = set(a.ids), set(b.ids)
        return Failure(
            f"not the same items: {len(sa - sb)} only in the reference, {len(sb - sa)} only in the candidate "
            f"({len(sa & sb)} common)",
            "different_items",
        )
    at = {k: j for j, k in enumerate(b.ids)}
    b_idx = np.array([at[i] for i in a.ids])
    labels = np.asarray(a.labels)
    if not np.array_equal(labels, np.asarray(b.labels)[b_idx]):
        return Failure("the two models' answer files disagree on the gold authors", "different_items")
    try:
        _units_present(a, res)
        return paired_bootstrap(
            _labelled_data(a, np.arange(len(a.ids)), labels),
            _labelled_data(b, b_idx, labels),
            statistic=a.statistic,
            n=len(a.ids),
            groups=a.groups,
            unit=res.unit,
            higher_is_better=hib,
            statistic_name=a.statistic_name,
        )
    except NotComparable as exc:
        return Failure.of(exc)
    except ValueError as exc:
        return Failure(str(exc), "too_few")


#: how far a stored score may lie from the same score recomputed: mteb's result files hold scores
#: rounded to 6 decimals (0.14666666... is stored as 0.146667)
STORED_PRECISION = 1e-6


def main_interval(r: ScoreRow, it: PerItem | str) -> RowInterval:
    """The 95% interval of the row's main score from its per-item data (by the family's unit), or
    why it is not shown (no per-item data, or an interval of another statistic). A record that
    carries its own statistic (attribution's macro-F1 from the answers) must reproduce the stored
    main score, else its interval is not shown."""
    res = resampling(r)
    if isinstance(it, str):
        iv: Interval | str = it
    elif it.statistic is not None:
        iv = own_statistic_interval(it, res)
    else:
        iv = interval_per_item(it, resampling=res)
    if not isinstance(iv, Interval):
        return RowInterval(unit=res.unit, reason=iv)
    reason = None if iv.statistic == r.main_score_name else f"interval of {iv.statistic}, not of the main score"
    if reason is None and not isinstance(it, str) and it.statistic is not None and r.main is not None:
        if abs(iv.value - r.main) > STORED_PRECISION:
            reason = f"{iv.statistic} recomputed from the answers is {iv.value:.4f}, the result stores {r.main:.4f}"
    return RowInterval(unit=iv.unit, interval=iv, reason=reason)


def report_row(r: ScoreRow, reference: Callable[[ScoreRow], Any], items: Items, chance_runs: int) -> ReportRow:
    """One stored result with its chance level, simulated range and main-score interval."""
    ch, ranges = row_chance(r, reference, chance_runs)
    chance_value, chance_text = main_chance(r.main_score_name, ch, ranges)
    sim = ranges.get(r.main_score_name)
    cross = f"{r.main_score_name}_cross_document"
    return ReportRow(
        family=r.family,
        task=r.task,
        split=r.split,
        subset=r.subset,
        languages=r.languages,
        model=r.model,
        model_revision=r.model_revision,
        dataset_revision=r.dataset_revision,
        main_score_name=r.main_score_name,
        main_score=r.main,
        higher_is_better=higher_is_better(r.main_score_name),
        chance=chance_value,
        chance_text=chance_text,
        chance_range=None if sim is None else [sim["low"], sim["high"]],
        chance_method=chance_method(r.main_score_name, r.scores, sim),
        chance_levels=ch,
        chance_simulated=ranges,
        cross_document=r.scores.get(cross),
        cross_document_chance=ch.get(f"random_{cross}"),
        interval=main_interval(r, items(r)),
        resampling_unit=resampling(r).unit,
        counts=r.counts(),
        secondary=r.secondary(),
        scores=r.scores,
        evaluation_time_s=r.evaluation_time,
        mteb_version=r.mteb_version,
        result_file=str(r.path),
    )


def compare_rows(ra: ScoreRow, rb: ScoreRow, items: Items) -> ComparisonRow:
    """Two models' rows of one (task, split, subset) compared; like with like: the same dataset
    revision and the same items, else ``verdict`` "not comparable" and the reason."""
    res = resampling(ra)
    entry = ComparisonRow(
        task=ra.task,
        split=ra.split,
        subset=ra.subset,
        reference=ra.model,
        candidate=rb.model,
        main_score_name=rb.main_score_name,
        reference_main=ra.main,
        candidate_main=rb.main,
        reference_dataset_revision=ra.dataset_revision,
        candidate_dataset_revision=rb.dataset_revision,
        unit=res.unit,
        item=res.item,
    )
    if ra.dataset_revision != rb.dataset_revision:
        entry.verdict = "not comparable"
        entry.reason = f"dataset revision {ra.dataset_revision} vs {rb.dataset_revision}"
        return entry
    a, b = items(ra), items(rb)
    for it in (a, b):
        if isinstance(it, Failure) and it.kind == "other_revision":
            entry.verdict, entry.reason = "not comparable", it
            return entry
    if isinstance(a, str) or isinstance(b, str):
        entry.verdict = a if isinstance(a, str) else b
        return entry
    hib = higher_is_better(a.statistic_name)
    if a.statistic is not None or b.statistic is not None:
        if a.statistic is not b.statistic or a.statistic_name != b.statistic_name:
            entry.verdict = Failure("the two models' per-item files hold different statistics", "other")
            return entry
        c = own_statistic_comparison(a, b, hib, res)
    else:
        c = compare_per_item(a, b, hib, resampling=res)
    if isinstance(c, str):
        entry.verdict = "not comparable" if c.kind == "different_items" else c
        if entry.verdict == "not comparable":
            entry.reason = c
        return entry
    entry.unit = c.unit
    entry.result, entry.verdict, entry.source, entry.higher_is_better = c, c.verdict, a.note, hib
    return entry


def holm_adjust(comparisons: list[ComparisonRow]) -> int:
    """One report's comparisons are one family: their randomisation-test p values Holm-adjusted together
    (:func:`mteb_contrastive.metrics.resampling.holm`, family-wise error 0.05), each verdict re-decided
    from its interval and adjusted p (:func:`~mteb_contrastive.metrics.resampling.verdict_of`), in place.
    Returns the family size (the comparisons with a p value)."""
    tested = [c for c in comparisons if c.result is not None and c.result.p_value is not None]
    for c, p in zip(tested, holm([c.result.p_value for c in tested])):
        x = c.result
        x.p_holm = float(p)
        x.verdict = c.verdict = verdict_of(x.ci_low, x.ci_high, float(p), c.higher_is_better)
    return len(tested)


def separability(comparisons: list[ComparisonRow], models: list[str]) -> list[Separability]:
    """Per (task, split, subset): the models by main score and which pairs the intervals separate."""
    out: dict[tuple, Separability] = {}
    main: dict[tuple, dict[str, Any]] = {}
    for c in comparisons:
        key = (c.task, c.split, c.subset)
        e = out.setdefault(key, Separability(c.task, c.split, c.subset))
        main.setdefault(key, {})[c.reference] = c.reference_main
        main[key][c.candidate] = c.candidate_main
        a, b = c.reference, c.candidate
        if c.statistic is None:
            e.not_compared.append(f"{a}, {b}: {c.reason or c.verdict}")
        elif c.verdict == "better":
            e.separable.append(f"{b} > {a}")
        elif c.verdict == "worse":
            e.separable.append(f"{a} > {b}")
        else:
            e.not_separable.append(f"{a} ~ {b}")
    for key, e in out.items():
        hib = next((c.higher_is_better for c in comparisons if c.task == e.task), True)
        scores = main[key]
        scored = [m for m in models if scores.get(m) is not None and not math.isnan(scores[m])]
        e.ranking = sorted(scored, key=lambda m: -scores[m] if hib else scores[m])
    return list(out.values())


def beats(comparisons: list[ComparisonRow]) -> Callable[[str, str, str, str, str], bool]:
    """``beats(task, split, subset, winner, loser)``: the two models' paired comparison on that task
    says ``winner`` is better (its 95% interval of the difference excludes 0 in ``winner``'s favour)."""
    better: set[tuple[str, str, str, str, str]] = set()
    for c in comparisons:
        if c.result is None:
            continue
        key = (c.task, c.split, c.subset)
        if c.verdict == "better":
            better.add((*key, c.candidate, c.reference))
        elif c.verdict == "worse":
            better.add((*key, c.reference, c.candidate))
    return lambda task, split, subset, winner, loser: (task, split, subset, winner, loser) in better
