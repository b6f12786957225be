"""The tables of docs/training.md's CPU run: the training curve, and trained vs base with Holm-adjusted verdicts.

    python scripts/train_cpu_table.py RUN_DIR [--model contrastive-s0]

Reads ``RUN_DIR/models/<model>/training_log.jsonl`` (or ``<model>.checkpoints/``, for a run still going) and
``RUN_DIR/eval/report.json`` (written by ``mteb-contrastive evaluate -m base -m trained``) and prints:

1. the training curve: per logging interval, the mean SupCon loss, the last step's gradient norm, the learning rate,
   seconds since the first log; and every validation (F1 at the F1 threshold, the selection metric; AUC);
2. the comparison table of the report as the report computed it (its paired bootstrap intervals, resampled by
   each family's unit, its randomisation p values, its Holm adjustment over every comparison of the report, and
   its verdict: "better"/"worse" only when the interval excludes 0 and the adjusted p is below 0.05). Each row's
   chance level is the report's own (the ``chance`` of the reference row).

``--seeds M1 M2 ...`` (the trained models of several seeds, report names such as ``local/s1``) prints instead
the validation AUC of each seed's run per evaluation step (``--seed-logs`` names their training-log folders, same
order) and one row per benchmark: the reference (``--reference``, default ``local/base``) and each seed's
difference with its interval and verdict, as the report computed them, and how many seeds are better, within
noise, worse. Seeds are not averaged into one test: each is its own comparison in the report's Holm family.

    python scripts/train_cpu_table.py RUN --seeds local/s0 local/s1 local/s2 --seed-logs DIR0 DIR1 DIR2
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path


def _log(run: Path, model: str) -> list[dict]:
    for p in (
        run / "models" / model / "training_log.jsonl",
        run / "models" / f"{model}.checkpoints" / "training_log.jsonl",
    ):
        if p.is_file():
            return [json.loads(x) for x in p.read_text().splitlines() if x.strip()]
    return []


def curve(run: Path, model: str, every: int = 1) -> str:
    """The loss log (every ``every``-th logged step, and the first and last) and every validation."""
    log = _log(run, model)
    if not log:
        return f"(no training log for {model})"
    t0 = log[0]["unix_time"]
    lines = ["| step | loss (mean since last log) | grad norm (last step) | learning rate | s since step 10 |"]
    lines.append("|---|---|---|---|---|")
    logged = [r for r in log if "loss" in r]
    last = logged[-1]["step"] if logged else None
    for r in logged:
        if r is logged[0] or r["step"] % every == 0 or r["step"] == last:
            lines.append(
                f"| {r['step']} | {r['loss']:.2f} | {r.get('grad_norm', float('nan')):.1f} | "
                f"{r['learning_rate']:.2e} | {r['unix_time'] - t0:.0f} |"
            )
    lines += ["", "| step | validation F1 (selection) | validation AUC | validation accuracy |", "|---|---|---|---|"]
    for r in log:
        if "eval_validation_f1" in r:
            lines.append(
                f"| {r['step']} | {r['eval_validation_f1']:.3f} | {r['eval_validation_auc']:.3f} | "
                f"{r['eval_validation_accuracy']:.3f} |"
            )
    return "\n".join(lines)


def _chance(rep: dict, task: str, subset: str, model: str):
    for r in rep.get("rows", []):
        if r.get("task") == task and r.get("subset") == subset and r.get("model") == model:
            c = r.get("chance")
            if isinstance(c, dict):
                return c.get("value", c.get("mean"))
            return c
    return None


def _num(x, fmt: str = "{:.3f}") -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else fmt.format(x)


def comparison(run: Path) -> str:
    """The report's comparisons as they are (its Holm-adjusted p over every comparison of the report, its
    verdict: interval and adjusted test), one row per model pair and task, with the reference's chance."""
    rep = json.loads((run / "eval" / "report.json").read_text())
    comps = [c for c in rep["comparisons"] if c.get("statistic") is not None]
    lines = [
        f"{len(comps)} comparisons with a statistic (the report's Holm adjustment runs over all its comparisons)",
        "",
        "| task | subset | statistic | chance | reference | candidate | reference value | candidate value | difference "
        "| 95% interval | unit (n) | p | Holm p | verdict |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in comps:
        units = c.get("n_groups") or c.get("n_items")
        chance = _num(_chance(rep, c["task"], c["subset"], c["reference"]))
        lines.append(
            f"| {c['task']} | {c['subset']} | {c['statistic']} | {chance} | {c['reference']} | {c['candidate']} "
            f"| {c['reference_value']:.3f} | {c['candidate_value']:.3f} | {c['diff']:+.3f} | "
            f"[{c['ci_low']:+.3f}, {c['ci_high']:+.3f}] | {c.get('unit')} ({units}) | {_num(c.get('p_value'))} | "
            f"{_num(c.get('p_holm'))} | {c['verdict']} |"
        )
    return "\n".join(lines)


def seeds_table(run: Path, reference: str, seeds: list[str], logs: list[str]) -> str:
    """Validation AUC per step of each seed, and the benchmark rows: reference vs each seed (the report's own)."""
    lines = []
    if logs:
        curves = []
        for d in logs:
            rows = [json.loads(x) for x in (Path(d) / "training_log.jsonl").read_text().splitlines() if x.strip()]
            curves.append({r["step"]: r["eval_validation_auc"] for r in rows if "eval_validation_auc" in r})
        steps = sorted(set().union(*curves))
        lines += ["| step | " + " | ".join(f"validation AUC, {m}" for m in seeds) + " |"]
        lines += ["|---|" + "---|" * len(seeds)]
        for st in steps:
            lines.append(f"| {st} | " + " | ".join(_num(c.get(st)) for c in curves) + " |")
        lines.append("")
    rep = json.loads((run / "eval" / "report.json").read_text())
    every = rep["comparisons"] + rep.get("topic_comparisons", [])  # the topic-controlled items: rows of their own
    comps = [c for c in every if c.get("statistic") is not None and c["reference"] == reference]
    keys = []
    for c in comps:
        k = (c["task"], c["subset"], c["statistic"])
        if k not in keys:
            keys.append(k)
    head = "| task | subset | statistic | chance | " + reference + " | "
    head += " | ".join(f"{m}: difference [95% interval], Holm p, verdict" for m in seeds)
    head += " | better / within noise / worse |"
    lines += [
        f"{len(rep['comparisons'])} comparisons and {len(rep.get('topic_comparisons', []))} on topic-controlled items "
        f"in the report's Holm family; differences = seed - {reference}",
        "",
        head,
        "|---|---|---|---|---|" + "---|" * len(seeds) + "---|",
    ]
    for task, subset, stat in keys:
        by = {c["candidate"]: c for c in comps if (c["task"], c["subset"], c["statistic"]) == (task, subset, stat)}
        cells, verdicts = [], []
        ref_value = None
        for m in seeds:
            c = by.get(m)
            if c is None:
                cells.append("n/a")
                continue
            ref_value = c["reference_value"]
            verdicts.append(c["verdict"])
            cells.append(
                f"{c['diff']:+.3f} [{c['ci_low']:+.3f}, {c['ci_high']:+.3f}], {_num(c.get('p_holm'))}, {c['verdict']}"
            )
        tally = "/".join(str(verdicts.count(v)) for v in ("better", "within noise", "worse"))
        chance = _num(_chance(rep, task, subset, reference))
        lines.append(
            f"| {task} | {subset} | {stat} | {chance} | {_num(ref_value)} | " + " | ".join(cells) + f" | {tally} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run")
    ap.add_argument("--model", default="contrastive-s0")
    ap.add_argument("--curve-only", action="store_true")
    ap.add_argument("--seeds", nargs="+", help="report names of several seeds' trained models")
    ap.add_argument("--seed-logs", nargs="*", default=[], help="their training-log folders, same order")
    ap.add_argument("--reference", default="local/base")
    ap.add_argument("--every", type=int, default=1, help="print the loss of every N-th step (default: every log)")
    a = ap.parse_args(argv)
    run = Path(a.run)
    if a.seeds:
        print(seeds_table(run, a.reference, a.seeds, a.seed_logs))
        return 0
    print(curve(run, a.model, a.every))
    if not a.curve_only:
        print()
        print(comparison(run))
    return 0


if __name__ == "__main__":
    sys.exit(main())
