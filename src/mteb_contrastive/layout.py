"""Where files live: the rules for result, prediction and built-dataset folders, in one place.

mteb 2.26 (``ResultCache``) stores one model's results in
``<output folder>/results/<model folder>/<revision>/<task>.json`` beside ``model_meta.json``,
where the model folder is the model name with ``/`` written ``__``
(``sentence-transformers/all-MiniLM-L6-v2`` -> ``sentence-transformers__all-MiniLM-L6-v2``) and
a model without a revision is filed under ``no_revision_available``. The project writes its
per-model prediction files in the same layout under ``--prediction-folder`` and reads both back
through the functions below; nothing else builds these paths.

A folder made by a ``mteb-contrastive build-*`` command holds :data:`INFO_FILE`.
"""

from __future__ import annotations

import os
from pathlib import Path

#: the description file of a built (or hand-made) dataset folder: kind, name, languages, build_id, ...
INFO_FILE = "mteb_contrastive.json"
#: a trained model folder's record of how it was trained (``train``, ``train-cross-encoder``, ``train-reranker``):
#: ``{"recipe", "config": {... "context_length" ...}, "summary"}``
TRAINING_CONFIG_FILE = "training_config.json"
#: mteb's folder name for a model without a revision
NO_REVISION = "no_revision_available"


def model_folder_name(model_name: str) -> str:
    """mteb's folder name of a model: ``org/name`` -> ``org__name``."""
    return str(model_name).replace("/", "__")


def model_name_of_folder(folder_name: str) -> str:
    """The model name of an mteb model folder name: ``org__name`` -> ``org/name``."""
    return str(folder_name).replace("__", "/")


def model_folder(root: str | os.PathLike, model_name: str, revision: str | None = None) -> Path:
    """``<root>/<model folder>/<revision>``; a model without a revision goes under :data:`NO_REVISION`."""
    return model_root(root, model_name) / str(revision or NO_REVISION)


def model_root(root: str | os.PathLike, model_name: str) -> Path:
    """``<root>/<model folder>``: every revision of one model."""
    return Path(root) / model_folder_name(model_name)


def result_file(output_folder: str | os.PathLike, model_name: str, revision: str | None, task: str) -> Path:
    """mteb's result file of (model, task) under an ``--output-folder``
    (``<out>/results/<model>/<rev>/<task>.json``)."""
    return model_folder(Path(output_folder) / "results", model_name, revision) / f"{task}.json"


def prediction_subfolder(prediction_folder: str | os.PathLike, model_name: str, revision: str | None) -> Path:
    """``<prediction_folder>/<model folder>/<revision>``: where one model's predictions go, so several
    models can share one ``--prediction-folder``."""
    return model_folder(prediction_folder, model_name, revision)


def predictions_file(
    prediction_dir: str | os.PathLike, task: str, revision: str | None = None, kind: str = "predictions"
) -> Path:
    """The prediction file of ``task`` in one model's folder (``kind="per_item"``: the per-item file a
    protocol writes beside mteb's own, ``<task>_per_item.json``).

    The file is ``<dir>/<revision>/<task>_<kind>.json`` (the per-model layout under a shared
    ``--prediction-folder``, :func:`prediction_subfolder`), or ``<dir>/<task>_<kind>.json`` for a
    folder given to one model only. Without ``revision`` the newest ``<dir>/*/`` file is taken.
    """
    d = Path(prediction_dir)
    name = f"{task}_{kind}.json"
    if revision is not None and (d / str(revision) / name).is_file():
        return d / str(revision) / name
    if (d / name).is_file():
        return d / name
    found = [f for f in d.glob(f"*/{name}") if not f.parent.name.startswith(".")]  # not a save in progress
    found.sort(key=lambda f: f.stat().st_mtime)
    return found[-1] if found else d / name


def answers_file(model_name: str, task: str, hf_subset: str) -> Path:
    """Relative path of a verification task's PAN ``answers.jsonl``:
    ``<model folder>/<task>/<subset>/answers.jsonl``."""
    return Path(model_folder_name(model_name)) / task / hf_subset / "answers.jsonl"


def info_file(folder: str | os.PathLike) -> Path:
    """``<folder>/mteb_contrastive.json``."""
    return Path(folder) / INFO_FILE


def is_built_folder(folder: str | os.PathLike) -> bool:
    """True when ``folder`` holds :data:`INFO_FILE`."""
    return info_file(folder).is_file()
