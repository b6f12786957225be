"""Training: the author-pair sampler, span rotation, the InfoNCE loss, a few real steps, resume, save/load,
bad input."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from pathlib import Path

import pytest
from conftest import bundled_minilm_path, run

from mteb_contrastive.training.data import (
    TrainingDataError,
    eligible_authors,
    rotate_span,
    split_documents_by_author,
    validation_pairs,
)
from mteb_contrastive.training.sampler import AuthorPairBatchSampler


def _docs_dataset(counts: dict[str, int]):
    from datasets import Dataset

    authors = [a for a, n in counts.items() for _ in range(n)]
    return Dataset.from_dict({"text": [f"{a} doc {i}" for i, a in enumerate(authors)], "author": authors})


# ------------------------------------------------------------------------------------ sampler


def test_sampler_two_documents_per_author_no_author_twice():
    counts = {"a": 2, "b": 3, "c": 5, "d": 2, "e": 1, "f": 4, "g": 2, "h": 1}  # e, h: one document
    ds = _docs_dataset(counts)
    authors = ds["author"]
    s = AuthorPairBatchSampler(ds, batch_size=4, drop_last=False, seed=3, passes=2)
    assert s.n_skipped_authors == 2
    # 6 eligible authors, 2 per batch -> 3 batches per pass, 2 passes
    assert len(s) == 6
    seen_per_pass: list[Counter] = [Counter(), Counter()]
    batches = list(s)
    assert len(batches) == 6
    for bi, batch in enumerate(batches):
        assert len(batch) == 4
        pair_authors = [authors[i] for i in batch]
        assert pair_authors[0::2] == pair_authors[1::2]  # (doc, doc') of one author, side by side
        assert len(set(pair_authors[0::2])) == 2  # no author twice in a batch
        assert all(batch[k] != batch[k + 1] for k in (0, 2))  # never a text paired with itself
        assert not {"e", "h"} & set(pair_authors)
        seen_per_pass[bi // 3].update(pair_authors[0::2])
    for c in seen_per_pass:  # every eligible author exactly once per pass
        assert c == Counter({a: 1 for a, n in counts.items() if n >= 2})
    assert list(s) == batches  # deterministic for one epoch
    s.set_epoch(1)
    assert list(s) != batches  # a new draw each epoch


def test_sampler_last_batch_kept_only_with_two_authors():
    ds = _docs_dataset({a: 2 for a in "abcde"})  # 5 authors, 2 per batch -> 2 full + 1 with a single author
    s = AuthorPairBatchSampler(ds, batch_size=4, drop_last=False)
    assert len(s) == 2 and all(len(b) == 4 for b in s)
    ds = _docs_dataset({a: 2 for a in "abcdefg"})  # 7 authors, 3 per batch -> 2 full + one of 1 author (dropped)
    s = AuthorPairBatchSampler(ds, batch_size=6, drop_last=False)
    assert [len(b) for b in s] == [6, 6]


def test_sampler_batch_larger_than_twice_eligible_authors():
    ds = _docs_dataset({"a": 2, "b": 2, "c": 1})
    with pytest.raises(
        TrainingDataError, match=r"--batch-size: 6 texts need 3 distinct authors per batch but only 2 authors"
    ):
        AuthorPairBatchSampler(ds, batch_size=6, drop_last=False)
    with pytest.raises(TrainingDataError, match="even number"):
        AuthorPairBatchSampler(ds, batch_size=3, drop_last=False)


def test_single_document_authors_skipped_and_counted():
    docs = [{"id": str(i), "author": a, "text": "x y"} for i, a in enumerate(["a", "a", "b", "c", "c", "c", "d"])]
    keep, skipped = eligible_authors(docs)
    assert keep == {"a": [0, 1], "c": [3, 4, 5]} and skipped == 2


# ------------------------------------------------------------------------------------ rotation


def test_rotation_preserves_the_multiset_of_words_and_wraps_around():
    text = "the cat sat on the mat and then the dog came"
    words = text.split()
    rng = random.Random(0)
    starts = set()
    for _ in range(50):
        r = rotate_span(text, rng).split()
        assert Counter(r) == Counter(words)
        k = next(k for k in range(len(words)) if words[k:] + words[:k] == r)
        starts.add(k)
    assert len(starts) > 5  # the start varies
    assert rotate_span(text, rng, rotate=False) == text
    assert rotate_span("a  b\nc d", random.Random(1), max_words=2, rotate=False) == "a b"
    cut = rotate_span(text, random.Random(2), max_words=4).split()
    assert len(cut) == 4 and " ".join(cut) in " ".join(words + words)


def test_rotation_of_text_without_spaces_rotates_words_and_inserts_nothing():
    text = "我喜欢吃苹果。你呢？他不喜欢苹果。"
    rng = random.Random(0)
    outs = {rotate_span(text, rng) for _ in range(40)}
    assert all(sorted(o) == sorted(text) for o in outs)  # the same characters, no separator added
    assert all(o in text + text for o in outs) and len(outs) > 5  # a rotation at varying word starts
    assert "吃苹果。你呢？他不喜欢苹果。我喜欢" in outs  # a start at a jieba word (吃), not inside 苹果
    assert all("苹" not in o[-1:] and not o.startswith("果") for o in outs)  # never inside a word
    # the cut counts words (jieba words and punctuation): 我 | 喜欢 | 吃
    assert rotate_span(text, random.Random(0), max_words=3, rotate=False) == "我喜欢吃"


# ------------------------------------------------------------------------------------ loss


@pytest.fixture(scope="module")
def minilm():
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(bundled_minilm_path(), device="cpu")


def test_perfect_encoder_loss_is_near_zero_and_a_duplicate_author_costs_ln3(minilm):
    import torch

    from mteb_contrastive.training.contrastive import ContrastiveConfig, build_loss

    loss = build_loss(minilm, ContrastiveConfig(base_model="x", temperature=0.01))
    assert loss.scale == pytest.approx(100.0)
    eye = torch.eye(4)
    # 4 authors, orthogonal styles, both texts of an author embedded alike: a perfect encoder
    assert float(loss.compute_loss_from_embeddings([eye, eye.clone()], None)) < 1e-6
    # author 0 twice in the batch (rows 0 and 1): for those rows the candidates hold the positive, the
    # duplicate's positive and the duplicate anchor, all at cosine 1 -> ln 3 each; mean over 4 rows
    dup = eye.clone()
    dup[1] = dup[0]
    got = float(loss.compute_loss_from_embeddings([dup, dup.clone()], None))
    assert got == pytest.approx(2 * math.log(3) / 4, rel=1e-5)
    # the plain one-direction InfoNCE (sentence-transformers' default) has the ln 2 floor per duplicate row
    plain = build_loss(minilm, ContrastiveConfig(base_model="x", directions=("query_to_doc",)))
    assert float(plain.compute_loss_from_embeddings([dup, dup.clone()], None)) == pytest.approx(
        2 * math.log(2) / 4, rel=1e-5
    )


# ------------------------------------------------------------------------------------ real steps


def _pan14_sample(shared: Path, n_authors: int, offset: int = 0) -> list[dict]:
    """Authors of the PAN14 Spanish articles (5 docs each), two docs each: a tiny real sample."""
    from mteb_contrastive.data.documents import load_documents

    docs = [d for d in load_documents("pan14", shared / "pan" / "pan14_known.jsonl.gz") if d["author"].startswith("SP")]
    by: dict[str, list] = {}
    for d in docs:
        by.setdefault(d["author"], []).append(d)
    authors = sorted(by)[offset : offset + n_authors]
    return [d for a in authors for d in by[a][:2]]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """One epoch of 3 steps on 3 real authors (rotation off: the same batch each step), then a resumed second epoch."""
    from conftest import SHARED

    from mteb_contrastive.training.contrastive import ContrastiveConfig, train_contrastive

    train = _pan14_sample(SHARED, 3)
    val = validation_pairs(_pan14_sample(SHARED, 3, offset=10), max_words=24, pairs_per_author=1, seed=0)
    out = tmp_path_factory.mktemp("train") / "model"
    cfg = dict(
        base_model=bundled_minilm_path(),
        context_length=32,
        batch_size=6,
        learning_rate=1e-4,
        warmup_ratio=0.0,
        rotate=False,
        passes=3,
        logging_steps=1,
    )
    first = train_contrastive(train, val, out, ContrastiveConfig(epochs=1, **cfg), show_progress=False)
    log1 = [json.loads(x) for x in (out / "training_log.jsonl").read_text().splitlines()]
    second = train_contrastive(train, val, out, ContrastiveConfig(epochs=2, **cfg), resume=True, show_progress=False)
    log2 = [json.loads(x) for x in (out / "training_log.jsonl").read_text().splitlines()]
    return {"out": out, "first": first, "second": second, "log1": log1, "log2": log2, "val": val}


def test_a_few_steps_on_real_text_lower_the_loss(trained):
    losses = [r["loss"] for r in trained["log1"] if "loss" in r]
    assert len(losses) == 3
    assert losses[-1] < losses[0]


def test_validation_every_epoch_and_calibration_saved(trained):
    evals = [r for r in trained["log2"] if "eval_validation_overall" in r]
    assert [r["epoch"] for r in evals] == [1.0, 2.0]
    cal = json.loads((trained["out"] / "verification_calibration.json").read_text())
    assert cal["n_validation_pairs"] == len(trained["val"])
    assert {
        "threshold",
        "platt_coef",
        "platt_intercept",
        "abstain_delta",
        "validation_auc",
        "validation_overall",
    } <= set(cal)
    assert trained["second"]["best_validation_overall"] == pytest.approx(
        max(r["eval_validation_overall"] for r in evals)
    )


def test_resume_continues_from_the_saved_step(trained):
    assert trained["first"]["global_step"] == 3
    assert trained["second"]["resumed_from"].endswith("checkpoint-3")
    assert trained["second"]["global_step"] == 6
    steps = [r["step"] for r in trained["log2"] if "loss" in r]
    assert steps == [1, 2, 3, 4, 5, 6]  # steps 1-3 from the first run, 4-6 after the resume


def test_saved_model_loads_and_runs_in_mteb_in_a_fresh_process(trained, tmp_path):
    from sentence_transformers import SentenceTransformer

    from mteb_contrastive.data.verification_builder import build_verification_dataset

    m = SentenceTransformer(str(trained["out"]), device="cpu")
    assert m.max_seq_length == 32
    assert m.encode(["a b c"]).shape == (1, 384)
    docs = [
        {"id": f"{a}{i}", "author": a, "text": " ".join(f"{a}{j % 5}" for j in range(40 + i))}
        for a in "abcdefgh"
        for i in range(2)
    ]
    build_verification_dataset(
        docs, tmp_path / "v", "TinyTrain", chunk_words=20, pairs_per_author=1, split_ratios=(0.0, 0.5, 0.5)
    )
    res = run(
        [
            "mteb",
            "run",
            "-m",
            str(trained["out"]),
            "-t",
            "TinyTrainVerification",
            "--output-folder",
            str(tmp_path / "r"),
            "--overwrite-strategy",
            "always",
        ],
        {"MTEB_CONTRASTIVE_VERIFICATION": str(tmp_path / "v")},
    )
    assert res.returncode == 0, res.stderr[-2000:]
    files = list((tmp_path / "r").rglob("TinyTrainVerification.json"))
    assert len(files) == 1
    s = json.loads(files[0].read_text())["scores"]["test"][0]
    assert 0 <= s["pan_platt_abstain_auc"] <= 1 and s["n_pairs"] > 0


# ------------------------------------------------------------------------------------ bad input


def test_validation_split_empty_or_one_class_and_context_too_long(tmp_path):
    from mteb_contrastive.training.contrastive import ContrastiveConfig, train_contrastive

    docs = [{"id": f"{a}{i}", "author": a, "text": "w " * 10} for a in "abc" for i in range(2)]
    cfg = ContrastiveConfig(base_model=bundled_minilm_path(), batch_size=4)
    with pytest.raises(TrainingDataError, match="validation empty"):
        train_contrastive(docs, [], tmp_path / "m", cfg)
    with pytest.raises(TrainingDataError, match="all same-author"):
        train_contrastive(docs, [{"pair": ["a", "b"], "same": True}], tmp_path / "m", cfg)
    with pytest.raises(
        TrainingDataError,
        match=r"--context-length: 1024 tokens is beyond the limit of .* \(512 tokens\); use --context-length <= 512",
    ):
        train_contrastive(
            docs,
            [{"pair": ["a", "b"], "same": True}, {"pair": ["a", "c"], "same": False}],
            tmp_path / "m",
            ContrastiveConfig(base_model=bundled_minilm_path(), batch_size=4, context_length=1024),
        )
    assert not (tmp_path / "m").exists()


def test_context_length_beyond_the_trained_length_warns(minilm, caplog):
    from mteb_contrastive.training.contrastive import check_context_length, model_token_limits

    assert model_token_limits(minilm) == (512, 256)  # position embeddings; all-MiniLM-L6-v2's training length
    with caplog.at_level("WARNING"):
        check_context_length(minilm, 256)
        assert not caplog.records
        check_context_length(minilm, 384, "MiniLM")
    assert "--context-length 384 is beyond the 256 tokens MiniLM was trained at" in caplog.text


def test_split_by_author_needs_two_document_authors_on_both_sides():
    docs = [{"id": f"{a}{i}", "author": a, "text": "x"} for a in "abcdefghij" for i in range(2)]
    train, val = split_documents_by_author(docs, 0.3, seed=0)
    assert {d["author"] for d in train}.isdisjoint({d["author"] for d in val})
    assert len({d["author"] for d in val}) == 3
    with pytest.raises(TrainingDataError, match="leaves the validation part without an author with two documents"):
        split_documents_by_author(docs[:4] + [{"id": "z", "author": "z", "text": "x"}], 0.2, seed=0)


def test_cli_bad_input_is_one_line_and_exit_2(tmp_path):
    corpus = tmp_path / "c.jsonl"
    rows = [{"id": f"{a}{i}", "author": a, "text": "w " * 30} for a in "abcdef" for i in range(2)] + [
        {"id": "solo", "author": "solo", "text": "w w"}
    ]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows))
    res = run(
        [
            "mteb-contrastive",
            "train",
            "--docs",
            f"corpus={corpus}",
            "--out",
            str(tmp_path / "m"),
            "--batch-size",
            "40",
            "--validation-share",
            "0.34",
        ]
    )
    assert res.returncode == 2, res.stderr
    err = [x for x in res.stderr.strip().splitlines() if x.startswith("error:")]
    assert err == [
        "error: --batch-size: 40 texts need 20 distinct authors per batch but only 4 authors have "
        "two documents; use --batch-size <= 8"
    ]
    assert "Traceback" not in res.stderr
    assert "1 of 5 authors have a single document: skipped" in res.stderr  # counted, never paired with itself
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "1", "author": "a", "text": "x"}\n{"id": "2", "author": "a"}\n')
    res = run(["mteb-contrastive", "train", "--docs", f"corpus={bad}", "--out", str(tmp_path / "m")])
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert f"error: {bad}, line 2, field 'text': missing or empty" in res.stderr


# ------------------------------------------------------------------------------------ the cross-encoder rival learns


def _separable_authors(n_authors: int = 16, n_docs: int = 3, seed: int = 0) -> list[dict]:
    """Synthetic authors with disjoint two-word vocabularies: same-author pairs share words, others none."""
    words = (
        "red blue green cat dog sun moon tree rock fish bird cake milk boat car road king gold snow fire rain wind "
        "star lamp door book ship bell rose salt iron wolf"
    ).split()
    rng = random.Random(seed)
    return [
        {"id": f"{a}-{i}", "author": f"a{a}", "text": " ".join(rng.choice(words[2 * a : 2 * a + 2]) for _ in range(8))}
        for a in range(n_authors)
        for i in range(n_docs)
    ]


def test_head_param_groups_give_the_fresh_head_its_own_learning_rate():
    from sentence_transformers import CrossEncoder

    from mteb_contrastive.training.cross_encoder import head_param_groups

    ce = CrossEncoder(bundled_minilm_path(), num_labels=1, device="cpu")
    groups = head_param_groups(ce, 1e-5, 20.0, 0.01)
    ids = {id(p): g for g in groups for p in g["params"]}
    named = dict(ce.model.named_parameters())
    assert len(ids) == len(named)  # every parameter in exactly one group
    assert (
        ids[id(named["classifier.weight"])]["lr"] == pytest.approx(2e-4)
        and ids[id(named["classifier.weight"])]["weight_decay"] == 0.01
    )
    assert (
        ids[id(named["classifier.bias"])]["lr"] == pytest.approx(2e-4)
        and ids[id(named["classifier.bias"])]["weight_decay"] == 0.0
    )
    assert ids[id(named["bert.pooler.dense.weight"])]["lr"] == pytest.approx(2e-4)
    assert ids[id(named["bert.embeddings.word_embeddings.weight"])]["lr"] == pytest.approx(1e-5)
    assert ids[id(named["bert.embeddings.LayerNorm.weight"])]["weight_decay"] == 0.0
    with pytest.raises(ValueError, match="--head-lr-multiplier must be > 0"):
        head_param_groups(ce, 1e-5, 0.0, 0.01)


def test_cross_encoder_rival_leaves_ln2_on_a_separable_set(tmp_path):
    """The rival's loss must fall well below ln 2 in a few steps (it stayed at ln 2 with one learning rate)."""
    from mteb_contrastive.training.contrastive import ContrastiveConfig
    from mteb_contrastive.training.cross_encoder import train_pair_classifier

    docs = _separable_authors()
    val = [{"pair": [docs[3 * a]["text"], docs[3 * a + 1]["text"]], "same": True} for a in range(4)]
    val += [{"pair": [docs[3 * a]["text"], docs[3 * a + 4]["text"]], "same": False} for a in range(4)]
    cfg = ContrastiveConfig(
        base_model=bundled_minilm_path(),
        context_length=24,
        batch_size=16,
        learning_rate=1e-4,
        epochs=2,
        warmup_ratio=0.0,
        passes=2,
        logging_steps=1,
        seed=0,
    )
    summary = train_pair_classifier(docs, val, tmp_path / "ce", cfg, show_progress=False)
    losses = [
        json.loads(x)["loss"]
        for x in (tmp_path / "ce" / "training_log.jsonl").read_text().splitlines()
        if '"loss"' in x
    ]
    assert summary["global_step"] == 8 and len(losses) == 8  # 16 authors, 8 per batch, 2 passes, 2 epochs
    assert losses[0] == pytest.approx(math.log(2), abs=0.02)  # a fresh head: p = 0.5 for every pair
    assert max(losses[-2:]) < 0.35 * math.log(2)
    assert summary["validation"]["validation_auc"] == pytest.approx(1.0)
