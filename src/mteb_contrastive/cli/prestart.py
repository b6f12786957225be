"""``mteb run`` processes started before their arguments are known: their imports overlap ``evaluate``'s plan.

A cold ``evaluate`` spends its first 7-10 s on one core (mteb's import, the baselines' revision
probes, the plan, the builds) and each ``mteb run`` then spends 6-10 s more on one core importing
mteb, torch and sentence-transformers before its first text is encoded. :class:`Pool` starts up to
``jobs`` processes at once, before ``evaluate`` imports mteb; each imports what its run will need
(:func:`warm_up`) on the other core, then waits for its order on stdin. When a run is planned,
:meth:`Pool.hand` writes its order (the ``mteb run`` command line, the environment, whether stdout
joins stderr) and the process runs mteb's own command-line function (``mteb.cli.main``, what the
``mteb`` console script calls) with that command line: the same run as a fresh ``mteb run``,
started 6-10 s earlier.

What differs from a fresh process, and how it is made equal:

* the built folders did not exist when it imported mteb (the start-up hook registered the tasks of
  the folders present then): after its order it registers the catalog's tasks again
  (:func:`mteb_contrastive.plugin.registration.register_tasks`), as ``evaluate`` does after its builds;
* the environment is the order's, set before the run (the variables libraries read at import --
  ``HF_HUB_OFFLINE``, ``TOKENIZERS_PARALLELISM``, the quiet switch -- were already the same at
  its start: ``evaluate`` computes them before it starts the pool);
* ``sys.argv[0]`` is the ``mteb`` console script from its first line, so the registration sees the
  ``mteb`` command (one-line errors, the data check before the model, the quick exit).

A process not handed a run is killed when the pool closes (it has written nothing); one whose
parent dies reads the end of its stdin and exits.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field

#: what the child runs first (``python -c``): argv set before any import of ours, then :func:`child`
CHILD_CODE = (
    "import sys; sys.argv = [sys.argv[1], 'run']; from mteb_contrastive.cli.prestart import child; child({hint!r})"
)


@dataclass
class Started:
    """One waiting process: its ``Popen`` (stdin and stderr pipes) and the model it warmed up for."""

    proc: subprocess.Popen
    model: str


@dataclass
class Pool:
    """Processes started ahead for the ``mteb run``\\ s of ``evaluate`` (module docstring).

    ``mteb_bin``: the ``mteb`` console script (its ``sys.argv[0]``); ``env``: their environment at start.
    Use as a context manager: on exit every process not handed a run is killed and reaped.
    """

    mteb_bin: str
    env: dict[str, str]
    waiting: list[Started] = field(default_factory=list)

    def start(self, models: list[str]) -> None:
        """Start one process per model (warmed up for it: :func:`warm_up`)."""
        for m in models:
            proc = subprocess.Popen(
                [sys.executable, "-c", CHILD_CODE.format(hint=m), self.mteb_bin],
                env=self.env,
                stdin=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            self.waiting.append(Started(proc, m))

    def take(self, model: str) -> Started | None:
        """A waiting process, the one warmed up for ``model`` first; None when none waits."""
        for i, s in enumerate(self.waiting):
            if s.model == model:
                return self.waiting.pop(i)
        return self.waiting.pop(0) if self.waiting else None

    def hand(self, started: Started, cmd: list[str], env: dict[str, str], *, merge: bool) -> subprocess.Popen:
        """Give ``started`` its run: ``cmd`` (``[mteb, "run", ...]``), ``env``; ``merge``: its stdout goes
        to its stderr pipe (held output), else stays ours. Returns the process, its stderr to be read."""
        order = {"argv": [self.mteb_bin, *cmd[1:]], "env": env, "merge": merge}
        assert started.proc.stdin is not None
        try:
            started.proc.stdin.write((json.dumps(order) + "\n").encode("utf-8"))
            started.proc.stdin.close()
        except BrokenPipeError:  # it died while waiting: its exit status and stderr say why
            pass
        return started.proc

    def close(self) -> None:
        """Kill and reap every process not handed a run."""
        for s in self.waiting:
            s.proc.kill()
            s.proc.wait()
            for pipe in (s.proc.stdin, s.proc.stderr):
                if pipe is not None:
                    pipe.close()
        self.waiting.clear()

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def warm_up(model: str) -> None:
    """Import what ``mteb run -m model`` imports before its first encode: mteb (the start-up hook
    registers the extension), mteb's command-line module, and sentence-transformers where the model's
    ``ModelMeta.framework`` names it (a BM25 or TF-IDF run never imports it:
    :func:`mteb_contrastive.compat.sanitized_without_sentence_transformers`). A model name mteb does
    not know is left to the run, which says so."""
    import mteb
    import mteb.cli  # noqa: F401

    try:
        meta = mteb.get_model_meta(model)
    except Exception:
        return
    if "Sentence Transformers" in (meta.framework or []):
        import sentence_transformers  # noqa: F401


def child(model: str) -> None:
    """The waiting process (``sys.argv`` is ``[mteb, "run"]``): warm up, read one order from stdin,
    run it. No order (the parent closed or died): exit 0 having run nothing."""
    warm_up(model)
    line = sys.stdin.buffer.readline()
    if not line.strip():
        raise SystemExit(0)
    order = json.loads(line)
    os.environ.clear()
    os.environ.update(order["env"])
    if order["merge"]:
        sys.stdout.flush()
        os.dup2(2, 1)
    from mteb_contrastive.catalog import all_task_classes
    from mteb_contrastive.plugin.registration import register_tasks

    register_tasks(all_task_classes())  # the folders built since this process imported mteb
    sys.argv = order["argv"]
    from mteb.cli import main

    raise SystemExit(main())
