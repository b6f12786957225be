"""QuoteR line files: the official thunlp/QuoteR files and the shared files in the same format.

* Official files (``english.txt``, ``modern_chinese.txt``, ``ancient_chinese.txt`` of thunlp/QuoteR,
  not on the Hub): in the folder named by ``MTEB_CONTRASTIVE_QUOTER_OFFICIAL``.
* Shared files (``zh_idiom.txt``, ``en_kjv_in_novels.txt``, ``en_gcide.txt``): in
  ``MTEB_CONTRASTIVE_QUOTER_DATA`` when set, else ``<shared>/quoter``
  (:func:`mteb_contrastive.config.shared_data_dir`).
"""

from __future__ import annotations

import abc
from pathlib import Path
from typing import ClassVar

from mteb_contrastive import config
from mteb_contrastive.data.quoter import OFFICIAL_FILES
from mteb_contrastive.sources.base import DataSource, Missing

__all__ = ["OFFICIAL_FILES", "QuoteRFile", "QuoteROfficialFiles", "QuoteRSharedFiles"]


class QuoteRFile(DataSource):
    """A task whose data is one QuoteR line file ``quoter_file`` in :meth:`data_dir`."""

    quoter_file: ClassVar[str] = ""

    @classmethod
    @abc.abstractmethod
    def data_dir(cls) -> Path:
        """The folder of ``quoter_file``; each kind of QuoteR source says where."""

    @classmethod
    def data_file(cls) -> Path:
        return cls.data_dir() / cls.quoter_file

    @classmethod
    def missing(cls, *, hub_reachable: bool | None = None) -> Missing | None:
        path = cls.data_file()
        return (
            None
            if path.is_file()
            else Missing(f"{path} not found", f"{cls.metadata.name}: QuoteR file not found: {path}")
        )

    @classmethod
    def source_location(cls) -> str:
        return str(cls.data_file())


class QuoteROfficialFiles(QuoteRFile):
    """Mixin (before ``AbsTaskQuoteRetrieval``): the official thunlp/QuoteR file ``quoter_file``
    from ``$MTEB_CONTRASTIVE_QUOTER_OFFICIAL`` (not on the Hub)."""

    @classmethod
    def data_dir(cls) -> Path:
        return config.env_folder(config.QUOTER_OFFICIAL_ENV) or Path(f"${config.QUOTER_OFFICIAL_ENV}")

    @classmethod
    def missing(cls, *, hub_reachable: bool | None = None) -> Missing | None:
        path = cls.data_file()
        if path.is_file():
            return None
        env = config.QUOTER_OFFICIAL_ENV
        folder = config.env_folder(env)
        if folder is None:
            return Missing(
                f"{env} unset (the official QuoteR files are on https://github.com/thunlp/QuoteR, not the Hub)",
                f"{cls.metadata.name}: the official QuoteR files are not on the HuggingFace Hub; clone "
                f"https://github.com/thunlp/QuoteR (or download {cls.quoter_file}) "
                f"and set {env} to the folder holding {cls.quoter_file}",
            )
        return Missing(
            f"{path} not found ({env}={config.env(env)})",
            f"{cls.metadata.name}: {path} not found ({env}={folder}); it should hold {cls.quoter_file}",
        )

    @classmethod
    def source_kind(cls) -> str:
        return f"official file `{cls.quoter_file}`, `${config.QUOTER_OFFICIAL_ENV}`"


class QuoteRSharedFiles(QuoteRFile):
    """Mixin (before ``AbsTaskQuoteRetrieval``): the shared file ``quoter_file`` from
    ``$MTEB_CONTRASTIVE_QUOTER_DATA``, else ``<shared>/quoter``."""

    @classmethod
    def data_dir(cls) -> Path:
        return config.env_folder(config.QUOTER_SHARED_ENV) or config.shared_data_dir() / "quoter"

    @classmethod
    def missing(cls, *, hub_reachable: bool | None = None) -> Missing | None:
        path = cls.data_file()
        if path.is_file():
            return None
        return Missing(
            f"{path} not found (set {config.QUOTER_SHARED_ENV} or {config.SHARED_ENV})",
            f"{cls.metadata.name}: {path} not found; set {config.QUOTER_SHARED_ENV} to the folder holding "
            f"{cls.quoter_file} (or {config.SHARED_ENV} to the shared data folder)",
        )

    @classmethod
    def source_kind(cls) -> str:
        return f"shared data `quoter/{cls.quoter_file}`"
