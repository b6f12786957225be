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

from mteb_contrastive.metrics.pan import evaluate_all

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
      targets* ``(N+ + 1) / (N+ + 2)`` for positives and ``1 / (N- + 2)`` for negatives, fitted by
      scikit-learn's sigmoid calibration (``CalibratedClassifierCV(method="sigmoid")``). The scores
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
        m, sd = _standardise(s)
        a, b = _sklearn_sigmoid((s - m) / sd, y)
        # p = 1 / (1 + exp(a (s - m) / sd + b)) = sigmoid(coef s + intercept)
        return cls(coef=-a / sd, intercept=a * m / sd - b, method=method)

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
    * Platt -- scikit-learn ``LogisticRegression(C=1.0, solver="lbfgs", max_iter=1000)`` on the raw
      validation scores (one feature) and 0/1 labels, ``p = sigmoid(coef * score + intercept)``
      (``make_pan21_answers.py:500-514``); no cross-validation, so one pair of each class suffices;
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
        from sklearn.linear_model import LogisticRegression

        s, y = _check(scores, labels, "validation (Kirby's calibration)")
        self.threshold = kirby_threshold(s, y)
        lr = LogisticRegression(C=1.0, solver="lbfgs", max_iter=1000).fit(s.reshape(-1, 1), y)
        self.coef, self.intercept = float(lr.coef_[0, 0]), float(lr.intercept_[0])
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
