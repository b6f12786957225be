"""Figures of the release report (matplotlib, Agg backend, PNG files written atomically).

* :func:`score_vs_k` -- author tasks: main score against k (sentences per span, subset ``base-<k>``);
* :func:`recall_curves` -- retrieval and quotes: Recall@k against k (the ``recall_at_<k>`` keys);
* :func:`roc_and_reliability` -- verification: ROC curve of the test similarities and the
  reliability diagram of the Platt probabilities (``sklearn.metrics.roc_curve``,
  ``sklearn.calibration.calibration_curve``, 10 uniform bins);
* :func:`rank_histogram` -- quotes: rank of the gold quote in the returned list, ties at their
  mean rank (``1 + #higher + #tied/2``); a gold outside the returned list is counted as "> list".
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import numpy as np

from mteb_contrastive.report.reader import span_k


def _plt():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.png")
    fig.savefig(tmp, dpi=110, bbox_inches="tight")
    _plt().close(fig)
    os.replace(tmp, path)
    return path


def score_vs_k(rows: list[Any], path: Path) -> Path | None:
    """Main score vs k for rows with ``base-<k>`` subsets; one line per (model, task). None when no row has k."""
    lines: dict[tuple[str, str], list[tuple[int, float]]] = {}
    names: dict[str, str] = {}
    for r in rows:
        k = span_k(r.subset)
        if k is None or r.main is None:
            continue
        lines.setdefault((r.task, r.model), []).append((k, r.main))
        names[r.task] = r.main_score_name
    if not any(len(v) > 1 for v in lines.values()):
        return None
    plt = _plt()
    tasks = sorted({t for t, _ in lines})
    fig, axes = plt.subplots(1, len(tasks), figsize=(4.5 * len(tasks), 3.4), squeeze=False)
    for ax, task in zip(axes[0], tasks):
        for (t, model), pts in sorted(lines.items()):
            if t == task:
                pts.sort()
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=model)
        ax.set_title(task, fontsize=9)
        ax.set_xlabel("k (sentences per span)")
        ax.set_ylabel(names[task])
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    return _save(fig, path)


def recall_curves(rows: list[Any], path: Path) -> Path | None:
    """Recall@k vs k (log x) for every row with at least two ``recall_at_<k>`` keys."""
    curves = []
    for r in rows:
        pts = sorted(
            (int(m.group(1)), float(v)) for k, v in r.scores.items() if (m := re.fullmatch(r"recall_at_(\d+)", k))
        )
        if len(pts) > 1:
            curves.append((f"{r.task} {r.subset}" if r.subset != "default" else r.task, r.model, pts))
    if not curves:
        return None
    plt = _plt()
    tasks = sorted({c[0] for c in curves})
    cols = min(3, len(tasks))
    nrows = (len(tasks) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(4.5 * cols, 3.3 * nrows), squeeze=False)
    for ax, task in zip(axes.flat, tasks):
        for t, model, pts in curves:
            if t == task:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=model)
        ax.set_xscale("log")
        ax.set_title(task, fontsize=9)
        ax.set_xlabel("k")
        ax.set_ylabel("Recall@k")
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(tasks) :]:
        ax.axis("off")
    return _save(fig, path)


def roc_and_reliability(
    curves: list[tuple[str, np.ndarray, np.ndarray, np.ndarray | None]], path: Path, title: str
) -> Path | None:
    """ROC (similarity) and reliability (Platt probability) panels.

    Args:
        curves: (model, labels 0/1, similarity scores, Platt probabilities or None) per model.
    """
    from sklearn.calibration import calibration_curve
    from sklearn.metrics import roc_auc_score, roc_curve

    curves = [c for c in curves if len(set(np.asarray(c[1]).tolist())) == 2]
    if not curves:
        return None
    plt = _plt()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.8))
    for model, y, s, p in curves:
        fpr, tpr, _ = roc_curve(y, s)
        a1.plot(fpr, tpr, label=f"{model} (AUC {roc_auc_score(y, s):.3f})")
        if p is not None:
            frac, mean_p = calibration_curve(y, p, n_bins=10, strategy="uniform")
            a2.plot(mean_p, frac, marker="o", label=model)
    a1.plot([0, 1], [0, 1], ls="--", c="grey", lw=1, label="chance")
    a1.set_xlabel("false positive rate")
    a1.set_ylabel("true positive rate")
    a1.set_title(f"ROC -- {title}", fontsize=9)
    a2.plot([0, 1], [0, 1], ls="--", c="grey", lw=1, label="perfect calibration")
    a2.set_xlabel("mean Platt probability (bin)")
    a2.set_ylabel("share of same-author pairs")
    a2.set_title(f"Reliability -- {title}", fontsize=9)
    for ax in (a1, a2):
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    return _save(fig, path)


def tie_aware_rank(doc_scores: dict[str, float], gold: str) -> float | None:
    """Rank of ``gold`` among the returned documents, ties at their mean rank; None when not returned."""
    if gold not in doc_scores:
        return None
    g = doc_scores[gold]
    higher = sum(1 for s in doc_scores.values() if s > g)
    tied = sum(1 for s in doc_scores.values() if s == g) - 1
    return 1 + higher + tied / 2


def rank_histogram(ranks: dict[str, list[float | None]], path: Path, title: str) -> Path | None:
    """Histogram of gold ranks (log-spaced bins) per model; ``None`` ranks go to a "> list" bar."""
    if not any(ranks.values()):
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    top = max((r for rs in ranks.values() for r in rs if r is not None), default=1)
    bins = np.unique(np.round(np.logspace(0, np.log10(max(top, 2)) + 0.01, 12)))
    width = 0.8 / max(1, len(ranks))
    for j, (model, rs) in enumerate(sorted(ranks.items())):
        found = [r for r in rs if r is not None]
        counts, edges = np.histogram(found, bins=bins)
        missing = len(rs) - len(found)
        x = np.arange(len(counts) + 1) + j * width
        ax.bar(x, list(counts) + [missing], width=width, label=model)
    labels = [f"{edges[i]:g}-{edges[i + 1]:g}" for i in range(len(edges) - 1)] + ["> list"]
    ax.set_xticks(np.arange(len(labels)) + 0.4 - width / 2)
    ax.set_xticklabels(labels, rotation=45, fontsize=7)
    ax.set_ylabel("queries")
    ax.set_xlabel("rank of the gold quote (ties: mean rank)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    return _save(fig, path)
