"""Benchmark 5 (scale): pool size 10k -> 1M; exact and approximate search, and the whole mteb retrieval
path (docs/benchmarks.md, section 5).

Vectors: with ``--real FILE.npy`` (made by ``--make-real FILE.npy``: all-MiniLM-L6-v2 embeddings,
normalised, of the first ``--real-texts`` (12,000) distinct definitions and quotations of
``quoter/en_gcide.txt`` in the shared data, max_seq_length 128), the queries are ``--queries`` held-out real embeddings
and the pool is the other real embeddings, extended past their number by :func:`extend_real`
(``x = normalise(e_i + 0.3 (e_a - e_b))``: a real embedding ``e_i``, cycled, moved along the
difference of two random real embeddings, so the extension stays in the real embeddings' subspace
with their anisotropy; cosine to ``e_i`` ~0.93). Without ``--real`` the vectors are synthetic and *structured*:
``x = z @ A + 0.1 * noise`` with ``z ~ N(0, I_32)``, ``A`` a fixed random 32 x 384 matrix (a low intrinsic dimension,
as real sentence embeddings have; on unstructured normal vectors no approximate index reaches a useful recall,
see the issue). Queries are drawn from the same distribution. Cosine similarity, top_k 100 (recall@10 for the
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
    """Peak RSS (MiB) since the last :func:`reset_peak` (Linux ``VmHWM``; else the process's peak)."""
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmHWM"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def reset_peak() -> None:
    """Reset the peak RSS to the current RSS (Linux: ``5`` to ``/proc/self/clear_refs``), so that the
    vector generator's temporaries do not count as the search's memory."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def vectors(n: int, seed: int) -> np.ndarray:
    a = np.random.default_rng(12345).standard_normal((LATENT, DIM), dtype=np.float32)
    rng = np.random.default_rng(seed)
    out = np.empty((n, DIM), dtype=np.float32)
    for s in range(0, n, 100_000):
        m = min(100_000, n - s)
        out[s : s + m] = rng.standard_normal((m, LATENT), dtype=np.float32) @ a + 0.1 * rng.standard_normal(
            (m, DIM), dtype=np.float32
        )
    return out


def make_real(out: str, limit: int) -> None:
    """all-MiniLM-L6-v2 embeddings (normalised, float32, max_seq_length 128, one thread) of the first
    ``limit`` distinct definitions and quotations of the shared data's ``quoter/en_gcide.txt``
    (tab-separated, first two fields, in file order), saved to ``out``."""
    import torch
    from sentence_transformers import SentenceTransformer

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
    from mteb_contrastive.config import shared_data_dir

    torch.set_num_threads(1)
    texts: dict[str, None] = {}
    with open(shared_data_dir(None) / "quoter" / "en_gcide.txt", encoding="utf-8") as f:
        for line in f:
            for field in line.rstrip("\n").split("\t")[:2]:
                if field.strip() and len(texts) < limit:
                    texts.setdefault(field.strip())
    st = SentenceTransformer("sentence-transformers/all-MiniLM-L6-v2", device="cpu")
    st.max_seq_length = 128
    e = st.encode(list(texts), batch_size=64, convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False)
    np.save(out, e.astype(np.float32))
    print(f"{len(texts)} texts -> {out} {e.shape}")


def extend_real(path: str, n: int, n_q: int) -> tuple[np.ndarray, np.ndarray]:
    """(pool (n, 384), queries (n_q, 384)) from real embeddings: a seeded permutation holds out
    ``n_q`` queries; the pool is the remaining ``R`` real embeddings, then for ``i >= R``
    ``normalise(base[i % R] + 0.3 * (base[a] - base[b]))`` with seeded random ``a``, ``b``."""
    e = np.load(path, mmap_mode="r")
    perm = np.random.default_rng(0).permutation(e.shape[0])
    q = np.ascontiguousarray(e[np.sort(perm[:n_q])], dtype=np.float32)
    base = np.ascontiguousarray(e[np.sort(perm[n_q:])], dtype=np.float32)
    r = base.shape[0]
    out = np.empty((n, DIM), dtype=np.float32)
    out[: min(n, r)] = base[: min(n, r)]
    rng = np.random.default_rng(1)
    for s in range(r, n, 100_000):
        m = min(100_000, n - s)
        a, b = rng.integers(r, size=m), rng.integers(r, size=m)
        x = base[np.arange(s, s + m) % r] + 0.3 * (base[a] - base[b])
        out[s : s + m] = x / np.linalg.norm(x, axis=1, keepdims=True)
    return out, q


def recall_at_10(approx: np.ndarray, exact: np.ndarray) -> float:
    return float(np.mean([len(set(a[:10]) & set(e[:10])) / 10 for a, e in zip(approx, exact)]))


def run(
    mode: str,
    n: int,
    n_q: int,
    top_k: int,
    real: str | None = None,
    hnsw_m: int = 32,
    ef_construction: int = 40,
    nlist_factor: float = 1.0,
) -> dict:
    import torch  # noqa: F401

    from mteb_contrastive.search.faiss_backend import FaissIndexBackend

    x, q = extend_real(real, n, n_q) if real else (vectors(n, 1), vectors(n_q, 2))
    base = rss_mib()
    reset_peak()
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
        reset_peak()
        t0 = time.perf_counter()
        w = FaissSearchEncoderWrapper(precomputed_encoder(q, x))
        kw = dict(
            task_metadata=task_meta(),
            hf_split="test",
            hf_subset="default",
            encode_kwargs={"batch_size": 4096, "show_progress_bar": False},
        )
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
        kw = (
            {"hnsw_m": hnsw_m, "ef_construction": ef_construction}
            if mode == "hnsw"
            else {"nlist": int(nlist_factor * np.sqrt(n)), "nprobe": 1}
        )
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
        for v in (
            (16, 32, 64, 128, 256, 512, 1024, 2048, 4096) if mode == "hnsw" else (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
        ):
            if mode == "hnsw":
                b.ef_search = v
            else:
                b.nprobe = v
            ts = time.perf_counter()
            _, pos = b.search_arrays(q, 10)
            sweep.append(
                {
                    "efSearch" if mode == "hnsw" else "nprobe": v,
                    "recall@10": recall_at_10(pos, exact),
                    "search_s": time.perf_counter() - ts,
                }
            )
            print(json.dumps({"progress": mode, "pool": n, **sweep[-1]}), file=sys.stderr, flush=True)
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
    ap.add_argument("--hnsw-max", type=int, default=1_000_000, help="largest pool HNSW is built for")
    ap.add_argument("--modes", default="exact,path,ivf,hnsw", help="which measurements to run")
    ap.add_argument(
        "--real", default=None, help="real embeddings (.npy from --make-real) to draw queries and pool from"
    )
    ap.add_argument(
        "--make-real",
        metavar="FILE",
        help="encode the shared GCIDE texts with all-MiniLM-L6-v2 into FILE (.npy) and exit",
    )
    ap.add_argument(
        "--real-texts",
        type=int,
        default=12000,
        help="--make-real: how many distinct texts to encode (~0.8 ms/token on one core)",
    )
    ap.add_argument("--hnsw-m", type=int, default=32)
    ap.add_argument("--ef-construction", type=int, default=40)
    ap.add_argument(
        "--nlist-factor", type=float, default=1.0, help="IVF cells = factor * sqrt(pool); trained on 64 points per cell"
    )
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--top-k", type=int, default=100)
    ap.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--verbose", action="store_true", help="show the children's progress on stderr")
    ap.add_argument("--summarise", metavar="FILE", help="print the markdown tables of a saved run's output and exit")
    a = ap.parse_args()
    if a.make_real:
        make_real(a.make_real, a.real_texts)
        return
    if a.summarise:
        with open(a.summarise) as f:
            summarise([json.loads(line) for line in f if line.startswith("{")])
        return
    if a.one:
        print(
            json.dumps(
                run(a.one[0], int(a.one[1]), a.queries, a.top_k, a.real, a.hnsw_m, a.ef_construction, a.nlist_factor)
            )
        )
        return
    modes = a.modes.split(",")
    jobs = [(m, int(n)) for n in a.sizes.split(",") if n for m in ("exact", "path") if m in modes]
    jobs += [
        (m, int(n))
        for n in a.ann_sizes.split(",")
        if n
        for m in ("ivf", "hnsw")
        if m in modes and (m == "ivf" or int(n) <= a.hnsw_max)
    ]
    sys.path.insert(0, os.path.dirname(__file__))
    try:
        from bench_env import machine_lines

        print("\n".join(machine_lines()), flush=True)
    except Exception as exc:  # noqa: BLE001  (torch/mteb_contrastive not importable: still run)
        print(f"(machine lines unavailable: {exc})")
    vec = (
        f"real all-MiniLM-L6-v2 embeddings ({a.real}; {a.queries} held out as queries), "
        "extended past their number by extend_real"
        if a.real
        else f"structured synthetic vectors (latent dim {LATENT} + noise)"
    )
    print(
        f"{a.queries} queries, dim {DIM}, cosine, top_k {a.top_k}; {vec}; HNSW M={a.hnsw_m}, "
        f"efConstruction={a.ef_construction}; "
        f"IVF nlist={a.nlist_factor:g}*sqrt(pool)",
        flush=True,
    )
    results: list[dict] = []
    for mode, n in jobs:
        cmd = [
            sys.executable,
            __file__,
            "--one",
            mode,
            str(n),
            "--queries",
            str(a.queries),
            "--top-k",
            str(a.top_k),
            "--hnsw-m",
            str(a.hnsw_m),
            "--ef-construction",
            str(a.ef_construction),
            "--nlist-factor",
            str(a.nlist_factor),
        ] + (["--real", a.real] if a.real else [])
        p = subprocess.run(
            cmd, stdout=subprocess.PIPE, stderr=None if a.verbose else subprocess.PIPE, text=True, check=False
        )
        if p.returncode:
            print(f"{mode} {n}: failed: {(p.stderr or '')[-1500:]}", flush=True)
            continue
        r = json.loads(p.stdout.strip().splitlines()[-1])
        print(json.dumps(r), flush=True)
        results.append(r)
    summarise(results)


def summarise(results: list[dict]) -> None:
    """Markdown tables: exact search and the whole path by pool size; approximate indexes."""
    print(
        "\n| pool | exact search s | exact extra peak RSS MiB | whole path s | "
        "whole path extra peak RSS MiB | embeddings MiB |"
    )
    print("|---|---|---|---|---|---|")
    by = {(r["mode"], r["pool"]): r for r in results}
    for n in sorted({r["pool"] for r in results if r["mode"] in ("exact", "path")}):
        e, p = by.get(("exact", n), {}), by.get(("path", n), {})
        cell = lambda r, k, fmt: fmt.format(r[k]) if k in r else "-"  # noqa: E731
        print(
            f"| {n:,} | {cell(e, 'seconds', '{:.1f}')} | {cell(e, 'extra_mib', '{:.0f}')} "
            f"| {cell(p, 'seconds', '{:.1f}')} | {cell(p, 'extra_mib', '{:.0f}')} "
            f"| {cell(e or p, 'embeddings_mib', '{:.0f}')} |"
        )
    print(
        "\n| pool | index | build s | exact search s | setting for recall@10 >= 0.99 | recall@10 | search s | "
        "speed-up (search) | speed-up incl. build (exact / (build + search)) | sweep (setting: recall@10) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        if r["mode"] not in ("hnsw", "ivf"):
            continue
        key = "efSearch" if r["mode"] == "hnsw" else "nprobe"
        ok = next((s for s in r["sweep"] if s["recall@10"] >= 0.99), None)
        params = ", ".join(f"{k}={v}" for k, v in r["params"].items() if k != "nprobe")
        sweep = "; ".join(f"{s[key]}: {s['recall@10']:.3f}" for s in r["sweep"])
        if ok:
            pay = f"{r['exact_search_s'] / (r['build_s'] + ok['search_s']):.2f}x"
            print(
                f"| {r['pool']:,} | {r['mode']} ({params}) | {r['build_s']:.1f} | {r['exact_search_s']:.1f} "
                f"| {key}={ok[key]} | {ok['recall@10']:.3f} | {ok['search_s']:.2f} "
                f"| {r['exact_search_s'] / ok['search_s']:.1f}x | {pay} | {sweep} |"
            )
        else:
            print(
                f"| {r['pool']:,} | {r['mode']} ({params}) | {r['build_s']:.1f} | {r['exact_search_s']:.1f} | "
                f"not reached | - | - | - | - | {sweep} |"
            )


if __name__ == "__main__":
    main()
