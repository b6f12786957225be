"""Encoding benchmarks 2-4 (docs/benchmarks-encoding.md), each measured side by side in one run.

    PYTHONPATH=src HF_HUB_OFFLINE=1 nice python scripts/bench_encoding.py whole-task --datasets build/datasets
    PYTHONPATH=src HF_HUB_OFFLINE=1 nice python scripts/bench_encoding.py overhead   --datasets build/datasets
    PYTHONPATH=src HF_HUB_OFFLINE=1 nice python scripts/bench_encoding.py backends   --datasets build/datasets

* ``whole-task`` (2): the triplet + retrieval tasks of one TALN benchmark (default TALNAbstractEn)
  with all-MiniLM-L6-v2 four ways: mteb's defaults (the stock ``SentenceTransformerEncoderWrapper``,
  no cache), our encoding layer with the disk cache off (encode-once within the run only), with
  an empty disk cache, and again with that cache filled. Wall time of both tasks, texts the model
  encoded (counted at ``SentenceTransformer.encode``), ratio to mteb's defaults, main scores.
* ``overhead`` (3): the same distinct texts through the product path (``EncodingModel.encode``,
  cache off, statistics on) vs a bare ``SentenceTransformer.encode(texts, batch_size=32)``, and
  bare encode without sentence-transformers' length sorting (batches of 32 in input order).
  Runs alternate, ``--repeats`` times each; the median CPU time (``time.process_time``, torch on
  ``--threads`` threads, default 1: on a loaded machine wall time measures the other users) and the
  median wall time are reported.
* ``backends`` (4): torch fp32 vs torch bf16 (vs ONNX fp32/int8 when ``onnxruntime``/``optimum``
  are installed): texts/s and tokens/s on ``--n-texts`` texts, and the main scores of both tasks.

The TALN folders are built into ``--datasets`` with ``mteb-contrastive build-taln`` when absent.
Every script prints the CPU, cores and BLAS thread pools first (threadpoolctl).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
ROOT = Path(__file__).resolve().parents[1]
MINILM = "sentence-transformers/all-MiniLM-L6-v2"


def _datasets(folder: str, shared: str | None) -> Path:
    out = Path(folder).resolve()
    if not (out / "TALNAbstractEn").is_dir():
        from mteb_contrastive.cli import build_taln
        from mteb_contrastive.paths import shared_data_dir

        build_taln(shared_data_dir(shared), out)
    return out


def _subset(datasets: Path, shared: str | None, n_authors: int) -> str:
    """Build ``TALNAbstractEnSub<n>``: TALN English abstracts of the first ``n`` author sets with >= 2
    papers plus ``n`` single-paper author sets (k=2, 2 triplets per anchor document, seed 0)."""
    from collections import Counter

    from mteb_contrastive.data.halvest_builder import build_halvest_dataset
    from mteb_contrastive.data.taln import taln_corpus
    from mteb_contrastive.paths import shared_data_dir

    name = f"TALNAbstractEnSub{n_authors}"
    if not (datasets / name).is_dir():
        docs, _ = taln_corpus(shared_data_dir(shared) / "taln" / "articles.jsonl.gz", "abstract-en")
        sets = Counter(frozenset(d["authors"]) for d in docs)
        paired = [s for s, n in sets.items() if n >= 2][:n_authors]
        keep = [d for d in docs if frozenset(d["authors"]) in paired] + [d for d in docs if sets[frozenset(d["authors"])] == 1][:n_authors]
        build_halvest_dataset(keep, datasets, name, ks=(2,), language="en", mteb_language="eng-Latn", n_triplets=2, seed=0, source="TALN abstracts (benchmark subset)")
    return name


def _count_encodes(st) -> list[int]:
    """Wrap ``st.encode`` to append the number of texts of each call to the returned list."""
    counts: list[int] = []
    original = st.encode

    def encode(*args, **kwargs):
        texts = args[0] if args else kwargs.get("inputs", kwargs.get("sentences"))
        counts.append(1 if isinstance(texts, str) else len(texts))
        return original(*args, **kwargs)

    st.encode = encode
    return counts


def _tasks(name: str):
    import mteb

    return [mteb.get_task(f"{name}AuthorTripletClassification"), mteb.get_task(f"{name}AuthorRetrieval")]


def _main_scores(res) -> list[float]:
    return [tr.scores["test"][0]["main_score"] for tr in res.task_results]


def _distinct_texts(name: str) -> list[str]:
    texts: dict[str, None] = {}
    for task in _tasks(name):
        task.load_data()
        for subset in task.hf_subsets:
            data = task.dataset[subset]["test"]
            if isinstance(data, list):
                for r in data:
                    for f in ("query", "positive", "negative"):
                        texts.setdefault(r[f])
    return list(texts)


def whole_task(args) -> None:
    import mteb
    from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper

    cache_dir = Path(tempfile.mkdtemp(prefix="bench-emb-cache-"))
    rows = []

    def run(label, make_model):
        model, st = make_model()
        counts = _count_encodes(st)
        t0 = time.perf_counter()
        res = mteb.evaluate(model, _tasks(args.benchmark), cache=None, overwrite_strategy="always", show_progress_bar=False)
        wall = time.perf_counter() - t0
        rows.append((label, wall, sum(counts), _main_scores(res)))
        print(f"done {label}: {wall:.0f} s, {sum(counts)} texts", file=sys.stderr, flush=True)

    def stock():
        m = SentenceTransformerEncoderWrapper(MINILM, revision=mteb.get_model_meta(MINILM).revision)
        m.mteb_model_meta = mteb.get_model_meta(MINILM)
        return m, m.model

    def ours(cache: bool):
        def make():
            os.environ["MTEB_CONTRASTIVE_EMBEDDING_CACHE_DIR"] = str(cache_dir)
            m = mteb.get_model(MINILM, cache=cache)
            return m, m.model
        return make

    run("mteb defaults (stock wrapper, no cache)", stock)
    run("encoding layer, disk cache off", ours(False))
    run("encoding layer, empty disk cache", ours(True))
    run("encoding layer, filled disk cache (2nd run)", ours(True))
    base = rows[0][1]
    print(f"Benchmark 2: {args.benchmark} triplet + retrieval, all-MiniLM-L6-v2, batch 32\n")
    print("| path | wall s | texts encoded | wall ratio to mteb defaults | triplet accuracy | nDCG@10 |")
    print("|---|---|---|---|---|---|")
    for label, wall, n, scores in rows:
        print(f"| {label} | {wall:.1f} | {n} | {wall / base:.2f} | {scores[0]:.4f} | {scores[1]:.4f} |")


def overhead(args) -> None:
    import mteb
    import numpy as np

    import torch

    torch.set_num_threads(args.threads)
    texts = _distinct_texts(args.benchmark)[: args.n_texts]
    task = _tasks(args.benchmark)[0]
    model = mteb.get_model(MINILM, cache=False)
    st = model.model
    n_tokens = sum(len(x) for x in st.tokenizer(texts, add_special_tokens=True, truncation=True, max_length=st.max_seq_length)["input_ids"])

    from mteb_contrastive.encoding import EncodingModel

    def product():
        # a fresh layer over the same loaded model: every text is a miss, statistics are computed
        fresh = EncodingModel(model.core, model.settings, identity=model.identity, meta=model.mteb_model_meta)
        fresh.encode([{"text": texts}], task_metadata=task.metadata, hf_split="test", hf_subset="bench")

    def bare():
        st.encode(texts, batch_size=32, show_progress_bar=False)

    def bare_unsorted():
        for b in range(0, len(texts), 32):
            st.encode(texts[b : b + 32], batch_size=32, show_progress_bar=False)

    times: dict[str, list[float]] = {"bare": [], "product": [], "unsorted": []}
    cpu: dict[str, list[float]] = {"bare": [], "product": [], "unsorted": []}
    paths = [("bare", bare), ("product", product), ("unsorted", bare_unsorted)]
    bare()  # warm-up
    for r in range(args.repeats):
        for name, fn in paths[r % 3:] + paths[: r % 3]:  # rotate the order every round
            c0, t0 = time.process_time(), time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
            cpu[name].append(time.process_time() - c0)
    med = {k: statistics.median(v) for k, v in cpu.items()}
    wall = {k: statistics.median(v) for k, v in times.items()}
    print(f"Benchmark 3: {len(texts)} distinct {args.benchmark} texts ({n_tokens} tokens after truncation to {st.max_seq_length}), "
          f"all-MiniLM-L6-v2 fp32, batch 32, torch threads {args.threads}, median of {args.repeats} rotating runs\n")
    print("| path | median CPU s | CPU ratio to bare encode | median wall s | wall ratio |")
    print("|---|---|---|---|---|")
    for label, k in (("bare SentenceTransformer.encode (length-sorted)", "bare"), ("product path: EncodingModel.encode (cache off)", "product"),
                     ("bare encode, batches in input order (no length sorting)", "unsorted")):
        print(f"| {label} | {med[k]:.2f} | {med[k] / med['bare']:.3f} | {wall[k]:.2f} | {wall[k] / wall['bare']:.3f} |")
    print("\nall runs, CPU s: " + "; ".join(f"{k}: " + ", ".join(f"{x:.2f}" for x in v) for k, v in cpu.items()))
    print("all runs, wall s: " + "; ".join(f"{k}: " + ", ".join(f"{x:.2f}" for x in v) for k, v in times.items()))


def backends(args) -> None:
    import mteb
    import numpy as np

    from mteb_contrastive.encoding.loading import onnx_available

    texts = _distinct_texts(args.benchmark)[: args.n_texts]
    configs = [("torch fp32", {}), ("torch bf16", {"precision": "bf16"})]
    if onnx_available():
        configs.append(("onnx fp32", {"backend": "onnx"}))
    cache_dir = Path(tempfile.mkdtemp(prefix="bench-emb-cache-"))
    os.environ["MTEB_CONTRASTIVE_EMBEDDING_CACHE_DIR"] = str(cache_dir)
    rows = []
    ref = None
    for label, opts in configs:
        model = mteb.get_model(MINILM, cache=False, **opts)
        st = model.model
        n_tokens = sum(len(x) for x in st.tokenizer(texts, add_special_tokens=True, truncation=True, max_length=st.max_seq_length)["input_ids"])
        st.encode(texts[:32], batch_size=32, show_progress_bar=False)  # warm-up
        t0 = time.perf_counter()
        emb = np.asarray(st.encode(texts, batch_size=32, show_progress_bar=False, convert_to_numpy=True), dtype=np.float32)
        wall = time.perf_counter() - t0
        if ref is None:
            ref = emb
        cos = float(np.mean(np.sum(emb * ref, 1) / (np.linalg.norm(emb, axis=1) * np.linalg.norm(ref, axis=1))))
        scores = [float("nan"), float("nan")]
        if not args.no_scores:
            res = mteb.evaluate(mteb.get_model(MINILM, cache=True, **opts), _tasks(args.benchmark), cache=None, overwrite_strategy="always", show_progress_bar=False)
            scores = _main_scores(res)
        rows.append((label, len(texts) / wall, n_tokens / wall, cos, scores))
        print(f"done {label}: {len(texts) / wall:.1f} texts/s", file=sys.stderr, flush=True)
    print(f"Benchmark 4: all-MiniLM-L6-v2 on {len(texts)} {args.benchmark} texts (batch 32); main scores on the full {args.benchmark} triplet + retrieval tasks\n")
    print("| backend | texts/s | tokens/s | speed-up | mean cosine to fp32 | triplet accuracy | nDCG@10 | accuracy diff (points) | nDCG@10 diff (points) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, tps, tok, cos, sc in rows:
        d = [100 * (a - b) for a, b in zip(sc, rows[0][4])]
        print(f"| {label} | {tps:.1f} | {tok:.0f} | {tps / rows[0][1]:.2f}x | {cos:.5f} | {sc[0]:.4f} | {sc[1]:.4f} | {d[0]:+.2f} | {d[1]:+.2f} |")
    if not onnx_available():
        print("\nONNX fp32 / int8: not measured (onnxruntime and optimum are not installed in this environment; "
              "`backend=onnx` raises a one-line error naming them).")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench", choices=["whole-task", "overhead", "backends"])
    ap.add_argument("--datasets", default=str(ROOT / "build" / "datasets"))
    ap.add_argument("--shared", default=None)
    ap.add_argument("--benchmark", default="TALNAbstractEn")
    ap.add_argument("--n-texts", type=int, default=600)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1, help="overhead: torch threads")
    ap.add_argument("--no-scores", action="store_true", help="backends: skip the task scores")
    ap.add_argument("--subset-authors", type=int, default=None, help="run on TALNAbstractEnSub<N> (N paired author sets + N others) instead of --benchmark")
    args = ap.parse_args()
    datasets = Path(args.datasets).resolve()
    if args.subset_authors:
        datasets.mkdir(parents=True, exist_ok=True)
        args.benchmark = _subset(datasets, args.shared, args.subset_authors)
    else:
        datasets = _datasets(args.datasets, args.shared)
    os.environ["MTEB_CONTRASTIVE_DATASETS"] = str(datasets)
    import mteb_contrastive  # noqa: F401
    from mteb_contrastive.registration import register_tasks
    from mteb_contrastive.tasks.local import local_task_classes

    register_tasks(local_task_classes())  # folders built above, after the extension registered itself
    from bench_env import machine_lines

    print("\n".join(machine_lines()) + "\n")
    {"whole-task": whole_task, "overhead": overhead, "backends": backends}[args.bench](args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
