"""Turning similarity scores into PAN answers, fitted on a validation split only.

Protocol of "Contrastive Learning for Authorship Verification" (Kirby): a bi-encoder scores a pair
by cosine similarity; everything that maps scores to answers is fitted on validation and then
applied unchanged to test.

* :func:`fit_threshold` -- the cosine threshold maximising F1 on validation (hard answers 0/1).
* :func:`fit_platt` -- Platt scaling ``p = sigmoid(a * s + b)`` fitted on the validation scores with
  Platt's smoothed targets (Platt 1999; scikit-learn's sigmoid calibration), invariant to the
  scale and offset of the scores; a plain logistic regression is kept as the ``"logistic"`` option.
* :func:`fit_abstention` -- an abstention band: a calibrated ``p`` with ``|p - 0.5| <= delta``
  becomes the PAN non-answer 0.5; ``delta`` is taken from the paper's grid (:data:`DELTA_GRID`,
  0 to 0.20) to maximise the PAN overall score on validation, ties going to the smaller delta.

:class:`Calibrator` bundles the three; ``Calibrator.fit(val_scores, val_labels)`` then
``calibrator.answers(test_scores)`` gives the three kinds of answers.

Example::

    >>> import numpy as np
    >>> cal = Calibrator().fit(np.array([0.1, 0.2, 0.8, 0.9]), np.array([0, 0, 1, 1]))
    >>> cal.threshold
    0.5
    >>> cal.answers(np.array([0.3, 0.7]))["hard"].tolist()
    [0.0, 1.0]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mteb_contrastive.metrics.pan import evaluate_all, evaluate_all_batch

#: the abstention grid of Kirby, "Contrastive Learning for Authorship Verification" (the band
#: half-widths searched on validation): {0, .005, .01, .015, .02, .03, .04, .05, .075, .10, .125, .15, .20},
#: as quoted in the project's issue 8 (the paper's text was not reachable from this machine).
DELTA_GRID = (0.0, 0.005, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.075, 0.10, 0.125, 0.15, 0.20)


class CalibrationError(ValueError):
    """Calibration is impossible on the given validation data (e.g. a single class)."""


def _check(scores: Any, labels: Any, what: str = "validation") -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(scores, dtype=np.float64).ravel()
    y = np.asarray(labels, dtype=np.int64).ravel()
    if s.shape != y.shape:
        raise ValueError(f"{what}: {s.size} scores but {y.size} labels")
    if s.size == 0:
        raise CalibrationError(f"{what} split is empty: nothing to calibrate on")
    if not np.all(np.isfinite(s)):
        raise ValueError(f"{what}: scores contain NaN or infinity")
    classes = np.unique(y)
    if classes.size < 2:
        name = "same-author" if classes[0] == 1 else "different-author"
        raise CalibrationError(
            f"{what} split has only {name} pairs ({y.size} pairs): threshold, Platt scaling and "
            "abstention need both classes"
        )
    return s, y


def fit_threshold(scores: Any, labels: Any) -> float:
    """The score threshold maximising F1 of the "same" class on validation.

    Candidates are midpoints between consecutive distinct sorted scores (a threshold never splits
    tied scores) plus one below the minimum; a pair is "same" when ``score >= threshold``. Ties in
    F1 go to the higher threshold (fewer "same" answers).

    Raises:
        CalibrationError: single-class or empty validation.
    """
    s, y = _check(scores, labels)
    order = np.argsort(-s, kind="stable")
    s_sorted, y_sorted = s[order], y[order]
    tp = np.cumsum(y_sorted)
    k = np.arange(1, s.size + 1)  # number predicted "same" when cutting after position k-1
    pos = y.sum()
    f1 = 2 * tp / (k + pos)
    # a cut is only possible where the next score differs (or at the end)
    valid = np.ones(s.size, dtype=bool)
    valid[:-1] = s_sorted[:-1] != s_sorted[1:]
    f1 = np.where(valid, f1, -1.0)
    best = int(np.argmax(f1))  # first maximum = highest threshold
    if best == s.size - 1:
        return float(s_sorted[-1])  # everything "same": threshold at the lowest score
    return float((s_sorted[best] + s_sorted[best + 1]) / 2)


#: Platt-scaling methods: ``"sigmoid"`` (default; Platt 1999 with his smoothed targets, scikit-learn's
#: sigmoid calibration) and ``"logistic"`` (a plain, nearly unpenalised logistic regression on 0/1 labels)
PLATT_METHODS = ("sigmoid", "logistic")


def _standardise(s: np.ndarray) -> tuple[float, float]:
    """Mean and standard deviation of the validation scores (sd 1.0 when all scores are equal)."""
    m, sd = float(np.mean(s)), float(np.std(s))
    return m, (sd if sd > 0 and np.isfinite(sd) else 1.0)


def _sklearn_sigmoid(z: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """scikit-learn's sigmoid calibration of scores ``z``: ``(A, B)`` with ``p = 1 / (1 + exp(A z + B))``.

    Through the public API: ``CalibratedClassifierCV(FrozenEstimator(identity), method="sigmoid")``;
    the frozen identity classifier makes its predictions the scores themselves, so the one fitted
    calibrator is Platt's fit on all of ``z`` (targets ``(N+ + 1) / (N+ + 2)`` and
    ``1 / (N- + 2)``, Platt 1999 section 2.2; ``sklearn.calibration._sigmoid_calibration``). The
    cross-validation is one "fold" holding every pair (nothing is fitted but the calibrator): with
    ``KFold(2)`` scikit-learn refused a split with one pair of a class ("Requesting 2-fold
    cross-validation ...", a traceback), although Platt's smoothed targets need only one pair of
    each class (one pair each, scores ``z = -1, 1``: ``p = 1/3, 2/3``).
    """
    import warnings

    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.frozen import FrozenEstimator

    class _Identity(ClassifierMixin, BaseEstimator):
        def fit(self, X: Any, y: Any) -> _Identity:
            self.classes_ = np.array([0, 1])
            return self

        def decision_function(self, X: Any) -> np.ndarray:
            return np.asarray(X, dtype=np.float64)[:, 0]

        def predict(self, X: Any) -> np.ndarray:
            return (self.decision_function(X) > 0).astype(np.int64)

    x = z.reshape(-1, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        every = np.arange(len(y))
        cal = CalibratedClassifierCV(FrozenEstimator(_Identity().fit(x, y)), method="sigmoid", cv=[(every, every)]).fit(
            x, y
        )
    sig = cal.calibrated_classifiers_[0].calibrators[0]
    return float(sig.a_), float(sig.b_)


@dataclass
class PlattScaler:
    """``p = sigmoid(coef * score + intercept)``, fitted on validation scores and labels.

    Two methods (:data:`PLATT_METHODS`):

    * ``"sigmoid"`` (default) -- Platt scaling as Platt defined it ("Probabilistic outputs for support
      vector machines", 1999, section 2.2): maximum likelihood of a sigmoid with his *smoothed
      targets* ``(N+ + 1) / (N+ + 2)`` for positives and ``1 / (N- + 2)`` for negatives -- the
      objective of scikit-learn's sigmoid calibration (``CalibratedClassifierCV(method="sigmoid")``,
      :func:`_sklearn_sigmoid`), solved to its optimum by :func:`platt_sigmoid_batch` (Newton, one
      implementation for one fit and for the 1,000 of a simulated chance level; scikit-learn's
      L-BFGS stops within ``gtol`` 1e-6 of it: parameters within about 1e-6). The scores
      are standardised on validation (mean 0, sd 1) first, and the smoothed targets carry no
      penalty on the slope, so the probabilities do not depend on the scale or offset of the
      scores: ``s``, ``1e5 * s`` and ``0.8 + 1e-3 * s`` (cosines in a narrow band) give the same
      ``p``. ``coef``/``intercept`` are reported on the raw score scale.
    * ``"logistic"`` -- the earlier plain logistic regression on 0/1 labels
      (``LogisticRegression``, L2, C=1e4, lbfgs to tol 1e-10), kept as a documented option. Its
      L2 penalty acts on the raw slope, so on a narrow band of cosines it shrinks toward p = 0.5.

    Example (Platt's targets): scores ``[-3, -1, -0.5, 0.5, 1, 3]``, labels ``[0, 0, 1, 0, 1, 1]``
    give p = 0.19787 for the first and 0.80213 for the last.
    """

    coef: float = 1.0
    intercept: float = 0.0
    method: str = "sigmoid"

    @classmethod
    def fit(cls, scores: Any, labels: Any, *, method: str = "sigmoid") -> PlattScaler:
        """Fit on validation scores/labels with ``method`` (see the class docstring).

        Raises:
            ValueError: unknown ``method``.
            CalibrationError: single-class or empty validation.
        """
        if method not in PLATT_METHODS:
            raise ValueError(f"Platt method must be one of {PLATT_METHODS}, got {method!r}")
        s, y = _check(scores, labels)
        if method == "logistic":
            from sklearn.linear_model import LogisticRegression

            # tol far below the default 1e-4: with weak signal lbfgs otherwise stops at its start (slope 0)
            lr = LogisticRegression(C=1e4, solver="lbfgs", tol=1e-10, max_iter=10_000)
            lr.fit(s.reshape(-1, 1), y)
            return cls(coef=float(lr.coef_[0, 0]), intercept=float(lr.intercept_[0]), method=method)
        coef, intercept = platt_sigmoid_batch(s[None, :], y[None, :])
        return cls(coef=float(coef[0]), intercept=float(intercept[0]), method=method)

    def predict(self, scores: Any) -> np.ndarray:
        """Probabilities in (0, 1) for ``scores`` (any shape; float64)."""
        from scipy.special import expit

        return expit(self.coef * np.asarray(scores, dtype=np.float64) + self.intercept)


def fit_platt(scores: Any, labels: Any, *, method: str = "sigmoid") -> PlattScaler:
    """Platt scaling fitted on validation (see :class:`PlattScaler`)."""
    return PlattScaler.fit(scores, labels, method=method)


def abstain(p: Any, delta: float) -> np.ndarray:
    """Answers with ``|p - 0.5| <= delta`` replaced by the PAN non-answer 0.5.

    The comparison allows 1e-12 of floating-point slack, so that ``0.55`` is inside a band of
    ``0.05`` (``0.55 - 0.5`` is ``0.05000000000000004`` in binary floating point).
    """
    p = np.asarray(p, dtype=np.float64)
    return np.where(np.abs(p - 0.5) <= delta + 1e-12, 0.5, p)


def fit_abstention(
    p: Any, labels: Any, *, grid: tuple[float, ...] = DELTA_GRID, year: int = 2021
) -> tuple[float, dict[float, float]]:
    """The band half-width ``delta`` maximising the PAN overall score on validation.

    Args:
        p: calibrated validation probabilities (Platt).
        grid: candidate deltas, scanned in increasing order; ties go to the smaller delta.
        year: whose overall score to maximise (:func:`~mteb_contrastive.metrics.pan.evaluate_all`):
            2021 (default; mean of five, F0.5u counting 0.5 as a non-answer) or 2020.

    Returns:
        (delta, {delta: validation overall}).

    Raises:
        CalibrationError: single-class or empty validation.
    """
    p, y = _check(p, labels)
    curve: dict[float, float] = {}
    best_delta, best = None, -np.inf
    for d in sorted(grid):
        score = evaluate_all(y, abstain(p, d), year=year)["overall"]
        curve[float(d)] = score
        if score > best + 1e-12:
            best_delta, best = float(d), score
    return best_delta, curve


@dataclass
class Calibrator:
    """Threshold, Platt scaling and abstention band, fitted on validation together.

    ``year`` (2021 or 2020) picks the overall score the abstention band maximises;
    ``platt_method`` is one of :data:`PLATT_METHODS` (default ``"sigmoid"``, Platt's own fit).
    Attributes (after :meth:`fit`): ``threshold``, ``platt``, ``delta``, ``delta_curve``.
    """

    grid: tuple[float, ...] = DELTA_GRID
    year: int = 2021
    platt_method: str = "sigmoid"
    threshold: float | None = None
    platt: PlattScaler | None = None
    delta: float | None = None
    delta_curve: dict[float, float] = field(default_factory=dict)

    def fit(self, scores: Any, labels: Any) -> Calibrator:
        """Fit everything on validation scores and labels.

        Raises:
            CalibrationError: single-class or empty validation.
        """
        s, y = _check(scores, labels)
        self.threshold = fit_threshold(s, y)
        self.platt = fit_platt(s, y, method=self.platt_method)
        self.delta, self.delta_curve = fit_abstention(self.platt.predict(s), y, grid=self.grid, year=self.year)
        return self

    def answers(self, scores: Any) -> dict[str, np.ndarray]:
        """PAN answers for (test) scores: ``hard`` (0/1 at the threshold), ``platt``, ``platt_abstain``."""
        if self.platt is None or self.threshold is None or self.delta is None:
            raise RuntimeError("Calibrator.fit must be called first (on the validation split)")
        s = np.asarray(scores, dtype=np.float64)
        p = self.platt.predict(s)
        return {
            "hard": (s >= self.threshold).astype(np.float64),
            "platt": p,
            "platt_abstain": abstain(p, self.delta),
        }

    def params(self) -> dict[str, float]:
        """The fitted parameters, for the result file."""
        return {
            "threshold": float(self.threshold),
            "platt_coef": float(self.platt.coef),
            "platt_intercept": float(self.platt.intercept),
            "abstain_delta": float(self.delta),
        }


# --- Kirby's calibration, as the authors' code runs it ---------------------------------------------------------------
#
# github.com/petekirby/contrastive-av: ``helper_functions/contrastive_eval.py:22-40`` (the F1 threshold of model
# selection and of the paper's accuracy / F1) and ``make_pan21_answers.py`` (Platt as a plain logistic regression,
# the abstention grid). Beside the smoothed Platt scaling above, under its own names (``kirby_*``).


def kirby_threshold(scores: Any, labels: Any) -> float:
    """The F1-maximising threshold as the authors pick it: scikit-learn ``precision_recall_curve`` on
    validation, F1 at each of its thresholds (observed scores), the first maximum (``np.argmax``: the
    lowest threshold among ties); a pair is "same" when ``score >= threshold``
    (``helper_functions/contrastive_eval.py:22-27, 37``).

    Raises:
        CalibrationError: single-class or empty validation.
    """
    from sklearn.metrics import precision_recall_curve

    s, y = _check(scores, labels, "validation (Kirby's calibration)")
    precision, recall, thresholds = precision_recall_curve(y, s)
    denom = precision + recall
    f1 = np.divide(2 * precision * recall, denom, out=np.zeros_like(denom), where=denom != 0)
    return float(thresholds[int(np.argmax(f1[: len(thresholds)]))])


def kirby_abstain(p: Any, delta: float) -> np.ndarray:
    """Answers with ``|p - 0.5| <= delta`` replaced by 0.5, compared exactly (``make_pan21_answers.py:246-250``)."""
    p = np.asarray(p, dtype=np.float64)
    return np.where(np.abs(p - 0.5) <= delta, 0.5, p)


@dataclass
class KirbyCalibrator:
    """Kirby's calibration (``make_pan21_answers.py``), fitted on validation, applied unchanged to test.

    * ``threshold`` -- :func:`kirby_threshold`; the hard answers ``score >= threshold`` (the paper's
      accuracy / F1 at the validation threshold, ``models/transformer_contrastive_module.py:146-162``);
    * Platt -- the authors' scikit-learn ``LogisticRegression(C=1.0, solver="lbfgs", max_iter=1000)``
      (default ``tol``) on the raw validation scores (one feature) and 0/1 labels,
      ``p = sigmoid(coef * score + intercept)`` (``make_pan21_answers.py:500-514``), solved to its
      optimum by :func:`kirby_logistic_batch` (Newton; scikit-learn's L-BFGS stops within its
      ``tol`` of it, p within about 1e-4), and ``coef = intercept = 0`` (p = 0.5 everywhere) where
      L-BFGS stops at its starting point, as the authors' fit does (their script meets it:
      ``make_pan21_answers.py:517-519`` warns "Platt slope a == 0"); no cross-validation, so one pair
      of each class suffices;
    * ``delta`` -- from :data:`DELTA_GRID` (the authors' grid, ``:253-271``), the band that
      maximises the validation PAN overall (``year`` 2021: mean of five, 0.5 a non-answer in F0.5u and
      F1), a later delta winning only by more than 1e-12, so ties go to the smaller one (``:536-559``).

    The authors' own "hard" answers in ``make_pan21_answers.py`` (``:516-528``) use the Platt
    midpoint ``-intercept / coef`` instead; here the hard answers are those of the F1 threshold,
    which is what the paper's accuracy and F1 are.

    Example: validation scores ``[0.1, 0.4, 0.35, 0.8]`` with labels ``[0, 0, 1, 1]``: the thresholds
    0.1 / 0.35 / 0.4 / 0.8 give F1 0.667 / 0.8 / 0.5 / 0.667, so ``threshold`` = 0.35.
    """

    grid: tuple[float, ...] = DELTA_GRID
    year: int = 2021
    threshold: float | None = None
    coef: float | None = None
    intercept: float | None = None
    delta: float | None = None
    delta_curve: dict[float, float] = field(default_factory=dict)

    def fit(self, scores: Any, labels: Any) -> KirbyCalibrator:
        """Fit on validation scores and labels.

        Raises:
            CalibrationError: an empty or single-class validation split (one line naming the class).
        """
        s, y = _check(scores, labels, "validation (Kirby's calibration)")
        self.threshold = kirby_threshold(s, y)
        coef, intercept = kirby_logistic_batch(s[None, :], y[None, :], c=1.0)
        self.coef, self.intercept = float(coef[0]), float(intercept[0])
        p = self.probabilities(s)
        self.delta_curve, best = {}, None
        for d in self.grid:
            score = evaluate_all(y, kirby_abstain(p, d), year=self.year)["overall"]
            self.delta_curve[float(d)] = score
            if best is None or score > best + 1e-12 or (abs(score - best) <= 1e-12 and d < self.delta):
                best, self.delta = score, float(d)
        return self

    def probabilities(self, scores: Any) -> np.ndarray:
        from scipy.special import expit

        return expit(self.coef * np.asarray(scores, dtype=np.float64) + self.intercept)

    def answers(self, scores: Any) -> dict[str, np.ndarray]:
        """``hard`` (0/1 at the F1 threshold), ``platt``, ``platt_abstain`` for (test) scores."""
        if self.threshold is None or self.coef is None or self.delta is None:
            raise RuntimeError("KirbyCalibrator.fit must be called first (on the validation split)")
        s = np.asarray(scores, dtype=np.float64)
        p = self.probabilities(s)
        return {
            "hard": (s >= self.threshold).astype(np.float64),
            "platt": p,
            "platt_abstain": kirby_abstain(p, self.delta),
        }

    def params(self) -> dict[str, float]:
        """The fitted parameters under their ``kirby_`` names."""
        return {
            "kirby_threshold": float(self.threshold),
            "kirby_platt_coef": float(self.coef),
            "kirby_platt_intercept": float(self.intercept),
            "kirby_abstain_delta": float(self.delta),
        }


# --- the fits and thresholds, for many score vectors at once ---------------------------------------------------------
#
# One implementation for one fit and for many (the report's simulated chance levels run 1,000 calibrations): every
# function takes (R, n) arrays, one calibration per row; the classes above call them with R = 1.

#: Newton's method on the two logistic parameters: at most this many steps; a row stops when a step moves
#: neither parameter by more than :data:`NEWTON_TOL` (relative)
NEWTON_STEPS = 100
NEWTON_TOL = 1e-13
#: scikit-learn's LogisticRegression default ``tol``: L-BFGS-B's ``gtol`` on its mean-loss gradient
SKLEARN_LR_TOL = 1e-4


def _log_loss(z: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Row sums of the cross-entropy of ``sigmoid(z)`` against targets ``t`` in [0, 1]."""
    # t softplus(-z) + (1 - t) softplus(z) = softplus(z) - t z
    return (np.maximum(z, 0.0) + np.log1p(np.exp(-np.abs(z))) - t * z).sum(axis=1)


def fit_logistic_batch(
    x: np.ndarray, t: np.ndarray, *, l2: float = 0.0, start_tol: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the exact minimiser ``(a, b)`` of ``sum_i CE(sigmoid(a x_i + b), t_i) + l2 a^2 / 2``.

    Args:
        x: (R, n) feature (one score per pair).
        t: (R, n) targets in [0, 1] (0/1 labels, or Platt's smoothed targets).
        l2: penalty on the slope only (scikit-learn's ``LogisticRegression(C)``: ``l2 = 1 / C``; the
            intercept is not penalised).
        start_tol: scikit-learn's ``LogisticRegression`` (``lbfgs``) starts at ``(0, 0)`` and stops there
            when the largest component of its mean-loss gradient is at most its ``tol``: with a weak
            signal (a narrow band of cosines) the fit is then ``coef = intercept = 0``, p = 0.5 for every
            pair. Given, such rows answer ``(0, 0)`` as scikit-learn does (the test of L-BFGS-B at its
            initial point, ``gtol = tol``); None: always the minimiser.

    Method: Newton's method from ``(0, logit(mean t))`` with step halving until the loss does not grow
    (the loss is convex, strictly with both classes or ``l2 > 0``), each row stopping on its own; a
    row's result does not depend on the other rows. It is the optimum scikit-learn's L-BFGS
    approaches to its tolerance (``gtol`` 1e-6 for the sigmoid calibration, 1e-4 for
    ``LogisticRegression``).

    Returns:
        (a, b), each (R,).
    """
    from scipy.special import expit

    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    t = np.atleast_2d(np.asarray(t, dtype=np.float64))
    rows = x.shape[0]
    mean_t = np.clip(t.mean(axis=1), 1e-12, 1 - 1e-12)
    a = np.zeros(rows)
    b = np.log(mean_t / (1.0 - mean_t))
    active = np.ones(rows, dtype=bool)
    stop_at_start = np.zeros(rows, dtype=bool)
    if start_tol is not None:
        n = x.shape[1]
        r0 = 0.5 - t
        g0 = np.maximum(np.abs((r0 * x).sum(axis=1) / n), np.abs(r0.sum(axis=1) / n))
        stop_at_start = g0 <= start_tol
        active &= ~stop_at_start
    loss = _log_loss(a[:, None] * x + b[:, None], t) + 0.5 * l2 * a**2
    for _ in range(NEWTON_STEPS):
        if not active.any():
            break
        ix = np.flatnonzero(active)
        xs, ts, aa, bb = x[ix], t[ix], a[ix], b[ix]
        z = aa[:, None] * xs + bb[:, None]
        p = expit(z)
        r = p - ts
        w = p * (1.0 - p)
        ga = (r * xs).sum(axis=1) + l2 * aa
        gb = r.sum(axis=1)
        haa = (w * xs * xs).sum(axis=1) + l2
        hab = (w * xs).sum(axis=1)
        hbb = w.sum(axis=1)
        det = haa * hbb - hab * hab
        ok = det > 0
        da = np.where(ok, (hbb * ga - hab * gb) / np.where(ok, det, 1.0), 0.0)
        db = np.where(ok, (haa * gb - hab * ga) / np.where(ok, det, 1.0), gb / np.maximum(hbb, 1e-300))
        step = np.ones(ix.size)
        old = loss[ix]
        new_a, new_b = aa - da, bb - db
        new_loss = _log_loss(new_a[:, None] * xs + new_b[:, None], ts) + 0.5 * l2 * new_a**2
        slack = 1e-12 * (1.0 + np.abs(old))  # rounding: a converged step may "grow" the loss by an ulp
        for _ in range(60):  # halve where the loss grew
            worse = new_loss > old + slack
            if not worse.any():
                break
            step = np.where(worse, step / 2, step)
            new_a, new_b = aa - step * da, bb - step * db
            new_loss = np.where(
                worse, _log_loss(new_a[:, None] * xs + new_b[:, None], ts) + 0.5 * l2 * new_a**2, new_loss
            )
        keep = new_loss <= old + slack
        new_a, new_b = np.where(keep, new_a, aa), np.where(keep, new_b, bb)
        moved = np.maximum(np.abs(new_a - aa) / (1.0 + np.abs(aa)), np.abs(new_b - bb) / (1.0 + np.abs(bb)))
        a[ix], b[ix], loss[ix] = new_a, new_b, np.where(keep, new_loss, old)
        active[ix[(moved <= NEWTON_TOL) | ~keep]] = False
    a[stop_at_start], b[stop_at_start] = 0.0, 0.0
    return a, b


def platt_sigmoid_batch(s: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row, Platt's sigmoid fit (``method="sigmoid"`` of :class:`PlattScaler`) as ``(coef, intercept)``
    on the raw score scale: scores standardised on their row (mean, sd; sd 1 when constant), Platt's
    smoothed targets ``(N+ + 1) / (N+ + 2)`` and ``1 / (N- + 2)`` (section 2.2), no penalty
    (:func:`fit_logistic_batch`)."""
    s = np.atleast_2d(np.asarray(s, dtype=np.float64))
    y = np.atleast_2d(np.asarray(y))
    m = s.mean(axis=1)
    sd = s.std(axis=1)
    sd = np.where((sd > 0) & np.isfinite(sd), sd, 1.0)
    z = (s - m[:, None]) / sd[:, None]
    n_pos = (y > 0).sum(axis=1)[:, None]
    n_neg = y.shape[1] - n_pos
    target = np.where(y > 0, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    a, b = fit_logistic_batch(z, target)
    return a / sd, b - a * m / sd


def kirby_logistic_batch(s: np.ndarray, y: np.ndarray, c: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Per row, Kirby's Platt step (``LogisticRegression(C=c, solver="lbfgs")`` on the raw scores and 0/1
    labels, ``make_pan21_answers.py:500-514``) as ``(coef, intercept)``: the penalised optimum
    (``l2 = 1 / c``), and ``(0, 0)`` where scikit-learn's L-BFGS stops at its starting point (default
    ``tol``, :data:`SKLEARN_LR_TOL`; :func:`fit_logistic_batch`)."""
    return fit_logistic_batch(
        np.atleast_2d(np.asarray(s, dtype=np.float64)),
        np.atleast_2d(np.asarray(y, dtype=np.float64)),
        l2=1.0 / c,
        start_tol=SKLEARN_LR_TOL,
    )


def fit_threshold_batch(s: np.ndarray, y: np.ndarray) -> np.ndarray:
    """:func:`fit_threshold` of each row (same candidates and tie rule), (R,)."""
    s = np.atleast_2d(np.asarray(s, dtype=np.float64))
    y = np.atleast_2d(np.asarray(y))
    rows, n = s.shape
    order = np.argsort(-s, axis=1, kind="stable")
    s_sorted = np.take_along_axis(s, order, axis=1)
    tp = np.cumsum(np.take_along_axis(y, order, axis=1), axis=1)
    k = np.arange(1, n + 1)
    f1 = 2 * tp / (k + y.sum(axis=1)[:, None])
    valid = np.ones((rows, n), dtype=bool)
    valid[:, :-1] = s_sorted[:, :-1] != s_sorted[:, 1:]
    best = np.argmax(np.where(valid, f1, -1.0), axis=1)
    r = np.arange(rows)
    mid = (s_sorted[r, np.minimum(best, n - 1)] + s_sorted[r, np.minimum(best + 1, n - 1)]) / 2
    return np.where(best == n - 1, s_sorted[:, -1], mid)


def kirby_threshold_batch(s: np.ndarray, y: np.ndarray) -> np.ndarray:
    """:func:`kirby_threshold` of each row: F1 of ``precision_recall_curve`` at each distinct score, the
    lowest threshold among the maxima; the same floating-point operations, (R,)."""
    s = np.atleast_2d(np.asarray(s, dtype=np.float64))
    y = np.atleast_2d(np.asarray(y, dtype=np.float64))
    rows, n = s.shape
    order = np.argsort(-s, axis=1, kind="mergesort")
    s_d = np.take_along_axis(s, order, axis=1)
    tps = np.cumsum(np.take_along_axis(y, order, axis=1), axis=1)
    distinct = np.ones((rows, n), dtype=bool)  # the last position of each run of equal scores
    distinct[:, :-1] = s_d[:, :-1] != s_d[:, 1:]
    precision = tps / np.arange(1, n + 1)
    recall = tps / tps[:, -1:]
    denom = precision + recall
    f1 = np.divide(2 * precision * recall, denom, out=np.zeros_like(denom), where=denom != 0)
    f1 = np.where(distinct, f1, -np.inf)
    last_max = n - 1 - np.argmax(f1[:, ::-1], axis=1)  # ascending thresholds, first maximum = lowest
    return s_d[np.arange(rows), last_max]


def abstention_batch(p: np.ndarray, y: np.ndarray, *, grid: tuple[float, ...], year: int, exact: bool) -> np.ndarray:
    """Per row, the band half-width of :func:`fit_abstention` (``exact=False``: 1e-12 slack in the band)
    or of :class:`KirbyCalibrator` (``exact=True``): the first delta of the ascending grid whose
    validation PAN overall beats the best so far by more than 1e-12, (R,)."""
    best = np.full(p.shape[0], -np.inf)
    delta = np.full(p.shape[0], np.nan)
    for d in sorted(grid):
        band = np.abs(p - 0.5) <= (d if exact else d + 1e-12)
        score = evaluate_all_batch(y, np.where(band, 0.5, p), year=year)["overall"]
        win = score > best + 1e-12
        best = np.where(win, score, best)
        delta = np.where(win, float(d), delta)
    return delta
