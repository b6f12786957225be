"""Two-stage retrieval: the top-k set is kept, only its order changes; late interaction; full-pool ranks."""

from pathlib import Path

import mteb
import numpy as np
import pytest

from mteb_contrastive.metrics.ranking import rank_of
from mteb_contrastive.search.rerank import (
    BiEncoderReranker,
    LateInteractionReranker,
    TwoStageSearch,
    bundled_minilm,
    first_stage_topk,
    make_reranker,
    maxsim,
    rerank_results,
)

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


class ReverseReranker:
    """Scores the candidates in reverse of their text order (a reranker that disagrees with the first stage)."""

    kind = "reverse"

    def score(self, queries, docs):
        return [np.asarray([-i for i in range(len(ds))], dtype=float)[::-1] for ds in docs]


def test_rerank_results_keeps_the_top_k_set_and_puts_the_tail_below():
    first = {"q": {"a": 0.9, "b": 0.8, "c": 0.8, "d": 0.5, "e": 0.1}}
    final, head = rerank_results(first, {"q": "query"}, str, ReverseReranker(), k=3)
    assert set(head["q"]) == {"a", "b", "c"}  # ties at 0.8 cut by id: b before c
    order = sorted(final["q"], key=lambda c: -final["q"][c])
    assert order == ["c", "b", "a", "d", "e"]  # head reversed, tail in first-stage order below it
    assert min(final["q"][c] for c in "abc") > max(final["q"][c] for c in "de")
    final2, _ = rerank_results(first, {"q": "query"}, str, ReverseReranker(), k=3, top_k=4)
    assert set(final2["q"]) == {"a", "b", "c", "d"}


@pytest.fixture(scope="module")
def li():
    return LateInteractionReranker(bundled_minilm())


def test_late_interaction_identical_texts_score_the_maximum(li):
    texts = ["The quick brown fox jumps over the lazy dog.", "Rain is expected in the northern hills tonight."]
    tok = li.token_embeddings(texts)
    assert maxsim(tok[0], tok[0]) == pytest.approx(1.0, abs=1e-5)  # cosine <= 1, so 1 is the maximum
    assert maxsim(tok[1], tok[1]) == pytest.approx(1.0, abs=1e-5)
    assert maxsim(tok[0], tok[1]) < 0.99
    s = li.score([texts[0]], [[texts[1], texts[0], "the earth"]])[0]
    assert s[1] == pytest.approx(1.0, abs=1e-5) and s[1] == s.max() and s[0] < s[1] and s[2] < s[1]


def _small():
    """A synthetic English retrieval split (40 short candidates, 8 queries) with the QuoteR task's metadata."""
    from datasets import Dataset

    colours, animals, places = (
        ["red", "green", "blue", "black", "white"],
        ["fox", "horse", "owl", "whale"],
        ["river", "hill"],
    )
    docs = [f"the {c} {a} sleeps by the {p}" for c in colours for a in animals for p in places]
    corpus = Dataset.from_list([{"id": f"c{i}", "text": t} for i, t in enumerate(docs)])
    qs = [
        "a red fox near water",
        "the white owl on a hill",
        "blue whale",
        "black horse sleeping by the river",
        "green animals",
        "an owl by the river",
        "red horse hill",
        "white fox",
    ]
    queries = Dataset.from_list([{"id": f"q{i}", "text": t} for i, t in enumerate(qs)])
    gold = {f"q{i}": f"c{(7 * i + 3) % len(docs)}" for i in range(len(qs))}
    return mteb.get_task("QuoteRKJVNovelsEnglishRetrieval"), corpus, queries, gold


def _run(model, task, corpus, queries, top_k=100):
    kw = dict(
        task_metadata=task.metadata,
        hf_split="test",
        hf_subset="default",
        encode_kwargs={"batch_size": 32, "show_progress_bar": False},
    )
    model.index(corpus, **kw)
    return model.search(queries, top_k=top_k, **kw)


def _faiss(name):
    from mteb_contrastive.search.faiss_backend import FaissSearchEncoderWrapper

    return FaissSearchEncoderWrapper(mteb.get_model(name))


class Recording:
    """A first stage that records what it returned (to compare with the reranked lists)."""

    def __init__(self, search_model):
        self.m, self.mteb_model_meta, self.last = search_model, search_model.mteb_model_meta, None

    def index(self, corpus, **kw):
        self.m.index(corpus, **kw)

    def search(self, queries, **kw):
        self.last = self.m.search(queries, **kw)
        return {q: dict(v) for q, v in self.last.items()}


@pytest.mark.parametrize("first_name", ["mteb/baseline-bm25s", "sentence-transformers/all-MiniLM-L6-v2"])
def test_two_stage_keeps_first_stage_top_k_set(first_name, li):
    task, corpus, queries, _ = _small()
    for k in (3, 10):
        rec = Recording(mteb.get_model(first_name) if "bm25" in first_name else _faiss(first_name))
        two = TwoStageSearch(rec, li, k=k)
        final = _run(two, task, corpus, queries, top_k=20)
        first = rec.last
        changed = 0
        for q in first:
            top_first = [c for c, _ in first_stage_topk(first[q], k)]
            top_final = sorted(final[q], key=lambda c: -final[q][c])[:k]
            assert set(top_final) == set(top_first)
            changed += top_final != top_first
            # below the k: the rest of the first stage's list, in its order
            rest = sorted(final[q], key=lambda c: -final[q][c])[k:]
            assert set(rest) == set(first[q]) - set(top_first)
            assert [first[q][c] for c in rest] == sorted((first[q][c] for c in rest), reverse=True)
        assert changed > 0  # the reranker did reorder some queries
        assert two.last_timings["rerank_pairs"] == sum(min(k, len(first[q])) for q in first)


def test_full_pool_gold_ranks_agree_with_complete_rankings():
    from mteb_contrastive.search.full_rank import BM25GoldRanks, GoldRankingFaissWrapper, with_gold_ranks

    task, corpus, queries, gold = _small()
    for name, cls in (
        ("mteb/baseline-bm25s", BM25GoldRanks),
        ("sentence-transformers/all-MiniLM-L6-v2", GoldRankingFaissWrapper),
    ):
        m = with_gold_ranks(mteb.get_model(name), gold)
        assert isinstance(m, cls)
        res = _run(m, task, corpus, queries, top_k=100)  # more than the pool: every candidate is returned
        assert set(m.gold_ranks) == set(gold)
        exact = 0
        for q, g in gold.items():
            if g not in res[q]:  # BM25 returns only candidates sharing a term; the rest score 0
                assert cls is BM25GoldRanks
                continue
            r = rank_of(res[q][g], res[q].values())
            assert abs(m.gold_ranks[q] - r) <= (0 if cls is BM25GoldRanks else 1)  # FAISS vs numpy float rounding
            exact += m.gold_ranks[q] == r
        assert exact >= len(gold) - 1


def test_two_stage_gold_ranks():
    task, corpus, queries, gold = _small()
    two = TwoStageSearch(mteb.get_model("mteb/baseline-bm25s"), ReverseReranker(), k=3)
    two.set_gold(gold)
    final = _run(two, task, corpus, queries, top_k=100)
    for q, g in gold.items():
        if g in final[q]:
            assert two.gold_ranks[q] == rank_of(final[q][g], final[q].values())
        else:
            assert two.gold_ranks[q] > len(final[q])


def test_bi_encoder_and_cross_encoder_rerankers_score_pairs():
    bi = BiEncoderReranker(bundled_minilm())
    s = bi.score(["a cat sat on the mat"], [["a cat sat on the mat", "stock markets fell today"]])[0]
    assert s[0] == pytest.approx(1.0, abs=1e-5) and s[1] < 0.5
    ce = make_reranker("ce", bundled_minilm())  # explicit: bundled MiniLM with an untrained, seeded head
    a = ce.score(["q1", "q2"], [["d1", "d2", "d3"], ["d4"]])
    b = make_reranker("ce", bundled_minilm()).score(["q1", "q2"], [["d1", "d2", "d3"], ["d4"]])
    assert [len(x) for x in a] == [3, 1]
    assert np.allclose(np.concatenate(a), np.concatenate(b))  # the seed makes the untrained head reproducible


def test_fitted_baseline_reranking_scores_the_allowed_candidates():
    """tfidf-words in reranking mode (mteb's ``top_ranked``): the query's candidates are scored,
    not cut from a global top-k."""
    from datasets import Dataset

    from mteb_contrastive.baselines.sparse import TfidfBaseline

    docs = {"d1": "apple", "d2": "apple banana", "d3": "apple banana cherry", "d4": "date", "d5": "apple cherry"}
    corpus = Dataset.from_list([{"id": k, "text": v} for k, v in docs.items()])
    queries = Dataset.from_list([{"id": "q", "text": "apple banana"}])
    m = TfidfBaseline(kind="words")
    m.index(corpus)
    res = m.search(queries, top_k=2, top_ranked={"q": ["d4", "d5"]})
    # smooth idf over 5 docs: apple ln(6/5) + 1, banana = cherry ln(6/3) + 1; d5 shares apple only
    ia, ib = np.log(6 / 5) + 1, np.log(2) + 1
    assert res["q"]["d5"] == pytest.approx(ia**2 / (ia**2 + ib**2), abs=1e-12)
    assert (
        res["q"]["d5"] == pytest.approx(0.32779, abs=5e-6) and res["q"]["d4"] == 0.0 and list(res["q"]) == ["d5", "d4"]
    )
    # top_k still applies to the allowed candidates; without top_ranked the global top-k is d2, d3
    assert list(m.search(queries, top_k=1, top_ranked={"q": ["d4", "d5"]})["q"]) == ["d5"]
    assert list(m.search(queries, top_k=2)["q"]) == ["d2", "d3"]
    assert m.search(queries, top_k=2, top_ranked={"other": ["d1"]})["q"] == {}


def test_cross_encoder_ranks_on_raw_logits_not_a_float32_sigmoid():
    import torch

    ce = make_reranker(
        "ce", bundled_minilm()
    )  # bundled MiniLM with an untrained, seeded head (explicit: no default for ce)
    docs = ["the cat sat on the mat", "stock markets fell today", "a dog in the park"]
    base = ce.score(["cats"], [docs])[0]
    head = ce.model[0].model.classifier
    with torch.no_grad():  # logits 30 * base + 29.0: about 29.6 .. 29.9, as a trained cross-encoder can give
        head.weight.mul_(30.0)
        head.bias.mul_(30.0).add_(29.0)
    logits = ce.score(["cats"], [docs])[0]
    np.testing.assert_allclose(logits, 30 * base + 29.0, rtol=1e-5)
    assert logits.min() > 29 and len(set(logits.round(4))) == 3
    # the old path: the model's default sigmoid in float32 saturates, every candidate 1.0 (a three-way tie)
    assert ce.model.predict([("cats", d) for d in docs]).tolist() == [1.0, 1.0, 1.0]
    # ranking on logits keeps the reranker's order; the probability is available beside them
    final, _ = rerank_results(
        {"q": {f"d{i}": 1.0 - i for i in range(3)}}, {"q": "cats"}, lambda c: docs[int(c[1])], ce, k=3
    )
    assert sorted(final["q"], key=lambda c: -final["q"][c]) == [f"d{i}" for i in np.argsort(-logits)]
    assert np.all(ce.probabilities(logits) < 1.0)
