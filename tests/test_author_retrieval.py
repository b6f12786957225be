"""Author retrieval: pool and qrels construction, metric values by hand, random-ranking baseline."""

from __future__ import annotations

import mteb
import numpy as np
import pytest
from conftest import TableEncoder, task_metadata

from mteb_contrastive.protocols.author_retrieval import AbsTaskAuthorRetrieval, build_pool
from mteb_contrastive.protocols.triplet_classification import AbsTaskTripletClassification


def row(q, p, n, qa=("a",), pa=("a",), na=("z",), qh="h1", ph="h2"):
    return {
        "query": q,
        "positive": p,
        "negative": n,
        "query_halid": qh,
        "pos_halid": ph,
        "neg_halids": "h9",
        "query_authorids": list(qa),
        "pos_authorids": list(pa),
        "neg_authorids": list(na),
    }


def make_task(kind, rows, name):
    base = AbsTaskAuthorRetrieval if kind == "retrieval" else AbsTaskTripletClassification
    meta = task_metadata(
        name,
        task_type="Retrieval" if kind == "retrieval" else "PairClassification",
        main_score="ndcg_at_10" if kind == "retrieval" else "accuracy",
        path="local",
    )
    cls = type(name, (base,), {"metadata": meta, "load_triplets": lambda self, s, sp: (rows, {})})
    return cls()


def scores(model, task):
    return mteb.evaluate(model, task, cache=None, overwrite_strategy="always").task_results[0].scores["test"][0]


def test_build_pool_dedup_and_multi_positive_qrels():
    rows = [row("Q", "P1", "N1"), row("Q", "P2", "N1"), row("R", "N1", "P1", qa=("z",), pa=("z",), na=("a",))]
    data, stats = build_pool(rows)
    assert [q["text"] for q in data["queries"]] == ["Q", "R"]
    assert [c["text"] for c in data["corpus"]] == ["P1", "N1", "P2"]
    ids = {c["text"]: c["id"] for c in data["corpus"]}
    assert data["qrels"]["q0"] == {ids["P1"]: 1, ids["P2"]: 1}  # same author set {a}
    assert data["qrels"]["q1"] == {ids["N1"]: 1}  # author set {z}
    assert stats == {
        "n_triplets": 3,
        "n_queries": 2,
        "pool_size": 3,
        "pool_candidates_raw": 6,
        "pool_duplicates_removed": 3,
        "pool_texts_identical_to_a_query": 0,
        "queries_without_relevant": 0,
    }


def test_author_set_must_be_equal_not_overlapping():
    rows = [row("Q", "P1", "N1", qa=("a", "b"), pa=("a", "b"), na=("a",))]  # N1 shares author a only
    data, _ = build_pool(rows)
    assert data["qrels"]["q0"] == {"c0": 1}


def test_candidate_identical_to_query_is_the_query_itself():
    rows = [row("Q", "P1", "N1"), row("P1", "Q", "N1")]  # each anchor text is also a candidate
    data, stats = build_pool(rows)
    assert {c["text"]: c["id"] for c in data["corpus"]} == {"P1": "q1", "N1": "c1", "Q": "q0"}
    assert data["qrels"] == {"q0": {"q1": 1}, "q1": {"q0": 1}}
    assert stats["pool_texts_identical_to_a_query"] == 2


def test_ndcg_recall_mrr_by_hand():
    # query [1,0]; P1 cos .994 (relevant), N1 cos .8, P2 cos 0 (relevant)
    enc = TableEncoder({"Q": [1, 0], "P1": [0.9, 0.1], "N1": [0.8, 0.6], "P2": [0, 1]})
    s = scores(enc, make_task("retrieval", [row("Q", "P1", "N1"), row("Q", "P2", "N1")], "HandRetrieval"))
    # DCG@10 = 1/log2(2) + 1/log2(4) = 1.5; IDCG = 1 + 1/log2(3) = 1.6309 -> 0.91972
    assert s["ndcg_at_10"] == pytest.approx(1.5 / (1 + 1 / np.log2(3)), abs=1e-4)
    assert s["recall_at_1"] == pytest.approx(0.5) and s["recall_at_10"] == pytest.approx(1.0)
    # hit rate vs recall: P1 (1 of the 2 relevant) is at rank 1 -> hit rate@1 = 1, recall@1 = 1/2
    assert s["hit_rate_at_1"] == 1.0 and s["hit_rate_at_10"] == 1.0
    assert s["mrr_at_100"] == pytest.approx(1.0)
    assert s["pool_size"] == 3 and s["pool_duplicates_removed"] == 1 and s["main_score"] == s["ndcg_at_10"]


def test_random_ranking_scores_about_10_over_pool():
    # 40 authors x 10 candidates (pool 400); 200 queries with exactly 10 relevant each:
    # a random ranking has E[Recall@10] = E[nDCG@10] = 10/400 = 0.025
    rows = []
    for a in range(40):
        for j in range(5):
            for m in (2 * j, 2 * j + 1):
                rows.append(
                    row(
                        f"q{a}-{j}",
                        f"p{a}-{m}",
                        f"p{(a + 1) % 40}-{m}",
                        qa=(f"A{a}",),
                        pa=(f"A{a}",),
                        na=(f"A{(a + 1) % 40}",),
                    )
                )
    s = scores(TableEncoder(dim=64, seed=3), make_task("retrieval", rows, "RandomRetrieval"))
    assert s["pool_size"] == 400 and s["n_queries"] == 200
    assert s["recall_at_10"] == pytest.approx(0.025, abs=0.012)
    assert s["ndcg_at_10"] == pytest.approx(0.025, abs=0.012)
    # the exact chance levels reported beside them: N = 400, R = 10 -> recall = nDCG = 10/400,
    # hit rate = 1 - C(390, 10) / C(400, 10)
    from math import comb

    assert s["random_recall_at_10"] == pytest.approx(0.025) and s["random_ndcg_at_10"] == pytest.approx(0.025)
    assert s["random_hit_rate_at_10"] == pytest.approx(1 - comb(390, 10) / comb(400, 10))


def test_triplet_all_rows_vs_cross_document():
    rows = [
        row("Q1", "P1", "N1", qh="d1", ph="d2"),  # cross-document, correct
        row("Q2", "P2", "N2", qh="d3", ph="d3"),  # positive from the anchor's document, correct
        row("Q3", "P3", "N3", qh="d4", ph="d5"),  # cross-document, wrong
    ]
    enc = TableEncoder(
        {
            "Q1": [1, 0],
            "P1": [1, 0],
            "N1": [0, 1],
            "Q2": [1, 0],
            "P2": [1, 0],
            "N2": [0, 1],
            "Q3": [1, 0],
            "P3": [0, 1],
            "N3": [1, 0],
        }
    )
    s = scores(enc, make_task("triplets", rows, "HandTriplets"))
    assert s["accuracy_cross_document"] == 0.5 and s["n_triplets_cross_document"] == 2
    assert s["accuracy"] == pytest.approx(2 / 3) and s["main_score"] == pytest.approx(2 / 3) and s["n_triplets"] == 3
    assert "accuracy_unrestricted" not in s and "n_triplets_base" not in s
