"""The per-family tables of the command line: the author table (``mteb-contrastive report
--author-table``) and the PAN table (``mteb-contrastive pan-report``), read through
:func:`mteb_contrastive.report.reader.read_results`, the reader every table of the project uses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mteb_contrastive.layout import model_name_of_folder
from mteb_contrastive.report.build import build
from mteb_contrastive.report.content import content_rows, render_content, render_languages
from mteb_contrastive.report.reader import read_results


def _fmt(v: Any, digits: int = 4) -> str:
    return "" if v is None else (f"{v:.{digits}f}" if isinstance(v, float) else str(v))


def author_table(results_dir: str | Path, timings: dict[str, float] | None = None) -> str:
    """Author tasks: one row per (model, dataset, k).

    Columns: pool size and the exact nDCG@10 of a random ranking of it (``random_ndcg_at_10``);
    triplets; nDCG@10 and its cross-document value (``ndcg_at_10_cross_document``: the query's own
    document excluded); hit rate@10 (mteb ``hit_rate_at_10``: share of queries with a relevant
    candidate in the top 10); recall@10 (mteb ``recall_at_10``: share of the relevant candidates in
    the top 10, the authors' ``RetrievalRecall``); triplet accuracy on all rows (``accuracy``) and
    on rows whose positive is from another document (``accuracy_cross_document``).

    Wall time = the sum of the subset's evaluation phases that mteb stores in the result
    (encoding, search, scoring; data loading excluded), unless ``timings`` maps "<model> <task>"
    to seconds measured otherwise.
    """
    timings = timings or {}
    rows: dict[tuple[str, str, str], dict[str, Any]] = {}
    for r in read_results(results_dir):
        name = r.task
        if r.split != "test":
            continue
        # built author tasks (<Name>AuthorRetrieval, ...) and HALvest's own (HALvestRetrieval, ...);
        # other retrieval tasks (QuoteR, ...) are not author tasks
        for suffix, kind in (  # noqa: B007  (kind is read after the loop)
            ("AuthorRetrieval", "ret"),
            ("AuthorTripletClassification", "trip"),
            ("Retrieval", "ret"),
            ("TripletClassification", "trip"),
        ):
            if name.endswith(suffix) and (suffix.startswith("Author") or name.startswith("HALvest")):
                base = name[: -len(suffix)]
                break
        else:
            continue
        model = model_name_of_folder(r.model_dir)
        wall = next((v for k, v in timings.items() if k.endswith(" " + name) and k.split(" ")[0] == model), None)
        s = r.scores
        phases = [p for p in r.evaluation_phases if p.get("subset") == r.subset]
        if wall is None and phases:
            wall_s = round(sum(p["end"] - p["start"] for p in phases), 1)
        else:
            wall_s = wall if wall is not None else round(r.evaluation_time or 0, 1)
        row = rows.setdefault((model, base, r.subset), {"lang": ",".join(r.languages)})
        if kind == "ret":
            row.update(
                pool=s.get("pool_size"),
                chance=s.get("random_ndcg_at_10"),
                triplets=s.get("n_triplets", row.get("triplets")),
                ndcg=s.get("ndcg_at_10"),
                ndcg_x=s.get("ndcg_at_10_cross_document"),
                hit=s.get("hit_rate_at_10"),
                recall=s.get("recall_at_10"),
                t_ret=wall_s,
            )
        else:
            row.update(
                acc=s.get("accuracy"),
                acc_x=s.get("accuracy_cross_document"),
                triplets=s.get("n_triplets"),
                t_trip=wall_s,
            )
    lines = [
        "| model | dataset | k | language | pool size | random nDCG@10 | triplets | nDCG@10 | nDCG@10 cross-document | "
        "hit rate@10 | recall@10 (share of relevant) | triplet accuracy (all rows) | triplet accuracy cross-document | "
        "wall time (s) retrieval / triplets |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (model, base, subset), v in sorted(rows.items()):
        k = subset.replace("base-", "")
        lines.append(
            f"| {model} | {base} | {k} | {v['lang']} | {_fmt(v.get('pool'))} | {_fmt(v.get('chance'), 5)} "
            f"| {_fmt(v.get('triplets'))} | {_fmt(v.get('ndcg'))} | {_fmt(v.get('ndcg_x')) or 'n/a'} | "
            f"{_fmt(v.get('hit'))} | {_fmt(v.get('recall'))} | {_fmt(v.get('acc')) or 'n/a'} "
            f"| {_fmt(v.get('acc_x')) or 'n/a'} | {_fmt(v.get('t_ret'), 1)} / {_fmt(v.get('t_trip'), 1) or 'n/a'} |"
        )
    return "\n".join(lines)


def pan_table(results_dir) -> str:
    """Markdown table of every verification result under an mteb ``--output-folder``.

    One row per (model, task, answers kind): hard / Platt / Platt+abstain, then Kirby's calibration
    of the same scores where the result has it (``pan_kirby_*``: F1 threshold, Platt, Platt+abstain;
    :class:`~mteb_contrastive.metrics.calibration.KirbyCalibrator`), with AUC, c@1, F1, F0.5u, Brier,
    overall (3 decimals), the number of non-answers and the test pair count.
    """
    lines = [
        "| model | task | answers | AUC | c@1 | F1 | F0.5u | Brier | overall | non-answers | test pairs |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    found = [
        (r.model_dir, r.task, r.scores) for r in read_results(results_dir) if "pan_platt_abstain_overall" in r.scores
    ]
    for model, task, s in sorted(found, key=lambda x: (x[1], x[0])):
        variants = [
            ("hard", "hard (threshold)"),
            ("platt", "Platt"),
            ("platt_abstain", f"Platt+abstain (delta {s['abstain_delta']:.2f})"),
        ]
        if "pan_kirby_platt_abstain_overall" in s:
            variants += [
                ("kirby_hard", "Kirby hard (F1 threshold)"),
                ("kirby_platt", "Kirby Platt"),
                ("kirby_platt_abstain", f"Kirby Platt+abstain (delta {s['kirby_abstain_delta']:.3f})"),
            ]
        for variant, label in variants:
            vals = " | ".join(
                "undefined" if s.get(f"pan_{variant}_{k}") is None else f"{s[f'pan_{variant}_{k}']:.3f}"
                for k in ("auc", "c_at_1", "f1", "f_05_u", "brier", "overall")
            )
            lines.append(
                f"| {model} | {task} | {label} | {vals} | {s[f'pan_{variant}_n_unanswered']} | {s['n_pairs']} |"
            )
    return "\n".join(lines)


def content_table(results_dir: str | Path) -> str:
    """The content-independence table of an mteb ``--output-folder``
    (:func:`mteb_contrastive.report.content.content_rows`; ``mteb-contrastive report --content-table``)."""
    return "\n".join(render_content(content_rows(read_results(results_dir)))) or "no result with topic-controlled items"


def languages_table(
    results_dir: str | Path, prediction_dirs: dict[str, Path] | None = None, reference_model: str | None = None
) -> str:
    """The per-language ELTeC table of an mteb ``--output-folder``
    (:func:`mteb_contrastive.report.content.language_rows`; ``mteb-contrastive report --languages-table``),
    flags included: the table of the release report (:func:`mteb_contrastive.report.build.build`, no
    figures), whose paired comparisons decide a flag (a character-level baseline better than every
    model by the interval). A comparison needs the models' per-item predictions (``prediction_dirs``,
    ``report --predictions``, or those the results folder's run record names); without any, nothing
    can be flagged, and the table says so."""
    rep = build(results_dir, prediction_dirs=prediction_dirs or {}, reference_model=reference_model, plots_dir=None)
    lang = rep.languages
    table = {
        **lang,
        "cells": {tuple(k.split("|")): v for k, v in lang["cells"].items()},
        "flags": {tuple(k.split("|")): v for k, v in lang["flags"].items()},
    }
    lines = render_languages(table)
    tasks = {c["task"] for c in table["cells"].values()}
    if lines and not any(c.result is not None for c in rep.comparisons if c.task in tasks):
        lines.append(
            "No flag can be raised without per-item predictions: pass --predictions MODEL=DIR for each model "
            "(its mteb --prediction-folder)."
        )
    return "\n".join(lines) or "no ELTeC result"
