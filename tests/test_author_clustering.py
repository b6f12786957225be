"""Author clustering: mteb's V-measure on given vectors, by hand; its exact chance level, checked two ways."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from conftest import TableEncoder

from mteb_contrastive.data.attribution_builder import build_attribution_dataset
from mteb_contrastive.metrics.clustering import (
    cluster_sizes,
    expected_mutual_information,
    expected_v_measure,
    simulated_v_measure,
)


def _clustering_task(tmp_path, rows):
    from mteb_contrastive.catalog import folder_task_classes

    folder = build_attribution_dataset(rows, tmp_path / "ds", "Clu", chunk_words=5, min_words=1, languages=["en"])
    (cls,) = [c for c in folder_task_classes(folder) if c.metadata.name == "CluAuthorClustering"]
    return cls()


def test_v_measure_through_mteb_equals_the_hand_value(tmp_path):
    # authors A (t1, t2) and B (t3, t4); t1-t3 point one way, t4 the other: K-means (K = 2) gives [0, 0, 0, 1]
    rows = [
        {"id": "t1", "author": "A", "text": "one"},
        {"id": "t2", "author": "A", "text": "two"},
        {"id": "t3", "author": "B", "text": "three"},
        {"id": "t4", "author": "B", "text": "four"},
        {"id": "s", "author": "C", "text": "single"},  # one text: not clustered
        {"id": "q", "author": None, "text": "questioned"},  # questioned: not clustered
    ]
    vectors = {
        "one": [0, 1],
        "two": [0.05, 1],
        "three": [0.1, 1],
        "four": [1, 0],
        "single": [1, 1],
        "questioned": [1, 0],
    }
    task = _clustering_task(tmp_path, rows)
    scores = task.evaluate(TableEncoder(vectors), "test", encode_kwargs={"batch_size": 2}, prediction_folder=tmp_path)
    s = scores["default"]
    # gold sizes 2, 2; clusters 3, 1; contingency A: (2, 0), B: (1, 1)
    mi = 0.5 * math.log(4 * 2 / (2 * 3)) + 0.25 * math.log(4 * 1 / (2 * 3)) + 0.25 * math.log(4 * 1 / (2 * 1))
    h_gold = math.log(2)
    h_clusters = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))
    assert s["v_measure"] == pytest.approx(2 * mi / (h_gold + h_clusters))  # 0.3437...
    assert s["main_score"] == s["v_measure"] and s["v_measure_std"] == 0.0
    assert s["n_texts"] == 4 and s["n_authors"] == 2
    # chance with the clustering's sizes 3, 1: wherever the single text goes, the contingency is (2, 0), (1, 1)
    # up to relabelling, so every random assignment scores what K-means scored
    assert s["random_v_measure"] == pytest.approx(s["v_measure"])
    # with the authors' sizes 2, 2: 6 equally likely assignments, two match the authors (V = 1), four mix (V = 0)
    assert s["random_v_measure_author_sizes"] == pytest.approx(2 / 6)
    (pred,) = tmp_path.rglob("CluAuthorClustering_predictions.json")
    out = json.loads(pred.read_text())["default"]["test"]
    assert out["id"] == ["t1", "t2", "t3", "t4"] and out["author"] == ["A", "A", "B", "B"]
    assert len(set(out["cluster"][:3])) == 1 and out["cluster"][3] != out["cluster"][0]


def test_expected_v_measure_equals_scikit_learns_expected_mutual_information():
    """E[MI] of the permutation model is what adjusted_mutual_info_score subtracts:
    AMI = (MI - E[MI]) / (mean(H) - E[MI]) gives E[MI] back from any one labelling."""
    from sklearn.metrics import adjusted_mutual_info_score, mutual_info_score

    gold = np.repeat([0, 1, 2, 3], [5, 3, 4, 2])
    other = np.random.default_rng(1).permutation(gold)
    mi = mutual_info_score(gold, other)
    ami = adjusted_mutual_info_score(gold, other, average_method="arithmetic")
    h = -sum(c / 14 * math.log(c / 14) for c in (5, 3, 4, 2))
    assert expected_mutual_information([5, 3, 4, 2], [5, 3, 4, 2]) == pytest.approx((mi - ami * h) / (1 - ami))
    assert expected_v_measure([5, 3, 4, 2], [5, 3, 4, 2]) == pytest.approx(
        2 * expected_mutual_information([5, 3, 4, 2], [5, 3, 4, 2]) / (2 * h)
    )


def test_expected_v_measure_against_a_seeded_simulation():
    labels = np.repeat([0, 1, 2, 3], [5, 3, 4, 2])
    exact = expected_v_measure(cluster_sizes(labels), cluster_sizes(labels))
    mean, se = simulated_v_measure(labels, n_draws=2000, seed=0)
    assert abs(mean - exact) < 4 * se and exact == pytest.approx(0.3204, abs=1e-4)
    assert expected_v_measure([4], [4]) == 1.0  # one cluster on both sides: scikit-learn's value
    with pytest.raises(ValueError, match="different numbers"):
        expected_v_measure([2, 2], [3])


def test_a_pair_scorer_gets_a_withheld_score(tmp_path):
    from mteb_contrastive.baselines.sparse import TfidfBaseline

    rows = [{"id": f"t{i}", "author": "AB"[i % 2], "text": f"word{i} common"} for i in range(4)]
    s = _clustering_task(tmp_path, rows).evaluate(
        TfidfBaseline("mteb-contrastive/tfidf-words"), "test", encode_kwargs={}
    )
    s = s["default"]
    assert math.isnan(s["v_measure"]) and "gives no vectors" in s["v_measure_withheld"]
    assert "random_v_measure" not in s and s["random_v_measure_author_sizes"] == pytest.approx(2 / 6)
