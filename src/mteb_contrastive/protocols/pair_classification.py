"""Pair classification on the HALvest-Contrastive pairs release (``author_label``), natively.

Each row of the pairs release (``almanach/HALvest-Contrastive``) is a (query span, key span) pair
labelled ``author_label`` = 1 when the two documents share any author (the authors' pairs
sampler, ``contrastive_sampler.py`` L164-166 at commit 3b17f84). A pair's score is the model's
similarity (mteb ``similarity_pairwise``: cosine for sentence-transformers) of the query
embedding (``PromptType.query``) and the key embedding (``PromptType.document``).

Scores of the test split:

* ``average_precision`` -- sklearn ``average_precision_score`` of the test scores (no threshold;
  main score);
* ``accuracy_validation_threshold`` -- accuracy at the threshold that maximises accuracy on the
  release's ``valid`` split (:func:`fit_accuracy_threshold`), never fitted on test;
* ``f1_validation_threshold`` -- F1 of the positive class at the threshold that maximises F1 on
  ``valid`` (:func:`mteb_contrastive.metrics.calibration.fit_threshold`);
* the two thresholds, the validation values, ``n_pairs``, ``n_positive_pairs``,
  ``n_validation_pairs``, ``dataset_path``, ``dataset_revision``.

A split with a single class (every ``ict-*`` config: all labels 1, ``ict_sampler.py`` L44-46) or a
triplet-schema release gets NaN scores and ``pair_score_withheld`` saying why.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

import numpy as np
from mteb.abstasks.abstask import AbsTask

from mteb_contrastive.data.halvest import VALIDATION_SPLIT
from mteb_contrastive.metrics.calibration import fit_threshold
from mteb_contrastive.protocols import scoring
from mteb_contrastive.protocols.triplet_source import TripletSource

logger = logging.getLogger(__name__)


def fit_accuracy_threshold(scores: Any, labels: Any) -> float:
    """The score threshold maximising accuracy on validation (a pair is positive when ``score >= t``).

    Candidates are midpoints between consecutive distinct sorted scores plus one below the
    minimum and one above the maximum, so tied scores are never split; ties in accuracy go to the
    higher threshold.

    Args:
        scores: shape (n,), higher = more likely positive. labels: shape (n,), 0/1.

    Raises:
        ValueError: empty input or shapes that differ.
    """
    s = np.asarray(scores, dtype=np.float64).ravel()
    y = np.asarray(labels, dtype=np.int64).ravel()
    if s.size == 0 or s.shape != y.shape:
        raise ValueError(f"need equal, non-empty scores and labels, got {s.size} and {y.size}")
    order = np.argsort(-s, kind="stable")
    s_sorted, y_sorted = s[order], y[order]
    # cutting after position k (k = 0..n) predicts the top k positive
    tp = np.concatenate([[0], np.cumsum(y_sorted)])
    k = np.arange(s.size + 1)
    correct = tp + (s.size - y.sum()) - (k - tp)
    valid = np.ones(s.size + 1, dtype=bool)
    valid[1:-1] = s_sorted[:-1] != s_sorted[1:]
    best = int(np.argmax(np.where(valid, correct, -1)))
    if best == 0:
        return float(s_sorted[0] + 1.0)  # nothing positive
    if best == s.size:
        return float(s_sorted[-1])
    return float((s_sorted[best - 1] + s_sorted[best]) / 2)


def _f1(pred: np.ndarray, y: np.ndarray) -> float:
    tp = float(np.sum(pred & (y == 1)))
    denom = float(pred.sum() + (y == 1).sum())
    return 2 * tp / denom if denom else 0.0


class AbsTaskAuthorPairClassification(TripletSource, AbsTask):
    """Pair classification of pair rows; subclasses implement :meth:`load_triplets` (native rows + info).

    ``self.dataset[subset][split]`` holds the rows of the eval split and of the validation split.
    """

    #: the protocol's row in :data:`mteb_contrastive.families.PROTOCOLS` (family, tie rule, resampling unit)
    protocol: ClassVar[str] = "author-pairs"

    abstask_prompt = "Represent the writing style of the text."
    validation_split: ClassVar[str] = VALIDATION_SPLIT

    def load_data(self, num_proc: int | None = None, *, timer: Any = None, **kwargs: Any) -> None:
        if self.data_loaded:
            return
        self.dataset, self.load_info = {}, {}
        for hf_subset in self.hf_subsets:
            for split in dict.fromkeys([self.validation_split, *self.eval_splits]):
                rows, info = self.load_triplets(hf_subset, split)
                self.dataset.setdefault(hf_subset, {})[split] = (rows, info.get("schema"))
                self.load_info[f"{hf_subset}/{split}"] = {
                    k: v for k, v in info.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
                }
        self.data_loaded = True

    def _withheld(self, val: list[dict[str, Any]], test: list[dict[str, Any]], schema: str | None) -> str | None:
        if schema != "pairs":
            return (
                "no pair score: pair classification needs the pairs schema (author_label), "
                f"this release has the {schema} schema"
            )
        for name, rows in ((self.validation_split, val), ("test", test)):
            labels = {int(r["author_label"]) for r in rows}
            if len(labels) < 2:
                return (
                    f"no pair score: the {name} split has only author_label {sorted(labels)} ({len(rows)} rows), "
                    "e.g. an ict-* config (all pairs positive)"
                )
        return None

    def _sim(
        self,
        model: Any,
        rows: list[dict[str, Any]],
        hf_split: str,
        hf_subset: str,
        encode_kwargs: dict,
        num_proc: int | None,
    ) -> np.ndarray:
        kind = scoring.scorer_kind(model, self.metadata.name, accepts=(scoring.ENCODER,))
        return scoring.pair_scores(
            model,
            kind,
            [r["query_text"] for r in rows],
            [r["key_text"] for r in rows],
            self,
            hf_split=hf_split,
            hf_subset=hf_subset,
            encode_kwargs=encode_kwargs,
            num_proc=num_proc,
        )

    def _evaluate_subset(
        self,
        model: Any,
        data_split: Any,
        *,
        hf_split: str,
        hf_subset: str,
        encode_kwargs: dict,
        prediction_folder: Any = None,
        num_proc: int | None = None,
        timer: Any = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        from sklearn.metrics import average_precision_score

        test, schema = data_split
        val, _ = self.dataset[hf_subset][self.validation_split]
        out: dict[str, Any] = dict(self.split_counts(hf_subset, hf_split))
        out.update(
            dataset_path=str(self.metadata.dataset["path"]), dataset_revision=str(self.metadata.dataset.get("revision"))
        )
        reason = self._withheld(val, test, schema)
        if reason is not None:
            nan = float("nan")
            logger.warning("%s %s: %s", self.metadata.name, hf_subset, reason)
            return {
                "average_precision": nan,
                "accuracy_validation_threshold": nan,
                "f1_validation_threshold": nan,
                "pair_score_withheld": reason,
                **out,
            }
        val_sim = self._sim(model, val, self.validation_split, hf_subset, encode_kwargs, num_proc)
        val_y = np.asarray([int(r["author_label"]) for r in val])
        t_acc = fit_accuracy_threshold(val_sim, val_y)
        t_f1 = fit_threshold(val_sim, val_y)
        sim = self._sim(model, test, hf_split, hf_subset, encode_kwargs, num_proc)
        y = np.asarray([int(r["author_label"]) for r in test])
        out.update(
            average_precision=float(average_precision_score(y, sim)),
            accuracy_validation_threshold=float(np.mean((sim >= t_acc) == (y == 1))),
            f1_validation_threshold=_f1(sim >= t_f1, y),
            accuracy_threshold=t_acc,
            f1_threshold=t_f1,
            validation_accuracy=float(np.mean((val_sim >= t_acc) == (val_y == 1))),
            validation_f1=_f1(val_sim >= t_f1, val_y),
            n_pairs=int(y.size),
            n_positive_pairs=int(y.sum()),
            n_validation_pairs=int(val_y.size),
        )
        return out

    def _calculate_descriptive_statistics_from_split(
        self, split: str, hf_subset: str | None = None, compute_overall: bool = False, num_proc: int | None = None
    ) -> dict[str, Any]:
        rows = [r for s in ([hf_subset] if hf_subset else self.hf_subsets) for r in self.dataset[s][split][0]]
        return {"num_samples": len(rows)}
