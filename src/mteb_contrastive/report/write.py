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
import json
import logging
import math
import subprocess
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from mteb_contrastive.data.atomic import write_text_atomic
from mteb_contrastive.families import FAMILIES, higher_is_better
from mteb_contrastive.layout import model_root
from mteb_contrastive.report import plots
from mteb_contrastive.report.chance import chance_levels, main_chance
from mteb_contrastive.report.compare import Comparison, compare_per_item
from mteb_contrastive.report.content import content_rows, language_rows, render_content, render_languages
from mteb_contrastive.report.reader import (
    ScoreRow,
    per_item_scores,
    read_predictions,
    read_results,
    subset_sort_key,
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
) -> dict[str, Any]:
    """Everything the report shows, as one JSON-able dict (see :func:`write_report`).

    Args:
        results_dir: mteb output folder.
        models: models to include, in this order (default: every model found, sorted).
        prediction_dirs: model name -> its prediction folder (per-item scores, plots).
        reference_model: the model every other is compared with (default: the first of ``models``).
        skipped: (benchmark, reason) lines to repeat in the report.
        plots_dir: where PNGs go (None: no plots).
        load_references: load each task's qrels / labels through mteb for chance levels and
            per-item scores (False: only what the result files hold).
    """
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
    ref_cache: dict[tuple[str, str, str], Any] = {}

    def reference(r: ScoreRow) -> Any:
        key = (r.task, r.subset, r.split)
        if key not in ref_cache:
            ref_cache[key] = task_reference(*key) if load_references else None
        return ref_cache[key]

    out_rows = []
    for r in rows:
        ch = chance_levels(
            r.family,
            r.scores,
            reference(r) if r.family in ("author", "quotes", "retrieval") and "pool_size" in r.scores else None,
        )
        chance_value, chance_text = main_chance(r.main_score_name, ch)
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
                "chance_levels": ch,
                "counts": r.counts(),
                "secondary": r.secondary(),
                "scores": r.scores,
                "evaluation_time_s": r.evaluation_time,
                "mteb_version": r.mteb_version,
                "result_file": str(r.path),
            }
        )

    comparisons = []
    if len(models) > 1:
        ref_model = reference_model if reference_model in models else models[0]
        by_key: dict[tuple, dict[str, ScoreRow]] = {}
        for r in rows:
            by_key.setdefault((r.task, r.split, r.subset), {})[r.model] = r
        for (task, split, subset), per_model in by_key.items():
            if ref_model not in per_model:
                continue
            ref_row = per_model[ref_model]
            need_ref = ref_row.family != "other"

            def items(r: ScoreRow, m: str) -> Any:
                # the task is loaded (reference) only when the prediction file lacks what the comparison needs
                return per_item_scores(r, prediction_dirs.get(m), (lambda: reference(r)) if need_ref else None)  # noqa: B023  (called in this iteration)

            ref_items = items(ref_row, ref_model)
            for m in models:
                if m == ref_model or m not in per_model:
                    continue
                row = per_model[m]
                cand_items = items(row, m)
                hib = higher_is_better(ref_items.statistic_name if ref_items else row.main_score_name)
                res = compare_per_item(ref_items, cand_items, higher_is_better=hib)
                entry = {
                    "task": task,
                    "split": split,
                    "subset": subset,
                    "reference": ref_model,
                    "candidate": m,
                    "main_score_name": row.main_score_name,
                    "reference_main": ref_row.main,
                    "candidate_main": row.main,
                }
                if isinstance(res, Comparison):
                    entry.update(res.as_dict(), source=ref_items.note)
                else:
                    entry.update(verdict=res, statistic=None)
                comparisons.append(entry)

    figures = []
    if plots_dir is not None:
        figures = _make_plots(rows, prediction_dirs, plots_dir, reference)
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


def _subset_key(subset: str) -> tuple:
    return subset_sort_key(subset)


def _make_plots(rows: list[ScoreRow], prediction_dirs: dict[str, Path], plots_dir: Path, reference: Any) -> list[Path]:
    import numpy as np

    made: list[Path | None] = []
    made.append(plots.score_vs_k([r for r in rows if r.family == "author"], plots_dir / "author_score_vs_k.png"))
    made.append(
        plots.recall_curves(
            [r for r in rows if r.family in ("author", "quotes", "retrieval")], plots_dir / "recall_at_k.png"
        )
    )
    for task in sorted({r.task for r in rows if r.family == "verification"}):
        curves = []
        for r in (x for x in rows if x.task == task):
            pred = read_predictions(prediction_dirs.get(r.model), r.task, r.subset, r.split, r.model_revision)
            if not isinstance(pred, dict) or "similarity" not in pred:
                continue
            ref = reference(r) if pred.get("labels") is None else None  # labels stored by the protocol: no task load
            labels = pred.get("labels") or ([ref.get(str(i)) for i in pred["id"]] if isinstance(ref, dict) else None)
            if labels is None or any(v is None for v in labels):
                continue
            curves.append(
                (
                    r.model,
                    np.asarray(labels),
                    np.asarray(pred["similarity"]),
                    np.asarray(pred["platt"]) if "platt" in pred else None,
                )
            )
        made.append(plots.roc_and_reliability(curves, plots_dir / f"{task}_roc_reliability.png", task))
    for task in sorted({r.task for r in rows if r.family == "quotes"}):
        ranks: dict[str, list[float | None]] = {}
        for r in (x for x in rows if x.task == task):
            pred = read_predictions(prediction_dirs.get(r.model), r.task, r.subset, r.split, r.model_revision)
            ref = reference(r)
            if not isinstance(pred, dict) or not isinstance(ref, dict) or "qrels" not in ref:
                continue
            ranks[r.model] = [
                plots.tie_aware_rank(pred.get(q, {}), next(iter(rel))) for q, rel in ref["qrels"].items() if rel
            ]
        made.append(
            plots.rank_histogram(
                ranks, plots_dir / f"{task}_gold_rank_histogram.png", f"{task}: rank of the gold quote"
            )
        )
    return [p for p in made if p is not None]


# ----------------------------------------------------------------------------- rendering


def render_markdown(rep: dict[str, Any], plots_rel: Path | None = None) -> str:
    """The report as Markdown (tables per family, comparisons, figures, identities)."""
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
        for main in dict.fromkeys(
            r["main_score_name"] for r in rows
        ):  # one table per main score (retrieval / triplets / ...)
            out += _score_table([r for r in rows if r["main_score_name"] == main]) + [""]
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
    if rep["comparisons"]:
        out += [
            "## Comparison",
            "",
            "Difference = candidate - reference, 95% paired-bootstrap interval over the items, "
            "paired randomisation test. "
            'Where items come in groups (triplets of one IR query or one anchor author: "N in G groups") '
            "whole groups are resampled and swapped (cluster bootstrap).",
            "",
        ]
        out += [
            "| task | subset | reference | candidate | statistic | reference value | candidate value | "
            "difference | 95% CI | p | items | verdict |",
            "|---" * 12 + "|",
        ]
        for c in rep["comparisons"]:
            if c.get("statistic") is None:
                out.append(
                    f"| {c['task']} | {c['subset']} | {c['reference']} | {c['candidate']} | {c['main_score_name']} "
                    f"| {fmt(c['reference_main'])} | {fmt(c['candidate_main'])} | {fmt(_diff(c))} "
                    f"| n/a | n/a | n/a | {c['verdict']} |"
                )
            else:
                out.append(
                    f"| {c['task']} | {c['subset']} | {c['reference']} | {c['candidate']} | {c['statistic']} "
                    f"| {fmt(c['reference_value'])} | {fmt(c['candidate_value'])} | {fmt(c['diff'])} | "
                    f"[{fmt(c['ci_low'])}, {fmt(c['ci_high'])}] "
                    f"| {fmt(c['p_value'], 3)} | {_items(c)} | {c['verdict']} |"
                )
        out.append("")
    if rep["plots"]:
        out += ["## Figures", ""]
        for p in rep["plots"]:
            rel = Path(p).name if plots_rel is None else (plots_rel / Path(p).name).as_posix()
            out += [f"![{Path(p).stem}]({rel})", ""]
    out += ["## Dataset revisions", "", "| task | dataset revision |", "|---|---|"]
    out += [f"| {d['task']} | `{d['dataset_revision']}` |" for d in rep["datasets"]]
    out.append("")
    return "\n".join(out)


def _score_table(rows: list[dict[str, Any]]) -> list[str]:
    sec: list[str] = []
    for r in rows:
        sec += [k for k in r["secondary"] if k not in sec]
    sec = sec[:8]
    out = [
        "| task | subset | model | main score | value | chance | "
        + " | ".join(sec)
        + (" | " if sec else "")
        + "counts |",
        "|---" * (7 + len(sec)) + "|",
    ]
    for r in rows:
        arrow = "" if r["higher_is_better"] else " (lower is better)"
        cells = [
            r["task"],
            r["subset"],
            r["model"],
            f"{r['main_score_name']}{arrow}",
            fmt(r["main_score"]),
            r["chance_text"],
        ]
        cells += [fmt(r["secondary"].get(k)) for k in sec]
        cells.append(", ".join(f"{k} {fmt(v)}" for k, v in r["counts"].items()))
        out.append("| " + " | ".join(cells) + " |")
    return out


def _items(c: dict[str, Any]) -> str:
    """``N`` items, or ``N in G groups`` for a cluster bootstrap."""
    return f"{c['n_items']}" if c.get("n_groups") is None else f"{c['n_items']} in {c['n_groups']} groups"


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
                ]
            )
    return buf.getvalue()


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
