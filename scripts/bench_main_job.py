"""Benchmark: the main job (``make run``'s evaluate command) cold, against the time spent inside
``SentenceTransformer.encode`` in the same run (issue: at most 1.3x).

Cold: the output folder, the project's cache root (IR triplets built on first load, digests, chance
simulations), the embedding cache, mteb's cache and the datasets cache are fresh temporary folders; only the
model files stay where ``mteb-contrastive seed-model`` put them (the Hub is not reachable here). Every Python
process of the run (evaluate itself and each ``mteb run`` it starts) loads a probe (``sitecustomize`` on
``PYTHONPATH``) that times ``SentenceTransformer.encode`` (outermost calls only) and writes, at exit, its
encode seconds (CPU and wall) beside its own totals. Printed: the whole run's wall and CPU seconds (its process
and every child, ``RUSAGE_CHILDREN``), the seconds inside encode, their ratios, one line per process and a
timeline (each process's start, fork, first and last encode, exit). The process that forks the ``mteb run`` processes
(``cli/prestart.py``) ends with ``os._exit``, so it writes no line of its own: its CPU (the imports it does
for the runs) is in the whole run's CPU, not in any process line.

    python scripts/bench_main_job.py [--suite default] [-m MODEL ...] [--jobs N ...] [--keep DIR]

Two versions of the code side by side: ``--against OTHER/src`` (the ``src`` folder of another checkout, e.g. a
``git worktree`` of an older commit) with ``--rounds N`` runs N rounds, each one cold run of this checkout's code
and one of the other's (put first on ``PYTHONPATH``), alternated, and prints one row per run and the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_env import cpu_model

PROBE = """
import atexit, json, os, sys, time, importlib.abc, importlib.machinery

_log = os.environ.get("BENCH_ENCODE_LOG")
_state = {"cpu": 0.0, "wall": 0.0, "calls": 0, "depth": 0, "first": None, "last": None}
_start = (time.process_time(), time.perf_counter(), time.time())
_forked = []
os.register_at_fork(after_in_child=lambda: _forked.append(time.time()))


def _patch(module):
    cls = getattr(module, "SentenceTransformer", None)
    if cls is None or getattr(cls.encode, "_bench_probe", False):
        return
    inner = cls.encode

    def encode(self, *args, **kwargs):
        if _state["depth"]:
            return inner(self, *args, **kwargs)
        _state["depth"] += 1
        c0, t0 = time.process_time(), time.perf_counter()
        if _state["first"] is None:
            _state["first"] = time.time()
        try:
            return inner(self, *args, **kwargs)
        finally:
            _state["cpu"] += time.process_time() - c0
            _state["wall"] += time.perf_counter() - t0
            _state["calls"] += 1
            _state["depth"] -= 1
            _state["last"] = time.time()

    encode._bench_probe = True
    cls.encode = encode


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "sentence_transformers":
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.machinery.PathFinder.find_spec(name, path)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            _patch(module)

        spec.loader.exec_module = exec_module
        return spec


if _log:
    sys.meta_path.insert(0, _Finder())

    @atexit.register
    def _write():
        row = {
            "pid": os.getpid(),
            "argv": sys.argv[:8],
            "encode_cpu": _state["cpu"],
            "encode_wall": _state["wall"],
            "encode_calls": _state["calls"],
            "process_cpu": time.process_time() - _start[0],
            "process_wall": time.perf_counter() - _start[1],
            "start_epoch": _start[2],
            "fork_epoch": _forked[-1] if _forked else None,
            "first_encode_epoch": _state["first"],
            "last_encode_epoch": _state["last"],
            "exit_epoch": time.time(),
        }
        with open(_log, "a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\\n")
"""


def one_run(
    models: list[str], suite: str, jobs: int, keep: Path | None, src: Path | None = None, quiet: bool = False
) -> tuple[float, float, list[dict]] | int:
    """One cold evaluate in fresh temporary folders: (wall s, CPU s of it and its children, one row per
    process from the probe), or the evaluate command's exit status when it failed. ``src``: a package
    folder put first on ``PYTHONPATH`` (another checkout's code)."""
    tmp = Path(tempfile.mkdtemp(prefix="bench-main-job-"))
    try:
        probe = tmp / "probe"
        probe.mkdir()
        (probe / "sitecustomize.py").write_text(PROBE, encoding="utf-8")
        log = tmp / "encode.jsonl"
        env = dict(os.environ)
        env.update(
            PYTHONPATH=os.pathsep.join(x for x in (str(probe), str(src or ""), env.get("PYTHONPATH", "")) if x),
            BENCH_ENCODE_LOG=str(log),
            MTEB_CONTRASTIVE_CACHE=str(tmp / "cache"),
            MTEB_CONTRASTIVE_EMBEDDING_CACHE_DIR=str(tmp / "embeddings"),
            MTEB_CACHE=str(tmp / "mteb-cache"),
            HF_DATASETS_CACHE=str(tmp / "datasets-cache"),
            HF_HUB_OFFLINE="1",
        )
        exe = shutil.which("mteb-contrastive") or "mteb-contrastive"
        cmd = [exe, "evaluate", *[x for m in models for x in ("-m", m)], "--suite", suite]
        cmd += ["--jobs", str(jobs), "--out", str(tmp / "out")]
        if not quiet:
            print("command: " + " ".join(cmd[1:]))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0, epoch0 = time.perf_counter(), time.time()
        rc = subprocess.call(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = ru.ru_utime + ru.ru_stime - before.ru_utime - before.ru_stime
        if rc != 0:
            print(f"error: the evaluate command exited {rc}", file=sys.stderr)
            return rc
        rows = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines() if x.strip()]
        for r in rows:  # the timeline: seconds since the evaluate command started
            for key in ("start", "fork", "first_encode", "last_encode", "exit"):
                at = r.get(f"{key}_epoch")
                r[f"{key}_at"] = None if at is None else at - epoch0
        if keep is not None:
            shutil.copytree(tmp, keep / f"jobs{jobs}")
        return wall, cpu, rows
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", default="default")
    ap.add_argument(
        "-m", dest="models", action="append", help="models (default: make run's MiniLM and BM25)", default=None
    )
    ap.add_argument(
        "--jobs",
        type=int,
        action="append",
        help="evaluate --jobs; repeat to run each, one after another (default: make run's, 2)",
    )
    ap.add_argument("--keep", type=Path, help="keep the runs' folders here (must not exist)")
    ap.add_argument("--against", type=Path, help="the src folder of another checkout, run alternated with this one")
    ap.add_argument("--rounds", type=int, default=1, help="rounds of --against (one run of each code per round)")
    args = ap.parse_args()
    models = args.models or ["sentence-transformers/all-MiniLM-L6-v2", "mteb/baseline-bm25s"]
    jobs_list = args.jobs or [2]
    if args.keep is not None and args.keep.exists():  # checked before the run: nothing a user has is overwritten
        print(f"error: --keep {args.keep}: already exists; name a folder that does not", file=sys.stderr)
        return 2
    if args.rounds < 1 or (args.rounds > 1 and args.against is None):
        print("error: --rounds: give a number >= 1, with --against (rounds alternate two checkouts)", file=sys.stderr)
        return 2
    print(f"CPU: {cpu_model()}, {os.cpu_count()} logical cores; OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}")
    if args.against is not None:
        if not (args.against / "mteb_contrastive" / "__init__.py").is_file():
            print(
                f"error: --against {args.against}: no mteb_contrastive package there; give a checkout's src folder",
                file=sys.stderr,
            )
            return 2
        return alternated(models, args.suite, jobs_list[0], args.against, args.rounds)
    done = []
    for jobs in jobs_list:
        got = one_run(models, args.suite, jobs, args.keep)
        if isinstance(got, int):
            return got
        done.append((jobs, *got))
    print()
    print("| evaluate --jobs | part | wall s | CPU s |")
    print("|---:|---|---:|---:|")
    for jobs, wall, cpu, rows in done:
        enc_cpu = sum(r["encode_cpu"] for r in rows)
        enc_wall = sum(r["encode_wall"] for r in rows)
        print(f"| {jobs} | whole run, cold | {wall:.1f} | {cpu:.1f} |")
        print(f"| {jobs} | inside SentenceTransformer.encode | {enc_wall:.1f} | {enc_cpu:.1f} |")
        print(f"| {jobs} | whole run / encode (goal <= 1.3) | {wall / enc_wall:.2f}x | {cpu / enc_cpu:.2f}x |")
    print()
    print("| evaluate --jobs | process | wall s | CPU s | encode wall s | encode CPU s | encode calls |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for jobs, _, _, rows in done:
        for r in rows:
            name = " ".join(Path(r["argv"][0]).name.split()[:1] + r["argv"][1:4])
            print(
                f"| {jobs} | {name} | {r['process_wall']:.1f} | {r['process_cpu']:.1f} | {r['encode_wall']:.1f} | "
                f"{r['encode_cpu']:.1f} | {r['encode_calls']} |"
            )
    print()
    print("Timeline, seconds since the evaluate command started (- : not forked, never encoded; a forked run")
    print("starts with the process it was forked from):")
    print()
    print("| evaluate --jobs | process | starts | forked | first encode | last encode ends | exits |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for jobs, wall, _, rows in done:
        for r in sorted(rows, key=lambda r: r["start_at"]):
            name = " ".join(Path(r["argv"][0]).name.split()[:1] + r["argv"][1:4])
            cells = [r[k] for k in ("start_at", "fork_at", "first_encode_at", "last_encode_at", "exit_at")]
            shown = " | ".join("-" if c is None else f"{c:.1f}" for c in cells)
            print(f"| {jobs} | {name} | {shown} |")
        print(f"| {jobs} | (the evaluate command returns) | | | | | {wall:.1f} |")
    return 0


def alternated(models: list[str], suite: str, jobs: int, against: Path, rounds: int) -> int:
    """``rounds`` rounds of one cold run of this checkout's code and one of ``against``'s, alternated (the
    other code first in odd rounds); one row per run, then the medians of each code."""
    import statistics

    here = Path(__file__).resolve().parent.parent / "src"
    print(f"this code: {here}; other code: {against.resolve()}; {rounds} rounds alternated, evaluate --jobs {jobs}")
    print()
    print("| round | code | whole run s | inside encode s | whole / encode (goal <= 1.3) | MiniLM run forked at s |")
    print("|---:|---|---:|---:|---:|---:|")
    ratios: dict[str, list[float]] = {"this": [], "other": []}
    for i in range(1, rounds + 1):
        order = [("other", against), ("this", here)] if i % 2 else [("this", here), ("other", against)]
        for name, src in order:
            got = one_run(models, suite, jobs, None, src=src, quiet=True)
            if isinstance(got, int):
                return got
            wall, _, rows = got
            enc = sum(r["encode_wall"] for r in rows)
            forks = [r["fork_at"] for r in rows if r["encode_calls"] and r["fork_at"] is not None]
            ratios[name].append(wall / enc)
            fork = f"{min(forks):.1f}" if forks else "-"
            print(f"| {i} | {name} | {wall:.1f} | {enc:.1f} | {wall / enc:.2f}x | {fork} |", flush=True)
    print()
    for name, got in ratios.items():
        print(
            f"{name}: median {statistics.median(got):.2f}x, range {min(got):.2f}-{max(got):.2f}x over {len(got)} runs"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
