"""Quiet third-party libraries during ``mteb-contrastive evaluate``: one progress bar per phase, no
DEBUG/INFO lines (``--verbose`` / ``-v`` keeps everything).

Without it, an evaluation printed library log lines between the progress bars: bm25s sets its
logger to DEBUG when imported (``Building index from IDs objects`` for every BM25 index), jieba
logs its dictionary loading, and any process that configures logging at INFO gets the INFO lines
of sentence-transformers, transformers, datasets, huggingface_hub and httpx. And it printed the
libraries' own progress bars inside the phases: bm25s opens ``Split strings`` and ``Stem Tokens``
for every tokenisation (33 pairs in one ``make run``), transformers ``Loading weights``.

* :func:`quiet_libraries` sets those top-level loggers (:data:`LIBRARY_LOGGERS`) to WARNING (their
  child loggers inherit it unless they set a level of their own) and adds to each a filter that
  drops the records below WARNING logged on it, which also holds when a library resets that
  logger's level later (bm25s and jieba do, at import, and log on their top-level logger).
  Warnings and errors still print.
* :func:`quiet_progress_bars` writes the phase bars as plain periodic lines when their stream is not a
  terminal (:class:`mteb_contrastive.data.progress.PlainLines`: mteb's own ``Evaluating task`` bar in a
  log file is then a few whole lines, not a hundred carriage-return frames), and turns off every ``tqdm`` bar
  opened by code outside
  :data:`PHASE_BARS` -- the modules whose bars are the phases of a run: mteb's task loop
  (``mteb.evaluate``: ``Evaluating task <name>``), the encoding layer's ``texts encoded``
  (:class:`~mteb_contrastive.encoding.wrapper.EncodingModel`) and ``evaluate``'s ``building
  benchmarks``. A library that passes ``disable=False`` itself (bm25s does) is turned off too: the
  bar is judged by the module that opens it, not by its arguments.

``evaluate`` calls :func:`quiet` in its own process and sets :data:`QUIET_ENV` for each ``mteb run``
it starts, whose start-up hook (:func:`mteb_contrastive.plugin.registration.register`) calls
:func:`quiet_if_asked`. ``mteb-contrastive evaluate --verbose`` does neither. :func:`apply_environment`
sets the variables of the processes ``evaluate`` (and ``mteb-contrastive run``) start and applies, in
their own process, ``HF_DATASETS_DISABLE_PROGRESS_BARS`` (``datasets`` reads it only when imported).
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

from mteb_contrastive import config
from mteb_contrastive.data.progress import PlainLines, is_terminal

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


#: modules whose tqdm bars are the phases of a run (kept by :func:`quiet_progress_bars`)
PHASE_BARS = ("mteb.evaluate", "mteb_contrastive")

_MARK = "_mteb_contrastive_quiet"


def _opened_by(frame: Any) -> str:
    """The module that opened a bar: the first caller outside ``tqdm`` itself."""
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if name != "tqdm" and not name.startswith("tqdm."):
            return name
        frame = frame.f_back
    return ""


def is_phase_bar(module: str) -> bool:
    """True when a bar opened by ``module`` is a phase bar (:data:`PHASE_BARS`), e.g.
    ``mteb.evaluate`` and ``mteb_contrastive.encoding.wrapper``; False for ``bm25s.tokenization``."""
    return any(module == p or module.startswith(p + ".") for p in PHASE_BARS)


def quiet_progress_bars() -> bool:
    """Turn off the tqdm bars that code outside :data:`PHASE_BARS` opens (idempotent).

    Returns:
        True when installed now, False when already installed.
    """
    import tqdm.std

    original = tqdm.std.tqdm.__init__
    if getattr(original, _MARK, False):
        return False

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if not is_phase_bar(_opened_by(sys._getframe(1))):
            kwargs["disable"] = True
        elif not kwargs.get("disable") and not isinstance(self, PlainLines) and not is_terminal(kwargs.get("file")):
            # a phase bar of mteb's (`Evaluating task ...`) into a log: whole periodic lines, not \r frames
            PlainLines.get_lock()  # tqdm's __new__ made the lock of the class it was called for
            self.__class__ = PlainLines
            PlainLines.__init__(self, *args, **kwargs)
            return
        original(self, *args, **kwargs)

    setattr(__init__, _MARK, True)
    __init__.__wrapped__ = original  # type: ignore[attr-defined]
    tqdm.std.tqdm.__init__ = __init__
    return True


def quiet() -> None:
    """:func:`quiet_libraries` and :func:`quiet_progress_bars`."""
    quiet_libraries()
    quiet_progress_bars()


def quiet_if_asked() -> None:
    """:func:`quiet` when :data:`QUIET_ENV` is ``"1"`` in the environment."""
    if os.environ.get(QUIET_ENV) == "1":
        quiet()


def apply_environment(updates: dict[str, str]) -> None:
    """Set ``updates`` in ``os.environ`` (inherited by the processes started afterwards) and apply,
    in this process, what a library read when it was imported: ``HF_DATASETS_DISABLE_PROGRESS_BARS=1``
    turns off ``datasets``' bars (``Creating parquet from Arrow format``, ...) for work done here."""
    os.environ.update(updates)
    if os.environ.get("HF_DATASETS_DISABLE_PROGRESS_BARS") == "1":
        import datasets

        datasets.disable_progress_bars()
