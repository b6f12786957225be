"""``report.md`` + ``report.json`` + ``report.csv`` (+ ``plots/*.png``) from one results folder.

Everything is read with :func:`~mteb_contrastive.report.reader.read_results`; chance levels from
:mod:`~mteb_contrastive.report.chance`; comparisons from :mod:`~mteb_contrastive.report.compare`
(each other model against the reference model, the first one given unless named).

``report.csv`` is long format: one line per (model, task, split, subset, score name) with the
value and the chance level of that score when known. All three files are written atomically.
"""

from __future__ import annotations

import csv
import importlib.metadata
import io
import itertools
import json
import logging
import math
import re
import subprocess
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from mteb_contrastive import config
from mteb_contrastive.data.atomic import write_text_atomic
from mteb_contrastive.data.progress import bar
from mteb_contrastive.families import FAMILIES, Resampling, higher_is_better, resampling_of
from mteb_contrastive.layout import model_root
from mteb_contrastive.report import plots
from mteb_contrastive.report.chance import (
    SIMULATION_RUNS,
    cached_calibrated_chance,
    calibrated_kind,
    chance_levels,
    main_chance,
    verification_counts,
)
from mteb_contrastive.report.compare import Interval, NotComparable, compare_per_item, interval_per_item
from mteb_contrastive.report.content import content_rows, language_rows, render_content, render_languages
from mteb_contrastive.report.environment import RUN_INFO, read_run_info, task_runs
from mteb_contrastive.report.reader import (
    PerItem,
    ScoreRow,
    per_item_scores,
    per_query_metric,
    read_predictions,
    read_results,
    subset_sort_key,
    task_class,
    task_reference,
)

logger = logging.getLogger(__name__)

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


def fmt(v: Any, digits: int = 4) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int) or (isinstance(v, float) and v.is_integer() and abs(v) >= 10):
        return str(int(v))
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def build_report(
    results_dir: str | Path,
    *,
    models: list[str] | None = None,
    prediction_dirs: dict[str, Path] | None = None,
    reference_model: str | None = None,
    skipped: list[tuple[str, str]] | None = None,
    plots_dir: Path | None = None,
    load_references: bool = True,
    chance_runs: int | None = None,
    run_info: dict[str, Any] | None = None,
    show_progress: bool = False,
) -> dict[str, Any]:
    """Everything the report shows, as one JSON-able dict (see :func:`write_report`).

    Args:
        results_dir: mteb output folder.
        models: models to include, in this order (default: every model found, sorted).
        prediction_dirs: model name -> its prediction folder (per-item scores, plots).
        reference_model: the model every other is compared with (default: the first of ``models``);
            with more than two models every pair is compared too (which pairs are separable).
        skipped: (benchmark, reason) lines to repeat in the report.
        plots_dir: where PNGs go (None: no plots).
        load_references: load each task's qrels / labels through mteb for chance levels and
            per-item scores (False: only what the result files hold).
        chance_runs: random runs of a simulated chance level (:func:`~.chance.simulate_calibrated_chance`;
            default ``$MTEB_CONTRASTIVE_CHANCE_RUNS``, else :data:`~.chance.SIMULATION_RUNS`).
        show_progress: a ``report: rows`` bar over the rows (chance levels, intervals: where the minutes go)
            and a ``report: comparisons`` bar (:func:`mteb_contrastive.data.progress.bar`).

    Raises:
        ValueError: ``$MTEB_CONTRASTIVE_CHANCE_RUNS`` is not a whole number > 0.
        run_info: how the results were computed (``run_info.json`` of ``mteb-contrastive evaluate``:
            device, machine, libraries, wall time); default: ``<results_dir>/../run_info.json`` when present.
    """
    chance_runs = chance_runs or config.env_positive_int(config.CHANCE_RUNS_ENV, SIMULATION_RUNS)
    rows = read_results(results_dir, models=models)
    found = sorted({r.model for r in rows})
    models = [m for m in (models or found) if m in found]
    rows.sort(key=lambda r: (models.index(r.model),))  # stable: keeps family/task order within
    order = list(FAMILIES)
    rows.sort(key=lambda r: (order.index(r.family), r.task, r.split, _subset_key(r.subset)))
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
                it = str(exc)
            item_cache[id(r)] = "no per-item data" if it is None else it
        return item_cache[id(r)]

    out_rows = []
    row_bar = bar(len(rows), "report: rows (chance levels, intervals)", unit="row", disable=not show_progress)
    for r in rows:
        row_bar.update(1)
        ch, ranges = row_chance(r, reference, chance_runs)
        chance_value, chance_text = main_chance(r.main_score_name, ch, ranges)
        res = resampling(r)
        it = items(r)
        iv = interval_per_item(it, resampling=res) if not isinstance(it, str) else it
        interval = iv.as_dict() if isinstance(iv, Interval) else {"reason": iv, "unit": res.unit}
        if isinstance(iv, Interval) and iv.statistic != r.main_score_name:
            interval["reason"] = f"interval of {iv.statistic}, not of the main score"
        sim = ranges.get(r.main_score_name)
        cross = f"{r.main_score_name}_cross_document"
        out_rows.append(
            {
                "family": r.family,
                "task": r.task,
                "split": r.split,
                "subset": r.subset,
                "languages": r.languages,
                "model": r.model,
                "model_revision": r.model_revision,
                "dataset_revision": r.dataset_revision,
                "main_score_name": r.main_score_name,
                "main_score": r.main,
                "higher_is_better": higher_is_better(r.main_score_name),
                "chance": chance_value,
                "chance_text": chance_text,
                "chance_range": None if sim is None else [sim["low"], sim["high"]],
                "chance_method": _chance_method(r.main_score_name, r.scores, sim),
                "chance_levels": ch,
                "chance_simulated": ranges,
                "cross_document": r.scores.get(cross),
                "cross_document_chance": ch.get(f"random_{cross}"),
                "interval": interval,
                "resampling_unit": res.unit,
                "counts": r.counts(),
                "secondary": r.secondary(),
                "scores": r.scores,
                "evaluation_time_s": r.evaluation_time,
                "mteb_version": r.mteb_version,
                "result_file": str(r.path),
            }
        )
    row_bar.close()

    comparisons = []
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
        for ra, rb in todo:
            comparisons.append(compare_rows(ra, rb, items))
            cmp_bar.update(1)
        cmp_bar.close()

    questioned = questioned_lines(rows, prediction_dirs)
    figures = []
    if plots_dir is not None:
        figures = _make_plots(rows, out_rows, items, prediction_dirs, plots_dir, reference, models)
    model_info = []
    for m in models:
        r = next(x for x in rows if x.model == m)
        meta = r.model_meta
        model_info.append(
            {
                "model": m,
                "revision": r.model_revision,
                "n_parameters": meta.get("n_parameters"),
                "reference": meta.get("reference"),
                "loader": meta.get("loader"),
                "prediction_folder": str(prediction_dirs.get(m) or ""),
            }
        )
    datasets = sorted({(r.task, r.dataset_revision or "n/a") for r in rows})
    return {
        "generated_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "project_revision": project_revision(),
        "mteb_version": next((r.mteb_version for r in rows if r.mteb_version), None),
        "results_dir": str(results_dir),
        "models": model_info,
        "datasets": [{"task": t, "dataset_revision": v} for t, v in datasets],
        "skipped": [{"benchmark": b, "reason": why} for b, why in (skipped or [])],
        "rows": out_rows,
        "comparisons": comparisons,
        "questioned": questioned,
        "separability": separability(comparisons, models) if len(models) > 2 else [],
        "run_info": run_info,
        "task_times": [
            {"model": r.model, "task": r.task, "evaluation_time_s": r.evaluation_time}
            for r in {(x.model, x.task): x for x in rows}.values()
        ],
        "plots": [str(p) for p in figures],
        "content_independence": content_rows(rows),
        "languages": _languages_json(language_rows(rows)),
    }


def _languages_json(table: dict[str, Any]) -> dict[str, Any]:
    """The per-language table with JSON keys (``"model|language|kind"``, ``"language|kind"``)."""
    return {
        **table,
        "cells": {"|".join(k): v for k, v in table["cells"].items()},
        "flags": {"|".join(k): v for k, v in table["flags"].items()},
    }


def resampling(r: ScoreRow) -> Resampling:
    """The row's unit of resampling (:func:`mteb_contrastive.families.resampling_of`)."""
    return resampling_of(task_class(r.task), r.family, r.scores)


def row_chance(
    r: ScoreRow, reference: Callable[[ScoreRow], Any], runs: int = SIMULATION_RUNS
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """(chance levels, simulated ones with their ranges) of one row.

    Exact and stored values (:func:`~.chance.chance_levels`) win; a verification row's calibrated
    PAN scores without one get the simulated mean (:func:`~.chance.cached_calibrated_chance`,
    cached per dataset revision). The task is loaded only when the result lacks what is needed
    (retrieval qrels for pool expectations; validation labels of a result that predates
    ``n_validation_same_author``).
    """
    needs_ref = r.family in ("author", "quotes", "retrieval") and "pool_size" in r.scores
    ch = chance_levels(r.family, r.scores, reference(r) if needs_ref else None)
    ranges: dict[str, dict[str, float]] = {}
    if r.family == "verification" and any(calibrated_kind(k) for k in r.scores):
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


def _chance_method(name: str, scores: dict[str, Any], sim: dict[str, Any] | None) -> str:
    if sim is not None:
        return f"simulated ({sim['runs']} random runs through the protocol's calibration)"
    if f"random_{name}" in scores or f"chance_{name}" in scores:
        return "stored by the protocol"
    return "exact"


def compare_rows(ra: ScoreRow, rb: ScoreRow, items: Callable[[ScoreRow], Any]) -> dict[str, Any]:
    """One comparison entry of two models' rows of one (task, split, subset); like with like:
    the same dataset revision and the same items, else ``verdict`` "not comparable" and the reason."""
    res = resampling(ra)
    entry: dict[str, Any] = {
        "task": ra.task,
        "split": ra.split,
        "subset": ra.subset,
        "reference": ra.model,
        "candidate": rb.model,
        "main_score_name": rb.main_score_name,
        "reference_main": ra.main,
        "candidate_main": rb.main,
        "reference_dataset_revision": ra.dataset_revision,
        "candidate_dataset_revision": rb.dataset_revision,
        "unit": res.unit,
        "item": res.item,
        "statistic": None,
    }
    if ra.dataset_revision != rb.dataset_revision:
        return {
            **entry,
            "verdict": "not comparable",
            "reason": f"dataset revision {ra.dataset_revision} vs {rb.dataset_revision}",
        }
    a, b = items(ra), items(rb)
    for it in (a, b):
        if isinstance(it, str) and "dataset revision" in it:
            return {**entry, "verdict": "not comparable", "reason": it}
    if isinstance(a, str) or isinstance(b, str):
        return {**entry, "verdict": a if isinstance(a, str) else b}
    hib = higher_is_better(a.statistic_name)
    c = compare_per_item(a, b, hib, resampling=res)
    if isinstance(c, str):
        verdict = "not comparable" if c.startswith("not the same items") else c
        return {**entry, "verdict": verdict, **({"reason": c} if verdict == "not comparable" else {})}
    return {**entry, **c.as_dict(), "source": a.note, "higher_is_better": hib}


def separability(comparisons: list[dict[str, Any]], models: list[str]) -> list[dict[str, Any]]:
    """Per (task, split, subset): the models by main score and which pairs the intervals separate.

    Returns entries ``{"task", "split", "subset", "ranking": [models, best first], "separable":
    ["A > B", ...], "not_separable": ["A ~ B", ...], "not_compared": ["A, B: why", ...]}``.
    """
    out: dict[tuple, dict[str, Any]] = {}
    for c in comparisons:
        e = out.setdefault(
            (c["task"], c["split"], c["subset"]),
            {
                "task": c["task"],
                "split": c["split"],
                "subset": c["subset"],
                "main": {},
                "separable": [],
                "not_separable": [],
                "not_compared": [],
            },
        )
        e["main"][c["reference"]] = c["reference_main"]
        e["main"][c["candidate"]] = c["candidate_main"]
        a, b = c["reference"], c["candidate"]
        if c.get("statistic") is None:
            e["not_compared"].append(f"{a}, {b}: {c.get('reason') or c['verdict']}")
        elif c["verdict"] == "better":
            e["separable"].append(f"{b} > {a}")
        elif c["verdict"] == "worse":
            e["separable"].append(f"{a} > {b}")
        else:
            e["not_separable"].append(f"{a} ~ {b}")
    result = []
    for e in out.values():
        hib = next((c.get("higher_is_better", True) for c in comparisons if c["task"] == e["task"]), True)
        scored = [m for m in models if e["main"].get(m) is not None]
        e["ranking"] = sorted(scored, key=lambda m: -e["main"][m] if hib else e["main"][m])
        del e["main"]
        result.append(e)
    return result


def questioned_lines(rows: list[ScoreRow], prediction_dirs: dict[str, Path]) -> list[dict[str, Any]]:
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
                {
                    "task": r.task,
                    "model": r.model,
                    "id": q["id"],
                    "title": q.get("title") or "",
                    "label_note": q.get("label_note") or "",
                    "top": [(c["author"], c["probability"]) for c in q["ranking"][:3]],
                    "answer": q["answer"],
                }
            )
    return out


def _subset_key(subset: str) -> tuple:
    return subset_sort_key(subset)


def _make_plots(
    rows: list[ScoreRow],
    out_rows: list[dict[str, Any]],
    items: Callable[[ScoreRow], Any],
    prediction_dirs: dict[str, Path],
    plots_dir: Path,
    reference: Any,
    models: list[str],
) -> list[Path]:
    """Every figure, one colour per model (:func:`~.plots.model_colors`), each score with its chance
    level and 95% interval (by the family's unit)."""
    colors = plots.model_colors(models)
    info = {(o["task"], o["subset"], o["split"], o["model"]): o for o in out_rows}

    def row_info(r: ScoreRow) -> dict[str, Any]:
        return info[(r.task, r.subset, r.split, r.model)]

    made: list[tuple[Any, Path]] = []
    made.append((plots.main_scores([row_info(r) for r in rows], colors), plots_dir / "main_scores.png"))
    made.append(
        (
            plots.score_vs_k([(r, row_info(r)) for r in rows if r.family == "author"], colors),
            plots_dir / "author_score_vs_k.png",
        )
    )
    curves = []
    for r in rows:
        if r.family not in ("author", "quotes", "retrieval"):
            continue
        ks = sorted(int(m.group(1)) for k in r.scores if (m := re.fullmatch(r"recall_at_(\d+)", k)))
        if len(ks) < 2:
            continue
        curves.append((r, ks, _recall_intervals(r, ks, prediction_dirs, reference)))
    made.append((plots.recall_curves(curves, colors), plots_dir / "recall_at_k.png"))
    for task in sorted({r.task for r in rows if r.family == "verification"}):
        curves_v = []
        for r in (x for x in rows if x.task == task):
            it = items(r)
            if isinstance(it, str) or it.similarity is None:
                continue
            auc_iv = interval_per_item(
                PerItem("auc", it.ids, labels=it.labels, answers=it.similarity, groups=it.groups),
                resampling=resampling(r),
                statistic=_auc_statistic,
            )
            pred = read_predictions(prediction_dirs.get(r.model), r.task, r.subset, r.split, r.model_revision)
            platt = np.asarray(pred["platt"]) if isinstance(pred, dict) and "platt" in pred else None
            curves_v.append((r.model, np.asarray(it.labels), np.asarray(it.similarity), platt, auc_iv))
        made.append((plots.roc_and_reliability(curves_v, task, colors), plots_dir / f"{task}_roc_reliability.png"))
    for task in sorted({r.task for r in rows if r.family == "quotes"}):
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
        made.append(
            (
                plots.rank_histogram(ranks, f"{task}: rank of the gold quote", colors, pool_size=pool),
                plots_dir / f"{task}_gold_rank_histogram.png",
            )
        )
    return [plots.save(fig, path) for fig, path in made if fig is not None]


def _auc_statistic(data: dict[str, Any], idx: np.ndarray) -> float:
    """ROC AUC of the similarities (``data["answers"]``) on the items ``idx``; NaN on one class."""
    from sklearn.metrics import roc_auc_score

    y = data["labels"][idx]
    if idx.size == 0 or y.min() == y.max():
        return float("nan")
    return float(roc_auc_score(y, data["answers"][idx]))


def _recall_intervals(
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


# ----------------------------------------------------------------------------- rendering


def render_markdown(rep: dict[str, Any], plots_rel: Path | None = None) -> str:
    """The report as Markdown (tables per family, comparisons, separable pairs, figures, how it ran, identities)."""
    out = ["# Release evaluation report", ""]
    out.append(
        f"Generated {rep['generated_at']} by mteb-contrastive at `{rep['project_revision']}` "
        f"(mteb {rep['mteb_version']}); results in `{rep['results_dir']}`."
    )
    out.append("")
    out += ["## Models", "", "| model | revision | parameters | reference |", "|---|---|---|---|"]
    for m in rep["models"]:
        out.append(f"| {m['model']} | `{m['revision']}` | {fmt(m['n_parameters'])} | {m['reference'] or ''} |")
    out.append("")
    if rep["skipped"]:
        out += ["## Not run", ""] + [f"- {s['benchmark']}: {s['reason']}" for s in rep["skipped"]] + [""]
    for fam in FAMILIES:
        rows = [r for r in rep["rows"] if r["family"] == fam]
        if not rows:
            continue
        out += [f"## {FAMILIES[fam].title}", ""]
        for main in dict.fromkeys(r["main_score_name"] for r in rows):  # one table per main score
            out += _score_table([r for r in rows if r["main_score_name"] == main]) + [""]
    out += [
        "Chance: the score of a random scorer -- exact where a formula exists (random ranking of the pool, "
        "strict-> triplets 0.5, AUC 0.5), else simulated through the protocol's own steps (seeded random "
        "scores, the same validation threshold, Platt fit and abstention band) with the range of 95% of the "
        "random runs. 95% CI: the score's bootstrap interval, resampling the unit named beside it.",
        "",
    ]
    if rep.get("questioned"):
        out += [
            "## Questioned texts",
            "",
            "Attribution of each questioned text: the three most probable candidates with their calibrated "
            'probabilities, then the answer ("none of the candidates" under the open-set threshold).',
            "",
        ]
        for q in rep["questioned"]:
            what = "; ".join(x for x in (q["title"], q["label_note"]) if x)
            top = ", ".join(f"{a} {fmt(p, 2)}" for a, p in q["top"])
            answer = "none of the candidates" if q["answer"] == "<UNK>" else q["answer"]
            out.append(f"- {q['task']}, {q['model']}: {q['id']}{f' ({what})' if what else ''}: {top} -> {answer}")
        out.append("")
    if rep.get("content_independence"):
        out += [
            "## Content independence",
            "",
            "Score on all items and on the topic-controlled ones (same author on another topic vs another author "
            "on the same topic), beside the topic-only reference; topic reliance = margin over chance lost on the "
            "controlled items, topic share = the reference's margin over the model's (docs/content-independence.md).",
            "",
        ]
        out += render_content(rep["content_independence"]) + [""]
    if rep.get("languages", {}).get("cells"):
        table = rep["languages"]
        cells = {tuple(k.split("|")): v for k, v in table["cells"].items()}
        flags = {tuple(k.split("|")): v for k, v in table["flags"].items()}
        out += ["## Authorship per language (ELTeC)", ""]
        out += render_languages({**table, "cells": cells, "flags": flags}) + [""]
    comps = [c for c in rep["comparisons"] if c.get("verdict") != "not comparable"]
    apart = [c for c in rep["comparisons"] if c.get("verdict") == "not comparable"]
    if comps:
        out += [
            "## Comparison",
            "",
            "Difference = candidate - reference, 95% paired-bootstrap interval and paired randomisation test, "
            "resampling the unit of independence of each family (column `resampled`: queries for retrieval and "
            "QuoteR, anchor authors for author triplets, IR queries for IR triplets, authors for verification "
            "pairs -- a pair counts once per draw of each of its authors). Resamples on which the statistic is "
            "undefined (one class only) are redrawn, never counted as a tie.",
            "",
        ]
        out += [
            "| task | subset | reference | candidate | statistic | reference value | candidate value | "
            "difference | 95% CI | p | resampled | items (units) | verdict |",
            "|---" * 13 + "|",
        ]
        for c in comps:
            if c.get("statistic") is None:
                out.append(
                    f"| {c['task']} | {c['subset']} | {c['reference']} | {c['candidate']} | {c['main_score_name']} "
                    f"| {fmt(c['reference_main'])} | {fmt(c['candidate_main'])} | {fmt(_diff(c))} "
                    f"| n/a | n/a | {c['unit']} | n/a | {c['verdict']} |"
                )
            else:
                out.append(
                    f"| {c['task']} | {c['subset']} | {c['reference']} | {c['candidate']} | {c['statistic']} "
                    f"| {fmt(c['reference_value'])} | {fmt(c['candidate_value'])} | {fmt(c['diff'])} | "
                    f"[{fmt(c['ci_low'])}, {fmt(c['ci_high'])}] "
                    f"| {fmt(c['p_value'], 3)} | {c['unit']} | {_items(c)} | {c['verdict']} |"
                )
        out.append("")
    if rep.get("separability"):
        out += [
            "## Which models are separable",
            "",
            "Every pair of models compared as above: `A > B` when the interval of the difference excludes 0, "
            "`A ~ B` when it does not.",
            "",
            "| task | subset | models by main score | separable | not separable | not compared |",
            "|---|---|---|---|---|---|",
        ]
        for e in rep["separability"]:
            out.append(
                f"| {e['task']} | {e['subset']} | {' > '.join(e['ranking'])} | {'; '.join(e['separable']) or '--'} "
                f"| {'; '.join(e['not_separable']) or '--'} | {'; '.join(e['not_compared']) or '--'} |"
            )
        out.append("")
    if apart:
        out += [
            "## Not comparable",
            "",
            "A comparison pairs only results of the same dataset revision and the same items.",
            "",
            "| task | subset | reference | candidate | reference dataset revision | candidate dataset revision | why |",
            "|---|---|---|---|---|---|---|",
        ]
        for c in apart:
            out.append(
                f"| {c['task']} | {c['subset']} | {c['reference']} | {c['candidate']} "
                f"| `{c['reference_dataset_revision']}` | `{c['candidate_dataset_revision']}` | {c.get('reason', '')} |"
            )
        out.append("")
    if rep["plots"]:
        out += ["## Figures", ""]
        for p in rep["plots"]:
            rel = Path(p).name if plots_rel is None else (plots_rel / Path(p).name).as_posix()
            out += [f"![{Path(p).stem}]({rel})", ""]
    out += _how_it_ran(rep)
    out += ["## Dataset revisions", "", "| task | dataset revision |", "|---|---|"]
    out += [f"| {d['task']} | `{d['dataset_revision']}` |" for d in rep["datasets"]]
    out.append("")
    return "\n".join(out)


def _how_it_ran(rep: dict[str, Any]) -> list[str]:
    """Device, machine, libraries of each run and the wall time mteb stores per task."""
    out = ["## How the results were computed", ""]
    all_runs = (rep.get("run_info") or {}).get("runs", [])
    used = task_runs(rep.get("run_info"))
    wanted = {(t["model"], t["task"]) for t in rep.get("task_times", [])}
    numbers = {i: n + 1 for n, i in enumerate(sorted({i for k, i in used.items() if k in wanted}))}
    if not numbers:
        out += [
            "No run record (`run_info.json`, written by `mteb-contrastive evaluate`): device and machine unknown.",
            "",
        ]
    envs = {json.dumps([all_runs[i].get("machine"), all_runs[i].get("libraries")], sort_keys=True) for i in numbers}
    for i, n in numbers.items():
        run = all_runs[i]
        dev = run.get("device", {})
        gpu = f" ({dev['gpu']})" if dev.get("gpu") else ""
        line = (
            f"- run {n}: {run.get('model')}, started {run.get('started')}, device `{dev.get('used')}`{gpu} "
            + (f"(`--device {dev['requested']}`), " if dev.get("requested") else "(`--device` unset: mteb's default), ")
            + f"`mteb run` wall time {fmt(run.get('wall_s'), 1)} s"
        )
        out.append(line + ("" if len(envs) == 1 else f"; {_machine_text(run)}"))
    if numbers:
        out.append("")
    if len(envs) == 1:
        out += [f"Every run: {_machine_text(all_runs[next(iter(numbers))])}.", ""]
    out += [
        "| model | task | device | run | wall time (s, mteb's evaluation_time) |",
        "|---|---|---|---|---|",
    ]
    for t in rep.get("task_times", []):
        i = used.get((t["model"], t["task"]))
        dev = "not recorded" if i is None else f"`{all_runs[i].get('device', {}).get('used')}`"
        run_no = "n/a" if i is None else str(numbers[i])
        out.append(f"| {t['model']} | {t['task']} | {dev} | {run_no} | {fmt(t['evaluation_time_s'], 1)} |")
    out.append("")
    return out


def _machine_text(run: dict[str, Any]) -> str:
    mach = run.get("machine", {})
    libs = ", ".join(f"{k} {v}" for k, v in run.get("libraries", {}).items())
    return (
        f"{mach.get('platform')}, {mach.get('processor')}, {mach.get('cpus')} CPUs, Python {mach.get('python')}; {libs}"
    )


#: secondary columns of a score table (bases; each followed by its cross-document value when there is one)
MAX_SECONDARY = 8


def _score_table(rows: list[dict[str, Any]]) -> list[str]:
    """One table per main score: value, 95% CI (with the unit resampled), chance, the cross-document
    value of the main score and its chance when the protocol stores one (author retrieval: the
    query's own document excluded), secondary scores (each beside its cross-document value), counts."""
    main = rows[0]["main_score_name"]
    sec: list[str] = []
    for r in rows:
        sec += [k for k in r["secondary"] if k not in sec and k != f"{main}_cross_document"]
    cross = any(r["cross_document"] is not None for r in rows)
    if any(f"{k}_cross_document" in r["scores"] for r in rows for k in sec):
        # the paper's @10 metrics first, each beside its cross-document value
        bases = [k for k in sec if k.endswith("_at_10")] + [k for k in sec if not k.endswith("_at_10")]
        sec = []
        for k in bases[: MAX_SECONDARY // 2]:
            sec.append(k)
            if any(f"{k}_cross_document" in r["scores"] for r in rows):
                sec.append(f"{k}_cross_document")
    else:
        sec = sec[:MAX_SECONDARY]
    head = ["task", "subset", "model", "main score", "value", "95% CI (resampled)", "chance"]
    if cross:
        head += [f"{main}_cross_document", "chance (cross-document)"]
    head += sec + ["counts"]
    out = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for r in rows:
        arrow = "" if r["higher_is_better"] else " (lower is better)"
        cells = [
            r["task"],
            r["subset"],
            r["model"],
            f"{r['main_score_name']}{arrow}",
            fmt(r["main_score"]),
            _ci_cell(r["interval"]),
            r["chance_text"],
        ]
        if cross:
            cells += [fmt(r["cross_document"]), fmt(r["cross_document_chance"])]
        cells += [fmt(r["scores"].get(k)) for k in sec]
        cells.append(", ".join(f"{k} {fmt(v)}" for k, v in r["counts"].items()))
        out.append("| " + " | ".join(cells) + " |")
    return out


def _ci_cell(iv: dict[str, Any]) -> str:
    if iv.get("ci_low") is None or iv.get("reason"):
        why = iv.get("reason") or "no interval"
        return f"n/a ({why})" if iv["unit"] in why else f"n/a ({why}; by {iv['unit']})"
    return f"[{fmt(iv['ci_low'])}, {fmt(iv['ci_high'])}] ({iv['n_units']} {plural(iv['unit'], iv['n_units'])})"


def plural(unit: str, n: int) -> str:
    """``query`` -> ``queries``, ``author`` -> ``authors`` (n != 1)."""
    if n == 1:
        return unit
    return unit[:-1] + "ies" if unit.endswith("y") else unit + "s"


def _items(c: dict[str, Any]) -> str:
    """``N`` items, or ``N (G)`` when units other than the items were resampled."""
    return f"{c['n_items']}" if c.get("n_groups") is None else f"{c['n_items']} ({c['n_groups']})"


def _diff(c: dict[str, Any]) -> float | None:
    a, b = c.get("reference_main"), c.get("candidate_main")
    return None if a is None or b is None else b - a


def render_csv(rep: dict[str, Any]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(
        [
            "family",
            "task",
            "split",
            "subset",
            "model",
            "model_revision",
            "dataset_revision",
            "score",
            "value",
            "is_main",
            "chance",
            "chance_low",
            "chance_high",
            "ci_low",
            "ci_high",
            "resampled",
        ]
    )
    for r in rep["rows"]:
        for k, v in sorted(r["scores"].items()):
            if isinstance(v, str):
                continue
            w.writerow(
                [
                    r["family"],
                    r["task"],
                    r["split"],
                    r["subset"],
                    r["model"],
                    r["model_revision"],
                    r["dataset_revision"],
                    k,
                    repr(float(v)) if isinstance(v, float) else v,
                    int(k == r["main_score_name"]),
                    r["chance_levels"].get(f"random_{k}", r["chance_levels"].get(f"chance_{k}", "")),
                    *_sim_range(r["chance_simulated"].get(k)),
                    *(_ci(r["interval"]) if k == r["main_score_name"] else ("", "", "")),
                ]
            )
    return buf.getvalue()


def _sim_range(sim: dict[str, Any] | None) -> tuple[Any, Any]:
    return ("", "") if sim is None else (repr(sim["low"]), repr(sim["high"]))


def _ci(iv: dict[str, Any]) -> tuple[Any, Any, Any]:
    if iv.get("ci_low") is None or iv.get("reason"):
        return "", "", iv.get("unit", "")
    return repr(iv["ci_low"]), repr(iv["ci_high"]), iv["unit"]


def write_report(results_dir: str | Path, out_dir: str | Path, **kwargs: Any) -> Path:
    """Write ``report.md``, ``report.json``, ``report.csv`` and ``plots/`` into ``out_dir``;
    return the ``report.md`` path.

    Keyword arguments go to :func:`build_report` (``plots_dir`` is ``out_dir/plots``).
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rep = build_report(results_dir, plots_dir=out_dir / "plots", **kwargs)
    write_text_atomic(out_dir / "report.json", json.dumps(rep, indent=2, ensure_ascii=False, default=str) + "\n")
    write_text_atomic(out_dir / "report.csv", render_csv(rep))
    md = out_dir / "report.md"
    write_text_atomic(md, render_markdown(rep, plots_rel=Path("plots")))
    return md
