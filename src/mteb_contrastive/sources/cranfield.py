"""Paragraph Vector IR triplets built on first load from a BEIR-layout collection (Cranfield 1400).

The source is ``$MTEB_CONTRASTIVE_CRANFIELD``, else ``<shared>/ir/cranfield``
(:func:`mteb_contrastive.config.shared_data_dir`). The triplets are built once into
``<cache root>/ir_triplets/<name>-<key>/<name>`` (:func:`built_folder`), where the key fingerprints the
builder version, the build parameters and the bytes of the source files (:func:`source_key`);
later loads read that folder.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, ClassVar

from mteb_contrastive import config
from mteb_contrastive.data.ir_triplets import (
    DEFAULT_MAX_PER_QUERY,
    build_ir_triplets,
    load_ir_triplets,
    read_beir_folder,
)
from mteb_contrastive.identity import file_digest, fingerprint
from mteb_contrastive.layout import is_built_folder
from mteb_contrastive.sources.base import DataSource, Missing

__all__ = [
    "BUILDER_VERSION",
    "DEFAULT_MAX_PER_QUERY",
    "IRTripletsBuiltOnFirstLoad",
    "built_folder",
    "cranfield_source",
    "source_key",
]

logger = logging.getLogger(__name__)

#: version of the IR-triplet build on first load; part of every CranfieldIRTriplets revision
BUILDER_VERSION = "2"
#: the source files whose bytes make the build's key
_SOURCE_FILES = ("corpus.jsonl", "queries.jsonl", "qrels/test_gain.tsv", "qrels/test.tsv")


def cranfield_source() -> Path:
    """The Cranfield BEIR folder: ``$MTEB_CONTRASTIVE_CRANFIELD``, else ``<shared>/ir/cranfield``."""
    return config.env_folder(config.CRANFIELD_ENV) or config.shared_data_dir() / "ir" / "cranfield"


def cache_root() -> Path:
    """``<cache root>/ir_triplets`` (:func:`mteb_contrastive.config.cache_root`)."""
    return config.cache_root() / "ir_triplets"


def source_key(source: Path, params: dict[str, Any]) -> str:
    """Content key of a build: :data:`BUILDER_VERSION`, the parameters and the bytes of the source files."""
    files = [(rel, file_digest(source / rel)) for rel in _SOURCE_FILES if (source / rel).is_file()]
    return fingerprint(BUILDER_VERSION, params, files, length=12)


def built_folder(name: str, source: Path, params: dict[str, Any]) -> Path:
    """The built IR-triplet folder ``<cache_root>/<name>-<source_key>/<name>`` for ``source``;
    built (atomically) when absent. The key is a folder of its own so that the dataset keeps the
    builders' name rule (letters and digits) and the build is the builders' own, replaceable folder."""
    folder = cache_root() / f"{name}-{source_key(source, params)}" / name
    if not is_built_folder(folder):
        corpus, queries, qrels = read_beir_folder(source)
        logger.info("building %s from %s into %s", name, source, folder)
        build_ir_triplets(
            corpus,
            qrels,
            folder.parent,
            name,
            queries=queries,
            source=str(source),
            description=f"{name}: Paragraph Vector IR triplets from {source}",
            **params,
        )
    return folder


class IRTripletsBuiltOnFirstLoad(DataSource):
    """Mixin (before ``AbsTaskIRTriplets``): triplets built from :func:`cranfield_source` with
    ``build_params`` on first load (:func:`built_folder`), read from the cache afterwards.

    The instance's dataset revision is ``builder-<BUILDER_VERSION>-<source_key>`` when the source
    is present (the content, not a constant).
    """

    build_params: ClassVar[dict[str, Any]] = {}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        source = cranfield_source()
        if (source / "corpus.jsonl").is_file():
            rev = f"builder-{BUILDER_VERSION}-{source_key(source, self.build_params)}"
            self.metadata = self.metadata.model_copy(update={"dataset": {**self.metadata.dataset, "revision": rev}})

    @classmethod
    def missing(cls, *, hub_reachable: bool | None = None) -> Missing | None:
        """None when the source has ``corpus.jsonl``; else what to set."""
        src = cranfield_source()
        if (src / "corpus.jsonl").is_file():
            return None
        return Missing(
            f"{src}/corpus.jsonl not found (set {config.CRANFIELD_ENV} or {config.SHARED_ENV})",
            f"{cls.metadata.name}: {src} has no corpus.jsonl (set {config.CRANFIELD_ENV} "
            "to a BEIR-layout Cranfield folder, "
            f"or {config.SHARED_ENV} to the shared data folder)",
        )

    @classmethod
    def source_kind(cls) -> str:
        return "shared data `ir/cranfield/` (built on first load)"

    @classmethod
    def source_location(cls) -> str:
        return f"built on first load from {cranfield_source()}"

    def _folder(self) -> Path:
        if getattr(self, "_built", None) is None:
            self._built = built_folder(self.metadata.name, cranfield_source(), self.build_params)
        return self._built

    def load_triplets(self, hf_subset: str, split: str) -> Any:
        return load_ir_triplets(self._folder(), hf_subset, split)

    def load_train_rows(self, hf_subset: str) -> Any:
        return load_ir_triplets(self._folder(), hf_subset, "train")[0]
