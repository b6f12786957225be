"""The training ablation of docs/training.md: base model vs Kirby's recipe and its variants vs the rival.

Each row trains one model with ``mteb-contrastive train`` / ``train-cross-encoder`` (a fresh
process), then evaluates it with the stock ``mteb run -m <folder> -t <tasks>`` (another fresh
process); wall times of both are measured. Rows (all on the same data and budget):

* ``base``: all-MiniLM-L6-v2 saved with ``max_seq_length`` = the training context length (no training);
* ``contrastive``: the recipe (temperature 0.01, span rotation);
* ``no-rotation``: the recipe without span rotation;
* ``t=0.1``: the recipe at temperature 0.1;
* ``cross-encoder``: the pair-classification rival (sigmoid output, BCE).

Training data: PAN 2014 known documents minus every author of the built ``PAN14Known`` benchmark's
validation and test splits (``--holdout``); validation during training: a class-balanced sample of
that benchmark's validation pairs. Evaluation: the verification task(s) (test split; calibration
fitted on the validation split by the protocol).

    PYTHONPATH=src HF_HUB_OFFLINE=1 MTEB_CONTRASTIVE_VERIFICATION=build/verification \\
        nice python scripts/training_ablation.py --out build/training [--rows base contrastive ...]
    python scripts/training_ablation.py --out build/training --table-only

Each finished row is saved as ``<out>/rows/<row>.json``; ``--table-only`` prints the table from them;
``--reuse`` evaluates a row's already trained model folder instead of training it again, and only
on the ``--tasks`` that row has no result for yet (e.g. ``--reuse --tasks ELTeCEngVerification``
adds the cross-corpus ELTeC evaluation). Rows are
independent: several invocations with different ``--rows`` may run side by side. Wall times in
the table: ``train (s)`` = the trainer's own time (``train_seconds`` of the model's
``training_config.json``: steps, per-epoch validation, checkpoints; not model loading),
``eval (s)`` = the whole ``mteb run`` process.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import time
from pathlib import Path

SHARED = Path(os.environ.get("MTEB_CONTRASTIVE_SHARED", Path(__file__).resolve().parents[1].parent / "shared" / "data"))
ROWS = ("base", "contrastive", "no-rotation", "t=0.1", "cross-encoder")


def row_command(row: str, out: Path, a: argparse.Namespace) -> list[str] | None:
    common = [
        "--docs",
        f"pan14={SHARED / 'pan' / 'pan14_known.jsonl.gz'}",
        "--holdout",
        str(a.holdout),
        "--out",
        str(out),
        "--context-length",
        str(a.context_length),
        "--batch-size",
        str(a.batch_size),
        "--epochs",
        str(a.epochs),
        "--learning-rate",
        str(a.learning_rate),
        "--passes",
        str(a.passes),
        "--max-validation-pairs",
        str(a.max_validation_pairs),
        "--seed",
        str(a.seed),
        "--no-progress",
    ]
    if row == "base":
        return None
    if row == "contrastive":
        return ["mteb-contrastive", "train", *common]
    if row == "no-rotation":
        return ["mteb-contrastive", "train", *common, "--no-rotation"]
    if row.startswith("t="):
        return ["mteb-contrastive", "train", *common, "--temperature", row[2:]]
    if row == "cross-encoder":
        return ["mteb-contrastive", "train-cross-encoder", *common]
    raise SystemExit(f"unknown row {row!r}; choose from {ROWS}")


def save_base(out: Path, context_length: int) -> None:
    from sentence_transformers import SentenceTransformer

    from mteb_contrastive.config import bundled_minilm

    m = SentenceTransformer(bundled_minilm(), device="cpu")
    m.max_seq_length = context_length
    m.save(str(out))


def scores_of(results: Path, task: str) -> dict:
    files = glob.glob(str(results / "**" / f"{task}.json"), recursive=True)
    if not files:
        return {}
    obj = json.loads(Path(files[0]).read_text())
    return obj["scores"]["test"][0]


def run_row(row: str, a: argparse.Namespace) -> dict:
    base = Path(a.out)
    model = base / "models" / row.replace("=", "")
    results = base / "results" / row.replace("=", "")
    cmd = row_command(row, model, a)
    t0 = time.monotonic()
    if cmd is None:
        save_base(model, a.context_length)
        train_log = {}
    elif a.reuse and (model / "training_config.json").is_file():
        # a model trained earlier by the same command: its own summary has the trainer's time and validation
        print(f"# {row}: reusing {model}", flush=True)
        cfg = json.loads((model / "training_config.json").read_text())
        train_log = {**cfg["summary"], "validation": json.loads((model / "verification_calibration.json").read_text())}
    else:
        print("$ " + " ".join(cmd), flush=True)
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            print(p.stderr[-3000:], file=sys.stderr)
            raise SystemExit(f"training row {row} failed (exit {p.returncode})")
        train_log = json.loads(p.stdout.strip().splitlines()[-1])
    train_s = time.monotonic() - t0
    rec_file = base / "rows" / f"{row.replace('=', '')}.json"
    old = json.loads(rec_file.read_text()) if a.reuse and rec_file.is_file() else {}
    old_eval = old.get("eval_seconds", {})
    if not isinstance(old_eval, dict):  # a record of one task
        old_eval = {t: old_eval for t in old.get("tasks", {})}
    tasks, eval_s, commands = dict(old.get("tasks", {})), dict(old_eval), list(old.get("eval_commands", []))
    for task in a.tasks:
        if a.reuse and tasks.get(task):
            print(f"# {row}: {task} already evaluated", flush=True)
            continue
        ev = [
            "mteb",
            "run",
            "-m",
            str(model),
            "-t",
            task,
            "--output-folder",
            str(results),
            "--prediction-folder",
            str(results / "predictions"),
            "--overwrite-strategy",
            "always",
            "-v",
            "1",
        ]
        print("$ " + " ".join(ev), flush=True)
        t1 = time.monotonic()
        p = subprocess.run(ev, capture_output=True, text=True)
        if p.returncode != 0:
            print(p.stderr[-3000:], file=sys.stderr)
            raise SystemExit(f"evaluation of row {row} on {task} failed (exit {p.returncode})")
        eval_s[task] = round(time.monotonic() - t1, 1)
        tasks[task] = scores_of(results, task)
        commands.append(" ".join(ev))
    rec = {
        "row": row,
        "train_command": " ".join(cmd) if cmd else "(no training)",
        "eval_commands": commands,
        "train_seconds": round(train_s, 1),
        "eval_seconds": eval_s,
        "train": train_log,
        "tasks": tasks,
    }
    rec_file.parent.mkdir(parents=True, exist_ok=True)
    rec_file.write_text(json.dumps(rec, indent=1, default=str))
    return rec


def table(out: Path, tasks: list[str]) -> str:
    """One markdown row per finished ablation row and per task."""
    recs = []
    for row in ROWS:
        f = out / "rows" / f"{row.replace('=', '')}.json"
        if f.is_file():
            recs.append(json.loads(f.read_text()))
    lines = [
        "| row | steps | train (s) | train-time val. AUC | train-time val. overall | task | eval (s) | val. overall | "
        "Platt slope | test score AUC | test AUC | test c@1 | test F0.5u | test overall |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for t in tasks:
        for r in recs:
            s = r["tasks"].get(t) or {}
            if not s:
                continue
            tr = r.get("train") or {}
            v = tr.get("validation") or {}
            ev = r["eval_seconds"] if isinstance(r["eval_seconds"], dict) else {t: r["eval_seconds"]}
            cells = [
                r["row"],
                str(tr.get("global_step", 0)),
                f"{tr.get('train_seconds', 0.0):.0f}",
                f"{v['validation_auc']:.3f}" if v else "-",
                f"{v['validation_overall']:.3f}" if v else "-",
                t,
                f"{ev.get(t, 0.0):.0f}",
            ]
            # the raw score's ROC AUC: Platt is strictly monotone, increasing when its slope is > 0, else decreasing
            score_auc = s["pan_platt_auc"] if s["platt_coef"] > 0 else 1.0 - s["pan_platt_auc"]
            cells += [f"{s['validation_platt_abstain_overall']:.3f}", f"{s['platt_coef']:.2f}", f"{score_auc:.3f}"] + [
                f"{s[f'pan_platt_abstain_{k}']:.3f}" for k in ("auc", "c_at_1", "f_05_u", "overall")
            ]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="build/training")
    ap.add_argument("--rows", nargs="+", default=list(ROWS))
    ap.add_argument("--tasks", nargs="+", default=["PAN14KnownVerification"])
    ap.add_argument("--holdout", default="build/verification/PAN14Known")
    ap.add_argument("--context-length", type=int, default=128)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--learning-rate", type=float, default=5e-5)
    ap.add_argument("--passes", type=int, default=5, help="times each training author is drawn per epoch")
    ap.add_argument("--seed", type=int, default=0, help="training seed of every row (a second seed: another --out)")
    ap.add_argument("--max-validation-pairs", type=int, default=100)
    ap.add_argument("--table-only", action="store_true")
    ap.add_argument(
        "--reuse", action="store_true", help="skip training when the row's model folder is already complete"
    )
    a = ap.parse_args(argv)
    if not a.table_only:
        for row in a.rows:
            rec = run_row(row, a)
            print(f"# {row}: train {rec['train_seconds']:.0f}s, eval {rec['eval_seconds']}", flush=True)
    print(table(Path(a.out), a.tasks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
