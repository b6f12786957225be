"""The only module that touches mteb internals.

mteb 2.26 builds its task table (``mteb.get_tasks._TASKS_REGISTRY`` / ``TASK_LIST``) from its own
package and has no plugin entry point, and ``mteb.get_model`` refuses a local folder. This
module:

* adds every task class of :mod:`mteb_contrastive.tasks` (and the tasks made from local dataset
  folders, see :mod:`mteb_contrastive.tasks.local`) to mteb's task table, so that
  ``mteb run -t HALvestRetrieval`` and ``mteb.get_task("HALvestRetrieval")`` find them;
* lets ``mteb.get_model`` / ``mteb run -m ./path/to/model`` load a local sentence-transformers
  folder (a checkpoint before release), recorded as ``local/<folder name>`` with a revision
  derived from the folder's absolute path.

:func:`register` is idempotent; it is called by the start-up hook when mteb is imported and by
``import mteb_contrastive``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

_registered = False


def register() -> None:
    """Register the extension's tasks and the local-model loader with mteb (idempotent)."""
    global _registered
    if _registered:
        return
    _registered = True
    from mteb_contrastive.tasks import all_task_classes

    register_tasks(all_task_classes())
    _enable_local_model_folders()
    from mteb_contrastive.baselines import registered_model_metas

    register_models(registered_model_metas())
    from mteb_contrastive.search.rerank import registered_model_metas as rerank_model_metas

    register_models(rerank_model_metas())
    _list_only_configured_tasks()
    _register_benchmarks()
    _check_data_before_model_in_mteb_cli()


def register_tasks(task_classes: list[type]) -> None:
    """Add task classes to mteb's task table.

    Raises:
        ValueError: a class's name is already taken by a different mteb task.
    """
    import importlib

    get_tasks = importlib.import_module("mteb.get_tasks")  # the module, not mteb.get_tasks()

    new = []
    for cls in task_classes:
        name = cls.metadata.name
        existing = get_tasks._TASKS_REGISTRY.get(name)
        if existing is cls:
            continue
        if existing is not None and existing.__module__.startswith("mteb."):
            raise ValueError(f"task name {name!r} is already an mteb task ({existing.__module__})")
        get_tasks._TASKS_REGISTRY[name] = cls
        new.append(cls)
    if new:
        get_tasks.TASK_LIST = tuple(
            t for t in get_tasks.TASK_LIST if t.metadata.name not in {c.metadata.name for c in new}
        ) + tuple(new)


def register_models(metas: list[Any]) -> None:
    """Add ``ModelMeta`` objects (our baselines) to mteb's model registry."""
    from mteb.models.model_implementations import MODEL_REGISTRY

    for meta in metas:
        MODEL_REGISTRY.setdefault(meta.name, meta)


def local_model_meta(path: str | os.PathLike) -> Any:
    """A ``ModelMeta`` for a local sentence-transformers folder.

    The similarity function comes from the folder's ``config_sentence_transformers.json``
    (``similarity_fn_name``), cosine when absent, as sentence-transformers does.

    Raises:
        FileNotFoundError: ``path`` is not a folder with a ``modules.json`` or ``config.json``.
    """
    from mteb.models.model_meta import ModelMeta, ScoringFunction
    from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper

    folder = Path(path).expanduser().resolve()
    if not ((folder / "modules.json").is_file() or (folder / "config.json").is_file()):
        raise FileNotFoundError(
            f"{folder}: not a sentence-transformers model folder (no modules.json or config.json)"
        )
    sim = ScoringFunction.COSINE
    cfg_file = folder / "config_sentence_transformers.json"
    if cfg_file.is_file():
        name = json.loads(cfg_file.read_text()).get("similarity_fn_name")
        if name:
            sim = ScoringFunction.from_str(name)
    max_tokens = None
    sbert = folder / "sentence_bert_config.json"
    if sbert.is_file():
        max_tokens = json.loads(sbert.read_text()).get("max_seq_length")

    def loader(name: str, revision: str | None = None, **kwargs: Any) -> Any:
        return SentenceTransformerEncoderWrapper(str(folder), **kwargs)

    return ModelMeta.create_empty(
        overwrites=dict(
            loader=loader,
            name=f"local/{folder.name}",
            revision="local-" + hashlib.sha256(str(folder).encode()).hexdigest()[:12],
            reference=folder.as_uri(),
            similarity_fn_name=sim,
            max_tokens=max_tokens,
            framework=["Sentence Transformers", "PyTorch"],
            modalities=["text"],
            model_type=["dense"],
            open_weights=True,
        )
    )


def _enable_local_model_folders() -> None:
    """Make ``mteb.get_model_meta`` accept an existing local folder."""
    import importlib

    gmm = importlib.import_module("mteb.models.get_model_meta")

    original = gmm.get_model_meta
    if getattr(original, "_mteb_contrastive", False):
        return

    def get_model_meta(model_name: str, revision: str | None = None, *args: Any, **kwargs: Any):
        if isinstance(model_name, (str, os.PathLike)) and Path(model_name).expanduser().is_dir():
            return local_model_meta(model_name)
        return original(model_name, revision, *args, **kwargs)

    get_model_meta._mteb_contrastive = True  # type: ignore[attr-defined]
    get_model_meta.__doc__ = original.__doc__
    gmm.get_model_meta = get_model_meta
    import mteb

    mteb.get_model_meta = get_model_meta


def registered_task_class(name: str) -> type | None:
    """The task class mteb's task table holds under ``name`` (None when unknown)."""
    import importlib

    return importlib.import_module("mteb.get_tasks")._TASKS_REGISTRY.get(name)


def _list_only_configured_tasks() -> None:
    """Keep tasks whose data is not configured here out of ``mteb.get_tasks(<filters>)`` sweeps.

    They stay in mteb's name table (``mteb.get_task("PAN20Verification")`` still finds them and
    fails in ``load_data`` with the message saying what to set); only the filtered listing
    (``TASK_LIST``) leaves them out, so ``mteb.get_tasks(task_types=["Retrieval"])`` followed by
    ``mteb.evaluate`` does not stop on a missing folder. Decided once, at registration.
    """
    import importlib

    from mteb_contrastive.availability import missing_data

    get_tasks = importlib.import_module("mteb.get_tasks")
    ours = {c.metadata.name for c in _our_classes()}
    missing = set()
    for name in ours:
        cls = get_tasks._TASKS_REGISTRY.get(name)
        if cls is not None and missing_data(cls) is not None:
            missing.add(name)
    if missing:
        logger.debug("not listed until their data is configured: %s", sorted(missing))
        get_tasks.TASK_LIST = tuple(t for t in get_tasks.TASK_LIST if t.metadata.name not in missing)


def _our_classes() -> list[type]:
    from mteb_contrastive.tasks import all_task_classes

    return all_task_classes()


def _register_benchmarks() -> None:
    """Add :mod:`mteb_contrastive.benchmarks` to ``mteb.get_benchmark(s)`` (built on first lookup)."""
    import importlib

    gb = importlib.import_module("mteb.benchmarks.get_benchmark")
    original = gb._build_registry
    if getattr(original, "_mteb_contrastive", False):
        return

    def _build_registry():
        from mteb_contrastive.benchmarks import benchmarks

        return {**original(), **benchmarks()}

    _build_registry._mteb_contrastive = True  # type: ignore[attr-defined]
    gb._build_registry = _build_registry


def _check_data_before_model_in_mteb_cli() -> None:
    """In the stock ``mteb run`` command: stop with our message before any model is loaded.

    ``mteb run`` loads the model first and the task data last, so a missing folder ended in a
    traceback after minutes of model loading. When this process is the ``mteb`` command, its
    ``run`` is wrapped: each requested task of ours whose data is missing
    (:func:`mteb_contrastive.availability.missing_data`) is reported on stderr as
    ``error: <message>`` and the command exits with status 2.
    """
    import sys

    argv0 = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    if argv0 not in ("mteb", "__main__.py", "-m") or "run" not in sys.argv[1:2]:
        return
    import importlib

    cli = importlib.import_module("mteb.cli.build_cli")
    original = cli.run
    if getattr(original, "_mteb_contrastive", False):
        return

    def run(args):
        from mteb_contrastive.availability import missing_data

        ours = {c.metadata.name for c in _our_classes()}
        reasons = []
        for name in getattr(args, "tasks", None) or []:
            cls = registered_task_class(name)
            if name in ours and cls is not None:
                why = missing_data(cls)
                if why:
                    reasons.append(why)
        if reasons:
            for why in reasons:
                print(f"error: {why}", file=sys.stderr)
            raise SystemExit(2)
        return original(args)

    run._mteb_contrastive = True  # type: ignore[attr-defined]
    cli.run = run
