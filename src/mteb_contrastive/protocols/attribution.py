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
   :class:`~mteb_contrastive.protocols.fitting.PairScorer`) is fitted once on every text's sample
   (its chunks joined by a blank line; known and questioned texts, no labels) and scores each pair
   of texts (i < j, mirrored). Cross-encoders are refused by mteb (this task does not accept them).
2. **candidate scores** -- the score of author a for text q is the mean similarity of q to a's known
   texts other than q (**leave-one-text-out**: q's own chunks never represent its author).
3. **closed-set scores** on the evaluated texts: ``accuracy`` (tie-aware: 1/t when the gold author is
   among t candidates tied at the top), ``macro_f1`` (main score; PAN 2019's rule, the top tie broken
   by name, ``n_top_ties``), ``mrr_tie_expected`` (the gold author's expected reciprocal rank);
   :mod:`mteb_contrastive.metrics.attribution` cites each rule.
4. **chance** -- ``random_accuracy`` (mean of 1/K), ``random_macro_f1`` (uniform answers; exact or
   Monte Carlo, ``random_macro_f1_method``), ``majority_class_accuracy`` and ``majority_class_macro_f1``
   (always the most frequent gold author).
5. **calibration** -- candidate probabilities ``softmax(scores / T)``, T fitted on the evaluated texts
   by maximum likelihood (``temperature``). ``loo_log_loss`` and ``loo_brier`` (multi-class) are
   **nested by author**: the T that scores author A's texts is fitted without them; chance
   ``random_loo_log_loss`` = ln K, ``random_loo_brier`` = 1 - 1/K.
6. **intervals by author** -- 95% bootstrap of the evaluated texts resampled by their **author** (a
   text is scored against its author's other texts, so an author's texts are not independent;
   1,000 draws, seed 0; :func:`mteb_contrastive.metrics.attribution.bootstrap_interval`):
   ``accuracy_ci_low/high``, ``macro_f1_ci_low/high``.
7. **open set** (a folder built with ``--open-set``) -- each evaluated text is also scored with every
   text of its author removed from the candidates (the answer there is "none of the candidates",
   ``<UNK>``); the answer is ``<UNK>`` when P1 - P2 (the two largest probabilities) is below a
   threshold (PAN 2019 SVM baseline's rule) chosen to maximise PAN 2019 macro-F1 on these items.
   Reported **nested by author** (T and threshold for A's items fitted on the other authors' items):
   ``open_set_macro_f1`` (PAN 2019: averaged over the known authors, ``<UNK>`` excluded; chance
   ``random_open_set_macro_f1``, answers uniform over the candidates and ``<UNK>``), its interval by
   author (a text's two items resampled with its author), ``open_set_unk_recall``, ``open_set_known_accuracy``;
   the threshold fitted on all items, ``open_set_threshold``, answers the questioned texts.
8. **questioned texts** -- every author a candidate (nothing left out), probabilities at the fitted
   T, ranked (ties by name); the answer is the first, or ``<UNK>`` under the open-set threshold.
9. **outputs** (``mteb run --prediction-folder``; ``compat.save_task_predictions``):
   ``<task>_predictions.json`` ``[subset][split]`` =
   ``{"candidates": [...], "loo": {"id", "gold", "predicted", "probabilities"} (nested T),
   "questioned": [{"id", "title", "label_note", "ranking": [{"author", "probability", "score"}], "answer"}],
   "per_item": {"name": "accuracy", "ids", "values", "groups"}}`` -- ids are the corpus's document ids,
   groups each text's author (the report's resampling unit).
"""

from __future__ import annotations

import abc
import logging
from collections import Counter
from typing import Any, ClassVar

import numpy as np
from mteb.abstasks.abstask import AbsTask

from mteb_contrastive.compat import save_task_predictions
from mteb_contrastive.metrics import attribution as am
from mteb_contrastive.metrics.ranking import expected_reciprocal_rank, gold_tie_ranges
from mteb_contrastive.protocols.fitting import fit_if_needed, fit_summary, is_pair_scorer, score_pairs
from mteb_contrastive.protocols.triplet_classification import encode_texts

logger = logging.getLogger(__name__)

KNOWN, QUESTIONED = "known", "questioned"
SAMPLE_JOINER = "\n\n"


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
) -> np.ndarray:
    """Step 1 for an encoder: (n_texts, dim) float64, each row the L2-normalised mean of the text's
    L2-normalised chunk embeddings (each distinct chunk encoded once, ``PromptType.document``;
    an encoder with the fit hook is first fitted on the distinct chunks)."""
    from mteb.types import PromptType

    chunks = list(dict.fromkeys(c for t in texts for c in t["chunks"]))
    fit_if_needed(model, chunks)
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
        sim, fitted = self._similarities(
            model, texts, hf_split=hf_split, hf_subset=hf_subset, encode_kwargs=encode_kwargs, num_proc=num_proc
        )
        closed = problem.candidate_scores(sim, problem.evaluated, leave_out="text")
        scores = self._closed_set_scores(problem, closed)
        scores.update(self._chance(problem, closed))
        temperature, nested = self._calibrate(problem, closed)
        scores.update(self._calibration_scores(problem, closed, temperature, nested))
        threshold = None
        if self.open_set:
            open_scores, threshold = self._open_set(problem, sim, closed, temperature, nested)
            scores.update(open_scores)
        questioned = self._questioned(problem, sim, temperature, threshold)
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
        texts: list[dict[str, Any]],
        *,
        hf_split: str,
        hf_subset: str,
        encode_kwargs: dict,
        num_proc: int | None,
    ) -> tuple[np.ndarray, bool]:
        """Steps 1-2: the (n_texts, n_texts) similarity matrix, and whether a baseline was fitted."""
        from mteb.models.models_protocols import EncoderProtocol

        if is_pair_scorer(model):
            samples = [text_sample(t) for t in texts]
            model.fit(samples)
            i, j = np.triu_indices(len(texts), k=1)
            s = score_pairs(model, [samples[a] for a in i], [samples[b] for b in j])
            sim = np.zeros((len(texts), len(texts)))
            sim[i, j] = s
            sim[j, i] = s
            logger.info("%s: %s scored %d text pairs", self.metadata.name, type(model).__name__, len(s))
            return sim, True
        if not isinstance(model, EncoderProtocol):
            raise TypeError(
                f"{self.metadata.name} scores embeddings or text pairs: it needs an encoder or a fitted baseline, "
                f"got {type(model).__name__}"
            )
        fitted = callable(getattr(model, "fit", None))
        v = text_vectors(
            model, self, texts, hf_split=hf_split, hf_subset=hf_subset, encode_kwargs=encode_kwargs, num_proc=num_proc
        )
        return v @ v.T, fitted

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
        options = [np.flatnonzero(np.isfinite(row)).tolist() for row in closed]
        value, method = am.random_macro_f1(gold, options, -1)
        share = np.unique(gold, return_counts=True)[1].max() / len(gold)
        return {
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
        if len(authors) >= 2:
            for a in authors:
                rest = gold != a
                nested[a] = am.fit_temperature(closed[rest], gold[rest])
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
        out: dict[str, Any] = {
            "temperature": temperature,
            "random_loo_log_loss": float(np.mean(np.log(k))),
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
        self, problem: Problem, sim: np.ndarray, closed: np.ndarray, temperature: float, nested: dict[int, float]
    ) -> tuple[dict[str, Any], float]:
        """Step 7: nested open-set scores, and the threshold fitted on every item."""
        gold = problem.gold_codes
        n, unk = len(gold), len(problem.authors)
        unknown_rows = problem.candidate_scores(sim, problem.evaluated, leave_out="author")
        rows = np.vstack([closed, unknown_rows])
        items_gold = np.concatenate([gold, np.full(n, unk)])
        groups = np.concatenate([gold, gold])  # an item belongs to the author of its text
        top = am.top_answers(rows)[0]
        threshold = am.fit_margin_threshold(top, am.margins(am.log_probabilities(rows, temperature)), items_gold, unk)
        out: dict[str, Any] = {"open_set_threshold": threshold, "n_open_set_items": len(items_gold)}
        options = [[*np.flatnonzero(np.isfinite(r)).tolist(), unk] for r in rows]
        out["random_open_set_macro_f1"], out["random_open_set_macro_f1_method"] = am.random_macro_f1(
            items_gold, options, unk
        )
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
        out["open_set_macro_f1"] = float(am.macro_f1_codes(items_gold, answers, unk))
        out["open_set_unk_recall"] = float(np.mean(answers[is_unk] == unk))
        out["open_set_known_accuracy"] = float(np.mean(answers[~is_unk] == items_gold[~is_unk]))

        def stat(texts_idx: np.ndarray) -> float:
            idx = np.concatenate([texts_idx, texts_idx + n])
            return float(am.macro_f1_codes(items_gold[idx], answers[idx], unk))

        # a text's two items (closed, unknown) are resampled together, with the text's author
        out["open_set_macro_f1_ci_low"], out["open_set_macro_f1_ci_high"] = am.bootstrap_interval(stat, n, groups=gold)
        return out, threshold

    def _questioned(
        self, problem: Problem, sim: np.ndarray, temperature: float, threshold: float | None
    ) -> list[dict[str, Any]]:
        """Step 8: a ranked, calibrated list of candidates per questioned text."""
        if not problem.questioned:
            return []
        rows = problem.candidate_scores(sim, problem.questioned, leave_out="nothing")
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

    def candidate_scores(self, sim: np.ndarray, items: list[int], *, leave_out: str) -> np.ndarray:
        """(len(items), K) mean similarity of each item to each author's known texts (step 2).

        ``leave_out``: ``"text"`` (the item itself is not one of its author's texts: leave-one-text-out),
        ``"author"`` (every text of the item's author removed: that author is no candidate, ``-inf``)
        or ``"nothing"`` (questioned texts).
        """
        out = np.full((len(items), len(self.authors)), -np.inf)
        for r, q in enumerate(items):
            own = self.code.get(self.texts[q]["author"]) if self.texts[q]["role"] == KNOWN else None
            for a, members in enumerate(self.by_author):
                if leave_out == "author" and a == own:
                    continue
                ks = [k for k in members if not (leave_out == "text" and k == q)]
                if ks:
                    out[r, a] = float(np.mean(sim[q, ks]))
        return out
