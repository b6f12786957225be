"""Atomic writes: a file or a folder appears whole or not at all."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and ``os.replace``.

    Temporaries left beside ``path`` by a killed earlier write are removed first.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def remove_stale_temporaries(path: str | os.PathLike) -> list[Path]:
    """Remove the hidden temporaries that killed builds of ``path`` left beside it.

    A build writes ``.<name>.<pid>.<random>.tmp`` (and, while swapping, ``.<name>.old-<pid>``);
    one whose process is gone (or in the older ``.<name>.<random>.tmp`` form, without a pid) is
    removed. A live build's temporary is left alone.

    Returns:
        the removed paths.
    """
    path = Path(path)
    removed = []
    if not path.parent.is_dir():
        return removed
    for p in path.parent.glob(f".{glob.escape(path.name)}.*"):
        rest = p.name[len(path.name) + 2 :]
        if rest.endswith(".tmp"):
            head = rest.split(".", 1)[0]
        elif rest.startswith("old-"):
            head = rest[4:]
        else:
            continue
        if head.isdigit() and _pid_alive(int(head)) and int(head) != os.getpid():
            continue
        if p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                p.unlink()
        removed.append(p)
    return removed


@contextlib.contextmanager
def atomic_folder(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary folder beside ``path``; on success it replaces ``path`` as a whole.

    On any exception the temporary folder is removed and an existing ``path`` is left untouched.
    Temporaries left by a killed earlier build are removed first
    (:func:`remove_stale_temporaries`).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path)
    tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp"))
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    old = None
    if path.exists():
        old = path.parent / f".{path.name}.old-{os.getpid()}"
        os.replace(path, old)
    os.replace(tmp, path)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


@contextlib.contextmanager
def staged_writes(root: str | os.PathLike, carry: Iterable[str | os.PathLike] = ()) -> Iterator[Path]:
    """Yield a staging folder standing for ``root``: whatever is written under it then replaces the
    file of the same relative path under ``root``, one ``os.replace`` per file, so each file appears
    whole (the new one or the old one, never a cut one) -- for a writer that is not ours (mteb's
    result cache and prediction files) and writes in place.

    Args:
        root: the folder the writer means to write into (created).
        carry: files under ``root`` the writer reads and merges into (copied into the stage first).

    The stage is ``<root>/.staged.<pid>.<random>.tmp``; one left by a killed process is removed by
    the next call (:func:`remove_stale_temporaries`). On an exception nothing is moved.
    """
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(root / "staged")
    stage = Path(tempfile.mkdtemp(dir=root, prefix=f".staged.{os.getpid()}.", suffix=".tmp"))
    try:
        for f in map(Path, carry):
            if f.is_file():
                target = stage / f.relative_to(root)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(f, target)
        yield stage
        for f in sorted(p for p in stage.rglob("*") if p.is_file()):
            target = root / f.relative_to(stage)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(f, target)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
