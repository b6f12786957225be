"""Closed-set authorship attribution by leave-one-text-out, with calibrated answers for questioned texts.

Data (``self.dataset[subset]["test"]``): the texts of a folder built by ``build-attribution``
(:mod:`mteb_contrastive.data.attribution_builder`): ``id``, ``author`` (null for a questioned text),
``role`` (``known`` / ``questioned``), ``label_note``, ``title`` and ``chunks`` (the text's sampled
chunks). Candidates: every author with a known text, sorted by name (K of them). Evaluated texts:
the known texts of authors with two or more (only they can be attributed with their own text left out).

The protocol, step by step (each a method of :class:`AbsTaskAttribution`):

1. **represent** -- an encoder embeds every sampled chunk once (``PromptType.document``; mteb's
   dataloader and ``encode``); a text's vector is the L2-normalised mean of its L2-normalised chunk
   vectors; the similarity of two texts is the cosine of their vectors. A fitted baseline (a
   :class:`~mteb_contrastive.protocols.fitting.PairScorer`) is fitted on **known** texts' samples
   only (its chunks joined by a blank line; no labels; never a questioned text, so adding
   questioned texts never changes the known texts' attribution) and scores each evaluated or
   questioned text (query side) against each known text (document side). An encoder with the fit
   hook is fitted on known texts' chunks the same way. **Cross-fitting** keeps leave-one-text-out
   honest for a fitted model: the evaluated texts are dealt into :data:`CROSS_FIT_FOLDS` folds
   (position i of :attr:`Problem.evaluated` into fold i mod F; F = min(5, evaluated texts), so
   with 5 or fewer evaluated texts it is exactly one fit per held-out text), and an evaluated
   text is scored by the model fitted on the known texts outside its fold: nothing it is compared
   with is represented by statistics it contributed to (Delta's z-scores, a vocabulary, IDF). The
   questioned texts are scored by the model fitted on every known text (fitted last, so the
   result's ``fit_summary`` is that model's). F + 1 fits in all. Scores come by blocks of rows from the one scoring
   path (:mod:`mteb_contrastive.protocols.scoring`: a matrix product for vectors, pair by pair
   for PPMd), reduced at once to per-author sums (memory: one block, never n x n). Cross-encoders
   are refused by mteb (this task does not accept them).
2. **candidate scores** -- the score of author a for text q is the mean similarity of q to a's known
   texts other than q (**leave-one-text-out**: q's own chunks never represent its author).
3. **closed-set scores** on the evaluated texts: ``accuracy`` (tie-aware: 1/t when the gold author is
   among t candidates tied at the top), ``macro_f1`` (main score; PAN 2019's rule, the top tie broken
   by name, ``n_top_ties``), ``mrr_tie_expected`` (the gold author's expected reciprocal rank);
   :mod:`mteb_contrastive.metrics.attribution` cites each rule.
4. **chance** -- ``random_accuracy`` (mean of 1/K), ``random_macro_f1`` (uniform answers; exact or
   Monte Carlo, ``random_macro_f1_method``), ``majority_class_accuracy`` and ``majority_class_macro_f1``
   (always the most frequent gold author). **Bias**: ``max_answer_share`` (share of the evaluated
   texts given the most answered candidate, ``most_answered_candidate``) beside
   ``majority_class_accuracy`` (the largest gold share), ``n_candidates_answered`` beside
   ``n_candidates_gold``; every candidate's count in the outputs' ``answer_counts``.
5. **calibration** -- candidate probabilities ``softmax(scores / T)``, T fitted on the evaluated texts
   by maximum likelihood (``temperature``; every author's nested T in one solve,
   :func:`~mteb_contrastive.metrics.attribution.fit_temperatures_nested`). ``loo_log_loss`` and
   ``loo_brier`` (multi-class) are **nested by author**: the T that scores author A's texts is
   fitted without them. Chance beside them: ``random_loo_log_loss`` = mean ln K (uniform
   probabilities over the item's candidates), ``prior_loo_log_loss`` (each candidate's share of
   the known texts, the item's own text left out: -mean ln((n_gold - 1) / (n_known - 1))),
   ``random_loo_brier`` = 1 - 1/K.
6. **intervals by author** -- 95% bootstrap of the evaluated texts resampled by their **author** (a
   text is scored against its author's other texts, so an author's texts are not independent;
   1,000 draws, seed 0; :func:`mteb_contrastive.metrics.attribution.bootstrap_interval`):
   ``accuracy_ci_low/high``, ``macro_f1_ci_low/high``.
7. **open set** (a folder built with ``--open-set``) -- each evaluated text is also scored with every
   text of its author removed from the candidates (the answer there is "none of the candidates",
   ``<UNK>``); the answer is ``<UNK>`` when P1 - P2 (the two largest probabilities) is below a
   threshold (PAN 2019 SVM baseline's rule) chosen to maximise the open-set macro-F1 on these items.
   The open-set macro-F1's **label set is every candidate** (each one gold or answered at least once,
   ``<UNK>`` excluded; ``labels="candidates"`` of :func:`~mteb_contrastive.metrics.attribution.macro_f1_codes`),
   not PAN 2019's gold labels only: a candidate with a single known text is never gold, and under
   PAN's rule an unknown item answered with that candidate would cost nothing.
   Reported **nested by author** (T and threshold for A's items fitted on the other authors' items):
   ``open_set_macro_f1`` (chance ``random_open_set_macro_f1``, answers uniform over the candidates
   and ``<UNK>``, same label rule), its interval by author (a text's two items resampled with its author),
   beside it ``open_set_unk_recall`` (share of unknown items answered ``<UNK>``; chance
   ``random_open_set_unk_recall``, the mean of 1 / (candidates + 1)), ``open_set_known_accuracy``;
   the threshold fitted on all items, ``open_set_threshold``, answers the questioned texts.
8. **questioned texts** -- every author a candidate (nothing left out), probabilities at the fitted
   T, ranked (ties by name); the answer is the first, or ``<UNK>`` under the open-set threshold.
9. **outputs** (``mteb run --prediction-folder``; ``compat.save_task_predictions``):
   ``<task>_predictions.json`` ``[subset][split]`` =
   ``{"candidates": [...], "loo": {"id", "gold", "predicted", "probabilities"} (nested T),
   "answer_counts": {candidate: evaluated texts answered with it},
   "questioned": [{"id", "title", "label_note", "ranking": [{"author", "probability", "score"}], "answer"}],
   "per_item": {"name": "accuracy", "ids", "values", "groups"}}`` -- ids are the corpus's document ids,
   groups each text's author (the report's resampling unit).
"""

from __future__ import annotations

import abc
import logging
from collections import Counter
from collections.abc import Iterable
from typing import Any, ClassVar

import numpy as np
from mteb.abstasks.abstask import AbsTask

from mteb_contrastive.compat import save_task_predictions
from mteb_contrastive.metrics import attribution as am
from mteb_contrastive.metrics.ranking import expected_reciprocal_rank, gold_tie_ranges
from mteb_contrastive.protocols import scoring
from mteb_contrastive.protocols.fitting import fit_if_needed, fit_summary
from mteb_contrastive.protocols.scoring import encode_texts

logger = logging.getLogger(__name__)

KNOWN, QUESTIONED = "known", "questioned"
SAMPLE_JOINER = "\n\n"
#: folds of the cross-fitting of a fitted model (step 1): an evaluated text is scored by the model
#: fitted on the known texts outside its fold
CROSS_FIT_FOLDS = 5


def text_sample(text: dict[str, Any]) -> str:
    """What a pair scorer sees of a text: its sampled chunks joined by a blank line."""
    return SAMPLE_JOINER.join(text["chunks"])


def text_vectors(
    model: Any,
    task: AbsTask,
    texts: list[dict[str, Any]],
    *,
    hf_split: str,
    hf_subset: str,
    encode_kwargs: dict,
    num_proc: int | None = None,
    fit_on: list[int] | None = None,
) -> np.ndarray:
    """Step 1 for an encoder: (n_texts, dim) float64, each row the L2-normalised mean of the text's
    L2-normalised chunk embeddings (each distinct chunk encoded once, ``PromptType.document``;
    an encoder with the fit hook is first fitted on the distinct chunks of the texts at positions
    ``fit_on``, default every text)."""
    from mteb.types import PromptType

    chunks = list(dict.fromkeys(c for t in texts for c in t["chunks"]))
    fit_texts = texts if fit_on is None else [texts[i] for i in fit_on]
    fit_if_needed(model, list(dict.fromkeys(c for t in fit_texts for c in t["chunks"])))
    emb = np.asarray(
        encode_texts(
            model,
            chunks,
            task,
            hf_split=hf_split,
            hf_subset=hf_subset,
            encode_kwargs=encode_kwargs,
            num_proc=num_proc,
            prompt_type=PromptType.document,
        ),
        dtype=np.float64,
    )
    emb = _unit(emb.reshape(len(chunks), -1))
    at = {c: i for i, c in enumerate(chunks)}
    return _unit(np.stack([emb[[at[c] for c in t["chunks"]]].mean(axis=0) for t in texts]))


def _unit(x: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norm > 0, norm, 1.0)


class AbsTaskAttribution(AbsTask):
    """Authorship attribution over a built folder (see the module docstring).

    Subclasses (made by the catalog from a folder) implement :meth:`load_texts`; ``open_set`` comes
    from the folder's parameters.
    """

    #: the protocol's row in :data:`mteb_contrastive.families.PROTOCOLS` (family, tie rule, resampling unit)
    protocol: ClassVar[str] = "attribution"
    abstask_prompt = "Represent the writing style of the text."
    #: mteb's gate for non-encoder models: fitted baselines (pair scorers) are accepted here
    _support_search: ClassVar[bool] = True
    open_set: ClassVar[bool] = False

    @abc.abstractmethod
    def load_texts(self) -> list[dict[str, Any]]:
        """The folder's texts (rows of ``texts.jsonl``); each task's data source supplies them."""

    def load_data(self, num_proc: int | None = None, *, timer: Any = None, **kwargs: Any) -> None:
        if self.data_loaded:
            return
        texts = self.load_texts()
        self.dataset = {subset: {split: texts for split in self.eval_splits} for subset in self.hf_subsets}
        self.data_loaded = True

    def _calculate_descriptive_statistics_from_split(
        self, split: str, hf_subset: str | None = None, compute_overall: bool = False, num_proc: int | None = None
    ) -> dict[str, Any]:
        texts = self.dataset[hf_subset or self.hf_subsets[0]][split]
        roles = Counter(t["role"] for t in texts)
        return {
            "num_samples": len(texts),
            "known_texts": roles[KNOWN],
            "questioned_texts": roles[QUESTIONED],
            "candidates": len({t["author"] for t in texts if t["role"] == KNOWN}),
        }

    # ------------------------------------------------------------------------------- the steps

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
        """The protocol of the module docstring, step by step."""
        texts = list(data_split)
        problem = Problem(texts)
        sums, fitted = self._similarities(
            model, problem, hf_split=hf_split, hf_subset=hf_subset, encode_kwargs=encode_kwargs, num_proc=num_proc
        )
        closed = problem.candidate_scores(sums, problem.evaluated, leave_out="text")
        scores = self._closed_set_scores(problem, closed)
        scores.update(self._chance(problem, closed))
        temperature, nested = self._calibrate(problem, closed)
        scores.update(self._calibration_scores(problem, closed, temperature, nested))
        threshold = None
        if self.open_set:
            open_scores, threshold = self._open_set(problem, sums, closed, temperature, nested)
            scores.update(open_scores)
        questioned = self._questioned(problem, sums, temperature, threshold)
        if fitted:
            scores.update(fit_summary(model))
        if prediction_folder:
            self._write_outputs(
                model, problem, closed, nested, questioned, prediction_folder, hf_split=hf_split, hf_subset=hf_subset
            )
        return scores

    def _similarities(
        self,
        model: Any,
        problem: Problem,
        *,
        hf_split: str,
        hf_subset: str,
        encode_kwargs: dict,
        num_proc: int | None,
    ) -> tuple[np.ndarray, bool]:
        """Steps 1-2: :meth:`Problem.author_sums` of the model's similarities (the one scoring path,
        :func:`~mteb_contrastive.protocols.scoring.similarity_blocks`, by blocks of rows), and whether
        a model was fitted. Fitting sees the **known texts only**: a questioned text never changes how
        the known texts are represented (Delta's z-scores, a vocabulary, IDF weights); and a fitted
        model is cross-fitted (:func:`cross_fit_plan`): an evaluated text is scored by a model fitted
        without it."""
        kind = scoring.scorer_kind(model, self.metadata.name, accepts=(scoring.ENCODER, scoring.PAIR_SCORER))
        texts = problem.texts
        fitted = kind == scoring.PAIR_SCORER or callable(getattr(model, "fit", None))
        samples = [text_sample(t) for t in texts] if kind == scoring.PAIR_SCORER else None

        def blocks(fit_on: list[int] | None, rows: list[int]):
            """Similarity blocks of the texts at ``rows`` against every column, the model fitted on
            ``fit_on`` (None: an encoder without the fit hook, fitted on nothing)."""
            if kind == scoring.PAIR_SCORER:
                model.fit([samples[i] for i in fit_on])
                return scoring.similarity_blocks(
                    model, kind, [samples[i] for i in rows], [samples[i] for i in problem.columns]
                )
            v = text_vectors(
                model,
                self,
                texts,
                hf_split=hf_split,
                hf_subset=hf_subset,
                encode_kwargs=encode_kwargs,
                num_proc=num_proc,
                fit_on=fit_on if fit_on is not None else problem.known,
            )
            return scoring.similarity_blocks(model, kind, v[rows], v[problem.columns])

        if not fitted:
            return problem.author_sums(blocks(None, problem.rows)), False
        sums = np.zeros((len(problem.rows), len(problem.authors)))
        plan = [*cross_fit_plan(problem), (problem.known, problem.questioned)]
        for fit_on, rows in plan:
            if rows or fit_on is problem.known:  # the last fit (every known text) always runs: its summary
                at = np.array([problem.row_of[i] for i in rows], dtype=np.int64)
                sums[at] = problem.author_sums(blocks(fit_on, rows), rows=rows)
        logger.info(
            "%s: %s cross-fitted (%d fits on the known texts outside each fold, 1 on all %d), scores %d x %d",
            self.metadata.name,
            type(model).__name__,
            len(plan) - 1,
            len(problem.known),
            len(problem.rows),
            len(problem.columns),
        )
        return sums, True

    def _closed_set_scores(self, problem: Problem, closed: np.ndarray) -> dict[str, Any]:
        """Step 3 and its intervals (step 6)."""
        gold = problem.gold_codes
        hits = am.tie_aware_hits(closed, gold)
        top, n_top = am.top_answers(closed)
        h, t = gold_tie_ranges(closed, gold)
        names = problem.authors
        macro_f1 = am.pan19_macro_f1([names[g] for g in gold], [names[a] for a in top])
        acc_lo, acc_hi = am.bootstrap_interval(lambda idx: float(hits[idx].mean()), len(gold), groups=gold)
        f1_lo, f1_hi = am.bootstrap_interval(
            lambda idx: float(am.macro_f1_codes(gold[idx], top[idx], -1)), len(gold), groups=gold
        )
        return {
            "macro_f1": macro_f1,
            "accuracy": float(hits.mean()),
            "mrr_tie_expected": float(expected_reciprocal_rank(h, t).mean()),
            "accuracy_ci_low": acc_lo,
            "accuracy_ci_high": acc_hi,
            "macro_f1_ci_low": f1_lo,
            "macro_f1_ci_high": f1_hi,
            "n_candidates": len(names),
            "n_texts_evaluated": len(gold),
            "n_authors_evaluated": len(set(gold.tolist())),
            "n_known_texts": len(problem.known),
            "n_questioned_texts": len(problem.questioned),
            "n_top_ties": int(np.sum(n_top > 1)),
        }

    def _chance(self, problem: Problem, closed: np.ndarray) -> dict[str, Any]:
        """Step 4."""
        gold = problem.gold_codes
        options = [np.flatnonzero(np.isfinite(row)) for row in closed]  # arrays: n x K Python ints cost GBs
        value, method = am.random_macro_f1(gold, options, -1)
        share = np.unique(gold, return_counts=True)[1].max() / len(gold)
        top = am.top_answers(closed)[0]
        answered = np.bincount(top, minlength=len(problem.authors))
        most = int(np.argmax(answered))  # first name among the most answered
        return {
            # a biased model looks biased: how concentrated its answers are, beside how concentrated the gold is
            "max_answer_share": float(answered[most] / len(gold)),
            "most_answered_candidate": problem.authors[most],
            "n_candidates_answered": int(np.sum(answered > 0)),
            "n_candidates_gold": int(np.unique(gold).size),
            "random_accuracy": float(np.mean([1.0 / len(o) for o in options])),
            "random_macro_f1": value,
            "random_macro_f1_method": method,
            "random_mrr_tie_expected": float(np.mean([expected_reciprocal_rank([0], [len(o)])[0] for o in options])),
            "majority_class_accuracy": float(share),
            "majority_class_macro_f1": am.majority_class_macro_f1(gold),
        }

    def _calibrate(self, problem: Problem, closed: np.ndarray) -> tuple[float, dict[int, float]]:
        """Step 5: T on every evaluated text, and T fitted without each evaluated author's texts
        (``{author code: T}``; empty when fewer than two authors are evaluated)."""
        gold = problem.gold_codes
        temperature = am.fit_temperature(closed, gold)
        nested: dict[int, float] = {}
        authors = sorted(set(gold.tolist()))
        if len(authors) >= 2:  # all authors at once: the same optima as one fit_temperature per author
            nested = {int(a): t for a, t in am.fit_temperatures_nested(closed, gold, gold).items()}
        return temperature, nested

    @staticmethod
    def _nested_log_p(rows: np.ndarray, groups: np.ndarray, nested: dict[int, float]) -> np.ndarray:
        """Log-probabilities of ``rows``, each at the T fitted without its group's (author's) items."""
        out = np.empty_like(rows)
        for a, t in nested.items():
            sel = groups == a
            out[sel] = am.log_probabilities(rows[sel], t)
        return out

    def _calibration_scores(
        self, problem: Problem, closed: np.ndarray, temperature: float, nested: dict[int, float]
    ) -> dict[str, Any]:
        gold = problem.gold_codes
        k = np.isfinite(closed).sum(axis=1)
        # the prior: each candidate's share of the known texts, the item's own text left out
        own = problem.counts[gold] - 1.0
        prior = own / (problem.counts.sum() - 1.0)
        out: dict[str, Any] = {
            "temperature": temperature,
            "random_loo_log_loss": float(np.mean(np.log(k))),
            "prior_loo_log_loss": float(-np.mean(np.log(prior))),
            "random_loo_brier": float(np.mean(1.0 - 1.0 / k)),
        }
        if not nested:
            out.update(loo_log_loss=float("nan"), loo_brier=float("nan"))
            out["loo_calibration_withheld"] = "one evaluated author: no held-out author to fit T without"
            return out
        log_p = self._nested_log_p(closed, gold, nested)
        out["loo_log_loss"] = float(-log_p[np.arange(len(gold)), gold].mean())
        out["loo_brier"] = float(am.brier_multiclass(log_p, gold).mean())
        return out

    def _open_set(
        self, problem: Problem, sums: np.ndarray, closed: np.ndarray, temperature: float, nested: dict[int, float]
    ) -> tuple[dict[str, Any], float]:
        """Step 7: nested open-set scores, and the threshold fitted on every item."""
        gold = problem.gold_codes
        n, unk = len(gold), len(problem.authors)
        unknown_rows = problem.candidate_scores(sums, problem.evaluated, leave_out="author")
        rows = np.vstack([closed, unknown_rows])
        items_gold = np.concatenate([gold, np.full(n, unk)])
        groups = np.concatenate([gold, gold])  # an item belongs to the author of its text
        top = am.top_answers(rows)[0]
        threshold = am.fit_margin_threshold(top, am.margins(am.log_probabilities(rows, temperature)), items_gold, unk)
        out: dict[str, Any] = {"open_set_threshold": threshold, "n_open_set_items": len(items_gold)}
        options = [np.append(np.flatnonzero(np.isfinite(r)), unk) for r in rows]
        out["random_open_set_macro_f1"], out["random_open_set_macro_f1_method"] = am.random_macro_f1(
            items_gold, options, unk, labels=am.OPEN_SET_LABELS
        )
        # uniform answers over an unknown item's options: <UNK> with probability 1 / (its candidates + 1)
        unk_options = [len(o) for o, g in zip(options, items_gold) if g == unk]
        out["random_open_set_unk_recall"] = float(np.mean([1.0 / k for k in unk_options]))
        if not nested:
            out["open_set_macro_f1"] = float("nan")
            out["open_set_withheld"] = "one evaluated author: no held-out author to fit the threshold without"
            return out, threshold
        answers = np.empty(len(items_gold), dtype=np.int64)
        for a, t in nested.items():
            m = am.margins(am.log_probabilities(rows, t))
            rest, own = groups != a, groups == a
            theta = am.fit_margin_threshold(top[rest], m[rest], items_gold[rest], unk)
            answers[own] = am.open_set_answers(top[own], m[own], theta, unk)
        is_unk = items_gold == unk
        out["open_set_macro_f1"] = float(am.macro_f1_codes(items_gold, answers, unk, labels=am.OPEN_SET_LABELS))
        out["open_set_unk_recall"] = float(np.mean(answers[is_unk] == unk))
        out["open_set_known_accuracy"] = float(np.mean(answers[~is_unk] == items_gold[~is_unk]))

        def stat(texts_idx: np.ndarray) -> float:
            idx = np.concatenate([texts_idx, texts_idx + n])
            return float(am.macro_f1_codes(items_gold[idx], answers[idx], unk, labels=am.OPEN_SET_LABELS))

        # a text's two items (closed, unknown) are resampled together, with the text's author
        out["open_set_macro_f1_ci_low"], out["open_set_macro_f1_ci_high"] = am.bootstrap_interval(stat, n, groups=gold)
        return out, threshold

    def _questioned(
        self, problem: Problem, sums: np.ndarray, temperature: float, threshold: float | None
    ) -> list[dict[str, Any]]:
        """Step 8: a ranked, calibrated list of candidates per questioned text."""
        if not problem.questioned:
            return []
        rows = problem.candidate_scores(sums, problem.questioned, leave_out="nothing")
        log_p = am.log_probabilities(rows, temperature)
        margin = am.margins(log_p)
        out = []
        for r, i in enumerate(problem.questioned):
            p = np.exp(log_p[r])
            order = sorted(range(len(problem.authors)), key=lambda a: (-p[a], problem.authors[a]))  # noqa: B023
            answer = problem.authors[order[0]]
            if threshold is not None and margin[r] < threshold:
                answer = am.UNKNOWN
            t = problem.texts[i]
            out.append(
                {
                    "id": t["id"],
                    "title": t.get("title") or "",
                    "label_note": t.get("label_note") or "",
                    "ranking": [
                        {"author": problem.authors[a], "probability": float(p[a]), "score": float(rows[r, a])}
                        for a in order
                    ],
                    "answer": answer,
                }
            )
        return out

    def _write_outputs(
        self,
        model: Any,
        problem: Problem,
        closed: np.ndarray,
        nested: dict[int, float],
        questioned: list[dict[str, Any]],
        prediction_folder: Any,
        *,
        hf_split: str,
        hf_subset: str,
    ) -> None:
        """Step 9: ``<task>_predictions.json`` (``compat.save_task_predictions``)."""
        gold = problem.gold_codes
        top = am.top_answers(closed)[0]
        log_p = self._nested_log_p(closed, gold, nested) if nested else None
        ids = [problem.texts[i]["id"] for i in problem.evaluated]
        save_task_predictions(
            self,
            {
                "candidates": problem.authors,
                "loo": {
                    "id": ids,
                    "gold": [problem.authors[g] for g in gold],
                    "predicted": [problem.authors[a] for a in top],
                    "probabilities": None if log_p is None else np.round(np.exp(log_p), 6).tolist(),
                },
                "answer_counts": dict(zip(problem.authors, np.bincount(top, minlength=len(problem.authors)).tolist())),
                "questioned": questioned,
                "per_item": {
                    "name": "accuracy",
                    "ids": ids,
                    "values": am.tie_aware_hits(closed, gold).tolist(),
                    "groups": [problem.authors[g] for g in gold],
                },
            },
            model,
            prediction_folder,
            hf_split=hf_split,
            hf_subset=hf_subset,
        )


def cross_fit_plan(problem: Problem, folds: int = CROSS_FIT_FOLDS) -> list[tuple[list[int], list[int]]]:
    """Step 1's cross-fitting: ``(fit_on, rows)`` per fold (text positions). The evaluated text at
    position i of :attr:`Problem.evaluated` is in fold ``i mod F``, F = min(``folds``, evaluated
    texts); ``fit_on`` is every known text outside the fold, never empty: an evaluated author has two
    known texts, so there are at least two evaluated texts, F >= 2, and a fold holds at most half of
    them."""
    f = max(1, min(folds, len(problem.evaluated)))
    out = []
    for k in range(f):
        rows = problem.evaluated[k::f]
        held = set(rows)
        out.append(([i for i in problem.known if i not in held], rows))
    return out


class Problem:
    """The texts of one attribution problem, indexed: ``authors`` (candidates, sorted), ``known`` /
    ``questioned`` / ``evaluated`` (text positions), ``gold_codes`` (author code of each evaluated text).

    Raises:
        ValueError: fewer than two candidates, or no author with two known texts.
    """

    def __init__(self, texts: list[dict[str, Any]]) -> None:
        self.texts = texts
        self.known = [i for i, t in enumerate(texts) if t["role"] == KNOWN]
        self.questioned = [i for i, t in enumerate(texts) if t["role"] == QUESTIONED]
        self.authors = sorted({texts[i]["author"] for i in self.known})
        self.code = {a: c for c, a in enumerate(self.authors)}
        self.by_author: list[list[int]] = [[] for _ in self.authors]
        for i in self.known:
            self.by_author[self.code[texts[i]["author"]]].append(i)
        self.evaluated = [i for i in self.known if len(self.by_author[self.code[texts[i]["author"]]]) >= 2]
        if len(self.authors) < 2 or not self.evaluated:
            raise ValueError(
                f"attribution needs two candidate authors and one author with two known texts; "
                f"got {len(self.authors)} candidates and {len(self.evaluated)} evaluable texts"
            )
        self.gold_codes = np.array([self.code[texts[i]["author"]] for i in self.evaluated], dtype=np.int64)
        #: rows of the similarity blocks: the evaluated texts, then the questioned texts (text positions)
        self.rows = self.evaluated + self.questioned
        self.row_of = {t: r for r, t in enumerate(self.rows)}
        #: columns: the known texts grouped by author code (``column_starts[a]`` = a's first column)
        self.columns = [i for members in self.by_author for i in members]
        self.counts = np.array([len(m) for m in self.by_author], dtype=np.int64)
        self.column_starts = np.concatenate([[0], np.cumsum(self.counts)[:-1]]).astype(np.int64)

    def author_sums(self, blocks: Iterable[tuple[int, np.ndarray]], rows: list[int] | None = None) -> np.ndarray:
        """(len(rows), K) float64: each row's summed similarity to each author's known texts, **its own
        text left out** (a row's similarity to itself is never added: leave-one-text-out).

        Args:
            blocks: ``(first row, (block rows, len(columns)) similarities)`` covering ``rows``
                in order (:func:`~mteb_contrastive.protocols.scoring.similarity_blocks`); each block is
                reduced and dropped (memory: one block and the sums).
            rows: text positions of the blocks' rows (default :attr:`rows`, every row).
        """
        rows = self.rows if rows is None else rows
        out = np.zeros((len(rows), len(self.authors)))
        col_of = {t: c for c, t in enumerate(self.columns)}
        for start, block in blocks:
            block = np.array(block, dtype=np.float64)  # a copy: the self entries are zeroed below
            for r in range(block.shape[0]):
                c = col_of.get(rows[start + r])
                if c is not None:
                    block[r, c] = 0.0
            out[start : start + block.shape[0]] = np.add.reduceat(block, self.column_starts, axis=1)
        return out

    def candidate_scores(self, sums: np.ndarray, items: list[int], *, leave_out: str) -> np.ndarray:
        """(len(items), K) mean similarity of each item to each author's known texts (step 2), from
        :meth:`author_sums` (``items``: text positions among :attr:`rows`).

        ``leave_out``: ``"text"`` (the item itself is not one of its author's texts: leave-one-text-out;
        an author whose only known text is the item is no candidate, ``-inf``), ``"author"`` (every
        text of the item's author removed: that author is no candidate, ``-inf``) or ``"nothing"``
        (questioned texts).
        """
        if leave_out not in ("text", "author", "nothing"):
            raise ValueError(f"leave_out must be 'text', 'author' or 'nothing', got {leave_out!r}")
        r = np.array([self.row_of[i] for i in items], dtype=np.int64)
        s = sums[r]
        counts = np.broadcast_to(self.counts.astype(np.float64), s.shape).copy()
        own = np.array(
            [self.code[self.texts[i]["author"]] if self.texts[i]["role"] == KNOWN else -1 for i in items],
            dtype=np.int64,
        )
        mine = np.flatnonzero(own >= 0)
        if leave_out == "text":
            counts[mine, own[mine]] -= 1
        with np.errstate(invalid="ignore", divide="ignore"):
            out = np.where(counts > 0, s / np.maximum(counts, 1), -np.inf)
        if leave_out == "author":
            out[mine, own[mine]] = -np.inf
        return out
