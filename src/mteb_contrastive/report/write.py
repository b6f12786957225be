"""``report.md`` + ``report.json`` + ``report.csv`` (+ ``plots/*.png``) from one results folder.

The report is made in four steps, one module each: :mod:`.build` assembles it (typed records of
:mod:`.rows`), :mod:`.statistics` gives each row its chance level and interval and each pair of
rows its comparison, :mod:`.figures` draws, :mod:`.render` prints. All three files are written
atomically.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mteb_contrastive.data.atomic import sweep_stale, write_text_atomic
from mteb_contrastive.report.build import build, build_report, project_revision
from mteb_contrastive.report.render import fmt, plural, render_csv, render_markdown, score_table
from mteb_contrastive.report.statistics import compare_rows, resampling, row_chance, separability

__all__ = [
    "build",
    "build_report",
    "compare_rows",
    "fmt",
    "plural",
    "project_revision",
    "render_csv",
    "render_markdown",
    "resampling",
    "row_chance",
    "score_table",
    "separability",
    "write_report",
]


def write_report(results_dir: str | Path, out_dir: str | Path, **kwargs: Any) -> Path:
    """Write ``report.md``, ``report.json``, ``report.csv`` and ``plots/`` into ``out_dir``;
    return the ``report.md`` path.

    Keyword arguments go to :func:`~.build.build` (``plots_dir`` is ``out_dir/plots``).
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    sweep_stale(out_dir)
    sweep_stale(out_dir / "plots")  # a plot a killed run was writing, whether or not this report draws it
    rep = build(results_dir, plots_dir=out_dir / "plots", **kwargs)
    write_text_atomic(
        out_dir / "report.json", json.dumps(rep.to_json(), indent=2, ensure_ascii=False, default=str) + "\n"
    )
    write_text_atomic(out_dir / "report.csv", render_csv(rep))
    md = out_dir / "report.md"
    write_text_atomic(md, render_markdown(rep, plots_rel=Path("plots")))
    return md
