"""The default home of built folders: a list the builders and ``evaluate`` add to, read with the variables.

Every folder a ``build-*`` command writes (its ``--out`` folder, which holds the built ``<NAME>`` folders)
and the ``datasets/`` and ``verification/`` folders of ``evaluate --out`` are added to one JSON file,
:func:`mteb_contrastive.config.registry_file` (``<cache root>/built-folders.json``, or
``$MTEB_CONTRASTIVE_REGISTRY``; ``off`` turns it off)::

    {"datasets": ["/abs/out", ...], "verification": ["/abs/out/verification", ...]}

The catalog reads it beside ``MTEB_CONTRASTIVE_DATASETS`` / ``MTEB_CONTRASTIVE_VERIFICATION``
(:func:`mteb_contrastive.sources.folders.dataset_folders`), so a task built once is a task of the stock
``mteb run`` from then on, without an exported variable. The file only lists paths: nothing in a listed
folder is ever written or removed through it; a listed folder that is gone is passed over. A folder
named by a variable wins over a listed folder of the same name. Writers take turns through an advisory lock
on ``<list>.lock`` beside it (an empty file, kept); the list itself is replaced whole (``write_text_atomic``).
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path

from mteb_contrastive import config
from mteb_contrastive.data.atomic import exclusive_lock, write_text_atomic

logger = logging.getLogger(__name__)

#: the two lists of the file: folders of built datasets, folders of verification (PAN-format) folders
KINDS = ("datasets", "verification")


def _read(path: Path) -> dict[str, list[str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {k: [] for k in KINDS}
    except (OSError, ValueError) as exc:
        logger.warning("%s: unreadable list of built folders (%s); passed over", path, exc)
        return {k: [] for k in KINDS}
    if not isinstance(data, dict):
        logger.warning("%s: not a JSON object; passed over", path)
        return {k: [] for k in KINDS}
    return {k: [str(p) for p in data.get(k, []) if isinstance(p, str)] for k in KINDS}


def registered(kind: str) -> list[Path]:
    """The listed folders of ``kind`` (:data:`KINDS`) that exist, newest last; [] when the list is off or absent."""
    path = config.registry_file()
    if path is None:
        return []
    return [Path(p) for p in _read(path)[kind] if Path(p).is_dir()]


def remember(folder: str | os.PathLike, kind: str) -> Path | None:
    """Add ``folder`` (made absolute) to the list of ``kind``, as its newest entry; the list's path, or None
    when the list is off. Never raises for the list itself: a list that cannot be written is one warning
    (the build stands; the variables still find the folder)."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r}: expected one of {KINDS}")
    path = config.registry_file()
    if path is None:
        return None
    entry = str(Path(folder).expanduser().resolve())
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with exclusive_lock(path):
            data = _read(path)
            data[kind] = [p for p in data[kind] if p != entry] + [entry]
            write_text_atomic(path, json.dumps(data, indent=1) + "\n")
    except OSError as exc:
        env = config.VERIFICATION_ENV if kind == "verification" else config.DATASETS_ENV
        why = " ".join(str(exc).split())
        print(f"warning: could not add {entry} to {path} ({why}); name it in {env} to use it", file=sys.stderr)
        return None
    return path
