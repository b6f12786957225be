"""The report's reranking section: each two-stage model against its own first stage.

A two-stage model (``rerank/<first>+<reranker>@<k>``, :mod:`mteb_contrastive.search.rerank`) names its first
stage, reranker, reranker model and k in its ``model_meta.json`` (``loader_kwargs``; :func:`two_stage_of`).
For every (task, split, subset) a two-stage model was evaluated on, :func:`reranking_rows` pairs it with
the result of its first stage alone -- never with another model -- and compares them item by item with the
report's own comparison (the caller's ``compare``: same dataset revision, same items, the family's resampling
unit, percentile interval, randomisation test, verdict; :mod:`mteb_contrastive.report.compare`). The
orientation is fixed: **reference = the first stage, candidate = the reranked model**, so every difference is
*reranked minus first stage* (:data:`ORIENTATION`), whatever the models' names or ``--reference``.

Each entry also carries the cost of each stage as the result file records it
(:data:`~mteb_contrastive.search.rerank.STAGE_SCORES`: texts the first stage indexed and searched, how many of
them it encoded rather than read from the embedding cache, pairs rescored, texts the reranker encoded, and the
seconds of each stage). mteb's ``evaluation_time`` is not a cost of the model: it depends on what the shared
embedding cache already held.

:func:`render_reranking` gives the Markdown (a table first stage x reranker x k) and :func:`score_vs_k_figure`
the figure of the main score against k, one line per (first stage, reranker), the first stage alone as a
dashed line, each point with its 95% interval.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mteb_contrastive.config import model_label
from mteb_contrastive.report import plots
from mteb_contrastive.report.reader import ScoreRow
from mteb_contrastive.report.rows import ComparisonRow, ReportRow, RerankingRow

#: how every difference of the section is oriented
ORIENTATION = "reranked minus first stage"


@dataclass(frozen=True)
class TwoStage:
    """What a two-stage model's ``model_meta.json`` says it is."""

    first_stage: str
    reranker: str
    reranker_model: str | None
    k: int


def two_stage_of(model_meta: dict[str, Any]) -> TwoStage | None:
    """The :class:`TwoStage` of a result's ``model_meta.json`` (its ``loader_kwargs``), None for any other model."""
    kw = (model_meta or {}).get("loader_kwargs") or {}
    if not {"first_stage", "reranker", "k"} <= set(kw):
        return None
    try:
        k = int(kw["k"])
    except (TypeError, ValueError):
        return None
    return TwoStage(str(kw["first_stage"]), str(kw["reranker"]), kw.get("reranker_model"), k)


def stage_cost(r: ScoreRow) -> dict[str, Any]:
    """The recorded cost of each stage of a two-stage row (keys absent when the result has none).

    ``first_stage_texts`` / ``first_stage_encoded`` (texts computed, not read from the embedding cache; None for
    a first stage that encodes nothing, BM25) / ``first_stage_seconds``; ``rerank_pairs`` /
    ``rerank_texts_encoded`` / ``rerank_seconds``; ``rerank_max_length`` (tokens the reranker reads).
    """
    s = r.scores
    keys = (
        "first_stage_texts",
        "first_stage_seconds",
        "rerank_pairs",
        "rerank_texts_encoded",
        "rerank_seconds",
        "rerank_max_length",
    )
    out: dict[str, Any] = {k: s[k] for k in keys if isinstance(s.get(k), (int, float))}
    if isinstance(s.get("encoding_texts_encoded"), (int, float)):
        out["first_stage_encoded"] = s["encoding_texts_encoded"]
    return out


def reranking_rows(
    rows: list[ScoreRow],
    compare: Callable[[ScoreRow, ScoreRow], ComparisonRow],
    info: Callable[[ScoreRow], ReportRow] | None = None,
) -> list[RerankingRow]:
    """One :class:`~.rows.RerankingRow` per two-stage row: its first stage's row of the same (task, split,
    subset), the comparison ``compare(first_stage_row, reranked_row)`` (so its differences are
    :data:`ORIENTATION`) and the cost of each stage.

    Args:
        rows: every row of the report.
        compare: the report's paired comparison of (reference row, candidate row)
            (:func:`~.statistics.compare_rows`).
        info: the report's row of a result (its chance level and interval), when wanted.

    Returns the rows sorted by (task, split, subset, first stage, reranker, reranker model, k); a first
    stage that was not evaluated there gives ``comparison`` None and the ``reason``.
    """
    by_key = {(r.task, r.split, r.subset, r.model): r for r in rows}
    out = []
    for r in rows:
        ts = two_stage_of(r.model_meta)
        if ts is None:
            continue
        first = by_key.get((r.task, r.split, r.subset, ts.first_stage))
        mine = info(r) if info else None
        theirs = info(first) if info and first is not None else None
        entry = RerankingRow(
            task=r.task,
            split=r.split,
            subset=r.subset,
            model=r.model,
            first_stage=ts.first_stage,
            reranker=ts.reranker,
            reranker_model=ts.reranker_model,
            k=ts.k,
            main_score_name=r.main_score_name,
            main_score=r.main,
            first_stage_main=first.main if first is not None else None,
            chance=mine.chance if mine is not None else None,
            interval=mine.interval if mine is not None else None,
            first_stage_interval=theirs.interval if theirs is not None else None,
            orientation=ORIENTATION,
            cost=stage_cost(r),
        )
        if first is None:
            entry.reason = f"the first stage {ts.first_stage} was not evaluated on this subset"
        else:
            c = compare(first, r)
            assert (c.reference, c.candidate) == (ts.first_stage, r.model)  # the orientation above
            entry.comparison = c
        out.append(entry)
    out.sort(key=lambda e: (e.task, e.split, e.subset, e.first_stage, e.reranker, str(e.reranker_model), e.k))
    return out


def reranking_plots(entries: list[RerankingRow], plots_dir: Path) -> list[Path]:
    """:func:`score_vs_k_figure` of every task with two-stage rows, as ``<task>_rerank_score_vs_k.png``."""
    made = []
    for task in dict.fromkeys(e.task for e in entries):
        fig = score_vs_k_figure(entries, task)
        if fig is not None:
            made.append(plots.save(fig, plots_dir / f"{task}_rerank_score_vs_k.png"))
    return made


def _f(v: Any, digits: int = 4) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def _signed(v: Any) -> str:
    return "n/a" if v is None else f"{v:+.4f}"


def _count(v: Any) -> str:
    return "n/a" if v is None else f"{int(v):,}"


def reranker_label(e: RerankingRow) -> str:
    """``li (all-MiniLM-L6-v2 (bundled))``: the reranker kind and its model's short name."""
    if not e.reranker_model:
        return e.reranker
    label = model_label(str(e.reranker_model))
    short = label if label.endswith("(bundled)") else Path(str(e.reranker_model).rstrip("/")).name
    return f"{e.reranker} ({short})"


def first_stage_cost_text(cost: dict[str, Any]) -> str:
    """``1,903 texts (1,903 encoded), 12.3 s``; the encoded count only for a first stage that encodes."""
    if "first_stage_texts" not in cost:
        return "not recorded"
    enc = f" ({_count(cost['first_stage_encoded'])} encoded)" if "first_stage_encoded" in cost else ""
    return f"{_count(cost['first_stage_texts'])} texts{enc}, {_f(cost.get('first_stage_seconds'), 1)} s"


def rerank_cost_text(cost: dict[str, Any]) -> str:
    """``9,510 pairs, 1,210 texts encoded, 45.6 s`` (a cross-encoder encodes pairs, not texts)."""
    if "rerank_pairs" not in cost:
        return "not recorded"
    texts = cost.get("rerank_texts_encoded")
    enc = f", {_count(texts)} texts encoded" if texts else ""
    return f"{_count(cost['rerank_pairs'])} pairs{enc}, {_f(cost.get('rerank_seconds'), 1)} s"


def render_reranking(entries: list[RerankingRow], figures: list[str] | None = None) -> list[str]:
    """The section's Markdown lines (empty without two-stage models); ``figures``: relative paths of its figures."""
    if not entries:
        return []
    out = [
        "## Reranking",
        "",
        "Each two-stage model `rerank/<first stage>+<reranker>@<k>` against its own first stage alone, on the same "
        "items: difference = **reranked minus first stage** (positive: the reranker helped), 95% interval and "
        "paired randomisation test resampling the family's unit (as in the comparisons above), p Holm-adjusted "
        "in one family with every other comparison of this report, verdict `better` (the reranked model is "
        "better than its first stage: the interval excludes 0 and the Holm-adjusted p < 0.05), `worse` or "
        "`within noise`. Cost per stage as the result "
        "records it: texts the first stage indexed and searched (of which encoded, not read from the embedding "
        "cache) and its seconds; (query, candidate) pairs the reranker rescored, texts it encoded and its seconds "
        "(mteb's evaluation time is not shown: it depends on what the shared embedding cache already held).",
        "",
        "| task | subset | first stage | reranker | k | score | first stage alone | chance | "
        "difference (reranked − first stage) | 95% CI | p | p (Holm) | verdict | first-stage cost | rerank cost |",
        "|---" * 15 + "|",
    ]
    for e in entries:
        c = e.comparison
        if c is not None and c.result is not None:
            r = c.result
            diff, ci = _signed(r.diff), f"[{_signed(r.ci_low)}, {_signed(r.ci_high)}]"
            pv, ph, verdict = _f(r.p_value, 3), _f(r.p_holm, 3), c.verdict
        else:
            d = None if e.first_stage_main is None or e.main_score is None else e.main_score - e.first_stage_main
            diff, ci, pv, ph = _signed(d), "n/a", "n/a", "n/a"
            verdict = e.reason or (c.reason or c.verdict if c is not None else "n/a")
        out.append(
            f"| {e.task} | {e.subset} | {e.first_stage} | {reranker_label(e)} | {e.k} "
            f"| {_f(e.main_score)} | {_f(e.first_stage_main)} | {_f(e.chance)} | {diff} | {ci} | {pv} | {ph} "
            f"| {verdict} | {first_stage_cost_text(e.cost)} | {rerank_cost_text(e.cost)} |"
        )
    out.append("")
    for rel in figures or []:
        out += [f"![main score against k per reranker]({rel})", ""]
    return out


def score_vs_k_figure(entries: list[RerankingRow], task: str, colors: dict[str, str] | None = None) -> Any:
    """Main score of ``task`` against k, one panel per (split, subset): a line per (first stage, reranker) with
    95% error bars, the first stage alone as a dashed line of the same colour, chance grey. None without
    entries for the task."""
    rows = [e for e in entries if e.task == task and e.main_score is not None]
    if not rows:
        return None
    import numpy as np

    plt = plots.pyplot()
    panels = sorted({(e.split, e.subset) for e in rows})
    lines = sorted({(e.first_stage, reranker_label(e)) for e in rows})
    colors = colors or plots.model_colors([f"{a} + {b}" for a, b in lines])
    fig, axes = plt.subplots(1, len(panels), figsize=(5.0 * len(panels), 3.6), squeeze=False)
    for ax, (split, subset) in zip(axes[0], panels):
        here = [e for e in rows if (e.split, e.subset) == (split, subset)]
        ks = sorted({e.k for e in here})
        for first, rlabel in lines:
            pts = sorted((e for e in here if (e.first_stage, reranker_label(e)) == (first, rlabel)), key=lambda e: e.k)
            if not pts:
                continue
            color = colors.get(f"{first} + {rlabel}")
            errs = [plots._yerr(e.main_score, e.interval) for e in pts]
            yerr = None
            if any(x is not None for x in errs):
                yerr = np.array([[x[0] if x else 0.0 for x in errs], [x[1] if x else 0.0 for x in errs]])
            ax.errorbar(
                [e.k for e in pts],
                [e.main_score for e in pts],
                yerr=yerr,
                marker="o",
                capsize=3,
                color=color,
                label=f"{first} + {rlabel}",
            )
            alone = next((e.first_stage_main for e in pts if e.first_stage_main is not None), None)
            if alone is not None:
                ax.axhline(alone, ls="--", lw=1, color=color, label=f"{first} alone")
        chance = next((e.chance for e in here if e.chance is not None), None)
        if chance is not None:
            ax.axhline(chance, ls=":", color=plots.CHANCE_COLOR, label="chance")
        ax.set_xscale("log")
        ax.minorticks_off()  # only the ks evaluated are labelled
        ax.set_xticks(ks, [str(k) for k in ks])
        ax.set_title(f"{task} {subset}" if len(panels) > 1 or subset != "default" else task, fontsize=9)
        ax.set_xlabel("k (first-stage candidates reranked)")
        ax.set_ylabel(f"{here[0].main_score_name} (bars: 95% CI)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    return fig
