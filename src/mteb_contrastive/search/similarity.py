"""One similarity per model: the single decision every protocol and the search backend use.

A model carries its similarity in two places: the checkpoint (sentence-transformers'
``similarity_fn_name`` in ``config_sentence_transformers.json``, what
``SentenceTransformer.similarity`` and mteb's ``SentenceTransformerEncoderWrapper.similarity``
compute) and mteb's ``ModelMeta.similarity_fn_name`` (what mteb's generic ``AbsEncoder.similarity``
and, before this module, our retrieval backend used). When they disagree, a model was scored with
two similarities in one run (retrieval by the metadata, triplets and verification by the
checkpoint). :func:`model_similarity` decides once:

1. the checkpoint's *explicit* setting (``model.model._similarity_fn_name`` not None): the
   content the model was saved with, and what sentence-transformers itself computes;
2. else mteb's metadata ``similarity_fn_name``;
3. else ``"cosine"`` (the sentence-transformers default).

:func:`similarity_matrix` and :func:`similarity_pairwise` compute the chosen function (torch,
float32), so that the triplet / verification protocols can score with the same decision.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

logger = logging.getLogger(__name__)

#: the similarities the search backend serves exactly (higher score = more similar)
SUPPORTED = ("cosine", "dot", "euclidean")
_ALIASES = {"cos_sim": "cosine", "dot_product": "dot", "dot_score": "dot", "l2": "euclidean"}


def _name(value: Any) -> str | None:
    if value is None:
        return None
    name = str(getattr(value, "value", value)).strip().lower()
    return _ALIASES.get(name, name) or None


def checkpoint_similarity(model: Any) -> str | None:
    """The similarity a sentence-transformers checkpoint was saved with, or None when unset.

    Looks at ``model._similarity_fn_name`` and at the same attribute of ``model.model`` (mteb's
    wrappers keep the ``SentenceTransformer`` there). The public property is not used: it turns
    an unset value into ``"cosine"``, hiding whether the checkpoint said anything.
    """
    for obj in (model, getattr(model, "model", None)):
        if obj is not None and "_similarity_fn_name" in getattr(obj, "__dict__", {}):
            return _name(obj.__dict__["_similarity_fn_name"])
    return None


def metadata_similarity(model: Any) -> str | None:
    """mteb's ``model.mteb_model_meta.similarity_fn_name`` as a lower-case name, or None."""
    return _name(getattr(getattr(model, "mteb_model_meta", None), "similarity_fn_name", None))


def model_similarity(model: Any) -> str:
    """The one similarity (``"cosine"``, ``"dot"`` or ``"euclidean"``) a model is scored with.

    Order: the checkpoint's explicit setting, then mteb's metadata, then cosine (see the module
    docstring). A disagreement between the two is logged once per call as a warning.

    Raises:
        ValueError: the chosen similarity is not one of :data:`SUPPORTED` (e.g. manhattan, MaxSim).
    """
    ckpt, meta = checkpoint_similarity(model), metadata_similarity(model)
    if ckpt and meta and ckpt != meta:
        name = getattr(getattr(model, "mteb_model_meta", None), "name", type(model).__name__)
        logger.warning(
            "model %s: checkpoint similarity %r and mteb metadata %r disagree; using the checkpoint's %r",
            name,
            ckpt,
            meta,
            ckpt,
        )
    chosen = ckpt or meta or "cosine"
    if chosen not in SUPPORTED:
        raise ValueError(
            f"similarity {chosen!r} is not supported; the search backend and protocols serve {', '.join(SUPPORTED)}"
        )
    return chosen


def _t(x: Any) -> Any:
    import torch

    t = torch.as_tensor(np.asarray(x, dtype=np.float32) if not isinstance(x, torch.Tensor) else x).float()
    return t.unsqueeze(0) if t.ndim == 1 else t


def similarity_matrix(similarity: str, a: Any, b: Any) -> Any:
    """Scores of every row of ``a`` (n, d) against every row of ``b`` (m, d): a (n, m) float32 tensor.

    cosine = dot of L2-normalised rows; dot = inner product; euclidean = ``-||a_i - b_j||``
    (higher = more similar, as in sentence-transformers' ``pairwise_euclidean_sim`` sign).
    """
    import torch

    a, b = _t(a), _t(b)
    if similarity == "cosine":
        return torch.nn.functional.normalize(a, dim=1) @ torch.nn.functional.normalize(b, dim=1).T
    if similarity == "dot":
        return a @ b.T
    if similarity == "euclidean":
        return -torch.cdist(a, b)
    raise ValueError(f"similarity {similarity!r} is not supported; choose one of {SUPPORTED}")


def similarity_pairwise(similarity: str, a: Any, b: Any) -> Any:
    """Scores of row i of ``a`` against row i of ``b`` (both (n, d)): a (n,) float32 tensor."""
    import torch

    a, b = _t(a), _t(b)
    if similarity == "cosine":
        return torch.nn.functional.cosine_similarity(a, b, dim=1)
    if similarity == "dot":
        return (a * b).sum(1)
    if similarity == "euclidean":
        return -torch.linalg.vector_norm(a - b, dim=1)
    raise ValueError(f"similarity {similarity!r} is not supported; choose one of {SUPPORTED}")
