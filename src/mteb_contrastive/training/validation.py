"""Validation with this project's verification protocol, as a sentence-transformers evaluator.

The protocol is the one :mod:`mteb_contrastive.protocols.verification` applies at test time
(Kirby's protocol): cosine similarity of the two texts' embeddings, then on the validation pairs
the F1-optimal threshold, Platt scaling and the abstention band
(:class:`~mteb_contrastive.metrics.calibration.Calibrator`). The scores reported every epoch:

* ``auc`` -- ROC AUC of the raw pair score (``sklearn.metrics.roc_auc_score``, as the PAN evaluator's ``auc``);
* ``overall`` -- the PAN overall score of the Platt+abstain answers on validation at the fitted
  delta (``Calibrator.delta_curve[delta]``, the number the protocol reports as
  ``validation_platt_abstain_overall``); the primary metric for the best checkpoint;
* ``threshold``, ``platt_coef``, ``platt_intercept``, ``abstain_delta`` -- the fitted parameters.

For a cross-encoder the pair score is the model's output on the pair instead of a cosine.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import numpy as np
from sentence_transformers.base.evaluation.evaluator import BaseEvaluator

from mteb_contrastive.metrics.calibration import Calibrator

logger = logging.getLogger(__name__)

CALIBRATION_FILE = "verification_calibration.json"


def cosine_pair_scores(model: Any, texts1: list[str], texts2: list[str], batch_size: int = 32) -> np.ndarray:
    """Cosine of the embeddings of each pair (each distinct text encoded once), shape ``(n_pairs,)``, in [-1, 1]."""
    index: dict[str, int] = {}
    for t in list(texts1) + list(texts2):
        index.setdefault(t, len(index))
    emb = model.encode(
        list(index), batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False
    )
    a = emb[[index[t] for t in texts1]]
    b = emb[[index[t] for t in texts2]]
    return np.einsum("ij,ij->i", a, b).astype(np.float64)


def verification_scores(scores: np.ndarray, labels: np.ndarray, year: int = 2021) -> tuple[dict[str, float], Any]:
    """Fit the protocol's calibration on (validation) scores; return its numbers and the calibrator.

    Raises:
        CalibrationError: a single class or no pairs.
    """
    from sklearn.metrics import roc_auc_score

    cal = Calibrator(year=year).fit(scores, labels)
    # ROC AUC of the raw score (the PAN evaluator's ``auc`` is sklearn's roc_auc_score; cosines may lie outside [0, 1])
    out = {"auc": float(roc_auc_score(labels, scores)), "overall": float(cal.delta_curve[cal.delta]), **cal.params()}
    return out, cal


class VerificationEvaluator(BaseEvaluator):
    """Every-epoch validation on held-out authors' pairs (see module docstring).

    Args:
        pairs: rows ``{"pair": [t1, t2], "same": bool}``.
        name: prefix of the logged metrics (``eval_<name>_overall`` in the trainer's log).
        year: PAN rules for the overall score (2021: mean of five).
    """

    def __init__(
        self, pairs: list[dict[str, Any]], name: str = "validation", batch_size: int = 32, year: int = 2021
    ) -> None:
        super().__init__()
        self.texts1 = [r["pair"][0] for r in pairs]
        self.texts2 = [r["pair"][1] for r in pairs]
        self.labels = np.asarray([int(bool(r["same"])) for r in pairs], dtype=np.int64)
        self.name, self.batch_size, self.year = name, batch_size, year
        self.primary_metric = "overall"
        self.last: dict[str, float] = {}

    def scores(self, model: Any) -> np.ndarray:
        return cosine_pair_scores(model, self.texts1, self.texts2, self.batch_size)

    def __call__(
        self, model: Any, output_path: str | None = None, epoch: int = -1, steps: int = -1
    ) -> dict[str, float]:
        metrics, _ = verification_scores(self.scores(model), self.labels, self.year)
        metrics["n_pairs"] = float(self.labels.size)
        self.last = dict(metrics)
        logger.info(
            "validation (epoch %s, step %s): %s", epoch, steps, json.dumps({k: round(v, 4) for k, v in metrics.items()})
        )
        metrics = self.prefix_name_to_metrics(metrics, self.name)
        self.store_metrics_in_model_card_data(model, metrics, epoch, steps)
        return metrics

    def calibration(self, model: Any) -> dict[str, Any]:
        """The validation calibration of ``model`` (for :data:`CALIBRATION_FILE`)."""
        metrics, _ = verification_scores(self.scores(model), self.labels, self.year)
        return {
            "protocol": (
                "mteb_contrastive.protocols.verification (cosine; threshold max F1, Platt, abstention on validation)"
            ),
            "pan_year": self.year,
            "n_validation_pairs": int(self.labels.size),
            "n_same_author": int(self.labels.sum()),
            **{f"validation_{k}" if k in ("auc", "overall") else k: v for k, v in metrics.items()},
        }
