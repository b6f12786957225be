"""``mteb run`` processes forked from one process started before their arguments are known.

A cold ``evaluate`` spends its first 7-10 s on one core (mteb's import, the baselines' revision
probes, the plan, the builds) and each ``mteb run`` started afresh then spends 6-10 s more importing
mteb, torch and sentence-transformers before its first text is encoded. :class:`Pool` starts one
process (:func:`serve`) before ``evaluate`` imports mteb; it imports what the runs will need
(:func:`warm_up`) on the other core, then waits for orders on a socket. Each run planned is one
order (:meth:`Pool.hand`: the ``mteb run`` command line, the environment, and the run's stdin,
stdout and stderr, passed as file descriptors); the server forks a child for it, which runs mteb's
own command-line function (``mteb.cli.main``, what the ``mteb`` console script calls) with that
command line: the same run as a fresh ``mteb run``, its imports already done -- once for all the
runs of the call, however many and whatever ``--jobs``.

What differs from a fresh process, and how it is made equal:

* the built folders did not exist when the server imported mteb (the start-up hook registered the
  tasks of the folders present then): the child registers the catalog's tasks again
  (:func:`mteb_contrastive.plugin.registration.register_tasks`), as ``evaluate`` does after its builds;
* the environment is the order's, set before the run (the variables libraries read at import --
  ``HF_HUB_OFFLINE``, ``TOKENIZERS_PARALLELISM``, the quiet switch -- were already the same at the
  server's start: ``evaluate`` computes them before it starts the pool);
* ``sys.argv[0]`` is the ``mteb`` console script from the server's first line, so the registration
  sees the ``mteb`` command (one-line errors, the data check before the model, the quick exit);
* the server forks from one thread, having run no torch operation (no thread pool to inherit:
  the state PyTorch's own ``DataLoader`` workers fork from); Ctrl-C reaches each child as it reaches
  a fresh ``mteb run`` (the server itself ignores it, so that it can still report the exit statuses).

The parent sees each run as a :class:`Forked` process (``wait``, ``kill``, ``returncode``, its
stderr pipe: what ``subprocess.Popen`` gives). Should the server have died before an order was
forked, that run starts as a fresh ``mteb run`` instead (same pipes); the pool then forks nothing
more. When the pool closes, the server reads the end of its socket and exits (its own stderr, a
temporary file, is dropped); one whose parent dies does the same.
"""

from __future__ import annotations

import importlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from typing import Any

#: what the server runs (``python -c``): our package imported as ``mteb-contrastive`` (so it does not
#: import mteb, see ``mteb_contrastive/__init__.py``), then argv set to the ``mteb`` command's before
#: :func:`serve`, whose :func:`warm_up` imports torch and then mteb (registration reads argv[0] there)
SERVER_CODE = (
    "import sys; a = sys.argv[1:]; sys.argv = ['mteb-contrastive']; "
    "from mteb_contrastive.cli.prestart import serve; sys.argv = [a[0], 'run']; serve(int(a[1]), a[2:])"
)
#: the longest order or reply (bytes); an order is a command line and an environment
MESSAGE_BYTES = 1 << 20
#: seconds between the server's checks for ended children while some run
REAP_S = 0.05


class Forked:
    """One run forked by the server, seen as ``subprocess.Popen`` sees a child.

    ``args``: the command line; ``stderr``: the read end of its stderr pipe (its stdout too when
    merged). ``pid`` and ``returncode`` arrive from the server (:class:`Pool`'s reader thread);
    ``returncode`` as ``Popen``'s: the exit status, ``-N`` for a signal ``N``.
    """

    def __init__(self, args: list[str], stderr: Any) -> None:
        self.args = args
        self.stderr = stderr
        self.pid: int | None = None
        self.returncode: int | None = None
        self._ended = threading.Event()
        self._fresh: subprocess.Popen | None = None

    def poll(self) -> int | None:
        if self._fresh is not None:
            self.returncode = self._fresh.poll()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Its exit status, once it ended; ``subprocess.TimeoutExpired`` after ``timeout`` seconds."""
        if not self._ended.wait(timeout):
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        if self._fresh is not None:
            self.returncode = self._fresh.wait(timeout)
        assert self.returncode is not None
        return self.returncode

    def kill(self) -> None:
        if self._fresh is not None:
            self._fresh.kill()
        elif self.pid is not None and self.returncode is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def __enter__(self) -> Forked:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.stderr is not None:
            self.stderr.close()
        self.wait()


@dataclass
class Pool:
    """The server that forks the ``mteb run``\\ s of ``evaluate`` (module docstring).

    ``mteb_bin``: the ``mteb`` console script (the runs' ``sys.argv[0]``); ``env``: the server's
    environment. Use as a context manager: on exit the server is told to end (killed after 10 s).
    """

    mteb_bin: str
    env: dict[str, str]
    server: subprocess.Popen | None = None
    forked: int = 0
    _sock: socket.socket | None = None
    _log: Any = None
    _runs: dict[int, tuple[Forked, list[int], list[str], dict[str, str], bool]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _dead: bool = False

    def start(self, models: list[str]) -> None:
        """Start the server, warmed up for ``models`` (:func:`warm_up`); nothing when ``models`` is empty
        or a server runs already."""
        if not models or self.server is not None:
            return
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._log = tempfile.TemporaryFile()
        try:
            self.server = subprocess.Popen(
                [sys.executable, "-c", SERVER_CODE, self.mteb_bin, str(theirs.fileno()), *models],
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=self._log,
                pass_fds=(theirs.fileno(),),
            )
        finally:
            theirs.close()
        self._sock = ours
        threading.Thread(target=self._read, daemon=True).start()

    def hand(self, cmd: list[str], env: dict[str, str], *, merge: bool) -> Forked | None:
        """Order the run ``cmd`` (``[mteb, "run", ...]``) with ``env``; ``merge``: its stdout goes to its
        stderr pipe (held output), else to our stdout. Returns the run, its ``stderr`` to be read; None
        when no server runs (start it afresh)."""
        with self._lock:
            if self._sock is None or self._dead:
                return None
            r, w = os.pipe()
            run = Forked(cmd, os.fdopen(r, "rb"))
            key = len(self._runs)
            self._runs[key] = (run, [w], cmd, env, merge)
            order = {"key": key, "argv": [self.mteb_bin, *cmd[1:]], "env": env}
            stdin = 0 if _open(0) else os.open(os.devnull, os.O_RDONLY)
            try:
                socket.send_fds(self._sock, [json.dumps(order).encode("utf-8")], [stdin, w if merge else 1, w])
            except OSError:  # the server is gone, or a descriptor could not pass: the same run, afresh
                self._fresh(key)
            finally:
                if stdin != 0:
                    os.close(stdin)
            return run

    def _fresh(self, key: int) -> None:
        """Start order ``key`` as a fresh ``mteb run`` on its pipe (the lock held)."""
        run, held, cmd, env, merge = self._runs[key]
        (w,) = held
        run._fresh = subprocess.Popen(cmd, env=env, stdout=w if merge else None, stderr=w)
        os.close(w)
        held.clear()
        run.pid = run._fresh.pid
        run._ended.set()

    def _read(self) -> None:
        """The server's replies: ``{"key", "pid"}`` when it forked an order, ``{"key", "status"}`` when
        that child ended. At the end of the socket (the server gone), every order not forked starts afresh
        and every forked run not reported ends with status 1."""
        assert self._sock is not None
        while True:
            try:
                data = self._sock.recv(MESSAGE_BYTES)
            except OSError:
                data = b""
            if not data:
                break
            msg = json.loads(data)
            with self._lock:
                run, held, _, _, _ = self._runs[msg["key"]]
                if "pid" in msg:
                    run.pid = msg["pid"]
                    self.forked += 1
                    for fd in held:
                        os.close(fd)
                    held.clear()
                else:
                    run.returncode = msg["status"]
                    run._ended.set()
        with self._lock:
            self._dead = True
            for key, (run, held, _, _, _) in self._runs.items():
                if run.pid is None and held:  # never forked: the same run, started afresh
                    self._fresh(key)
                elif not run._ended.is_set():
                    run.returncode = 1
                    run._ended.set()

    def close(self) -> None:
        """End the server: the end of its socket, then up to 10 s for it to exit, then it is killed. A server
        that was handed no run is killed at once: it has forked nothing and written nothing of the call, and
        it reads its socket only once its imports are done (10 s and more of a cold start), which a call
        ending early -- an error line before the runs -- would otherwise wait for."""
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self.server is not None:
            if not self._runs:
                self.server.kill()
            try:
                self.server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.server.kill()
                self.server.wait()
        if self._log is not None:
            self._log.close()

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _open(fd: int) -> bool:
    """Is ``fd`` an open descriptor of this process?"""
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False


def warm_up(models: list[str]) -> None:
    """Import what ``mteb run -m model`` imports before its first encode, for each of ``models``: mteb
    (the start-up hook registers the extension), mteb's command-line module (which imports torch for
    its device default), and sentence-transformers where a model's ``ModelMeta.framework`` names it.
    A model name mteb does not know is left to its run, which says so.

    torch first, which every run needs: while ``evaluate`` imports mteb for its plan, this process loads
    torch's native libraries rather than the same Python modules of mteb (two mteb imports at once were
    the slowest start: MiniLM's run was handed at 14.9 and 17.0 s of a cold ``make run``, at 13.4 and
    13.0 s with torch first, rounds alternated)."""
    importlib.import_module("torch")  # before mteb (above); an import statement would be sorted after it
    import mteb
    import mteb.cli  # noqa: F401

    for model in models:
        try:
            meta = mteb.get_model_meta(model)
        except Exception:
            continue
        if "Sentence Transformers" in (meta.framework or []):
            import sentence_transformers  # noqa: F401

            return


def serve(fd: int, models: list[str]) -> None:
    """The server (``sys.argv`` is ``[mteb, "run"]``; ``fd``: its socket): warm up for ``models``, then
    fork one child per order (:func:`_run`) and report each child's pid and exit status, until the
    socket ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sock = socket.socket(fileno=fd)
    warm_up(models)
    children: dict[int, int] = {}  # pid -> order key
    while True:
        ready, _, _ = select.select([sock], [], [], REAP_S if children else None)
        while children:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            key = children.pop(pid)
            _reply(sock, {"key": key, "status": os.waitstatus_to_exitcode(status)})
        if not ready:
            continue
        try:
            data, fds, _, _ = socket.recv_fds(sock, MESSAGE_BYTES, 3)
        except OSError:
            data = b""
        if not data:
            break
        order = json.loads(data)
        pid = os.fork()
        if pid == 0:
            sock.close()
            _run(order, fds)
        for f in fds:
            os.close(f)
        children[pid] = order["key"]
        _reply(sock, {"key": order["key"], "pid": pid})
    os._exit(0)  # the end of the socket: nothing to write, nothing to wait for


def _reply(sock: socket.socket, msg: dict[str, int]) -> None:
    try:
        sock.send(json.dumps(msg).encode("utf-8"))
    except OSError:  # the parent is gone: nobody to tell
        pass


def _run(order: dict[str, Any], fds: list[int]) -> None:
    """The forked child: the order's stdin, stdout, stderr and environment, the catalog registered again,
    then mteb's command line; ends the process with its exit status (never returns)."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for target, f in enumerate(fds):
        os.dup2(f, target)
    for f in set(fds):
        if f > 2:
            os.close(f)
    os.environ.clear()
    os.environ.update(order["env"])
    from mteb_contrastive.catalog import all_task_classes
    from mteb_contrastive.plugin.registration import register_tasks

    register_tasks(all_task_classes())  # the folders built since the server imported mteb
    sys.argv = order["argv"]
    from mteb.cli import main

    raise SystemExit(main())
