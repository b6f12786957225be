"""Calibration fitted on validation: threshold, Platt scaling, abstention band."""

from __future__ import annotations

import numpy as np
import pytest

from mteb_contrastive.metrics.calibration import (
    DELTA_GRID,
    CalibrationError,
    Calibrator,
    abstain,
    fit_abstention,
    fit_platt,
    fit_threshold,
)
from mteb_contrastive.metrics.pan import evaluate_all


def test_threshold_maximises_f1():
    # sorted: 0.8 (1), 0.4 (0), 0.35 (1), 0.1 (0); F1 by cut: 2/3, 1/2, 4/5, 2/3 -> cut below 0.35
    assert fit_threshold([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]) == pytest.approx(0.225)


def test_threshold_never_splits_tied_scores():
    # cutting between the two 0.5s would give F1 1.0 but depends on row order; next best: below both
    assert fit_threshold([0.5, 0.5, 0.2], [1, 0, 0]) == pytest.approx(0.35)
    assert fit_threshold([0.5, 0.5, 0.2], [0, 1, 0]) == pytest.approx(0.35)


def test_threshold_everything_same_when_that_is_best():
    t = fit_threshold([0.3, 0.2, 0.1], [1, 1, 0])
    # F1 by cut: 2/3, 1.0 (cut below 0.2), 0.8 -> cut between 0.2 and 0.1
    assert t == pytest.approx(0.15)


@pytest.mark.parametrize("method", ["sigmoid", "logistic"])
def test_platt_is_calibrated_in_the_mean(method):
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 200)
    s = np.concatenate([rng.normal(0.3, 0.1, 200), rng.normal(0.5, 0.1, 200)])
    platt = fit_platt(s, y, method=method)
    assert platt.coef > 0
    p = platt.predict(s)
    assert np.all((p > 0) & (p < 1))
    # maximum likelihood with an intercept: mean prediction = mean target (201/202 and 1/202 for
    # Platt's smoothed targets, 1 and 0 for the plain fit: 0.5 either way here)
    assert p.mean() == pytest.approx(0.5, abs=1e-3)
    # and the decision boundary sits half-way between the class means
    assert -platt.intercept / platt.coef == pytest.approx(0.4, abs=0.03)


def test_abstention_band():
    assert abstain([0.45, 0.55, 0.6, 0.1], 0.05).tolist() == [0.5, 0.5, 0.6, 0.1]
    assert abstain([0.45, 0.55], 0.0).tolist() == [0.45, 0.55]


def test_abstention_delta_maximises_overall_ties_to_smaller():
    y = [1, 1, 0, 0]
    p = [0.9, 0.45, 0.1, 0.55]  # the two answers near 0.5 are wrong
    delta, curve = fit_abstention(p, y)
    assert sorted(curve) == list(DELTA_GRID)
    # delta 0: AUC 0.75, c@1 0.5, F1 0.5, F0.5u 0.5, Brier 0.84375
    assert curve[0.0] == pytest.approx((0.75 + 0.5 + 0.5 + 0.5 + 0.84375) / 5)
    # from 0.05 to 0.20 the same two pairs abstain, so all those deltas tie: the smallest wins
    assert delta == 0.05
    assert curve[0.05] == pytest.approx(evaluate_all(y, [0.9, 0.5, 0.1, 0.5])["overall"])
    assert len({round(curve[d], 12) for d in DELTA_GRID if d >= 0.05}) == 1


def test_no_abstention_when_it_does_not_help():
    delta, curve = fit_abstention([0.9, 0.8, 0.2, 0.1], [1, 1, 0, 0])
    assert delta == 0.0
    assert len(set(curve.values())) == 1


@pytest.mark.parametrize("labels", [[1, 1, 1], [0, 0, 0]])
def test_single_class_validation_is_a_clear_error(labels):
    with pytest.raises(CalibrationError, match="only (same|different)-author pairs"):
        Calibrator().fit([0.1, 0.5, 0.9], labels)
    with pytest.raises(CalibrationError):
        fit_threshold([0.1, 0.5, 0.9], labels)
    with pytest.raises(CalibrationError):
        fit_platt([0.1, 0.5, 0.9], labels)


def test_empty_validation_is_a_clear_error():
    with pytest.raises(CalibrationError, match="empty"):
        Calibrator().fit([], [])


def test_fitted_on_validation_applied_unchanged_to_test():
    val_s, val_y = np.array([0.1, 0.2, 0.3, 0.6, 0.7, 0.35]), np.array([0, 0, 1, 1, 1, 0])
    cal = Calibrator().fit(val_s, val_y)
    params = cal.params()
    test = np.array([0.05, 0.5, 0.95])
    a = cal.answers(test)
    assert cal.params() == params  # answering does not refit
    assert a["hard"].tolist() == [float(x >= params["threshold"]) for x in test]
    assert a["platt"] == pytest.approx(1 / (1 + np.exp(-(params["platt_coef"] * test + params["platt_intercept"]))))
    assert a["platt_abstain"].tolist() == abstain(a["platt"], params["abstain_delta"]).tolist()
    # refitting on other data changes the parameters: they really come from the data given to fit
    other = Calibrator().fit(val_s + 0.2, val_y)
    assert other.threshold == pytest.approx(cal.threshold + 0.2)


def test_answers_before_fit_is_an_error():
    with pytest.raises(RuntimeError, match="fit"):
        Calibrator().answers([0.1])


def test_logistic_platt_is_the_maximum_likelihood_fit_even_with_weak_signal():
    """A narrow range of cosines with little signal: the fit must not stop at slope 0 (all p = 0.5)."""
    import numpy as np
    from scipy.optimize import minimize

    from mteb_contrastive.metrics.calibration import PlattScaler

    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 150)
    s = 0.6 + 0.08 * rng.standard_normal(300) + 0.01 * y  # weak signal, like char 3-grams on PAN14
    p = PlattScaler.fit(s, y, method="logistic")

    def nll(w):  # log-loss + sklearn's L2 penalty on the slope only, C = 1e4
        z = w[0] * s + w[1]
        return np.sum(np.logaddexp(0, z) - y * z) + 0.5 * w[0] ** 2 / 1e4

    ref = minimize(nll, np.zeros(2), method="BFGS", options={"gtol": 1e-10}).x
    assert p.coef != 0.0
    assert p.coef == pytest.approx(ref[0], rel=1e-4) and p.intercept == pytest.approx(ref[1], rel=1e-4)


S_PLATT = np.array([-3, -1, -0.5, 0.5, 1, 3], dtype=np.float64)
Y_PLATT = np.array([0, 0, 1, 0, 1, 1])


def test_platt_uses_platts_smoothed_targets():
    """Platt (1999) section 2.2: targets 1/(N- + 2) = 0.2 and (N+ + 1)/(N+ + 2) = 0.8 here.

    The data are antisymmetric (s -> -s swaps the labels), so the fit has intercept 0 and
    p(-3) = 1 - p(3); the slope solves sum_i (t_i - p_i) s_i = 0 with those targets. Checked
    against an independent minimisation of the cross-entropy with the smoothed targets.
    """
    from scipy.optimize import minimize_scalar

    p = fit_platt(S_PLATT, Y_PLATT).predict(S_PLATT)
    assert p[0] == pytest.approx(0.19787, abs=5e-6) and p[-1] == pytest.approx(0.80213, abs=5e-6)
    t = np.where(Y_PLATT == 1, 4 / 5, 1 / 5)

    def xent(a):
        q = 1 / (1 + np.exp(-a * S_PLATT))
        return -np.sum(t * np.log(q) + (1 - t) * np.log(1 - q))

    a = minimize_scalar(xent, bounds=(0, 5), method="bounded", options={"xatol": 1e-12}).x
    np.testing.assert_allclose(p, 1 / (1 + np.exp(-a * S_PLATT)), atol=1e-7)
    # a plain logistic regression on 0/1 labels gives a steeper, different curve
    assert fit_platt(S_PLATT, Y_PLATT, method="logistic").predict(S_PLATT)[0] < 0.19


@pytest.mark.parametrize("transform", [lambda s: 1e5 * s, lambda s: 0.8 + 1e-3 * s, lambda s: -7.0 + 2.5 * s])
def test_platt_is_invariant_to_the_scale_and_offset_of_the_scores(transform):
    ref = fit_platt(S_PLATT, Y_PLATT).predict(S_PLATT)
    x = transform(S_PLATT)
    np.testing.assert_allclose(fit_platt(x, Y_PLATT).predict(x), ref, atol=1e-9)
    # through the Calibrator, as the verification protocol uses it
    cal = Calibrator().fit(x, Y_PLATT)
    np.testing.assert_allclose(cal.answers(x)["platt"], ref, atol=1e-9)


def test_unknown_platt_method_is_an_error():
    with pytest.raises(ValueError, match="Platt method"):
        fit_platt(S_PLATT, Y_PLATT, method="isotonic")


def test_the_papers_headline_accuracy_is_kirbys_threshold_not_the_midpoint():
    """Names by rule: ``pan_hard_accuracy`` uses the midpoint threshold, the paper's headline number is
    ``pan_kirby_hard_accuracy`` (Kirby's threshold: an observed validation score)."""
    import re
    from pathlib import Path

    from mteb_contrastive.metrics.calibration import kirby_threshold

    val, labels = [0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]
    # sorted: 0.8 (1), 0.4 (0), 0.35 (1), 0.1 (0); F1 of cutting after each: 2/3, 1/2, 4/5, 2/3 -> cut after 0.35
    assert fit_threshold(val, labels) == pytest.approx(0.225)  # midpoint of 0.35 and 0.1
    assert kirby_threshold(val, labels) == pytest.approx(0.35)  # the observed score
    # a test pair scored 0.3 of different authors: right by Kirby's rule, wrong by the midpoint
    assert (0.3 >= fit_threshold(val, labels), 0.3 >= kirby_threshold(val, labels)) == (True, False)
    root = Path(__file__).resolve().parents[1]
    texts = {
        p: (root / p).read_text(encoding="utf-8")
        for p in ("docs/verification.md", "docs/calibration.md", "src/mteb_contrastive/protocols/verification.py")
    }
    for path, text in texts.items():
        clauses = re.split(r"(?<=[.;|])\s", re.sub(r"\s+", " ", text))
        heads = [c for c in clauses if "headline number" in c]
        assert heads, path
        for clause in heads:  # each "headline number" names the Kirby accuracy, in its own clause
            assert "pan_kirby_hard_accuracy" in clause, (path, clause)
