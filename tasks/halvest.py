"""HALvest-Contrastive tasks (Kulumba et al., arXiv 2407.20595). Declarative: metadata + protocol + loader.

Triplet classification and retrieval read the triplet release ``Madjakul/HALvest-Contrastive`` (what
the authors' evaluation loads), pair classification the pairs release ``almanach/HALvest-Contrastive``
(the only one with pair labels); see :mod:`mteb_contrastive.data.halvest`.
"""

from __future__ import annotations

from mteb.abstasks.task_metadata import TaskMetadata

from mteb_contrastive.protocols.author_retrieval import AbsTaskAuthorRetrieval
from mteb_contrastive.protocols.pair_classification import AbsTaskAuthorPairClassification
from mteb_contrastive.protocols.triplet_classification import AbsTaskTripletClassification
from mteb_contrastive.sources.halvest import PAIR_RELEASE, TRIPLET_RELEASE, HALvestHubSource, Release

_CITATION = r"""
@misc{kulumba2024halvest,
  archiveprefix = {arXiv},
  author = {Kulumba, Francis and Antoun, Wissam and Vimont, Guillaume and Romary, Laurent},
  eprint = {2407.20595},
  title = {Harvesting Textual and Structured Data from the HAL Publication Repository},
  year = {2024},
}
"""


def _common(release: Release) -> dict:
    """The metadata shared by the HALvest tasks reading ``release``: its repository, its revision (the
    pinned commit, or ``main`` for the triplet release: each instance records the commit it loads) and
    its configs as subsets (k sentences per span)."""
    return dict(
        dataset={"path": release.repo, "revision": release.revision or "main"},
        reference="https://arxiv.org/abs/2407.20595",
        category="t2t",
        modalities=["text"],
        eval_splits=["test"],
        eval_langs={cfg: ["eng-Latn", "fra-Latn"] for cfg in release.configs},
        date=("2000-01-01", "2024-07-31"),
        domains=["Academic", "Written"],
        license="not specified",
        annotations_creators="derived",
        dialect=[],
        sample_creation="found",
        bibtex_citation=_CITATION,
    )


class HALvestTripletClassification(HALvestHubSource, AbsTaskTripletClassification):
    benchmark = "HALvest-Contrastive"
    release = TRIPLET_RELEASE
    metadata = TaskMetadata(
        name="HALvestTripletClassification",
        description=(
            "Authorial style in scholarly text (HAL): is a span of k sentences closer to a span by the "
            "same authors than to a span by other authors? Triplet release (the authors' evaluation data). "
            "Accuracy, strict >, on all triplets (the paper's unrestricted rows); accuracy_cross_document on "
            "triplets whose positive is from another document (the paper's base rows). On the pairs release, "
            "only rows sharing a query span form triplets, scored only when half the positive rows join."
        ),
        type="PairClassification",
        main_score="accuracy",
        **_common(TRIPLET_RELEASE),
    )


class HALvestRetrieval(HALvestHubSource, AbsTaskAuthorRetrieval):
    benchmark = "HALvest-Contrastive"
    release = TRIPLET_RELEASE
    metadata = TaskMetadata(
        name="HALvestRetrieval",
        description=(
            "Author retrieval in scholarly text (HAL): for each test query span, rank the pool of the "
            "split's candidate spans (every positive and negative); relevant = same author set (triplet "
            "release, the authors' evaluation data) or the config's positive rule (pairs release: first "
            "author for base-k, any author for base-soft-k, same document for ict-k). nDCG@10, with "
            "chance levels and cross-document metrics."
        ),
        type="Retrieval",
        main_score="ndcg_at_10",
        **_common(TRIPLET_RELEASE),
    )


class HALvestPairClassification(HALvestHubSource, AbsTaskAuthorPairClassification):
    benchmark = "HALvest-Contrastive-pairs"
    release = PAIR_RELEASE
    metadata = TaskMetadata(
        name="HALvestPairClassification",
        description=(
            "Do two spans of scholarly text (HAL) share an author (author_label of the pairs release)? "
            "Average precision of the similarity; accuracy and F1 at thresholds fitted on the valid split."
        ),
        type="PairClassification",
        main_score="average_precision",
        **_common(PAIR_RELEASE),
    )
