"""Trained rerankers: no random-head cross-encoder under a registered name; the QuoteR reranker trainer."""

from __future__ import annotations

import json

import pytest
from conftest import bundled_minilm_path


def test_ce_reranker_needs_an_explicit_trained_model(monkeypatch):
    from mteb_contrastive.models.rerank import registered_model_metas
    from mteb_contrastive.search.rerank import make_reranker

    monkeypatch.delenv("MTEB_CONTRASTIVE_CROSS_ENCODER", raising=False)
    with pytest.raises(
        ValueError, match="the ce reranker needs a trained cross-encoder: set MTEB_CONTRASTIVE_CROSS_ENCODER"
    ):
        make_reranker("ce")
    metas = {m.name: m for m in registered_model_metas()}
    ce = metas["rerank/bm25+ce@50"]
    assert ce.loader_kwargs["reranker_model"] is None and "-unset-" in ce.revision
    for load in (lambda: ce.loader("rerank/bm25+ce@50"), ce.load_model):  # load_model: as mteb calls it, with kwargs
        with pytest.raises(ValueError, match=r"rerank/bm25\+ce@50: the ce reranker needs a trained cross-encoder"):
            load()
    # li / bi keep their default (the bundled MiniLM's own embeddings, no random head involved)
    assert metas["rerank/bm25+li@50"].loader_kwargs["reranker_model"] == bundled_minilm_path()


def test_registered_ce_names_use_the_trained_model_path(monkeypatch, tmp_path):
    from mteb_contrastive.models.rerank import registered_model_metas

    monkeypatch.setenv("MTEB_CONTRASTIVE_CROSS_ENCODER", str(tmp_path / "my-reranker"))
    metas = {m.name: m for m in registered_model_metas()}
    assert metas["rerank/minilm+ce@10"].loader_kwargs["reranker_model"] == str(tmp_path / "my-reranker")


def test_bm25_negatives_exclude_the_gold_and_rank_by_bm25():
    from mteb_contrastive.training.cross_encoder import bm25_negatives

    pool = ["the cat sat on a mat", "dogs bark loudly", "cat food for a cat", "stock markets fell"]
    negs = bm25_negatives(["my cat"], ["cat food for a cat"], pool, 2)
    # BM25 (English stopwords): the gold scores best (cat x2), then the other "cat" text; the rest score 0
    assert negs[0][0] == "the cat sat on a mat"
    assert "cat food for a cat" not in negs[0] and len(negs[0]) == 2


def test_quoter_reranker_trains_on_the_train_split_only(tmp_path):
    from sentence_transformers import CrossEncoder

    from mteb_contrastive.data.quoter import read_quoter_file, split_by_proportions
    from mteb_contrastive.training.contrastive import ContrastiveConfig
    from mteb_contrastive.training.cross_encoder import train_quoter_reranker

    lines = [f"left words {i} about topic{i % 4}\tquote number {i} on topic{i % 4}\tright {i}" for i in range(20)]
    f = tmp_path / "toy.txt"
    f.write_text("\n".join(lines) + "\n")
    out = tmp_path / "rr"
    s = train_quoter_reranker(
        f,
        out,
        ContrastiveConfig(
            base_model=bundled_minilm_path(), context_length=32, batch_size=8, epochs=1, max_steps=2, logging_steps=1
        ),
        n_negatives=2,
        show_progress=False,
    )
    train = split_by_proportions(read_quoter_file(f))["train"]
    assert s["n_train_queries"] == len(train) == 16
    assert s["n_pairs"] == 16 * 3 and s["candidate_pool"] == 16 and s["global_step"] == 2
    cfg = json.loads((out / "training_config.json").read_text())
    assert cfg["recipe"].startswith("QuoteR reranker")
    assert (
        len(CrossEncoder(str(out)).predict([("left words 1 about topic1 [MASK] right 1", "quote number 1 on topic1")]))
        == 1
    )
