"""Benchmark 5 (scale): pool size 10k -> 1M; exact and approximate search, and the whole mteb retrieval
path (docs/benchmarks.md, section 5).

Vectors are synthetic and *structured*: ``x = z @ A + 0.1 * noise`` with ``z ~ N(0, I_32)``, ``A`` a
fixed random 32 x 384 matrix (a low intrinsic dimension, as real sentence embeddings have; on
unstructured normal vectors no approximate index reaches a useful recall, see the issue).
Queries are drawn from the same distribution. Cosine similarity, top_k 100 (recall@10 for the
approximate indexes, against exact search). Each measurement runs in its own child process
(peak RSS is its own).

* ``exact``  -- :class:`FaissIndexBackend` (flat) on arrays: seconds, extra peak RSS;
* ``path``   -- the whole mteb retrieval path (:class:`FaissSearchEncoderWrapper`: ``index`` +
  ``search`` over a ``datasets`` corpus with an encoder that looks the vectors up);
* ``hnsw`` / ``ivf`` -- build time, then a sweep of ``efSearch`` / ``nprobe``: recall@10 against
  exact and search seconds; the smallest setting with recall@10 >= 0.99 is marked.

    python scripts/bench_scale.py [--sizes 10000,100000,300000,1000000] [--queries 1000]
        [--ann-sizes 100000,300000,1000000] [--hnsw-max 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

DIM, LATENT = 384, 32


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def vectors(n: int, seed: int) -> np.ndarray:
    a = np.random.default_rng(12345).standard_normal((LATENT, DIM), dtype=np.float32)
    rng = np.random.default_rng(seed)
    out = np.empty((n, DIM), dtype=np.float32)
    for s in range(0, n, 100_000):
        m = min(100_000, n - s)
        out[s : s + m] = rng.standard_normal((m, LATENT), dtype=np.float32) @ a + 0.1 * rng.standard_normal((m, DIM), dtype=np.float32)
    return out


def recall_at_10(approx: np.ndarray, exact: np.ndarray) -> float:
    return float(np.mean([len(set(a[:10]) & set(e[:10])) / 10 for a, e in zip(approx, exact)]))


def run(mode: str, n: int, n_q: int, top_k: int) -> dict:
    import torch  # noqa: F401

    from mteb_contrastive.search.faiss_backend import FaissIndexBackend

    x, q = vectors(n, 1), vectors(n_q, 2)
    base = rss_mib()
    out: dict = {"mode": mode, "pool": n, "queries": n_q, "embeddings_mib": (x.nbytes + q.nbytes) / 2**20}
    t0 = time.perf_counter()
    if mode == "exact":
        b = FaissIndexBackend(similarity="cosine")
        b.add_documents(x, [f"c{i}" for i in range(n)])
        b.search_arrays(q, top_k)
    elif mode == "path":
        from datasets import Dataset

        sys.path.insert(0, os.path.dirname(__file__))
        from bench_faiss_search import precomputed_encoder, task_meta

        from mteb_contrastive.search.faiss_backend import FaissSearchEncoderWrapper

        corpus = Dataset.from_dict({"id": [f"c{i}" for i in range(n)], "text": [f"c{i}" for i in range(n)]})
        queries = Dataset.from_dict({"id": [f"q{i}" for i in range(n_q)], "text": [f"q{i}" for i in range(n_q)]})
        base = rss_mib()
        t0 = time.perf_counter()
        w = FaissSearchEncoderWrapper(precomputed_encoder(q, x))
        kw = dict(task_metadata=task_meta(), hf_split="test", hf_subset="default", encode_kwargs={"batch_size": 4096, "show_progress_bar": False})
        w.index(corpus, **kw)
        res = w.search(queries, top_k=top_k, **kw)
        out["hits_per_query"] = min(len(v) for v in res.values())
    else:
        ex = FaissIndexBackend(similarity="cosine")
        ex.add_documents(x, [str(i) for i in range(n)])
        te = time.perf_counter()
        _, exact = ex.search_arrays(q, 10)
        out["exact_search_s"] = time.perf_counter() - te
        ex.clear()
        tb = time.perf_counter()
        kw = {"hnsw_m": 32, "ef_construction": 40} if mode == "hnsw" else {"nlist": int(4 * np.sqrt(n)), "nprobe": 1}
        b = FaissIndexBackend(similarity="cosine", index=mode, target_recall=None, **kw)  # the sweep sets the parameter
        if mode == "ivf":  # train on a sample (FAISS's own rule: <= 256 points per cell is enough)
            import faiss

            y = x[np.random.default_rng(0).choice(n, min(n, 64 * kw["nlist"]), replace=False)].copy()
            faiss.normalize_L2(y)
            quant = faiss.IndexFlatIP(DIM)
            b.index = faiss.IndexIVFFlat(quant, DIM, kw["nlist"], faiss.METRIC_INNER_PRODUCT)
            b._quantizer = quant
            b.index.train(y)
            b.index.make_direct_map()
        b.add_documents(x, [str(i) for i in range(n)])
        out["build_s"] = time.perf_counter() - tb
        out["params"] = kw
        sweep = []
        for v in ((16, 32, 64, 128, 256, 512) if mode == "hnsw" else (8, 32, 64, 128, 256, 512)):
            if mode == "hnsw":
                b.ef_search = v
            else:
                b.nprobe = v
            ts = time.perf_counter()
            _, pos = b.search_arrays(q, 10)
            sweep.append({"efSearch" if mode == "hnsw" else "nprobe": v, "recall@10": recall_at_10(pos, exact), "search_s": time.perf_counter() - ts})
            if sweep[-1]["recall@10"] >= 0.999:
                break
        out["sweep"] = sweep
    out["seconds"] = time.perf_counter() - t0
    out["extra_mib"] = peak_mib() - base
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000,100000,300000,1000000")
    ap.add_argument("--ann-sizes", default="100000,300000,1000000")
    ap.add_argument("--hnsw-max", type=int, default=100_000, help="largest pool HNSW is built for (its build is slow on 2 shared cores)")
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--top-k", type=int, default=100)
    ap.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--summarise", metavar="FILE", help="print the markdown tables of a saved run's output and exit")
    a = ap.parse_args()
    if a.summarise:
        with open(a.summarise) as f:
            summarise([json.loads(line) for line in f if line.startswith("{")])
        return
    if a.one:
        print(json.dumps(run(a.one[0], int(a.one[1]), a.queries, a.top_k)))
        return
    jobs = [(m, int(n)) for n in a.sizes.split(",") for m in ("exact", "path")]
    jobs += [(m, int(n)) for n in a.ann_sizes.split(",") for m in ("ivf", "hnsw") if m == "ivf" or int(n) <= a.hnsw_max]
    print(f"{a.queries} queries, dim {DIM}, cosine, top_k {a.top_k}; structured synthetic vectors (latent dim {LATENT} + noise)", flush=True)
    results: list[dict] = []
    for mode, n in jobs:
        cmd = [sys.executable, __file__, "--one", mode, str(n), "--queries", str(a.queries), "--top-k", str(a.top_k)]
        p = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if p.returncode:
            print(f"{mode} {n}: failed: {p.stderr[-1500:]}", flush=True)
            continue
        r = json.loads(p.stdout.strip().splitlines()[-1])
        print(json.dumps(r), flush=True)
        results.append(r)
    summarise(results)


def summarise(results: list[dict]) -> None:
    """Markdown tables: exact search and the whole path by pool size; approximate indexes."""
    print("\n| pool | exact search s | exact extra peak RSS MiB | whole path s | whole path extra peak RSS MiB | embeddings MiB |")
    print("|---|---|---|---|---|---|")
    by = {(r["mode"], r["pool"]): r for r in results}
    for n in sorted({r["pool"] for r in results if r["mode"] in ("exact", "path")}):
        e, p = by.get(("exact", n), {}), by.get(("path", n), {})
        cell = lambda r, k, fmt: fmt.format(r[k]) if k in r else "-"  # noqa: E731
        print(f"| {n:,} | {cell(e, 'seconds', '{:.1f}')} | {cell(e, 'extra_mib', '{:.0f}')} | {cell(p, 'seconds', '{:.1f}')} | {cell(p, 'extra_mib', '{:.0f}')} | {cell(e or p, 'embeddings_mib', '{:.0f}')} |")
    print("\n| pool | index | build s | exact search s | setting for recall@10 >= 0.99 | recall@10 | search s | speed-up (search) | pays back (build + search < exact) | sweep (setting: recall@10) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        if r["mode"] not in ("hnsw", "ivf"):
            continue
        key = "efSearch" if r["mode"] == "hnsw" else "nprobe"
        ok = next((s for s in r["sweep"] if s["recall@10"] >= 0.99), None)
        params = ", ".join(f"{k}={v}" for k, v in r["params"].items() if k != "nprobe")
        sweep = "; ".join(f"{s[key]}: {s['recall@10']:.3f}" for s in r["sweep"])
        if ok:
            pay = "yes" if r["build_s"] + ok["search_s"] < r["exact_search_s"] else "no"
            print(f"| {r['pool']:,} | {r['mode']} ({params}) | {r['build_s']:.1f} | {r['exact_search_s']:.1f} | {key}={ok[key]} | {ok['recall@10']:.3f} | {ok['search_s']:.2f} | {r['exact_search_s'] / ok['search_s']:.1f}x | {pay} | {sweep} |")
        else:
            print(f"| {r['pool']:,} | {r['mode']} ({params}) | {r['build_s']:.1f} | {r['exact_search_s']:.1f} | not reached | - | - | - | - | {sweep} |")


if __name__ == "__main__":
    main()
