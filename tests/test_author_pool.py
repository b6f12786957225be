"""Author pool details: NFC author identity, and the search depth when the query's own text is dropped."""

from __future__ import annotations

import math
import unicodedata

import mteb
import pytest
from conftest import TableEncoder
from test_author_retrieval import make_task, row

from mteb_contrastive.protocols.author_retrieval import build_pool, build_pool_from_pairs


def test_nfc_and_nfd_author_names_are_one_author():
    nfc, nfd = unicodedata.normalize("NFC", "José Müller"), unicodedata.normalize("NFD", "José Müller")
    assert nfc != nfd
    data, _ = build_pool([row("Q", "P1", "N1", qa=(nfc,), pa=(nfd,), na=("Other",))])
    assert data["qrels"]["q0"] == {"c0": 1}  # P1 (written in NFD) is by the query's author
    pairs = [
        {
            "query_halid": "d1",
            "query_text": "Q",
            "query_authors": [nfc, "B"],
            "key_halid": "d2",
            "key_text": "K",
            "key_authors": [nfd],
            "author_label": 1,
        },
    ]
    for cfg in ("base-2", "base-soft-2"):
        assert build_pool_from_pairs(pairs, cfg)[0]["qrels"]["q0"] == {"c0": 1}


def test_query_own_text_dropped_and_one_more_searched():
    """Query Q is also a candidate (its own text, cosine 1); 99 irrelevant candidates follow, then the
    relevant P at search rank 101. Dropping Q leaves P at rank 100: Recall@100 = HitRate@100 = 1 for Q
    only when 101 hits are searched (with 100: 99 hits, P missing, 0)."""
    rows = [row("Q", "P", f"N{i}", na=("z",)) for i in range(99)]
    rows.append(row("R", "RP", "Q", qa=("r",), pa=("r",), na=("a",)))  # makes Q a candidate
    table = {"Q": [1, 0], "P": [math.cos(math.radians(89)), math.sin(math.radians(89))], "R": [0, 1], "RP": [0, 1]}
    for i in range(99):  # angles 20..79 deg from Q: all closer to Q than P (89 deg)
        a = math.radians(20 + 0.6 * i)
        table[f"N{i}"] = [math.cos(a), math.sin(a)]
    task = make_task("retrieval", rows, "DepthRetrieval")
    s = (
        mteb.evaluate(TableEncoder(table), task, cache=None, overwrite_strategy="always")
        .task_results[0]
        .scores["test"][0]
    )
    assert s["pool_size"] == 102 and s["pool_texts_identical_to_a_query"] == 1
    assert task._top_k == 101
    # Q: P at rank 100 after dropping itself; R: RP at rank 1
    assert s["recall_at_100"] == 1.0 and s["hit_rate_at_100"] == 1.0
    assert s["recall_at_10"] == 0.5
    # random ranking: Q ranks 101 candidates (its own text excluded) with 1 relevant -> 100/101; R 102 with 1 -> 100/102
    assert s["random_hit_rate_at_100"] == pytest.approx((100 / 101 + 100 / 102) / 2)
