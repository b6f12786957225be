"""Folders made by ``mteb-contrastive build-*`` (or by hand), named by environment variables.

Each folder holds ``mteb_contrastive.json`` (:data:`mteb_contrastive.layout.INFO_FILE`) whose
``kind`` says what it is: author triplets (``build-triplets``), IR triplets
(``build-ir-triplets``), a QuoteR file (``build-quoter``), attribution texts (``build-attribution``)
or PAN-format verification pairs
(``build-verification``, or a hand-made PAN folder with the fields of
:data:`mteb_contrastive.sources.pan.REQUIRED_FIELDS`). The catalog reads that file once per folder
(:func:`read_info`) and makes the folder's task classes with the mixins below.

Folders are named by ``MTEB_CONTRASTIVE_DATASETS`` (author triplets, IR triplets, QuoteR, attribution) and
``MTEB_CONTRASTIVE_VERIFICATION`` (verification): ``os.pathsep``-separated, each a dataset folder
or a folder of them (:func:`dataset_folders`).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, ClassVar

from mteb_contrastive import config
from mteb_contrastive.data.attribution_builder import load_texts
from mteb_contrastive.data.halvest import load_triplets
from mteb_contrastive.data.ir_triplets import load_ir_triplets
from mteb_contrastive.data.readers import read_json
from mteb_contrastive.layout import INFO_FILE, info_file, is_built_folder
from mteb_contrastive.sources.base import DataSource, Missing
from mteb_contrastive.sources.pan import REQUIRED_FIELDS
from mteb_contrastive.sources.quoter import QuoteRFile

logger = logging.getLogger(__name__)


def dataset_folders(value: str | None = None, env: str = config.DATASETS_ENV) -> list[Path]:
    """Built dataset folders named by the environment variable ``env`` (or ``value``), in order.

    Each ``os.pathsep``-separated entry is a folder holding ``mteb_contrastive.json`` or a folder of
    such folders (sorted by path); an entry that is not a folder is skipped with a warning.
    """
    raw = (config.env(env) or "") if value is None else value
    found = []
    for p in config.env_folders(env, raw):
        if is_built_folder(p):
            found.append(p)
        elif p.is_dir():
            found.extend(sorted(c for c in p.iterdir() if is_built_folder(c)))
        else:
            logger.warning("%s=%s: %s is not a folder", env, raw, p)
    return found


def verification_folders(value: str | None = None) -> list[Path]:
    """Built verification folders named by ``MTEB_CONTRASTIVE_VERIFICATION`` (or ``value``).

    A PAN-format folder (``<split>/pairs.jsonl``) without ``mteb_contrastive.json`` is skipped
    with one warning that says what to write there.
    """
    raw = (config.env(config.VERIFICATION_ENV) or "") if value is None else value
    for p in config.env_folders(config.VERIFICATION_ENV, raw):
        for c in [p] + (sorted(x for x in p.iterdir() if x.is_dir()) if p.is_dir() else []):
            if any(c.glob("*/pairs.jsonl")) and not is_built_folder(c):
                logger.warning(
                    "skipping verification folder %s: no %s; write one with {%s}",
                    c,
                    INFO_FILE,
                    ", ".join(REQUIRED_FIELDS.values()),
                )
    return dataset_folders(raw, env=config.VERIFICATION_ENV)


def read_info(folder: Path) -> dict[str, Any]:
    """The parsed ``mteb_contrastive.json`` of ``folder``.

    Raises:
        DataError: unreadable or not JSON (one line naming the file).
    """
    return read_json(info_file(folder))


class BuiltFolder(DataSource):
    """A task whose data is one built folder: ``folder`` (absolute) and its parsed ``info``.

    Its benchmark is the folder's ``name``; its data is missing only when the folder is gone.
    """

    folder: ClassVar[Path]
    info: ClassVar[dict[str, Any]]

    @classmethod
    def missing(cls, *, hub_reachable: bool | None = None) -> Missing | None:
        if is_built_folder(cls.folder):
            return None
        return Missing(
            f"{info_file(cls.folder)} not found",
            f"{cls.metadata.name}: {info_file(cls.folder)} not found (build the folder again)",
        )

    @classmethod
    def source_location(cls) -> str:
        return f"user folder {cls.folder}"

    @classmethod
    def benchmark_name(cls) -> str:
        return str(cls.info.get("name") or cls.metadata.name)


class AuthorTripletsFolder(BuiltFolder):
    """Author triplets (``build-triplets``): ``<folder>/<config>/<split>.parquet`` in the HALvest triplet schema."""

    def load_triplets(self, hf_subset: str, split: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        return load_triplets(str(self.folder), hf_subset, split)


class IRTripletsFolder(BuiltFolder):
    """Paragraph Vector IR triplets (``build-ir-triplets``)."""

    def load_triplets(self, hf_subset: str, split: str) -> Any:
        return load_ir_triplets(self.folder, hf_subset, split)

    def load_train_rows(self, hf_subset: str) -> Any:
        return load_ir_triplets(self.folder, hf_subset, "train")[0]


class QuoteRFolder(BuiltFolder, QuoteRFile):
    """A QuoteR file copied into a folder by ``build-quoter``, with its split rule."""

    @classmethod
    def data_dir(cls) -> Path:
        return cls.folder


class VerificationFolder(BuiltFolder):
    """PAN-format verification pairs (``build-verification`` or a hand-made PAN folder)."""

    def pan_folder(self) -> Path:
        return self.folder


class AttributionFolder(BuiltFolder):
    """Candidate authors' known texts and questioned texts (``build-attribution``); its benchmark is
    ``<name>Attribution`` (so a verification folder of the same corpus and name stays a benchmark of its own)."""

    def load_texts(self) -> list[dict[str, Any]]:
        return load_texts(self.folder)

    @classmethod
    def benchmark_name(cls) -> str:
        return f"{cls.info.get('name') or cls.metadata.name}Attribution"
