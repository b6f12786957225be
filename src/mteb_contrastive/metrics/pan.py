"""The official PAN authorship-verification metrics (PAN 2020 / PAN 2021).

Inputs everywhere: ``true_y`` (0/1 or bool, 1 = same author) and ``pred_y`` (answers in [0, 1],
``0.5`` = non-answer, "same author" when ``>= 0.5`` otherwise). Values are returned unrounded
(the official evaluator rounds to 3 decimals for display only).

Source of every rule: the PAN evaluator ``pan20_verif_evaluator.py`` in ``pan-webis-de/pan-code``:

* ``clef20/authorship-verification/pan20_verif_evaluator.py`` -- the script that scored PAN 2020
  (AUC, c@1, F1, F0.5u; overall = mean of the four). Its ``f_05_u_score`` first binarises with
  ``>= 0.5 -> 1``, so a value of exactly 0.5 becomes "same author" and the non-answer count ``nu``
  is always 0 (:data:`RULE_2020`).
* ``clef21/authorship-verification/pan20_verif_evaluator.py`` -- the version corrected in May 2021
  and used for PAN 2021: ``binarize(..., triple_valued=True)`` keeps 0.5 as a non-answer in F0.5u
  (:data:`RULE_2021`, the default), and the Brier complement is added (overall = mean of five).

Example::

    >>> from mteb_contrastive.metrics.pan import evaluate_all
    >>> r = evaluate_all([1, 0, 1, 0], [0.9, 0.2, 0.5, 0.7])
    >>> r["c@1"], r["f_05_u"]
    (0.625, 0.5)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

# The official PAN 2020 authorship-verification leaderboard (test set, 14,311 pairs), as published
# by the organisers: Kestemont et al., "Overview of the Cross-Domain Authorship Verification Task
# at PAN 2020" (CLEF 2020 Working Notes, CEUR-WS vol. 2696), results table; the same numbers are
# the organisers' evaluation output in pan-webis-de/pan-code, clef20/authorship-verification/
# collect.ipynb (cell "Overall", saved as metrics.xlsx). Columns: AUC, c@1, F1, F0.5u, overall.
PAN20_LEADERBOARD = {
    "boenninghoff20-large": (0.969, 0.928, 0.936, 0.907, 0.935),
    "weerasinghe20-large": (0.953, 0.880, 0.891, 0.882, 0.902),
    "halvani20-small": (0.878, 0.796, 0.807, 0.819, 0.825),
    "kipnis20-small": (0.866, 0.801, 0.809, 0.815, 0.823),
    "niven20-small": (0.795, 0.786, 0.778, 0.842, 0.800),
    "faber20-small": (0.293, 0.331, 0.262, 0.314, 0.300),
}

#: F0.5u as in the PAN 2021 evaluator: 0.5 is a non-answer (default).
RULE_2021 = "2021"
#: F0.5u as in the PAN 2020 evaluator: 0.5 is binarised to "same author" first (nu = 0).
RULE_2020 = "2020"
_RULES = (RULE_2021, RULE_2020)


def _arrays(true_y: Sequence, pred_y: Sequence) -> tuple[np.ndarray, np.ndarray]:
    """Validated float arrays (labels 0/1, answers in [0, 1]).

    Raises:
        ValueError: different lengths, empty input, a label not 0/1, an answer NaN or outside [0, 1].
    """
    t = np.asarray(true_y, dtype=np.float64).ravel()
    p = np.asarray(pred_y, dtype=np.float64).ravel()
    if t.shape != p.shape:
        raise ValueError(f"true_y and pred_y differ in length: {t.size} vs {p.size}")
    if t.size == 0:
        raise ValueError("no pairs to score")
    if not np.all((t == 0) | (t == 1)):
        raise ValueError("true_y must be 0/1 (or bool)")
    bad = np.flatnonzero(~((p >= 0) & (p <= 1)))  # NaN fails both comparisons
    if bad.size:
        raise ValueError(f"answer {p[bad[0]]!r} at position {int(bad[0])} is NaN or outside [0, 1]")
    return t, p


#: single-class AUC rules: ``"undefined"`` (default: None and a warning) or ``"pan"`` (0.0, as the PAN evaluator)
SINGLE_CLASS_AUC = ("undefined", "pan")


class UndefinedMetricWarning(UserWarning):
    """A metric is undefined on the given input (AUC on a single-class truth) and is reported as None."""


def auc(true_y: Sequence, pred_y: Sequence, *, single_class: str = "undefined") -> float | None:
    """ROC AUC on the raw answers (non-answers 0.5 included as they are).

    Source: ``auc`` of the PAN evaluator (``sklearn.metrics.roc_auc_score``; Stamatatos et al.,
    Overview of the Author Identification Task at PAN 2014).

    Args:
        single_class: what a single-class ``true_y`` gives, where the AUC is undefined (no pair of
            a positive and a negative to rank): ``"undefined"`` (default) -- ``None`` and an
            :class:`UndefinedMetricWarning`; ``"pan"`` -- 0.0, as the PAN evaluator's
            ``try/except`` does (for leaderboard comparisons only).

    Raises:
        ValueError: bad input (see :func:`_arrays`) or an unknown ``single_class``.
    """
    from sklearn.metrics import roc_auc_score

    if single_class not in SINGLE_CLASS_AUC:
        raise ValueError(f"single_class must be one of {SINGLE_CLASS_AUC}, got {single_class!r}")
    t, p = _arrays(true_y, pred_y)
    if np.unique(t).size < 2:
        if single_class == "pan":
            return 0.0
        import warnings

        which = "same-author" if t[0] == 1 else "different-author"
        warnings.warn(
            f"AUC is undefined: the truth has only {which} pairs ({t.size}); reported as None",
            UndefinedMetricWarning,
            stacklevel=2,
        )
        return None
    return float(roc_auc_score(t, p))


def c_at_1(true_y: Sequence, pred_y: Sequence) -> float:
    """c@1 = (nc + nu * nc / n) / n.

    ``nu`` = answers of exactly 0.5 (non-answers), ``nc`` = answered pairs with
    ``(value > 0.5) == same``. Source: ``c_at_1`` of the PAN evaluator (identical in 2020 and
    2021); Peñas & Rodrigo, "A Simple Measure to Assess Non-response", ACL 2011.
    """
    t, p = _arrays(true_y, pred_y)
    n = float(p.size)
    answered = p != 0.5
    nu = float(np.sum(~answered))
    nc = float(np.sum(answered & ((p > 0.5) == (t > 0.5))))
    return (nc + nu * nc / n) / n


def f1(true_y: Sequence, pred_y: Sequence) -> float:
    """F1 of the "same author" class on the answered pairs only.

    Non-answers (exactly 0.5) are dropped, the rest binarised with ``>= 0.5 -> same`` and scored
    with ``sklearn.metrics.f1_score``. Source: ``f1`` of the PAN evaluator (2020 and 2021).
    With no answered pair, or no true/predicted positive, F1 is 0.0 (sklearn's zero division).
    """
    from sklearn.metrics import f1_score

    t, p = _arrays(true_y, pred_y)
    keep = p != 0.5
    if not keep.any():
        return 0.0
    return float(f1_score(t[keep], (p[keep] >= 0.5).astype(np.float64), zero_division=0.0))


def f_05_u(true_y: Sequence, pred_y: Sequence, rule: str = RULE_2021) -> float:
    """F0.5u = 1.25 tp / (1.25 tp + 0.25 (fn + nu) + fp).

    Bevendorff et al., "Generalizing Unmasking for Short Texts", NAACL 2019; source:
    ``f_05_u_score`` of the PAN evaluator. Non-answers count like false negatives, at a quarter
    of the weight of a false positive.

    Args:
        rule: :data:`RULE_2021` (default; the evaluator corrected in May 2021,
            ``binarize(triple_valued=True)``): a value of exactly 0.5 is a non-answer (nu).
            :data:`RULE_2020` (the script that scored PAN 2020): values are binarised with
            ``>= 0.5 -> same`` first, so 0.5 counts as a "same author" answer and nu = 0.

    A zero denominator (no positive, no answer) gives 0.0.
    """
    if rule not in _RULES:
        raise ValueError(f"rule must be one of {_RULES}, got {rule!r}")
    t, p = _arrays(true_y, pred_y)
    if rule == RULE_2020:
        b = np.where(p >= 0.5, 1.0, 0.0)
    else:
        b = np.where(p > 0.5, 1.0, np.where(p < 0.5, 0.0, 0.5))
    nu = float(np.sum(b == 0.5))
    tp = float(np.sum((b == 1) & (t == 1)))
    fp = float(np.sum((b == 1) & (t == 0)))
    fn = float(np.sum((b == 0) & (t == 1)))
    denom = 1.25 * tp + 0.25 * (fn + nu) + fp
    return 1.25 * tp / denom if denom else 0.0


def brier(true_y: Sequence, pred_y: Sequence) -> float:
    """Complement of the Brier score: 1 - mean((value - same)^2), non-answers included as 0.5.

    Source: ``brier_score`` of the PAN 2021 evaluator (``1 - sklearn.metrics.brier_score_loss``).
    """
    t, p = _arrays(true_y, pred_y)
    return float(1.0 - np.mean((p - t) ** 2))


def evaluate_all(
    true_y: Sequence,
    pred_y: Sequence,
    *,
    year: int = 2021,
    rule: str | None = None,
    single_class_auc: str = "undefined",
) -> dict[str, Any]:
    """All PAN metrics and the overall score, unrounded.

    Args:
        year: 2021 (default): AUC, c@1, F1, F0.5u, Brier; ``overall`` = mean of the five
            (``evaluate_all`` of the PAN 2021 evaluator). 2020: no Brier; ``overall`` = mean of
            AUC, c@1, F1, F0.5u (PAN 2020 evaluator); ``brier`` is still reported but not
            averaged.
        rule: the F0.5u non-answer rule; default: the rule of ``year``'s evaluator
            (:data:`RULE_2021` for 2021, :data:`RULE_2020` for 2020).
        single_class_auc: see :func:`auc`. With the default ``"undefined"``, a single-class truth
            gives ``auc`` None (and a warning) and ``overall`` is the mean of the *defined* metrics
            of the year (four for 2021, three for 2020); ``n_overall_metrics`` says how many were
            averaged. ``"pan"`` reproduces the evaluator: AUC 0.0 averaged in (perfect answers on
            truth [1, 1, 1] then score 0.8 in 2021).

    Returns:
        ``{"auc", "c@1", "f1", "f_05_u", "brier", "overall", "n_overall_metrics", "n", "n_unanswered"}``.
    """
    if year not in (2020, 2021):
        raise ValueError(f"year must be 2020 or 2021, got {year!r}")
    rule = rule or (RULE_2020 if year == 2020 else RULE_2021)
    t, p = _arrays(true_y, pred_y)
    out = {
        "auc": auc(t, p, single_class=single_class_auc),
        "c@1": c_at_1(t, p),
        "f1": f1(t, p),
        "f_05_u": f_05_u(t, p, rule=rule),
        "brier": brier(t, p),
    }
    keys = ("auc", "c@1", "f1", "f_05_u") + (("brier",) if year == 2021 else ())
    defined = [out[k] for k in keys if out[k] is not None]
    out["overall"] = float(math.fsum(defined) / len(defined))
    out["n_overall_metrics"] = len(defined)
    out["n"] = int(p.size)
    out["n_unanswered"] = int(np.sum(p == 0.5))
    return out


#: ``evaluate_all`` keys -> the suffix of the flat score names (``pan_<kind>_<suffix>``)
SCORE_SUFFIXES = {
    "auc": "auc",
    "c@1": "c_at_1",
    "f1": "f1",
    "f_05_u": "f_05_u",
    "brier": "brier",
    "overall": "overall",
    "n_overall_metrics": "n_overall_metrics",
    "n_unanswered": "n_unanswered",
}


def pan_scores(labels: Any, answers: dict[str, Any], year: int) -> dict[str, Any]:
    """Flat ``pan_<kind>_<metric>`` scores (:data:`SCORE_SUFFIXES`) of every kind of answers.

    Args:
        labels: the test labels (0/1), shape (n,).
        answers: answer kind (``hard``, ``platt``, ``platt_abstain``, ...) -> answers, shape (n,).
        year: 2021 or 2020 (:func:`evaluate_all`).
    """
    out: dict[str, Any] = {}
    for kind, values in answers.items():
        res = evaluate_all(labels, values, year=year)
        for k, name in SCORE_SUFFIXES.items():
            out[f"pan_{kind}_{name}"] = res[k]
    return out


# --- the same metrics on many answer vectors at once -----------------------------------------------------------------


def auc_by_ranks(true_y: Any, scores: Any) -> np.ndarray:
    """ROC AUC of each row of ``scores`` (R, n) against 0/1 ``true_y`` (R, n), through ranks: Mann-Whitney,
    ties at their mean rank, as ``roc_auc_score`` counts them; NaN on a single-class row. Any real scores
    (similarities, probabilities); no input checks (the callers make the arrays)."""
    from scipy.stats import rankdata

    t = np.atleast_2d(np.asarray(true_y, dtype=np.float64))
    p = np.atleast_2d(np.asarray(scores, dtype=np.float64))
    pos = t.sum(axis=1)
    neg = p.shape[1] - pos
    ranks = rankdata(p, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        auc_v = ((ranks * t).sum(axis=1) - pos * (pos + 1) / 2) / (pos * neg)
    return np.where((pos > 0) & (neg > 0), auc_v, np.nan)


def evaluate_all_batch(true_y: Any, pred_y: Any, *, year: int = 2021) -> dict[str, np.ndarray]:
    """:func:`evaluate_all` of each row: ``true_y`` and ``pred_y`` of shape (R, n) (inputs trusted: labels
    0/1, answers in [0, 1]; the callers make them). Same rules, every metric an (R,) array:

    * ``auc`` -- ``roc_auc_score`` through ranks (ties share their mean rank, Mann-Whitney), NaN on
      a single-class row (where :func:`evaluate_all` gives None);
    * ``c@1``, ``f1`` (answered pairs only, zero division 0), ``f_05_u`` (year's rule), ``brier``;
    * ``overall`` -- the mean of the year's defined metrics; ``n_unanswered``.

    Equal to :func:`evaluate_all` row by row up to floating-point rounding (1e-12; a test).
    """
    if year not in (2020, 2021):
        raise ValueError(f"year must be 2020 or 2021, got {year!r}")
    t = np.atleast_2d(np.asarray(true_y, dtype=np.float64))
    p = np.atleast_2d(np.asarray(pred_y, dtype=np.float64))
    n = p.shape[1]
    auc_v = auc_by_ranks(t, p)
    answered = p != 0.5
    nu = (~answered).sum(axis=1).astype(np.float64)
    right = answered & ((p > 0.5) == (t > 0.5))
    nc = right.sum(axis=1).astype(np.float64)
    c1 = (nc + nu * nc / n) / n
    said_same = answered & (p >= 0.5)
    tp = (said_same & (t == 1)).sum(axis=1)
    fp = (said_same & (t == 0)).sum(axis=1)
    fn = (answered & (p < 0.5) & (t == 1)).sum(axis=1)
    denom = 2 * tp + fp + fn
    f1_v = np.divide(2.0 * tp, denom, out=np.zeros(p.shape[0]), where=denom > 0)
    if year == 2020:  # 0.5 binarised to "same" first: nu = 0
        b_same = p >= 0.5
        tp5 = (b_same & (t == 1)).sum(axis=1)
        fp5 = (b_same & (t == 0)).sum(axis=1)
        fn5 = (~b_same & (t == 1)).sum(axis=1)
        nu5 = np.zeros(p.shape[0])
    else:
        tp5, fp5 = (p > 0.5) & (t == 1), (p > 0.5) & (t == 0)
        tp5, fp5 = tp5.sum(axis=1), fp5.sum(axis=1)
        fn5 = ((p < 0.5) & (t == 1)).sum(axis=1)
        nu5 = nu
    d5 = 1.25 * tp5 + 0.25 * (fn5 + nu5) + fp5
    f05 = np.divide(1.25 * tp5, d5, out=np.zeros(p.shape[0]), where=d5 > 0)
    brier_v = 1.0 - np.mean((p - t) ** 2, axis=1)
    parts = [auc_v, c1, f1_v, f05] + ([brier_v] if year == 2021 else [])
    stack = np.stack(parts)
    defined = ~np.isnan(stack)
    overall = np.where(defined, stack, 0.0).sum(axis=0) / defined.sum(axis=0)
    return {
        "auc": auc_v,
        "c@1": c1,
        "f1": f1_v,
        "f_05_u": f05,
        "brier": brier_v,
        "overall": overall,
        "n_overall_metrics": defined.sum(axis=0),
        "n_unanswered": nu.astype(np.int64),
    }
