"""The one folder skeleton of every ``mteb-contrastive build-*`` command.

A builder writes ``<out>/<name>/`` through :class:`BuiltFolder`:

* **name** -- letters and digits starting with a letter (:func:`check_name`; it becomes part of the
  mteb task names);
* **staging and atomic replace** -- everything is written into a hidden temporary beside the target
  (``.<name>.<pid>.<random>.tmp``) that replaces it whole (:func:`mteb_contrastive.data.atomic.atomic_folder`);
  a killed build leaves no half folder, and its temporary is removed by the next build;
* **the info file and the card** -- :meth:`BuiltFolder.write_info` writes ``mteb_contrastive.json``
  and ``README.md``;
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mteb_contrastive.data.atomic import atomic_folder
from mteb_contrastive.layout import INFO_FILE

_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9]*$")
#: files every built folder holds besides its data
COMMON_FILES = (INFO_FILE, "README.md")


def check_name(name: str, option: str = "dataset name") -> str:
    """``name`` when it is letters and digits starting with a letter.

    Raises:
        ValueError: otherwise (one line naming ``option``).
    """
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ValueError(f"{option} must be letters and digits starting with a letter, got {name!r}")
    return name


@dataclass(frozen=True)
class BuiltFolder:
    """``<out_dir>/<name>`` as the builder ``command`` (kind ``kind``) writes it.

    Args:
        out_dir: the parent folder (``--out``).
        name: the folder name (``--name``), checked by :func:`check_name`.
        kind: the ``kind`` the info file records (e.g. ``"halvest"``, ``"verification"``).
        command: the CLI command, e.g. ``"build-quoter"``: recorded as ``built_by`` and named in messages.
        outputs: glob patterns (relative to the folder, ``/``-separated) of the data files the
            builder writes; with :data:`COMMON_FILES` they are what an own folder may hold.
        force: replace whatever is at ``<out>/<name>`` (``--force``).
        name_option: how the name is called in a bad-name message.
    """

    out_dir: Path
    name: str
    kind: str
    command: str
    outputs: tuple[str, ...] = ()
    force: bool = False
    name_option: str = "dataset name"

    def __post_init__(self) -> None:
        check_name(self.name, self.name_option)
        object.__setattr__(self, "out_dir", Path(self.out_dir))
        object.__setattr__(self, "outputs", tuple(self.outputs))

    @property
    def path(self) -> Path:
        """``<out_dir>/<name>``."""
        return self.out_dir / self.name

    @contextlib.contextmanager
    def staged(self) -> Iterator[Path]:
        """Yield the staging folder; on success it replaces ``<out>/<name>`` whole; on an exception
        nothing is moved and the stage is removed."""
        with atomic_folder(self.path) as tmp:
            yield tmp

    def write_info(self, tmp: Path, info: dict[str, Any], card: str | None = None, *, indent: int = 2) -> None:
        """Write the info file ``info`` and, when given, the ``README.md`` card into the stage."""
        (tmp / INFO_FILE).write_text(json.dumps(info, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")
        if card is not None:
            (tmp / "README.md").write_text(card, encoding="utf-8")


def built_folder(
    out_dir: str | os.PathLike,
    name: str,
    kind: str,
    command: str,
    outputs: Sequence[str] = (),
    *,
    force: bool = False,
    name_option: str = "dataset name",
) -> BuiltFolder:
    """Shorthand for :class:`BuiltFolder` (checks the name at once)."""
    return BuiltFolder(Path(out_dir), name, kind, command, tuple(outputs), force, name_option)
