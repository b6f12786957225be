"""Chance levels shown beside every score.

A protocol may store its own (keys ``random_<metric>`` / ``chance_<metric>``); they win. Otherwise
the expectation is computed here from the counts in the result and, for retrieval, the task's
qrels:

* triplet accuracy (strict ``>``, HALvest / Le & Mikolov 3.3): 0.5 -- a random scorer puts the
  positive above the negative half of the time (ties have probability 0); ``error_rate`` 50 (%);
* verification: AUC 0.5; ``majority_class_accuracy`` = max(p, 1 - p) with p = share of
  same-author test pairs (``n_same_author / n_pairs``);
* attribution: the protocol stores ``random_*`` (uniform answers) and ``majority_class_accuracy`` /
  ``majority_class_macro_f1`` (always the most frequent author), both shown beside the main score;
* ranking under a uniformly random permutation of a pool of N candidates with R relevant
  (binary gains): E[nDCG@k], E[Recall@k] and E[RR], the exact expectations of
  :mod:`mteb_contrastive.metrics.chance` (the one place of those formulas), averaged over queries
  (each query's N is the pool size, minus one when the task ignores a candidate identical to the
  query).
"""

from __future__ import annotations

from typing import Any

from mteb_contrastive.metrics import chance
from mteb_contrastive.metrics.chance import expected_ndcg, expected_recall


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


def main_chance(main_score_name: str, chances: dict[str, float]) -> tuple[float | None, str]:
    """Chance level of the main score: (value, text for a table cell).

    ``random_<main>`` / ``chance_<main>`` when known; for PAN overall scores (no closed-form chance
    value) None and the text names AUC 0.5 and the majority-class accuracy.
    """
    for key in (f"random_{main_score_name}", f"chance_{main_score_name}"):
        if key in chances:
            majority = chances.get(f"majority_class_{main_score_name}")
            extra = "" if majority is None else f"; majority {majority:.4f}"
            return chances[key], f"{chances[key]:.4f}{extra}"
    if main_score_name.startswith("pan_") and "majority_class_accuracy" in chances:
        return None, f"AUC 0.5; majority {chances['majority_class_accuracy']:.3f}"
    return None, "n/a"
