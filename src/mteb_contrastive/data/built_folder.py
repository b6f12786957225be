"""The one folder skeleton of every ``mteb-contrastive build-*`` command.

A builder writes ``<out>/<name>/`` through :class:`BuiltFolder`:

* **name** -- letters and digits starting with a letter (:func:`check_name`; it becomes part of the
  mteb task names);
* **place** -- checked before any work (:func:`mteb_contrastive.data.places.check_folder_parent`): an
  unwritable ``out``, a path through a file, or a file where the folder goes is one line;
* **own folder** -- an existing ``<out>/<name>`` is replaced only when this builder made it
  (:meth:`BuiltFolder.check`): its info file (:data:`~mteb_contrastive.layout.INFO_FILE`) says this
  builder's ``kind``, the same ``name`` and ``built_by`` this command (or, for a folder built before
  ``built_by`` was recorded, a ``build_id``), and every file in it is one the builder writes. Anything
  else -- a user's folder, notes dropped into a build, a hand-made dataset, a file -- is refused
  (:class:`NotOwnFolder`: one line naming the path, and the way out: another ``--name``, or
  ``--force``), and nothing is touched. An empty folder is taken (nothing is lost);
* **staging and atomic replace** -- everything is written into a hidden temporary beside the target
  (``.<name>.<pid>.<random>.tmp``) that replaces it whole (:func:`mteb_contrastive.data.atomic.atomic_folder`);
  a killed build leaves no half folder, and its temporary is removed by the next build;
* **the info file and the card** -- :meth:`BuiltFolder.write_info` writes ``mteb_contrastive.json``
  (with ``built_by``) and ``README.md``;
* **modes** -- the folder and its files get the modes the user's umask gives (not the 0700 / 0600
  of a temporary).
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mteb_contrastive.data.atomic import atomic_folder
from mteb_contrastive.data.places import OutputPlaceError, check_folder_parent
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


class NotOwnFolder(OutputPlaceError):
    """``<out>/<name>`` exists and is not a folder this builder made: refused, nothing touched."""


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
        force: replace whatever is at ``<out>/<name>`` (the user asked for it with ``--force``).
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

    def _refuse(self, why: str) -> NotOwnFolder:
        return NotOwnFolder(
            self.path,
            f"{why}; {self.command} replaces only a folder it built itself under that name, and leaves this one "
            f"as it is: give another --name, or pass --force to replace it",
        )

    def foreign_reason(self) -> str | None:
        """Why ``<out>/<name>`` may not be replaced, or None when it is absent, empty or this builder's own."""
        p = self.path
        if not p.exists() and not p.is_symlink():
            return None
        if p.is_symlink():
            return "is a symbolic link, not a folder this command built"
        if not p.is_dir():
            return "is a file, not a folder this command built"
        try:
            entries = list(p.rglob("*"))
        except OSError as exc:
            return f"cannot be read ({exc.strerror or exc})"
        if not entries:
            return None
        info_path = p / INFO_FILE
        if not info_path.exists():
            first = sorted(e.relative_to(p).as_posix() for e in entries)[0]
            return f"holds {first} and no {INFO_FILE}: it is not a folder {self.command} built"
        try:
            info = json.loads(info_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return f"holds no readable {INFO_FILE} of a build (it is not a folder {self.command} made)"
        if not isinstance(info, dict) or info.get("kind") != self.kind or info.get("name") != self.name:
            got = (info.get("kind"), info.get("name")) if isinstance(info, dict) else (None, None)
            return (
                f"holds a {INFO_FILE} of kind {got[0]!r} named {got[1]!r}, not a {self.command} build named "
                f"{self.name!r}"
            )
        built_by = info.get("built_by")
        if built_by != self.command and not (built_by is None and info.get("build_id")):
            return f"was not built by {self.command} (its {INFO_FILE} says built_by {built_by!r})"
        allowed = [a.split("/") for a in COMMON_FILES + self.outputs]
        for e in sorted(entries):
            parts = e.relative_to(p).parts
            is_dir = e.is_dir() and not e.is_symlink()
            if not e.is_symlink() and any(
                (len(a) > len(parts) if is_dir else len(a) == len(parts))
                and all(fnmatch.fnmatchcase(x, y) for x, y in zip(parts, a))
                for a in allowed
            ):
                continue
            return f"holds {'/'.join(parts)}, which {self.command} did not write"
        return None

    def check(self) -> None:
        """Check the place before any work: the parent is a writable folder (or can be made), and
        ``<out>/<name>`` is absent, empty or this builder's own (unless ``force``).

        Raises:
            OutputPlaceError: a bad parent (:func:`~mteb_contrastive.data.places.check_folder_parent`).
            NotOwnFolder: something else is at ``<out>/<name>``.
        """
        check_folder_parent(self.path, option="--out")
        if not self.force:
            why = self.foreign_reason()
            if why is not None:
                raise self._refuse(why)

    @contextlib.contextmanager
    def staged(self) -> Iterator[Path]:
        """Yield the staging folder; on success it replaces ``<out>/<name>`` whole (checked again just
        before, :meth:`check`); on an exception nothing is moved and the stage is removed."""
        self.check()
        with atomic_folder(self.path, before_replace=self.check) as tmp:
            yield tmp

    def write_info(self, tmp: Path, info: dict[str, Any], card: str | None = None, *, indent: int = 2) -> None:
        """Write the info file (``info`` plus ``built_by``) and, when given, the ``README.md`` card into the stage."""
        info = {**info, "built_by": self.command}
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
