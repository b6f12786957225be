"""Kirby protocol fidelity: pan_hard_accuracy, test-fitted mteb metrics named, the paper's abstention grid,
prompt types of the two texts of a pair."""

from __future__ import annotations

import numpy as np
import pytest
from test_verification import LetterEncoder, _pan_folder, _task

from mteb_contrastive.metrics.calibration import DELTA_GRID, Calibrator
from mteb_contrastive.protocols.verification import keys_fitted_on_test as fitted_keys


def test_default_abstention_grid_is_the_papers():
    assert DELTA_GRID == (0.0, 0.005, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.075, 0.10, 0.125, 0.15, 0.20)
    assert Calibrator().grid == DELTA_GRID


def test_keys_fitted_on_test():
    keys = [
        "cosine_accuracy",
        "cosine_accuracy_threshold",
        "cosine_f1",
        "cosine_f1_threshold",
        "cosine_precision",
        "cosine_recall",
        "cosine_ap",
        "cosine_ap_weighted",
        "max_ap",
        "max_f1",
        "similarity_accuracy",
        "similarity_ap",
        "pan_hard_accuracy",
        "threshold",
        "n_pairs",
    ]
    assert fitted_keys(keys) == sorted(
        [
            "cosine_accuracy",
            "cosine_accuracy_threshold",
            "cosine_f1",
            "cosine_f1_threshold",
            "cosine_precision",
            "cosine_recall",
            "max_ap",
            "max_f1",
            "similarity_accuracy",
        ]
    )


class RoleEncoder(LetterEncoder):
    """Records the prompt type of every encoded text."""

    def __init__(self):
        super().__init__()
        self.roles: list[tuple[str, str]] = []

    def encode(self, inputs, prompt_type=None, **kwargs):
        batches = list(inputs)
        for b in batches:
            self.roles.extend((prompt_type.value, t) for t in b["text"])
        return super().encode(batches, **kwargs)


def test_pan_hard_accuracy_and_flags(tmp_path, monkeypatch):
    import json

    from mteb_contrastive.data.pan import read_truth

    folder = _pan_folder(tmp_path / "pan21")
    monkeypatch.setenv("MTEB_CONTRASTIVE_PAN21", str(folder))
    monkeypatch.delenv("MTEB_CONTRASTIVE_ANSWERS_DIR", raising=False)
    model = RoleEncoder()
    scores = _task("PAN21Verification").evaluate(model, "test", encode_kwargs={"batch_size": 8})["default"]

    rows = {
        s: [json.loads(x) for x in (folder / s / "pairs.jsonl").read_text().splitlines()]
        for s in ("validation", "test")
    }

    def cosines(split):
        e = LetterEncoder()
        a = e.encode([{"text": [r["pair"][0] for r in rows[split]]}])
        b = e.encode([{"text": [r["pair"][1] for r in rows[split]]}])
        return np.sum(a * b, 1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)

    val_y = np.array([int(r["same"]) for r in read_truth(folder / "validation" / "truth.jsonl")])
    test_y = np.array([int(r["same"]) for r in read_truth(folder / "test" / "truth.jsonl")])
    t = Calibrator().fit(cosines("validation"), val_y).threshold
    # the paper's headline: accuracy of cosine >= validation threshold on test
    assert scores["pan_hard_accuracy"] == pytest.approx(np.mean((cosines("test") >= t) == (test_y == 1)))
    flagged = scores["test_fitted_metrics"].split(",")
    assert "cosine_accuracy" in flagged and "max_f1" in flagged and "cosine_ap" not in flagged
    assert all(k in scores for k in flagged)
    # first text of a pair as query, second as document, each distinct (role, text) once
    for split in ("validation", "test"):
        assert {("query", r["pair"][0]) for r in rows[split]} <= set(model.roles)
        assert {("document", r["pair"][1]) for r in rows[split]} <= set(model.roles)
    assert {role for role, _ in model.roles} == {"query", "document"}
    assert len(model.roles) == len(set(model.roles))
