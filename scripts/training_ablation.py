"""The training ablation of docs/training.md: base model vs Kirby's recipe and its variants vs the rival, over seeds.

Each (row, seed) trains one model with ``mteb-contrastive train`` / ``train-cross-encoder`` (a fresh
process, ``OMP_NUM_THREADS`` as given, default 1), then evaluates it with the stock
``mteb run -m <folder> -t <tasks>`` (another fresh process); wall times of both are measured. Rows
(all on the same data and budget):

* ``base``: all-MiniLM-L6-v2 saved with ``max_seq_length`` = the training context length (no training, no seed);
* ``contrastive``: the recipe (SupCon at temperature 0.01, span rotation);
* ``no-rotation``: the recipe without span rotation;
* ``t=0.1``: the recipe at temperature 0.1;
* ``cross-encoder``: the pair-classification rival (sigmoid output, binary cross-entropy).

Training data: the PAN 2014 known documents with the collapse rule (``--duplicates collapse``: PAN
problems sharing a text are one author, as PAN14Known is built) minus every author of the built
``PAN14Known`` benchmark's validation and test splits (``--holdout``; ``train`` checks that no
validation or test text is left in the training documents); validation during training: that
benchmark's validation pairs (best checkpoint by validation F1). Evaluation: the verification
task(s) (test split; both calibrations fitted on the validation split by the protocol).

    export PYTHONPATH=src HF_HUB_OFFLINE=1 MTEB_CONTRASTIVE_VERIFICATION=build/verification
    nice -n 10 python scripts/training_ablation.py --out build/training --rows base contrastive --seeds 0 1 2
    python scripts/training_ablation.py --out build/training --table-only

Each finished run is saved as ``<out>/rows/<row>-s<seed>.json`` (``base.json`` for the base row);
``--table-only`` prints the table from them; ``--reuse`` evaluates an already trained model folder
instead of training it again, and only on the ``--tasks`` it has no result for yet. Runs are
independent: several invocations with different ``--rows`` / ``--seeds`` may run side by side.
Wall times in the table: ``train (s)`` = the trainer's own time (``train_seconds`` of the model's
``training_config.json``: steps, per-epoch validation, checkpoints; not model loading), ``eval (s)``
= the whole ``mteb run`` process.
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


def run_name(row: str, seed: int | None) -> str:
    """Folder / record name of one run: ``base``, ``contrastive-s0``, ``t0.1-s2``, ..."""
    name = row.replace("=", "")
    return name if row == "base" or seed is None else f"{name}-s{seed}"


def row_command(row: str, out: Path, seed: int, a: argparse.Namespace) -> list[str] | None:
    common = [
        "--docs",
        f"pan14={SHARED / 'pan' / 'pan14_known.jsonl.gz'}",
        "--duplicates",
        "collapse",
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
        "--seed",
        str(seed),
        "--no-progress",
    ]
    if a.max_validation_pairs:
        common += ["--max-validation-pairs", str(a.max_validation_pairs)]
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


def run_row(row: str, seed: int, a: argparse.Namespace) -> dict:
    base = Path(a.out)
    name = run_name(row, seed)
    model = base / "models" / name
    results = base / "results" / name
    cmd = row_command(row, model, seed, a)
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads), MKL_NUM_THREADS=str(a.threads))
    t0 = time.monotonic()
    if cmd is None:
        if not (a.reuse and model.is_dir()):
            save_base(model, a.context_length)
        train_log = {}
    elif a.reuse and (model / "training_config.json").is_file():
        # a model trained earlier by the same command: its own summary has the trainer's time and validation
        print(f"# {name}: reusing {model}", flush=True)
        cfg = json.loads((model / "training_config.json").read_text())
        train_log = {**cfg["summary"], "validation": json.loads((model / "verification_calibration.json").read_text())}
    else:
        print("$ " + " ".join(cmd), flush=True)
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if p.returncode != 0:
            print(p.stderr[-3000:], file=sys.stderr)
            raise SystemExit(f"training run {name} failed (exit {p.returncode})")
        train_log = json.loads(p.stdout.strip().splitlines()[-1])
    train_s = time.monotonic() - t0
    rec_file = base / "rows" / f"{name}.json"
    old = json.loads(rec_file.read_text()) if a.reuse and rec_file.is_file() else {}
    tasks, eval_s = dict(old.get("tasks", {})), dict(old.get("eval_seconds", {}))
    commands = list(old.get("eval_commands", []))
    for task in a.tasks:
        if a.reuse and tasks.get(task):
            print(f"# {name}: {task} already evaluated", flush=True)
            continue
        ev = ["mteb", "run", "-m", str(model), "-t", task, "--output-folder", str(results)]
        ev += ["--prediction-folder", str(results / "predictions"), "--overwrite-strategy", "always", "-v", "1"]
        print("$ " + " ".join(ev), flush=True)
        t1 = time.monotonic()
        p = subprocess.run(ev, capture_output=True, text=True, env=env)
        if p.returncode != 0:
            print(p.stderr[-3000:], file=sys.stderr)
            raise SystemExit(f"evaluation of {name} on {task} failed (exit {p.returncode})")
        eval_s[task] = round(time.monotonic() - t1, 1)
        tasks[task] = scores_of(results, task)
        commands.append(" ".join(ev))
    rec = {
        "row": row,
        "seed": None if row == "base" else seed,
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


def raw_score_auc(results: Path, task: str) -> float | None:
    """ROC AUC of the raw pair score (cosine or probability) on the test pairs, from the predictions ``mteb run``
    wrote (``similarity`` and ``labels``); None without them."""
    from sklearn.metrics import roc_auc_score

    files = sorted((results / "predictions").rglob(f"{task}_predictions.json"))
    if not files:
        return None
    pred = json.loads(files[-1].read_text())["default"]["test"]
    return float(roc_auc_score(pred["labels"], pred["similarity"]))


COLUMNS = (
    "| run | steps | train (s) | eval (s) | val. F1 (training) | test score AUC | test accuracy (Kirby) | "
    "test F1 (Kirby) | test overall | test overall (Kirby) |"
)


def records(out: Path) -> list[dict]:
    """Every finished run, in :data:`ROWS` order then by seed."""
    recs = [json.loads(f.read_text()) for f in sorted((out / "rows").glob("*.json"))]
    return sorted(recs, key=lambda r: (ROWS.index(r["row"]) if r["row"] in ROWS else 99, r.get("seed") or 0))


def table(out: Path, tasks: list[str]) -> str:
    """One markdown row per finished run and task (module docstring; columns explained in docs/training.md)."""
    lines = []
    for t in tasks:
        lines += [f"Task {t}", COLUMNS, "|---|---|---|---|---|---|---|---|---|---|"]
        for r in records(out):
            s = r["tasks"].get(t) or {}
            if not s:
                continue
            tr = r.get("train") or {}
            v = tr.get("validation") or {}
            score_auc = raw_score_auc(out / "results" / run_name(r["row"], r.get("seed")), t)
            cells = [
                run_name(r["row"], r.get("seed")),
                str(tr.get("global_step", 0)),
                f"{tr.get('train_seconds', 0.0):.0f}",
                f"{r['eval_seconds'].get(t, 0.0):.0f}",
                f"{v['validation_f1']:.3f}" if "validation_f1" in v else "-",
                f"{score_auc:.3f}" if score_auc is not None else "-",
                f"{s['pan_kirby_hard_accuracy']:.3f}",
                f"{s['pan_kirby_hard_f1']:.3f}",
                f"{s['pan_platt_abstain_overall']:.3f}",
                f"{s['pan_kirby_platt_abstain_overall']:.3f}",
            ]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines).rstrip()


def summary(out: Path, task: str) -> str:
    """One markdown row per ablation row: the mean over its seeds and, in brackets, the lowest and highest seed."""
    by_row: dict[str, list[dict]] = {}
    for r in records(out):
        if r["tasks"].get(task):
            by_row.setdefault(r["row"], []).append(r)

    def cell(values: list[float]) -> str:
        if len(values) == 1:
            return f"{values[0]:.3f}"
        return f"{sum(values) / len(values):.3f} [{min(values):.3f}, {max(values):.3f}]"

    lines = [
        f"Task {task}: mean over seeds [lowest, highest seed]",
        "| row | seeds | steps | train (s) | test score AUC | test accuracy (Kirby) | test overall | "
        "test overall (Kirby) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row, recs in by_row.items():
        s = [r["tasks"][task] for r in recs]
        auc = [raw_score_auc(out / "results" / run_name(r["row"], r.get("seed")), task) for r in recs]
        tr = [r.get("train") or {} for r in recs]
        seeds = ", ".join(str(r["seed"]) for r in recs if r.get("seed") is not None) or "-"
        train_s = sum(t.get("train_seconds", 0.0) for t in tr) / len(tr)
        cells = [
            row,
            seeds,
            str(tr[0].get("global_step", 0)),
            f"{train_s:.0f}",
            cell([a for a in auc if a is not None]),
        ]
        cells += [cell([x[k] for x in s]) for k in ("pan_kirby_hard_accuracy", "pan_platt_abstain_overall")]
        cells.append(cell([x["pan_kirby_platt_abstain_overall"] for x in s]))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="build/training")
    ap.add_argument("--rows", nargs="+", default=list(ROWS))
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2], help="training seeds of every trained row")
    ap.add_argument("--tasks", nargs="+", default=["PAN14KnownVerification"])
    ap.add_argument("--holdout", default="build/verification/PAN14Known")
    ap.add_argument("--context-length", type=int, default=128)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--learning-rate", type=float, default=5e-5)
    ap.add_argument("--max-validation-pairs", type=int, default=None, help="default: every validation pair")
    ap.add_argument("--threads", type=int, default=1, help="OMP_NUM_THREADS of each training / evaluation process")
    ap.add_argument("--table-only", action="store_true")
    ap.add_argument("--summary", action="store_true", help="with --table-only: one row per ablation row (seed means)")
    ap.add_argument("--reuse", action="store_true", help="skip training when the run's model folder is complete")
    a = ap.parse_args(argv)
    if not a.table_only:
        for row in a.rows:
            for seed in [None] if row == "base" else a.seeds:
                rec = run_row(row, seed if seed is not None else 0, a)
                print(f"# {run_name(row, seed)}: train {rec['train_seconds']:.0f}s, eval {rec['eval_seconds']}")
    if a.summary:
        print("\n\n".join(summary(Path(a.out), t) for t in a.tasks))
    else:
        print(table(Path(a.out), a.tasks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
