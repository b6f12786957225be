"""Cross-encoders in the verification and triplet tasks, and the trained pair classifier (Kirby's rival)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import bundled_minilm_path


def overlap(a: str, b: str) -> float:
    """The fake cross-encoder's score: Jaccard overlap of the two texts' word sets."""
    x, y = set(a.split()), set(b.split())
    return len(x & y) / len(x | y)


class PairTableCrossEncoder:
    """An mteb cross-encoder (``predict(inputs1, inputs2, ...)``) scoring pairs by :func:`overlap`;
    records its calls."""

    def __init__(self, score=overlap):
        from mteb.models.model_meta import ModelMeta

        self.score = score
        self.calls: list[int] = []
        self.mteb_model_meta = ModelMeta.create_empty(
            overwrites=dict(name="test/pair-table-ce", revision="1", model_type=["cross-encoder"], modalities=["text"])
        )

    def predict(self, inputs1, inputs2, *, task_metadata, hf_split, hf_subset, prompt_type=None, **kwargs):
        t1 = [t for b in inputs1 for t in b["text"]]
        t2 = [t for b in inputs2 for t in b["text"]]
        self.calls.append(len(t1))
        return np.asarray([self.score(a, b) for a, b in zip(t1, t2)])


def test_fake_is_a_cross_encoder_not_an_encoder():
    from mteb_contrastive.protocols.cross_encoder_scoring import is_cross_encoder

    assert is_cross_encoder(PairTableCrossEncoder())


def test_verification_scores_each_pair_with_the_cross_encoder(tmp_path):
    import mteb

    from mteb_contrastive.catalog import folder_task_classes
    from mteb_contrastive.data.pan import load_split
    from mteb_contrastive.data.verification_builder import build_verification_dataset
    from mteb_contrastive.metrics.calibration import Calibrator
    from mteb_contrastive.metrics.pan import evaluate_all

    rng = np.random.default_rng(0)
    docs = []
    for i in range(10):
        vocab = [f"w{i}_{j}" for j in range(8)] + [f"common{j}" for j in range(8)]
        for d in range(2):
            docs.append({"id": f"a{i}-{d}", "author": f"a{i}", "text": " ".join(rng.choice(vocab, 60))})
    folder = build_verification_dataset(
        docs, tmp_path, "ToyCE", chunk_words=20, pairs_per_author=2, split_ratios=(0.0, 0.5, 0.5)
    )
    task = folder_task_classes(folder, verification=True)[0]()
    ce = PairTableCrossEncoder()
    res = mteb.evaluate(ce, task, cache=None, overwrite_strategy="always")
    s = res.task_results[0].scores["test"][0]
    # by hand: the protocol's calibration on the validation pairs' scores, applied to the test pairs' scores
    val, test = load_split(folder, "validation"), load_split(folder, "test")
    vs = [overlap(*r["pair"]) for r in val]
    ts = [overlap(*r["pair"]) for r in test]
    cal = Calibrator().fit(vs, [int(r["same"]) for r in val])
    want = evaluate_all([int(r["same"]) for r in test], cal.answers(ts)["platt_abstain"])
    assert s["pan_platt_abstain_auc"] == pytest.approx(want["auc"])
    assert s["pan_platt_abstain_overall"] == pytest.approx(want["overall"])
    assert s["threshold"] == pytest.approx(cal.threshold)
    # Kirby's calibration beside it, fitted on the same validation scores
    from mteb_contrastive.metrics.calibration import KirbyCalibrator

    kirby = KirbyCalibrator().fit(vs, [int(r["same"]) for r in val])
    labels = [int(r["same"]) for r in test]
    assert s["pan_kirby_platt_abstain_overall"] == pytest.approx(
        evaluate_all(labels, kirby.answers(ts)["platt_abstain"])["overall"]
    )
    assert s["pan_kirby_hard_accuracy"] == pytest.approx(np.mean((np.asarray(ts) >= kirby.threshold) == labels))
    assert s["kirby_platt_coef"] == pytest.approx(kirby.coef) and s["kirby_threshold"] == pytest.approx(kirby.threshold)
    assert ce.calls == [len(val), len(test)]  # each pair scored once
    assert "cosine_accuracy" not in s and "similarity_accuracy" in s  # no vectors: only the model's own score


def test_triplet_task_compares_anchor_positive_and_anchor_negative_scores(tmp_path, monkeypatch):
    import mteb
    from test_halvest_data import PAIRS, write_hub_copy

    from mteb_contrastive.data.halvest import LOCAL_COPY_ENV, pairs_to_triplets

    root = write_hub_copy(tmp_path / "hub", {"base-2": pairs_to_triplets(PAIRS)[0]})  # a triplet-release copy
    monkeypatch.setenv(LOCAL_COPY_ENV, str(root))
    task = mteb.get_task("HALvestTripletClassification", hf_subsets=["base-2"])
    table = {("span A", "pos A1"): 0.9, ("span A", "neg A1"): 0.1, ("span C", "pos C1"): 0.2, ("span C", "neg C1"): 0.7}
    ce = PairTableCrossEncoder(lambda a, b: table[(a, b)])
    res = mteb.evaluate(ce, task, cache=None, overwrite_strategy="always")
    s = res.task_results[0].scores["test"][0]
    assert s["accuracy"] == 0.5 and s["n_triplets"] == 2  # A right (0.9 > 0.1), C wrong (0.2 < 0.7)
    assert ce.calls == [4]  # 2 triplets x (anchor-positive, anchor-negative)


def test_pair_classifier_trains_saves_calibration_and_loads_as_a_cross_encoder(tmp_path):
    import mteb
    from conftest import SHARED
    from mteb.models.sentence_transformer_wrapper import CrossEncoderWrapper
    from sentence_transformers import CrossEncoder
    from test_training import _pan14_sample

    from mteb_contrastive.training.contrastive import ContrastiveConfig
    from mteb_contrastive.training.cross_encoder import train_pair_classifier
    from mteb_contrastive.training.data import validation_pairs

    train = _pan14_sample(SHARED, 3)
    val = validation_pairs(_pan14_sample(SHARED, 3, offset=10), max_words=24, pairs_per_author=1, seed=0)
    out = tmp_path / "ce"
    summary = train_pair_classifier(
        train,
        val,
        out,
        ContrastiveConfig(
            base_model=bundled_minilm_path(),
            context_length=32,
            batch_size=6,
            epochs=2,
            logging_steps=1,
            learning_rate=1e-4,
        ),
        show_progress=False,
    )
    assert summary["global_step"] == 2
    cal = json.loads((out / "verification_calibration.json").read_text())
    assert cal["n_validation_pairs"] == len(val) and "cross-encoder" in cal["protocol"]
    p = CrossEncoder(str(out)).predict([("a b", "c d")])
    assert 0 < float(p[0]) < 1  # sigmoid output
    assert isinstance(mteb.get_model(str(out)), CrossEncoderWrapper)
