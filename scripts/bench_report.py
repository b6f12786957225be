"""Benchmark: the report of an ``evaluate`` output folder written with its figures drawn by one process and by two
(``write_report(..., plot_jobs=1 | 2)``, :func:`mteb_contrastive.report.plots.make_and_save`), rounds alternated in
one process (the first round also loads each task's qrels and labels: compare like rounds), the PNG files
checked equal.

    python scripts/bench_report.py OUT [--rounds 3] [-m MODEL ...]

``OUT``: the output folder of ``mteb-contrastive evaluate`` (``make run``: ``build/release``), read only: its
results, predictions and ``run_info.json`` are copied into a temporary folder, where the reports are written
(removed at the end).
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from bench_env import cpu_model


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("-m", "--model", action="append", help="the report's models in order (default: run_info.json's)")
    args = ap.parse_args()
    import mteb  # noqa: F401  (registers the tasks the report loads references of)

    from mteb_contrastive.report.environment import RUN_INFO, read_run_info

    src = args.out.resolve()
    runs = (read_run_info(src / RUN_INFO) or {}).get("runs", [])
    models = args.model or list(dict.fromkeys(r["model"] for r in runs))
    if not models:
        print(f"error: {src / RUN_INFO}: no run recorded; give the output folder of mteb-contrastive evaluate")
        return 2
    with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp:
        out = Path(tmp) / "out"
        out.mkdir()
        for name in ("results", "predictions"):
            shutil.copytree(src / name, out / name)
        shutil.copy2(src / RUN_INFO, out / RUN_INFO)
        return _rounds(out, models, args.rounds)


def _rounds(out: Path, models: list[str], rounds: int) -> int:
    """The rounds on the copy ``out`` (module docstring); prints the table."""
    from mteb_contrastive.layout import model_root
    from mteb_contrastive.report import plots
    from mteb_contrastive.report.write import write_report

    prediction_dirs = {m: model_root(out / "predictions", m) for m in models}
    plots.pyplot()  # imported before the rounds, as evaluate does while the runs work
    print(f"CPU: {cpu_model()}, {os.cpu_count()} logical cores; models: {', '.join(models)}\n")
    print("| round | plot_jobs | report s | figures |")
    print("|---:|---:|---:|---:|")
    files = {}
    for r in range(1, rounds + 1):
        for jobs in (1, 2):
            t = time.perf_counter()
            write_report(
                out / "results",
                out,
                models=models,
                prediction_dirs=prediction_dirs,
                reference_model=models[0],
                load_references=True,
                plot_jobs=jobs,
            )
            wall = time.perf_counter() - t
            pngs = {p.name: p.read_bytes() for p in sorted((out / "plots").glob("*.png"))}
            files.setdefault(jobs, pngs)
            print(f"| {r} | {jobs} | {wall:.2f} | {len(pngs)} |", flush=True)
    print(f"\nthe same PNG files with 1 and 2 processes: {files[1] == files[2]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
