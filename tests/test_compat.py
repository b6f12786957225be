"""Every private mteb function the project wraps still exists with the parameters we pass (fails loudly on an mteb change)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mteb_contrastive import compat


@pytest.mark.parametrize("target", sorted(compat.EXPECTED))
def test_private_function_signature(target):
    compat.check(target)


def test_check_names_what_changed():
    compat.EXPECTED["mteb._create_dataloaders:nope"] = ("x",)
    try:
        with pytest.raises(RuntimeError, match=r"mteb changed: mteb._create_dataloaders:nope not found"):
            compat.check("mteb._create_dataloaders:nope")
    finally:
        del compat.EXPECTED["mteb._create_dataloaders:nope"]


def test_combine_queries_with_instruction_text():
    from datasets import Dataset

    ds = compat.combine_queries_with_instruction_text(Dataset.from_dict({"id": ["q"], "text": ["find x"], "instruction": ["in French"]}))
    assert ds["text"] == ["find x in French"] and ds["query"] == ["find x"]


def test_pair_classification_metrics_and_predictions(tmp_path):
    import mteb
    from mteb.abstasks.pair_classification import AbsTaskPairClassification

    task = next(t for t in mteb.get_tasks(task_types=["PairClassification"]) if isinstance(t, AbsTaskPairClassification))
    sims = [0.9, 0.8, 0.2, 0.1]
    d = {"similarity_scores": sims, "cosine_scores": sims, "euclidean_distances": [1 - s for s in sims], "manhattan_distances": [1 - s for s in sims], "dot_scores": sims}
    scores = compat.pair_classification_metrics(task, d, [1, 1, 0, 0])
    assert scores["similarity_accuracy"] == 1.0 and scores["similarity_ap"] == 1.0

    class Model:
        class mteb_model_meta:
            name, revision = "m", "1"

    compat.save_task_predictions(task, {"per_item": {"name": "accuracy", "ids": [1], "values": [1.0]}}, Model, tmp_path, hf_split="test", hf_subset="default")
    from mteb_contrastive.registration import prediction_subfolder

    # predictions go to a per-model folder (registration._patch_predictions_path)
    data = json.loads((prediction_subfolder(tmp_path, "m", "1") / f"{task.metadata.name}_predictions.json").read_text())
    assert data["default"]["test"]["per_item"]["values"] == [1.0]


def test_pair_classification_metric_values():
    import mteb
    from mteb.abstasks.pair_classification import AbsTaskPairClassification

    task = next(t for t in mteb.get_tasks(task_types=["PairClassification"]) if isinstance(t, AbsTaskPairClassification))
    # scores 0.9, 0.8 (same author), 0.3, 0.1 (different): any threshold in (0.3, 0.8] separates them
    v = compat.pair_classification_metric_values(task, [0.9, 0.8, 0.3, 0.1], np.array([1, 1, 0, 0]))
    assert (v["accuracy"], v["f1"], v["ap"]) == (1.0, 1.0, 1.0)
    # as distances (low = similar) the two same-author pairs rank 3rd and 4th: AP = (1/3 + 2/4) / 2 = 5/12
    d = compat.pair_classification_metric_values(task, [0.9, 0.8, 0.3, 0.1], np.array([1, 1, 0, 0]), high_score_more_similar=False)
    assert d["ap"] == pytest.approx(5 / 12)
