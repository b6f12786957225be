"""Atomic writes: a file or a folder appears whole or not at all."""

from __future__ import annotations

import contextlib
import glob
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from mteb_contrastive.data.places import apply_umask_modes


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path`` (``.<name>.<pid>.<random>.tmp``); on success it gets the
    umask's mode and replaces ``path`` (``os.replace``), on an exception it is removed.

    Temporaries a killed earlier write of ``path`` left are removed first (:func:`remove_stale_temporaries`).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        apply_umask_modes(tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def exclusive_lock(path: str | os.PathLike) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``<path>.lock`` (created empty when absent, kept) while the block
    runs: one process at a time among those that take the same lock; the others wait. Where ``fcntl``
    does not exist (Windows) the block runs unlocked. Raises OSError when the lock file cannot be opened."""
    try:
        import fcntl
    except ImportError:  # no flock here: callers stay correct without it (their writes are atomic)
        yield
        return
    path = Path(path)
    with open(path.with_name(path.name + ".lock"), "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and ``os.replace``
    (:func:`atomic_file`: the umask's mode; temporaries of killed earlier writes removed first)."""
    with atomic_file(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


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

    A build or write makes ``.<name>.<pid>.<random>.tmp`` (and, while swapping, ``.<name>.old-<pid>``;
    an older plot writer ``.<name>.<pid>.tmp.png``); one whose process is gone (or in the older
    ``.<name>.<random>.tmp`` form, without a pid) is removed. A live process's temporary is left
    alone, and so are the temporaries of other names (:func:`sweep_stale` clears a whole folder that
    the caller owns).

    Returns:
        the removed paths.
    """
    path = Path(path)
    removed = []
    if not path.parent.is_dir():
        return removed
    for p in path.parent.glob(f".{glob.escape(path.name)}.*"):
        rest = p.name[len(path.name) + 2 :]
        if rest.endswith(".tmp") or rest.endswith(".tmp.png"):
            head = rest.split(".", 1)[0]
        elif rest.startswith("old-"):
            head = rest[4:]
        else:
            continue
        if head.isdigit() and _pid_alive(int(head)) and int(head) != os.getpid():
            continue
        _remove(p)
        removed.append(p)
    return removed


def _remove(p: Path) -> None:
    """Remove a temporary: a folder with its contents, a file or a link (never what a link points to)."""
    if p.is_dir() and not p.is_symlink():
        shutil.rmtree(p, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            p.unlink()


#: the hidden temporaries this package writes: ``.<name>.<pid>.<random>.tmp`` (files, folders,
#: ``.staged.<pid>.<random>.tmp`` stages), ``.<name>.old-<pid>`` (a folder being swapped out) and the
#: older plot form ``.<name>.<pid>.tmp.png``
_TEMPORARY = re.compile(r"^\.(?P<name>.+?)\.(?:(?P<pid>\d+)\.(?:[^./]+\.tmp|tmp\.png)|old-(?P<old>\d+))$")


def sweep_stale(folder: str | os.PathLike) -> list[Path]:
    """Remove every temporary (:data:`_TEMPORARY`) in ``folder`` whose process is gone: what a killed
    write, build, plot or ``mteb run`` save left. A live process's temporary is left alone.

    Returns:
        the removed paths.
    """
    folder = Path(folder)
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for e in entries:
        m = _TEMPORARY.match(e.name)
        if not m:
            continue
        pid = int(m.group("pid") or m.group("old"))
        if pid != os.getpid() and _pid_alive(pid):
            continue
        p = Path(e.path)
        _remove(p)
        removed.append(p)
    return removed


def sweep_stale_tree(root: str | os.PathLike, depth: int = 4) -> list[Path]:
    """:func:`sweep_stale` in ``root`` and in its non-hidden folders down to ``depth`` levels (an
    output folder: ``results/``, ``results/<model>/<revision>/``, ``predictions/<model>/<revision>/``,
    ``plots/``), so no temporary of a killed run survives the next run, whatever it recomputes."""
    removed = sweep_stale(root)
    if depth > 0:
        try:
            subs = [e.path for e in os.scandir(root) if e.is_dir(follow_symlinks=False) and not e.name.startswith(".")]
        except OSError:
            subs = []
        for sub in subs:
            removed += sweep_stale_tree(sub, depth - 1)
    return removed


@contextlib.contextmanager
def atomic_folder(path: str | os.PathLike, before_replace: Callable[[], None] | None = None) -> Iterator[Path]:
    """Yield a temporary folder beside ``path``; on success it replaces ``path`` as a whole.

    On any exception the temporary folder is removed and an existing ``path`` is left untouched.
    Temporaries left by a killed earlier build are removed first (:func:`remove_stale_temporaries`). The folder
    and its files get the umask's modes (not a temporary's 0700 / 0600). ``before_replace`` is
    called just before the swap (a check that may raise: then nothing is moved).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path)
    tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp"))
    try:
        yield tmp
        if before_replace is not None:
            before_replace()
        apply_umask_modes(tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    old = None
    if path.exists() or path.is_symlink():
        old = path.parent / f".{path.name}.old-{os.getpid()}"
        os.replace(path, old)
    os.replace(tmp, path)
    if old is not None:  # what was replaced (a failure to remove it leaves it to the next sweep, not an error)
        if old.is_dir() and not old.is_symlink():
            shutil.rmtree(old, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                old.unlink()


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
