"""Beyond one machine: multi-process encoding through mteb's encode_kwargs, Ray Data shards, the index
built from shards -- each scores exactly as the single-process run on a small real pool."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import SHARED, bundled_minilm_path, task_metadata
from datasets import Dataset

from mteb_contrastive.search.faiss_backend import FaissIndexBackend, FaissSearchEncoderWrapper
from mteb_contrastive.search.sharded import ShardedIndexSearch, ShardError, index_from_shards, read_shards, write_shard

KW = dict(hf_split="test", hf_subset="default")


def _meta():
    return task_metadata("T")


@pytest.fixture(scope="module")
def pool():
    """60 TALN abstract triplets: ~110 real candidate texts, author qrels (read at run time)."""
    from mteb_contrastive.data.halvest_builder import sample_triplets
    from mteb_contrastive.data.taln import taln_corpus
    from mteb_contrastive.protocols.author_retrieval import build_pool

    docs, _ = taln_corpus(SHARED / "taln" / "articles.jsonl.gz", "abstract-en")
    rows, _ = sample_triplets(docs, 2, seed=0)
    data, _ = build_pool(rows[:60])
    return data


@pytest.fixture(scope="module")
def minilm():
    import mteb

    return mteb.get_model("sentence-transformers/all-MiniLM-L6-v2")


def _scores(search_model, data, encode_kwargs):
    from mteb._evaluators.retrieval_metrics import calculate_retrieval_scores

    kw = dict(
        task_metadata=_meta(), encode_kwargs={"batch_size": 16, "show_progress_bar": False, **encode_kwargs}, **KW
    )
    search_model.index(Dataset.from_list(data["corpus"]), **kw)
    res = search_model.search(Dataset.from_list(data["queries"]), top_k=20, **kw)
    res = {q: {c: s for c, s in d.items() if c != q} for q, d in res.items()}
    qrels = {q: r for q, r in data["qrels"].items() if r}
    s = calculate_retrieval_scores({q: res[q] for q in qrels}, qrels, [1, 10, 20])
    return {**s.ndcg, **s.recall, **s.mrr}, res


@pytest.fixture(scope="module")
def single(pool, minilm):
    return _scores(FaissSearchEncoderWrapper(minilm, ignore_identical_ids=True), pool, {})


def test_multi_process_pool_through_encode_kwargs_scores_equal(pool, minilm, single):
    st = minilm.model
    mp = st.start_multi_process_pool(["cpu", "cpu"])
    try:
        scores, res = _scores(
            FaissSearchEncoderWrapper(minilm, ignore_identical_ids=True), pool, {"pool": mp, "chunk_size": 32}
        )
    finally:
        st.stop_multi_process_pool(mp)
    assert scores.keys() == single[0].keys() and scores["NDCG@10"] > 0
    for k, v in single[0].items():
        assert scores[k] == pytest.approx(v, abs=1e-6), k
    assert [list(res[q])[:10] for q in sorted(res)] == [list(single[1][q])[:10] for q in sorted(res)]


def test_ray_data_shards_then_index_scores_equal(pool, minilm, single, tmp_path):
    ray = pytest.importorskip("ray")
    from mteb_contrastive.search.sharded import encode_with_ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        ids, texts = [c["id"] for c in pool["corpus"]], [c["text"] for c in pool["corpus"]]
        manifest = encode_with_ray(
            ids, texts, bundled_minilm_path(), tmp_path / "emb", rows_per_shard=32, concurrency=2, batch_size=16
        )
    finally:
        ray.shutdown()
    assert [m["first_row"] for m in manifest] == list(range(0, len(ids), 32)) and sum(m["n"] for m in manifest) == len(
        ids
    )
    scores, res = _scores(ShardedIndexSearch(minilm, tmp_path / "emb", ignore_identical_ids=True), pool, {})
    for k, v in single[0].items():
        assert scores[k] == pytest.approx(v, abs=1e-6), k
    assert [list(res[q])[:10] for q in sorted(res)] == [list(single[1][q])[:10] for q in sorted(res)]


def test_shard_folder_checks(tmp_path):
    write_shard(tmp_path, 0, ["a", "b"], [0, 1], np.array([[1, 0], [0, 1]], np.float32), model="m")
    write_shard(tmp_path, 2, ["c"], [2], np.array([[3, 4]], np.float32), model="m")
    shards = read_shards(tmp_path)
    assert [ids for ids, _ in shards] == [["a", "b"], ["c"]] and not shards[0][1].flags.writeable
    b = index_from_shards(tmp_path, FaissIndexBackend(similarity="cosine"))
    s, i = b.search(np.array([[0, 1]], np.float32), 3)
    assert i == [[1, 2, 0]] and s[0] == pytest.approx([1.0, 0.8, 0.0], abs=1e-6)  # cos: 1, 4/5, 0
    # a row twice
    write_shard(tmp_path, 3, ["d"], [2], np.array([[1, 1]], np.float32), model="m")
    with pytest.raises(ShardError, match="row 2 appears 2 times"):
        read_shards(tmp_path)
    (tmp_path / "shard-000000000003.npy").unlink()
    (tmp_path / "shard-000000000003.ids.json").unlink()
    # an interrupted write: array without its ids file
    (tmp_path / "shard-000000000002.ids.json").unlink()
    with pytest.raises(ShardError, match=r"shard-000000000002.npy: its ids file .* is missing"):
        read_shards(tmp_path)
    write_shard(tmp_path, 2, ["c"], [2], np.array([[3, 4, 5]], np.float32), model="m")
    with pytest.raises(ShardError, match="dimension 3, other shards have 2"):
        read_shards(tmp_path)
    write_shard(tmp_path, 2, ["c"], [2], np.array([[3, 4]], np.float32), model="other")
    with pytest.raises(ShardError, match="encoded by 'other'"):
        read_shards(tmp_path)
    assert json.loads((tmp_path / "shard-000000000000.ids.json").read_text())["rows"] == [0, 1]
    with pytest.raises(ShardError, match="no shard"):
        read_shards(tmp_path / "nothing")
