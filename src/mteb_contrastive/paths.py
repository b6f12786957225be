"""Where the shared evaluation data lives (``../shared/data`` beside a checkout by default)."""

from __future__ import annotations

import os
from pathlib import Path

#: a source checkout's ``../shared/data`` (editable installs: src/mteb_contrastive/paths.py -> repo root)
CHECKOUT_SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"

def shared_data_dir(arg: str | None = None) -> Path:
    """The shared data folder: ``arg``, else ``MTEB_CONTRASTIVE_SHARED``, else the first
    ``<parent>/shared/data`` beside the current folder or one of its parents, else a source
    checkout's ``../shared/data``."""
    if arg:
        return Path(arg)
    env = os.environ.get("MTEB_CONTRASTIVE_SHARED")
    if env:
        return Path(env)
    cwd = Path.cwd().resolve()
    for base in (cwd, *cwd.parents):
        if (base.parent / "shared" / "data").is_dir():
            return base.parent / "shared" / "data"
    return CHECKOUT_SHARED if CHECKOUT_SHARED.is_dir() else cwd.parent / "shared" / "data"
