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
from typing import Any

import numpy as np

from mteb_contrastive.metrics.resampling import NotComparable
from mteb_contrastive.metrics.resampling import bootstrap_interval as by_unit

UNKNOWN = "<UNK>"
#: enumerate every answer combination up to this many (else Monte Carlo)
EXACT_MAX = 100_000
MONTE_CARLO_DRAWS = 2000
#: the open-set label rule of :func:`macro_f1_codes` (every candidate gold or answered)
OPEN_SET_LABELS = "candidates"
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


def macro_f1_codes(gold: np.ndarray, answers: np.ndarray, unknown: int, *, labels: str = "gold") -> np.ndarray:
    """Macro-F1 on codes, for many answer vectors at once.

    Args:
        gold: (N,) gold codes; ``unknown`` = the ``<UNK>`` code.
        answers: (N,) or (D, N) answer codes.
        labels: the label set averaged over. ``"gold"``: PAN 2019's (:func:`pan19_macro_f1`, the gold
            labels minus ``<UNK>``; an answer outside them costs only the gold author's recall).
            ``"candidates"``: the open-set rule (:data:`OPEN_SET_LABELS`): every candidate that is the
            gold label of an item or is answered at least once in that answer vector, minus ``<UNK>``
            -- so "author X" answered for an ``<UNK>`` item enters the average with X's precision, even
            when X is never gold (scikit-learn's default label set, the union of true and predicted
            labels, minus ``<UNK>``).

    Returns:
        (D,) macro-F1 values (a float for 1-D ``answers``); F1 of a label = 2 TP / (#answered + #gold);
        NaN where the label set is empty.

    Raises:
        ValueError: an unknown ``labels`` rule.
    """
    if labels not in ("gold", "candidates"):
        raise ValueError(f"labels must be 'gold' or 'candidates', got {labels!r}")
    g = np.asarray(gold, dtype=np.int64)
    a = np.asarray(answers, dtype=np.int64)
    one = a.ndim == 1
    a = a[None, :] if one else a
    pool = g[g != unknown] if labels == "gold" else np.concatenate([g[g != unknown], a[a != unknown].ravel()])
    codes = np.unique(pool)
    n_rows, n_lab = a.shape[0], codes.size
    if n_lab == 0:
        return np.nan if one else np.full(n_rows, np.nan)

    def label_index(x: np.ndarray) -> np.ndarray:
        """Position of each code among ``codes``; -1 for a code outside them (``<UNK>``, a non-label)."""
        pos = np.clip(np.searchsorted(codes, x), 0, n_lab - 1)
        return np.where(codes[pos] == x, pos, -1)

    ga, aa = label_index(g), label_index(a)
    row = np.repeat(np.arange(n_rows), a.shape[1]).reshape(a.shape)
    answered = np.bincount((row * n_lab + aa)[aa >= 0], minlength=n_rows * n_lab).reshape(n_rows, n_lab)
    hit = (aa >= 0) & (a == g[None, :])
    tp = np.bincount((row * n_lab + aa)[hit], minlength=n_rows * n_lab).reshape(n_rows, n_lab)
    n_gold = np.bincount(ga[ga >= 0], minlength=n_lab)
    denom = answered + n_gold[None, :]
    f1 = np.where(denom > 0, 2.0 * tp / np.maximum(denom, 1), 0.0).sum(axis=1)
    counted = (denom > 0).sum(axis=1) if labels == "candidates" else np.full(n_rows, n_lab)
    out = np.where(counted > 0, f1 / np.maximum(counted, 1), np.nan)
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
    gold: np.ndarray, options: Sequence[Sequence[int]], unknown: int, *, seed: int = 0, labels: str = "gold"
) -> tuple[float, str]:
    """Expected macro-F1 (:func:`macro_f1_codes` with ``labels``) of answers drawn uniformly and
    independently from each item's ``options``.

    Returns:
        (value, method): ``"exact"`` (every combination enumerated, when their number is at most
        :data:`EXACT_MAX`) or ``"monte carlo 2000 draws, seed 0"``.
    """
    g = np.asarray(gold)
    n_combinations = 1
    for o in options:  # stops growing past EXACT_MAX (a product of thousands of sizes is a huge integer)
        n_combinations *= len(o)
        if n_combinations > EXACT_MAX:
            break
    if n_combinations <= EXACT_MAX:
        combos = np.array(list(itertools.product(*options)), dtype=np.int64).reshape(n_combinations, len(options))
        return float(macro_f1_codes(g, combos, unknown, labels=labels).mean()), "exact"
    rng = np.random.default_rng(seed)
    draws = np.stack(
        [np.asarray(o, dtype=np.int64)[rng.integers(len(o), size=MONTE_CARLO_DRAWS)] for o in options], axis=1
    )
    value = float(macro_f1_codes(g, draws, unknown, labels=labels).mean())
    return value, f"monte carlo {MONTE_CARLO_DRAWS} draws, seed {seed}"


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


def _row_terms(s: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per item: finite-candidate mask, candidates k, the gold score and the mean of the other finite scores."""
    finite = np.isfinite(s)
    k = finite.sum(axis=1)
    rows = np.arange(len(g))
    gold = s[rows, g]
    total = np.where(finite, s, 0.0).sum(axis=1)
    others = np.where(k > 1, (total - gold) / np.maximum(k - 1, 1), 0.0)
    return finite, k, gold, others


class _ExpectedScore:
    """Per item E_p[s] under p = softmax(beta * s) over its finite candidates, for many ``beta``.

    Holds ``d = s - max(s)`` per row (``-inf`` stays ``-inf``: probability 0) and one work buffer, so a call
    is one product, one ``exp`` and two row sums, in place: ``beta * d`` is ``beta * s`` shifted by its
    row maximum (beta > 0), the usual guard against overflow, without a maximum per call and without
    fresh (n, K) temporaries (their page faults were half the time)."""

    def __init__(self, s: np.ndarray, s0: np.ndarray) -> None:
        self.d = s - s.max(axis=1, keepdims=True)
        self.s0 = s0
        self.work = np.empty_like(self.d)

    def __call__(self, beta: np.ndarray) -> np.ndarray:
        """``beta``: (n,) > 0, one per item -> (n,) E_p[s]."""
        z = np.multiply(self.d, beta[:, None], out=self.work)
        np.exp(z, out=z)
        return np.einsum("ij,ij->i", z, self.s0) / np.einsum("ij->i", z)


def fit_temperatures_nested(scores: np.ndarray, gold: np.ndarray, groups: np.ndarray) -> dict[int, float]:
    """For each group g: :func:`fit_temperature` on the items outside g, all groups at once.

    The same optimum as one bounded search per group (same targets, same bounds, rebuilt per group),
    found without a search over the whole matrix per group (about 80 passes over the matrix in all,
    against about 30 per group). With beta = 1/T the loss of a fit on the items R (N of them) is
    ``(1/N) sum_{r in R, k_r > 1} [lse_r(beta) - beta (a s_r,gold + b m_r)]`` (a = (N+1)/(N+2),
    b = 1/(N+2), m_r the mean of r's other finite scores, lse_r the log-sum-exp of beta times its
    finite scores): convex in beta, minimal where ``sum_R E_p[s_r] = sum_R (a s_gold + b m_r)``.
    ``sum_R E_p`` = (sum over every item) - (sum over g's items). The first is one smooth function of
    beta: computed exactly at Chebyshev nodes on an interval of log beta around the global optimum
    (every item, an exact scalar search), interpolated (nodes doubled until within 1e-12 relative of
    an exact value); the interval is widened until no group's root stops at its edge (a group whose
    root still does gets its own bounded search). The second is exact. Each group's equation is
    solved by vectorised bisection (44 halvings of log beta). A root at the search bounds is clipped
    there, as the bounded search would be.

    Args:
        scores: (N, K) candidate scores (``-inf`` = not a candidate).
        gold: (N,) gold codes.
        groups: (N,) group (author) of each item.

    Returns:
        ``{group: T}`` for every group with at least one item outside it.
    """
    s = np.asarray(scores, dtype=np.float64)
    g = np.asarray(gold, dtype=np.int64)
    grp = np.asarray(groups)
    labels, inv = np.unique(grp, return_inverse=True)
    n_all = len(g)
    finite, k, gs, others = _row_terms(s, g)
    multi = k > 1
    ptp = np.array([np.ptp(row[ok]) if ok.any() else 0.0 for row, ok in zip(s, finite)])
    n_out = n_all - np.bincount(inv, minlength=labels.size)
    keep = n_out > 0
    a = (n_out + 1.0) / (n_out + 2.0)
    b = 1.0 / (n_out + 2.0)

    def by_group(x: np.ndarray) -> np.ndarray:
        return np.bincount(inv, weights=x, minlength=labels.size)

    g_out = gs[multi].sum() - by_group(np.where(multi, gs, 0.0))
    m_out = others[multi].sum() - by_group(np.where(multi, others, 0.0))
    target = a * g_out + b * m_out  # sum over the fitted items of the target-weighted score
    spread = (ptp.sum() - by_group(ptp)) / np.maximum(n_out, 1)
    spread = np.where((spread > 0) & np.isfinite(spread), spread, 1.0)
    c = np.log(spread)
    lo, hi = -(c + 6.0), -(c - 12.0)  # bounds on log beta (log T in [c - 12, c + 6])

    if not multi.any():
        return {_key(labels[j]): float(math.exp(-lo[j])) for j in np.flatnonzero(keep).tolist()}
    expected = _ExpectedScore(s[multi], np.where(finite, s, 0.0)[multi])  # items with one candidate add 0
    inv_multi = inv[multi]

    def total_expected(log_beta: float) -> float:
        return float(expected(np.full(len(inv_multi), math.exp(log_beta))).sum())

    def own_expected(log_beta: np.ndarray) -> np.ndarray:
        return np.bincount(inv_multi, weights=expected(np.exp(log_beta)[inv_multi]), minlength=labels.size)

    out: dict[int, float] = {}
    if not keep.any():
        return out
    cheb = np.polynomial.chebyshev

    def interpolant(x_lo: float, x_hi: float, tol: float) -> Any:
        """Chebyshev interpolant of ``total_expected`` on [x_lo, x_hi], degree doubled until within ``tol``."""
        deg = 8
        while True:
            coef = cheb.chebinterpolate(
                lambda x: np.array([total_expected(x_lo + (v + 1.0) * (x_hi - x_lo) / 2.0) for v in np.atleast_1d(x)]),
                deg,
            )
            probe = 0.37
            exact = total_expected(x_lo + (probe + 1.0) * (x_hi - x_lo) / 2.0)
            if abs(cheb.chebval(probe, coef) - exact) <= tol * max(1.0, abs(exact)) or deg >= 256:
                return lambda t: cheb.chebval(2.0 * (np.asarray(t) - x_lo) / (x_hi - x_lo) - 1.0, coef)
            deg *= 2

    def roots(f: Any, left: np.ndarray, right: np.ndarray, halvings: int) -> np.ndarray:
        """Each group's root in [left, right] (clipped to it), ``halvings`` halvings of log beta at once."""
        left, right = left.copy(), right.copy()
        for _ in range(halvings):
            mid = (left + right) / 2.0
            grad = f(mid) - own_expected(mid) - target  # increasing in log beta
            right = np.where(grad > 0, mid, right)
            left = np.where(grad > 0, left, mid)
        return (left + right) / 2.0

    # the global optimum (every item) by an exact scalar search; every group's lies near it: an interval
    # around it, widened until it holds every group's root (none stopped at its edge), interpolated to 1e-12
    from scipy.optimize import brentq

    n_multi = float(multi.sum())
    t_all = ((n_all + 1.0) * gs[multi].sum() + others[multi].sum()) / (n_all + 2.0)
    c_all = math.log(float(ptp.mean())) if ptp.mean() > 0 and math.isfinite(ptp.mean()) else 0.0
    span_lo, span_hi = float(min(lo[keep].min(), -(c_all + 6.0))), float(max(hi[keep].max(), -(c_all - 12.0)))

    def global_grad(x: float) -> float:
        return total_expected(x) - t_all

    if n_multi == 0 or global_grad(span_lo) >= 0:
        centre = span_lo
    elif global_grad(span_hi) <= 0:
        centre = span_hi
    else:
        centre = float(brentq(global_grad, span_lo, span_hi, xtol=1e-9))
    half = 0.05
    while True:
        n_lo, n_hi = max(span_lo, centre - half), min(span_hi, centre + half)
        left, right = np.maximum(lo, n_lo), np.minimum(hi, n_hi)
        outside = left > right
        log_beta = roots(interpolant(n_lo, n_hi, 1e-12), np.minimum(left, right), np.maximum(left, right), 44)
        at_lo = (np.abs(log_beta - n_lo) < 1e-9) & (n_lo > lo + 1e-9)
        at_hi = (np.abs(log_beta - n_hi) < 1e-9) & (n_hi < hi - 1e-9)
        edge = keep & (at_lo | at_hi | outside)
        if not edge.any() or (n_lo <= span_lo and n_hi >= span_hi) or half > 20.0:
            break
        half *= 4.0
    for j in np.flatnonzero(edge).tolist():  # a root still outside the interval: the bounded search itself
        rest = inv != j
        log_beta[j] = -math.log(fit_temperature(s[rest], g[rest]))
    flat = multi.sum() - by_group(multi.astype(np.float64)) == 0  # every fitted item has one candidate
    log_beta = np.where(flat, lo, log_beta)  # a flat loss: the bounded search ends at its largest T
    for j in np.flatnonzero(keep).tolist():
        out[_key(labels[j])] = float(math.exp(-log_beta[j]))
    return out


def _key(label: Any) -> Any:
    return label.item() if hasattr(label, "item") else label


def brier_multiclass(log_p: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """Per item ``sum_a (p_a - 1[a = gold])^2`` (Brier 1950, multi-class); 1 - 1/K for uniform answers."""
    p = np.exp(log_p)
    y = np.zeros_like(p)
    y[np.arange(len(gold)), np.asarray(gold, dtype=np.int64)] = 1.0
    return ((p - y) ** 2).sum(axis=1)


def margins(log_p: np.ndarray) -> np.ndarray:
    """P1 - P2 per item (the two largest probabilities; P2 = 0 with one candidate)."""
    p = np.exp(log_p)
    if p.shape[1] < 2:
        return p[:, 0].copy()
    two = np.partition(p, p.shape[1] - 2, axis=1)[:, -2:]  # the two largest, in order
    return two[:, 1] - two[:, 0]


def open_set_answers(top: np.ndarray, margin: np.ndarray, threshold: float, unknown: int) -> np.ndarray:
    """The top candidate, or ``unknown`` where ``margin < threshold`` (PAN 2019 SVM baseline's rule)."""
    return np.where(np.asarray(margin) < threshold, unknown, np.asarray(top))


def fit_margin_threshold(
    top: np.ndarray, margin: np.ndarray, gold: np.ndarray, unknown: int, *, labels: str = OPEN_SET_LABELS
) -> float:
    """The threshold maximising :func:`macro_f1_codes` (``labels``: by default the open-set rule, every
    candidate gold or answered) of :func:`open_set_answers` on these items.

    Grid: 0 (never ``<UNK>``), the midpoint between each two consecutive distinct margins and the
    float just above the largest (``<UNK>`` everywhere); the answer is ``<UNK>`` below the threshold.
    A midpoint, not a margin itself, so an item scored like a training item is not decided by the
    last bit of its margin. Ties go to the smallest threshold (fewest ``<UNK>`` answers); values within
    :data:`TIE_TOLERANCE` of the best are ties (the same macro-F1 summed in another order differs in its
    last bits, and a tie must not be decided by them).
    """
    margin = np.asarray(margin, dtype=np.float64)
    m = np.unique(margin)
    grid = np.unique(np.concatenate([[0.0], (m[1:] + m[:-1]) / 2, np.nextafter(m[-1:], np.inf)]))
    f1 = _macro_f1_by_rejections(np.asarray(top), margin, np.asarray(gold), unknown, labels)
    rejected = np.searchsorted(np.sort(margin), grid, side="left")  # items with margin < threshold
    return float(grid[first_best(f1[rejected])])


TIE_TOLERANCE = 1e-9
"""Two macro-F1 values closer than this are one value (a macro-F1 of M items changes by at least
1 / (M * labels) ** 2 when one answer changes, far above it for any corpus that fits in memory)."""


def first_best(values: np.ndarray) -> int:
    """Index of the first value within :data:`TIE_TOLERANCE` of the largest (NaN counts as -1);
    ``values``: (G,) floats, G >= 1."""
    v = np.nan_to_num(np.asarray(values, dtype=np.float64), nan=-1.0)
    return int(np.flatnonzero(v >= v.max() - TIE_TOLERANCE)[0])


def _macro_f1_by_rejections(
    top: np.ndarray, margin: np.ndarray, gold: np.ndarray, unknown: int, labels: str
) -> np.ndarray:
    """(M + 1,) :func:`macro_f1_codes` of the answers with the r smallest-margin items answered ``unknown``,
    r = 0..M (ties of margin in a stable order), in O(M log M): each rejection changes one label's counts,
    so the macro-F1 after r rejections is the first value plus the cumulative sum of the changes."""
    g, t = np.asarray(gold, dtype=np.int64), np.asarray(top, dtype=np.int64)
    n = g.size
    order = np.argsort(margin, kind="stable")
    codes = np.unique(
        np.concatenate([g[g != unknown], t[t != unknown]] if labels == "candidates" else [g[g != unknown]])
    )
    if codes.size == 0:
        return np.full(n + 1, np.nan)
    pos = np.clip(np.searchsorted(codes, t), 0, codes.size - 1)
    lab = np.where((t != unknown) & (codes[pos] == t), pos, -1)  # the label an item's answer counts for
    gpos = np.clip(np.searchsorted(codes, g), 0, codes.size - 1)
    n_gold = np.bincount(gpos[(g != unknown) & (codes[gpos] == g)], minlength=codes.size).astype(np.float64)
    answered = np.bincount(lab[lab >= 0], minlength=codes.size).astype(np.float64)
    hits = np.bincount(lab[(lab >= 0) & (t == g)], minlength=codes.size).astype(np.float64)

    def f1(tp: np.ndarray, ans: np.ndarray, gl: np.ndarray) -> np.ndarray:
        d = ans + gl
        return np.where(d > 0, 2.0 * tp / np.maximum(d, 1.0), 0.0)

    def present(ans: np.ndarray, gl: np.ndarray) -> np.ndarray:
        return ((ans + gl) > 0).astype(np.float64) if labels == "candidates" else np.ones_like(ans)

    # events: the items in margin order; per label, how many of its answers / hits are rejected so far
    ev_lab, ev_hit = lab[order], (t == g)[order] & (lab[order] >= 0)
    valid = ev_lab >= 0
    key = np.where(valid, ev_lab, codes.size)
    by_label = np.argsort(key, kind="stable")  # events grouped by label, margin order kept inside
    k = key[by_label]
    starts = np.searchsorted(k, k, side="left")
    within = np.arange(n) - starts + 1  # this event is the j-th rejection of its label
    hit_cum = np.cumsum(ev_hit[by_label])
    hit_before = np.where(starts > 0, hit_cum[np.maximum(starts - 1, 0)], 0)
    hits_rejected = hit_cum - hit_before
    lab_e = np.minimum(k, codes.size - 1)
    gl = n_gold[lab_e]
    ans_after, tp_after = answered[lab_e] - within, hits[lab_e] - hits_rejected
    ans_before, tp_before = ans_after + 1, tp_after + ev_hit[by_label]
    d_f1 = np.where(k < codes.size, f1(tp_after, ans_after, gl) - f1(tp_before, ans_before, gl), 0.0)
    d_pr = np.where(k < codes.size, present(ans_after, gl) - present(ans_before, gl), 0.0)
    delta_f1, delta_pr = np.empty(n), np.empty(n)
    delta_f1[by_label], delta_pr[by_label] = d_f1, d_pr  # back to margin order
    total = f1(hits, answered, n_gold).sum() + np.concatenate([[0.0], np.cumsum(delta_f1)])
    count = present(answered, n_gold).sum() + np.concatenate([[0.0], np.cumsum(delta_pr)])
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0.5, total / np.maximum(count, 1.0), np.nan)


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
