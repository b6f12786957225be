"""A local sentence-transformers folder as an mteb model (``mteb run -m ./path/to/model``).

mteb 2.26's ``get_model_meta`` refuses a path; the plugin's hook
(:mod:`mteb_contrastive.plugin.registration`) calls :func:`local_model_meta` for an existing folder.
The model is recorded as ``local/<folder name>`` with a revision that fingerprints the folder's
weights, configs and tokenizer files (:func:`mteb_contrastive.identity.model_folder_revision`): it
changes when a weight changes, not when the folder moves.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from mteb.models.model_meta import ModelMeta, ScoringFunction
from mteb.models.sentence_transformer_wrapper import CrossEncoderWrapper, SentenceTransformerEncoderWrapper

from mteb_contrastive.data.errors import InputError
from mteb_contrastive.identity import model_folder_revision

#: file name endings of model weights (torch, safetensors, ONNX, OpenVINO, TensorFlow, Flax), sharded or not
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".onnx", ".xml", ".h5", ".msgpack", ".ckpt")


class ModelFolderError(InputError):
    """A model folder that cannot be loaded: its configuration is there, its weights are not."""


def check_model_weights(path: str | os.PathLike, what: str = "model") -> None:
    """Refuse a local model folder with a configuration but no weight file (:data:`WEIGHT_SUFFIXES`, at any
    depth: a sentence-transformers folder keeps them in its module subfolders). A path that is not a
    folder is left alone (a Hub name, or another check's error).

    Raises:
        ModelFolderError: one line naming the folder, what it has and the fix.
    """
    folder = Path(path).expanduser()
    if not folder.is_dir():
        return
    if not any((folder / n).is_file() for n in ("modules.json", "config.json")):
        return
    files = [p for p in folder.rglob("*") if p.is_file() and not any(part.startswith(".") for part in p.parts[-2:])]
    if any(p.name.endswith(WEIGHT_SUFFIXES) for p in files):
        return
    has = ", ".join(sorted(p.name for p in files)[:4]) + (", ..." if len(files) > 4 else "")
    raise ModelFolderError(
        f"{what} {folder}: a model folder without weights (has {has}; no {', '.join('*' + s for s in WEIGHT_SUFFIXES)} "
        "file at any depth); give the complete folder (the --out folder of a finished training, or a full download)"
    )


def is_model_folder(path: str | os.PathLike) -> bool:
    """True for an existing folder (what ``-m`` treats as a local model rather than a model name)."""
    return Path(path).expanduser().is_dir()


def local_model_meta(path: str | os.PathLike) -> ModelMeta:
    """A ``ModelMeta`` for a local sentence-transformers folder.

    The similarity function comes from the folder's ``config_sentence_transformers.json``
    (``similarity_fn_name``), cosine when absent, as sentence-transformers does; a folder whose
    ``model_type`` is ``CrossEncoder`` (e.g. from ``mteb-contrastive train-cross-encoder``) loads as
    mteb's ``CrossEncoderWrapper``.

    Raises:
        FileNotFoundError: ``path`` is not a folder with a ``modules.json`` or ``config.json``.
        ModelFolderError: the folder has a configuration but no weights (:func:`check_model_weights`).
    """
    folder = Path(path).expanduser().resolve()
    if not ((folder / "modules.json").is_file() or (folder / "config.json").is_file()):
        raise FileNotFoundError(f"{folder}: not a sentence-transformers model folder (no modules.json or config.json)")
    check_model_weights(folder, "model")
    sim = ScoringFunction.COSINE
    cfg_file = folder / "config_sentence_transformers.json"
    cross_encoder = False
    if cfg_file.is_file():
        st_cfg = json.loads(cfg_file.read_text())
        name = st_cfg.get("similarity_fn_name")
        if name:
            sim = ScoringFunction.from_str(name)
        cross_encoder = st_cfg.get("model_type") == "CrossEncoder"
    max_tokens = None
    sbert = folder / "sentence_bert_config.json"
    if sbert.is_file():
        max_tokens = json.loads(sbert.read_text()).get("max_seq_length")
    wrapper = CrossEncoderWrapper if cross_encoder else SentenceTransformerEncoderWrapper

    def loader(name: str, revision: str | None = None, **kwargs: Any) -> Any:
        return wrapper(str(folder), **kwargs)

    return ModelMeta.create_empty(
        overwrites=dict(
            loader=loader,
            name=f"local/{folder.name}",
            revision=model_folder_revision(folder),
            reference=folder.as_uri(),
            similarity_fn_name=sim,
            max_tokens=max_tokens,
            framework=["Sentence Transformers", "PyTorch"],
            modalities=["text"],
            model_type=["cross-encoder"] if cross_encoder else ["dense"],
            open_weights=True,
        )
    )
