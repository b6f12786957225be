"""The report's text: ``report.md`` (:func:`render_markdown`) and ``report.csv`` (:func:`render_csv`)
from a :class:`~.rows.Report` (or its ``report.json`` dict).

``report.csv`` is long format: one line per (model, task, split, subset, score name) with the
value and the chance level of that score when known.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path
from typing import Any

from mteb_contrastive.families import FAMILIES
from mteb_contrastive.report.content import render_content, render_languages
from mteb_contrastive.report.environment import task_runs
from mteb_contrastive.report.reranking import render_reranking
from mteb_contrastive.report.rows import ComparisonRow, Report, ReportRow, RowInterval


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


def _typed(rep: Report | dict[str, Any]) -> Report:
    return rep if isinstance(rep, Report) else Report.from_json(rep)


def render_markdown(rep: Report | dict[str, Any], plots_rel: Path | None = None) -> str:
    """The report as Markdown (tables per family, comparisons, separable pairs, figures, how it ran, identities)."""
    rep = _typed(rep)
    out = ["# Release evaluation report", ""]
    out.append(
        f"Generated {rep.generated_at} by mteb-contrastive at `{rep.project_revision}` "
        f"(mteb {rep.mteb_version}); results in `{rep.results_dir}`."
    )
    out.append("")
    out += ["## Models", "", "| model | revision | parameters | reference |", "|---|---|---|---|"]
    for m in rep.models:
        out.append(f"| {m.model} | `{m.revision}` | {fmt(m.n_parameters)} | {m.reference or ''} |")
    out.append("")
    if rep.failed:
        out += ["## Models that failed", ""] + [f"- {f['model']}: {f['reason']}" for f in rep.failed] + [""]
    for fam in FAMILIES:
        rows = [r for r in rep.rows if r.family == fam]
        if not rows:
            continue
        out += [f"## {FAMILIES[fam].title}", ""]
        out += family_section(fam, rows)
    out += [
        "Chance: the score of a random scorer -- exact where a formula exists (random ranking of the pool, "
        "strict-> triplets 0.5, AUC 0.5), else simulated through the protocol's own steps (seeded random "
        "scores, the same validation threshold, Platt fit and abstention band) with the range of 95% of the "
        "random runs. 95% CI: the score's bootstrap interval, resampling the unit named in the column "
        "`resampled`. Scores are fractions in [0, 1] unless their column names a unit; every score of every "
        "row is in `report.csv` and `report.json`.",
        "",
    ]
    if rep.questioned:
        out += [
            "## Questioned texts",
            "",
            "Attribution of each questioned text: the three most probable candidates with their calibrated "
            'probabilities, then the answer ("none of the candidates" under the open-set threshold).',
            "",
        ]
        for q in rep.questioned:
            what = "; ".join(x for x in (q.title, q.label_note) if x)
            top = ", ".join(f"{a} {fmt(p, 2)}" for a, p in q.top)
            answer = "none of the candidates" if q.answer == "<UNK>" else q.answer
            out.append(f"- {q.task}, {q.model}: {q.id}{f' ({what})' if what else ''}: {top} -> {answer}")
        out.append("")
    if rep.content_independence:
        out += [
            "## Content independence",
            "",
            "Score on all items and on the topic-controlled ones (same author on another topic vs another author "
            "on the same topic), beside the topic-only reference; topic reliance = margin over chance lost on the "
            "controlled items, topic share = the reference's margin over the model's (docs/content-independence.md).",
            "",
        ]
        out += render_content(rep.content_independence) + [""]
    if rep.languages.get("cells"):
        table = rep.languages
        cells = {tuple(k.split("|")): v for k, v in table["cells"].items()}
        flags = {tuple(k.split("|")): v for k, v in table["flags"].items()}
        out += ["## Authorship per language (ELTeC)", ""]
        out += render_languages({**table, "cells": cells, "flags": flags}) + [""]
    comps = [c for c in rep.comparisons if c.comparable] + list(rep.topic_comparisons)
    apart = [c for c in rep.comparisons if not c.comparable]
    if comps:
        out += [
            "## Comparison",
            "",
            "Difference = candidate - reference, 95% paired-bootstrap interval and paired randomisation test, "
            "resampling the unit of independence of each family (column `resampled`: queries for retrieval and "
            "QuoteR, anchor authors for author triplets, IR queries for IR triplets, authors for verification "
            "pairs -- a pair counts once per draw of each of its authors). Resamples on which the statistic is "
            "undefined (one class only) are redrawn, never counted as a tie. The test swaps the two models' answers "
            "by block (connected units): `blocks (min p)` gives their number and the smallest p they can reach "
            "(2 / 2^blocks). p (Holm): the p values of all the comparisons of this report adjusted together (Holm "
            "1979), controlling the family-wise error at 0.05. A verdict (`better` / `worse`) needs both: the "
            "interval excludes 0 and the Holm-adjusted p < 0.05; else `within noise`."
            + (
                " Rows of statistic `accuracy_topic_controlled` compare the same models on the topic-controlled "
                "triplets only (same author on another topic vs another author on the same topic)."
                if rep.topic_comparisons
                else ""
            ),
            "",
        ]
        out += [
            "| task | subset | reference | candidate | statistic | reference value | candidate value | "
            "difference | 95% CI | p | p (Holm) | blocks (min p) | resampled | items (units) | verdict |",
            "|---" * 15 + "|",
        ]
        for c in comps:
            if c.result is None:
                out.append(
                    f"| {c.task} | {c.subset} | {c.reference} | {c.candidate} | {c.main_score_name} "
                    f"| {fmt(c.reference_main)} | {fmt(c.candidate_main)} | {fmt(_diff(c))} "
                    f"| n/a | n/a | n/a | n/a | {c.unit} | n/a | {c.verdict} |"
                )
            else:
                x = c.result
                out.append(
                    f"| {c.task} | {c.subset} | {c.reference} | {c.candidate} | {x.statistic} "
                    f"| {fmt(x.reference_value)} | {fmt(x.candidate_value)} | {fmt(x.diff)} | "
                    f"[{fmt(x.ci_low)}, {fmt(x.ci_high)}] "
                    f"| {fmt(x.p_value, 3)} | {fmt(x.p_holm, 3)} | {_blocks(x)} | {c.unit} | {_items(c)} "
                    f"| {c.verdict} |"
                )
        out.append("")
    if rep.separability:
        out += [
            "## Which models are separable",
            "",
            "Every pair of models compared as above: `A > B` when the verdict says so (the interval of the "
            "difference excludes 0 and the Holm-adjusted p < 0.05), `A ~ B` when it does not.",
            "",
            "| task | subset | models by main score | separable | not separable | not compared |",
            "|---|---|---|---|---|---|",
        ]
        for e in rep.separability:
            out.append(
                f"| {e.task} | {e.subset} | {' > '.join(e.ranking)} | {'; '.join(e.separable) or '--'} "
                f"| {'; '.join(e.not_separable) or '--'} | {'; '.join(e.not_compared) or '--'} |"
            )
        out.append("")
    out += render_reranking(
        rep.reranking,
        [Path(p).name if plots_rel is None else (plots_rel / Path(p).name).as_posix() for p in rep.reranking_plots],
    )
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
                f"| {c.task} | {c.subset} | {c.reference} | {c.candidate} "
                f"| `{c.reference_dataset_revision}` | `{c.candidate_dataset_revision}` | {c.reason or ''} |"
            )
        out.append("")
    if rep.plots:
        out += ["## Figures", ""]
        for p in rep.plots:
            rel = Path(p).name if plots_rel is None else (plots_rel / Path(p).name).as_posix()
            out += [f"![{Path(p).stem}]({rel})", ""]
    if rep.skipped:
        out += not_run(rep.skipped)
    out += how_it_ran(rep)
    out += ["## Dataset revisions", "", "| task | dataset revision |", "|---|---|"]
    out += [f"| {d['task']} | `{d['dataset_revision']}` |" for d in rep.datasets]
    out.append("")
    return "\n".join(out)


#: a family's key figures in its headline table: (column header with its unit, score key or a rule);
#: ``{main}`` is the row's main score name, ``{bound}`` its name without ``_tie_expected``
KEY_FIGURES: dict[str, list[tuple[str, str]]] = {
    "author": [("cross-document (own document excluded)", "{main}_cross_document")],
    "verification": [("AUC of the similarities", "auc"), ("c@1 (Platt + abstention)", "pan_platt_abstain_c_at_1")],
    "attribution": [("accuracy", "accuracy"), ("open-set macro-F1", "open_set_macro_f1")],
    "quotes": [
        ("ties: pessimistic / optimistic", "{bound}_pessimistic|{bound}_optimistic"),
        ("recall@10", "recall_at_10"),
    ],
    "ir-triplets": [("error rate (%)", "error_rate")],
    "retrieval": [("recall@10", "recall_at_10"), ("MRR@10", "mrr_at_10")],
    "other": [],
}

#: share of a row's texts truncated to the model's maximum sequence length above which the report says so
TRUNCATION_NOTE_SHARE = 0.2

#: units of score names that are not fractions in [0, 1] (a score table's header names them)
UNITS = (
    (re.compile(r"(^|_)error_rate$"), "%"),
    (re.compile(r"(^|_)log_loss$"), "nats"),
    (re.compile(r"(^|_)(median|mean)_rank(_.*)?$"), "rank"),
    (re.compile(r"_n_unanswered$"), "pairs"),
    (re.compile(r"^abstain_delta$|^kirby_abstain_delta$"), "probability"),
)


def unit_of(score: str) -> str | None:
    """The unit of a score name when it is not a fraction in [0, 1] (``error_rate`` -> ``%``), else None."""
    return next((u for pat, u in UNITS if pat.search(score)), None)


def with_unit(score: str) -> str:
    """``error_rate`` -> ``error_rate (%)``; a fraction keeps its name."""
    u = unit_of(score)
    return score if u is None else f"{score} ({u})"


def withheld(r: ReportRow) -> str | None:
    """Why a row has no main score (a pair scorer on a clustering task, say), None when it has one."""
    if r.main_score is not None and not (isinstance(r.main_score, float) and math.isnan(r.main_score)):
        return None
    why = r.scores.get(f"{r.main_score_name}_withheld")
    if not isinstance(why, str):
        why = next((v for k, v in r.scores.items() if k.endswith("_withheld") and isinstance(v, str)), None)
    return why or "no main score in the result"


def _key_value(r: ReportRow, rule: str) -> str:
    bound = r.main_score_name.removesuffix("_tie_expected")
    keys = [k.format(main=r.main_score_name, bound=bound) for k in rule.split("|")]
    vals = [r.scores.get(k) if not k.endswith("_cross_document") else r.cross_document for k in keys]
    if all(v is None for v in vals):
        return "n/a"
    return " / ".join(fmt(v) for v in vals)


def _task_cell(r: ReportRow) -> str:
    return r.task if r.subset == "default" else f"{r.task} ({r.subset})"


def headline_table(fam: str, rows: list[ReportRow]) -> list[str]:
    """A family's headline: task, model, main score, 95% interval, chance, its key figures, units resampled
    (at most 8 columns; :data:`KEY_FIGURES`)."""
    keys = [(h, rule) for h, rule in KEY_FIGURES.get(fam, []) if any(_key_value(r, rule) != "n/a" for r in rows)]
    units = {unit_of(r.main_score_name) for r in rows}
    main_head = "main score" + (" (0-1)" if units == {None} else "")
    head = ["task", "model", main_head, "95% CI", "chance", *[h for h, _ in keys], "resampled"]
    out = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for r in rows:
        arrow = "" if r.higher_is_better else ", lower is better"
        unit = unit_of(r.main_score_name)
        main = f"{fmt(r.main_score)} {r.main_score_name}{f' ({unit}{arrow})' if unit or arrow else ''}"
        iv = r.interval
        if iv.shown:
            ci, units_cell = f"[{fmt(iv.ci_low)}, {fmt(iv.ci_high)}]", f"{iv.n_units} {plural(iv.unit, iv.n_units)}"
        else:
            ci, units_cell = f"n/a ({iv.reason or 'no interval'})", f"by {iv.unit}"
        cells = [_task_cell(r), r.model, main, ci, r.chance_text, *[_key_value(r, rule) for _, rule in keys]]
        out.append("| " + " | ".join([*cells, units_cell]) + " |")
    return out


def row_notes(rows: list[ReportRow]) -> list[str]:
    """The visible notes of a family's rows: a fitted calibration that inverted the model's ranking (a
    negative Platt slope), and texts truncated above :data:`TRUNCATION_NOTE_SHARE`."""
    out = []
    for r in rows:
        s = r.scores
        for coef, raw, fitted, who in (
            ("platt_coef", "auc", "pan_platt_auc", "the Platt fit"),
            ("kirby_platt_coef", "auc", "pan_kirby_platt_auc", "Kirby's logistic fit"),
        ):
            c = s.get(coef)
            if isinstance(c, (int, float)) and c < 0:
                aucs = ""
                if isinstance(s.get(raw), (int, float)) and isinstance(s.get(fitted), (int, float)):
                    aucs = f" (AUC {fmt(s[raw], 3)} of the similarities, {fmt(s[fitted], 3)} after the fit)"
                out.append(
                    f"(!) {_task_cell(r)}, {r.model}: {who} on validation has a negative slope ({coef} "
                    f"{fmt(c, 3)}): the calibrated answers reverse the model's order of the pairs{aucs}; a "
                    "calibrated score above chance here comes from the inversion, not from the similarities."
                )
        share = s.get("encoding_truncated_share")
        if isinstance(share, (int, float)) and share > TRUNCATION_NOTE_SHARE:
            out.append(
                f"(!) {_task_cell(r)}, {r.model}: {100 * share:.2f}% of the texts were truncated to the model's "
                "maximum sequence length: the score reads only their beginnings."
            )
    return out


def family_section(fam: str, rows: list[ReportRow]) -> list[str]:
    """A family's headline table, its notes, the rows without a main score (one line), then every other
    score in a collapsed details table per main score."""
    scored = [r for r in rows if withheld(r) is None]
    out: list[str] = []
    if scored:
        out += headline_table(fam, scored) + [""]
    notes = row_notes(scored)
    if notes:
        out += [*notes, ""]
    missing = [r for r in rows if withheld(r) is not None]
    if missing:
        out += [
            "Not scored: " + "; ".join(f"{_task_cell(r)}, {r.model} ({withheld(r)})" for r in missing) + ".",
            "",
        ]
    if scored:
        out += ["<details><summary>Every score of these rows</summary>", ""]
        for main in dict.fromkeys(r.main_score_name for r in scored):  # one table per main score
            out += details_table([r for r in scored if r.main_score_name == main]) + [""]
        out += ["</details>", ""]
    return out


def not_run(skipped: list[dict[str, str]]) -> list[str]:
    """The benchmarks not run, one line per reason."""
    by_reason: dict[str, list[str]] = {}
    for s in skipped:
        by_reason.setdefault(s["reason"], []).append(s["benchmark"])
    out = ["## Not run", ""]
    out += [f"- {', '.join(names)}: {why}" for why, names in by_reason.items()]
    return out + [""]


def how_it_ran(rep: Report) -> list[str]:
    """Device, machine, libraries of each run and the wall time mteb stores per task."""
    out = ["## How the results were computed", ""]
    all_runs = (rep.run_info or {}).get("runs", [])
    used = task_runs(rep.run_info)
    wanted = {(t["model"], t["task"]) for t in rep.task_times}
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
    for t in rep.task_times:
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


def details_table(rows: list[ReportRow]) -> list[str]:
    """The scores of rows of one main score beyond the headline: :func:`score_table` without the value,
    interval and chance columns, intervals stored by the protocol (``*_ci_low`` / ``*_ci_high``) left
    to the csv."""
    return score_table(rows, headline=False)


def score_table(rows: list[ReportRow], *, headline: bool = True) -> list[str]:
    """One table per main score: value, 95% CI (with the unit resampled), chance, the cross-document
    value of the main score and its chance when the protocol stores one (author retrieval: the
    query's own document excluded), secondary scores (each beside its cross-document value), counts."""
    main = rows[0].main_score_name
    sec: list[str] = []
    for r in rows:
        sec += [k for k in r.secondary if k not in sec and k != f"{main}_cross_document"]
    if not headline:
        sec = [k for k in sec if not k.endswith(("_ci_low", "_ci_high"))]
    cross = any(r.cross_document is not None for r in rows)
    if any(f"{k}_cross_document" in r.scores for r in rows for k in sec):
        # the paper's @10 metrics first, each beside its cross-document value
        bases = [k for k in sec if k.endswith("_at_10")] + [k for k in sec if not k.endswith("_at_10")]
        sec = []
        for k in bases[: MAX_SECONDARY // 2]:
            sec.append(k)
            if any(f"{k}_cross_document" in r.scores for r in rows):
                sec.append(f"{k}_cross_document")
    else:
        sec = sec[:MAX_SECONDARY]
    head = ["task", "subset", "model", "main score"]
    if headline:
        head += ["value", "95% CI (resampled)", "chance"]
    if cross:
        head += [f"{main}_cross_document", "chance (cross-document)"]
    head += [with_unit(k) for k in sec] + ["counts"]
    out = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for r in rows:
        arrow = "" if r.higher_is_better else " (lower is better)"
        cells = [r.task, r.subset, r.model, f"{r.main_score_name}{arrow}"]
        if headline:
            cells += [fmt(r.main_score), ci_cell(r.interval), r.chance_text]
        if cross:
            cells += [fmt(r.cross_document), fmt(r.cross_document_chance)]
        cells += [fmt(r.scores.get(k)) for k in sec]
        cells.append(", ".join(f"{k} {fmt(v)}" for k, v in r.counts.items()))
        out.append("| " + " | ".join(cells) + " |")
    return out


def ci_cell(iv: RowInterval) -> str:
    """``[low, high] (N units)``, or ``n/a (why; by unit)``."""
    if not iv.shown:
        why = iv.reason or "no interval"
        return f"n/a ({why})" if iv.unit in why else f"n/a ({why}; by {iv.unit})"
    return f"[{fmt(iv.ci_low)}, {fmt(iv.ci_high)}] ({iv.n_units} {plural(iv.unit, iv.n_units)})"


def plural(unit: str, n: int) -> str:
    """``query`` -> ``queries``, ``author`` -> ``authors`` (n != 1)."""
    if n == 1:
        return unit
    return unit[:-1] + "ies" if unit.endswith("y") else unit + "s"


def _items(c: ComparisonRow) -> str:
    """``N`` items, or ``N (G)`` when units other than the items were resampled."""
    x = c.result
    return f"{x.n_items}" if x.n_groups is None else f"{x.n_items} ({x.n_groups})"


def _blocks(x: Any) -> str:
    """``b (min p)``: the randomisation test's swap blocks and the smallest p they can reach."""
    if x.min_p is None:
        return f"{x.n_blocks} (no test)" if x.n_blocks else "n/a"
    return f"{x.n_blocks} ({fmt(x.min_p, 3) if x.min_p >= 0.001 else '< 0.001'})"


def _diff(c: ComparisonRow) -> float | None:
    a, b = c.reference_main, c.candidate_main
    return None if a is None or b is None else b - a


CSV_HEADER = [
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


def render_csv(rep: Report | dict[str, Any]) -> str:
    """``report.csv``: one line per (model, task, split, subset, score) with its chance level and, for
    the main score, its interval."""
    rep = _typed(rep)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_HEADER)
    for r in rep.rows:
        for k, v in sorted(r.scores.items()):
            if isinstance(v, str):
                continue
            w.writerow(
                [
                    r.family,
                    r.task,
                    r.split,
                    r.subset,
                    r.model,
                    r.model_revision,
                    r.dataset_revision,
                    k,
                    repr(float(v)) if isinstance(v, float) else v,
                    int(k == r.main_score_name),
                    r.chance_levels.get(f"random_{k}", r.chance_levels.get(f"chance_{k}", "")),
                    *_sim_range(r.chance_simulated.get(k)),
                    *(_ci(r.interval) if k == r.main_score_name else ("", "", "")),
                ]
            )
    return buf.getvalue()


def _sim_range(sim: dict[str, Any] | None) -> tuple[Any, Any]:
    return ("", "") if sim is None else (repr(sim["low"]), repr(sim["high"]))


def _ci(iv: RowInterval) -> tuple[Any, Any, Any]:
    if not iv.shown:
        return "", "", iv.unit
    return repr(iv.ci_low), repr(iv.ci_high), iv.unit
