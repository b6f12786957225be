"""Search speed on a HALvest-sized pool: our FAISS backend vs mteb's default exact search
(and mteb's shipped FaissSearchIndex path), measured side by side in one run.

Embeddings are precomputed (random, dim 384, the size of all-MiniLM-L6-v2), so only search and
result collection are timed, as in the foundation issue's measurement (14,336 queries x 28,672
candidates, top_k = 100 as our author tasks use).

    python scripts/bench_faiss_search.py [--queries 14336] [--pool 28672] [--top-k 100]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from datasets import Dataset
from mteb.abstasks.task_metadata import TaskMetadata
from mteb.models.abs_encoder import AbsEncoder
from mteb.models.model_meta import ModelMeta, ScoringFunction
from mteb.models.search_encoder_index.search_indexes.faiss_search_index import FaissSearchIndex
from mteb.models.search_wrappers import SearchEncoderWrapper

from mteb_contrastive.search.faiss_backend import FaissSearchEncoderWrapper


class Precomputed(AbsEncoder):
    """Encoder whose 'texts' are row numbers into a fixed matrix."""

    def __init__(self, q: np.ndarray, c: np.ndarray):
        self.q, self.c = q, c
        self.mteb_model_meta = ModelMeta.create_empty(overwrites=dict(name="bench/precomputed", revision="1", similarity_fn_name=ScoringFunction.COSINE))

    def encode(self, inputs, *, task_metadata, hf_split, hf_subset, prompt_type=None, **kw):
        rows = [t for b in inputs for t in b["text"]]
        src = self.q if rows and rows[0].startswith("q") else self.c
        return src[[int(t[1:]) for t in rows]]


def timed(wrapper, corpus, queries, top_k, meta):
    kw = dict(task_metadata=meta, hf_split="test", hf_subset="default", encode_kwargs={"batch_size": 4096, "show_progress_bar": False})
    t0 = time.perf_counter()
    wrapper.index(corpus, **kw)
    res = wrapper.search(queries, top_k=top_k, **kw)
    return time.perf_counter() - t0, res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=14336)
    ap.add_argument("--pool", type=int, default=28672)
    ap.add_argument("--top-k", type=int, default=100)
    ap.add_argument("--skip-mteb-faiss", action="store_true", help="skip mteb's shipped FaissSearchIndex path (slow)")
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    q = rng.standard_normal((a.queries, 384)).astype(np.float32)
    c = rng.standard_normal((a.pool, 384)).astype(np.float32)
    model = Precomputed(q, c)
    corpus = Dataset.from_dict({"id": [f"c{i}" for i in range(a.pool)], "text": [f"c{i}" for i in range(a.pool)]})
    queries = Dataset.from_dict({"id": [f"q{i}" for i in range(a.queries)], "text": [f"q{i}" for i in range(a.queries)]})
    meta = TaskMetadata(name="Bench", description="b", dataset={"path": "p", "revision": "1"}, type="Retrieval", category="t2t",
                        modalities=["text"], eval_splits=["test"], eval_langs=["eng-Latn"], main_score="ndcg_at_10",
                        reference=None, date=None, domains=None, license=None, annotations_creators=None, dialect=None,
                        sample_creation=None, bibtex_citation="")
    runs = {"mteb default exact search": SearchEncoderWrapper(model)}
    if not a.skip_mteb_faiss:
        runs["mteb FaissSearchIndex"] = SearchEncoderWrapper(model, index_backend=FaissSearchIndex(model))
    runs["mteb-contrastive FAISS (flat, exact)"] = FaissSearchEncoderWrapper(model)
    runs["mteb-contrastive FAISS (hnsw)"] = FaissSearchEncoderWrapper(model, index="hnsw")
    times, results = {}, {}
    for name, w in runs.items():
        times[name], results[name] = timed(w, corpus, queries, a.top_k, meta)
    ref = results["mteb default exact search"]
    ours = results["mteb-contrastive FAISS (flat, exact)"]
    same = np.mean([set(sorted(ref[k], key=ref[k].get)[-10:]) == set(sorted(ours[k], key=ours[k].get)[-10:]) for k in ref])
    base = times["mteb default exact search"]
    print(f"{a.queries} queries x {a.pool} candidates, dim 384, top_k={a.top_k}")
    print("| search | seconds | time / mteb default |")
    print("|---|---|---|")
    for name, t in times.items():
        print(f"| {name} | {t:.1f} | {t / base:.2f} |")
    print(f"identical top-10 sets, flat FAISS vs mteb default: {same:.4f} of queries")


if __name__ == "__main__":
    main()
