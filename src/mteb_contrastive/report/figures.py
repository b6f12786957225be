"""Which figures the report draws, from its rows (the drawing itself is :mod:`.plots`).

Every figure has one colour per model (:func:`~.plots.model_colors`), each score with its chance
level and 95% interval by the family's unit; Recall@k and AUC intervals are computed here from
the prediction files (per-query recall, per-pair similarities).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from mteb_contrastive.metrics.pan import auc_by_ranks
from mteb_contrastive.report import plots
from mteb_contrastive.report.compare import Interval, interval_per_item
from mteb_contrastive.report.reader import PerItem, ScoreRow, per_query_metric, read_predictions
from mteb_contrastive.report.rows import ReportRow
from mteb_contrastive.report.statistics import resampling


def make_plots(
    rows: list[ScoreRow],
    out_rows: list[ReportRow],
    items: Callable[[ScoreRow], Any],
    prediction_dirs: dict[str, Path],
    plots_dir: Path,
    reference: Any,
    models: list[str],
    jobs: int = 1,
) -> list[Path]:
    """Every figure of the report, written under ``plots_dir``; the paths written. ``jobs``: processes drawing
    them (:func:`~.plots.make_and_save`; the same files whatever it is)."""
    colors = plots.model_colors(models)
    info = {(o.task, o.subset, o.split, o.model): o for o in out_rows}

    def row_info(r: ScoreRow) -> ReportRow:
        return info[(r.task, r.subset, r.split, r.model)]

    makers: list[tuple[Callable[[], Any], Path]] = [
        (lambda: plots.main_scores([row_info(r) for r in rows], colors), plots_dir / "main_scores.png"),
        (
            lambda: plots.score_vs_k([(r, row_info(r)) for r in rows if r.family == "author"], colors),
            plots_dir / "author_score_vs_k.png",
        ),
        (
            lambda: plots.recall_curves(_recall_curves(rows, prediction_dirs, reference), colors),
            plots_dir / "recall_at_k.png",
        ),
    ]
    for task in sorted({r.task for r in rows if r.family == "verification"}):
        makers.append(
            (
                lambda task=task: plots.roc_and_reliability(
                    _verification_curves(rows, task, items, prediction_dirs), task, colors
                ),
                plots_dir / f"{task}_roc_reliability.png",
            )
        )
    for task in sorted({r.task for r in rows if r.family == "quotes"}):
        makers.append(
            (
                lambda task=task: _gold_rank_histogram(rows, task, prediction_dirs, reference, colors),
                plots_dir / f"{task}_gold_rank_histogram.png",
            )
        )
    return plots.make_and_save(makers, jobs)


def _recall_curves(rows: list[ScoreRow], prediction_dirs: dict[str, Path], reference: Any) -> list[tuple]:
    """(row, ks, Recall@k intervals) of every author, quotes and retrieval row with two ks or more."""
    curves = []
    for r in rows:
        if r.family not in ("author", "quotes", "retrieval"):
            continue
        ks = sorted(int(m.group(1)) for k in r.scores if (m := re.fullmatch(r"recall_at_(\d+)", k)))
        if len(ks) < 2:
            continue
        curves.append((r, ks, recall_intervals(r, ks, prediction_dirs, reference)))
    return curves


def _verification_curves(
    rows: list[ScoreRow], task: str, items: Callable[[ScoreRow], Any], prediction_dirs: dict[str, Path]
) -> list[tuple]:
    """(model, labels, similarities, Platt probabilities or None, AUC interval) of each row of ``task``."""
    curves_v = []
    for r in (x for x in rows if x.task == task):
        it = items(r)
        if isinstance(it, str) or it.similarity is None:
            continue
        auc_iv = interval_per_item(
            PerItem("auc", it.ids, labels=it.labels, answers=it.similarity, groups=it.groups),
            resampling=resampling(r),
            statistic=auc_statistic,
        )
        pred = read_predictions(prediction_dirs.get(r.model), r.task, r.subset, r.split, r.model_revision)
        platt = np.asarray(pred["platt"]) if isinstance(pred, dict) and "platt" in pred else None
        curves_v.append((r.model, np.asarray(it.labels), np.asarray(it.similarity), platt, auc_iv))
    return curves_v


def _gold_rank_histogram(
    rows: list[ScoreRow], task: str, prediction_dirs: dict[str, Path], reference: Any, colors: dict[str, str]
) -> Any:
    """The rank histogram of the gold quote of quotes task ``task`` (:func:`~.plots.rank_histogram`)."""
    ranks: dict[str, list[float | None]] = {}
    pool = None
    for r in (x for x in rows if x.task == task):
        pred = read_predictions(prediction_dirs.get(r.model), r.task, r.subset, r.split, r.model_revision)
        ref = reference(r)
        if not isinstance(pred, dict) or not isinstance(ref, dict) or "qrels" not in ref:
            continue
        if ref.get("dataset_revision") not in (None, r.dataset_revision):
            continue  # like with like: not against another revision's qrels
        pool = r.scores.get("pool_size", pool)
        ranks[r.model] = [
            plots.tie_aware_rank(pred.get(q, {}), next(iter(rel))) for q, rel in ref["qrels"].items() if rel
        ]
    return plots.rank_histogram(ranks, f"{task}: rank of the gold quote", colors, pool_size=pool)


def auc_statistic(data: dict[str, Any], idx: np.ndarray) -> float:
    """ROC AUC of the similarities (``data["answers"]``) on the items ``idx``; NaN on one class.

    :func:`~mteb_contrastive.metrics.pan.auc_by_ranks` (scikit-learn's ``roc_auc_score`` to rounding, a
    test), without scikit-learn's input checks, which were most of each of a bootstrap's calls."""
    if idx.size == 0:
        return float("nan")
    return float(
        auc_by_ranks(data["labels"][idx][None, :], np.asarray(data["answers"], dtype=np.float64)[idx][None, :])[0]
    )


def recall_intervals(
    r: ScoreRow, ks: list[int], prediction_dirs: dict[str, Path], reference: Any
) -> dict[int, Interval | str]:
    """95% interval of Recall@k for each k, resampling queries (per-query recall from mteb's rankings
    and the task's qrels of the same dataset revision); the reason where there is none."""
    pred = read_predictions(prediction_dirs.get(r.model), r.task, r.subset, r.split, r.model_revision)
    ref = reference(r) if isinstance(pred, dict) and pred and "per_item" not in pred else None
    if not isinstance(ref, dict) or "qrels" not in ref:
        return {k: "no per-query rankings" for k in ks}
    if ref.get("dataset_revision") not in (None, r.dataset_revision):
        return {k: "the task's data here is another revision" for k in ks}
    out: dict[int, Interval | str] = {}
    for k in ks:
        ids, values = per_query_metric(pred, ref["qrels"], f"recall_{k}", ref.get("ignore_identical_ids", False))
        out[k] = interval_per_item(PerItem(f"recall_at_{k}", ids, values=values), resampling=resampling(r))
    return out
