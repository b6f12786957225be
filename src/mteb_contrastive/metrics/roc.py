"""Verification at low false-positive rates: equal error rate and standardised partial AUC.

The numbers STEB (Rivera-Soto et al., github ``rrivera1849/STEB``, ``steb/metrics.py``) and the
biometrics literature report beside AUC, computed from one ROC curve of scikit-learn
(``sklearn.metrics.roc_curve``; labels 1 = same author, higher score = more likely same):

* ``eer`` -- **equal error rate**: the false-positive rate at the point of the ROC where it equals
  the false-negative rate ``1 - TPR``. The ROC points are joined by straight lines (a segment
  between two points is the expected ROC under a random order within tied scores, so linear
  interpolation is the tie-aware rule); with ``d_k = (1 - TPR_k) - FPR_k`` (1 at the first point,
  -1 at the last), the crossing is in the first segment whose end has ``d_k <= 0``:
  ``EER = FPR_{k-1} + t (FPR_k - FPR_{k-1})``, ``t = d_{k-1} / (d_{k-1} - d_k)``. STEB finds the
  same point with ``brentq`` on ``interp1d(fpr, tpr)`` (``steb/metrics.py`` ~L27-43); the closed form
  equals it. Chance 0.5; lower is better; in [0, 1].
* ``pauc_at_fpr_<f>`` for f in :data:`PAUC_MAX_FPRS` -- **standardised partial AUC** up to FPR f:
  ``sklearn.metrics.roc_auc_score(labels, scores, max_fpr=f)``, the area under the ROC for
  FPR <= f (one interpolated point at f) with McClish's standardisation
  ``0.5 * (1 + (A - f^2/2) / (f - f^2/2))`` (scikit-learn 1.9.1 ``sklearn/metrics/_ranking.py``
  L484-496; McClish 1989, Med. Decis. Making 9(3)): 0.5 = the diagonal (chance), 1 = perfect; its
  minimum is ``0.5 * (1 - f / (2 - f))`` (all negatives first), so it is not a raw area and not
  TPR@FPR. It is the quantity STEB stores as ``auc@0.01`` etc.

Few negatives: at f = 0.01 with 150 negative pairs the cut falls between the first and second
false positive; the value rests on one or two pairs. :func:`low_fpr_scores` withholds a partial
AUC (NaN, with ``pauc_withheld`` naming why) when ``f * n_negative < 1`` and reports
``n_negative_pairs`` always.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: the false-positive rates of the partial AUCs (STEB reports these and 0.2, 0.3, 0.5)
PAUC_MAX_FPRS = (0.01, 0.05, 0.10)


def _arrays(labels: Sequence, scores: Sequence) -> tuple[np.ndarray, np.ndarray]:
    y = np.asarray(labels, dtype=np.int64).ravel()
    s = np.asarray(scores, dtype=np.float64).ravel()
    if y.shape != s.shape:
        raise ValueError(f"labels and scores differ in length: {y.size} vs {s.size}")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("labels must be 0/1 (1 = same author)")
    if np.isnan(s).any():
        raise ValueError("NaN score")
    return y, s


def _both_classes(y: np.ndarray) -> bool:
    return bool(y.size) and 0 < int(y.sum()) < y.size


def equal_error_rate(labels: Sequence, scores: Sequence) -> float:
    """EER of ``scores`` (higher = label 1) on the linearly interpolated ROC (module docstring).

    Returns:
        a value in [0, 1]; NaN when ``labels`` hold one class only (no ROC).

    Raises:
        ValueError: lengths differ, a label not 0/1, a NaN score.
    """
    from sklearn.metrics import roc_curve

    y, s = _arrays(labels, scores)
    if not _both_classes(y):
        return float("nan")
    fpr, tpr, _ = roc_curve(y, s, drop_intermediate=False)
    d = (1.0 - tpr) - fpr
    k = int(np.argmax(d <= 0))  # d[0] = 1 > 0 and d[-1] = -1, so 1 <= k
    if d[k] == 0:
        return float(fpr[k])
    t = d[k - 1] / (d[k - 1] - d[k])
    return float(fpr[k - 1] + t * (fpr[k] - fpr[k - 1]))


def standardised_partial_auc(labels: Sequence, scores: Sequence, max_fpr: float) -> float:
    """McClish-standardised partial AUC up to ``max_fpr``: ``roc_auc_score(labels, scores, max_fpr=max_fpr)``.

    Returns:
        a value in [0.5 * (1 - f / (2 - f)), 1], 0.5 = chance; NaN for a single-class ``labels``.

    Raises:
        ValueError: ``max_fpr`` outside (0, 1], lengths differ, a label not 0/1, a NaN score.
    """
    from sklearn.metrics import roc_auc_score

    if not 0 < max_fpr <= 1:
        raise ValueError(f"max_fpr must be in (0, 1], got {max_fpr}")
    y, s = _arrays(labels, scores)
    if not _both_classes(y):
        return float("nan")
    return float(roc_auc_score(y, s, max_fpr=max_fpr))


def pauc_key(max_fpr: float) -> str:
    """Score name of the partial AUC up to ``max_fpr``: ``pauc_at_fpr_0_01``, ``..._0_05``, ``..._0_10``."""
    return "pauc_at_fpr_" + f"{max_fpr:.2f}".replace(".", "_")


def low_fpr_scores(labels: Sequence, scores: Sequence) -> dict[str, float | int | str]:
    """``eer``, ``pauc_at_fpr_<f>`` (f in :data:`PAUC_MAX_FPRS`), their chance levels (``random_eer`` and
    ``random_pauc_at_fpr_<f>``, all 0.5) and ``n_negative_pairs`` of one set of pair scores.

    A partial AUC is NaN, and ``pauc_withheld`` says why, when ``f * n_negative < 1`` (no false
    positive fits under the cut) or the labels hold one class; ``eer`` is NaN for one class.
    """
    y, s = _arrays(labels, scores)
    n_neg = int(np.sum(y == 0))
    out: dict[str, float | int | str] = {"eer": equal_error_rate(y, s), "random_eer": 0.5, "n_negative_pairs": n_neg}
    withheld = []
    for f in PAUC_MAX_FPRS:
        key = pauc_key(f)
        if f * n_neg < 1:
            out[key] = float("nan")
            withheld.append(f"{key}: {n_neg} negative pairs x {f:g} < 1")
        else:
            out[key] = standardised_partial_auc(y, s, f)
        out[f"random_{key}"] = 0.5
    if not _both_classes(y):
        withheld = ["one class in the labels: no ROC"]
    if withheld:
        out["pauc_withheld"] = "; ".join(withheld)
    return out
