"""Output places, checked before any work: the one check of every command that writes.

A command that writes a folder (``--out`` of the builders, ``evaluate``, ``report``, ``train``, the
PAN and TALN builders) asks here first, before it reads or computes anything, so a bad place is one
line (:class:`OutputPlaceError`, exit status 2) at once instead of a raw ``[Errno 30]`` /
``[Errno 20]`` / ``[Errno 17]`` after the work:

* :func:`check_output_folder` -- a folder to write into: it is a folder, or it can be made (its
  nearest existing ancestor is a folder, not a file, and is writable);
* :func:`check_folder_parent` -- the parent of a folder or file that will be replaced whole (a built
  folder ``OUT/NAME``, a model folder): the parent is checked as above, and the place itself must not
  be a file where a folder goes;
* :func:`check_output_file` -- a file to write: its folder is checked as above, and it must not be a folder.

Nothing is created by a check. Writable means :func:`os.access` with ``W_OK | X_OK`` (which also
answers a read-only file system); a process that may write anywhere (root) passes where the
permission bits alone would stop another user.
"""

from __future__ import annotations

import os
from pathlib import Path

from mteb_contrastive.data.errors import DataError


class OutputPlaceError(DataError):
    """An output place that cannot be written: one line naming the path, the option and the fix."""


def _nearest_existing(path: Path) -> Path:
    p = path
    while not (p.exists() or p.is_symlink()):
        if p.parent == p:
            break
        p = p.parent
    return p


def _option(option: str | None) -> str:
    return f"{option} " if option else ""


def check_output_folder(path: str | os.PathLike, option: str | None = "--out") -> Path:
    """Check that ``path`` is a folder this process can write into, or one it can make.

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        OutputPlaceError: ``path`` is a file; a part of it is a file (a path inside a file); it or
            its nearest existing ancestor is not writable.
    """
    path = Path(path)
    opt = _option(option)
    if path.exists() and not path.is_dir():
        raise OutputPlaceError(path, f"{opt}is a file, and a folder goes here; give a folder path for {opt}".strip())
    anchor = _nearest_existing(path)
    if not anchor.is_dir():
        raise OutputPlaceError(
            path,
            f"{opt}is a path inside a file ({anchor} is a file, not a folder); give a folder path for {opt}".strip(),
        )
    if not os.access(anchor, os.W_OK | os.X_OK):
        what = "is not writable" if anchor == path else f"cannot be made: {anchor} is not writable"
        raise OutputPlaceError(
            path, f"{opt}{what}; give a folder you can write to for {opt}or change its permissions".strip()
        )
    return path


def check_folder_parent(path: str | os.PathLike, option: str | None = "--out") -> Path:
    """Check the place of a folder ``path`` that will be written whole (made beside it, then moved in).

    Raises:
        OutputPlaceError: the parent fails :func:`check_output_folder`.
    """
    path = Path(path)
    check_output_folder(path.parent, option)
    return path


def check_output_file(path: str | os.PathLike, option: str | None = "--out") -> Path:
    """Check that the file ``path`` can be written (its folder checked by :func:`check_output_folder`).

    Raises:
        OutputPlaceError: ``path`` is a folder, or its folder cannot be written.
    """
    path = Path(path)
    opt = _option(option)
    if path.is_dir():
        raise OutputPlaceError(path, f"{opt}is a folder, and a file goes here; give a file path for {opt}".strip())
    check_output_folder(path.parent, option)
    return path


def umask() -> int:
    """The process's umask (read without changing it for longer than one call)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def apply_umask_modes(path: str | os.PathLike) -> None:
    """Give ``path`` (a file, or a folder and everything under it) the modes a plain ``open`` / ``mkdir``
    would have under the umask: 0666 / 0777 less the umask -- what a temporary made by
    :mod:`tempfile` (0600 / 0700) is given before it replaces the real file or folder."""
    path = Path(path)
    mask = umask()
    file_mode, dir_mode = 0o666 & ~mask, 0o777 & ~mask
    if path.is_dir() and not path.is_symlink():
        os.chmod(path, dir_mode)
        for root, dirs, files in os.walk(path):
            for d in dirs:
                os.chmod(os.path.join(root, d), dir_mode)
            for f in files:
                p = os.path.join(root, f)
                if not os.path.islink(p):
                    os.chmod(p, file_mode | (os.stat(p).st_mode & 0o111 & ~mask))
    elif path.is_file():
        os.chmod(path, file_mode)
