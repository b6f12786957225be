"""``mteb-contrastive evaluate``: the release evaluation -- every benchmark here, one report.

    mteb-contrastive evaluate -m MODEL [-m MODEL2 ...] [--out build/release] [--suite default|full] [--device cuda]
        [--benchmark NAME ...] [--jobs N]

Steps:

1. **Plan.** Each benchmark of the suite (:func:`mteb_contrastive.benchmarks.plan.plan`, plus every folder named by
   ``MTEB_CONTRASTIVE_DATASETS`` / ``MTEB_CONTRASTIVE_VERIFICATION``) is checked with path and
   environment checks only; one line per benchmark says ``run`` (and where its data comes from)
   or ``skip`` and why. The ``default`` suite has one benchmark per family (what ``make run``
   evaluates); ``full`` adds the others. ``--benchmark NAME`` (repeatable) keeps only the named
   benchmarks of the suite (a reranking ablation on one task); a name not in the plan is one error line.
2. **Build.** Benchmarks made from the shared data are built once into ``<out>/datasets`` and
   ``<out>/verification`` (kept: a built folder is reused while its content revision is unchanged).
3. **Run.** One stock ``mteb run`` per model with ``--output-folder <out>/results``,
   ``--prediction-folder <out>/predictions`` (files land in ``<out>/predictions/<org__name>/<revision>/``),
   for the tasks not already done: a (model, task) whose result file exists with the task's current dataset revision is
   reported ``cached`` and left out; the others are run with ``--overwrite-strategy always`` (a result of an
   older dataset revision is replaced, which mteb's ``only-missing`` would keep). A model with
   nothing left to run is not even loaded. A model is planned only for the task kinds it can run
   (:func:`search_only_reason`): search models (mteb's BM25) and two-stage models
   (``rerank/<first>+<reranker>@<k>``) run the retrieval tasks only, and the plan says which tasks
   each one leaves out. A model whose ``mteb run`` fails is reported with a one-line reason (the
   run's own ``error:`` line, else the last line of its traceback) and the other models still run;
   the report lists it (:func:`failure_reason`). ``--device`` is passed to every ``mteb run``
   (:func:`mteb_run_device`: ``mteb run --device`` takes a GPU index, so ``cuda:N`` / ``N`` become
   ``--device N``, ``cuda`` ``--device 0``, and ``cpu`` hides the GPUs from that run,
   ``CUDA_VISIBLE_DEVICES=``; unset: mteb's default, ``cuda`` when torch sees a GPU, else ``cpu``);
   ``--jobs N`` runs up to N of them at once (:func:`run_models`: the first shows its progress, the
   others' output is printed as each ends; default 1, one after another); when a model has no results
   yet (:func:`started_ahead`), one process starts before this command imports mteb, imports what the
   runs need and forks each run when planned (:mod:`mteb_contrastive.cli.prestart`: the imports overlap
   the plan and the builds, and are done once for all the runs);
   each run's device, machine, library versions and wall time go to ``<out>/run_info.json``
   (:func:`mteb_contrastive.report.environment.record_run`), which the report shows beside the wall
   time mteb stores per task.
4. **Report.** :func:`mteb_contrastive.report.write.write_report` writes ``report.md`` /
   ``.json`` / ``.csv`` and ``plots/`` into ``<out>`` (with ``--jobs`` 2 or more, two processes draw the
   figures: :func:`mteb_contrastive.report.plots.make_and_save`); the last line printed is the report's path.

Errors a user can fix (unknown model, no benchmark available) end with one ``error: ...`` line and exit
status 2. A failing ``mteb run`` prints one ``error: ...`` line per model, the report is still written
(listing the failed models), and the exit status is the first failing run's.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from mteb_contrastive import config
from mteb_contrastive.cli.prestart import Pool
from mteb_contrastive.layout import is_built_folder, model_root, prediction_subfolder, result_file


def search_only_reason(meta) -> str | None:
    """Why a model runs the retrieval tasks only, or None when it runs every task kind: a search model that
    ranks but gives no embeddings (mteb's BM25), or a two-stage model (a first stage and a reranker:
    :func:`~mteb_contrastive.search.rerank.is_two_stage`), which neither embeds nor scores pairs alone."""
    from mteb_contrastive.search.rerank import is_two_stage

    if getattr(meta.loader, "__name__", "") == "bm25_loader":
        return "a search model (no embeddings)"
    if is_two_stage(meta):
        return "a two-stage search model (first stage + reranker, no embeddings)"
    return None


def is_search_only(meta) -> bool:
    """True for models that run retrieval tasks only (:func:`search_only_reason`)."""
    return search_only_reason(meta) is not None


def failure_reason(stderr_tail: list[str], rc: int) -> str:
    """One line saying why an ``mteb run`` failed, from the last lines it wrote to stderr: its last
    ``error:`` line (our one-line errors, ``mteb: error: ...``), else the last line of a Python traceback
    (``TypeError: ...``), else the last line; ``exit <rc>`` when it wrote nothing."""
    lines = [" ".join(x.split()) for x in stderr_tail if x.strip()]
    for line in reversed(lines):
        if line.startswith(("mteb: error: ", "error: ")):
            return line.split("error: ", 1)[1]
    for line in reversed(lines):
        if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Interrupt)\b", line):
            return line
    return lines[-1] if lines else f"exit {rc}"


def _echo_err(chunk: bytes) -> None:
    sys.stderr.flush()
    buffer = getattr(sys.stderr, "buffer", None)
    if buffer is not None:
        buffer.write(chunk)
        buffer.flush()
    else:
        sys.stderr.write(chunk.decode("utf-8", "replace"))
        sys.stderr.flush()


def _stream(proc: subprocess.Popen, pipe, keep: int) -> tuple[int, list[str]]:
    """Pass ``pipe`` (``proc``'s) through to our stderr as it comes; (exit status, its last ``keep`` lines)."""
    import collections

    tail: collections.deque[str] = collections.deque(maxlen=keep)
    partial = b""
    with proc:
        while chunk := pipe.read1(4096):
            _echo_err(chunk)
            *lines, partial = (partial + chunk).replace(b"\r", b"\n").split(b"\n")
            tail.extend(x.decode("utf-8", "replace") for x in lines)
        rc = proc.wait()
    if partial:
        tail.append(partial.decode("utf-8", "replace"))
    return rc, list(tail)


@dataclass
class RunOutcome:
    """How one ``mteb run`` ended: exit status, its last stderr lines, UTC start, wall seconds."""

    rc: int
    tail: list[str]
    started: str
    wall_s: float


def _held(proc: subprocess.Popen, pipe, keep: int) -> tuple[int, list[str], str]:
    """Read ``pipe`` (``proc``'s stdout and stderr together) to its end: (exit status, its last ``keep`` lines,
    what a terminal would show at the end: each line's last carriage-return segment, progress-bar redraws
    dropped)."""
    with proc:
        raw = pipe.read()
        rc = proc.wait()
    lines = [x.rsplit("\r", 1)[-1] for x in raw.decode("utf-8", "replace").split("\n")]
    lines = [x for x in lines if x.strip()]
    return rc, lines[-keep:], "".join(x + "\n" for x in lines)


def run_models(
    cmds: list[list[str]],
    env: dict[str, str],
    *,
    jobs: int = 1,
    show: dict[str, str] | None = None,
    pool: Pool | None = None,
) -> Iterator[tuple[int, RunOutcome]]:
    """Run each ``mteb run`` command; yield ``(index, outcome)`` as each ends. Each start is announced
    with a ``$ `` line (``show``: the variables set for it, printed before the command).

    ``jobs`` 1: one after another, each one's stderr passed through as it comes (:func:`_stream`).
    ``jobs`` N > 1: up to N at once, started in list order. The run that started while no other was
    showing its output streams it live; the others' output is held (:func:`_held`) and printed
    whole when each ends. Runs are independent processes writing their own model's result and
    prediction folders (the caches they share are written atomically), so a failed run still ends
    alone: the others go on. What it buys: the single-threaded parts of runs (Python imports, model
    loading, a search model's whole run) overlap while the machine's cores are otherwise idle.

    ``pool``: the process started ahead (:class:`mteb_contrastive.cli.prestart.Pool`); while it runs,
    each run is forked from it, else starts afresh. A forked run's ``wall_s`` counts from its order.
    """
    import queue

    def announce(cmd: list[str]) -> None:
        _say("$ " + "".join(f"{k}={v} " for k, v in (show or {}).items()) + " ".join(cmd))

    def stamp() -> tuple[str, float]:
        return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), time.monotonic()

    def execute(cmd: list[str], streaming: bool) -> tuple[int, list[str], str | None]:
        proc = pool.hand(cmd, env, merge=not streaming) if pool is not None else None
        if proc is not None:
            pipe = proc.stderr
        elif streaming:
            proc = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE)
            pipe = proc.stderr
        else:
            proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            pipe = proc.stdout
        if streaming:
            return (*_stream(proc, pipe, 40), None)
        return _held(proc, pipe, 40)

    if jobs <= 1:
        for i, cmd in enumerate(cmds):
            announce(cmd)
            started, t0 = stamp()
            rc, tail, _ = execute(cmd, True)
            yield i, RunOutcome(rc, tail, started, round(time.monotonic() - t0, 1))
        return
    done: queue.Queue = queue.Queue()
    live, printing = threading.Lock(), threading.Lock()

    def work(i: int, cmd: list[str]) -> None:
        started, t0 = stamp()
        streaming = live.acquire(blocking=False)
        try:
            rc, tail, text = execute(cmd, streaming)
            if text is not None:
                with printing:
                    _echo_err(text.encode("utf-8"))
            done.put((i, RunOutcome(rc, tail, started, round(time.monotonic() - t0, 1))))
        except BaseException as exc:  # handed to the main thread, raised there
            done.put((i, exc))
        finally:
            if streaming:
                live.release()

    pending, running = list(enumerate(cmds)), 0
    while pending or running:
        while pending and running < jobs:
            i, cmd = pending.pop(0)
            announce(cmd)
            threading.Thread(target=work, args=(i, cmd), daemon=True).start()
            running += 1
        i, outcome = done.get()
        running -= 1
        if isinstance(outcome, BaseException):
            raise outcome
        yield i, outcome


def started_ahead(models: list[str], results: Path, *, rerun: bool = False) -> list[str]:
    """The models the process started before the plan warms up for (:mod:`mteb_contrastive.cli.prestart`):
    those with no result folder yet under ``results`` (mteb's ``<results>/results/<org__name>``, the ``-m``
    name as given), all of them with ``rerun``; none, and no process starts ahead. A model with results
    there is likely to have nothing left to run: its imports would slow a call that reruns nothing (a warm
    ``evaluate`` of two models: 5.9-6.5 s, 9.5-10 s with processes started ahead for both). Whatever the
    list, every run of the call is forked from that process while it runs."""
    return [m for m in models if rerun or not model_root(results / "results", m).is_dir()]


def cached_result(
    results: Path,
    model_name: str,
    model_revision: str | None,
    task: str,
    dataset_revision: str | None,
    predictions: Path | None = None,
) -> Path | None:
    """The result file of (model, task) when it exists with the task's current dataset revision; a file
    that cannot be read (cut by a kill, JSON of another shape such as ``[]``;
    :func:`mteb_contrastive.report.reader.load_result`) is missing: one warning line, and the task is run again.

    With ``predictions`` (the ``--prediction-folder``), the task's prediction files of that model
    (``<task>_predictions.json``, ``<task>_per_item.json``) are read too: a cut one makes the result
    missing in the same way (its per-item comparisons and intervals come from it)."""
    from mteb_contrastive.report.reader import load_result, unreadable_result, warn

    f = result_file(results, model_name, model_revision, task)
    if not f.is_file():
        return None
    try:
        stored = load_result(f).dataset_revision
    except ValueError as exc:  # JSON, shape or decoding error
        warn(unreadable_result(f, exc, "treated as missing: evaluated again"))
        return None
    if stored != dataset_revision:
        return None
    if predictions is not None:
        folder = prediction_subfolder(predictions, model_name, model_revision)
        for kind in ("predictions", "per_item"):
            p = folder / f"{task}_{kind}.json"
            if not p.is_file():
                continue
            try:
                json.loads(p.read_text(encoding="utf-8"))
            except ValueError as exc:
                warn(unreadable_result(p, exc, "its result is treated as missing: evaluated again"))
                return None
    return f


def mteb_run_device(device: str | None) -> tuple[list[str], dict[str, str]]:
    """How ``--device`` reaches ``mteb run``: (its arguments, environment variables for that run).

    ``mteb run --device`` is a GPU index (``mteb/cli/build_cli.py``: ``type=int``): ``cuda:N`` and
    ``N`` give ``--device N``, ``cuda`` gives ``--device 0``; ``cpu`` gives no argument and
    ``CUDA_VISIBLE_DEVICES=`` (torch then sees no GPU and mteb's default is ``cpu``); None gives neither.

    Raises:
        ValueError: any other value (one line naming the option and the accepted values).
    """
    if device is None:
        return [], {}
    d = device.strip().lower()
    if d == "cpu":
        return [], {"CUDA_VISIBLE_DEVICES": ""}
    if d == "cuda":
        return ["--device", "0"], {}
    index = d.removeprefix("cuda:")
    if index.isdigit():
        return ["--device", str(int(index))], {}
    raise ValueError(f"--device {device}: expected cpu, cuda, cuda:N or a GPU index N (mteb run takes a GPU index)")


def _preload_report() -> None:
    """Import what writing the report imports on its way (the report's modules, matplotlib's pyplot with the
    Agg backend: about 1 s in a fresh process), meant for a background thread while the runs work; the report
    is the same with or without it. Silent: a failing import fails again, with its own message, when the
    report is written."""
    try:
        from mteb_contrastive.report import plots, write  # noqa: F401

        plots.pyplot()
    except Exception:
        pass


def _say(msg: str) -> None:
    print(msg, flush=True)


def run_evaluation(
    models: list[str],
    out: Path,
    *,
    shared: Path,
    suite: str = "default",
    benchmarks: list[str] | None = None,
    reference: str | None = None,
    rerun: bool = False,
    batch_size: int | None = None,
    verbose: bool = False,
    device: str | None = None,
    user_folders_only: bool = False,
    jobs: int = 1,
) -> int:
    """The command (module docstring). Returns the exit status.

    ``jobs``: how many ``mteb run`` at once (:func:`run_models`; 1: one after another).

    ``user_folders_only``: the benchmarks of the user's own folders alone (the variables' and the listed
    built folders, :func:`mteb_contrastive.benchmarks.plan.user_folders`): no shared or declared benchmark,
    no skip line for them.

    Raises:
        ValueError: a ``device`` :func:`mteb_run_device` does not accept, or a GPU asked for where
            torch sees none.

    Unless ``verbose``, library loggers and the libraries' own progress bars are quiet here and in each
    ``mteb run`` (:mod:`mteb_contrastive.plugin.quiet`: one bar per phase -- building, the tasks of a
    run, the texts encoded) and ``mteb run`` gets ``-v 1`` (mteb's warnings only); with ``verbose``,
    libraries log and show their bars as they are set up and ``mteb run`` gets ``-v 2`` (mteb's INFO lines).
    """
    from mteb_contrastive.data.atomic import sweep_stale_tree
    from mteb_contrastive.data.places import check_output_folder

    device_args, device_env = mteb_run_device(device)
    if device_args:
        import torch

        if not torch.cuda.is_available():
            raise ValueError(f"--device {device}: torch sees no GPU here (use --device cpu, or leave it unset)")
    out = out.resolve()
    check_output_folder(out, "--out")
    out_ds, out_ver = out / "datasets", out / "verification"
    # no temporary of a killed earlier run survives this one, whatever it recomputes
    sweep_stale_tree(out)
    out_ds.mkdir(parents=True, exist_ok=True)
    out_ver.mkdir(parents=True, exist_ok=True)
    hub = config.hub_reachable()
    # the environment of this process and of each `mteb run`: built folders, shared data, quiet libraries
    registry_file = config.registry_file()  # the user's list, before the cache root moves into <out> below
    env_updates = {
        config.REGISTRY_ENV: str(registry_file) if registry_file is not None else "off",
        config.DATASETS_ENV: os.pathsep.join(filter(None, [config.env(config.DATASETS_ENV), str(out_ds)])),
        config.VERIFICATION_ENV: os.pathsep.join(filter(None, [config.env(config.VERIFICATION_ENV), str(out_ver)])),
        config.CACHE_ENV: config.env(config.CACHE_ENV) or str(out / "cache"),
        "HF_DATASETS_DISABLE_PROGRESS_BARS": os.environ.get("HF_DATASETS_DISABLE_PROGRESS_BARS", "1"),
        "TOKENIZERS_PARALLELISM": os.environ.get("TOKENIZERS_PARALLELISM", "false"),
    }
    if not hub:
        env_updates["HF_HUB_OFFLINE"] = "1"
    if not verbose:
        env_updates[config.QUIET_ENV] = "1"
    os.environ[config.SHARED_ENV] = str(shared)  # the sources below look for the shared files there
    mteb_bin = str(Path(sys.executable).with_name("mteb"))
    # one process starts now and imports mteb, torch, sentence-transformers while this process plans and
    # builds; it forks each `mteb run` (mteb_contrastive.cli.prestart) and ends on the way out
    with Pool(mteb_bin, {**os.environ, **env_updates, **device_env}) as pool:
        pool.start(started_ahead(models, out / "results", rerun=rerun))
        return _plan_build_run(
            models,
            out,
            shared=shared,
            suite=suite,
            benchmarks=benchmarks,
            reference=reference,
            rerun=rerun,
            batch_size=batch_size,
            verbose=verbose,
            device=device,
            user_folders_only=user_folders_only,
            jobs=jobs,
            hub=hub,
            env_updates=env_updates,
            device_args=device_args,
            device_env=device_env,
            mteb_bin=mteb_bin,
            pool=pool,
        )


def _plan_build_run(
    models: list[str],
    out: Path,
    *,
    shared: Path,
    suite: str,
    benchmarks: list[str] | None,
    reference: str | None,
    rerun: bool,
    batch_size: int | None,
    verbose: bool,
    device: str | None,
    user_folders_only: bool,
    jobs: int,
    hub: bool,
    env_updates: dict[str, str],
    device_args: list[str],
    device_env: dict[str, str],
    mteb_bin: str,
    pool: Pool,
) -> int:
    """:func:`run_evaluation` from the plan on (steps 1-4 of the module docstring), once the output folder
    is checked and the environment of the runs is known; ``pool`` holds the runs started ahead."""
    import mteb  # first: the task modules below import mteb, whose import registers them

    from mteb_contrastive.benchmarks.plan import NOT_IN_SUITE, plan
    from mteb_contrastive.catalog import all_task_classes, registered_task_class
    from mteb_contrastive.plugin.quiet import apply_environment, quiet
    from mteb_contrastive.plugin.registration import register_tasks
    from mteb_contrastive.report import environment

    if not verbose:
        quiet()
    out_ds, out_ver = out / "datasets", out / "verification"
    # before the update: only the user's folders are "user folders"
    benches = plan(out, shared, suite, hub=hub, user_folders_only=user_folders_only)
    if benchmarks:
        unknown = [n for n in benchmarks if n not in {b.name for b in benches}]
        if unknown:
            print(
                f"error: --benchmark {unknown[0]}: not a benchmark of the plan; choose from "
                f"{', '.join(b.name for b in benches)}",
                file=sys.stderr,
            )
            return 2
        for b in benches:
            if b.name not in benchmarks:
                b.missing = "not asked for (--benchmark)"
            elif b.missing == NOT_IN_SUITE:
                b.missing = None  # named: run it whatever the suite
    apply_environment(env_updates)
    # every -m resolved before anything is built or run: a bad name or an incomplete folder stops here
    metas = {}
    for m in models:
        try:
            metas[m] = mteb.get_model_meta(m)
        except Exception as exc:
            print(
                f"error: -m {m}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__} "
                "(an mteb model name, a registered baseline or a sentence-transformers folder)",
                file=sys.stderr,
            )
            return 2
    if reference is not None and reference not in models and reference not in {x.name for x in metas.values()}:
        print(f"error: --reference {reference} is not one of the -m models ({', '.join(models)})", file=sys.stderr)
        return 2

    _say(f"release evaluation of {len(models)} model(s), suite '{suite}', output {out}")
    for b in benches:
        if b.missing:
            _say(f"  skip {b.name}: {b.missing}")
        else:
            _say(f"  run  {b.name} ({b.family}; {b.source}): {', '.join(b.tasks)}")
    todo = [b for b in benches if not b.missing]
    skipped = [(b.name, b.missing) for b in benches if b.missing]
    if not todo:
        print(
            "error: no benchmark has its data here; see the skip lines above (docs/environment.md lists the variables)",
            file=sys.stderr,
        )
        return 2

    # built benchmarks: once, into the output folder
    to_build = [b for b in todo if b.build is not None and not is_built_folder(b.built_folder)]
    if to_build:
        from tqdm import tqdm

        from mteb_contrastive.data.progress import bar

        build_bar = bar(len(to_build), "building benchmarks", unit="benchmark")
        for b in to_build:
            tqdm.write(f"  building {b.name} into {b.built_folder.parent}")
            b.build()
            build_bar.update(1)
        build_bar.close()

    from mteb_contrastive.data.registry import remember

    for folder, kind in ((out_ds, "datasets"), (out_ver, "verification")):
        if any(is_built_folder(c) for c in folder.iterdir()):
            remember(folder, kind)  # the stock `mteb run` finds them from now on, without a variable
    register_tasks(all_task_classes())  # folders built above
    results, predictions = out / "results", out / "predictions"
    prediction_dirs = {}
    failed: list[tuple[str, str]] = []  # (model, one-line reason): listed in the report
    planned: list[tuple[str, str, list[str], list[str]]] = []  # (-m, model name, tasks, mteb run command)
    for m in models:
        meta = metas[m]
        why_search_only = search_only_reason(meta)
        tasks = [t for b in todo for t in (b.retrieval_tasks if why_search_only else b.tasks)]
        if why_search_only:
            dropped = [t for b in todo for t in b.tasks if t not in b.retrieval_tasks]
            if dropped:
                _say(f"{meta.name}: {why_search_only}: retrieval tasks only; not run: {', '.join(dropped)}")
        if not tasks:
            _say(f"{meta.name}: no task of the plan is one it can run")
            continue
        pred_dir = model_root(predictions, meta.name)
        prediction_dirs[meta.name] = pred_dir
        left = []
        for t in tasks:
            cls = registered_task_class(t)
            # the instance's revision: some tasks fingerprint their files when constructed (QuoteR, Cranfield)
            rev = cls().metadata.dataset.get("revision") if cls is not None else None
            hit = None if rerun else cached_result(results, meta.name, meta.revision, t, rev, predictions)
            if hit is not None:
                _say(f"  cached {meta.name} {t} ({hit.relative_to(out)})")
            else:
                left.append(t)
        if not left:
            _say(f"{meta.name}: every result is already there, nothing to run")
            continue
        pred_dir.mkdir(parents=True, exist_ok=True)
        cmd = [
            mteb_bin,
            "run",
            "-m",
            m,
            "-t",
            *left,
            "--output-folder",
            str(results),
            "--prediction-folder",
            str(predictions),
            "--overwrite-strategy",
            "always",
            "-v",
            "2" if verbose else "1",
        ]  # only tasks not cached for their current revision are listed
        if batch_size:
            cmd += ["--batch-size", str(batch_size)]
        cmd += device_args
        planned.append((m, meta.name, left, cmd))
    rcs: dict[int, int] = {}
    reasons: dict[int, str] = {}
    env_run = {**os.environ, **device_env}
    runs = run_models([c for *_, c in planned], env_run, jobs=jobs, show=device_env, pool=pool)
    if planned:  # the report's imports while the runs work (about 1 s less after them)
        threading.Thread(target=_preload_report, daemon=True).start()
    for i, done in runs:
        m, name, left, cmd = planned[i]
        # recorded as each run ends, even when it failed: the results it wrote are kept and reused by the next call
        environment.record_run(
            out / environment.RUN_INFO,
            {
                "model": name,
                "tasks": left,
                "started": done.started,
                "wall_s": done.wall_s,
                "exit_status": done.rc,
                "device": environment.resolve_device(device),
                "machine": environment.machine(),
                "libraries": environment.libraries(),
                "command": cmd[1:],
            },
        )
        rcs[i] = done.rc
        if done.rc != 0:
            reasons[i] = failure_reason(done.tail, done.rc)
            print(
                f"error: mteb run of {m} failed (exit {done.rc}): {reasons[i]}; the results already written are "
                "kept, the other models go on",
                file=sys.stderr,
            )
    for i in sorted(reasons):  # in the order of the -m options, whatever order the runs ended in
        failed.append((planned[i][1], f"mteb run failed (exit {rcs[i]}): {reasons[i]}"))
    first_rc = next((rcs[i] for i in sorted(rcs) if rcs[i] != 0), 0)

    from mteb_contrastive.report.write import write_report

    names = [metas[m].name for m in models]
    ref = metas[reference].name if reference in metas else reference
    _say(
        "writing the report"
        + (" (loading each task's qrels/labels for chance levels and comparisons)" if len(names) > 1 else "")
    )
    md = write_report(
        results,
        out,
        models=names,
        prediction_dirs=prediction_dirs,
        reference_model=ref,
        skipped=skipped,
        failed=failed,
        load_references=True,
        show_progress=True,
        plot_jobs=jobs,  # --jobs 2 or more: two processes draw the figures
    )
    first = next((t for b in todo for t in b.tasks), None)
    if first is not None:
        import shlex

        line = ["mteb", "run", "-m", models[0], "-t", first, "--output-folder", str(results)]
        _say(f"rerun one task with the stock mteb command: {shlex.join([*line, '--overwrite-strategy', 'always'])}")
    _say(f"report: {md}")
    return first_rc


def add_parser(sub) -> None:
    """The ``evaluate`` subcommand of ``mteb-contrastive``."""
    from mteb_contrastive.cli.args import positive_int

    e = sub.add_parser(
        "evaluate",
        help="release evaluation: every benchmark available here, one mteb run per model, one report",
        description=(
            "Release evaluation: plan (run/skip per benchmark), build, one mteb run per model (resumable), "
            "report.md/.json/.csv with plots. See docs/report.md."
        ),
    )
    e.add_argument(
        "-m",
        "--model",
        dest="models",
        action="append",
        required=True,
        metavar="MODEL",
        help=(
            "an mteb model name, a registered baseline (mteb-contrastive/...) or a sentence-transformers folder; "
            "repeat for several models (default: none, at least one required)"
        ),
    )
    e.add_argument(
        "--out",
        type=Path,
        default=Path("build/release"),
        help="output folder: results/, predictions/, datasets/, report.md/.json/.csv, plots/ (default: %(default)s)",
    )
    e.add_argument(
        "--suite",
        choices=["default", "full"],
        default="default",
        help=(
            "one benchmark per family (what make run evaluates), or full: every benchmark here (default: %(default)s)"
        ),
    )
    e.add_argument(
        "--benchmark",
        dest="benchmarks",
        action="append",
        metavar="NAME",
        help="run only this benchmark of the plan (a name of its run/skip lines); repeatable (default: all)",
    )
    e.add_argument(
        "--shared",
        help="the shared data folder (default: $MTEB_CONTRASTIVE_SHARED, else ../shared/data beside the checkout)",
    )
    e.add_argument("--reference", help="the model every other one is compared with (default: the first -m)")
    e.add_argument("--rerun", action="store_true", help="recompute results that already exist (default: off, resume)")
    e.add_argument(
        "--batch-size",
        type=positive_int,
        help="texts per forward pass, passed to every mteb run, a whole number >= 1 (default: mteb's, 32)",
    )
    e.add_argument(
        "--device",
        help=(
            "device of every mteb run: cpu, cuda, cuda:N or a GPU index N; recorded in the report "
            "(default: mteb's, cuda when torch sees a GPU, else cpu)"
        ),
    )
    e.add_argument(
        "--jobs",
        type=positive_int,
        default=1,
        help=(
            "how many mteb run (one per model) at once, a whole number >= 1: the first shows its progress, the "
            "others' output is printed when each ends; 2 or more: the report's figures drawn by two processes "
            "(default: %(default)s, one after another)"
        ),
    )
    e.add_argument(
        "--user-folders-only",
        action="store_true",
        help=(
            "evaluate only your own built folders (those of $MTEB_CONTRASTIVE_DATASETS / "
            "$MTEB_CONTRASTIVE_VERIFICATION and those the build commands listed): no shared or declared "
            "benchmark (default: off)"
        ),
    )
    e.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help=(
            "let libraries log DEBUG/INFO lines and show their own progress bars, and mteb run log INFO "
            "(default: off: one progress bar per phase, warnings and errors only)"
        ),
    )


def main(args) -> int:
    return run_evaluation(
        args.models,
        args.out,
        shared=config.shared_data_dir(args.shared),
        suite=args.suite,
        benchmarks=args.benchmarks,
        reference=args.reference,
        rerun=args.rerun,
        batch_size=args.batch_size,
        verbose=args.verbose,
        device=args.device,
        user_folders_only=args.user_folders_only,
        jobs=args.jobs,
    )
