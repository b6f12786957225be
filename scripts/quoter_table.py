"""Markdown table of QuoteR task results from an mteb ``--output-folder``.

    python scripts/quoter_table.py results/

One row per (model, task) with QuoteR's tie-aware results (:mod:`mteb_contrastive.metrics.ranking`):
each metric as ``expected (optimistic / pessimistic)``: the exact expectation under a random order
within ties (the main value), then the gold-first and gold-last bounds; MRR over the full ranking,
NDCG@5, Recall@1/10/100, median rank. ``tied at 0``: golds tied with other candidates at score 0
(the model found nothing for them), of the test queries. Eval time: mteb's recorded evaluation
time (s). Results without the tie-aware keys (written before they existed) are skipped with a note
on stderr.
"""

from __future__ import annotations

import sys
from pathlib import Path

METRICS = (
    ("mrr", "MRR", 4),
    ("ndcg_at_5", "NDCG@5", 4),
    ("recall_at_1", "R@1", 4),
    ("recall_at_10", "R@10", 4),
    ("recall_at_100", "R@100", 4),
    ("median_rank", "median rank", 1),
)


def _cell(s: dict, key: str, digits: int) -> str:
    f = (lambda v: f"{v:.{digits}f}") if digits > 1 else (lambda v: f"{v:g}")
    return f"{f(s[key + '_tie_expected'])} ({f(s[key + '_optimistic'])} / {f(s[key + '_pessimistic'])})"


def quoter_table(results_dir: str | Path) -> str:
    """The table (module docstring) for every QuoteR result under ``results_dir``, read with
    :func:`mteb_contrastive.report.reader.read_results` (the project's one results reader)."""
    from mteb_contrastive.report.reader import read_results

    rows = []
    seen: set[Path] = set()
    for r in read_results(results_dir):
        if "QuoteR" not in r.task or r.split != "test" or r.path in seen:  # a result file's first test subset
            continue
        seen.add(r.path)
        s = r.scores
        if "mrr_tie_expected" not in s:
            print(
                f"skipped (no tie-aware keys, an older result): {r.path.parent.parent.name}/{r.task}", file=sys.stderr
            )
            continue
        rows.append((r.model, r.task, s, r.evaluation_time))
    out = [
        "| model | task | pool | queries | "
        + " | ".join(label for _, label, _ in METRICS)
        + " | tied at 0 | eval time (s) |",
        "|---|---|---|---|" + "---|" * len(METRICS) + "---|---|",
    ]
    for model, task, s, t in sorted(rows, key=lambda x: (x[1], x[0])):
        cells = " | ".join(_cell(s, key, d) for key, _, d in METRICS)
        out.append(
            f"| {model} | {task} | {s['pool_size']} | {s['n_queries']} | {cells} | {s['n_gold_tied_at_zero']} "
            f"| {'' if t is None else round(t, 1)} |"
        )
    return "\n".join(out)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    print(quoter_table(sys.argv[1]))
