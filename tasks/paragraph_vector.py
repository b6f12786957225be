"""Paragraph Vector IR triplets (Le & Mikolov 2014, section 3.3) on Cranfield 1400.

Data: the BEIR-layout Cranfield folder named by ``MTEB_CONTRASTIVE_CRANFIELD``, else
``<shared>/ir/cranfield`` (``<shared>`` = ``MTEB_CONTRASTIVE_SHARED`` or the ``shared/data`` folder
beside the repository). On first load the triplets are built (graded gains of
``qrels/test_gain.tsv``, minimum gain 1, seed 0, at most 50 triplets per query, split by query
80/10/10, negative = a document relevant to another query) into a cache folder,
``MTEB_CONTRASTIVE_CACHE`` (default ``~/.cache/mteb_contrastive``) ``/ir_triplets/<name>-<key>``,
where the key hashes the source files and the parameters; later loads read that folder.
Evaluated split: ``test``; trained baselines train on the ``train`` split's texts.

Any other collection: ``mteb-contrastive build-ir-triplets`` writes a folder; put it (or its parent)
in ``MTEB_CONTRASTIVE_DATASETS`` and it becomes the task ``<name>IRTriplets``
(:func:`mteb_contrastive.catalog.folder_task_classes`).

Building on first load and the revision: :class:`mteb_contrastive.sources.cranfield.IRTripletsBuiltOnFirstLoad`.
"""

from __future__ import annotations

from mteb.abstasks.task_metadata import TaskMetadata

from mteb_contrastive.protocols.ir_triplets import AbsTaskIRTriplets
from mteb_contrastive.sources.cranfield import BUILDER_VERSION, DEFAULT_MAX_PER_QUERY, IRTripletsBuiltOnFirstLoad

#: the triplet rule of the paper's protocol (section 3.3), part of the revision
BUILD_PARAMS = dict(seed=0, min_grade=1, max_per_query=DEFAULT_MAX_PER_QUERY, negative="other-query")

_LE_MIKOLOV = r"""
@inproceedings{le2014distributed,
  author = {Le, Quoc and Mikolov, Tomas},
  booktitle = {Proceedings of the 31st International Conference on Machine Learning},
  pages = {1188--1196},
  title = {Distributed Representations of Sentences and Documents},
  year = {2014},
}
"""


class CranfieldIRTriplets(IRTripletsBuiltOnFirstLoad, AbsTaskIRTriplets):
    build_params = BUILD_PARAMS
    metadata = TaskMetadata(
        name="CranfieldIRTriplets",
        description=(
            "Paragraph Vector IR triplets (Le & Mikolov 2014, section 3.3) on Cranfield 1400 aeronautics abstracts: "
            "p1, p2 relevant to the same query (gain >= 1), p3 relevant to another query; error when "
            "d(p1,p2) >= d(p1,p3) under the model's similarity (cosine for neural models). Accuracy (main score) "
            "and error_rate = 100 * (1 - accuracy). Queries split 80/10/10 (seed 0); test split evaluated."
        ),
        reference="https://proceedings.mlr.press/v32/le14.html",
        dataset={"path": "local:cranfield-ir-triplets", "revision": f"builder-{BUILDER_VERSION}"},
        type="PairClassification",
        category="t2t",
        modalities=["text"],
        eval_splits=["test"],
        eval_langs=["eng-Latn"],
        main_score="accuracy",
        date=("1960-01-01", "1967-12-31"),
        domains=["Academic", "Written"],
        license="not specified",
        annotations_creators="expert-annotated",
        dialect=[],
        sample_creation="found",
        bibtex_citation=_LE_MIKOLOV,
    )
