"""The task families and protocols: one vocabulary for the benchmarks, the task table and the report.

A **protocol** (one ``AbsTask`` subclass of :mod:`mteb_contrastive.protocols`, named by its
``protocol`` class attribute) belongs to one **family**. Everything that is said per family or
per protocol lives in the two tables below: the report's section title, the benchmark's
description, the tie rule, the unit that comparisons resample, and whether a score name is better
high or low. Tasks that are not ours (mteb's own retrieval tasks, say) fall into ``retrieval`` or
``other``.

Nothing here imports the rest of the project or mteb.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Family:
    """One task family: ``name`` (its id in ``report.json``, the report's rows and the evaluation
    plan), ``label`` (its word in the task table and in the benchmark name
    ``mteb-contrastive-<label>``), the report's section ``title`` and the ``description`` of its
    benchmark (None: no benchmark of its own)."""

    name: str
    label: str
    title: str
    description: str | None


@dataclass(frozen=True)
class Resampling:
    """What the report's intervals resample: one ``item`` of the per-item scores (a query, a triplet,
    a pair) and the ``unit`` of independence drawn with replacement (the query itself, or the group
    of items an id in the per-item file's ``groups`` names: an IR query, an anchor author, the
    authors of a pair). ``grouped``: the unit is not the item, so the per-item file must carry
    the unit's ids (:mod:`mteb_contrastive.report.compare`)."""

    item: str
    unit: str

    @property
    def grouped(self) -> bool:
        return self.item != self.unit


@dataclass(frozen=True)
class Protocol:
    """One protocol: its ``family``, how it breaks ties (``tie_rule``) and the unit of independence
    its per-item scores are grouped by (``resampling``, what an interval or a paired comparison
    resamples)."""

    name: str
    family: str
    tie_rule: str
    resampling: Resampling

    @property
    def resampling_unit(self) -> str:
        return self.resampling.unit


#: families in report order
FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family(
            "author",
            "authorship",
            "Author tasks (HALvest protocol: author retrieval, author triplets)",
            "Author retrieval and author-triplet accuracy, HALvest-Contrastive protocol (Kulumba et al. 2024).",
        ),
        Family(
            "verification",
            "verification",
            "Authorship verification (PAN metrics)",
            "Authorship verification with the official PAN metrics, "
            "validation-fitted threshold, Platt scaling and abstention.",
        ),
        Family(
            "attribution",
            "attribution",
            "Authorship attribution (leave-one-text-out, PAN 2019 macro-F1; author clustering)",
            "Closed-set authorship attribution by leave-one-text-out (macro-F1 with the PAN 2019 rule, "
            "calibrated candidate probabilities for questioned texts) and author clustering (V-measure).",
        ),
        Family(
            "quotes",
            "quotes",
            "Quote recommendation (QuoteR)",
            "Quote recommendation, QuoteR protocol (Qi et al., ACL 2022): MRR over all quotes.",
        ),
        Family(
            "ir-triplets",
            "ir-triplets",
            "Paragraph Vector IR triplets",
            "Paragraph Vector IR triplets (Le & Mikolov 2014, section 3.3): triplet accuracy and error rate.",
        ),
        Family("retrieval", "retrieval", "Other retrieval tasks", None),
        Family("other", "other", "Other tasks", None),
    )
}

#: queries are independent of one another (retrieval, QuoteR): each query is drawn
BY_QUERY = Resampling("query", "query")
#: triplets sharing the anchor's author are one unit (HALvest: the anchor's first author)
BY_ANCHOR_AUTHOR = Resampling("triplet", "anchor author")
#: pairs are grouped by their authors: a pair counts once per draw of each of its authors
#: (a same-author pair has one, a different-author pair two)
BY_AUTHOR = Resampling("pair", "author")
#: clustering: each text (its chunks are not independent)
BY_TEXT = Resampling("text", "text")
#: attribution: texts are grouped by their author -- a text is scored against its author's other texts
#: (leave-one-text-out), so one author's texts are not independent: the author is drawn
BY_TEXT_AUTHOR = Resampling("text", "author")

#: the project's protocols (the ``protocol`` attribute of each protocol class)
PROTOCOLS: dict[str, Protocol] = {
    p.name: p
    for p in (
        Protocol(
            "author-retrieval",
            "author",
            "ranking by pytrec_eval (mteb): equal scores ordered by document id",
            BY_QUERY,
        ),
        Protocol("author-triplets", "author", "strict >: a tie counts as an error", BY_ANCHOR_AUTHOR),
        Protocol(
            "author-pairs",
            "author",
            "average precision (scikit-learn): tied scores form one threshold; accuracy/F1 at the validation threshold",
            BY_AUTHOR,
        ),
        Protocol(
            "verification",
            "verification",
            "answer 0.5 = non-answer (c@1, F0.5u); Platt band around 0.5",
            BY_AUTHOR,
        ),
        Protocol(
            "attribution",
            "attribution",
            "accuracy: 1/t when the gold author is among t candidates tied at the top; "
            "macro-F1: a top tie goes to the first name",
            BY_TEXT_AUTHOR,
        ),
        Protocol("author-clustering", "attribution", "none: K-means (MiniBatchKMeans, seed 42, mteb)", BY_TEXT),
        Protocol(
            "quote-retrieval",
            "quotes",
            "expected value under a random order within ties (exact); optimistic / pessimistic bounds beside it",
            BY_QUERY,
        ),
        Protocol(
            "ir-triplets",
            "ir-triplets",
            "strict >: a tie counts as an error (d(p1,p2) >= d(p1,p3))",
            Resampling("triplet", "IR query"),
        ),
    )
}

#: the resampling of results whose task class is not registered here, by family (retrieval and quotes:
#: queries; verification: authors; IR triplets: IR queries; author: queries for a ranking result,
#: anchor authors for triplets -- :func:`resampling_of`)
FAMILY_RESAMPLING: dict[str, Resampling] = {
    "retrieval": BY_QUERY,
    "quotes": BY_QUERY,
    "verification": BY_AUTHOR,
    "ir-triplets": Resampling("triplet", "IR query"),
    "author": BY_ANCHOR_AUTHOR,
    "attribution": BY_TEXT_AUTHOR,
    "other": Resampling("item", "item"),
}

#: scores where a lower value is better (error rates incl. the equal error rate, Brier scores, log losses, ranks,
#: non-answers)
LOWER_IS_BETTER = re.compile(r"(^|_)(error_rate|brier|median_rank|mean_rank|n_unanswered|eer|log_loss)$")


def protocol_of(cls: type) -> Protocol | None:
    """The :class:`Protocol` of a task class (its ``protocol`` attribute); None for tasks that are not ours."""
    return PROTOCOLS.get(getattr(cls, "protocol", None) or "")


def family_of(cls: type) -> str:
    """The family of a task class: its protocol's, else ``retrieval`` for any other retrieval task, else ``other``."""
    p = protocol_of(cls)
    if p is not None:
        return p.family
    return "retrieval" if getattr(getattr(cls, "metadata", None), "type", None) == "Retrieval" else "other"


def family_of_scores(task: str, task_type: str | None, scores: dict[str, Any]) -> str:
    """The family of a stored result whose task class is not registered here, from its score keys.

    attribution: ``macro_f1`` with ``n_candidates``, or ``v_measure`` with ``random_v_measure_author_sizes``;
    verification: ``pan_*`` keys; ir-triplets: ``error_rate``; author: ``accuracy_cross_document``
    (triplets; ``accuracy_unrestricted`` in older results) or ``pool_candidates_raw`` (retrieval pool
    built from triplets); quotes: ``gold_ranks_exact`` / ``mrr_tie_expected``; retrieval: any other
    ``ndcg_at_10``.
    """
    keys = set(scores)
    if {"macro_f1", "n_candidates"} <= keys or {"v_measure", "random_v_measure_author_sizes"} <= keys:
        return "attribution"
    if any(k.startswith("pan_") for k in keys):
        return "verification"
    if "error_rate" in keys:
        return "ir-triplets"
    if keys & {"accuracy_cross_document", "accuracy_unrestricted", "pool_candidates_raw"}:
        return "author"
    if keys & {"gold_ranks_exact", "mrr_tie_expected"} or task.startswith("QuoteR"):
        return "quotes"
    if task_type == "Retrieval" or "ndcg_at_10" in keys:
        return "retrieval"
    return "other"


def resampling_of(cls: type | None, family: str, scores: dict[str, Any] | None = None) -> Resampling:
    """What the intervals of a result resample: its protocol's :class:`Resampling`, else its family's
    (:data:`FAMILY_RESAMPLING`; an author-family ranking result, one with ``pool_size``, by query; an
    attribution-family clustering result, one with ``v_measure``, by text)."""
    p = protocol_of(cls) if cls is not None else None
    if p is not None:
        return p.resampling
    if family == "author" and scores is not None and ("pool_size" in scores or "ndcg_at_10" in scores):
        return BY_QUERY
    if family == "attribution" and scores is not None and "v_measure" in scores:
        return BY_TEXT  # a clustering result: its texts
    return FAMILY_RESAMPLING.get(family, FAMILY_RESAMPLING["other"])


def family_label(name: str) -> str:
    """The task table's and benchmark name's word for family ``name`` (``author`` -> ``authorship``)."""
    return FAMILIES[name].label if name in FAMILIES else name


def higher_is_better(score_name: str) -> bool:
    """False for error rates, Brier scores, log losses, ranks and non-answer counts (:data:`LOWER_IS_BETTER`)."""
    return not LOWER_IS_BETTER.search(score_name)
