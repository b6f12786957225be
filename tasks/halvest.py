"""HALvest-Contrastive tasks (Kulumba et al., arXiv 2407.20595). Declarative: metadata + protocol + loader."""

from __future__ import annotations

from mteb.abstasks.task_metadata import TaskMetadata

import os
from pathlib import Path

from mteb_contrastive.data.halvest import HUB_CONFIGS, HUB_REPO, HUB_REVISION, LOCAL_COPY_ENV, load_triplets
from mteb_contrastive.protocols.author_retrieval import AbsTaskAuthorRetrieval
from mteb_contrastive.protocols.triplet_classification import AbsTaskTripletClassification

_CITATION = r"""
@misc{kulumba2024halvest,
  archiveprefix = {arXiv},
  author = {Kulumba, Francis and Antoun, Wissam and Vimont, Guillaume and Romary, Laurent},
  eprint = {2407.20595},
  title = {Harvesting Textual and Structured Data from the HAL Publication Repository},
  year = {2024},
}
"""

_COMMON = dict(
    dataset={"path": HUB_REPO, "revision": HUB_REVISION},
    reference="https://arxiv.org/abs/2407.20595",
    category="t2t",
    modalities=["text"],
    eval_splits=["test"],
    # subsets = k, the number of contiguous sentences per span
    eval_langs={cfg: ["eng-Latn", "fra-Latn"] for cfg in HUB_CONFIGS},
    date=("2000-01-01", "2024-07-31"),
    domains=["Academic", "Written"],
    license="not specified",
    annotations_creators="derived",
    dialect=[],
    sample_creation="found",
    bibtex_citation=_CITATION,
)


class _HALvestHubLoader:
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        # a local copy ($MTEB_CONTRASTIVE_HALVEST_PATH) is recorded by its content, not the Hub commit
        local = os.environ.get(LOCAL_COPY_ENV)
        if local and Path(local).expanduser().is_dir():
            from mteb_contrastive.identity import folder_revision

            rev = "content-" + folder_revision(Path(local).expanduser())
            self.metadata = self.metadata.model_copy(update={"dataset": {**self.metadata.dataset, "revision": rev}})

    def load_triplets(self, hf_subset: str, split: str):
        return load_triplets(self.metadata.dataset["path"], hf_subset, split, self.metadata.dataset["revision"])


class HALvestTripletClassification(_HALvestHubLoader, AbsTaskTripletClassification):
    metadata = TaskMetadata(
        name="HALvestTripletClassification",
        description=(
            "Authorial style in scholarly text (HAL): is a span of k sentences closer to a span by the "
            "same authors than to a span by other authors? Accuracy, strict >, on base triplets "
            "(positive from another document); accuracy_unrestricted on all triplets."
        ),
        type="PairClassification",
        main_score="accuracy",
        **_COMMON,
    )


class HALvestRetrieval(_HALvestHubLoader, AbsTaskAuthorRetrieval):
    metadata = TaskMetadata(
        name="HALvestRetrieval",
        description=(
            "Author retrieval in scholarly text (HAL): for each test anchor span, rank the pool of all "
            "positive and negative spans of the split; relevant = same author set. nDCG@10."
        ),
        type="Retrieval",
        main_score="ndcg_at_10",
        **_COMMON,
    )
