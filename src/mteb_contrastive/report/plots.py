"""Figures of the release report (matplotlib, Agg backend, PNG files written atomically by :func:`save`).

Every figure follows three rules: a model keeps one colour in every figure, and no two models
share one (:func:`model_colors`, in the report's model order); every plotted score has its chance
level beside it (grey, dashed or "x"; a simulated one with the range of 95% of its random runs)
and its 95% bootstrap interval (error bars, resampling the family's unit; a figure without per-item data says so in its
title); score axes start at 0, and an axis that does not (a log-scale k) says so in its label.

* :func:`main_scores` -- every task's main score per model, interval and chance level;
* :func:`score_vs_k` -- author tasks: main score against k (sentences per span, subset ``base-<k>``);
* :func:`recall_curves` -- retrieval and quotes: Recall@k against k (the ``recall_at_<k>`` keys),
  chance = the exact expectation of a random ranking, ``min(k, N) / N`` (or the stored value);
* :func:`roc_and_reliability` -- verification: ROC curve of the test similarities (AUC with its
  interval; chance = the diagonal, AUC 0.5) and the reliability diagram of the Platt probabilities
  (``sklearn.metrics.roc_curve``, ``sklearn.calibration.calibration_curve``, 10 uniform bins);
* :func:`rank_histogram` -- quotes: rank of the gold quote in the returned list, ties at their
  mean rank (``1 + #higher + #tied/2``), beside the counts a random ranking of the pool gives
  (the gold's rank uniform on 1..N); a gold outside the returned list is counted as "> list".
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import struct
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from mteb_contrastive.data.atomic import atomic_file
from mteb_contrastive.report.reader import span_k

CHANCE_COLOR = "0.45"


def pyplot():
    """``matplotlib.pyplot`` with the Agg backend (files only, no display), imported on first use."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def model_colors(models: list[str]) -> dict[str, str]:
    """One colour per model, never shared, in the report's model order: matplotlib's ``tab10`` for up to
    10 models, then ``tab20``, ``tab20b`` and ``tab20c`` (the colours tab10 lacks first), then evenly
    spaced hues of the ``hsv`` map at three lightness levels for any number beyond (each new colour
    kept only when its hex differs from every one before)."""
    from matplotlib import colors as mcolors

    plt = pyplot()
    palette = [mcolors.to_hex(c) for c in plt.get_cmap("tab10").colors]
    for name in ("tab20", "tab20b", "tab20c"):
        palette += [mcolors.to_hex(c) for c in plt.get_cmap(name).colors]
    palette = list(dict.fromkeys(palette))
    k = 0
    while len(palette) < len(models):
        n = max(12, len(models))
        hue = plt.get_cmap("hsv")((k % n) / n)
        shade = (0.55, 0.8, 1.0)[(k // n) % 3]
        c = mcolors.to_hex(tuple(shade * x for x in hue[:3]))
        if c not in palette:
            palette.append(c)
        k += 1
        if k > 100 * n:  # hex has 16.7M colours: never reached before len(models) distinct ones
            raise ValueError(f"no {len(models)} distinct colours")
    unique = list(dict.fromkeys(models))
    return {m: palette[i] for i, m in enumerate(unique)}


def save(fig: Any, path: Path) -> Path:
    """Write ``fig`` as a PNG at ``path`` through a temporary file and ``os.replace``
    (:func:`mteb_contrastive.data.atomic.atomic_file`: the umask's mode; a temporary a killed earlier
    write left in the folder is removed); close it."""
    try:
        with atomic_file(path) as tmp:
            fig.savefig(tmp, dpi=110, bbox_inches="tight", format="png")
    finally:
        pyplot().close(fig)
    return path


#: most figures :func:`make_and_save` queues for two processes (4 bytes each: within a pipe's 64 KiB buffer)
MOST_FORKED_FIGURES = 4096


def make_and_save(makers: list[tuple[Callable[[], Any], Path]], jobs: int = 1) -> list[Path]:
    """Each ``(make, path)``: the figure ``make()`` returns, saved at ``path`` (:func:`save`; None: no figure,
    nothing written). Returns the paths written, in the order of ``makers``.

    ``jobs`` >= 2, on Linux (``os.fork``; elsewhere a forked process may not use the system's frameworks)
    and with 2 to :data:`MOST_FORKED_FIGURES` figures: one forked process draws beside this one (drawing is
    most of a figure's time, on one core), each taking the next figure from one queue (a pipe of figure
    numbers) until none is left, so the slower figures spread out.
    The files are the ones this process would write: each figure is made from the same rows (the fork's
    copy), its intervals seeded per call. A figure the other process did not report written (its exception,
    or its death) is made here afterwards, where its exception surfaces as without ``jobs``.
    """
    if jobs < 2 or not 2 <= len(makers) <= MOST_FORKED_FIGURES or not sys.platform.startswith("linux"):
        return [p for p in (_make_one(make, path) for make, path in makers) if p is not None]
    queue_r, queue_w = os.pipe()
    os.write(queue_w, b"".join(struct.pack("<I", i) for i in range(len(makers))))  # within the pipe's buffer
    os.close(queue_w)
    done_r, done_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the other process: its figures, then which it wrote (and which made none), then exit
        os.close(done_r)
        status = 0
        report: dict[int, bool] = {}
        try:
            for i in _take(queue_r):
                make, path = makers[i]
                report[i] = _make_one(make, path) is not None
        except BaseException:
            status = 1
        finally:
            with contextlib.suppress(BaseException):
                with os.fdopen(done_w, "w") as f:
                    json.dump(report, f)
            os._exit(status)
    os.close(done_w)
    written: dict[int, bool] = {}
    try:
        for i in _take(queue_r):
            make, path = makers[i]
            written[i] = _make_one(make, path) is not None
    finally:
        os.close(queue_r)
        with os.fdopen(done_r) as f:
            text = f.read()
        os.waitpid(pid, 0)
    try:
        theirs = {int(k): bool(v) for k, v in json.loads(text).items()}
    except ValueError:
        theirs = {}
    written.update(theirs)
    for i, (make, path) in enumerate(makers):
        if i not in written:  # taken by the other process and not reported: made here
            written[i] = _make_one(make, path) is not None
    return [path for i, (_, path) in enumerate(makers) if written[i]]


def _take(queue_r: int) -> Iterator[int]:
    """The figure numbers of the queue, as this process takes them (4-byte reads: whole under ``PIPE_BUF``)."""
    while True:
        b = os.read(queue_r, 4)
        if len(b) < 4:
            return
        yield struct.unpack("<I", b)[0]


def _make_one(make: Callable[[], Any], path: Path) -> Path | None:
    fig = make()
    return None if fig is None else save(fig, path)


def _yerr(value: float, iv: Any) -> tuple[float, float] | None:
    """(down, up) error-bar lengths of an interval (:class:`~.rows.RowInterval` or :class:`~.compare.Interval`);
    None without one (a reason instead, or an interval of another statistic)."""
    if iv is None or isinstance(iv, str):
        return None
    if hasattr(iv, "shown"):  # a row's interval
        if not iv.shown:
            return None
        iv = iv.interval
    lo, hi = iv.ci_low, iv.ci_high
    if lo is None:
        return None
    return max(0.0, value - lo), max(0.0, hi - value)


def main_scores(rows: list[Any], colors: dict[str, str]) -> Any:
    """Every (task, subset) main score per model with its 95% interval, beside its chance level.

    One panel per main-score name; rows of a panel are the (task, subset) pairs. The chance level is
    a grey "x" (a simulated one with a grey bar over the range of 95% of its random runs). The
    score axis starts at 0. ``rows``: the report's rows (:class:`~.rows.ReportRow`).
    """
    rows = [r for r in rows if r.main_score is not None]
    if not rows:
        return None
    plt = pyplot()
    names = list(dict.fromkeys(r.main_score_name for r in rows))
    heights = [len({(r.task, r.subset) for r in rows if r.main_score_name == n}) for n in names]
    fig, axes = plt.subplots(
        len(names),
        1,
        figsize=(7.5, 0.55 * sum(heights) + 1.2 * len(names)),
        squeeze=False,
        height_ratios=heights,
        layout="constrained",
    )
    models = list(colors)
    for ax, name in zip(axes[:, 0], names):
        sub = [r for r in rows if r.main_score_name == name]
        labels = list(dict.fromkeys((r.task, r.subset) for r in sub))
        width = 0.6 / max(1, len(models))
        chance_done = set()
        for r in sub:
            y = labels.index((r.task, r.subset))
            j = models.index(r.model) if r.model in models else 0
            off = y + (j - (len(models) - 1) / 2) * width
            err = _yerr(r.main_score, r.interval)
            ax.errorbar(
                [r.main_score],
                [off],
                xerr=None if err is None else [[err[0]], [err[1]]],
                fmt="o",
                color=colors.get(r.model),
                capsize=3,
                label=r.model,
            )
            if y not in chance_done and r.chance is not None:
                chance_done.add(y)
                if r.chance_range:
                    lo, hi = r.chance_range
                    ax.plot([lo, hi], [y, y], color=CHANCE_COLOR, lw=5, alpha=0.35, solid_capstyle="butt")
                ax.plot([r.chance], [y], "x", color=CHANCE_COLOR, ms=9, mew=2, label="chance")
        ax.set_yticks(range(len(labels)))
        ax.set_yticklabels([f"{t} {s}" if s != "default" else t for t, s in labels], fontsize=7)
        ax.set_ylim(len(labels) - 0.5, -0.5)
        ax.set_xlim(left=0)
        hib = not re.search(r"(error_rate|brier|rank|n_unanswered)$", name)
        ax.set_xlabel(f"{name}{'' if hib else ' (lower is better)'} (axis from 0; bars: 95% CI)", fontsize=8)
        ax.grid(alpha=0.3, axis="x")
    handles: dict[str, Any] = {}
    for ax in axes[:, 0]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncols=min(3, len(handles)), fontsize=7)
    return fig


def score_vs_k(rows: list[tuple[Any, Any]], colors: dict[str, str]) -> Any:
    """Main score vs k for rows with ``base-<k>`` subsets; one line per (model, task), 95% error bars,
    the chance level per k as a grey dashed line. None when no task has two k.

    ``rows``: (:class:`~.reader.ScoreRow`, its :class:`~.rows.ReportRow`) pairs.
    """
    lines: dict[tuple[str, str], list[tuple[int, float, Any]]] = {}
    chance: dict[str, dict[int, float]] = {}
    names: dict[str, str] = {}
    for r, info in rows:
        k = span_k(r.subset)
        if k is None or r.main is None:
            continue
        lines.setdefault((r.task, r.model), []).append((k, r.main, info.interval))
        if info.chance is not None:
            chance.setdefault(r.task, {})[k] = info.chance
        names[r.task] = r.main_score_name
    if not any(len(v) > 1 for v in lines.values()):
        return None
    plt = pyplot()
    tasks = sorted({t for t, _ in lines})
    fig, axes = plt.subplots(1, len(tasks), figsize=(4.5 * len(tasks), 3.4), squeeze=False)
    for ax, task in zip(axes[0], tasks):
        for (t, model), pts in sorted(lines.items()):
            if t != task:
                continue
            pts.sort(key=lambda p: p[0])
            errs = [_yerr(v, iv) for _, v, iv in pts]
            yerr = None
            if any(e is not None for e in errs):
                yerr = np.array([[e[0] if e else 0.0 for e in errs], [e[1] if e else 0.0 for e in errs]])
            ax.errorbar(
                [p[0] for p in pts],
                [p[1] for p in pts],
                yerr=yerr,
                marker="o",
                capsize=3,
                color=colors.get(model),
                label=model,
            )
        if task in chance:
            ks = sorted(chance[task])
            ax.plot(ks, [chance[task][k] for k in ks], ls="--", color=CHANCE_COLOR, label="chance")
        ax.set_xticks(sorted({p[0] for (t, _), pts in lines.items() if t == task for p in pts}))
        ax.set_title(task, fontsize=9)
        ax.set_xlabel("k (sentences per span)")
        ax.set_ylabel(f"{names[task]} (bars: 95% CI)")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    return fig


def random_recall_at_k(k: int, pool_size: int) -> float:
    """E[Recall@k] of a uniformly random ranking of a pool of N candidates: ``min(k, N) / N``
    (each relevant candidate is in the top k with probability k / N, whatever their number)."""
    return min(k, pool_size) / pool_size if pool_size > 0 else 0.0


def recall_curves(curves: list[tuple[Any, list[int], dict[int, Any]]], colors: dict[str, str]) -> Any:
    """Recall@k vs k (log x) per (task, subset): one line per model with 95% error bars (queries
    resampled), the random-ranking expectation as a grey dashed line.

    ``curves``: (:class:`~.reader.ScoreRow`, the k values, {k: Interval or reason}). The chance
    curve is the stored ``random_recall_at_<k>`` where the protocol stores it, else
    :func:`random_recall_at_k` of the row's ``pool_size``.
    """
    if not curves:
        return None
    plt = pyplot()
    panel = {id(r): (f"{r.task} {r.subset}" if r.subset != "default" else r.task) for r, _, _ in curves}
    tasks = sorted(set(panel.values()))
    cols = min(3, len(tasks))
    nrows = (len(tasks) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(4.5 * cols, 3.3 * nrows), squeeze=False)
    for ax, task in zip(axes.flat, tasks):
        chance_drawn = False
        no_ci = False
        for r, ks, ivs in curves:
            if panel[id(r)] != task:
                continue
            vals = [float(r.scores[f"recall_at_{k}"]) for k in ks]
            errs = [_yerr(v, ivs.get(k)) for k, v in zip(ks, vals)]
            no_ci |= all(e is None for e in errs)
            yerr = None
            if any(e is not None for e in errs):
                yerr = np.array([[e[0] if e else 0.0 for e in errs], [e[1] if e else 0.0 for e in errs]])
            ax.errorbar(ks, vals, yerr=yerr, marker="o", capsize=3, color=colors.get(r.model), label=r.model)
            n = r.scores.get("pool_size")
            if not chance_drawn and (n or all(f"random_recall_at_{k}" in r.scores for k in ks)):
                ch = [float(r.scores.get(f"random_recall_at_{k}", random_recall_at_k(k, int(n or 0)))) for k in ks]
                ax.plot(ks, ch, ls="--", color=CHANCE_COLOR, label="chance (random ranking)")
                chance_drawn = True
        ax.set_xscale("log")
        ax.set_title(task + ("\n(no 95% CI: no per-query rankings)" if no_ci else ""), fontsize=9)
        ax.set_xlabel("k (log scale, from 1)")
        ax.set_ylabel("Recall@k (bars: 95% CI)")
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(tasks) :]:
        ax.axis("off")
    return fig


def roc_and_reliability(
    curves: list[tuple[str, np.ndarray, np.ndarray, np.ndarray | None, Any]], title: str, colors: dict[str, str]
) -> Any:
    """ROC (similarity) and reliability (Platt probability) panels.

    Args:
        curves: (model, labels 0/1, similarity scores, Platt probabilities or None, AUC interval
            (:class:`~.compare.Interval`) or the reason there is none) per model.
    """
    from sklearn.calibration import calibration_curve
    from sklearn.metrics import roc_auc_score, roc_curve

    curves = [c for c in curves if len(set(np.asarray(c[1]).tolist())) == 2]
    if not curves:
        return None
    plt = pyplot()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4.4), layout="constrained")
    unit = "item"
    for model, y, s, p, iv in curves:
        fpr, tpr, _ = roc_curve(y, s)
        ci = " [CI n/a]" if isinstance(iv, str) or iv is None else f" [{iv.ci_low:.3f}, {iv.ci_high:.3f}]"
        a1.plot(fpr, tpr, color=colors.get(model), label=f"{model}: AUC {roc_auc_score(y, s):.3f}{ci}")
        unit = getattr(iv, "unit", unit)
        if p is not None:
            frac, mean_p = calibration_curve(y, p, n_bins=10, strategy="uniform")
            a2.plot(mean_p, frac, marker="o", color=colors.get(model), label=model)
    a1.plot([0, 1], [0, 1], ls="--", color=CHANCE_COLOR, lw=1, label="chance (AUC 0.5)")
    a1.set_xlabel("false positive rate")
    a1.set_ylabel("true positive rate")
    a1.set_xlim(0, 1)
    a1.set_ylim(0, 1.01)
    a1.set_title(f"ROC -- {title}\n(AUC with its 95% CI, {unit}s resampled)", fontsize=9)
    a2.plot([0, 1], [0, 1], ls="--", color=CHANCE_COLOR, lw=1, label="perfect calibration")
    a2.set_xlabel("mean Platt probability (bin)")
    a2.set_ylabel("share of same-author pairs")
    a2.set_xlim(0, 1)
    a2.set_ylim(0, 1.01)
    a2.set_title(f"Reliability -- {title}", fontsize=9)
    a1.legend(fontsize=6, loc="lower right")
    a2.legend(fontsize=6, loc="upper left")
    for ax in (a1, a2):
        ax.grid(alpha=0.3)
    return fig


def tie_aware_rank(doc_scores: dict[str, float], gold: str) -> float | None:
    """Rank of ``gold`` among the returned documents, ties at their mean rank; None when not returned."""
    if gold not in doc_scores:
        return None
    g = doc_scores[gold]
    higher = sum(1 for s in doc_scores.values() if s > g)
    tied = sum(1 for s in doc_scores.values() if s == g) - 1
    return 1 + higher + tied / 2


def random_rank_counts(edges: np.ndarray, n_queries: int, pool_size: int) -> np.ndarray:
    """Expected number of queries per rank bin ``[edges[i], edges[i+1])`` (the last bin closed, as
    ``numpy.histogram``) when the gold's rank is uniform on 1..N (a random ranking), then the rest
    ("> list")."""
    ranks = np.arange(1, pool_size + 1)
    inside, _ = np.histogram(ranks, bins=edges)
    counts = n_queries * inside / pool_size
    return np.append(counts, n_queries - counts.sum())


def rank_histogram(
    ranks: dict[str, list[float | None]], title: str, colors: dict[str, str], *, pool_size: int | None = None
) -> Any:
    """Histogram of gold ranks (log-spaced bins) per model; ``None`` ranks go to a "> list" bar; with
    ``pool_size``, the counts of a random ranking as grey "x" marks (the chance level)."""
    if not any(ranks.values()):
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    top = max((r for rs in ranks.values() for r in rs if r is not None), default=1)
    bins = np.unique(np.round(np.logspace(0, np.log10(max(top, 2)) + 0.01, 12)))
    width = 0.8 / max(1, len(ranks))
    models = [m for m in colors if m in ranks] + sorted(m for m in ranks if m not in colors)
    edges = bins
    for j, model in enumerate(models):
        rs = ranks[model]
        found = [r for r in rs if r is not None]
        counts, edges = np.histogram(found, bins=bins)
        missing = len(rs) - len(found)
        x = np.arange(len(counts) + 1) + j * width
        ax.bar(x, list(counts) + [missing], width=width, color=colors.get(model), label=model)
    if pool_size:
        n_q = max(len(rs) for rs in ranks.values())
        exp = random_rank_counts(edges, n_q, int(pool_size))
        ax.plot(
            np.arange(len(exp)) + 0.4 - width / 2, exp, "x", color=CHANCE_COLOR, ms=8, mew=2, label="random ranking"
        )
    labels = [f"{edges[i]:g}-{edges[i + 1]:g}" for i in range(len(edges) - 1)] + ["> list"]
    ax.set_xticks(np.arange(len(labels)) + 0.4 - width / 2)
    ax.set_xticklabels(labels, rotation=45, fontsize=7)
    ax.set_ylabel("queries")
    ax.set_ylim(bottom=0)
    ax.set_xlabel("rank of the gold quote (ties: mean rank)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    return fig
