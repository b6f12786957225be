"""Equal error rate and standardised partial AUC: by hand, against scikit-learn and STEB's rule, in verification."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mteb_contrastive.metrics.roc import (
    PAUC_MAX_FPRS,
    equal_error_rate,
    low_fpr_scores,
    pauc_key,
    standardised_partial_auc,
)


@pytest.mark.parametrize(
    ("labels", "scores", "eer"),
    [
        ([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], 0.5),  # the crossing is an ROC point: (FPR, TPR) = (0.5, 0.5)
        ([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9], 0.0),  # perfect
        ([0, 0, 1, 1], [0.8, 0.9, 0.1, 0.2], 1.0),  # reversed
        ([0, 1, 0, 1], [0.5, 0.5, 0.5, 0.5], 0.5),  # one tie: the diagonal
        # ROC (0,0) (0,.5) (1/3,.5) (1/3,1) ...: FNR - FPR = 1/6 then -1/3 on a vertical segment at FPR 1/3
        ([0, 0, 0, 1, 1], [0.1, 0.3, 0.5, 0.4, 0.6], 1 / 3),
        # ROC (0,.5) (1/3,.5) (2/3,.5): the crossing is halfway along a horizontal segment, FPR = FNR = 1/2
        ([0, 0, 0, 1, 1], [0.3, 0.5, 0.55, 0.6, 0.1], 0.5),
    ],
)
def test_equal_error_rate_by_hand(labels, scores, eer):
    assert equal_error_rate(labels, scores) == pytest.approx(eer)


def test_equal_error_rate_equals_the_root_of_the_interpolated_roc():
    """STEB's rule (brentq on 1 - x - interp1d(fpr, tpr)(x), scikit-learn's roc_curve) as the oracle."""
    from scipy.interpolate import interp1d
    from scipy.optimize import brentq
    from sklearn.metrics import roc_curve

    rng = np.random.default_rng(3)
    for _ in range(5):
        y = rng.integers(0, 2, 60)
        s = rng.normal(size=60) + 0.8 * y
        fpr, tpr, _ = roc_curve(y, s)
        roc = interp1d(fpr, tpr)
        oracle = brentq(lambda x, roc=roc: 1.0 - x - roc(x), 0.0, 1.0)
        assert equal_error_rate(y, s) == pytest.approx(oracle, abs=1e-9)


def test_partial_auc_by_hand_and_against_scikit_learn():
    from sklearn.metrics import roc_auc_score

    labels = [1, 0, 1, 0, 0, 0]
    scores = [0.9, 0.8, 0.4, 0.3, 0.2, 0.1]
    # ROC up to FPR 0.5: TPR 0.5 on [0, 0.25], 1 on [0.25, 0.5]: area 0.375; McClish: 0.5 (1 + (A - .125) / .375)
    assert standardised_partial_auc(labels, scores, 0.5) == pytest.approx(0.5 * (1 + 0.25 / 0.375))
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    s = rng.normal(size=400) + y
    for f in PAUC_MAX_FPRS:
        assert standardised_partial_auc(y, s, f) == pytest.approx(roc_auc_score(y, s, max_fpr=f))
    # a random scorer sits at the diagonal (0.5); all negatives first gives the minimum 0.5 (1 - f / (2 - f))
    y = rng.integers(0, 2, 200_000)
    assert standardised_partial_auc(y, rng.random(y.size), 0.05) == pytest.approx(0.5, abs=0.01)
    assert standardised_partial_auc([1, 1, 0, 0], [0.1, 0.2, 0.8, 0.9], 0.1) == pytest.approx(0.5 * (1 - 0.1 / 1.9))


def test_low_fpr_scores_withhold_a_cut_no_false_positive_fits_under():
    y = np.array([0] * 50 + [1] * 50)
    s = np.linspace(0, 1, 100)
    out = low_fpr_scores(y, s)
    assert out["n_negative_pairs"] == 50 and out["eer"] == 0.0 and out["random_eer"] == 0.5
    assert math.isnan(out["pauc_at_fpr_0_01"])  # 0.01 x 50 < 1
    assert out["pauc_at_fpr_0_05"] == 1.0 and out["pauc_at_fpr_0_10"] == 1.0
    assert out["pauc_withheld"] == "pauc_at_fpr_0_01: 50 negative pairs x 0.01 < 1"
    assert [pauc_key(f) for f in PAUC_MAX_FPRS] == ["pauc_at_fpr_0_01", "pauc_at_fpr_0_05", "pauc_at_fpr_0_10"]
    one = low_fpr_scores([1, 1, 1], [0.1, 0.2, 0.3])
    assert math.isnan(one["eer"]) and one["pauc_withheld"] == "one class in the labels: no ROC"


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="differ in length"):
        equal_error_rate([0, 1], [0.1])
    with pytest.raises(ValueError, match="0/1"):
        equal_error_rate([0, 2], [0.1, 0.2])
    with pytest.raises(ValueError, match="max_fpr"):
        standardised_partial_auc([0, 1], [0.1, 0.2], 0.0)


def test_verification_results_carry_eer_and_partial_auc(tmp_path, monkeypatch):
    import mteb
    from sklearn.metrics import roc_auc_score
    from test_verification import LetterEncoder, _pan_folder

    folder = _pan_folder(tmp_path / "pan21")
    monkeypatch.setenv("MTEB_CONTRASTIVE_PAN21", str(folder))
    task = mteb.get_task("PAN21Verification")
    scores = task.evaluate(LetterEncoder(), "test", encode_kwargs={"batch_size": 8})["default"]
    labels = np.asarray(task.dataset["default"]["test"]["labels"])
    # the test cosines, as the protocol computes them, give the same EER and partial AUC
    test = task.dataset["default"]["test"]
    distances = task._test_similarities(
        LetterEncoder(), "encoder", test, hf_split="test", hf_subset="default", encode_kwargs={}, num_proc=None
    )
    sims = np.asarray(distances["similarity_scores"])
    assert scores["eer"] == pytest.approx(equal_error_rate(labels, sims))
    assert scores["n_negative_pairs"] == int((labels == 0).sum()) == 15
    assert math.isnan(scores["pauc_at_fpr_0_05"])  # 0.05 x 15 < 1: withheld
    assert scores["pauc_at_fpr_0_10"] == pytest.approx(roc_auc_score(labels, sims, max_fpr=0.1))
    assert scores["random_eer"] == 0.5 and "pauc_at_fpr_0_05" in scores["pauc_withheld"]
    assert "eer" not in scores["test_fitted_metrics"].split(",")
