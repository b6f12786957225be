"""Kirby's calibration (make_pan21_answers.py of the authors' code) on fixtures small enough to check by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mteb_contrastive.metrics.calibration import CalibrationError, KirbyCalibrator, abstain, kirby_abstain


def test_logistic_regression_c1_on_two_pairs_solves_its_optimality_condition():
    # scores -1 (different) and +1 (same): by symmetry the intercept is 0, and the L2-penalised
    # likelihood 0.5 w^2 + 2 log(1 + exp(-w)) is minimal where w = 2 sigmoid(-w): w = 0.67492...
    cal = KirbyCalibrator().fit([-1.0, 1.0], [0, 1])
    w = cal.coef
    assert cal.intercept == pytest.approx(0.0, abs=1e-6)
    assert w == pytest.approx(2 / (1 + math.exp(w)), abs=1e-5) and w == pytest.approx(0.67492, abs=1e-4)
    # one pair of each class is enough: no cross-validation
    p = cal.probabilities([-1.0, 1.0])
    assert p[1] == pytest.approx(1 / (1 + math.exp(-w)))
    # the threshold: precision-recall thresholds -1 (F1 2/3) and 1 (F1 1)
    assert cal.threshold == 1.0
    # abstention: answering both scores every metric 1 but Brier: overall (4 + 1 - p0^2 ... ) / 5;
    # the widest band (0.20 > |p - 0.5| = 0.1626) abstains on both: overall (0.5 + 0 + 0 + 0 + 0.75) / 5
    brier = 1 - ((p[0] - 0) ** 2 + (p[1] - 1) ** 2) / 2
    assert cal.delta_curve[0.0] == pytest.approx((4 + brier) / 5)
    assert cal.delta_curve[0.2] == pytest.approx((0.5 + 0.75) / 5)
    assert cal.delta == 0.0  # ties (0 .. 0.15 all answer both) go to the smallest delta
    ans = cal.answers([-0.5, 1.5])
    assert ans["hard"].tolist() == [0.0, 1.0] and ans["platt_abstain"].tolist() == ans["platt"].tolist()


def test_abstention_band_is_compared_exactly_as_the_authors_do():
    # 0.55 - 0.5 is 0.05000000000000004 in floating point: outside a band of 0.05 for the authors' rule,
    # inside for this project's (1e-12 of slack)
    assert kirby_abstain([0.55, 0.45, 0.56], 0.05).tolist() == [0.55, 0.5, 0.56]
    assert abstain([0.55, 0.45, 0.56], 0.05).tolist() == [0.5, 0.5, 0.56]


def test_a_single_class_validation_is_one_clear_line():
    with pytest.raises(CalibrationError, match=r"validation \(Kirby's calibration\) split has only same-author pairs"):
        KirbyCalibrator().fit(np.array([0.2, 0.9]), np.array([1, 1]))
