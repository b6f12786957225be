"""Assemble the release report from one results folder: read every result
(:func:`~mteb_contrastive.report.reader.read_results`), find each model's prediction folder, give
each row its statistics (:mod:`.statistics`), compare each other model with the reference model
(the first one given unless named; with more than two models every pair), collect the questioned
texts, the content-independence and per-language tables, and draw the figures (:mod:`.figures`).
"""

from __future__ import annotations

import importlib.metadata
import itertools
import subprocess
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from mteb_contrastive import config
from mteb_contrastive.data.progress import bar
from mteb_contrastive.families import FAMILIES
from mteb_contrastive.layout import model_root
from mteb_contrastive.report.chance import SIMULATION_RUNS
from mteb_contrastive.report.compare import Failure, NotComparable
from mteb_contrastive.report.content import content_rows, language_rows
from mteb_contrastive.report.environment import RUN_INFO, read_run_info
from mteb_contrastive.report.figures import make_plots
from mteb_contrastive.report.reader import (
    PerItem,
    ScoreRow,
    per_item_scores,
    read_predictions,
    read_results,
    subset_sort_key,
    task_reference,
    topic_controlled_items,
)
from mteb_contrastive.report.reranking import reranking_plots, reranking_rows
from mteb_contrastive.report.rows import ComparisonRow, ModelInfo, QuestionedText, Report
from mteb_contrastive.report.statistics import beats, compare_rows, holm_adjust, report_row, separability

REPO = Path(__file__).resolve().parents[3]


def project_revision() -> str:
    """The checkout's git commit (``+dirty`` when it has uncommitted changes), else the package version."""
    try:
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        if head.returncode == 0:
            dirty = subprocess.run(
                ["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                capture_output=True,
                text=True,
                timeout=10,
            ).stdout.strip()
            return head.stdout.strip() + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        pass
    return f"mteb-contrastive {importlib.metadata.version('mteb-contrastive')}"


def build(
    results_dir: str | Path,
    *,
    models: list[str] | None = None,
    prediction_dirs: dict[str, Path] | None = None,
    reference_model: str | None = None,
    skipped: list[tuple[str, str]] | None = None,
    failed: list[tuple[str, str]] | None = None,
    plots_dir: Path | None = None,
    load_references: bool = True,
    chance_runs: int | None = None,
    run_info: dict[str, Any] | None = None,
    show_progress: bool = False,
    plot_jobs: int = 1,
) -> Report:
    """Everything the report shows, typed (:class:`~.rows.Report`; ``report.json`` is its ``to_json()``).

    Args:
        results_dir: mteb output folder.
        models: models to include, in this order (default: every model found, sorted).
        prediction_dirs: model name -> its prediction folder (per-item scores, plots).
        reference_model: the model every other is compared with (default: the first of ``models``);
            with more than two models every pair is compared too (which pairs are separable).
        skipped: (benchmark, reason) lines to repeat in the report.
        failed: (model, one-line reason) of each model whose evaluation failed (listed in the report).
        plots_dir: where PNGs go (None: no plots).
        load_references: load each task's qrels / labels through mteb for chance levels and
            per-item scores (False: only what the result files hold).
        chance_runs: random runs of a simulated chance level (:func:`~.chance.simulate_calibrated_chance`;
            default ``$MTEB_CONTRASTIVE_CHANCE_RUNS``, else :data:`~.chance.SIMULATION_RUNS`).
        run_info: how the results were computed (``run_info.json`` of ``mteb-contrastive evaluate``:
            device, machine, libraries, wall time); default: ``<results_dir>/../run_info.json`` when present.
        show_progress: a ``report: rows`` bar over the rows (chance levels, intervals: where the minutes go)
            and a ``report: comparisons`` bar (:func:`mteb_contrastive.data.progress.bar`).
        plot_jobs: processes drawing the figures (:func:`~.plots.make_and_save`: 2 or more draws in a forked
            process beside this one; the same files whatever it is).

    Raises:
        ValueError: ``$MTEB_CONTRASTIVE_CHANCE_RUNS`` is not a whole number > 0.
    """
    chance_runs = chance_runs or config.env_positive_int(config.CHANCE_RUNS_ENV, SIMULATION_RUNS)
    rows = read_results(results_dir, models=models)
    found = sorted({r.model for r in rows})
    models = [m for m in (models or found) if m in found]
    rows.sort(key=lambda r: (models.index(r.model),))  # stable: keeps family/task order within
    order = list(FAMILIES)
    rows.sort(key=lambda r: (order.index(r.family), r.task, r.split, subset_sort_key(r.subset)))
    prediction_dirs = dict(prediction_dirs or {})
    for m in models:  # the layout of `mteb-contrastive evaluate`: <out>/results beside <out>/predictions/<org__name>
        guess = model_root(Path(results_dir).parent / "predictions", m)
        if m not in prediction_dirs and guess.is_dir():
            prediction_dirs[m] = guess
    if run_info is None:
        run_info = read_run_info(Path(results_dir).parent / RUN_INFO)
    ref_cache: dict[tuple[str, str, str], Any] = {}

    def reference(r: ScoreRow) -> Any:
        key = (r.task, r.subset, r.split)
        if key not in ref_cache:
            ref_cache[key] = task_reference(*key) if load_references else None
        return ref_cache[key]

    item_cache: dict[int, PerItem | str] = {}

    def items(r: ScoreRow) -> PerItem | str:
        """The row's per-item data, or why there is none (the task is loaded only when the file needs it)."""
        if id(r) not in item_cache:
            try:
                it = per_item_scores(
                    r, prediction_dirs.get(r.model), (lambda: reference(r)) if r.family != "other" else None
                )
            except NotComparable as exc:
                it = Failure.of(exc)
            item_cache[id(r)] = Failure("no per-item data", "no_items") if it is None else it
        return item_cache[id(r)]

    row_bar = bar(len(rows), "report: rows (chance levels, intervals)", unit="row", disable=not show_progress)
    out_rows = []
    for r in rows:
        out_rows.append(report_row(r, reference, items, chance_runs))
        row_bar.update(1)
    row_bar.close()
    comparisons: list[ComparisonRow] = []
    comparison_pairs: list[tuple[ScoreRow, ScoreRow]] = []
    if len(models) > 1:
        ref_model = reference_model if reference_model in models else models[0]
        others = [m for m in models if m != ref_model]
        pairs = [(ref_model, m) for m in others]
        if len(models) > 2:  # every pair: which models are separable, not only a ranked list
            pairs += list(itertools.combinations(others, 2))
        by_key: dict[tuple, dict[str, ScoreRow]] = {}
        for r in rows:
            by_key.setdefault((r.task, r.split, r.subset), {})[r.model] = r
        todo = [(pm[a], pm[b]) for pm in by_key.values() for a, b in pairs if a in pm and b in pm]
        cmp_bar = bar(len(todo), "report: comparisons", unit="comparison", disable=not show_progress)
        comparison_pairs = todo
        for ra, rb in todo:
            comparisons.append(compare_rows(ra, rb, items))
            cmp_bar.update(1)
        cmp_bar.close()

    # each two-stage model against its own first stage: the comparison above when it has that orientation
    done = {(c.task, c.split, c.subset, c.reference, c.candidate): c for c in comparisons}
    info = {(o.task, o.subset, o.split, o.model): o for o in out_rows}
    rerank = reranking_rows(
        rows,
        lambda first, reranked: (
            done.get((first.task, first.split, first.subset, first.model, reranked.model))
            or compare_rows(first, reranked, items)
        ),
        lambda r: info[(r.task, r.subset, r.split, r.model)],
    )
    shared = {id(c) for c in comparisons}
    extra = [e.comparison for e in rerank if e.comparison is not None and id(e.comparison) not in shared]
    topic = topic_comparisons(comparison_pairs, prediction_dirs)
    holm_adjust(comparisons + extra + topic)  # one family: every comparison of this report (reranking, topic too)
    questioned = questioned_lines(rows, prediction_dirs)
    figures, rerank_figures = [], []
    if plots_dir is not None:
        figures = make_plots(rows, out_rows, items, prediction_dirs, plots_dir, reference, models, jobs=plot_jobs)
        rerank_figures = reranking_plots(rerank, plots_dir)
    model_info = []
    for m in models:
        r = next(x for x in rows if x.model == m)
        meta = r.model_meta
        model_info.append(
            ModelInfo(
                model=m,
                revision=r.model_revision,
                n_parameters=meta.get("n_parameters"),
                reference=meta.get("reference"),
                loader=meta.get("loader"),
                prediction_folder=str(prediction_dirs.get(m) or ""),
            )
        )
    datasets = sorted({(r.task, r.dataset_revision or "n/a") for r in rows})
    return Report(
        generated_at=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        project_revision=project_revision(),
        mteb_version=next((r.mteb_version for r in rows if r.mteb_version), None),
        results_dir=str(results_dir),
        models=model_info,
        datasets=[{"task": t, "dataset_revision": v} for t, v in datasets],
        skipped=[{"benchmark": b, "reason": why} for b, why in (skipped or [])],
        rows=out_rows,
        comparisons=comparisons,
        topic_comparisons=topic,
        questioned=questioned,
        separability=separability(comparisons, models) if len(models) > 2 else [],
        run_info=run_info,
        task_times=[
            {"model": r.model, "task": r.task, "evaluation_time_s": r.evaluation_time}
            for r in {(x.model, x.task): x for x in rows}.values()
        ],
        plots=[str(p) for p in figures],
        content_independence=content_rows(rows),
        languages=_languages_json(language_rows(rows, beats(comparisons))),
        failed=[{"model": m, "reason": why} for m, why in (failed or [])],
        reranking=rerank,
        reranking_plots=[str(p) for p in rerank_figures],
    )


def topic_comparisons(pairs: list[tuple[ScoreRow, ScoreRow]], prediction_dirs: dict[str, Path]) -> list[ComparisonRow]:
    """The compared pairs again on their topic-controlled items (:func:`~.reader.topic_controlled_items`),
    where both models recorded them: the same paired bootstrap and test (:func:`~.statistics.compare_rows`,
    the family's unit of resampling), so "does a model gain on the items where topic points the wrong way,
    or only on all items?" has an interval."""

    cache: dict[int, PerItem | Failure] = {}  # a row is in several pairs: its predictions file is read once

    def items(r: ScoreRow) -> PerItem | Failure:
        if id(r) not in cache:
            it = topic_controlled_items(r, prediction_dirs.get(r.model))
            cache[id(r)] = Failure("no topic-controlled items recorded", "no_items") if it is None else it
        return cache[id(r)]

    out = []
    for ra, rb in pairs:
        if ra.scores.get("n_triplets_topic_controlled") and rb.scores.get("n_triplets_topic_controlled"):
            c = compare_rows(ra, rb, items)
            if c.result is not None:
                out.append(c)
    return out


def build_report(results_dir: str | Path, **kwargs: Any) -> dict[str, Any]:
    """:func:`build` as the JSON-able dict of ``report.json`` (same arguments)."""
    return build(results_dir, **kwargs).to_json()


def _languages_json(table: dict[str, Any]) -> dict[str, Any]:
    """The per-language table with JSON keys (``"model|language|kind"``, ``"language|kind"``)."""
    return {
        **table,
        "cells": {"|".join(k): v for k, v in table["cells"].items()},
        "flags": {"|".join(k): v for k, v in table["flags"].items()},
    }


def questioned_lines(rows: list[ScoreRow], prediction_dirs: dict[str, Path]) -> list[QuestionedText]:
    """The questioned texts of every attribution result whose predictions are here: one entry per
    (task, model, text) with the top candidates and their calibrated probabilities and the answer
    (:mod:`mteb_contrastive.protocols.attribution`, step 8)."""
    out = []
    for r in rows:
        if r.family != "attribution" or not r.scores.get("n_questioned_texts"):
            continue
        pred = read_predictions(prediction_dirs.get(r.model), r.task, r.subset, r.split, r.model_revision)
        for q in (pred or {}).get("questioned") or []:
            out.append(
                QuestionedText(
                    task=r.task,
                    model=r.model,
                    id=q["id"],
                    title=q.get("title") or "",
                    label_note=q.get("label_note") or "",
                    top=[(c["author"], c["probability"]) for c in q["ranking"][:3]],
                    answer=q["answer"],
                )
            )
    return out
