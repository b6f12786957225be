"""FAISS backend: same ranking as mteb's default exact search on a real pool; similarity rules."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import TableEncoder, bundled_minilm_path, task_metadata
from datasets import Dataset
from mteb.models.search_wrappers import SearchEncoderWrapper

from mteb_contrastive.data.halvest_builder import sample_triplets
from mteb_contrastive.data.taln import taln_corpus
from mteb_contrastive.protocols.author_retrieval import build_pool
from mteb_contrastive.search.faiss_backend import FaissIndexBackend, FaissSearchEncoderWrapper


@pytest.fixture(scope="module")
def real_pool():
    """200 TALN abstract triplets (pool ~380 real texts) with all-MiniLM-L6-v2 embeddings."""
    from pathlib import Path

    from sentence_transformers import SentenceTransformer

    shared = Path(__file__).resolve().parents[2] / "shared" / "data"
    docs, _ = taln_corpus(shared / "taln" / "articles.jsonl.gz", "abstract-en")
    rows, _ = sample_triplets(docs, 2, seed=0)
    data, _ = build_pool(rows[:200])
    texts = sorted({d["text"] for d in data["corpus"]} | {q["text"] for q in data["queries"]})
    emb = SentenceTransformer(bundled_minilm_path(), device="cpu").encode(texts, batch_size=64)
    return data, dict(zip(texts, emb))


def top10(wrapper, data, model):
    meta = task_metadata("T")
    kw = dict(
        task_metadata=meta,
        hf_split="test",
        hf_subset="default",
        encode_kwargs={"batch_size": 64, "show_progress_bar": False},
    )
    wrapper.index(Dataset.from_list(data["corpus"]), **kw)
    res = wrapper.search(Dataset.from_list(data["queries"]), top_k=10, **kw)
    return {q: sorted(d.items(), key=lambda x: -x[1]) for q, d in res.items()}


def test_faiss_equals_mteb_default_exact_search_on_real_pool(real_pool):
    data, table = real_pool
    model = TableEncoder(table)
    ours = top10(FaissSearchEncoderWrapper(model), data, model)
    default = top10(SearchEncoderWrapper(model), data, model)
    assert len(data["corpus"]) > 300 and ours.keys() == default.keys()
    for q in ours:
        assert [d for d, _ in ours[q]] == [d for d, _ in default[q]], q
        assert np.allclose([s for _, s in ours[q]], [s for _, s in default[q]], atol=1e-5)


def test_approximate_indexes_find_nearly_the_same_top10(real_pool):
    data, table = real_pool
    model = TableEncoder(table)
    exact = top10(FaissSearchEncoderWrapper(model), data, model)
    hnsw = top10(FaissSearchEncoderWrapper(model, index="hnsw"), data, model)
    overlap = np.mean([len({d for d, _ in exact[q]} & {d for d, _ in hnsw[q]}) / 10 for q in exact])
    assert overlap > 0.95
    ivf = top10(FaissSearchEncoderWrapper(model, index="ivf", nprobe=1000), data, model)  # all cells: exact
    assert all([d for d, _ in exact[q]] == [d for d, _ in ivf[q]] for q in exact)


def test_no_similarity_in_metadata_means_cosine():
    # dot product would rank the long vector first; cosine ranks the aligned one first
    model = TableEncoder({"q": [1, 0], "long": [10, 10], "aligned": [1, 0.01]}, similarity=None)
    b = FaissIndexBackend(model)
    assert b.similarity == "cosine"
    b.add_documents(np.array([[10, 10], [1, 0.01]], np.float32), ["long", "aligned"])
    scores, idx = b.search(np.array([[1, 0]], np.float32), 2)
    assert idx == [[1, 0]] and scores[0][0] == pytest.approx(1.0, abs=1e-4)


def test_dot_and_euclidean_scores():
    docs = np.array([[10, 10], [1, 0]], np.float32)
    dot = FaissIndexBackend(similarity="dot")
    dot.add_documents(docs, ["a", "b"])
    assert dot.search(np.array([[1, 0]], np.float32), 2) == ([[10.0, 1.0]], [[0, 1]])
    l2 = FaissIndexBackend(similarity="euclidean")
    l2.add_documents(docs, ["a", "b"])
    s, i = l2.search(np.array([[1, 0]], np.float32), 2)
    assert i == [[1, 0]] and s[0] == pytest.approx([0.0, -np.sqrt(81 + 100)])


def test_rerank_mode_orders_only_the_given_candidates():
    b = FaissIndexBackend(similarity="dot")
    b.add_documents(np.array([[3, 0], [2, 0], [1, 0]], np.float32), ["a", "b", "c"])
    s, i = b.search(np.array([[1, 0]], np.float32), 10, top_ranked={"q": ["c", "b"]}, query_idx_to_id={0: "q"})
    assert i == [[1, 0]] and s == [[2.0, 1.0]]  # positions in the candidate list ["c", "b"]


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown FAISS index kind"):
        FaissIndexBackend(similarity="cosine", index="lsh")
    with pytest.raises(ValueError, match="manhattan.*not supported"):
        FaissIndexBackend(TableEncoder(similarity="manhattan"))
    with pytest.raises(ValueError, match="no documents indexed"):
        FaissIndexBackend(similarity="cosine").search(np.zeros((1, 2), np.float32), 1)
