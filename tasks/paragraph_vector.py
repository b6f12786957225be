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
(:func:`ir_task_for_folder`).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from mteb.abstasks.task_metadata import TaskMetadata

from mteb_contrastive.data.ir_triplets import DEFAULT_MAX_PER_QUERY
from mteb_contrastive.protocols.ir_triplets import AbsTaskIRTriplets

logger = logging.getLogger(__name__)

CRANFIELD_ENV = "MTEB_CONTRASTIVE_CRANFIELD"
CACHE_ENV = "MTEB_CONTRASTIVE_CACHE"
BUILD_PARAMS = dict(seed=0, min_grade=1, max_per_query=DEFAULT_MAX_PER_QUERY, negative="other-query")
BUILDER_VERSION = "2"

_LE_MIKOLOV = r"""
@inproceedings{le2014distributed,
  author = {Le, Quoc and Mikolov, Tomas},
  booktitle = {Proceedings of the 31st International Conference on Machine Learning},
  pages = {1188--1196},
  title = {Distributed Representations of Sentences and Documents},
  year = {2014},
}
"""


def cranfield_source() -> Path:
    """The Cranfield BEIR folder (see the module docstring)."""
    env = os.environ.get(CRANFIELD_ENV)
    if env:
        return Path(env).expanduser()
    from mteb_contrastive.paths import shared_data_dir

    return shared_data_dir() / "ir" / "cranfield"


def cache_root() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "mteb_contrastive").expanduser() / "ir_triplets"


def source_key(source: Path, params: dict[str, Any]) -> str:
    """Content key of a build: the builder version, the parameters and the bytes of the source files."""
    from mteb_contrastive.identity import file_digest, fingerprint

    files = [(rel, file_digest(source / rel)) for rel in ("corpus.jsonl", "queries.jsonl", "qrels/test_gain.tsv", "qrels/test.tsv") if (source / rel).is_file()]
    return fingerprint(BUILDER_VERSION, params, files, length=12)


def built_folder(name: str, source: Path, params: dict[str, Any]) -> Path:
    """The built IR-triplet folder for ``source``; built (atomically) when absent."""
    from mteb_contrastive.data.ir_triplets import build_ir_triplets, read_beir_folder

    folder = cache_root() / f"{name}-{source_key(source, params)}"
    if not (folder / "mteb_contrastive.json").is_file():
        corpus, queries, qrels = read_beir_folder(source)
        logger.info("building %s from %s into %s", name, source, folder)
        build_ir_triplets(corpus, qrels, folder.parent, folder.name, queries=queries, source=str(source),
                          description=f"{name}: Paragraph Vector IR triplets from {source}", **params)
    return folder


class CranfieldIRTriplets(AbsTaskIRTriplets):
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

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # the revision is the content: builder version + parameters + source bytes (not a constant)
        source = cranfield_source()
        if (source / "corpus.jsonl").is_file():
            rev = f"builder-{BUILDER_VERSION}-{source_key(source, BUILD_PARAMS)}"
            self.metadata = self.metadata.model_copy(update={"dataset": {**self.metadata.dataset, "revision": rev}})

    def _folder(self) -> Path:
        if getattr(self, "_built", None) is None:
            self._built = built_folder(self.metadata.name, cranfield_source(), BUILD_PARAMS)
        return self._built

    def load_triplets(self, hf_subset: str, split: str):
        from mteb_contrastive.data.ir_triplets import load_ir_triplets

        return load_ir_triplets(self._folder(), hf_subset, split)

    def load_train_rows(self, hf_subset: str):
        from mteb_contrastive.data.ir_triplets import load_ir_triplets

        return load_ir_triplets(self._folder(), hf_subset, "train")[0]


def ir_task_for_folder(folder: Path) -> type:
    """The ``<name>IRTriplets`` task class of a folder built by ``mteb-contrastive build-ir-triplets``."""
    import json

    from mteb_contrastive.data.ir_triplets import load_ir_triplets

    from mteb_contrastive.data.errors import read_json

    info = read_json(Path(folder) / "mteb_contrastive.json")
    name = f"{info['name']}IRTriplets"
    path = str(Path(folder).resolve())
    metadata = CranfieldIRTriplets.metadata.model_copy(update=dict(
        name=name,
        description=f"Paragraph Vector IR triplets (Le & Mikolov 2014, 3.3) built from {info.get('source') or folder}; "
                    "accuracy (main score) and error_rate = 100 * (1 - accuracy); test split evaluated.",
        dataset={"path": path, "revision": info["build_id"]},
        eval_langs=[info.get("language", "eng-Latn")],
        date=None,
        domains=None,
        annotations_creators="derived",
    ))
    return type(name, (AbsTaskIRTriplets,), {
        "metadata": metadata,
        "load_triplets": lambda self, hf_subset, split: load_ir_triplets(path, hf_subset, split),
        "load_train_rows": lambda self, hf_subset: load_ir_triplets(path, hf_subset, "train")[0],
        "__module__": __name__,
    })
