"""Markdown table of QuoteR task results from an mteb ``--output-folder``.

    python scripts/quoter_table.py results/

One row per (model, task): pool size, test queries, MRR (full ranking, main score), NDCG@5,
Recall@1/10/100, median rank, and mteb's recorded evaluation time.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def quoter_table(results_dir: str | Path) -> str:
    rows = []
    for f in sorted(Path(results_dir).rglob("QuoteR*.json")):
        d = json.loads(f.read_text())
        s = d["scores"]["test"][0]
        model = f.parent.parent.name.replace("__", "/")
        rows.append((model, d["task_name"], dict(s, evaluation_time=d.get("evaluation_time"))))
    out = [
        "| model | task | pool | queries | MRR | NDCG@5 | R@1 | R@10 | R@100 | median rank | eval time (s) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for model, task, s in sorted(rows, key=lambda r: (r[1], r[0])):
        t = s.get("evaluation_time")
        out.append(
            f"| {model} | {task} | {s['pool_size']} | {s['n_queries']} | {s['mrr']:.4f} | {s['ndcg_at_5']:.4f} | {s['recall_at_1']:.4f} | "
            f"{s['recall_at_10']:.4f} | {s['recall_at_100']:.4f} | {s['median_rank']:g} | {'' if t is None else round(t, 1)} |"
        )
    return "\n".join(out)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    print(quoter_table(sys.argv[1]))
