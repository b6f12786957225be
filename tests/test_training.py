"""Training as Kirby's code runs it: the SupCon loss, the MPerClass sampler, span rotation, F1 model selection,
presets, the duplicate-text and held-out-text refusals, a few real steps, resume, save/load, bad input."""

from __future__ import annotations

import contextlib
import json
import math
import random
from collections import Counter
from pathlib import Path

import pytest
from conftest import SHARED, bundled_minilm_path, run
from hypothesis import given, settings
from hypothesis import strategies as st

from mteb_contrastive.training.data import (
    TrainingDataError,
    author_counts,
    rotate_span,
    rotation_starts,
    split_documents_by_author,
    validation_pairs,
)
from mteb_contrastive.training.sampler import AuthorBatchSampler

# ------------------------------------------------------------------------------------ loss


def _unit(*degrees: float):
    import torch

    return torch.tensor([[math.cos(math.radians(a)), math.sin(math.radians(a))] for a in degrees], dtype=torch.float64)


class _Identity:
    """A stand-in model: the ``x`` feature is the sentence embedding (what the loss modules read)."""

    def __call__(self, features):
        return {"sentence_embedding": features["x"]}


def test_supcon_on_a_three_author_batch_equals_the_hand_computed_value_and_the_library():
    import torch
    from pytorch_metric_learning.losses import SupConLoss as Library

    from mteb_contrastive.training.supcon import CachedSupConLoss, SupConLoss

    # the example of the project's notes: authors A (0, 50 degrees), B (40, 140), C (180, 270); T = 0.1
    z, y = _unit(0, 50, 40, 140, 180, 270), torch.tensor([0, 0, 1, 1, 2, 2])
    s = (z @ z.T).numpy()
    hand = []
    for i in range(6):  # every text an anchor; its one positive against all other 5 texts
        p = i ^ 1
        others = [j for j in range(6) if j != i]
        hand.append(-(s[i, p] / 0.1 - math.log(sum(math.exp(s[i, j] / 0.1) for j in others))))
    assert hand[0] == pytest.approx(1.488771, abs=1e-6)  # by hand: 6.428 - log(619.0 + 2121.4 + 1 + ...)
    assert sum(hand) / 6 == pytest.approx(5.7309153069737, abs=1e-9)
    assert float(Library(temperature=0.1)(z, y)) == pytest.approx(5.7309153069737, abs=1e-9)
    ours = SupConLoss(_Identity(), temperature=0.1)
    assert float(ours([{"x": z}], y)) == pytest.approx(5.7309153069737, abs=1e-9)
    assert float(ours([{"x": 3 * z}], y)) == pytest.approx(5.7309153069737, abs=1e-9)  # cosine: scale-free
    assert float(SupConLoss(_Identity(), 0.01)([{"x": z}], y)) == pytest.approx(55.60669145856798, abs=1e-8)
    # the library's reduction: the mean over anchors whose loss is > 0 (easy anchors underflow at T = 0.01)
    z3 = _unit(0, 10, 90, 100, 180, 300).float()
    assert float(SupConLoss(_Identity(), 0.01)([{"x": z3}], y)) == pytest.approx(83.68241, abs=1e-3)
    # the gradient-cached loss: same value and same gradient, in mini-batches of 2 texts
    a, b = z.clone().requires_grad_(True), z.clone().requires_grad_(True)
    ours([{"x": a}], y).backward()
    mask = torch.ones(6, 1)
    cached = CachedSupConLoss(_Identity(), temperature=0.1, mini_batch_size=2)
    value = cached([{"x": b, "attention_mask": mask}], y)
    value.backward()
    assert float(value.detach()) == pytest.approx(5.7309153069737, abs=1e-9)
    assert torch.allclose(a.grad, b.grad, atol=1e-12)


# ------------------------------------------------------------------------------------ sampler


def _docs_dataset(counts: dict[str, int]):
    from mteb_contrastive.training.contrastive import training_table

    docs = [{"text": f"{a} doc {i}", "author": a} for a, n in counts.items() for i in range(n)]
    return training_table(docs)


def test_sampler_fresh_authors_each_batch_single_document_authors_kept_epoch_of_documents_over_batch():
    counts = {"a": 2, "b": 3, "c": 5, "d": 2, "e": 1, "f": 4, "g": 2, "h": 1}  # e, h: one document
    ds = _docs_dataset(counts)
    authors = ds["author"]
    s = AuthorBatchSampler(ds, batch_size=4, seed=3)
    assert len(s) == 20 // 4  # an epoch: floor(documents / batch) batches
    single_twice = 0
    for epoch in range(4):
        s.set_epoch(epoch)
        batches = list(s)
        assert len(batches) == 5 and all(len(b) == 4 for b in batches)
        drawn = Counter()
        for batch in batches:
            who = [authors[i] for i in batch]
            assert who[0::2] == who[1::2] and who[0] != who[2]  # two authors, two slots each, never twice
            for k in (0, 2):
                if counts[who[k]] == 1:
                    assert batch[k] == batch[k + 1]  # the only document, twice: two rotations of one text
                    single_twice += 1
                else:
                    assert batch[k] != batch[k + 1]  # two different documents
            drawn.update(who[0::2])
        # 10 draws of 8 authors: drawn afresh for every batch, not a pass over the authors
        assert max(drawn.values()) >= 2
    assert single_twice > 0
    s.set_epoch(0)
    first = list(s)
    assert list(s) == first  # reproducible per (seed, epoch)
    s.set_epoch(1)
    assert list(s) != first


def test_sampler_batch_the_documents_cannot_fill_is_one_line():
    ds = _docs_dataset({"a": 2, "b": 2, "c": 1})
    with pytest.raises(TrainingDataError, match=r"--batch-size: 8 texts need 4 distinct authors .* have 3 authors"):
        AuthorBatchSampler(ds, batch_size=8)
    with pytest.raises(TrainingDataError, match="even number"):
        AuthorBatchSampler(ds, batch_size=3)
    with pytest.raises(TrainingDataError, match=r"5 documents give none of 6; use --batch-size <= 5"):
        AuthorBatchSampler(_docs_dataset({"a": 1, "b": 1, "c": 1, "d": 1, "e": 1}), batch_size=6)
    assert author_counts([{"author": a} for a in "aab"]) == {
        "documents": 3,
        "authors": 2,
        "single_document_authors": 1,
    }


# ------------------------------------------------------------------------------------ rotation


class _Draw:
    """A stand-in for random.Random whose ``randrange`` returns a fixed value."""

    def __init__(self, i: int) -> None:
        self.i = i

    def randrange(self, n: int) -> int:
        assert 0 <= self.i < n
        return self.i


def test_rotation_draws_a_character_and_moves_back_to_the_word_start():
    text = "the cat sat"  # 11 characters: the authors draw i in 0..11 (torch.randint(len(" " + text)))
    got = [rotate_span(text, _Draw(i)) for i in range(12)]
    assert got == ["the cat sat"] * 5 + ["cat sat the"] * 4 + ["sat the cat"] * 3
    # only the ASCII space is a boundary; the text is otherwise untouched (newline, double space kept)
    text = "One two\nthree  four"
    assert rotation_starts(text) == [0, 4, 14, 15]
    assert rotate_span(text, _Draw(10)) == "two\nthree  four One"
    assert rotate_span(text, _Draw(15)) == " four One two\nthree"  # after the first of two spaces: a start
    for i in range(len(text) + 1):
        assert sorted(rotate_span(text, _Draw(i))) == sorted(text)  # the same characters, none added
    assert rotate_span(text, _Draw(10), rotate=False) == text
    assert rotate_span("a  b\nc d", _Draw(0), max_words=2, rotate=False) == "a  b"  # a cut, verbatim


def test_rotation_and_cut_never_split_a_grapheme_cluster():
    import regex

    # a combining accent after a space belongs to the space's cluster: no start there
    text = "ab \u0301cd ef"
    assert rotation_starts(text) == [0, 7]
    assert rotate_span(text, _Draw(5)) == text  # i - 1 = 4, inside " \u0301cd": back to 0
    # the starts of spaced text are exactly the offsets after a space that grapheme_starts lists
    from mteb_contrastive.data.text import grapheme_starts

    rng = random.Random(0)
    pieces = ["a", " ", "\u0301", "\u200d", "\u0600", "\U0001f1e6", "e"]  # marks, joiner, prepend, flags
    for _ in range(500):
        t = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 10)))
        after_space = {i + 1 for i, ch in enumerate(t) if ch == " "} & set(grapheme_starts(t))
        assert rotation_starts(t) == sorted({0} | {c for c in after_space if c < len(t)})
    # Thai, written without spaces: each consonant is a word span, but vowel signs and tone marks stay
    thai = "สวัสดีครับ ผมชื่อสมชาย"
    clusters = Counter(regex.findall(r"\X", thai))
    outs = {rotate_span(thai, _Draw(i)) for i in range(len(thai) + 1)}
    assert len(outs) > 5
    for o in outs:
        assert Counter(regex.findall(r"\X", o)) == clusters and o in thai + thai
    # Devanagari (spaced): क्ष (ka, virama, ssa) stays whole; the cut too
    hindi = "क्षमा करें मित्र"
    assert rotate_span(hindi, _Draw(8)) == "करें मित्र क्षमा"
    assert rotate_span(hindi, _Draw(0), max_words=1) == "क्षमा"
    # Chinese: a start at a jieba word, never inside one; nothing inserted
    zh = "我喜欢吃苹果。你呢？他不喜欢苹果。"
    outs = {rotate_span(zh, _Draw(i)) for i in range(len(zh) + 1)}
    assert "吃苹果。你呢？他不喜欢苹果。我喜欢" in outs and all(not o.startswith("果") for o in outs)
    assert rotate_span(zh, _Draw(0), max_words=3, rotate=False) == "我喜欢吃"


# ------------------------------------------------------------------------------------ model selection and presets


def test_kirby_f1_threshold_is_the_first_maximum_at_an_observed_score():
    from mteb_contrastive.metrics.calibration import kirby_threshold
    from mteb_contrastive.training.validation import verification_scores

    # thresholds 0.1 / 0.35 / 0.4 / 0.8: F1 0.667 / 0.8 / 0.5 / 0.667
    assert kirby_threshold([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]) == 0.35
    # ties: 0.2 and 0.6 both give F1 2/3; np.argmax takes the first, the lower threshold
    assert kirby_threshold([0.2, 0.6, 0.9, 0.4], [1, 0, 1, 0]) == 0.2
    import numpy as np

    m, _ = verification_scores(np.array([0.1, 0.4, 0.35, 0.8]), np.array([0, 0, 1, 1]))
    assert m["f1"] == pytest.approx(0.8) and m["accuracy"] == pytest.approx(0.75) and m["kirby_threshold"] == 0.35


def test_presets_hold_the_authors_numbers_and_options_override_them():
    from mteb_contrastive.training.contrastive import ContrastiveConfig
    from mteb_contrastive.training.presets import PRESETS

    t = ContrastiveConfig.from_preset("kirby-tinybert")
    assert (t.learning_rate, t.batch_size, t.epochs, t.context_length, t.temperature) == (4e-4, 512, 10, 512, 0.01)
    assert t.cached and t.mini_batch_size == 256 and t.warmup_ratio == 0.1 and t.base_model.endswith("312D")
    large = ContrastiveConfig.from_preset("kirby-modernbert-large", batch_size=64)
    assert (large.learning_rate, large.weight_decay, large.adam_beta2, large.adam_epsilon) == (1.2e-4, 1e-5, 0.98, 1e-6)
    rec = large.recorded()
    assert rec["preset"] == "kirby-modernbert-large" and rec["changed_from_preset"] == ["batch_size"]
    assert "configs/modernbert_large_contrastive.yaml" in rec["preset_source"]
    # the paper's width scaling: 4e-4 at 312 -> x 0.4 at 768 -> x 0.3 at 1024
    assert PRESETS["kirby-bert"].values["learning_rate"] == pytest.approx(0.4 * 4e-4)
    assert PRESETS["kirby-modernbert-large-4096"].values["learning_rate"] == pytest.approx(0.3 * 4e-4)
    assert "ours" in PRESETS["ours-cpu"].source
    with pytest.raises(TrainingDataError, match="unknown preset 'kirby-gpt'"):
        ContrastiveConfig.from_preset("kirby-gpt", base_model="x")


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
def minilm():
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(bundled_minilm_path(), device="cpu")


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """One epoch of one step on 3 real authors, then a resumed second epoch (2 steps in all)."""
    from mteb_contrastive.training.contrastive import ContrastiveConfig, train_contrastive

    train = _pan14_sample(SHARED, 3)
    val = validation_pairs(_pan14_sample(SHARED, 3, offset=10), max_words=24, pairs_per_author=1, seed=0)
    out = tmp_path_factory.mktemp("train") / "model"
    cfg = dict(
        base_model=bundled_minilm_path(),
        context_length=32,
        batch_size=6,
        learning_rate=1e-3,
        warmup_ratio=0.0,
        logging_steps=1,
    )
    first = train_contrastive(train, val, out, ContrastiveConfig(epochs=1, **cfg), show_progress=False)
    log1 = [json.loads(x) for x in (out / "training_log.jsonl").read_text().splitlines()]
    second = train_contrastive(train, val, out, ContrastiveConfig(epochs=2, **cfg), resume=True, show_progress=False)
    log2 = [json.loads(x) for x in (out / "training_log.jsonl").read_text().splitlines()]
    return {"out": out, "first": first, "second": second, "log1": log1, "log2": log2, "val": val}


def test_the_best_checkpoint_is_the_one_with_the_best_validation_f1(trained):
    evals = [r for r in trained["log2"] if "eval_validation_f1" in r]
    assert [r["epoch"] for r in evals] == [1.0, 2.0]
    f1 = [r["eval_validation_f1"] for r in evals]
    best = 1 + f1.index(max(f1))  # one step per epoch; the first maximum is kept
    assert trained["second"]["best_checkpoint"].endswith(f"checkpoint-{best}")
    assert trained["second"]["best_validation_f1"] == pytest.approx(max(f1))
    cal = json.loads((trained["out"] / "verification_calibration.json").read_text())
    assert cal["n_validation_pairs"] == len(trained["val"])
    assert {"validation_f1", "threshold", "platt_coef", "kirby_threshold", "kirby_platt_coef"} <= set(cal)


def test_training_config_records_the_preset_and_the_counts(trained):
    rec = json.loads((trained["out"] / "training_config.json").read_text())
    assert rec["config"]["preset"] == "ours-cpu" and "ours" in rec["config"]["preset_source"]
    assert rec["summary"]["batches_per_epoch"] == 1 and rec["summary"]["n_training_documents"] == 6
    assert rec["summary"]["selection_metric"] == "eval_validation_f1"


def test_resume_continues_from_the_saved_step(trained):
    assert trained["first"]["global_step"] == 1
    assert trained["second"]["resumed_from"].endswith("checkpoint-1")
    assert trained["second"]["global_step"] == 2
    assert [r["step"] for r in trained["log2"] if "loss" in r] == [1, 2]


def test_saved_model_loads_and_runs_in_mteb_in_a_fresh_process(trained, tmp_path):
    from sentence_transformers import SentenceTransformer

    from mteb_contrastive.data.verification_builder import build_verification_dataset

    m = SentenceTransformer(str(trained["out"]), device="cpu")
    assert m.max_seq_length == 32
    assert m.encode(["a b c"]).shape == (1, 384)
    docs = [
        {"id": f"{a}{i}", "author": a, "text": " ".join(f"{a}{j % 5}x{i}{j}" for j in range(40 + i))}
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


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return path


def _words(seed: int, n: int = 60) -> str:
    return " ".join(f"w{seed}x{j}" for j in range(n))


def _cli(argv: list[str], capsys) -> tuple[int, str, list[str]]:
    """``mteb-contrastive`` in this process: (exit status, stdout, the stderr lines that start with "error:")."""
    from mteb_contrastive.cli.main import main

    rc = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return (
        rc,
        out,
        [x.removeprefix("mteb-contrastive: ") for x in err.splitlines() if x.startswith("mteb-contrastive: error:")],
    )


def test_cli_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    rows = [{"id": f"{a}{i}", "author": a, "text": _words(10 * ord(a) + i)} for a in "abcdef" for i in range(2)]
    corpus = _write(tmp_path / "c.jsonl", rows + [{"id": "solo", "author": "solo", "text": _words(999)}])
    argv = ["train", "--docs", f"corpus={corpus}", "--out", str(tmp_path / "m"), "--batch-size", "40"]
    rc, _, err = _cli(argv + ["--validation-share", "0.34"], capsys)
    assert rc == 2 and err == [
        "error: --batch-size: 40 texts need 20 distinct authors per batch but the training documents have 5 "
        "authors; use --batch-size <= 10"
    ]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "1", "author": "a", "text": "x"}\n{"id": "2", "author": "a"}\n')
    rc, _, err = _cli(["train", "--docs", f"corpus={bad}", "--out", str(tmp_path / "m")], capsys)
    assert rc == 2 and err == [
        f"error: {bad}, line 2, field 'text': missing; give every row its text (a non-empty string)"
    ]


def test_train_refuses_a_text_under_two_authors_naming_both_and_the_row(tmp_path, capsys):
    from mteb_contrastive.cli.main import main

    rows = [{"id": f"{a}{i}", "author": a, "text": _words(10 * ord(a) + i)} for a in "abcdef" for i in range(2)]
    rows.append({"id": "f-copy", "author": "f", "text": "  " + rows[0]["text"]})  # author a's text, filed under f
    corpus = _write(tmp_path / "c.jsonl", rows)
    argv = ["train", "--docs", f"corpus={corpus}", "--out", str(tmp_path / "m"), "--batch-size", "4"]
    assert main(argv) == 2
    err = [
        x.removeprefix("mteb-contrastive: ")
        for x in capsys.readouterr().err.splitlines()
        if x.startswith("mteb-contrastive: error:")
    ]
    assert err == [
        f"error: {corpus}, line 13, field 'text': the same text (after NFC and whitespace "
        "normalisation) is filed under author 'a' (line 1, id 'corpus:a0') and author 'f' (id 'corpus:f-copy'); "
        "1 such rows in all; a text has one author: remove the copies, or pass --duplicates collapse to merge "
        "the labels that share a text (docs/training.md)"
    ]


def _holdout(folder: Path, test_text: str) -> Path:
    """A PAN-format benchmark of 4 pairs a split (authors x, y, z, not in training); a test pair holds ``test_text``."""
    from mteb_contrastive.data.pan import write_pairs_and_truth

    for split, t in (("validation", _words(501)), ("test", test_text)):
        rows = [
            {"pair": [t, _words(502)], "same": False, "authors": ["x", "y"]},
            {"pair": [_words(503), _words(504)], "same": True, "authors": ["x", "x"]},
            {"pair": [_words(505), _words(506)], "same": False, "authors": ["y", "z"]},
            {"pair": [_words(507), _words(508)], "same": True, "authors": ["z", "z"]},
        ]
        rows = [{**r, "id": f"{split}{i}", "fandoms": ["f", "g"]} for i, r in enumerate(rows)]
        write_pairs_and_truth(folder / split, rows)
    return folder


def test_train_refuses_a_holdout_whose_test_text_is_in_training_or_drops_those_documents(tmp_path, capsys):
    rows = [{"id": f"{a}{i}", "author": a, "text": _words(10 * ord(a) + i)} for a in "abcdefgh" for i in range(2)]
    corpus = _write(tmp_path / "c.jsonl", rows)
    leak = " ".join(rows[3]["text"].split()[10:30])  # 20 words from inside author b's second document
    holdout = _holdout(tmp_path / "H", leak)
    base = ["train", "--docs", f"corpus={corpus}", "--holdout", str(holdout)]
    base += ["--out", str(tmp_path / "m"), "--batch-size", "4", "--context-length", "16", "--no-progress"]
    rc, _, err = _cli(base, capsys)
    assert (
        rc == 2
        and len(err) == 1
        and err[0].startswith(
            f"error: --holdout {holdout}: 0 of the 4 validation pairs, 1 of the 4 test pairs hold a text found inside "
            "the training documents"
        )
    )
    assert "--drop-overlapping" in err[0] and not (tmp_path / "m").exists()
    rc, out, _ = _cli(base + ["--drop-overlapping", "--max-steps", "1"], capsys)
    assert rc == 0
    data = json.loads(out.strip().splitlines()[0])["data"]
    assert data["test_pairs_with_training_text"] == 1 and data["documents_dropped_overlap"] == 1
    assert data["training_documents"] == 15 and data["validation_topic_controlled"] is False
    assert "not topic-controlled" in data["validation_note"]
    assert json.loads((tmp_path / "m" / "training_config.json").read_text())["summary"]["global_step"] == 1


def test_train_refuses_the_documented_pan14_command_until_duplicates_are_collapsed(tmp_path, capsys):
    """PAN 2014 files one text under several problems: the former README command stops before training."""
    pan14 = SHARED / "pan" / "pan14_known.jsonl.gz"
    holdout = _holdout(tmp_path / "H", _words(700))
    argv = ["train", "--docs", f"pan14={pan14}", "--holdout", str(holdout), "--out", str(tmp_path / "m")]
    rc, _, err = _cli(argv, capsys)
    # EE004_known01.txt is EE095_known02.txt (the data README: 218 texts under two or more problems)
    assert rc == 2 and err == [
        f"error: {pan14}, line 79, field 'text': the same text (after NFC and whitespace normalisation) is filed "
        "under author 'EE004' (line 4, id 'pan14:EE004_known01') and author 'EE095' (id 'pan14:EE095_known02'); "
        "342 such rows in all; a text has one author: remove the copies, or pass --duplicates collapse to merge "
        "the labels that share a text (docs/training.md)"
    ]
    assert not (tmp_path / "m").exists()


def test_training_validation_pairs_can_be_topic_controlled():
    docs = [
        {"id": f"{a}{j}", "author": a, "text": _words(100 * ord(a) + j, 48), "group": "", "topic": "xy"[j % 2]}
        for a in "abcdef"
        for j in range(4)
    ]
    rows = validation_pairs(docs, max_words=16, pairs_per_author=2, seed=0, topic=True)
    assert sum(r["same"] for r in rows) == sum(not r["same"] for r in rows) == 12
    for r in rows:
        t1, t2 = r["fandoms"]  # the two texts' topics
        assert {t1, t2} <= {"x", "y"} and ((t1 != t2) if r["same"] else (t1 == t2))


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


def test_rival_pairs_every_text_with_its_author_and_a_random_other_author():
    from mteb_contrastive.training.cross_encoder import PairClassificationCollator, cut_chars

    features = [{"text": t, "label": y} for t, y in (("a1", 0), ("a2", 0), ("b1", 1), ("b2", 1), ("c1", 2), ("c1", 2))]
    rows = PairClassificationCollator(lambda rows: rows, max_chars=10, rotate=False, seed=0)(features)
    assert len(rows) == 12  # 6 texts, each an anchor: 6 same-author + 6 different-author pairs
    for k, f in enumerate(features):
        pos, neg = rows[2 * k], rows[2 * k + 1]
        assert pos["text1"] == neg["text1"] == f["text"] and (pos["label"], neg["label"]) == (1.0, 0.0)
        assert pos["text2"][0] == f["text"][0] and neg["text2"][0] != f["text"][0]
    assert cut_chars("ab\u0301cd", 3) == "ab\u0301" and cut_chars("ab\u0301cd", 2) == "a"  # never inside a cluster


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
        epochs=3,
        warmup_ratio=0.0,
        logging_steps=1,
        seed=0,
    )
    summary = train_pair_classifier(docs, val, tmp_path / "ce", cfg, show_progress=False)
    losses = [
        json.loads(x)["loss"]
        for x in (tmp_path / "ce" / "training_log.jsonl").read_text().splitlines()
        if '"loss"' in x
    ]
    assert summary["global_step"] == 9 and len(losses) == 9  # 48 documents // 16 = 3 batches an epoch, 3 epochs
    assert losses[0] == pytest.approx(math.log(2), abs=0.02)  # a fresh head: p = 0.5 for every pair
    assert max(losses[-2:]) < 0.35 * math.log(2)
    assert summary["validation"]["validation_auc"] == pytest.approx(1.0)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.sampled_from(["mot", " ", "\u0301", "\u0e2a\u0e27\u0e31", "\u4e2d\u6587", "\n", "é", "\u200d"]), max_size=30
    )
)
def test_rotation_starts_equal_the_definition_on_generated_texts(pieces):
    """Spaced and unspaced texts: the cached starts equal the definition read one floor at a time
    (each word span's start moved back to its cluster's start; 0 and no offset at the end)."""
    from mteb_contrastive.data.text import grapheme_floor, grapheme_starts, has_unsegmented_script, word_spans

    text = "".join(pieces)
    if has_unsegmented_script(text):
        cand = {grapheme_floor(text, a) for a, _ in word_spans(text)}
    else:
        cand = {i + 1 for i, ch in enumerate(text) if ch == " "} & set(grapheme_starts(text))
    assert rotation_starts(text) == sorted({0} | {c for c in cand if 0 < c < len(text)})
    assert rotation_starts(text) == rotation_starts(text)  # the cached answer, a fresh list each time


def test_min_author_documents_keeps_the_authors_with_enough_documents():
    from mteb_contrastive.training.data import keep_authors_with

    docs = [{"id": str(i), "author": a, "text": "x"} for i, a in enumerate("aabccc")]
    assert keep_authors_with(docs, 1) == (docs, 0)
    kept, removed = keep_authors_with(docs, 2)
    assert [d["author"] for d in kept] == ["a", "a", "c", "c", "c"] and removed == 1
    assert [d["author"] for d in keep_authors_with(docs, 3)[0]] == ["c", "c", "c"]
    with pytest.raises(TrainingDataError, match="no training author has 4 documents \\(the most any has is 3\\)"):
        keep_authors_with(docs, 4)


@pytest.mark.parametrize("value, message", [("0", "must be"), ("9", "no training author has 9 documents")])
def test_train_refuses_a_min_author_documents_no_author_reaches(tmp_path, capsys, value, message):
    from mteb_contrastive.cli.main import main

    rows = [{"id": f"{a}{i}", "author": a, "text": _words(10 * ord(a) + i)} for a in "abcdefgh" for i in range(2)]
    corpus = _write(tmp_path / "c.jsonl", rows)
    argv = ["train", "--docs", f"corpus={corpus}", "--out", str(tmp_path / "m"), "--min-author-documents", value]
    with pytest.raises(SystemExit, match="2") if value == "0" else contextlib.nullcontext():  # argparse: exit 2
        assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "--min-author-documents" in err and "Traceback" not in err
    assert not (tmp_path / "m").exists()
