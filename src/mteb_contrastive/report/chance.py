"""Chance levels shown beside every score.

A protocol may store its own (keys ``random_<metric>`` / ``chance_<metric>``); they win. Otherwise
the expectation is computed here from the counts in the result and, for retrieval, the task's
qrels:

* triplet accuracy (strict ``>``, HALvest / Le & Mikolov 3.3): 0.5 -- a random scorer puts the
  positive above the negative half of the time (ties have probability 0); ``error_rate`` 50 (%);
* verification: AUC 0.5; ``majority_class_accuracy`` = max(p, 1 - p) with p = share of
  same-author test pairs (``n_same_author / n_pairs``); every other calibrated PAN score
  (``pan_<kind>_<metric>``: c@1, F1, F0.5u, Brier, overall of the hard, Platt and Platt+abstain
  answers) has no closed form -- its chance level is **simulated** (:func:`simulate_calibrated_chance`);
* attribution: the protocol stores ``random_*`` (uniform answers) and ``majority_class_accuracy`` /
  ``majority_class_macro_f1`` (always the most frequent author), both shown beside the main score;
* ranking under a uniformly random permutation of a pool of N candidates with R relevant
  (binary gains): E[nDCG@k], E[Recall@k] and E[RR], the exact expectations of
  :mod:`mteb_contrastive.metrics.chance` (the one place of those formulas), averaged over queries
  (each query's N is the pool size, minus one when the task ignores a candidate identical to the
  query).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import sklearn

from mteb_contrastive import config
from mteb_contrastive.data.atomic import write_text_atomic
from mteb_contrastive.metrics import calibration, chance, pan
from mteb_contrastive.metrics.calibration import Calibrator, KirbyCalibrator
from mteb_contrastive.metrics.chance import expected_ndcg, expected_recall
from mteb_contrastive.metrics.pan import pan_scores

logger = logging.getLogger(__name__)


def expected_ndcg_at_k(n_pool: int, n_rel: int, k: int) -> float:
    """E[nDCG@k] of a random ranking (:func:`mteb_contrastive.metrics.chance.expected_ndcg`);
    0 when nothing is relevant."""
    return expected_ndcg(n_pool, n_rel, k) if n_rel > 0 and n_pool > 0 else 0.0


def expected_recall_at_k(n_pool: int, k: int) -> float:
    """E[Recall@k] of a random ranking, ``min(k, N)/N`` (:func:`mteb_contrastive.metrics.chance.expected_recall`)."""
    return expected_recall(n_pool, 1, k) if n_pool > 0 else 0.0


def expected_rr(n_pool: int, n_rel: int = 1) -> float:
    """E[RR] of the first relevant candidate, full ranking (:func:`mteb_contrastive.metrics.chance.expected_rr`)."""
    return chance.expected_rr(n_pool, n_rel) if n_rel > 0 and n_pool > 0 else 0.0


def ranking_chance(
    qrels: dict[str, dict[str, int]],
    pool_size: int,
    *,
    ignore_identical_ids: bool = False,
    query_in_pool: set[str] | None = None,
) -> dict[str, float]:
    """Random-ranking expectations averaged over the queries with at least one relevant candidate."""
    per: dict[str, list[float]] = {
        "random_ndcg_at_10": [],
        "random_ndcg_at_5": [],
        "random_recall_at_10": [],
        "random_recall_at_100": [],
        "random_mrr": [],
    }
    for q, rel in qrels.items():
        r = sum(1 for g in rel.values() if g > 0)
        if r == 0:
            continue
        n = pool_size - (1 if ignore_identical_ids and query_in_pool and q in query_in_pool else 0)
        per["random_ndcg_at_10"].append(expected_ndcg_at_k(n, r, 10))
        per["random_ndcg_at_5"].append(expected_ndcg_at_k(n, r, 5))
        per["random_recall_at_10"].append(expected_recall_at_k(n, 10))
        per["random_recall_at_100"].append(expected_recall_at_k(n, 100))
        per["random_mrr"].append(expected_rr(n, r))
    return {k: sum(v) / len(v) for k, v in per.items() if v}


def chance_levels(family: str, scores: dict[str, Any], reference: Any = None) -> dict[str, float]:
    """Chance levels of one score row: stored ``random_*`` / ``chance_*`` keys, else computed (module docstring)."""
    out: dict[str, float] = {}
    if family in ("author", "ir-triplets") and "accuracy" in scores and "pool_size" not in scores:
        out.update(random_accuracy=0.5, random_accuracy_cross_document=0.5, random_accuracy_unrestricted=0.5)
        if "error_rate" in scores:
            out["random_error_rate"] = 50.0
    if family == "verification":
        out["random_pan_hard_auc"] = out["random_pan_platt_auc"] = out["random_pan_platt_abstain_auc"] = 0.5
        n, same = scores.get("n_pairs"), scores.get("n_same_author")
        if n:
            p = same / n
            out["majority_class_accuracy"] = max(p, 1 - p)
            out["random_similarity_accuracy"] = max(p, 1 - p)
    if family == "attribution":
        out.update({k: float(v) for k, v in scores.items() if k.startswith("majority_class_")})
    if isinstance(reference, dict) and "qrels" in reference and scores.get("pool_size"):
        out.update(
            ranking_chance(
                reference["qrels"],
                int(scores["pool_size"]),
                ignore_identical_ids=reference.get("ignore_identical_ids", False),
                query_in_pool=reference.get("query_in_pool"),
            )
        )
        if "mrr" in out or "random_mrr" in out:
            out.setdefault("random_mrr_at_10", out["random_mrr"])
            # a random order of the pool = a constant scorer under the tie-aware rule (QuoteR's main score)
            out.setdefault("random_mrr_tie_expected", out["random_mrr"])
    out.update(
        {
            k: float(v)
            for k, v in scores.items()
            if (k.startswith("random_") or k.startswith("chance_")) and isinstance(v, (int, float))
        }
    )
    return out


def main_chance(
    main_score_name: str, chances: dict[str, float], ranges: dict[str, Any] | None = None
) -> tuple[float | None, str]:
    """Chance level of a score: (value, text for a table cell).

    ``random_<main>`` / ``chance_<main>`` when known; a simulated one (``ranges`` holds its
    :func:`simulate_calibrated_chance` entry) says so with the range of 95% of its random runs.
    A calibrated PAN score without one is None, with the reason.
    """
    for key in (f"random_{main_score_name}", f"chance_{main_score_name}"):
        if key in chances:
            sim = (ranges or {}).get(main_score_name)
            if sim is not None:
                return chances[key], (
                    f"{chances[key]:.4f} (simulated: 95% of {sim['runs']} random runs in "
                    f"{sim['low']:.4f}-{sim['high']:.4f})"
                )
            majority = chances.get(f"majority_class_{main_score_name}")
            extra = "" if majority is None else f"; majority {majority:.4f}"
            return chances[key], f"{chances[key]:.4f}{extra}"
    kind = calibrated_kind(main_score_name)
    if kind is not None:
        why = (
            f"no simulation entry for pan_{kind} (report.chance.CALIBRATIONS)"
            if ranges
            else "not simulated (validation class counts unknown)"
        )
        return None, f"n/a: {why}"
    return None, "n/a"


# ----------------------------------------------------------------------------- simulated chance levels


def _platt_calibration(
    val_scores: np.ndarray, val_labels: np.ndarray, test_scores: np.ndarray, year: int
) -> dict[str, np.ndarray]:
    """Steps 3 and 5 of the verification protocol (``AbsTaskVerification._fit_calibrator`` then
    ``_test_answers``) for R runs at once (arrays (R, n)): threshold, Platt scaling and abstention band
    fitted on validation only, applied unchanged to test -- the rules of
    :class:`~mteb_contrastive.metrics.calibration.Calibrator`, through the same batched functions."""
    from scipy.special import expit

    threshold = calibration.fit_threshold_batch(val_scores, val_labels)
    coef, intercept = calibration.platt_sigmoid_batch(val_scores, val_labels)
    p_val = expit(coef[:, None] * val_scores + intercept[:, None])
    delta = calibration.abstention_batch(p_val, val_labels, grid=calibration.DELTA_GRID, year=year, exact=False)
    p = expit(coef[:, None] * test_scores + intercept[:, None])
    return {
        "hard": (test_scores >= threshold[:, None]).astype(np.float64),
        "platt": p,
        "platt_abstain": np.where(np.abs(p - 0.5) <= delta[:, None] + 1e-12, 0.5, p),
    }


def _kirby_calibration(
    val_scores: np.ndarray, val_labels: np.ndarray, test_scores: np.ndarray, year: int
) -> dict[str, np.ndarray]:
    """Kirby's calibration as the protocol runs it beside Platt's (``pan_kirby_*``), R runs at once: the
    rules of :class:`~mteb_contrastive.metrics.calibration.KirbyCalibrator`; answer kinds ``kirby_<kind>``."""
    from scipy.special import expit

    threshold = calibration.kirby_threshold_batch(val_scores, val_labels)
    coef, intercept = calibration.kirby_logistic_batch(val_scores, val_labels)
    p_val = expit(coef[:, None] * val_scores + intercept[:, None])
    delta = calibration.abstention_batch(p_val, val_labels, grid=calibration.DELTA_GRID, year=year, exact=True)
    p = expit(coef[:, None] * test_scores + intercept[:, None])
    return {
        "kirby_hard": (test_scores >= threshold[:, None]).astype(np.float64),
        "kirby_platt": p,
        "kirby_platt_abstain": np.where(np.abs(p - 0.5) <= delta[:, None], 0.5, p),
    }


#: The verification protocol's calibrations, as its steps run them, for R runs at once: name ->
#: ``f(validation scores (R, n_val), validation labels (R, n_val), test scores (R, n_test), year) ->
#: {answer kind: test answers (R, n_test)}``. Every kind is scored as ``pan_<kind>_<metric>`` (the
#: protocol's step 6, :func:`mteb_contrastive.metrics.pan.evaluate_all_batch`), so a new calibrated
#: score of the protocol gets its simulated chance level from one entry here.
CALIBRATIONS: dict[str, Callable[[np.ndarray, np.ndarray, np.ndarray, int], dict[str, np.ndarray]]] = {
    "platt": _platt_calibration,
    "kirby": _kirby_calibration,
}

#: random runs of a simulated chance level (mean and the range of 95% of the runs)
SIMULATION_RUNS = 1000
#: the simulation's version: part of the cache key (with the source of the steps it runs)
SIMULATION_VERSION = 2
#: runs simulated together: at most this many numbers in one (runs, pairs) array
_CHUNK_NUMBERS = 400_000

_METRIC = "|".join(pan.SCORE_SUFFIXES.values())


def calibrated_kind(score_name: str) -> str | None:
    """``pan_<kind>_<metric>`` -> kind (``pan_platt_abstain_overall`` -> ``platt_abstain``); None otherwise."""
    m = re.fullmatch(rf"pan_(.+)_({_METRIC})", score_name)
    return m.group(1) if m else None


def _check_classes(n_validation: int, n_validation_same: int, n_test: int, n_test_same: int) -> None:
    for split, n, same in (("validation", n_validation, n_validation_same), ("test", n_test, n_test_same)):
        if not 0 < same < n:
            raise ValueError(f"{split}: {same} same-author pairs of {n}: both classes are needed")


def uniform_streams(
    n_validation: int, n_validation_same: int, n_test: int, n_test_same: int, runs: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The random scorer of :func:`simulate_calibrated_chance`: run ``i`` draws uniform scores on [0, 1)
    for the validation then the test pairs from ``numpy.random.default_rng([seed, i])``; labels with
    the given class counts (same-author pairs first). Returns (val scores, val labels, test scores,
    test labels), each (runs, n)."""
    val_y = np.r_[np.ones(n_validation_same), np.zeros(n_validation - n_validation_same)].astype(np.int64)
    test_y = np.r_[np.ones(n_test_same), np.zeros(n_test - n_test_same)].astype(np.int64)
    val_s, test_s = np.empty((runs, n_validation)), np.empty((runs, n_test))
    for i in range(runs):
        rng = np.random.default_rng([seed, i])
        val_s[i], test_s[i] = rng.random(n_validation), rng.random(n_test)
    return val_s, np.tile(val_y, (runs, 1)), test_s, np.tile(test_y, (runs, 1))


def permuted_streams(
    val_scores: Any, val_labels: Any, test_scores: Any, test_labels: Any, runs: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The model at its own scale with the labels made meaningless (:func:`simulate_own_scale_chance`):
    every run keeps the model's validation and test scores, and run ``i`` permutes the validation
    then the test labels with ``numpy.random.default_rng([seed, i]).permutation``. Returns (val scores,
    val labels, test scores, test labels), each (runs, n)."""
    vs, vy = np.asarray(val_scores, dtype=np.float64), np.asarray(val_labels, dtype=np.int64)
    ts, ty = np.asarray(test_scores, dtype=np.float64), np.asarray(test_labels, dtype=np.int64)
    val_y, test_y = np.empty((runs, vy.size), dtype=np.int64), np.empty((runs, ty.size), dtype=np.int64)
    for i in range(runs):
        rng = np.random.default_rng([seed, i])
        val_y[i], test_y[i] = rng.permutation(vy), rng.permutation(ty)
    return np.tile(vs, (runs, 1)), val_y, np.tile(ts, (runs, 1)), test_y


def simulated_scores(
    val_scores: np.ndarray, val_labels: np.ndarray, test_scores: np.ndarray, test_labels: np.ndarray, year: int
) -> dict[str, np.ndarray]:
    """Every ``pan_<kind>_<metric>`` (``n_overall_metrics`` left out) of each run, (runs,) arrays: the
    runs' validation and test scores and labels (each (runs, n)) through every entry of
    :data:`CALIBRATIONS` and the PAN scoring, all runs at once (in chunks of bounded memory)."""
    runs = val_scores.shape[0]
    chunk = max(1, _CHUNK_NUMBERS // max(val_scores.shape[1], test_scores.shape[1], 1))
    parts: dict[str, list[np.ndarray]] = {}
    for lo in range(0, runs, chunk):
        sl = slice(lo, lo + chunk)
        answers: dict[str, np.ndarray] = {}
        for steps in CALIBRATIONS.values():
            answers.update(steps(val_scores[sl], val_labels[sl], test_scores[sl], year))
        for kind, a in answers.items():
            res = pan.evaluate_all_batch(test_labels[sl], np.broadcast_to(a, test_labels[sl].shape), year=year)
            for k, name in pan.SCORE_SUFFIXES.items():
                if k != "n_overall_metrics":
                    parts.setdefault(f"pan_{kind}_{name}", []).append(np.asarray(res[k], dtype=np.float64))
    return {k: np.concatenate(v) for k, v in parts.items()}


def reference_loop_scores(
    val_scores: np.ndarray, val_labels: np.ndarray, test_scores: np.ndarray, test_labels: np.ndarray, year: int
) -> dict[str, np.ndarray]:
    """:func:`simulated_scores` one run at a time through the protocol's own objects
    (:class:`~mteb_contrastive.metrics.calibration.Calibrator`,
    :class:`~mteb_contrastive.metrics.calibration.KirbyCalibrator`,
    :func:`~mteb_contrastive.metrics.pan.pan_scores`): the reference the vectorised path equals (a
    test; ``scripts/bench_chance.py`` times both)."""
    values: dict[str, list[float]] = {}
    with sklearn.config_context(skip_parameter_validation=True, assume_finite=True):
        for i in range(val_scores.shape[0]):
            answers = Calibrator(year=year).fit(val_scores[i], val_labels[i]).answers(test_scores[i])
            kirby = KirbyCalibrator(year=year).fit(val_scores[i], val_labels[i]).answers(test_scores[i])
            answers.update({f"kirby_{k}": v for k, v in kirby.items()})
            for k, v in pan_scores(test_labels[i], answers, year).items():
                if not k.endswith("_n_overall_metrics"):
                    values.setdefault(k, []).append(np.nan if v is None else float(v))
    return {k: np.asarray(v) for k, v in values.items()}


def summarise_runs(values: dict[str, np.ndarray]) -> dict[str, dict[str, float]]:
    """``{score: {"mean", "low", "high", "sd", "runs"}}``: the mean over runs (the chance level) and the
    empirical 2.5% / 97.5% quantiles of the runs (``numpy.quantile``, ``inverted_cdf``)."""
    out = {}
    for k, a in values.items():
        a = a[~np.isnan(a)]
        if not a.size:
            continue
        lo, hi = np.quantile(a, [0.025, 0.975], method="inverted_cdf")
        out[k] = {"mean": float(a.mean()), "low": float(lo), "high": float(hi), "sd": float(a.std()), "runs": a.size}
    return out


def simulate_calibrated_chance(
    n_validation: int,
    n_validation_same: int,
    n_test: int,
    n_test_same: int,
    *,
    year: int = 2021,
    runs: int = SIMULATION_RUNS,
    seed: int = 0,
) -> dict[str, dict[str, float]]:
    """Chance levels of the calibrated PAN scores of a scorer on **uniform scores**, through the
    protocol's own steps -- the fallback for a result that does not carry its own
    (:func:`simulate_own_scale_chance`, which the verification protocol stores).

    Each run ``i`` draws a random scorer (:func:`uniform_streams`) and runs it through every entry
    of :data:`CALIBRATIONS` (validation-fitted threshold, Platt fit, abstention band; applied
    unchanged to test) and the protocol's PAN scoring against labels with the benchmark's class
    counts, all runs at once (:func:`simulated_scores`). Platt's sigmoid is invariant to the scores'
    scale; Kirby's ``LogisticRegression(C=1)`` is not, so for ``pan_kirby_*`` this is the chance level
    of a scorer on [0, 1), not of the model.

    Args:
        n_validation, n_validation_same: validation pairs and same-author validation pairs.
        n_test, n_test_same: the same for test.
        year: PAN rules (2021 or 2020).
        runs: random runs (default :data:`SIMULATION_RUNS`).

    Returns:
        :func:`summarise_runs` of every ``pan_<kind>_<metric>``.

    Raises:
        ValueError: a split without both classes (the protocol's calibration needs both).
    """
    _check_classes(n_validation, n_validation_same, n_test, n_test_same)
    streams = uniform_streams(n_validation, n_validation_same, n_test, n_test_same, runs, seed)
    return summarise_runs(simulated_scores(*streams, year))


def simulate_own_scale_chance(
    val_scores: Any,
    val_labels: Any,
    test_scores: Any,
    test_labels: Any,
    *,
    year: int = 2021,
    runs: int = SIMULATION_RUNS,
    seed: int = 0,
) -> dict[str, dict[str, float]]:
    """Chance levels of the calibrated PAN scores **at the model's own scale**: the model's own
    validation and test scores with the labels permuted in every run (:func:`permuted_streams`), through
    every entry of :data:`CALIBRATIONS` and the PAN scoring. A scorer that knows nothing but has the
    model's score distribution: what the calibrations make of the model's scale (a narrow band of
    cosines shrinks Kirby's ``LogisticRegression(C=1)`` toward p = 0.5), not of uniform scores.

    Example (the issue's): 200 validation and 192 test cosines in 0.80-0.84, half same-author:
    ``pan_kirby_platt_abstain_overall`` about 0.50 here, 0.543 on uniform scores.

    Raises:
        ValueError: a split without both classes, or scores and labels of different lengths.
    """
    vy, ty = np.asarray(val_labels), np.asarray(test_labels)
    if len(val_scores) != vy.size or len(test_scores) != ty.size:
        raise ValueError("scores and labels differ in length")
    _check_classes(vy.size, int(vy.sum()), ty.size, int(ty.sum()))
    streams = permuted_streams(val_scores, vy, test_scores, ty, runs, seed)
    return summarise_runs(simulated_scores(*streams, year))


#: prefixes of the stored simulation's range keys in a verification result (not chance levels themselves)
STORED_LOW, STORED_HIGH, STORED_RUNS = "simulated_low_", "simulated_high_", "simulated_chance_runs"


def own_scale_chance_scores(
    val_scores: Any, val_labels: Any, test_scores: Any, test_labels: Any, *, year: int, runs: int, seed: int = 0
) -> dict[str, Any]:
    """The flat result keys of :func:`simulate_own_scale_chance`, for the verification protocol to store
    beside its scores: ``random_<score>`` (the chance level, which :func:`chance_levels` reads as a
    stored one), ``simulated_low_<score>`` / ``simulated_high_<score>`` (95% of the runs) and
    ``simulated_chance_runs``; the AUCs are left out (exactly 0.5). Empty when a split lacks a class."""
    try:
        sim = simulate_own_scale_chance(
            val_scores, val_labels, test_scores, test_labels, year=year, runs=runs, seed=seed
        )
    except ValueError:
        return {}
    out: dict[str, Any] = {STORED_RUNS: runs}
    for k, v in sim.items():
        if k.endswith("_auc") or k.endswith("_n_unanswered"):
            continue
        out[f"random_{k}"], out[f"{STORED_LOW}{k}"], out[f"{STORED_HIGH}{k}"] = v["mean"], v["low"], v["high"]
    return out


def stored_ranges(scores: dict[str, Any]) -> dict[str, dict[str, float]]:
    """The simulated ranges a result stores (:func:`own_scale_chance_scores`), as :func:`summarise_runs` entries."""
    runs = scores.get(STORED_RUNS)
    out = {}
    for k, low in scores.items():
        if k.startswith(STORED_LOW):
            name = k.removeprefix(STORED_LOW)
            if f"random_{name}" in scores and f"{STORED_HIGH}{name}" in scores:
                out[name] = {
                    "mean": scores[f"random_{name}"],
                    "low": low,
                    "high": scores[f"{STORED_HIGH}{name}"],
                    "runs": runs,
                    "scale": "own",
                }
    return out


def _steps_fingerprint() -> str:
    """Hash of the source of everything the simulation runs (this module, calibration, PAN metrics)."""
    h = hashlib.sha256()
    for mod in (calibration, pan):
        h.update(inspect.getsource(mod).encode("utf-8"))
    for f in (simulate_calibrated_chance, simulated_scores, uniform_streams, *CALIBRATIONS.values()):
        h.update(inspect.getsource(f).encode("utf-8"))
    return h.hexdigest()[:16]


def cached_calibrated_chance(
    task: str,
    subset: str,
    split: str,
    dataset_revision: str | None,
    counts: tuple[int, int, int, int],
    *,
    year: int = 2021,
    runs: int = SIMULATION_RUNS,
    seed: int = 0,
    cache_dir: Path | None = None,
) -> dict[str, dict[str, float]]:
    """:func:`simulate_calibrated_chance` of ``counts`` (validation, validation same, test, test same),
    cached per dataset revision under ``<cache root>/chance/<task>/<revision>/`` (one JSON file per
    subset, split and key: counts, year, runs, seed, the calibrations' names and the steps' source
    hash); written atomically."""
    key = json.dumps(
        {
            "counts": list(counts),
            "year": year,
            "runs": runs,
            "seed": seed,
            "calibrations": sorted(CALIBRATIONS),
            "version": SIMULATION_VERSION,
            "steps": _steps_fingerprint(),
        },
        sort_keys=True,
    )
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]
    folder = (cache_dir or config.cache_root()) / "chance" / task / str(dataset_revision or "no-revision")
    path = folder / f"{subset}-{split}-{digest}.json"
    if path.is_file():
        try:
            return json.loads(path.read_text(encoding="utf-8"))["chance"]
        except (ValueError, KeyError):
            logger.warning("%s: unreadable cached chance level, simulated again", path)
    out = simulate_calibrated_chance(*counts, year=year, runs=runs, seed=seed)
    write_text_atomic(path, json.dumps({"key": json.loads(key), "chance": out}, indent=1) + "\n")
    return out


def verification_counts(scores: dict[str, Any], reference: Any = None) -> tuple[int, int, int, int] | None:
    """(validation pairs, same-author validation pairs, test pairs, same-author test pairs) of a
    verification result: its ``n_validation_pairs`` / ``n_validation_same_author`` / ``n_pairs`` /
    ``n_same_author``, the validation labels of the task (``reference["validation_labels"]``) when
    the result predates ``n_validation_same_author``; None when unknown."""
    n, same = scores.get("n_pairs"), scores.get("n_same_author")
    nv, nv_same = scores.get("n_validation_pairs"), scores.get("n_validation_same_author")
    if nv_same is None and isinstance(reference, dict) and reference.get("validation_labels"):
        labels = reference["validation_labels"]
        nv, nv_same = len(labels), int(sum(labels))
    if None in (n, same, nv, nv_same):
        return None
    return int(nv), int(nv_same), int(n), int(same)
