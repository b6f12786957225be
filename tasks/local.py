"""Tasks made from local dataset folders built by ``mteb-contrastive build-triplets``.

Set ``MTEB_CONTRASTIVE_DATASETS`` to one or more folders (separated by ``os.pathsep``, ``:`` on
Linux); each is either a dataset folder (it holds ``mteb_contrastive.json``) or a folder of
such folders. A dataset named ``N`` becomes two tasks, ``NAuthorRetrieval`` and
``NAuthorTripletClassification``, with one subset per config (``base-<k>``); an IR-triplet folder
(``mteb-contrastive build-ir-triplets``) named ``N`` becomes ``NIRTriplets``. A QuoteR folder
(``mteb-contrastive build-quoter``) named ``N`` becomes ``NQuoteRRetrieval``. A folder that
cannot be read is skipped with a warning; it never stops mteb from starting.

The classes are made per folder by :func:`mteb_contrastive.catalog.folder_task_classes` from the
declarations below (the folder adds name, dataset path and revision, splits and languages).
"""

from __future__ import annotations

from mteb_contrastive.protocols.author_retrieval import AbsTaskAuthorRetrieval
from mteb_contrastive.protocols.triplet_classification import AbsTaskTripletClassification

#: TaskMetadata fields shared by every task made from a built folder
METADATA = dict(
    reference=None,
    category="t2t",
    modalities=["text"],
    domains=["Written"],
    license="not specified",
    annotations_creators="derived",
    dialect=[],
    sample_creation="found",
    bibtex_citation="",
)

#: task name suffix -> (protocol, mteb task type, main score, what the description adds)
TASKS = {
    "AuthorRetrieval": (
        AbsTaskAuthorRetrieval,
        "Retrieval",
        "ndcg_at_10",
        "author retrieval (HALvest protocol), nDCG@10.",
    ),
    "AuthorTripletClassification": (
        AbsTaskTripletClassification,
        "PairClassification",
        "accuracy",
        "triplet accuracy (HALvest protocol, strict >, all rows; "
        "accuracy_cross_document: positive from another document).",
    ),
}
