"""Tasks made from local dataset folders built by ``mteb-contrastive build-triplets``.

Set ``MTEB_CONTRASTIVE_DATASETS`` to one or more folders (separated by ``os.pathsep``, ``:`` on
Linux); each is either a dataset folder (it holds ``mteb_contrastive.json``) or a folder of
such folders. A dataset named ``N`` becomes two tasks, ``NAuthorRetrieval`` and
``NAuthorTripletClassification``, with one subset per config (``base-<k>``); an IR-triplet folder
(``mteb-contrastive build-ir-triplets``) named ``N`` becomes ``NIRTriplets``. A QuoteR folder
(``mteb-contrastive build-quoter``) named ``N`` becomes ``NQuoteRRetrieval``. A folder that
cannot be read is skipped with a warning; it never stops mteb from starting.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from mteb.abstasks.task_metadata import TaskMetadata

from mteb_contrastive.data.halvest import load_triplets
from mteb_contrastive.data.halvest_builder import KIND
from mteb_contrastive.protocols.author_retrieval import AbsTaskAuthorRetrieval
from mteb_contrastive.protocols.triplet_classification import AbsTaskTripletClassification

logger = logging.getLogger(__name__)

DATASETS_ENV = "MTEB_CONTRASTIVE_DATASETS"


def dataset_folders(value: str | None = None, env: str = DATASETS_ENV) -> list[Path]:
    """Built dataset folders named by the environment variable ``env`` (or ``value``), sorted by path.

    Each ``os.pathsep``-separated entry is a folder holding ``mteb_contrastive.json`` or a folder of such folders.
    """
    value = os.environ.get(env, "") if value is None else value
    found = []
    for part in filter(None, value.split(os.pathsep)):
        p = Path(part).expanduser()
        if (p / "mteb_contrastive.json").is_file():
            found.append(p)
        elif p.is_dir():
            found.extend(sorted(c for c in p.iterdir() if (c / "mteb_contrastive.json").is_file()))
        else:
            logger.warning("%s=%s: %s is not a folder", env, value, p)
    return found


def _load(self, hf_subset: str, split: str):
    return load_triplets(self.metadata.dataset["path"], hf_subset, split)


def _revision(folder: Path, info: dict) -> str:
    """The builder's content fingerprint ``build_id``; for a folder without one, a fingerprint of its files."""
    if info.get("build_id"):
        return info["build_id"]
    from mteb_contrastive.identity import folder_revision

    return "content-" + folder_revision(folder, patterns=("**/*.parquet",))


def tasks_for_folder(folder: Path) -> list[type]:
    """The retrieval and triplet task classes for one built dataset folder."""
    from mteb_contrastive.data.errors import read_json

    info = read_json(folder / "mteb_contrastive.json")
    if info.get("kind") == "ir-triplets":  # built by `mteb-contrastive build-ir-triplets`
        from mteb_contrastive.tasks.paragraph_vector import ir_task_for_folder

        return [ir_task_for_folder(folder)]
    if info.get("kind") == "quoter":  # built by `mteb-contrastive build-quoter`
        from mteb_contrastive.tasks.quoter import quoter_task_for_folder

        return [quoter_task_for_folder(folder)]
    if info.get("kind") != KIND:
        raise ValueError(f"{folder}: unknown dataset kind {info.get('kind')!r}")
    name = info["name"]
    common = dict(
        dataset={"path": str(folder.resolve()), "revision": _revision(folder, info)},
        reference=None,
        category="t2t",
        modalities=["text"],
        eval_splits=info.get("splits", ["test"]),
        eval_langs={cfg: list(info.get("languages") or [info["language"]]) for cfg in info["configs"]},
        domains=["Written"],
        license="not specified",
        annotations_creators="derived",
        dialect=[],
        sample_creation="found",
        bibtex_citation="",
    )
    desc = info.get("description") or f"Author triplets built from {info.get('source', folder)}"
    retrieval = type(
        f"{name}AuthorRetrieval",
        (AbsTaskAuthorRetrieval,),
        {
            "metadata": TaskMetadata(name=f"{name}AuthorRetrieval", description=f"{desc} -- author retrieval (HALvest protocol), nDCG@10.", type="Retrieval", main_score="ndcg_at_10", **common),
            "load_triplets": _load,
            "__module__": __name__,
        },
    )
    triplets = type(
        f"{name}AuthorTripletClassification",
        (AbsTaskTripletClassification,),
        {
            "metadata": TaskMetadata(name=f"{name}AuthorTripletClassification", description=f"{desc} -- triplet accuracy (HALvest protocol, strict >, all rows; accuracy_cross_document: positive from another document).", type="PairClassification", main_score="accuracy", **common),
            "load_triplets": _load,
            "__module__": __name__,
        },
    )
    return [retrieval, triplets]


def local_task_classes() -> list[type]:
    """Task classes for every folder in ``MTEB_CONTRASTIVE_DATASETS``."""
    out = []
    for folder in dataset_folders():
        try:
            out.extend(tasks_for_folder(folder))
        except Exception as exc:  # a broken folder must not stop mteb
            logger.warning("skipping dataset folder %s: %s", folder, exc)
    return out
