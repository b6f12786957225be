"""Authorship verification, scored with the official PAN metrics and calibrated answers.

Protocol of "Contrastive Learning for Authorship Verification" (Kirby) on PAN-format data:

1. every distinct text of the validation and test splits is embedded once (mteb's dataloader and
   the model's ``encode``; :func:`~mteb_contrastive.protocols.fitting.fit_if_needed` first, so
   fitted baselines see the test texts and the train split's texts);
2. a pair's score is the model's similarity of its two embeddings (mteb ``similarity_pairwise``):
   cosine for sentence-transformers models and for the TF-IDF baselines (the protocol of the paper);
3. on **validation only**: the cosine threshold maximising F1, Platt scaling of the cosine
   (logistic regression), and the abstention half-width ``delta`` (grid 0..0.20, maximising the
   PAN overall score, ties to the smaller delta) -- :mod:`mteb_contrastive.metrics.calibration`;
4. on **test**, with those parameters unchanged, three kinds of PAN answers and their PAN metrics
   (:mod:`mteb_contrastive.metrics.pan`):

   * ``pan_hard_*``: 1.0 when cosine >= threshold, else 0.0;
   * ``pan_platt_*``: the Platt probability;
   * ``pan_platt_abstain_*``: the Platt probability, 0.5 (no answer) inside the band;

   each with ``auc``, ``c_at_1``, ``f1``, ``f_05_u``, ``brier``, ``overall``, ``n_unanswered``;
   the task's ``pan_year`` (2021 default, 2020 for PAN20) picks the F0.5u non-answer rule and
   the overall score (mean of five, or of four without Brier).

mteb's own pair-classification metrics of the test scores stay in the result
(``similarity_accuracy``, ``cosine_accuracy``, ``cosine_ap``, ``max_f1``, ... --
``AbsTaskPairClassification._compute_metrics``; for a model whose ``encode`` gives no vectors,
such as a sparse baseline's row keys, only the ``similarity_*`` ones),
plus the fitted parameters (``threshold``, ``platt_coef``, ``platt_intercept``, ``abstain_delta``).
Main score: ``pan_platt_abstain_overall``.

**answers.jsonl.** The Platt+abstain answers of the test pairs are written as a PAN answers file:

* to ``<prediction folder>/pan_answers/<model>/<task>/<subset>/answers.jsonl`` when mteb is given
  a prediction folder (``mteb run --prediction-folder DIR``; mteb also writes its own
  ``<task>_predictions.json`` there with the test cosines and all three answer kinds);
* else to ``$MTEB_CONTRASTIVE_ANSWERS_DIR/<model>/<task>/<subset>/answers.jsonl`` when that
  variable is set;
* else not at all (logged). ``<model>`` is the mteb model name with ``/`` replaced by ``__``.

Data: ``self.dataset[subset][split]`` is a ``datasets.Dataset`` with ``id``, ``sentence1``,
``sentence2``, ``labels`` (1 = same author), ``fandom1``, ``fandom2``; splits ``validation``
and ``test`` are required, ``train`` is optional (its texts only go to a fitted baseline).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from mteb.abstasks.pair_classification import AbsTaskPairClassification

from mteb_contrastive.metrics.calibration import Calibrator
from mteb_contrastive.metrics.pan import evaluate_all
from mteb_contrastive.protocols.fitting import fit_if_needed
from mteb_contrastive.protocols.triplet_classification import encode_texts

logger = logging.getLogger(__name__)

ANSWERS_ENV = "MTEB_CONTRASTIVE_ANSWERS_DIR"
VARIANTS = ("hard", "platt", "platt_abstain")
_METRIC_KEYS = {"auc": "auc", "c@1": "c_at_1", "f1": "f1", "f_05_u": "f_05_u", "brier": "brier", "overall": "overall", "n_unanswered": "n_unanswered"}


def rows_to_dataset(rows: list[dict[str, Any]]):
    """PAN rows ``{"id", "fandoms", "pair", "same", ...}`` -> a ``datasets.Dataset`` of the protocol's columns."""
    from datasets import Dataset

    return Dataset.from_dict(
        {
            "id": [r["id"] for r in rows],
            "sentence1": [r["pair"][0] for r in rows],
            "sentence2": [r["pair"][1] for r in rows],
            "labels": [int(r["same"]) for r in rows],
            "fandom1": [r["fandoms"][0] for r in rows],
            "fandom2": [r["fandoms"][1] for r in rows],
        }
    )


def pair_scores(model: Any, emb: np.ndarray, i1: list[int], i2: list[int]) -> dict[str, list[float]]:
    """mteb's ``PairClassificationDistances`` for pairs of rows of ``emb``.

    ``similarity_scores`` is the model's own pairwise similarity (mteb ``similarity_pairwise``:
    cosine for sentence-transformers models and for this project's TF-IDF baselines, whose
    ``encode`` returns row keys into a sparse store); the other four are computed from the
    embedding vectors, as mteb's ``PairClassificationEvaluator`` does.
    """
    import torch
    from mteb.similarity_functions import compute_pairwise_similarity
    from sklearn.metrics.pairwise import paired_cosine_distances, paired_euclidean_distances, paired_manhattan_distances

    e1, e2 = emb[i1], emb[i2]
    sim = compute_pairwise_similarity(model, torch.as_tensor(e1, dtype=torch.float32), torch.as_tensor(e2, dtype=torch.float32))
    sim = np.asarray(sim.detach().cpu() if hasattr(sim, "detach") else sim, dtype=np.float64).ravel()
    return {
        "similarity_scores": sim.tolist(),
        "cosine_scores": (1 - paired_cosine_distances(e1, e2)).tolist(),
        "euclidean_distances": paired_euclidean_distances(e1, e2).tolist(),
        "manhattan_distances": paired_manhattan_distances(e1, e2).tolist(),
        "dot_scores": np.einsum("ij,ij->i", e1, e2).tolist(),
    }


def pan_scores(labels: np.ndarray, answers: dict[str, np.ndarray], year: int) -> dict[str, float]:
    """Flat ``pan_<variant>_<metric>`` scores for each kind of answers."""
    out: dict[str, float] = {}
    for variant in VARIANTS:
        res = evaluate_all(labels, answers[variant], year=year)
        for k, name in _METRIC_KEYS.items():
            out[f"pan_{variant}_{name}"] = res[k]
    return out


class AbsTaskVerification(AbsTaskPairClassification):
    """PAN authorship verification over a PAN-format folder (see module docstring).

    Subclasses set ``metadata`` (``eval_splits=["test"]``, ``main_score="pan_platt_abstain_overall"``)
    and implement :meth:`pan_folder`; ``pan_year`` = 2021 (default) or 2020.
    """

    abstask_prompt = "Represent the writing style of the text."
    pan_year: ClassVar[int] = 2021
    calibration_split: ClassVar[str] = "validation"

    def pan_folder(self) -> Path:
        """The PAN-format folder (``<split>/pairs.jsonl`` + ``<split>/truth.jsonl``)."""
        raise NotImplementedError

    def load_data(self, num_proc: int | None = None, *, timer: Any = None, **kwargs: Any) -> None:
        if self.data_loaded:
            return
        from datasets import DatasetDict

        from mteb_contrastive.data.pan import load_split

        folder = self.pan_folder()
        splits = {}
        for split in dict.fromkeys([self.calibration_split, *self.eval_splits]):
            splits[split] = rows_to_dataset(load_split(folder, split))
        if (folder / "train" / "pairs.jsonl").is_file():
            splits["train"] = rows_to_dataset(load_split(folder, "train"))
        self.dataset = {subset: DatasetDict(splits) for subset in self.hf_subsets}
        self.data_loaded = True

    def _encode_split(self, model: Any, ds: Any, split: str, hf_subset: str, encode_kwargs: dict, num_proc: int | None) -> tuple[np.ndarray, list[int], list[int]]:
        index: dict[str, int] = {}
        for t in list(ds["sentence1"]) + list(ds["sentence2"]):
            index.setdefault(t, len(index))
        emb = encode_texts(model, list(index), self, hf_split=split, hf_subset=hf_subset, encode_kwargs=encode_kwargs, num_proc=num_proc)
        emb = np.asarray(emb, dtype=np.float64)
        if emb.ndim == 1:
            emb = emb[:, None]
        return emb, [index[t] for t in ds["sentence1"]], [index[t] for t in ds["sentence2"]]

    def _evaluate_subset(self, model: Any, data_split: Any, *, hf_split: str, hf_subset: str, encode_kwargs: dict, prediction_folder: Path | None = None, num_proc: int | None = None, timer: Any = None, **kwargs: Any) -> dict[str, float]:
        from mteb.models.models_protocols import EncoderProtocol

        from mteb_contrastive.protocols import cross_encoder_scoring as ces

        cross = ces.is_cross_encoder(model)  # a cross-encoder scores each pair directly (calibration and metrics unchanged)
        if not cross and not isinstance(model, EncoderProtocol):
            raise TypeError(f"{self.metadata.name} scores embeddings or pairs: it needs an encoder or a cross-encoder, got {type(model).__name__}")
        subset_data = self.dataset[hf_subset]
        val = subset_data[self.calibration_split]
        test_texts = list(dict.fromkeys(list(data_split["sentence1"]) + list(data_split["sentence2"])))
        train_texts = None
        if "train" in subset_data:
            train_texts = list(dict.fromkeys(list(subset_data["train"]["sentence1"]) + list(subset_data["train"]["sentence2"])))
        if fit_if_needed(model, test_texts, train_texts=train_texts):
            logger.info("%s: fitted %s on %d test texts (+%d train texts)", self.metadata.name, type(model).__name__, len(test_texts), len(train_texts or []))

        if cross:
            val_sim = ces.cross_encoder_scores(model, list(val["sentence1"]), list(val["sentence2"]), self, hf_split=self.calibration_split, hf_subset=hf_subset, encode_kwargs=encode_kwargs, num_proc=num_proc)
        else:
            val_emb, v1, v2 = self._encode_split(model, val, self.calibration_split, hf_subset, encode_kwargs, num_proc)
            val_sim = np.asarray(pair_scores(model, val_emb, v1, v2)["similarity_scores"])
        calibrator = Calibrator(year=self.pan_year).fit(val_sim, np.asarray(val["labels"]))

        if cross:
            test_emb = np.zeros((0, 1))
            distances = ces.as_distances(ces.cross_encoder_scores(model, list(data_split["sentence1"]), list(data_split["sentence2"]), self, hf_split=hf_split, hf_subset=hf_subset, encode_kwargs=encode_kwargs, num_proc=num_proc))
        else:
            test_emb, t1, t2 = self._encode_split(model, data_split, hf_split, hf_subset, encode_kwargs, num_proc)
            distances = pair_scores(model, test_emb, t1, t2)
        labels = np.asarray(data_split["labels"], dtype=np.int64)
        answers = calibrator.answers(np.asarray(distances["similarity_scores"]))

        scores: dict[str, Any] = dict(self._compute_metrics(distances, labels))
        if test_emb.shape[1] < 2:
            # not vectors (row keys of a sparse baseline, or a cross-encoder's pair scores): only the model's own similarity means anything
            scores = {k: v for k, v in scores.items() if k.startswith("similarity_")}
        scores.update(pan_scores(labels, answers, self.pan_year))
        scores.update(calibrator.params())
        scores["pan_year"] = self.pan_year
        scores["n_pairs"] = int(labels.size)
        scores["n_same_author"] = int(labels.sum())
        scores["n_validation_pairs"] = len(val)
        scores["validation_platt_abstain_overall"] = float(calibrator.delta_curve[calibrator.delta])
        # what a fitted baseline learnt from (its optional ``fit_summary`` dict of numbers)
        summary = getattr(model, "fit_summary", None)
        if isinstance(summary, dict):
            scores.update({str(k): v for k, v in summary.items() if isinstance(v, (int, float)) and not isinstance(v, bool)})

        ids = list(data_split["id"])
        self._write_answers(model, ids, answers["platt_abstain"], hf_subset, prediction_folder)
        if prediction_folder:
            self._save_task_predictions(
                {"id": ids, "similarity": distances["similarity_scores"], **{k: v.tolist() for k, v in answers.items()}},
                model,
                prediction_folder,
                hf_subset=hf_subset,
                hf_split=hf_split,
            )
        return scores

    def answers_path(self, model: Any, hf_subset: str, prediction_folder: Path | str | None) -> Path | None:
        """Where the test answers go (see module docstring); None when nowhere."""
        name = getattr(getattr(model, "mteb_model_meta", None), "name", None) or type(model).__name__
        rel = Path(name.replace("/", "__")) / self.metadata.name / hf_subset / "answers.jsonl"
        if prediction_folder:
            return Path(prediction_folder) / "pan_answers" / rel
        env = os.environ.get(ANSWERS_ENV)
        if env:
            return Path(env) / rel
        return None

    def _write_answers(self, model: Any, ids: list[str], values: np.ndarray, hf_subset: str, prediction_folder: Path | None) -> None:
        from mteb_contrastive.data.pan import write_answers

        path = self.answers_path(model, hf_subset, prediction_folder)
        if path is None:
            logger.info("%s: answers.jsonl not written (pass --prediction-folder or set %s)", self.metadata.name, ANSWERS_ENV)
            return
        write_answers(path, ids, values.tolist())
        logger.info("%s: PAN answers written to %s", self.metadata.name, path)
