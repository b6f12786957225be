"""Reranking ablation: first stage alone vs each reranker at k in {10, 50, 100}, on one retrieval task.

Prints a markdown table: task, first stage, reranker, k, main score (and MRR / nDCG@10 / Recall@10
when present), wall seconds of the first stage and of the reranking stage, pairs rescored.

The first stage runs once per (task, first stage): its results (and, on QuoteR tasks, its full-pool
gold ranks) are reused by every reranker and k, so its time is the same on every row. The rerankers
are pointwise, and the top-10 of a first stage is inside its top-50 and top-100: ks run in
ascending order and each (query, candidate) pair is scored once (:class:`PairCache`); the rerank
time of a row is the measured time spent scoring pairs up to that row, i.e. the time to score all
of its k x queries pairs (model loading excluded). Every score
is computed by mteb's evaluation of the task (``mteb.evaluate``), the same path as ``mteb run``.

    PYTHONPATH=src HF_HUB_OFFLINE=1 python scripts/rerank_ablation.py -t QuoteRKJVNovelsEnglishRetrieval \\
        --first bm25 minilm --rerankers ce li bi --ks 10 50 100

``--max-queries N`` evaluates a fixed random sample (seed 0) of N queries; ``--subset`` picks one
hf_subset of a multi-subset task (e.g. ``base-2`` of the TALN author tasks).
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import time
from typing import Any

from mteb_contrastive.search.full_rank import GoldRankingSearch


class CachedFirstStage(GoldRankingSearch):
    """A first stage run once; later ``index``/``search`` calls replay its results and gold ranks."""

    def __init__(self, model: Any, faiss_index: str = "flat") -> None:
        self.model, self.faiss_index = model, faiss_index
        self.mteb_model_meta = getattr(model, "mteb_model_meta", None)
        self.gold: dict[str, str] = {}
        self.inner: Any = None
        self.results: dict[int, Any] = {}
        self.seconds = 0.0

    def index(self, corpus: Any, **kwargs: Any) -> None:
        from mteb_contrastive.search.full_rank import with_gold_ranks
        from mteb_contrastive.search.rerank import as_first_stage

        if self.results:
            return
        t0 = time.monotonic()
        self.inner = (
            with_gold_ranks(self.model, self.gold, faiss_index=self.faiss_index)
            if self.gold
            else as_first_stage(self.model, self.faiss_index)
        )
        self.inner.index(corpus, **kwargs)
        self.seconds += time.monotonic() - t0

    def search(self, queries: Any, *, top_k: int, **kwargs: Any) -> dict[str, dict[str, float]]:
        if top_k not in self.results:
            if self.results:
                raise RuntimeError("CachedFirstStage: one top_k per task")
            t0 = time.monotonic()
            self.results[top_k] = self.inner.search(queries, top_k=top_k, **kwargs)
            self.seconds += time.monotonic() - t0
            if self.gold:
                self._ranking = self.inner.gold_ranking()
        return {q: dict(v) for q, v in self.results[top_k].items()}


class PairCache:
    """A pointwise reranker with a (query, candidate) score cache shared across the ks of one first stage.

    With ascending k the candidates of a smaller k are a subset of a larger k's (same first stage),
    so only the new pairs are scored; ``seconds`` accumulates the time actually spent scoring, so
    after the call for k it is the time to score all pairs of the top-k.
    """

    def __init__(self, reranker: Any) -> None:
        self.reranker, self.kind, self.model_name = reranker, reranker.kind, reranker.model_name
        self.cache: dict[tuple[str, str], float] = {}
        self.seconds = 0.0
        self.scored = 0

    def score(self, queries: Any, docs: Any) -> list[Any]:
        import numpy as np

        todo_q, todo_d = [], []
        for q, ds in zip(queries, docs):
            new = [d for d in dict.fromkeys(ds) if (q, d) not in self.cache]
            if new:
                todo_q.append(q)
                todo_d.append(new)
        if todo_q:
            t0 = time.monotonic()
            for q, ds, sc in zip(todo_q, todo_d, self.reranker.score(todo_q, todo_d)):
                self.cache.update({(q, d): float(x) for d, x in zip(ds, sc)})
                self.scored += len(ds)
            self.seconds += time.monotonic() - t0
        return [np.asarray([self.cache[(q, d)] for d in ds], dtype=np.float64) for q, ds in zip(queries, docs)]


def sample_queries(task: Any, n: int | None, seed: int = 0) -> dict[str, int]:
    """Keep a fixed random sample of ``n`` queries (with a relevant candidate) in every subset/split."""
    counts = {}
    for subset, splits in task.dataset.items():
        for split, d in splits.items():
            ids = [q for q in d["queries"]["id"] if d["relevant_docs"].get(q)]
            if n is not None and len(ids) > n:
                keep = set(random.Random(seed).sample(ids, n))
            else:
                keep = set(ids)
            rows = [i for i, q in enumerate(d["queries"]["id"]) if q in keep]
            d["queries"] = d["queries"].select(rows)
            d["relevant_docs"] = {q: v for q, v in d["relevant_docs"].items() if q in keep}
            counts[f"{subset}/{split}"] = len(rows)
    return counts


def evaluate(model: Any, task: Any) -> dict[str, Any]:
    import mteb

    res = mteb.evaluate(
        model,
        task,
        cache=None,
        overwrite_strategy="always",
        show_progress_bar=False,
        encode_kwargs={"batch_size": 32, "show_progress_bar": False},
    )
    tr = res.task_results[0]
    split = task.metadata.eval_splits[0]
    return tr.scores[split][0]


def fmt(v: Any, d: int = 4) -> str:
    return "" if v is None else (f"{v:.{d}f}" if isinstance(v, float) else str(v))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-t", "--task", required=True)
    ap.add_argument("--subset", help="one hf_subset of the task (default: all)")
    ap.add_argument("--first", nargs="+", default=["bm25"], help="first stages: bm25, minilm or any mteb model name")
    ap.add_argument("--rerankers", nargs="+", default=["ce", "li", "bi"], choices=["ce", "li", "bi"])
    ap.add_argument(
        "--reranker-model",
        action="append",
        default=[],
        metavar="KIND=MODEL",
        help="e.g. ce=cross-encoder/ms-marco-MiniLM-L6-v2 (default: $MTEB_CONTRASTIVE_* or the bundled MiniLM)",
    )
    ap.add_argument("--ks", nargs="+", type=int, default=[10, 50, 100])
    ap.add_argument("--max-queries", type=int)
    ap.add_argument("--json", help="also write every row's full mteb score dict to this JSON file")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)

    import mteb

    from mteb_contrastive.models.rerank import FIRST_STAGES
    from mteb_contrastive.search.rerank import TwoStageSearch, make_reranker, model_label, same_model_refusal

    rmodels = dict(kv.split("=", 1) for kv in args.reranker_model)

    def load_task() -> Any:
        task = mteb.get_task(args.task, hf_subsets=[args.subset] if args.subset else None)
        task.load_data()
        task.convert_v1_dataset_format_to_v2(None)
        return task, sample_queries(task, args.max_queries)

    rows = []
    for first in args.first:
        first_name = FIRST_STAGES.get(first, first)
        cached = CachedFirstStage(mteb.get_model(first_name))
        task, counts = load_task()
        s = evaluate(cached, task)
        rows.append((first_name, "none", "", s, cached.seconds, 0.0, 0))
        print(
            f"# {args.task} queries {counts}; "
            f"{first_name} alone: {task.metadata.main_score}={s['main_score']:.4f} ({cached.seconds:.1f}s)",
            file=sys.stderr,
            flush=True,
        )
        for kind in args.rerankers:
            rr = PairCache(make_reranker(kind, rmodels.get(kind)))
            refusal = same_model_refusal(f"{first}+{kind}", first_name, kind, rr.model_name)
            if refusal:  # e.g. minilm+bi with MiniLM as the bi-encoder: it would change nothing
                print(f"# skip {refusal}", file=sys.stderr, flush=True)
                continue
            for k in sorted(args.ks):
                two = TwoStageSearch(cached, rr, k)
                task, _ = load_task()
                s = evaluate(two, task)
                t = two.last_timings
                rows.append(
                    (
                        first_name,
                        f"{kind} ({model_label(rr.model_name)})",
                        k,
                        s,
                        cached.seconds,
                        rr.seconds,
                        int(t.get("rerank_pairs", 0)),
                    )
                )
                print(
                    f"#   +{kind}@{k}: {s['main_score']:.4f} rerank {rr.seconds:.1f}s "
                    f"(this call {t.get('rerank_seconds', 0):.1f}s, {rr.scored} pairs scored so far)",
                    file=sys.stderr,
                    flush=True,
                )

    main_score = task.metadata.main_score
    # columns only for the metrics this task reports (the tie-aware ones are QuoteR's; the
    # cross-document ones are the author retrieval tasks')
    wanted = (
        "mrr_tie_expected",
        "ndcg_at_10",
        "recall_at_10",
        "median_rank_tie_expected",
        "ndcg_at_10_cross_document",
        "hit_rate_at_10_cross_document",
    )
    extra = [m for m in wanted if m != main_score and any(r[3].get(m) is not None for r in rows)]
    if args.json:
        import json
        from pathlib import Path

        out = [
            {
                "first_stage": f,
                "reranker": rr,
                "k": k,
                "first_stage_seconds": t1,
                "rerank_seconds": t2,
                "pairs": p,
                "scores": s,
            }
            for f, rr, k, s, t1, t2, p in rows
        ]
        Path(args.json).write_text(
            json.dumps(
                {"task": args.task, "subset": args.subset, "queries": counts, "rows": out}, indent=1, default=str
            )
        )
    print(f"\nTask {args.task}" + (f" [{args.subset}]" if args.subset else "") + f", queries: {counts}")
    print(
        f"| first stage | reranker | k | {main_score} (main) | "
        + " | ".join(extra)
        + " | first stage (s) | rerank (s) | pairs |"
    )
    print("|---|---|---|---|" + "---|" * len(extra) + "---|---|---|")
    for first_name, rr, k, s, t1, t2, pairs in rows:
        print(
            f"| {first_name} | {rr} | {k} | {fmt(s.get(main_score))} | "
            + " | ".join(fmt(s.get(m)) for m in extra)
            + f" | {t1:.1f} | {t2:.1f} | {pairs} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
