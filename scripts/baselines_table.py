"""The baselines table: every baseline and all-MiniLM-L6-v2 on CranfieldIRTriplets and the TALN tasks.

Runs the stock ``mteb run -m MODEL -t TASK`` command (one fresh process per pair, ``nice``d) and
prints one Markdown table, models x tasks. A pair whose result file already exists is not rerun
unless ``--overwrite``; ``--no-run`` only prints the table from existing results.

    PYTHONPATH=src HF_HUB_OFFLINE=1 python scripts/baselines_table.py \\
        [--out build/baselines] [--models ...] [--tasks ...]

Both BM25 rows are shown: ``bm25-halvest`` (the HALvest authors' BM25, paper-faithful, IDF 0 for a
word in half of the background) and ``bm25s-triplets`` (a correct BM25, bm25s with Lucene's IDF).
The Doc2Vec row the Paragraph Vector comparison uses is ``doc2vec`` (the paper's PV-DM with
concatenation + PV-DBOW); its two other variants are shown beside it.

Cells: CranfieldIRTriplets -- error rate in percent (lower is better) and, in brackets, accuracy;
triplet tasks -- triplet accuracy on all rows (`accuracy`, strict >), one value per subset k (``k=2 / 4 / 8``);
retrieval tasks -- nDCG@10 per subset. The TALN folders are built into ``<out>/datasets`` with
``mteb-contrastive build-taln`` when absent; Cranfield triplets are built into
``<out>/cache`` on first load.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

MODELS = [
    "mteb-contrastive/bm25-halvest",  # the HALvest authors' BM25 (rank_bm25 Okapi IDF), paper-faithful
    "mteb-contrastive/bm25s-triplets",  # a correct BM25 (bm25s, Lucene IDF) on the same background
    "mteb-contrastive/tfidf-words",
    "mteb-contrastive/tfidf-bigrams",  # unigrams + bigrams ("bag-of-bigrams", Le & Mikolov 2014)
    "mteb-contrastive/tfidf-char3",
    "mteb-contrastive/word2vec-avg",
    "mteb-contrastive/doc2vec",  # the paper's PV-DM (concatenation) + PV-DBOW
    "mteb-contrastive/doc2vec-dm-concat",  # the paper's PV-DM alone
    "mteb-contrastive/doc2vec-dm-mean-dbow",  # PV-DM (mean) + PV-DBOW, the earlier default
    "sentence-transformers/all-MiniLM-L6-v2",
]
TASKS = [
    "CranfieldIRTriplets",
    "TALNAbstractEnAuthorTripletClassification",
    "TALNFullTextFrAuthorTripletClassification",
    "TALNAbstractEnAuthorRetrieval",
    "TALNFullTextFrAuthorRetrieval",
]
SHORT = {
    "CranfieldIRTriplets": "Cranfield IR triplets: error % (acc.)",
    "TALNAbstractEnAuthorTripletClassification": "TALN abstract-en triplets acc. (k=2)",
    "TALNFullTextFrAuthorTripletClassification": "TALN fulltext-fr triplets acc. (k=2 / 4 / 8)",
    "TALNAbstractEnAuthorRetrieval": "TALN abstract-en retrieval nDCG@10 (k=2)",
    "TALNFullTextFrAuthorRetrieval": "TALN fulltext-fr retrieval nDCG@10 (k=2 / 4 / 8)",
}


def read_table_rows(results: Path, models: list[str], tasks: list[str]) -> dict[tuple[str, str], list]:
    """(model, task) -> the test-split :class:`~mteb_contrastive.report.reader.ScoreRow` records of its
    result file (the first file by path when several revisions exist), read with
    :func:`mteb_contrastive.report.reader.read_results`; absent pairs are missing."""
    from mteb_contrastive.report.reader import read_results

    out: dict[tuple[str, str], list] = {}
    first: dict[tuple[str, str], Path] = {}
    for r in sorted(read_results(results, models=models, tasks=tasks), key=lambda r: str(r.path)):
        key = (r.model, r.task)
        if r.split != "test" or first.setdefault(key, r.path) != r.path:
            continue
        out.setdefault(key, []).append(r)
    return out


def cell(rows: list | None, task: str) -> str:
    if not rows:
        return "not run"
    scores = [
        r.scores
        for r in sorted(rows, key=lambda r: int(r.subset.split("-")[-1]) if r.subset.split("-")[-1].isdigit() else 0)
    ]
    if task == "CranfieldIRTriplets":
        s = scores[0]
        return f"{s['error_rate']:.2f} ({s['accuracy']:.4f})"
    key = "ndcg_at_10" if task.endswith("Retrieval") else "accuracy"
    return " / ".join(f"{s[key]:.4f}" for s in scores)


def table(results: Path, models: list[str], tasks: list[str]) -> str:
    found = read_table_rows(results, models, tasks)
    lines = ["| model | " + " | ".join(SHORT.get(t, t) for t in tasks) + " |", "|---" * (len(tasks) + 1) + "|"]
    for m in models:
        lines.append(f"| {m} | " + " | ".join(cell(found.get((m, t)), t) for t in tasks) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "baselines")
    ap.add_argument("--models", nargs="+", default=MODELS)
    ap.add_argument("--tasks", nargs="+", default=TASKS)
    ap.add_argument("--overwrite", action="store_true", help="rerun pairs whose result exists")
    ap.add_argument("--no-run", action="store_true", help="only print the table from existing results")
    args = ap.parse_args(argv)
    out = args.out.resolve()
    results = out / "results"
    env = dict(
        os.environ,
        HF_HUB_OFFLINE="1",
        MTEB_CONTRASTIVE_DATASETS=str(out / "datasets"),
        MTEB_CONTRASTIVE_CACHE=str(out / "cache"),
    )
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))
    mteb_bin = str(Path(sys.executable).with_name("mteb"))
    if not args.no_run:
        if any(t.startswith("TALN") for t in args.tasks) and not (out / "datasets").is_dir():
            subprocess.run(
                [sys.executable, "-m", "mteb_contrastive.cli", "build-taln", "--out", str(out / "datasets")],
                env=env,
                check=True,
                stdout=sys.stderr,
            )
        existing = read_table_rows(results, args.models, args.tasks)
        for m in args.models:
            for t in args.tasks:
                if (m, t) in existing and not args.overwrite:
                    continue
                cmd = [
                    "nice",
                    mteb_bin,
                    "run",
                    "-m",
                    m,
                    "-t",
                    t,
                    "--output-folder",
                    str(results),
                    "--overwrite-strategy",
                    "always",
                    "-v",
                    "0",
                ]
                print("$ " + " ".join(cmd[1:]), file=sys.stderr, flush=True)
                t0 = time.monotonic()
                rc = subprocess.call(cmd, env=env, stdout=subprocess.DEVNULL)
                print(f"  exit {rc}, {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
                if rc != 0:
                    return rc
    print(table(results, args.models, args.tasks))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
