"""Validation topics held out of training, explicit validation documents, validation every N steps."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import bundled_minilm_path
from hypothesis import given, settings
from hypothesis import strategies as st

from mteb_contrastive.training.data import hold_out_topics, topic_items


def _words(seed: int, n: int = 60) -> str:
    return " ".join(f"w{seed}x{j}" for j in range(n))


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return path


def test_topic_items_split_the_joined_topic_value():
    assert topic_items("analyse syntaxique|corpus") == {"analyse syntaxique", "corpus"}
    assert topic_items("fandom A") == {"fandom A"} and topic_items("") == set()


_topic = st.lists(st.sampled_from(["x", "y", "z", "q", "r"]), max_size=3).map(lambda t: "|".join(sorted(set(t))))
_docs = st.lists(st.tuples(st.sampled_from("abcdef"), _topic), max_size=12)


@settings(max_examples=60, deadline=None)
@given(_docs, _docs)
def test_no_training_document_keeps_a_validation_topic_and_no_other_is_dropped(train_spec, held_spec):
    train = [{"id": f"t{i}", "author": a, "topic": t} for i, (a, t) in enumerate(train_spec)]
    held = [{"id": f"v{i}", "author": a.upper(), "topic": t} for i, (a, t) in enumerate(held_spec)]
    kept, dropped = hold_out_topics(train, held)
    held_topics = {t for d in held for t in topic_items(d["topic"])}
    assert all(not topic_items(d["topic"]) & held_topics for d in kept)  # none kept that shares one
    assert [d for d in train if not topic_items(d["topic"]) & held_topics] == kept  # none dropped that does not
    assert dropped == len(train) - len(kept)


def test_train_holds_validation_topics_out_of_training_and_validates_every_n_steps(tmp_path, capsys):
    """The issue's example: with --topic-field the training documents used to stay as they were (only the
    pairs changed); now a training paper sharing a keyword with a validation paper is not trained on."""
    from mteb_contrastive.cli.main import main

    train_rows = [
        {"id": f"{a}{i}", "author": a, "text": _words(10 * ord(a) + i), "topics": [t]}
        for a in "abcdef"
        for i, t in enumerate(("z", "q"))
    ]
    train_rows[0]["topics"] = ["x", "z"]  # a0 shares the validation topic x
    train_rows[3]["topics"] = ["y"]  # b1 shares the validation topic y
    val_rows = [
        {"id": f"{a}{i}", "author": a, "text": _words(1000 + 10 * ord(a) + i), "topics": [t]}
        for a in "vw"
        for i, t in enumerate(("x", "y"))
    ]
    train_file, val_file = _write(tmp_path / "train.jsonl", train_rows), _write(tmp_path / "val.jsonl", val_rows)
    out = tmp_path / "m"
    argv = ["train", "--docs", f"corpus={train_file}", "--validation-docs", f"corpus={val_file}"]
    argv += ["--topic-field", "topics", "--out", str(out), "--base-model", bundled_minilm_path()]
    argv += ["--batch-size", "4", "--context-length", "16", "--max-steps", "2", "--eval-steps", "1"]
    argv += ["--logging-steps", "1", "--validation-pairs-per-author", "2", "--no-progress"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out.strip().splitlines()[0])["data"]
    assert data["documents_removed_validation_topics"] == 2
    assert data["training_documents"] == 10 and data["validation_documents"] == 4
    assert data["validation_topic_controlled"] is True and data["documents_removed_validation_authors"] == 0
    log = [json.loads(x) for x in (out / "training_log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in log if "eval_validation_f1" in r] == [1, 2]  # validated at every step, not per epoch
    assert all("grad_norm" in r and "unix_time" in r for r in log if "loss" in r)
    rec = json.loads((out / "training_config.json").read_text())
    assert rec["config"]["eval_steps"] == 1 and rec["summary"]["global_step"] == 2


def test_validation_docs_authors_leave_training_and_bad_eval_steps_is_one_line(tmp_path, capsys):
    from mteb_contrastive.cli.main import main

    rows = [{"id": f"{a}{i}", "author": a, "text": _words(10 * ord(a) + i)} for a in "abcdef" for i in range(2)]
    val = [{"id": f"v{a}{i}", "author": a, "text": _words(500 + 10 * ord(a) + i)} for a in "ab" for i in range(2)]
    train_file, val_file = _write(tmp_path / "train.jsonl", rows), _write(tmp_path / "val.jsonl", val)
    argv = ["train", "--docs", f"corpus={train_file}", "--validation-docs", f"corpus={val_file}"]
    argv += ["--out", str(tmp_path / "m"), "--batch-size", "4", "--context-length", "16"]
    try:
        rc = main(argv + ["--eval-steps", "-1"])
    except SystemExit as exc:  # argparse's own exit
        rc = exc.code
    err = [x for x in capsys.readouterr().err.splitlines() if "error:" in x]
    assert rc == 2 and err == [
        "mteb-contrastive train: error: argument --eval-steps: must be 0 or more, got -1 "
        "(see mteb-contrastive train --help)"
    ]
    from argparse import Namespace

    from mteb_contrastive.cli.train import author_data

    ns = Namespace(
        docs=[f"corpus={train_file}"],
        validation_docs=[f"corpus={val_file}"],
        duplicates="refuse",
        holdout=[],
        topic_field=None,
        context_length=16,
        validation_pairs_per_author=2,
        seed=0,
        drop_overlapping=False,
        max_validation_pairs=None,
        validation_share=0.2,
        min_author_documents=1,
    )
    docs, pairs, counts = author_data(ns)
    assert {d["author"] for d in docs} == set("cdef") and counts["documents_removed_validation_authors"] == 4
    assert counts["validation_share"] is None and counts["validation_documents"] == 4
    assert {a for p in pairs for a in p["authors"]} == {"a", "b"}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=4, max_size=40).filter(lambda s: len(s) % 2 == 0))
def test_validation_f1_on_balanced_pairs_is_never_below_two_thirds(scores):
    """Why F1 selection ties: answering "same" for every balanced pair has F1 = 2/3 (precision 1/2, recall 1),
    and the lowest observed score is a candidate threshold, so the best F1 of any scorer is >= 2/3."""
    import numpy as np

    from mteb_contrastive.metrics.calibration import kirby_threshold

    s, labels = np.array(scores), np.array([1, 0] * (len(scores) // 2))
    hard = s >= kirby_threshold(s, labels)  # the selection's threshold (training/validation.py)
    f1 = 2 * int(np.sum(hard & (labels == 1))) / (int(hard.sum()) + int(labels.sum()))
    assert f1 >= 2 / 3 - 1e-12


def test_selection_by_auc_keeps_the_checkpoint_with_the_best_validation_auc(tmp_path, capsys):
    from mteb_contrastive.cli.main import main

    rows = [{"id": f"{a}{i}", "author": a, "text": _words(10 * ord(a) + i)} for a in "abcdef" for i in range(2)]
    val = [{"id": f"v{a}{i}", "author": a, "text": _words(500 + 10 * ord(a) + i)} for a in "vwxy" for i in range(2)]
    train_file, val_file = _write(tmp_path / "train.jsonl", rows), _write(tmp_path / "val.jsonl", val)
    out = tmp_path / "m"
    argv = ["train", "--docs", f"corpus={train_file}", "--validation-docs", f"corpus={val_file}", "--out", str(out)]
    argv += ["--base-model", bundled_minilm_path(), "--batch-size", "4", "--context-length", "16"]
    argv += ["--max-steps", "3", "--eval-steps", "1", "--learning-rate", "1e-3", "--selection-metric", "auc"]
    argv += ["--validation-pairs-per-author", "2", "--no-progress"]
    assert main(argv) == 0
    capsys.readouterr()
    log = [json.loads(x) for x in (out / "training_log.jsonl").read_text().splitlines()]
    auc = [(r["step"], r["eval_validation_auc"]) for r in log if "eval_validation_auc" in r]
    assert [s for s, _ in auc] == [1, 2, 3]
    best = next(s for s, a in auc if a == max(a for _, a in auc))  # the first maximum
    rec = json.loads((out / "training_config.json").read_text())
    assert rec["summary"]["selection_metric"] == "eval_validation_auc"
    assert rec["summary"]["best_checkpoint"].endswith(f"checkpoint-{best}")
    assert rec["config"]["selection_metric"] == "auc"
