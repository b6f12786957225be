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
    _record_encoding_statistics()


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

    loader._st_folder = folder  # type: ignore[attr-defined]  (a sentence-transformers loader: see encoding.loading)

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
        from mteb_contrastive.encoding.loading import apply_to_meta
        from mteb_contrastive.encoding.settings import split_model_name

        options: dict[str, Any] = {}
        if isinstance(model_name, (str, os.PathLike)):
            model_name, options = split_model_name(str(model_name))  # "<model>::max_seq_length=512,..."
        if isinstance(model_name, str) and Path(model_name).expanduser().is_dir():
            return apply_to_meta(local_model_meta(model_name), options, folder=model_name)
        return apply_to_meta(original(model_name, revision, *args, **kwargs), options)

    get_model_meta._mteb_contrastive = True  # type: ignore[attr-defined]
    get_model_meta.__doc__ = original.__doc__
    gmm.get_model_meta = get_model_meta
    import mteb

    mteb.get_model_meta = get_model_meta


def _record_encoding_statistics() -> None:
    """Add an ``EncodingModel``'s per-subset statistics and settings to every result it produces.

    Wraps mteb's private ``mteb.evaluate._evaluate_task`` (the one function that runs one task for
    one model and builds its ``TaskResult``): after it returns, each evaluated subset's scores get
    :meth:`~mteb_contrastive.encoding.wrapper.EncodingModel.encoding_scores` (``encoding_*`` keys).
    Models that are not an ``EncodingModel`` (or wrap none under ``.model``/``._model``) are untouched.
    """
    import importlib

    ev = importlib.import_module("mteb.evaluate")
    original = ev._evaluate_task
    if getattr(original, "_mteb_contrastive", False):
        return

    def _evaluate_task(*args: Any, **kwargs: Any):
        from mteb_contrastive.encoding.wrapper import EncodingModel

        model = kwargs.get("model", args[0] if args else None)
        task = kwargs.get("task", args[1] if len(args) > 1 else None)
        enc = model
        for _ in range(3):  # an EncodingModel may sit inside a search wrapper or a two-stage model
            if isinstance(enc, EncodingModel) or enc is None:
                break
            enc = getattr(enc, "model", None) or getattr(enc, "_model", None)
        if isinstance(enc, EncodingModel) and task is not None:
            enc.reset_stats(task.metadata.name)
        result = original(*args, **kwargs)
        if isinstance(enc, EncodingModel) and task is not None and hasattr(result, "scores"):
            for split, entries in result.scores.items():
                for entry in entries:
                    entry.update(enc.encoding_scores(task.metadata.name, split, entry.get("hf_subset", "default")))
        return result

    _evaluate_task._mteb_contrastive = True  # type: ignore[attr-defined]
    ev._evaluate_task = _evaluate_task
