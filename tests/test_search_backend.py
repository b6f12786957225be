"""Search backend (issues 8, 9, 11): exact top-k, input checks, no mutation, +1 candidate, one similarity."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import TableEncoder, task_metadata
from datasets import Dataset
from hypothesis import given, settings
from hypothesis import strategies as st

from mteb_contrastive.search.exact import EmbeddingError, exact_top_k
from mteb_contrastive.search.faiss_backend import (
    FaissIndexBackend,
    FaissSearchEncoderWrapper,
    IdenticalIdsExcluded,
    search_model_for,
)
from mteb_contrastive.search.similarity import model_similarity, similarity_matrix


def _meta(name: str = "T"):
    return task_metadata(name)


KW = dict(hf_split="test", hf_subset="default", encode_kwargs={"batch_size": 2, "show_progress_bar": False})


# -- issue 9: never mutate inputs; check them ------------------------------------------------
@pytest.mark.parametrize("index", ["flat", "hnsw", "ivf"])
def test_caller_arrays_are_not_modified(index):
    x = np.array([[3, 4], [1, 0]], np.float32)
    q = np.array([[0, 2]], np.float32)
    b = FaissIndexBackend(similarity="cosine", index=index, nlist=1, nprobe=1)
    b.add_documents(x, ["a", "b"])
    s, i = b.search(q, 2)
    assert x.tolist() == [[3, 4], [1, 0]] and q.tolist() == [[0, 2]]
    assert i == [[0, 1]] and s[0] == pytest.approx([0.8, 0.0], abs=1e-6)  # cos = 4*2/(5*2), 0


def test_read_only_memory_map_is_searched(tmp_path):
    np.save(tmp_path / "x.npy", np.array([[3, 4], [1, 0], [0, -1]], np.float32))
    x = np.load(tmp_path / "x.npy", mmap_mode="r")
    assert not x.flags.writeable
    b = FaissIndexBackend(similarity="cosine")
    b.add_documents(x, ["a", "b", "c"])
    s, i = b.search(np.load(tmp_path / "x.npy", mmap_mode="r")[:1], 3)
    assert i == [[0, 1, 2]] and s[0] == pytest.approx([1.0, 0.6, -0.8], abs=1e-6)


@pytest.mark.parametrize(
    ("docs", "similarity", "message"),
    [
        ([[1, 0], [np.nan, 1], [0, 1]], "dot", "documents: row 1 contains NaN or inf"),
        ([[1, 0], [0, 1], [np.inf, 1]], "cosine", "documents: row 2 contains NaN or inf"),
        ([[1, 0], [0, 0]], "cosine", "documents: row 1 is a zero vector"),
        ([1.0, 0.0], "dot", "documents: expected a 2-D array"),
        ([["a", "b"]], "dot", "documents: expected numbers"),
    ],
)
def test_bad_documents_are_named_by_row(docs, similarity, message):
    b = FaissIndexBackend(similarity=similarity)
    with pytest.raises(EmbeddingError, match=message):
        b.add_documents(np.asarray(docs), [str(i) for i in range(len(np.atleast_2d(docs)))])


def test_zero_vector_is_fine_under_dot_and_bad_queries_are_named():
    b = FaissIndexBackend(similarity="dot")
    b.add_documents(np.array([[1, 0], [0, 0]], np.float32), ["a", "b"])
    assert b.search(np.array([[2, 1]], np.float32), 2) == ([[2.0, 0.0]], [[0, 1]])
    with pytest.raises(EmbeddingError, match="queries: dimension 3 does not match the index's 2"):
        b.search(np.ones((1, 3), np.float32), 1)
    with pytest.raises(EmbeddingError, match="queries: row 1 contains NaN"):
        b.search(np.array([[1, 0], [np.nan, 0]], np.float32), 1)
    with pytest.raises(EmbeddingError, match="documents: dimension 3 does not match"):
        b.add_documents(np.ones((1, 3), np.float32), ["c"])
    with pytest.raises(ValueError, match="2 embeddings but 1 ids"):
        FaissIndexBackend(similarity="dot").add_documents(np.ones((2, 2)), ["a"])


# -- issue 11: exact top-k in blocks equals the full matrix ------------------------------------
@pytest.mark.parametrize("similarity", ["cosine", "dot", "euclidean"])
def test_blocked_exact_top_k_equals_full_matrix(similarity):
    rng = np.random.default_rng(0)
    q, x = rng.standard_normal((37, 16)).astype(np.float32), rng.standard_normal((101, 16)).astype(np.float32)
    full = similarity_matrix(similarity, q, x).numpy()
    want_pos = np.argsort(-full, axis=1, kind="stable")[:, :7]
    s, p = exact_top_k(q, x, 7, similarity=similarity, block_bytes=4 * 101 * 5)  # 5 query rows per block
    assert (p == want_pos).all()
    assert np.allclose(s, np.take_along_axis(full, want_pos, 1), atol=1e-5)
    # the pool given as two blocks (e.g. two shards) gives the same hits
    b = FaissIndexBackend(similarity=similarity, block_bytes=4 * 60 * 3)
    b.add_documents(x[:60], [f"c{i}" for i in range(60)])
    b.add_documents(x[60:], [f"c{i}" for i in range(60, 101)])
    s2, p2 = b.search_arrays(q, 7)
    assert (p2 == want_pos).all() and np.allclose(s2, s, atol=1e-5)


def test_k_larger_than_pool_returns_the_whole_pool():
    b = FaissIndexBackend(similarity="dot")
    b.add_documents(np.array([[1, 0], [2, 0]], np.float32), ["a", "b"])
    assert b.search(np.array([[1, 0]], np.float32), 10) == ([[2.0, 1.0]], [[1, 0]])


# -- issue 8: one more candidate when identical ids are ignored --------------------------------
def test_own_id_dropped_and_one_more_candidate_searched():
    """q0's own text is in the pool (id q0, score 1). top_k=2, relevant c2 is 3rd by score.

    By hand: scores for q0 = [q0: 1.0, c1: 0.8, c2: 0.6, c3: 0.0]. Dropping q0 after a top-2 search
    leaves [c1] (recall@2 = 0, one candidate); searching top-3 then dropping leaves [c1, c2]:
    recall@2 = 1, nDCG@2 = (1/log2(3)) / 1 = 0.63093.
    """
    from mteb._evaluators.retrieval_metrics import calculate_retrieval_scores

    table = {"q0": [1, 0], "c1": [0.8, 0.6], "c2": [0.6, 0.8], "c3": [0, 1]}
    model = TableEncoder(table, similarity="cosine")
    corpus = Dataset.from_list([{"id": t, "text": t} for t in table])
    queries = Dataset.from_list([{"id": "q0", "text": "q0"}])
    qrels = {"q0": {"c2": 1}}
    got = {}
    for ignore in (False, True):
        w = FaissSearchEncoderWrapper(model, ignore_identical_ids=ignore)
        w.index(corpus, task_metadata=_meta(), **KW)
        res = w.search(queries, task_metadata=_meta(), top_k=2, **KW)
        res = {q: {c: s for c, s in d.items() if c != q} for q, d in res.items()}  # mteb's evaluator rule
        got[ignore] = res
    assert list(got[False]["q0"]) == ["c1"]
    assert got[True]["q0"] == pytest.approx({"c1": 0.8, "c2": 0.6})
    scores = calculate_retrieval_scores(got[True], qrels, [2])
    assert scores.recall["Recall@2"] == pytest.approx(1.0) and scores.ndcg["NDCG@2"] == pytest.approx(
        1 / np.log2(3), abs=1e-5
    )
    assert calculate_retrieval_scores(got[False], qrels, [2]).recall["Recall@2"] == 0.0


def test_search_models_other_than_ours_get_one_more_candidate_too():
    class Fixed:
        mteb_model_meta = None

        def index(self, corpus, **kw):
            pass

        def search(self, queries, *, top_k, **kw):
            ranked = {"q0": 1.0, "c1": 0.8, "c2": 0.6, "c3": 0.1}
            return {"q0": dict(list(ranked.items())[:top_k])}

    wrapped = IdenticalIdsExcluded(Fixed())
    assert wrapped.search(None, top_k=2) == {"q0": {"c1": 0.8, "c2": 0.6}}
    model = TableEncoder({"a": [1, 0]})
    assert isinstance(search_model_for(model, ignore_identical_ids=True), FaissSearchEncoderWrapper)
    assert search_model_for(model, ignore_identical_ids=True).ignore_identical_ids


# -- one similarity per model -------------------------------------------------------------------
def test_checkpoint_and_metadata_disagree_one_similarity_everywhere():
    """mteb metadata says dot, the sentence-transformers checkpoint says cosine: cosine everywhere."""
    from conftest import bundled_minilm_path
    from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(bundled_minilm_path(), device="cpu", similarity_fn_name="cosine")
    wrapper = SentenceTransformerEncoderWrapper(st)
    wrapper.mteb_model_meta = wrapper.mteb_model_meta.model_copy(update={"similarity_fn_name": "dot"})
    assert model_similarity(wrapper) == "cosine"
    # the backend scores exactly as the model's own similarity (used by the triplet/verification protocols)
    x = np.array([[3, 4], [1, 0], [10, 10]], np.float32)
    q = np.array([[1, 0]], np.float32)
    b = FaissIndexBackend(wrapper)
    b.add_documents(x, ["a", "b", "c"])
    s, i = b.search(q, 3)
    own = torch.as_tensor(wrapper.similarity(q, x))[0].numpy()
    assert i == [[1, 2, 0]] and np.allclose(s[0], own[[1, 2, 0]], atol=1e-6)  # dot would rank c (20) first
    # checkpoint unset -> the metadata decides; neither -> cosine
    bare = TableEncoder({"a": [1, 0]}, similarity="dot")
    assert model_similarity(bare) == "dot"
    assert model_similarity(TableEncoder({"a": [1, 0]}, similarity=None)) == "cosine"


# -- the column-wise dataloaders equal mteb's -------------------------------------------------
def test_fast_dataloaders_give_mteb_batches():
    from mteb._create_dataloaders import create_dataloader
    from mteb.types import PromptType

    from mteb_contrastive.search.loaders import retrieval_dataloader

    corpus = Dataset.from_list(
        [
            {"id": "a", "title": "T", "text": " x "},
            {"id": "b", "title": "", "text": " y"},
            {"id": "c", "title": "U", "text": "z"},
        ]
    )
    queries = Dataset.from_list(
        [{"id": "q", "text": "find", "instruction": "now"}, {"id": "r", "text": "this", "instruction": "too"}]
    )
    for data, pt in ((corpus, PromptType.document), (queries, PromptType.query)):
        ours = list(retrieval_dataloader(data, task_metadata=_meta(), prompt_type=pt, batch_size=2))
        ref = list(create_dataloader(data, task_metadata=_meta(), prompt_type=pt, batch_size=2))
        assert [b["text"] for b in ours] == [b["text"] for b in ref]
        assert [b["id"] for b in ours] == [b["id"] for b in ref]
    assert [
        b["text"]
        for b in retrieval_dataloader(corpus, task_metadata=_meta(), prompt_type=PromptType.document, batch_size=2)
    ] == [["T  x", "y"], ["U z"]]  # mteb: (title + " " + text).strip()


def test_author_retrieval_task_scores_top_k_other_candidates():
    """Through mteb.evaluate on an author-retrieval task (ignore_identical_ids), pool of 101 texts.

    Query Q (author a) is also a candidate (X's positive). For Q: itself (cos 1), then N0..N98
    (author z, cos 0.98 .. 0.36), then P (author a, cos 0.1). Without the extra candidate mteb's
    top-100 is Q + 99 N; dropping Q leaves 99 and P is lost: Recall@100(Q) = 0. With it, P is
    Q's 100th other candidate: Recall@100(Q) = 1, MRR@100(Q) = 1/100. X (author a, same vector as Q,
    not in the pool) has relevant {Q, P}: Q first, P 101st: Recall@100(X) = 1/2, MRR(X) = 1.
    Means: Recall@100 = 0.75, MRR@100 = (0.01 + 1) / 2 = 0.505.
    """
    import mteb
    from test_author_retrieval import make_task, row

    angles = np.linspace(0.2, 1.2, 99)
    table = {
        "Q": [1, 0],
        "X": [1, 0],
        "P": [0.1, np.sqrt(1 - 0.01)],
        **{f"N{i}": [np.cos(a), np.sin(a)] for i, a in enumerate(angles)},
    }
    rows = [row("Q", "P", f"N{i}") for i in range(99)] + [row("X", "Q", "N0")]
    task = make_task("retrieval", rows, "PlusOneRetrieval")
    s = (
        mteb.evaluate(TableEncoder(table), task, cache=None, overwrite_strategy="always")
        .task_results[0]
        .scores["test"][0]
    )
    assert s["pool_size"] == 101
    assert s["recall_at_100"] == pytest.approx(0.75)
    assert s["mrr_at_100"] == pytest.approx(0.505)


@pytest.mark.parametrize(
    ("index", "kw"), [("hnsw", {"hnsw_m": 8, "ef_search": 1}), ("ivf", {"nlist": 64, "nprobe": 1})]
)
def test_approximate_parameters_come_from_a_measured_recall_target(index, kw):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((8, 32)).astype(np.float32)
    x = (rng.standard_normal((3000, 8)) @ a + 0.1 * rng.standard_normal((3000, 32))).astype(np.float32)
    q = (rng.standard_normal((300, 8)) @ a + 0.1 * rng.standard_normal((300, 32))).astype(np.float32)
    exact = FaissIndexBackend(similarity="cosine")
    exact.add_documents(x, [str(i) for i in range(3000)])
    _, truth = exact.search_arrays(q, 10)

    def recall(pos):
        return np.mean([len(set(p) & set(t)) / 10 for p, t in zip(pos.tolist(), truth.tolist())])

    fixed = FaissIndexBackend(similarity="cosine", index=index, target_recall=None, **kw)
    fixed.add_documents(x, [str(i) for i in range(3000)])
    low = recall(fixed.search_arrays(q, 10)[1])
    tuned = FaissIndexBackend(similarity="cosine", index=index, target_recall=0.99, calibration_queries=100, **kw)
    tuned.add_documents(x, [str(i) for i in range(3000)])
    high = recall(tuned.search_arrays(q, 10)[1])
    name = "efSearch" if index == "hnsw" else "nprobe"
    assert low < 0.99 and fixed.calibration == {}  # the configured setting alone misses the target
    assert (
        tuned.calibration["recall_at_10"] >= 0.99
        and tuned.calibration[name] > 1
        and tuned.calibration["sample_queries"] == 100
    )
    assert high >= 0.98  # measured on the sample, holds on all 300 queries up to sampling error


# -- issue 11: the grouped top-k equals torch.topk in values ------------------------------------
def test_grouped_top_k_keeps_every_top_value_even_when_they_share_a_group():
    """k=3, group=4, width 4*12 + 2 = 50: 12 interleaved groups (column j + 12 t is in group j).
    By hand: the three largest values 9, 8, 7 sit in columns 0, 12, 24
    (all group 0) and the fourth, 6.5, in the tail (column 49). Group 0's maximum is 9; the kept
    groups are group 0 and two others whose maxima are 1; candidates = those groups' 12 members + the
    2 tail columns; top 3 = 9, 8, 7 at columns 0, 12, 24. With the tail at 8.5 it enters second."""
    import torch

    from mteb_contrastive.search.exact import top_k_of_rows

    row = torch.zeros(1, 50)
    row[0, [0, 12, 24]] = torch.tensor([9.0, 8.0, 7.0])
    row[0, 49] = 6.5
    row[0, 5] = row[0, 7] = 1.0
    v, c = top_k_of_rows(row, 3, group=4)
    assert v.tolist() == [[9.0, 8.0, 7.0]] and c.tolist() == [[0, 12, 24]]
    row[0, 49] = 8.5
    v, c = top_k_of_rows(row, 3, group=4)
    assert v.tolist() == [[9.0, 8.5, 8.0]] and c.tolist() == [[0, 49, 12]]


def test_grouped_top_k_equals_a_full_sort_with_ties_and_a_tail():
    import torch

    from mteb_contrastive.search.exact import top_k_of_rows

    rng = np.random.default_rng(1)
    block = torch.from_numpy(rng.integers(0, 40, (64, 16 * 40 + 9)).astype(np.float32))  # many ties
    widths = []
    real_topk = torch.topk

    def spy(t, k, *a, **kw):
        widths.append(t.shape[1])
        return real_topk(t, k, *a, **kw)

    torch.topk = spy
    try:
        v, c = top_k_of_rows(block, 10, group=16)  # 40 groups of 16
    finally:
        torch.topk = real_topk
    assert widths[:2] == [40, 160]  # the 40 group maxima, then the 10 kept groups' 16 members each
    v2, _ = top_k_of_rows(block, 10)  # default group: min(16, 649 // 60) = 10 -> 64 groups
    assert (v2.numpy() == v.numpy()).all()
    want = -np.sort(-block.numpy(), axis=1)[:, :10]
    assert (v.numpy() == want).all()
    assert (np.take_along_axis(block.numpy(), c.numpy(), 1) == want).all()  # the columns hold those values
    assert all(len(set(r)) == 10 for r in c.tolist())  # no column twice


@settings(max_examples=30, deadline=None)
@given(rows=st.integers(1, 300), width=st.integers(1, 400), k=st.integers(1, 30), seed=st.integers(0, 2**16))
def test_top_k_by_row_slices_equals_the_whole_block(rows, width, k, seed):
    """Ranking a block by slices of rows (bounded temporaries) gives the same values as the whole
    block at once, and the columns hold those values; integer scores, so ties are frequent."""
    from mteb_contrastive.search import exact

    k = min(k, width)
    block = torch.from_numpy(np.random.default_rng(seed).integers(0, 25, (rows, width)).astype(np.float32))
    v, c = exact._top_k_by_slices(block, k)
    want = -np.sort(-block.numpy(), axis=1)[:, :k]
    assert v.shape == (rows, k) and (v.numpy() == want).all()
    assert (np.take_along_axis(block.numpy(), c.numpy(), 1) == want).all()
    assert all(len(set(r)) == k for r in c.tolist())


@pytest.mark.parametrize("similarity", ["cosine", "dot", "euclidean"])
def test_pool_split_in_column_chunks_equals_one_block(similarity):
    """A block bound too small for QUERY_ROWS query rows splits the pool in column chunks; same hits.

    By hand: 20 queries, 3,000 candidates, k=10, block 56,000 bytes: at most min(3000,
    max(128 * 10, 56000 // (4 * 20))) = 1,280 columns, so three chunks of equal width 1,000; rows =
    56000 // (4 * 1000) = 14 (two row blocks: 14 + 6)."""
    from mteb_contrastive.search.exact import block_shape

    assert block_shape(20, 3000, 10, 4 * 20 * 700) == (14, 1000)
    assert block_shape(20, 3000, 10) == (20, 3000)  # 64 MiB: everything in one block
    rng = np.random.default_rng(2)
    q, x = rng.standard_normal((20, 8)).astype(np.float32), rng.standard_normal((3000, 8)).astype(np.float32)
    one_s, one_p = exact_top_k(q, x, 10, similarity=similarity)
    s, p = exact_top_k(q, x, 10, similarity=similarity, block_bytes=4 * 20 * 700)
    assert (p == one_p).all() and np.allclose(s, one_s, atol=1e-5)
    full = similarity_matrix(similarity, q, x).numpy()
    assert (p == np.argsort(-full, axis=1, kind="stable")[:, :10]).all()


@settings(deadline=None, max_examples=200)
@given(
    n=st.integers(1, 50_000),
    m=st.integers(1, 2_000_000),
    k=st.integers(1, 2_000),
    block_bytes=st.integers(4, 2**28),
)
def test_block_shape_keeps_its_rules_on_generated_sizes(n, m, k, block_bytes):
    """At most QUERY_ROWS (and n) rows; within ``block_bytes`` unless one row is already wider; as few
    column chunks as the width cap allows, of equal width (they differ by less than their number)."""
    from mteb_contrastive.search.exact import QUERY_ROWS, block_shape

    rows, cols = block_shape(n, m, k, block_bytes)
    cap = min(m, max(128 * k, block_bytes // (4 * min(n, QUERY_ROWS))))
    chunks = -(-m // cols)
    assert 1 <= rows <= min(n, QUERY_ROWS) and 1 <= cols <= cap
    assert rows * cols * 4 <= block_bytes or rows == 1
    assert chunks == -(-m // cap)
    last = m - (chunks - 1) * cols
    assert 1 <= last <= cols and cols - last < chunks


def test_euclidean_query_equal_to_a_candidate_scores_zero_not_nan():
    """Queries identical to pool rows: distance ~0, never NaN (the squared distance is clamped at
    0, where float rounding makes |q|^2 - 2 q.x + |x|^2 slightly negative for some rows)."""
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((200, 32)) * 10).astype(np.float32)
    q = x.copy()  # every candidate once as a query: some residuals round below 0
    s, p = exact_top_k(q, x, 5, similarity="euclidean")
    assert np.isfinite(s).all()
    # distance 0 up to float32 rounding of |q|^2 ~ 3,200: |residual| <= ~4e-4, sqrt of it <= 0.02
    assert (p[:, 0] == np.arange(200)).all() and (np.abs(s[:, 0]) < 0.05).all()


@pytest.mark.parametrize("heaps", [True, False])
@settings(deadline=None, max_examples=40)
@given(
    n=st.integers(1, 12),
    m=st.integers(1, 60),
    d=st.integers(1, 5),
    k=st.integers(1, 70),
    rows_per_block=st.integers(1, 13),
    cols_frac=st.sampled_from([1.0, 0.5, 0.2]),
    seed=st.integers(0, 10_000),
)
def test_exact_top_k_equals_a_full_sort_on_integer_scores_full_of_ties(
    heaps, n, m, d, k, rows_per_block, cols_frac, seed
):
    """Both ways of keeping a block's k best (per-row heaps, grouped top-k), any block shape and
    column chunks: the k largest dot products exactly (small integers: exact in float32), at
    distinct columns that hold them."""
    from unittest import mock

    from mteb_contrastive.search import exact

    rng = np.random.default_rng(seed)
    q = rng.integers(-2, 3, (n, d)).astype(np.float32)
    x = rng.integers(-2, 3, (m, d)).astype(np.float32)
    full = q @ x.T
    want = -np.sort(-full, axis=1)[:, : min(k, m)]
    cols = max(1, int(m * cols_frac))
    with (
        mock.patch.object(exact, "HEAP_WIDTH_PER_K", 0 if heaps else 10**9),
        mock.patch.object(exact, "block_shape", lambda *a, **kw: (rows_per_block, cols)),
    ):
        s, p = exact.exact_top_k(q, x, k, similarity="dot")
    assert (s == want).all()
    assert (np.take_along_axis(full, p, 1) == want).all()
    assert all(len(set(r)) == len(r) for r in p.tolist())


@pytest.mark.parametrize("similarity", ["cosine", "euclidean"])
def test_heaps_and_grouped_top_k_give_the_same_search(similarity, monkeypatch):
    from mteb_contrastive.search import exact

    rng = np.random.default_rng(3)
    q, x = rng.standard_normal((40, 8)).astype(np.float32), rng.standard_normal((300, 8)).astype(np.float32)
    monkeypatch.setattr(exact, "HEAP_WIDTH_PER_K", 0)
    s1, p1 = exact.exact_top_k(q, x, 9, similarity=similarity, block_bytes=4 * 300 * 7)
    monkeypatch.setattr(exact, "HEAP_WIDTH_PER_K", 10**9)
    s2, p2 = exact.exact_top_k(q, x, 9, similarity=similarity, block_bytes=4 * 300 * 7)
    assert (p1 == p2).all() and (s1 == s2).all()  # the same block scores, no ties among random floats


def test_scores_that_overflow_float32_are_refused_not_ranked_at_random(monkeypatch):
    from mteb_contrastive.search import exact

    monkeypatch.setattr(exact, "HEAP_WIDTH_PER_K", 0)
    q = np.array([[1e20, 0.0]], np.float32)
    x = np.array([[-1e20, 0.0], [-3e19, 0.0]], np.float32)  # both dot products are -inf in float32
    with pytest.raises(EmbeddingError, match=r"dot scores overflow float32 \(-inf or NaN\) for queries 0-0"):
        exact.exact_top_k(q, x, 2, similarity="dot")
    s, p = exact.exact_top_k(q, np.array([[1.0, 0.0], [2.0, 0.0]], np.float32), 2, similarity="dot")
    assert p.tolist() == [[1, 0]] and s.tolist() == np.array([[2e20, 1e20]], np.float32).tolist()
