"""The two per-row overheads issue 11 asked to remove first, measured side by side (docs/benchmarks.md, section 1):

* preparing mteb's corpus dataloader and reading it: ``mteb._create_dataloaders.create_dataloader`` (a
  ``Dataset.map`` per row, a row per fetch) vs :func:`mteb_contrastive.search.loaders.retrieval_dataloader`;
* the corpus ids as a list: ``list(corpus["id"])`` (the lazy column, row by row) vs one Arrow call.

    python scripts/bench_overheads.py [--rows 100000]
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    a = ap.parse_args()
    import sys
    from pathlib import Path

    from datasets import Dataset
    from mteb._create_dataloaders import create_dataloader
    from mteb.types import PromptType

    sys.path.insert(0, str(Path(__file__).parent))
    from bench_faiss_search import task_meta

    from mteb_contrastive.search.loaders import column_list, retrieval_dataloader

    corpus = Dataset.from_dict(
        {
            "id": [f"c{i}" for i in range(a.rows)],
            "title": [f"t{i}" for i in range(a.rows)],
            "text": [f"text {i}" for i in range(a.rows)],
        }
    )

    def timed(f):
        t0 = time.perf_counter()
        out = f()
        return time.perf_counter() - t0, out

    t_mteb, ref = timed(
        lambda: [
            t
            for b in create_dataloader(
                corpus, task_metadata=task_meta(), prompt_type=PromptType.document, batch_size=4096
            )
            for t in b["text"]
        ]
    )
    t_ours, ours = timed(
        lambda: [
            t
            for b in retrieval_dataloader(
                corpus, task_metadata=task_meta(), prompt_type=PromptType.document, batch_size=4096
            )
            for t in b["text"]
        ]
    )
    assert ours == ref
    t_list, ids1 = timed(lambda: list(corpus["id"]))
    t_col, ids2 = timed(lambda: column_list(corpus, "id"))
    assert ids1 == ids2
    print(f"{a.rows:,} corpus rows (id, title, text)")
    print("| step | mteb 2.26 s | ours s | ratio |")
    print("|---|---|---|---|")
    print(f"| corpus dataloader: prepare + read all batches | {t_mteb:.2f} | {t_ours:.2f} | {t_mteb / t_ours:.0f}x |")
    print(f"| corpus ids as a list | {t_list:.2f} | {t_col:.3f} | {t_list / t_col:.0f}x |")


if __name__ == "__main__":
    main()
