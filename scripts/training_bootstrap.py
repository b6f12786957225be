"""Noise level of the training ablation: paired bootstrap of each row against ``base`` on the same test pairs.

Reads the per-pair predictions that ``scripts/training_ablation.py`` asks ``mteb run`` to write
(``<out>/results/<row>/predictions/.../<task>_predictions.json``: pair ids, the raw pair score
``similarity`` -- cosine or cross-encoder probability -- and the Platt+abstain answers) and the
task's test truth (``<verification folder>/<benchmark>/test/truth.jsonl``). For each row and
statistic it prints the base value, the row's value, the difference and its 95% paired-bootstrap
interval, the randomisation-test p value and the verdict
(:func:`mteb_contrastive.report.compare.paired_bootstrap`: Efron & Tibshirani 1993 percentile
interval, Koehn 2004 paired resampling; 1,000 resamples by default, seed 0). Statistics:

* ``score AUC``: ROC AUC of the raw pair score (scikit-learn ``roc_auc_score``) -- the ranking,
  independent of calibration; computed on each model's within-model ranks of its scores (same
  AUC), so that the randomisation test swaps comparable values between a cosine and a probability;
* ``test overall``: the PAN overall score of the Platt+abstain answers
  (:func:`mteb_contrastive.report.compare.pan_overall_statistic`, the official metrics).

    PYTHONPATH=src python scripts/training_bootstrap.py --out build/training --task PAN14KnownVerification \\
        --truth build/verification/PAN14Known/test/truth.jsonl [--rows contrastive no-rotation ...]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np


def load_row(out: Path, row: str, task: str) -> dict | None:
    from mteb_contrastive.report.reader import read_predictions

    folder = out / "results" / row.replace("=", "") / "predictions"
    files = sorted(folder.rglob(f"{task}_predictions.json"))
    if not files:
        return None
    pred = read_predictions(files[-1].parent, task, "default", "test")
    return pred


def main(argv: list[str] | None = None) -> int:
    from scipy.stats import rankdata
    from sklearn.metrics import roc_auc_score

    from mteb_contrastive.report.compare import paired_bootstrap, pan_overall_statistic

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="build/training")
    ap.add_argument("--task", default="PAN14KnownVerification")
    ap.add_argument("--truth", default="build/verification/PAN14Known/test/truth.jsonl")
    ap.add_argument("--reference", default="base")
    ap.add_argument("--rows", nargs="+", default=["contrastive", "no-rotation", "t=0.1", "cross-encoder"])
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--year", type=int, default=2021)
    a = ap.parse_args(argv)
    from mteb_contrastive.data.pan import read_truth

    truth = {r["id"]: int(r["same"]) for r in read_truth(a.truth)}
    ref = load_row(Path(a.out), a.reference, a.task)
    if ref is None:
        print(f"error: no predictions of row {a.reference!r} for {a.task} under {a.out}/results", file=sys.stderr)
        return 2
    ids = [str(i) for i in ref["id"]]
    labels = np.array([truth[i] for i in ids])

    def arrays(pred: dict) -> dict:
        pos = {str(i): k for k, i in enumerate(pred["id"])}
        order = [pos[i] for i in ids]
        # one dict per statistic: the model's values under "answers" (the key the randomisation test swaps)
        return {
            # the raw score as its within-model rank in (0, 1]: the AUC is unchanged (a monotone map),
            # and the randomisation test then swaps comparable values between a cosine and a probability
            "score AUC": {
                "labels": labels,
                "answers": rankdata(np.asarray(pred["similarity"], dtype=float)[order]) / len(order),
            },
            "test overall": {
                "labels": labels,
                "answers": np.asarray(pred["platt_abstain"], dtype=float)[order],
                "year": a.year,
            },
        }

    def auc(d: dict, idx: np.ndarray) -> float:
        y = d["labels"][idx]
        return float("nan") if y.min() == y.max() else float(roc_auc_score(y, d["answers"][idx]))

    base = arrays(ref)
    print(
        f"Task {a.task}, {len(ids)} test pairs ({int(labels.sum())} same-author); "
        f"reference row: {a.reference}; {a.resamples} paired resamples, seed 0"
    )
    print("| row | statistic | base | row | difference | 95% interval | p (randomisation) | verdict |")
    print("|---|---|---|---|---|---|---|---|")
    for row in a.rows:
        pred = load_row(Path(a.out), row, a.task)
        if pred is None:
            print(f"| {row} | (no predictions) | | | | | | |")
            continue
        cand = arrays(pred)
        for name, stat in (("score AUC", auc), ("test overall", pan_overall_statistic)):
            c = paired_bootstrap(
                base[name], cand[name], statistic=stat, n=len(ids), statistic_name=name, n_resamples=a.resamples, seed=0
            )
            print(
                f"| {row} | {name} | {c.reference_value:.3f} | {c.candidate_value:.3f} | {c.diff:+.3f} | "
                f"[{c.ci_low:+.3f}, {c.ci_high:+.3f}] | {c.p_value:.3f} | {c.verdict} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
