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
    _enable_cross_encoders()
    _enable_local_model_folders()
    from mteb_contrastive.baselines import registered_model_metas

    register_models(registered_model_metas())
    from mteb_contrastive.search.rerank import registered_model_metas as rerank_model_metas

    register_models(rerank_model_metas())


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


def _enable_cross_encoders() -> None:
    """Let cross-encoders into the verification and triplet protocols (mteb's private ``_support_cross_encoder`` flag).

    Those protocols score a cross-encoder's pairs directly (:mod:`mteb_contrastive.protocols.cross_encoder_scoring`).
    """
    from mteb_contrastive.protocols.triplet_classification import AbsTaskTripletClassification
    from mteb_contrastive.protocols.verification import AbsTaskVerification

    for cls in (AbsTaskVerification, AbsTaskTripletClassification):
        cls._support_cross_encoder = True


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
    cross_encoder = False
    if cfg_file.is_file():
        st_cfg = json.loads(cfg_file.read_text())
        name = st_cfg.get("similarity_fn_name")
        if name:
            sim = ScoringFunction.from_str(name)
        cross_encoder = st_cfg.get("model_type") == "CrossEncoder"  # e.g. from `mteb-contrastive train-cross-encoder`
    max_tokens = None
    sbert = folder / "sentence_bert_config.json"
    if sbert.is_file():
        max_tokens = json.loads(sbert.read_text()).get("max_seq_length")

    def loader(name: str, revision: str | None = None, **kwargs: Any) -> Any:
        if cross_encoder:
            from mteb.models.sentence_transformer_wrapper import CrossEncoderWrapper

            return CrossEncoderWrapper(str(folder), **kwargs)
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
            model_type=["cross-encoder"] if cross_encoder else ["dense"],
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
