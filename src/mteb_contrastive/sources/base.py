"""The data-source interface every task of the project answers (see the package docstring)."""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple


class Missing(NamedTuple):
    """Why a task's data is not here, said twice from one check: ``reason`` for a listing that
    already names the benchmark (``skip <name>: <reason>``), ``message`` for a user who asked for
    the task (one line that names the task and what to set)."""

    reason: str
    message: str


class DataSource:
    """Mixin before a protocol class: where the task's data is.

    Class attribute ``benchmark``: the name of the benchmark the task belongs to in
    ``mteb-contrastive evaluate`` (tasks of one data source run and are reported together); None:
    the task's own name.
    """

    benchmark: ClassVar[str | None] = None
    metadata: Any

    @classmethod
    def missing(cls, *, hub_reachable: bool | None = None) -> Missing | None:
        """None when the data can be loaded here; else why not (:class:`Missing`).

        Path and environment checks only: no data is read and no network call made
        (``hub_reachable``: what the caller found, for data on the HuggingFace Hub; None: unknown,
        only ``HF_HUB_OFFLINE=1`` says it is not).
        """
        return None

    @classmethod
    def data_missing(cls) -> str | None:
        """None when the data can be loaded here; else one line naming the task and what to set."""
        m = cls.missing()
        return None if m is None else m.message

    @classmethod
    def source_kind(cls) -> str:
        """Where the data comes from, in the words of the task table (Markdown)."""
        return "a folder you build (`mteb-contrastive build-*`)"

    @classmethod
    def source_location(cls) -> str:
        """The concrete place the data is read from here (a path, a repository, a variable)."""
        return str(cls.metadata.dataset.get("path", ""))

    @classmethod
    def benchmark_name(cls) -> str:
        """:attr:`benchmark`, else the task's name."""
        return cls.benchmark or cls.metadata.name
