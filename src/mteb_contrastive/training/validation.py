"""Validation during training: Kirby's model selection, and both calibrations, as a sentence-transformers evaluator.

Every epoch, on the validation pairs (cosine of the two texts' embeddings; a cross-encoder's
probability instead for the rival):

* ``f1`` / ``accuracy`` -- F1 and accuracy at the F1-maximising threshold chosen on these pairs, as
  the authors' ``val_f1`` / ``val_acc`` (``helper_functions/contrastive_eval.py:22-40``,
  ``models/transformer_contrastive_module.py:137-141`` of github.com/petekirby/contrastive-av;
  :func:`~mteb_contrastive.metrics.calibration.kirby_threshold`). **``f1`` is the primary metric:
  the checkpoint with the best validation F1 is kept**, as ``train.py:21``
  (``ModelCheckpoint(monitor="val_f1", mode="max")``) keeps it;
* ``auc`` -- ROC AUC of the raw score (``sklearn.metrics.roc_auc_score``);
* ``overall`` -- the PAN overall of this project's calibrated answers on validation (smoothed Platt +
  abstention band, :class:`~mteb_contrastive.metrics.calibration.Calibrator`, as the verification
  protocol reports ``validation_platt_abstain_overall``), and ``kirby_overall`` -- the same with
  Kirby's calibration (:class:`~mteb_contrastive.metrics.calibration.KirbyCalibrator`); both are
  fitted on the same pairs they score (optimistic), logged, not used for selection;
* the fitted parameters of both calibrations.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import numpy as np
from sentence_transformers.base.evaluation.evaluator import BaseEvaluator

from mteb_contrastive.metrics.calibration import Calibrator, KirbyCalibrator

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
    """Both calibrations fitted on (validation) scores; their numbers (module docstring) and this project's calibrator.

    Raises:
        CalibrationError: a single class or no pairs.
    """
    from sklearn.metrics import roc_auc_score

    kirby = KirbyCalibrator(year=year).fit(scores, labels)
    hard = scores >= kirby.threshold
    tp = int(np.sum(hard & (labels == 1)))
    f1 = 2 * tp / (int(hard.sum()) + int(labels.sum()))
    cal = Calibrator(year=year).fit(scores, labels)
    out = {
        "f1": float(f1),
        "accuracy": float(np.mean(hard == (labels == 1))),
        # ROC AUC of the raw score (the PAN evaluator's ``auc`` is sklearn's roc_auc_score)
        "auc": float(roc_auc_score(labels, scores)),
        "overall": float(cal.delta_curve[cal.delta]),
        "kirby_overall": float(kirby.delta_curve[kirby.delta]),
        **cal.params(),
        **kirby.params(),
    }
    return out, cal


class VerificationEvaluator(BaseEvaluator):
    """Every-epoch validation on held-out authors' pairs (see module docstring).

    Args:
        pairs: rows ``{"pair": [t1, t2], "same": bool}``.
        name: prefix of the logged metrics (``eval_<name>_f1`` in the trainer's log).
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
        self.primary_metric = "f1"
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
                "mteb_contrastive.protocols.verification (cosine; on validation: threshold max F1, smoothed Platt, "
                "abstention; Kirby's: F1 threshold at an observed score, LogisticRegression(C=1), abstention)"
            ),
            "pan_year": self.year,
            "n_validation_pairs": int(self.labels.size),
            "n_same_author": int(self.labels.sum()),
            **{
                f"validation_{k}" if k in ("f1", "accuracy", "auc", "overall", "kirby_overall") else k: v
                for k, v in metrics.items()
            },
        }
