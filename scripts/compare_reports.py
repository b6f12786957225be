"""Compare the numbers of two release reports (``report.json`` of ``mteb-contrastive evaluate``).

    python scripts/compare_reports.py BEFORE/report.json AFTER/report.json [--tolerance 1e-9]

Rows are matched by (task, split, subset, model) and comparisons by (task, split, subset,
reference, candidate). Every number is compared: the main score, the chance levels, the counts,
the secondary scores and every stored score of a row; the difference, interval, p-value and
verdict of a comparison. Timings (``evaluation_time_s``, ``*_seconds``) and paths are not numbers
of the report's content and are left out, as are ``encoding_cache_hits`` / ``encoding_texts_encoded``
(they depend on what the embedding cache already held).

Prints one line per difference and a summary; exit status 0 when both reports hold the same rows,
comparisons and numbers (within ``--tolerance``, absolute), 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

#: keys whose values depend on the run, not on what was measured
_VOLATILE = ("evaluation_time_s", "encoding_cache_hits", "encoding_texts_encoded")


def _volatile(key: str) -> bool:
    return key in _VOLATILE or key.endswith("_seconds") or key.endswith("_time")


def _flatten(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            if not _volatile(str(k)):
                _flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    elif isinstance(value, (int, float, bool)) or value is None:
        out[prefix] = value
    elif isinstance(value, str) and prefix.rsplit(".", 1)[-1] in ("verdict", "main_score_name", "statistic"):
        out[prefix] = value


def _numbers(item: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k in keys:
        if k in item:
            _flatten(k, item[k], out)
    return out


def _differ(a: Any, b: Any, tol: float) -> bool:
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return a != b
    if math.isnan(a) and math.isnan(b):
        return False
    return not abs(a - b) <= tol


def compare(before: dict[str, Any], after: dict[str, Any], tol: float) -> list[str]:
    """One line per difference between two reports (empty when they agree)."""
    lines: list[str] = []
    row_keys = (
        "main_score",
        "main_score_name",
        "chance",
        "chance_levels",
        "counts",
        "secondary",
        "scores",
        "higher_is_better",
    )
    comp_keys = (
        "reference_main",
        "candidate_main",
        "statistic",
        "n_items",
        "reference_value",
        "candidate_value",
        "diff",
        "ci_low",
        "ci_high",
        "p_value",
        "verdict",
        "n_resamples",
        "n_groups",
    )
    for what, field, ident, keys in (
        ("row", "rows", ("task", "split", "subset", "model"), row_keys),
        ("comparison", "comparisons", ("task", "split", "subset", "reference", "candidate"), comp_keys),
    ):
        a = {tuple(r[k] for k in ident): r for r in before.get(field, [])}
        b = {tuple(r[k] for k in ident): r for r in after.get(field, [])}
        for key in sorted(a.keys() - b.keys()):
            lines.append(f"{what} only before: {key}")
        for key in sorted(b.keys() - a.keys()):
            lines.append(f"{what} only after: {key}")
        for key in sorted(a.keys() & b.keys()):
            na, nb = _numbers(a[key], keys), _numbers(b[key], keys)
            for name in sorted(na.keys() | nb.keys()):
                if name not in na or name not in nb:
                    lines.append(f"{what} {key}: {name} only {'before' if name in na else 'after'}")
                elif _differ(na[name], nb[name], tol):
                    lines.append(f"{what} {key}: {name} {na[name]!r} -> {nb[name]!r}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument(
        "--tolerance",
        type=float,
        default=1e-9,
        help="largest absolute difference taken as equal (default: %(default)s)",
    )
    args = ap.parse_args(argv)
    before, after = (json.loads(p.read_text(encoding="utf-8")) for p in (args.before, args.after))
    lines = compare(before, after, args.tolerance)
    for line in lines:
        print(line)
    n_rows, n_comps = len(after.get("rows", [])), len(after.get("comparisons", []))
    print(
        f"{'same numbers' if not lines else f'{len(lines)} difference(s)'}: {n_rows} rows, {n_comps} comparisons "
        f"(tolerance {args.tolerance:g})"
    )
    return 0 if not lines else 1


if __name__ == "__main__":
    sys.exit(main())
