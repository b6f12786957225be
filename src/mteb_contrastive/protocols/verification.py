"""Authorship verification, scored with the official PAN metrics and calibrated answers.

Protocol of "Contrastive Learning for Authorship Verification" (Kirby) on PAN-format data:

1. every distinct text of the validation and test splits is embedded once per role (first text of a
   pair as query, second as document; see "Prompt types" below; mteb's dataloader and the model's
   ``encode``); a fitted baseline (a :class:`~mteb_contrastive.protocols.fitting.PairScorer`) is
   instead fitted *once* on the texts of every split together (validation, test and train when
   present; no labels), so that validation and test are represented with one vocabulary and IDF,
   and scores the pairs itself;
2. a pair's score is the model's similarity of its two embeddings (mteb ``similarity_pairwise``):
   cosine for sentence-transformers models; a fitted baseline's own pair score (cosine for TF-IDF,
   the protocol of the paper);
3. on **validation only**: the cosine threshold maximising F1, Platt scaling of the cosine
   (Platt's sigmoid fit with smoothed targets, scikit-learn), and the abstention half-width ``delta`` (the paper's grid
   ``calibration.DELTA_GRID`` = {0, .005, .01, .015, .02, .03, .04, .05, .075, .10, .125, .15, .20}, maximising the
   PAN overall score, ties to the smaller delta) -- :mod:`mteb_contrastive.metrics.calibration`;
4. on **test**, with those parameters unchanged, three kinds of PAN answers and their PAN metrics
   (:mod:`mteb_contrastive.metrics.pan`):

   * ``pan_hard_*``: 1.0 when cosine >= threshold, else 0.0; ``pan_hard_accuracy`` is the share of
     test pairs whose hard answer is right at this project's validation threshold (the midpoint
     between two validation scores, :func:`~mteb_contrastive.metrics.calibration.fit_threshold`) --
     not the paper's number, which is ``pan_kirby_hard_accuracy`` below (Kirby's threshold is an
     observed validation score: validation scores [0.1, 0.4, 0.35, 0.8] with labels [0, 0, 1, 1]
     give 0.225 here and 0.35 by Kirby's rule);
   * ``pan_platt_*``: the Platt probability;
   * ``pan_platt_abstain_*``: the Platt probability, 0.5 (no answer) inside the band;

   * ``pan_kirby_hard_*``, ``pan_kirby_platt_*``, ``pan_kirby_platt_abstain_*``: the same three kinds
     with Kirby's own calibration (:class:`~mteb_contrastive.metrics.calibration.KirbyCalibrator`,
     ``make_pan21_answers.py`` of github.com/petekirby/contrastive-av: the F1 threshold at an observed
     validation score, ``LogisticRegression(C=1)`` on the raw cosines, the same abstention grid compared
     exactly), fitted on the same validation pairs; ``pan_kirby_hard_accuracy`` is **the paper's
     headline number**, accuracy at Kirby's validation threshold
     (``helper_functions/contrastive_eval.py:22-40``). With a small validation split and cosines in a
     narrow band the two calibrations can differ by several points of overall (C = 1 shrinks the slope
     of a narrow band toward p = 0.5); the main score stays ``pan_platt_abstain_overall``;

   each with ``auc``, ``c_at_1``, ``f1``, ``f_05_u``, ``brier``, ``overall``, ``n_unanswered``
   and ``n_overall_metrics`` (how many metrics ``overall`` averages: on a single-class test set
   the AUC is undefined, ``null``, and left out -- :func:`~mteb_contrastive.metrics.pan.evaluate_all`);
   the task's ``pan_year`` (2021 default, 2020 for PAN20) picks the F0.5u non-answer rule and
   the overall score (mean of five, or of four without Brier).

mteb's own pair-classification metrics of the test scores stay in the result
(``similarity_accuracy``, ``cosine_accuracy``, ``cosine_ap``, ``max_f1``, ... --
``AbsTaskPairClassification._compute_metrics``; for a fitted baseline, which has no vectors,
only the ``similarity_*`` ones),
plus the fitted parameters (``threshold``, ``platt_coef``, ``platt_intercept``, ``abstain_delta``, and
``kirby_threshold``, ``kirby_platt_coef``, ``kirby_platt_intercept``, ``kirby_abstain_delta``).
**mteb's accuracy, F1, precision, recall and their thresholds choose the threshold on the test
split itself**, and every ``max_*`` picks the best similarity function on test: they are
test-fitted, never calibrated results. The result names them in ``test_fitted_metrics`` (a
comma-separated list, :func:`keys_fitted_on_test`); only ``<similarity>_ap`` /
``<similarity>_ap_weighted`` are threshold-free. Main score: ``pan_platt_abstain_overall``.

Prompt types: the first text of a pair is encoded as a query (``PromptType.query``), the second
as a document (``PromptType.document``), as sentence-transformers' ``TripletEvaluator`` does for
anchors and candidates and as the retrieval task does; a text that occurs in both roles is
encoded once per role.

**answers.jsonl.** The Platt+abstain answers of the test pairs are written as a PAN answers file:

* to ``<prediction folder>/pan_answers/<model>/<task>/<subset>/answers.jsonl`` when mteb is given
  a prediction folder (``mteb run --prediction-folder DIR``; mteb also writes its own
  ``<task>_predictions.json`` there with the test cosines, all three answer kinds and the test
  ``labels``);
* else to ``$MTEB_CONTRASTIVE_ANSWERS_DIR/<model>/<task>/<subset>/answers.jsonl`` when that
  variable is set;
* else not at all (logged). ``<model>`` is the mteb model name with ``/`` replaced by ``__``.

Data: ``self.dataset[subset][split]`` is a ``datasets.Dataset`` with ``id``, ``sentence1``,
``sentence2``, ``labels`` (1 = same author), ``fandom1``, ``fandom2``; splits ``validation``
and ``test`` are required, ``train`` is optional (its texts only go to a fitted baseline).

**Content independence** (:mod:`mteb_contrastive.metrics.content`): ``auc`` = ROC AUC of the test
scores, and ``auc_topic_controlled`` = the same on the test pairs where the fandom (PAN's topic field)
points the wrong way: same author with two different fandoms, different authors with one fandom
(Kirby's validation design); ``n_pairs_topic_controlled``. Built ELTeC pairs have no such
different-author pairs (a fandom is a novel): ``topic_controlled_withheld`` says so.
"""

from __future__ import annotations

import abc
import logging
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from mteb.abstasks.pair_classification import AbsTaskPairClassification

from mteb_contrastive import compat, config
from mteb_contrastive.compat import save_task_predictions
from mteb_contrastive.data.errors import DataError
from mteb_contrastive.data.pan import load_split, write_answers
from mteb_contrastive.layout import answers_file
from mteb_contrastive.metrics.calibration import Calibrator, KirbyCalibrator
from mteb_contrastive.metrics.content import verification_topic_scores
from mteb_contrastive.metrics.pan import pan_scores
from mteb_contrastive.metrics.roc import low_fpr_scores
from mteb_contrastive.protocols import cross_encoder_scoring as ces
from mteb_contrastive.protocols import scoring
from mteb_contrastive.protocols.fitting import fit_if_needed
from mteb_contrastive.protocols.scoring import encode_texts
from mteb_contrastive.report.chance import SIMULATION_RUNS, own_scale_chance_scores

logger = logging.getLogger(__name__)

ANSWERS_ENV = config.ANSWERS_ENV
#: the kinds of answers the protocol scores (``pan_<kind>_*``), from :meth:`Calibrator.answers`
VARIANTS = ("hard", "platt", "platt_abstain")


def rows_to_dataset(rows: list[dict[str, Any]]):
    """PAN rows ``{"id", "fandoms", "pair", "same", "authors"?, ...}`` -> a ``datasets.Dataset`` of the
    protocol's columns (``authors``: the truth file's author ids of the pair, ``[]`` when it has none)."""
    from datasets import Dataset

    return Dataset.from_dict(
        {
            "id": [r["id"] for r in rows],
            "sentence1": [r["pair"][0] for r in rows],
            "sentence2": [r["pair"][1] for r in rows],
            "labels": [int(r["same"]) for r in rows],
            "fandom1": [r["fandoms"][0] for r in rows],
            "fandom2": [r["fandoms"][1] for r in rows],
            "authors": [[str(a) for a in r.get("authors") or []] for r in rows],
        }
    )


def check_calibration_split(truth_file: Path, labels: Any) -> None:
    """Step 3 needs both classes on validation: checked when the data is loaded, before any encoding.

    Raises:
        DataError: the split's truth file holds pairs of one class only (names the file and the fix).
    """
    labels = [int(v) for v in labels]
    if len(set(labels)) < 2:
        have, lack = (
            ("same-author", '"same": false') if labels and labels[0] == 1 else ("different-author", '"same": true')
        )
        raise DataError(
            truth_file,
            f"only {have} pairs ({len(labels)}): the threshold, Platt scaling and abstention band are fitted on "
            f"this split and need both classes; add pairs with {lack}",
        )


def pair_scores(model: Any, emb: np.ndarray, i1: list[int], i2: list[int]) -> dict[str, list[float]]:
    """mteb's ``PairClassificationDistances`` for pairs of rows of ``emb``.

    ``similarity_scores`` is the model's own pairwise similarity (mteb ``similarity_pairwise``:
    cosine for sentence-transformers models); the other four are computed from the embedding
    vectors, as mteb's ``PairClassificationEvaluator`` does. (Fitted baselines have no
    embeddings: they score pairs themselves, see ``AbsTaskVerification._evaluate_subset``.)
    """
    import torch
    from mteb.similarity_functions import compute_pairwise_similarity
    from sklearn.metrics.pairwise import paired_cosine_distances, paired_euclidean_distances, paired_manhattan_distances

    e1, e2 = emb[i1], emb[i2]
    sim = compute_pairwise_similarity(
        model, torch.as_tensor(e1, dtype=torch.float32), torch.as_tensor(e2, dtype=torch.float32)
    )
    sim = np.asarray(sim.detach().cpu() if hasattr(sim, "detach") else sim, dtype=np.float64).ravel()
    return {
        "similarity_scores": sim.tolist(),
        "cosine_scores": (1 - paired_cosine_distances(e1, e2)).tolist(),
        "euclidean_distances": paired_euclidean_distances(e1, e2).tolist(),
        "manhattan_distances": paired_manhattan_distances(e1, e2).tolist(),
        "dot_scores": np.einsum("ij,ij->i", e1, e2).tolist(),
    }


def keys_fitted_on_test(keys: Any) -> list[str]:
    """mteb pair-classification keys whose value depends on a choice made on the test split.

    Test-fitted: ``<sim>_accuracy``, ``<sim>_f1``, ``<sim>_precision``, ``<sim>_recall`` and their
    ``*_threshold`` (mteb's ``PairClassificationEvaluator`` picks the threshold maximising them on
    the scores it is given, here test) and every ``max_*`` (the best of the similarity functions,
    on test). Threshold-free: ``<sim>_ap``, ``<sim>_ap_weighted``. ``pan_*`` keys are not mteb's.
    """
    sims = ("similarity", "cosine", "euclidean", "manhattan", "dot", "max")
    kinds = ("accuracy", "accuracy_threshold", "f1", "f1_threshold", "precision", "recall")
    out = []
    for k in keys:
        head, _, tail = k.partition("_")
        if head not in sims:
            continue
        if head == "max" or tail in kinds:
            out.append(k)
    return sorted(out)


def kirby_scores(
    labels: np.ndarray, kirby: KirbyCalibrator, answers: dict[str, np.ndarray], year: int
) -> dict[str, float]:
    """``pan_kirby_<variant>_<metric>``, the hard accuracy, parameters and validation overall of Kirby's calibration."""
    out = {f"pan_kirby_{k.removeprefix('pan_')}": v for k, v in pan_scores(labels, answers, year).items()}
    out["pan_kirby_hard_accuracy"] = float(np.mean((answers["hard"] >= 0.5) == (labels == 1)))
    out["validation_kirby_platt_abstain_overall"] = float(kirby.delta_curve[kirby.delta])
    return {**out, **kirby.params()}


class AbsTaskVerification(AbsTaskPairClassification):
    """PAN authorship verification over a PAN-format folder (see module docstring).

    Subclasses set ``metadata`` (``eval_splits=["test"]``, ``main_score="pan_platt_abstain_overall"``)
    and implement :meth:`pan_folder`; ``pan_year`` = 2021 (default) or 2020.
    """

    #: the protocol's row in :data:`mteb_contrastive.families.PROTOCOLS` (family, tie rule, resampling unit)
    protocol: ClassVar[str] = "verification"

    abstask_prompt = "Represent the writing style of the text."
    #: mteb's gate for non-encoder models: fitted baselines (pair scorers) are accepted here
    _support_search: ClassVar[bool] = True
    pan_year: ClassVar[int] = 2021
    calibration_split: ClassVar[str] = "validation"

    @abc.abstractmethod
    def pan_folder(self) -> Path:
        """The PAN-format folder (``<split>/pairs.jsonl`` + ``<split>/truth.jsonl``); each task
        declaration supplies it (a data source of :mod:`mteb_contrastive.sources`)."""

    def load_data(self, num_proc: int | None = None, *, timer: Any = None, **kwargs: Any) -> None:
        if self.data_loaded:
            return
        from datasets import DatasetDict

        folder = self.pan_folder()
        splits = {}
        for split in dict.fromkeys([self.calibration_split, *self.eval_splits]):
            splits[split] = rows_to_dataset(load_split(folder, split))
        check_calibration_split(
            folder / self.calibration_split / "truth.jsonl", splits[self.calibration_split]["labels"]
        )
        if (folder / "train" / "pairs.jsonl").is_file():
            splits["train"] = rows_to_dataset(load_split(folder, "train"))
        self.dataset = {subset: DatasetDict(splits) for subset in self.hf_subsets}
        self.data_loaded = True

    def _encode_split(
        self, model: Any, ds: Any, split: str, hf_subset: str, encode_kwargs: dict, num_proc: int | None
    ) -> tuple[np.ndarray, list[int], list[int]]:
        """Distinct first texts encoded as queries, distinct second texts as documents, stacked."""
        from mteb.types import PromptType

        idx1 = {t: i for i, t in enumerate(dict.fromkeys(ds["sentence1"]))}
        idx2 = {t: i for i, t in enumerate(dict.fromkeys(ds["sentence2"]))}
        embs = []
        for index, role in ((idx1, PromptType.query), (idx2, PromptType.document)):
            e = np.asarray(
                encode_texts(
                    model,
                    list(index),
                    self,
                    hf_split=split,
                    hf_subset=hf_subset,
                    encode_kwargs=encode_kwargs,
                    num_proc=num_proc,
                    prompt_type=role,
                ),
                dtype=np.float64,
            )
            embs.append(e[:, None] if e.ndim == 1 else e)
        emb = np.vstack(embs)
        return emb, [idx1[t] for t in ds["sentence1"]], [len(idx1) + idx2[t] for t in ds["sentence2"]]

    def _evaluate_subset(
        self,
        model: Any,
        data_split: Any,
        *,
        hf_split: str,
        hf_subset: str,
        encode_kwargs: dict,
        prediction_folder: Path | None = None,
        num_proc: int | None = None,
        timer: Any = None,
        **kwargs: Any,
    ) -> dict[str, float]:
        """The protocol of the module docstring, step by step (each step is a method of its own)."""
        kind = self._scorer_kind(model)
        subset_data = self.dataset[hf_subset]
        val = subset_data[self.calibration_split]
        labels = np.asarray(data_split["labels"], dtype=np.int64)
        enc = dict(hf_subset=hf_subset, encode_kwargs=encode_kwargs, num_proc=num_proc)
        self._fit_baseline(model, kind, subset_data, data_split)
        val_sim = self._validation_similarities(model, kind, val, **enc)
        calibrator = self._fit_calibrator(val_sim, val["labels"])
        kirby = KirbyCalibrator(year=self.pan_year).fit(val_sim, np.asarray(val["labels"]))
        distances = self._test_similarities(model, kind, data_split, hf_split=hf_split, **enc)
        answers = self._test_answers(calibrator, distances)
        scores = self._scores(
            model,
            kind,
            distances,
            labels,
            answers,
            calibrator,
            n_validation_pairs=len(val),
            n_validation_same_author=int(np.sum(val["labels"])),
        )
        # content independence: AUC on all test pairs and on the topic-controlled ones (fandoms)
        scores.update(
            verification_topic_scores(
                labels, distances["similarity_scores"], data_split["fandom1"], data_split["fandom2"]
            )
        )
        kirby_answers = kirby.answers(np.asarray(distances["similarity_scores"]))
        scores.update(kirby_scores(labels, kirby, kirby_answers, self.pan_year))
        answers.update({f"kirby_{k}": v for k, v in kirby_answers.items()})
        # chance levels of every calibrated score at this model's own scale (its scores, labels permuted)
        scores.update(
            own_scale_chance_scores(
                val_sim,
                np.asarray(val["labels"]),
                distances["similarity_scores"],
                labels,
                year=self.pan_year,
                runs=config.env_positive_int(config.CHANCE_RUNS_ENV, SIMULATION_RUNS),
            )
        )
        self._write_outputs(
            model,
            list(data_split["id"]),
            distances,
            answers,
            labels,
            hf_split=hf_split,
            hf_subset=hf_subset,
            prediction_folder=prediction_folder,
            authors=list(data_split["authors"]) if "authors" in data_split.column_names else None,
        )
        return scores

    def _scorer_kind(self, model: Any) -> str:
        """``"pair_scorer"`` (a fitted baseline scoring text pairs), ``"cross_encoder"`` or ``"encoder"``
        (:func:`~mteb_contrastive.protocols.scoring.scorer_kind`, the one dispatch of every protocol).

        Raises:
            TypeError: the model is none of the three.
        """
        return scoring.scorer_kind(model, self.metadata.name)

    def _fit_baseline(self, model: Any, kind: str, subset_data: Any, data_split: Any) -> bool:
        """Step 1, fitting (no labels): a pair scorer is fitted once on the distinct texts of every
        split of the subset together; an encoder with the fit hook on the distinct test texts, the
        train split's texts as ``train_texts``; a cross-encoder is not fitted. Returns whether it was fitted."""
        if kind == "pair_scorer":
            all_texts = list(
                dict.fromkeys(
                    t for split in subset_data.values() for col in ("sentence1", "sentence2") for t in split[col]
                )
            )
            model.fit(all_texts)
            logger.info(
                "%s: fitted %s on the %d distinct texts of splits %s",
                self.metadata.name,
                type(model).__name__,
                len(all_texts),
                sorted(subset_data),
            )
            return True
        if kind == "encoder":
            test_texts = list(dict.fromkeys(list(data_split["sentence1"]) + list(data_split["sentence2"])))
            train_texts = None
            if "train" in subset_data:
                train_texts = list(
                    dict.fromkeys(list(subset_data["train"]["sentence1"]) + list(subset_data["train"]["sentence2"]))
                )
            if fit_if_needed(model, test_texts, train_texts=train_texts):
                logger.info(
                    "%s: fitted %s on %d test texts (+%d train texts)",
                    self.metadata.name,
                    type(model).__name__,
                    len(test_texts),
                    len(train_texts or []),
                )
                return True
        return False

    def _validation_similarities(
        self, model: Any, kind: str, val: Any, *, hf_subset: str, encode_kwargs: dict, num_proc: int | None
    ) -> np.ndarray:
        """Step 2: the model's score of each validation pair, shape (n_validation_pairs,) (cosine for
        sentence-transformers models; a pair scorer's or cross-encoder's own score)."""
        return np.asarray(
            self._pair_similarities(model, kind, val, self.calibration_split, hf_subset, encode_kwargs, num_proc)[
                "similarity_scores"
            ]
        )

    def _fit_calibrator(self, val_sim: Any, val_labels: Any) -> Calibrator:
        """Step 3: threshold, Platt scaling and abstention band fitted on validation only
        (:class:`~mteb_contrastive.metrics.calibration.Calibrator`, the task's ``pan_year``).

        Raises:
            CalibrationError: a single-class validation split (from the calibrator).
        """
        return Calibrator(year=self.pan_year).fit(val_sim, np.asarray(val_labels))

    def _test_similarities(
        self,
        model: Any,
        kind: str,
        data_split: Any,
        *,
        hf_split: str,
        hf_subset: str,
        encode_kwargs: dict,
        num_proc: int | None,
    ) -> dict[str, list[float]]:
        """Step 4: the test pairs' scores as mteb ``PairClassificationDistances`` (an encoder: the five
        of :func:`pair_scores`; a pair scorer: ``similarity_scores`` only; a cross-encoder:
        its score under every key)."""
        return self._pair_similarities(model, kind, data_split, hf_split, hf_subset, encode_kwargs, num_proc)

    def _pair_similarities(
        self, model: Any, kind: str, ds: Any, split: str, hf_subset: str, encode_kwargs: dict, num_proc: int | None
    ) -> dict[str, list[float]]:
        if kind != scoring.ENCODER:  # a pair scorer's or cross-encoder's own score of each pair
            s = scoring.pair_scores(
                model,
                kind,
                list(ds["sentence1"]),
                list(ds["sentence2"]),
                self,
                hf_split=split,
                hf_subset=hf_subset,
                encode_kwargs=encode_kwargs,
                num_proc=num_proc,
            )
            return {"similarity_scores": s.tolist()} if kind == scoring.PAIR_SCORER else ces.as_distances(s)
        emb, i1, i2 = self._encode_split(model, ds, split, hf_subset, encode_kwargs, num_proc)
        return pair_scores(model, emb, i1, i2)

    def _test_answers(self, calibrator: Calibrator, distances: dict[str, list[float]]) -> dict[str, np.ndarray]:
        """Step 5: the test answers ``{"hard", "platt", "platt_abstain"}`` (arrays in [0, 1], 0.5 = no
        answer) from the validation-fitted parameters, unchanged (:meth:`Calibrator.answers`)."""
        return calibrator.answers(np.asarray(distances["similarity_scores"]))

    def _scores(
        self,
        model: Any,
        kind: str,
        distances: dict[str, list[float]],
        labels: np.ndarray,
        answers: dict[str, np.ndarray],
        calibrator: Calibrator,
        *,
        n_validation_pairs: int,
        n_validation_same_author: int | None = None,
    ) -> dict[str, Any]:
        """Step 6, the two metric families and the fitted parameters: mteb's pair-classification
        scores of the test similarities (``compat.pair_classification_metrics``; ``similarity_*``
        only for scores without vectors) with ``test_fitted_metrics``, the PAN metrics of each
        kind of answers (:func:`pan_scores`), ``pan_hard_accuracy``, the equal error rate and
        standardised partial AUCs of the test similarities (:func:`~mteb_contrastive.metrics.roc.low_fpr_scores`),
        the calibrator's parameters, counts and a fitted baseline's numeric ``fit_summary``."""
        if kind == "encoder":
            scores: dict[str, Any] = dict(compat.pair_classification_metrics(self, distances, labels))
        else:  # pair scores, not vectors: only the model's own similarity means anything
            values = compat.pair_classification_metric_values(
                self, list(map(float, distances["similarity_scores"])), labels, True
            )
            scores = {f"similarity_{k}": v for k, v in values.items()}
        scores["test_fitted_metrics"] = ",".join(keys_fitted_on_test(scores))
        scores.update(pan_scores(labels, answers, self.pan_year))
        # threshold-free, like AUC: equal error rate and partial AUC at FPR 0.01/0.05/0.10 (metrics/roc.py)
        scores.update(low_fpr_scores(labels, distances["similarity_scores"]))
        scores["pan_hard_accuracy"] = float(np.mean((answers["hard"] >= 0.5) == (labels == 1)))
        scores.update(calibrator.params())
        scores["pan_year"] = self.pan_year
        scores["n_pairs"] = int(labels.size)
        scores["n_same_author"] = int(labels.sum())
        scores["n_validation_pairs"] = n_validation_pairs
        if n_validation_same_author is not None:  # the report's simulated chance levels need the class balance
            scores["n_validation_same_author"] = n_validation_same_author
        scores["validation_platt_abstain_overall"] = float(calibrator.delta_curve[calibrator.delta])
        # what a fitted baseline learnt from (its optional ``fit_summary`` dict of numbers)
        summary = getattr(model, "fit_summary", None)
        if isinstance(summary, dict):
            scores.update(
                {str(k): v for k, v in summary.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
            )
        return scores

    def _write_outputs(
        self,
        model: Any,
        ids: list[str],
        distances: dict[str, list[float]],
        answers: dict[str, np.ndarray],
        labels: np.ndarray,
        *,
        hf_split: str,
        hf_subset: str,
        prediction_folder: Path | None,
        authors: list[list[str]] | None = None,
    ) -> None:
        """Step 7, the two files: the PAN ``answers.jsonl`` of the Platt+abstain answers
        (:meth:`answers_path`) and, with a prediction folder, mteb's ``<task>_predictions.json``
        (``compat.save_task_predictions``) holding ``id``, ``similarity``, the three answer kinds,
        the test ``labels`` (so a comparison needs not load the task again) and, when the truth file
        names them, each pair's ``authors`` -- the units a comparison resamples (pairs that share an
        author are not independent; :data:`mteb_contrastive.families.BY_AUTHOR`)."""
        self._write_answers(model, ids, answers["platt_abstain"], hf_subset, prediction_folder)
        if prediction_folder:
            with_authors = authors is not None and len(authors) == len(ids) and all(authors)
            save_task_predictions(
                self,
                {
                    "id": ids,
                    "similarity": distances["similarity_scores"],
                    **{k: v.tolist() for k, v in answers.items()},
                    "labels": [int(v) for v in labels],
                    **({"authors": [list(a) for a in authors]} if with_authors else {}),
                },
                model,
                prediction_folder,
                hf_subset=hf_subset,
                hf_split=hf_split,
            )

    def answers_path(self, model: Any, hf_subset: str, prediction_folder: Path | str | None) -> Path | None:
        """Where the test answers go (see module docstring); None when nowhere."""
        name = getattr(getattr(model, "mteb_model_meta", None), "name", None) or type(model).__name__
        rel = answers_file(name, self.metadata.name, hf_subset)
        if prediction_folder:
            return Path(prediction_folder) / "pan_answers" / rel
        folder = config.env_folder(ANSWERS_ENV)
        return None if folder is None else folder / rel

    def _write_answers(
        self, model: Any, ids: list[str], values: np.ndarray, hf_subset: str, prediction_folder: Path | None
    ) -> None:
        path = self.answers_path(model, hf_subset, prediction_folder)
        if path is None:
            logger.info(
                "%s: answers.jsonl not written (pass --prediction-folder or set %s)", self.metadata.name, ANSWERS_ENV
            )
            return
        write_answers(path, ids, values.tolist())
        logger.info("%s: PAN answers written to %s", self.metadata.name, path)
