"""Closed- and open-set authorship-attribution metrics: PAN 2019 macro-F1, tie-aware accuracy, chance,
temperature-calibrated candidate probabilities, the "unknown author" threshold, intervals by text.

Items are rows of a **candidate-score matrix** ``scores`` (n_items, K): the score of each of the K
candidate authors (sorted by name) for an item, higher = more likely, ``-inf`` where the author is
not a candidate of that item. Gold and answers are **codes**: ``0..K-1`` an author, ``K``
(:data:`UNKNOWN` in words) "none of the candidates".

Sources of the rules:

* **macro-F1** -- the PAN 2019 cross-domain attribution evaluator (``pan-webis-de/pan-code``,
  ``clef19/authorship-attribution/pan19-cdaa-evaluator.py``): an answer outside the problem's gold
  authors counts as ``<UNK>`` (L96-98), an unanswered text as ``<UNK>`` (L87-91); the macro average
  runs over the **gold labels of the evaluated texts minus** ``<UNK>`` (L106-110), scikit-learn
  ``f1_score(..., average="macro")`` (L111-114). So a candidate that is never the gold answer is
  not averaged, and an ``<UNK>`` text answered "author X" lowers X's precision. The script passes
  ``labels`` positionally (L111) and calls ``inverse_transform`` on a scalar (L109), which current
  scikit-learn refuses; :func:`pan19_macro_f1` is the same rule with ``labels=`` by keyword and
  ``zero_division=0`` (the old warn-and-0). PAN averages per-problem values (L151-157); one task
  here is one problem.
* **accuracy** -- the project's tie rule (as ``mrr_tie_expected``, :mod:`mteb_contrastive.metrics.ranking`):
  1/t when the gold author is among the t candidates tied at the top, else 0; its mean is the
  expected accuracy of a random choice among the tied. ``macro_f1`` needs one answer per text: a
  top tie goes to the first name in sorted order (counted in ``n_top_ties``).
* **chance** -- :func:`random_macro_f1`: the expected macro-F1 of answers drawn uniformly from each
  item's options (exact enumeration when the number of answer combinations is at most
  :data:`EXACT_MAX`, else :data:`MONTE_CARLO_DRAWS` seeded draws); :func:`majority_class_macro_f1`:
  always answering the most frequent gold author (closed form).
* **probabilities** -- softmax of the scores divided by a temperature T (temperature scaling, Guo et
  al. 2017, "On Calibration of Modern Neural Networks"; one parameter, so it keeps the ranking),
  fitted by cross-entropy against Platt's smoothed targets (:func:`fit_temperature`).
* **unknown author** -- the PAN 2019 SVM baseline's reject rule (``pan19-cdaa-baseline-svm.py``
  L133-139, doc L25-26): with P1 >= P2 the two largest candidate probabilities, the answer is
  ``<UNK>`` when ``P1 - P2 < threshold``. The baseline fixes the threshold at 0.1; here it is chosen
  on held-out items (:func:`fit_margin_threshold`).
* **intervals** -- bootstrap by **author** (a text is scored against its author's other texts, so an
  author's texts are not independent): the project's one bootstrap,
  :func:`mteb_contrastive.metrics.resampling.bootstrap_interval` (1,000 draws of the authors,
  ``numpy.random.default_rng(0)``, empirical 2.5% / 97.5% quantiles): :func:`bootstrap_interval`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

import numpy as np

from mteb_contrastive.metrics.resampling import NotComparable
from mteb_contrastive.metrics.resampling import bootstrap_interval as by_unit

UNKNOWN = "<UNK>"
#: enumerate every answer combination up to this many (else Monte Carlo)
EXACT_MAX = 100_000
MONTE_CARLO_DRAWS = 2000
BOOTSTRAP_RESAMPLES = 1000


def pan19_macro_f1(gold: Sequence[str], predicted: Sequence[str]) -> float:
    """PAN 2019 macro-F1 of author names (``<UNK>`` allowed on both sides), module docstring.

    Returns:
        the macro-F1 over the gold labels minus ``<UNK>``; NaN when every gold label is ``<UNK>``.

    Raises:
        ValueError: different lengths.
    """
    from sklearn.metrics import f1_score

    if len(gold) != len(predicted):
        raise ValueError(f"gold and predicted differ in length: {len(gold)} vs {len(predicted)}")
    labels = sorted(set(gold) - {UNKNOWN})
    if not labels:
        return float("nan")
    return float(f1_score(list(gold), list(predicted), labels=labels, average="macro", zero_division=0))


def macro_f1_codes(gold: np.ndarray, answers: np.ndarray, unknown: int) -> np.ndarray:
    """:func:`pan19_macro_f1` on codes, for many answer vectors at once.

    Args:
        gold: (N,) gold codes; ``unknown`` = the ``<UNK>`` code.
        answers: (N,) or (D, N) answer codes.

    Returns:
        (D,) macro-F1 values (a float for 1-D ``answers``); F1 of a label = 2 TP / (#answered + #gold).
    """
    g = np.asarray(gold)
    a = np.asarray(answers)
    one = a.ndim == 1
    a = a[None, :] if one else a
    labels = np.unique(g[g != unknown])
    if labels.size == 0:
        out = np.full(a.shape[0], np.nan)
    else:
        f1 = np.zeros(a.shape[0])
        for lab in labels.tolist():
            gl = g == lab
            al = a == lab
            f1 += 2.0 * (al & gl).sum(1) / (al.sum(1) + gl.sum())
        out = f1 / labels.size
    return out[0] if one else out


def top_answers(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(answer code per item: the first of the top-scoring candidates in name order, number of
    candidates tied at the top per item)."""
    s = np.asarray(scores, dtype=np.float64)
    top = s.max(axis=1, keepdims=True)
    return s.argmax(axis=1), (s == top).sum(axis=1)


def tie_aware_hits(scores: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """Per item: 1/t when the gold candidate is among the t candidates tied at the top, else 0."""
    s = np.asarray(scores, dtype=np.float64)
    g = np.asarray(gold, dtype=np.int64)
    top = s.max(axis=1)
    gs = s[np.arange(len(g)), g]
    t = (s == top[:, None]).sum(axis=1)
    return np.where(gs == top, 1.0 / t, 0.0)


def random_macro_f1(
    gold: np.ndarray, options: Sequence[Sequence[int]], unknown: int, *, seed: int = 0
) -> tuple[float, str]:
    """Expected macro-F1 of answers drawn uniformly and independently from each item's ``options``.

    Returns:
        (value, method): ``"exact"`` (every combination enumerated, when their number is at most
        :data:`EXACT_MAX`) or ``"monte carlo 2000 draws, seed 0"``.
    """
    g = np.asarray(gold)
    n_combinations = math.prod(len(o) for o in options)
    if n_combinations <= EXACT_MAX:
        combos = np.array(list(itertools.product(*options)), dtype=np.int64).reshape(n_combinations, len(options))
        return float(macro_f1_codes(g, combos, unknown).mean()), "exact"
    rng = np.random.default_rng(seed)
    draws = np.stack(
        [np.asarray(o, dtype=np.int64)[rng.integers(len(o), size=MONTE_CARLO_DRAWS)] for o in options], axis=1
    )
    return float(macro_f1_codes(g, draws, unknown).mean()), f"monte carlo {MONTE_CARLO_DRAWS} draws, seed {seed}"


def majority_class_macro_f1(gold: Sequence) -> float:
    """Macro-F1 of always answering the most frequent gold label: its F1 is 2p / (1 + p) (precision
    p, its share; recall 1), every other label's 0, averaged over the L gold labels."""
    counts = np.unique(np.asarray(gold), return_counts=True)[1]
    p = counts.max() / counts.sum()
    return float(2 * p / (1 + p) / counts.size)


def log_probabilities(scores: np.ndarray, temperature: float) -> np.ndarray:
    """Row-wise ``log softmax(scores / T)``; ``-inf`` scores (not a candidate) get probability 0."""
    from scipy.special import log_softmax

    return log_softmax(np.asarray(scores, dtype=np.float64) / temperature, axis=1)


def fit_temperature(scores: np.ndarray, gold: np.ndarray) -> float:
    """T > 0 minimising the cross-entropy of ``softmax(scores / T)`` against smoothed targets (bounded
    Brent search on log T; the loss is convex in 1/T).

    Targets: Platt's prior correction (Platt 1999, "Probabilistic outputs for support vector
    machines", section 2.2; the verification calibration's rule, :mod:`mteb_contrastive.metrics.calibration`)
    carried to K classes: the gold candidate gets ``(N + 1) / (N + 2)`` for N fitted items, the item's
    other candidates share ``1 / (N + 2)``. Without it T has no finite optimum when every item's gold
    candidate scores highest (T -> 0, probabilities 0 and 1); with it T stays finite and the fitted
    probabilities tend to the plain maximum-likelihood ones as N grows.

    The search spans ``log T`` in ``[log(spread) - 12, log(spread) + 6]``, spread = the mean over items
    of the range of their finite scores (1 when 0), so cosine and BM25 scales alike are covered.
    """
    from scipy.optimize import minimize_scalar

    s = np.asarray(scores, dtype=np.float64)
    g = np.asarray(gold, dtype=np.int64)
    finite = np.isfinite(s)
    spread = float(np.mean([np.ptp(row[ok]) for row, ok in zip(s, finite)]))
    spread = spread if spread > 0 and math.isfinite(spread) else 1.0
    n = len(g)
    k = finite.sum(axis=1)  # candidates per item; one candidate: its probability is 1 whatever T
    rest = np.where(k > 1, 1.0 / (n + 2) / np.maximum(k - 1, 1), 0.0)
    target = np.where(finite, rest[:, None], 0.0)
    target[np.arange(n), g] = np.where(k > 1, (n + 1.0) / (n + 2.0), 1.0)

    def loss(log_t: float) -> float:
        log_p = log_probabilities(s, math.exp(log_t))
        return float(-np.sum(np.where(target > 0, target * log_p, 0.0)) / n)

    c = math.log(spread)
    res = minimize_scalar(loss, bounds=(c - 12.0, c + 6.0), method="bounded", options={"xatol": 1e-6})
    return float(math.exp(res.x))


def brier_multiclass(log_p: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """Per item ``sum_a (p_a - 1[a = gold])^2`` (Brier 1950, multi-class); 1 - 1/K for uniform answers."""
    p = np.exp(log_p)
    y = np.zeros_like(p)
    y[np.arange(len(gold)), np.asarray(gold, dtype=np.int64)] = 1.0
    return ((p - y) ** 2).sum(axis=1)


def margins(log_p: np.ndarray) -> np.ndarray:
    """P1 - P2 per item (the two largest probabilities; P2 = 0 with one candidate)."""
    p = np.sort(np.exp(log_p), axis=1)[:, ::-1]
    return p[:, 0] - (p[:, 1] if p.shape[1] > 1 else 0.0)


def open_set_answers(top: np.ndarray, margin: np.ndarray, threshold: float, unknown: int) -> np.ndarray:
    """The top candidate, or ``unknown`` where ``margin < threshold`` (PAN 2019 SVM baseline's rule)."""
    return np.where(np.asarray(margin) < threshold, unknown, np.asarray(top))


def fit_margin_threshold(top: np.ndarray, margin: np.ndarray, gold: np.ndarray, unknown: int) -> float:
    """The threshold maximising :func:`macro_f1_codes` of :func:`open_set_answers` on these items.

    Grid: 0 (never ``<UNK>``) and every distinct margin (answer ``<UNK>`` below it); ties go to the
    smallest threshold (fewest ``<UNK>`` answers).
    """
    grid = np.unique(np.concatenate([[0.0], np.asarray(margin, dtype=np.float64)]))
    answers = np.where(np.asarray(margin)[None, :] < grid[:, None], unknown, np.asarray(top)[None, :])
    f1 = macro_f1_codes(np.asarray(gold), answers, unknown)
    return float(grid[int(np.nanargmax(np.nan_to_num(f1, nan=-1.0)))])


def bootstrap_interval(
    statistic: Callable[[np.ndarray], float], n_items: int, *, groups: Sequence | np.ndarray, seed: int = 0
) -> tuple[float, float]:
    """95% bootstrap interval of ``statistic(item indices)`` over ``n_items`` items, resampling their
    ``groups`` (one author per item: the unit of independence) with the project's one bootstrap
    (:func:`mteb_contrastive.metrics.resampling.bootstrap_interval`, :data:`BOOTSTRAP_RESAMPLES` draws,
    ``numpy.random.default_rng(seed)``); (NaN, NaN) with fewer than 2 authors.

    Example: 10 authors x 3 texts, 3 authors always right (accuracy 0.3): [0.0, 0.6] by author, where
    resampling the 30 texts as independent gave [0.167, 0.467].

    Raises:
        ValueError: ``groups`` not of length ``n_items``.
    """
    g = np.asarray(groups).tolist()
    try:
        iv = by_unit(
            None,
            statistic=lambda _, idx: statistic(np.asarray(idx, dtype=np.int64)),
            n=n_items,
            groups=g,
            unit="author",
            n_resamples=BOOTSTRAP_RESAMPLES,
            seed=seed,
        )
    except NotComparable:
        return float("nan"), float("nan")
    return float(iv.ci_low), float(iv.ci_high)
