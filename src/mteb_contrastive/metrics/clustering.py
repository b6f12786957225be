"""The chance level of V-measure: its exact expectation under a random assignment with fixed cluster sizes.

V-measure (Rosenberg & Hirschberg 2007, beta = 1; ``sklearn.metrics.v_measure_score``, what mteb's
clustering tasks report) of a gold labelling C and an assignment K of N items is
``V = 2 MI(C, K) / (H(C) + H(K))`` (homogeneity ``MI/H(C)`` and completeness ``MI/H(K)``
combined by their harmonic mean). A random assignment that keeps the cluster sizes of both sides
(the permutation model of the adjusted mutual information: Vinh, Epps & Bailey, JMLR 11, 2010,
section 4) leaves both entropies fixed, so ``E[V] = 2 E[MI] / (H(C) + H(K))`` exactly, with

``E[MI] = sum_i sum_j sum_{n_ij} (n_ij / N) log(N n_ij / (a_i b_j)) P(n_ij)`` (their eq. 24),

``P(n_ij)`` hypergeometric (``a_i`` items of gold class i, ``b_j`` of cluster j), ``n_ij`` from
``max(1, a_i + b_j - N)`` to ``min(a_i, b_j)``. The same E[MI] is what
``sklearn.metrics.adjusted_mutual_info_score`` subtracts (checked in the tests through the identity
``AMI = (MI - E[MI]) / (mean(H) - E[MI])``).

Author clustering (:mod:`mteb_contrastive.protocols.author_clustering`) reports two chance levels of
:func:`expected_v_measure`, both with the **authors' sizes as the gold side**:

* ``random_v_measure`` -- the other side has the **sizes of the model's clusters**
  (``expected_v_measure(author sizes, cluster_sizes(assignment))``): what those cluster sizes give for
  free; the chance level printed beside every V-measure;
* ``random_v_measure_author_sizes`` -- the authors' sizes on **both** sides (a random partition into groups
  as large as the authors'; it does not depend on the model).

Both are large on small sets (0.32 for sizes [5, 3, 4, 2] on both sides), which is why one is printed
beside every V-measure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.special import gammaln


def _entropy(sizes: np.ndarray, n: int) -> float:
    p = sizes[sizes > 0] / n
    return float(-np.sum(p * np.log(p)))


def expected_mutual_information(sizes_a: Sequence[int], sizes_b: Sequence[int]) -> float:
    """E[MI] (natural log) of two partitions of the same N items with these class sizes, over all
    assignments keeping both sets of sizes (Vinh et al. 2010, eq. 24; exact, log-space factorials).

    Raises:
        ValueError: a size < 1, or the two sides sum to different N.
    """
    a = np.asarray(sizes_a, dtype=np.int64)
    b = np.asarray(sizes_b, dtype=np.int64)
    if a.size == 0 or b.size == 0 or a.min() < 1 or b.min() < 1:
        raise ValueError("cluster sizes must be whole numbers >= 1")
    n = int(a.sum())
    if int(b.sum()) != n:
        raise ValueError(f"the two partitions cover different numbers of items: {n} vs {int(b.sum())}")
    lg = gammaln(np.arange(n + 2, dtype=np.float64))  # lg[k] = log((k - 1)!) ; log(k!) = lg[k + 1]
    total = 0.0
    for ai in a.tolist():
        for bj in b.tolist():
            lo, hi = max(1, ai + bj - n), min(ai, bj)
            if lo > hi:
                continue
            nij = np.arange(lo, hi + 1, dtype=np.int64)
            # log P(n_ij) = log[a! b! (N-a)! (N-b)!] - log[N! n_ij! (a-n_ij)! (b-n_ij)! (N-a-b+n_ij)!]
            log_p = (
                lg[ai + 1]
                + lg[bj + 1]
                + lg[n - ai + 1]
                + lg[n - bj + 1]
                - lg[n + 1]
                - lg[nij + 1]
                - lg[ai - nij + 1]
                - lg[bj - nij + 1]
                - lg[n - ai - bj + nij + 1]
            )
            term = nij / n * np.log(n * nij / (ai * bj))
            total += float(np.sum(term * np.exp(log_p)))
    return total


def expected_v_measure(sizes_a: Sequence[int], sizes_b: Sequence[int]) -> float:
    """E[V-measure] of a random assignment with cluster sizes ``sizes_b`` against gold classes of sizes
    ``sizes_a`` (module docstring). 1.0 when both sides are a single cluster (scikit-learn's value:
    both entropies 0).

    Raises:
        ValueError: as :func:`expected_mutual_information`.
    """
    a = np.asarray(sizes_a, dtype=np.int64)
    b = np.asarray(sizes_b, dtype=np.int64)
    emi = expected_mutual_information(a, b)
    n = int(a.sum())
    h = _entropy(a, n) + _entropy(b, n)
    if h == 0:
        return 1.0
    return 2.0 * emi / h


def cluster_sizes(labels: Sequence) -> list[int]:
    """Sizes of the classes of ``labels`` (any hashable values), largest first."""
    counts: dict = {}
    for x in labels:
        counts[x] = counts.get(x, 0) + 1
    return sorted(counts.values(), reverse=True)


def simulated_v_measure(labels: Sequence, n_draws: int = 2000, seed: int = 0) -> tuple[float, float]:
    """(mean, standard error) of ``v_measure_score(labels, permutation of labels)`` over ``n_draws``
    seeded permutations (``numpy.random.default_rng(seed)``): a check of :func:`expected_v_measure`
    with the gold sizes on both sides."""
    from sklearn.metrics import v_measure_score

    rng = np.random.default_rng(seed)
    y = np.asarray(labels)
    vals = np.array([v_measure_score(y, rng.permutation(y)) for _ in range(n_draws)])
    return float(vals.mean()), float(vals.std(ddof=1) / math.sqrt(n_draws))
