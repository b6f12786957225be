"""Quiet third-party libraries during ``mteb-contrastive evaluate`` (tqdm bars stay; DEBUG/INFO lines go).

Without it, an evaluation printed library log lines between the progress bars: bm25s sets its
logger to DEBUG when imported (``Building index from IDs objects`` for every BM25 index), jieba
logs its dictionary loading, and any process that configures logging at INFO gets the INFO lines
of sentence-transformers, transformers, datasets, huggingface_hub and httpx.

:func:`quiet_libraries` sets those top-level loggers (:data:`LIBRARY_LOGGERS`) to WARNING (their
child loggers inherit it unless they set a level of their own) and adds to each a filter that drops
the records below WARNING logged on it, which also holds when a library resets that logger's level
later (bm25s and jieba do, at import, and log on their top-level logger). Warnings and errors still print. ``evaluate``
calls it in its own process and sets :data:`QUIET_ENV` for each ``mteb run`` it starts, whose start-up hook
(:func:`mteb_contrastive.plugin.registration.register`) calls :func:`quiet_if_asked`.
``mteb-contrastive evaluate --verbose`` does neither. :func:`apply_environment` sets the variables
of the processes ``evaluate`` (and ``mteb-contrastive run``) start and applies, in their own process,
``HF_DATASETS_DISABLE_PROGRESS_BARS`` (``datasets`` reads it only when imported).
"""

from __future__ import annotations

import logging
import os

from mteb_contrastive import config

#: set to "1" in the environment of a process whose library loggers should be quiet
QUIET_ENV = config.QUIET_ENV

#: loggers that print DEBUG/INFO walls during an evaluation (names of the libraries' top loggers)
LIBRARY_LOGGERS = (
    "bm25s",
    "jieba",
    "sentence_transformers",
    "transformers",
    "datasets",
    "huggingface_hub",
    "httpx",
    "urllib3",
    "filelock",
    "faiss",
    "gensim",
    "matplotlib",
    "numexpr",
    "torch",
)


def _at_least_warning(record: logging.LogRecord) -> bool:
    return record.levelno >= logging.WARNING


def quiet_libraries(names: tuple[str, ...] = LIBRARY_LOGGERS) -> None:
    """Set each logger in ``names`` to WARNING and drop its records below WARNING (idempotent)."""
    for name in names:
        logger = logging.getLogger(name)
        logger.setLevel(logging.WARNING)
        if _at_least_warning not in logger.filters:
            logger.addFilter(_at_least_warning)


def quiet_if_asked() -> None:
    """:func:`quiet_libraries` when :data:`QUIET_ENV` is ``"1"`` in the environment."""
    if os.environ.get(QUIET_ENV) == "1":
        quiet_libraries()


def apply_environment(updates: dict[str, str]) -> None:
    """Set ``updates`` in ``os.environ`` (inherited by the processes started afterwards) and apply,
    in this process, what a library read when it was imported: ``HF_DATASETS_DISABLE_PROGRESS_BARS=1``
    turns off ``datasets``' bars (``Creating parquet from Arrow format``, ...) for work done here."""
    os.environ.update(updates)
    if os.environ.get("HF_DATASETS_DISABLE_PROGRESS_BARS") == "1":
        import datasets

        datasets.disable_progress_bars()
