"""The training ablation's comparisons: paired bootstrap over test pairs resampled **by author**, seeds averaged.

Reads the per-pair predictions that ``scripts/training_ablation.py`` asks ``mteb run`` to write
(``<out>/results/<run>/predictions/.../<task>_predictions.json``: pair ids, the raw pair score
``similarity`` -- cosine or cross-encoder probability --, the calibrated answers of both calibrations)
and the task's test truth (``<verification folder>/<benchmark>/test/truth.jsonl``, whose ``authors``
give the resampling unit). A row trained with several seeds is one model per seed: each statistic is
the **mean over the row's seeds** of the per-seed statistic, on the same resampled pairs.

For each comparison ``candidate vs reference`` and statistic it prints both values, the difference,
its 95% paired-bootstrap interval, the randomisation-test p value, the same p Holm-adjusted over
every comparison of the table (family-wise error 0.05), the swap blocks and the smallest p they can
reach, the verdict (:func:`mteb_contrastive.metrics.resampling.paired_bootstrap`: Efron & Tibshirani
1993 percentile interval, Koehn 2004 paired resampling; 1,000 resamples, seed 0; a verdict needs the
interval to exclude 0 and the Holm-adjusted p < 0.05) and each seed's own difference.

**Resampling unit: the author.** Pairs of one author share its texts and style, so they are not
independent; each test pair is put in the group of the first of its two authors in sorted order
(a same-author pair in its author's group), and whole groups are resampled (cluster bootstrap,
``groups=``) and swapped together in the randomisation test. A different-author pair also depends
on its second author, whose other pairs may fall in other groups: the interval is still somewhat
narrower than a fully two-way resampling would give. Seeds are averaged, not resampled (three
seeds say little about the seed-to-seed spread; the per-seed differences are printed beside).

Statistics:

* ``score AUC``: ROC AUC of the raw pair score (scikit-learn ``roc_auc_score``), threshold-free;
  computed on each model's within-model ranks of its scores (same AUC), so that the randomisation
  test swaps comparable values between a cosine and a probability; chance 0.5;
* ``accuracy (Kirby)``: the share of test pairs right at the F1 threshold chosen on validation
  (``pan_kirby_hard``: the paper's accuracy); chance 0.5 (the test pairs are balanced);
* ``overall``: the PAN overall score of this project's calibrated answers (``platt_abstain``, the
  task's main score), recomputed from labels and answers on each resample.

    PYTHONPATH=src python scripts/training_bootstrap.py --out build/training --task PAN14KnownVerification \\
        --truth build/verification/PAN14Known/test/truth.jsonl
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

#: the paper's orderings (candidate expected better than reference) and the base comparison
COMPARISONS = (
    "contrastive:base",
    "contrastive:cross-encoder",
    "contrastive:no-rotation",
    "contrastive:t=0.1",
    "cross-encoder:base",
    "no-rotation:base",
    "t=0.1:base",
)


def run_names(out: Path, row: str) -> list[str]:
    """The runs of ``row`` under ``<out>/results``: ``base``, or ``<row>-s<seed>`` for every seed found."""
    name = row.replace("=", "")
    if (out / "results" / name).is_dir():
        return [name]
    return sorted(p.name for p in (out / "results").glob(f"{name}-s*") if p.is_dir())


def load_run(out: Path, run: str, task: str) -> dict | None:
    from mteb_contrastive.report.reader import read_predictions

    files = sorted((out / "results" / run / "predictions").rglob(f"{task}_predictions.json"))
    if not files:
        return None
    return read_predictions(files[-1].parent, task, "default", "test")


def main(argv: list[str] | None = None) -> int:
    from scipy.stats import rankdata
    from sklearn.metrics import roc_auc_score

    from mteb_contrastive.data.pan import read_truth
    from mteb_contrastive.metrics.pan import evaluate_all
    from mteb_contrastive.report.compare import holm_verdicts, paired_bootstrap

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="build/training")
    ap.add_argument("--task", default="PAN14KnownVerification")
    ap.add_argument("--truth", default="build/verification/PAN14Known/test/truth.jsonl")
    ap.add_argument("--compare", nargs="+", default=list(COMPARISONS), metavar="CANDIDATE:REFERENCE")
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--year", type=int, default=2021)
    a = ap.parse_args(argv)
    out = Path(a.out)
    truth = {r["id"]: r for r in read_truth(a.truth)}
    cache: dict[str, list[dict]] = {}

    def row_data(row: str) -> list[dict] | None:
        if row not in cache:
            preds = [load_run(out, r, a.task) for r in run_names(out, row)]
            cache[row] = [p for p in preds if p is not None]
        return cache[row] or None

    anchor = next((row_data(c.split(":")[1]) for c in a.compare if row_data(c.split(":")[1])), None)
    if not anchor:
        print(f"error: no predictions for {a.task} under {out}/results", file=sys.stderr)
        return 2
    ids = [str(i) for i in anchor[0]["id"]]
    labels = np.array([int(truth[i]["same"]) for i in ids])
    groups = [sorted(map(str, truth[i].get("authors") or [i]))[0] for i in ids]

    def arrays(preds: list[dict]) -> dict[str, dict]:
        rows = []
        for p in preds:
            pos = {str(i): k for k, i in enumerate(p["id"])}
            order = [pos[i] for i in ids]
            rows.append(
                {
                    "score AUC": rankdata(np.asarray(p["similarity"], dtype=float)[order]) / len(order),
                    "accuracy (Kirby)": np.asarray(p["kirby_hard"], dtype=float)[order],
                    "overall": np.asarray(p["platt_abstain"], dtype=float)[order],
                }
            )
        return {k: {"labels": labels, "answers": np.stack([r[k] for r in rows])} for k in rows[0]}

    def per_seed(name: str, y: np.ndarray, answers: np.ndarray) -> float:
        if y.min() == y.max():
            return float("nan")
        if name == "score AUC":
            return float(roc_auc_score(y, answers))
        if name == "accuracy (Kirby)":
            return float(np.mean((answers >= 0.5) == (y == 1)))
        return float(evaluate_all(y, answers, year=a.year)["overall"])

    def statistic(name: str):
        def stat(d: dict, idx: np.ndarray) -> float:
            y = d["labels"][idx]
            return float(np.mean([per_seed(name, y, row[idx]) for row in d["answers"]]))

        return stat

    n_groups = len(set(groups))
    print(
        f"Task {a.task}: {len(ids)} test pairs ({int(labels.sum())} same-author) of {n_groups} author groups; "
        f"{a.resamples} paired resamples of authors, seed 0; rows averaged over their seeds"
    )
    table: list[tuple[str, Any, list[float]] | str] = []
    for comp in a.compare:
        cand_row, ref_row = comp.split(":")
        cand, ref = row_data(cand_row), row_data(ref_row)
        if not cand or not ref:
            table.append(f"| {cand_row} vs {ref_row} | (no predictions) | | | | | | | | | |")
            continue
        c_arr, r_arr = arrays(cand), arrays(ref)
        for name in ("score AUC", "accuracy (Kirby)", "overall"):
            c = paired_bootstrap(
                r_arr[name],
                c_arr[name],
                statistic=statistic(name),
                n=len(ids),
                groups=groups,
                statistic_name=name,
                n_resamples=a.resamples,
                seed=0,
            )
            ref_each = [per_seed(name, labels, row) for row in r_arr[name]["answers"]]
            seeds = [per_seed(name, labels, row) - np.mean(ref_each) for row in c_arr[name]["answers"]]
            table.append((f"{cand_row} vs {ref_row}", c, seeds))
    # one family: every comparison of this table, Holm-adjusted together (metrics.resampling.holm_verdicts)
    entries = [t[1].as_dict() for t in table if not isinstance(t, str)]
    m = holm_verdicts(entries)
    blocks = next((e["n_blocks"] for e in entries), 0)
    min_p = next((e["min_p"] for e in entries if e["min_p"] is not None), None)
    print(
        f"Randomisation test: {blocks} swap blocks (connected author groups), smallest reachable p "
        f"{'n/a' if min_p is None else f'{min_p:.4f}'}; p (Holm): the {m} p values of this table adjusted together "
        "(Holm 1979, family-wise error 0.05); a verdict needs the interval to exclude 0 and p (Holm) < 0.05"
    )
    print(
        "| candidate vs reference | statistic | reference | candidate | difference | 95% interval | p | p (Holm) | "
        "blocks (min p) | verdict | per-seed differences |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    k = 0
    for t in table:
        if isinstance(t, str):
            print(t)
            continue
        label, c, seeds = t
        e = entries[k]
        k += 1
        min_p = "n/a" if e["min_p"] is None else f"{e['min_p']:.4f}"
        p = "n/a" if c.p_value is None else f"{c.p_value:.3f}"
        p_holm = "n/a" if e.get("p_holm") is None else f"{e['p_holm']:.3f}"
        print(
            f"| {label} | {c.statistic} | {c.reference_value:.3f} | {c.candidate_value:.3f} | "
            f"{c.diff:+.3f} | [{c.ci_low:+.3f}, {c.ci_high:+.3f}] | {p} | {p_holm} | {e['n_blocks']} ({min_p}) | "
            f"{e['verdict']} | " + ", ".join(f"{d:+.3f}" for d in seeds) + " |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
