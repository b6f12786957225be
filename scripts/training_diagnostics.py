"""The "if it does not learn" checks of a training run (docs/training.md), printed as a Markdown table.

    python scripts/training_diagnostics.py RUN_OUT --docs corpus=TRAIN.jsonl --max-steps N \\
        [--validation-docs corpus=VAL.jsonl --max-validation-pairs N]

``RUN_OUT`` is the ``--out`` of ``mteb-contrastive train`` (the log is read from ``RUN_OUT`` when the run
finished, else from ``RUN_OUT.checkpoints``). Each check prints what was measured and a verdict:

1. **loss falls**: mean logged loss over the first and the last fifth of the logged steps (at least one each);
2. **gradient norms sane**: every logged norm finite; first, median, last, largest;
3. **learning-rate schedule**: every logged learning rate against the trainer's own linear schedule
   (``transformers.get_linear_schedule_with_warmup``: ``floor(warmup_ratio x steps)`` warmup steps,
   then linear decay to 0; the authors' ``models/transformer_contrastive_module.py:100-116``) stepped
   the same number of times;
4. **sampler batches**: :class:`~mteb_contrastive.training.sampler.AuthorBatchSampler` over the training
   documents for two epochs: every batch ``batch / 2`` distinct authors x 2 documents (two different
   documents where the author has two), and the second epoch's batches not the first's (the trainer
   sets the epoch: a tiny real trainer run of 2 epochs records the batches it was given);
5. **rotation cuts**: :func:`~mteb_contrastive.training.data.rotate_span` on 200 training documents
   (a seeded sample, one draw each): each result starts at a word start of the document, holds
   ``min(words, context)`` words, and the draws' relative start offsets average near 0.5 (a uniform character draw);
6. **selection**: the validation F1 of every evaluation, whether the best step differs from the first,
   and whether F1 only reflects answering "same" for every pair (F1 = 2/3 on balanced pairs);
7. with ``--validation-docs``: the untrained base model on the run's own validation pairs (step 0), beside the
   trained checkpoints' validation AUC.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from pathlib import Path


def _log(out: Path) -> list[dict]:
    for p in (out / "training_log.jsonl", out.parent / f"{out.name}.checkpoints" / "training_log.jsonl"):
        if p.is_file():
            return [json.loads(x) for x in p.read_text().splitlines() if x.strip()]
    raise SystemExit(f"error: {out}: no training_log.jsonl in it or in {out.name}.checkpoints")


def loss_check(log: list[dict]) -> tuple[str, str]:
    rows = [r for r in log if "loss" in r]
    if len(rows) < 2:
        return f"{len(rows)} logged losses", "too few to tell"
    k = max(1, len(rows) // 5)
    first, last = statistics.mean(r["loss"] for r in rows[:k]), statistics.mean(r["loss"] for r in rows[-k:])
    return (
        f"steps {rows[0]['step']}-{rows[k - 1]['step']}: {first:.2f}; steps {rows[-k]['step']}-{rows[-1]['step']}: "
        f"{last:.2f}",
        "falls" if last < 0.8 * first else "does not fall",
    )


def grad_check(log: list[dict]) -> tuple[str, str]:
    g = [r["grad_norm"] for r in log if "grad_norm" in r]
    if not g:
        return "no grad_norm logged", "not measured"
    finite = all(math.isfinite(x) for x in g)
    return (
        f"first {g[0]:.1f}, median {statistics.median(g):.1f}, last {g[-1]:.1f}, max {max(g):.1f} ({len(g)} logged)",
        "finite" if finite else "NaN/inf found",
    )


def lr_check(log: list[dict], learning_rate: float, warmup_ratio: float, total: int) -> tuple[str, str]:
    import torch
    from transformers import get_linear_schedule_with_warmup

    rows = [r for r in log if "learning_rate" in r]
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=learning_rate)
    sched = get_linear_schedule_with_warmup(opt, int(warmup_ratio * total), total)
    expected = {}
    for step in range(1, total + 1):
        expected[step] = sched.get_last_lr()[0]  # the rate the step's update used
        opt.step()
        sched.step()
    worst = max((abs(r["learning_rate"] - expected[r["step"]]) for r in rows if r["step"] in expected), default=0.0)
    peak = max((r["learning_rate"] for r in rows), default=0.0)
    return (
        f"{len(rows)} logged rates, peak {peak:.2e}, warmup {int(warmup_ratio * total)} of {total} steps; "
        f"largest gap to the schedule {worst:.1e}",
        "as the preset says" if worst <= 1e-3 * learning_rate else "differs",
    )


def sampler_check(docs: list[dict], batch_size: int, seed: int) -> tuple[str, str]:
    from mteb_contrastive.training.contrastive import training_table
    from mteb_contrastive.training.sampler import AuthorBatchSampler

    ds = training_table(docs)
    authors = list(ds["author"])
    per = {}
    for a in authors:
        per[a] = per.get(a, 0) + 1
    s = AuthorBatchSampler(ds, batch_size, seed=seed)
    bad, same_doc_multi, seen = 0, 0, []
    for epoch in (0, 1):
        s.set_epoch(epoch)
        batches = list(s)
        seen.append(batches)
        for b in batches:
            pairs = [b[i : i + 2] for i in range(0, len(b), 2)]
            names = [authors[p[0]] for p in pairs]
            bad += len(set(names)) != batch_size // 2 or any(authors[p[0]] != authors[p[1]] for p in pairs)
            same_doc_multi += sum(p[0] == p[1] and per[authors[p[0]]] >= 2 for p in pairs)
    differ = seen[0] != seen[1]
    ok = bad == 0 and same_doc_multi == 0 and differ
    return (
        f"{len(seen[0])} batches an epoch; batches not {batch_size // 2} authors x 2: {bad}; a two-document author "
        f"given one document twice: {same_doc_multi}; epoch 2 draws other batches: {differ}",
        "as it should" if ok else "WRONG",
    )


def trainer_epoch_check(docs: list[dict], seed: int) -> tuple[str, str]:
    """A real 2-epoch run (8-token texts, 8 per batch, 3 batches an epoch) recording the batches the trainer got."""
    import tempfile

    from mteb_contrastive.config import bundled_minilm
    from mteb_contrastive.training import contrastive as C
    from mteb_contrastive.training.data import validation_pairs
    from mteb_contrastive.training.sampler import SupConCollator

    by: dict[str, list] = {}
    for d in docs:
        by.setdefault(d["author"], []).append(d)
    multi = [a for a in sorted(by) if len(by[a]) >= 2][:12]
    small = [d for a in multi for d in by[a][:2]]
    val = validation_pairs([d for a in multi[8:] for d in by[a][:2]], max_words=8, pairs_per_author=1, seed=0)
    train = [d for d in small if d["author"] in multi[:8]][:24]
    got: list[list[str]] = []
    orig = SupConCollator.__call__

    def recording(self, features):
        got.append([f["author"] for f in features])
        return orig(self, features)

    SupConCollator.__call__ = recording
    try:
        with tempfile.TemporaryDirectory() as tmp:
            cfg = C.ContrastiveConfig(base_model=bundled_minilm(), context_length=8, batch_size=8, epochs=2, seed=seed)
            C.train_contrastive(train, val, Path(tmp) / "m", cfg, show_progress=False)
    finally:
        SupConCollator.__call__ = orig
    half = len(got) // 2
    differ = got[:half] != got[half:]
    return f"{len(got)} batches recorded over 2 epochs; epoch 2 differs from epoch 1: {differ}", (
        "the trainer sets the epoch" if differ else "SAME batches every epoch"
    )


def rotation_check(docs: list[dict], context: int, seed: int, n_docs: int = 200) -> tuple[str, str]:
    from mteb_contrastive.training.data import rotate_span

    rng = random.Random(seed)
    bad_start = bad_len = 0
    rel = []
    sample = random.Random(seed).sample(docs, min(len(docs), n_docs))
    for d in sample:
        text = d["text"]
        words = text.split(" ")
        starts = {0}
        pos = 0
        for w in words[:-1]:
            pos += len(w) + 1
            starts.add(pos)
        out = rotate_span(text, rng, context)
        # where the rotated text starts in the document: its first 30 characters found at a word start
        probe = out[:30]
        at = text.find(probe)
        while at != -1 and at not in starts:
            at = text.find(probe, at + 1)
        if at == -1:  # a start in the last 30 characters: the probe runs over the join
            at = next((p for p in sorted(starts) if len(text) - p < 30 and out.startswith(text[p:])), -1)
        bad_start += at == -1
        if at != -1:
            rel.append(at / max(1, len(text)))
        bad_len += len(out.split()) != min(len(text.split()), context)
    mean = statistics.mean(rel) if rel else float("nan")
    ok = bad_start == 0 and bad_len == 0 and 0.4 < mean < 0.6
    return (
        f"{len(sample)} documents (seeded sample): not at a word start {bad_start}; "
        f"not min(words, {context}) words {bad_len}; "
        f"mean relative start {mean:.3f}",
        "cuts where it should" if ok else "WRONG",
    )


def selection_check(log: list[dict], summary: dict | None) -> tuple[str, str]:
    ev = [r for r in log if "eval_validation_f1" in r]
    if not ev:
        return "no validation logged", "not measured"
    f1 = [(r["step"], r["eval_validation_f1"], r.get("eval_validation_auc")) for r in ev]
    best = max(f1, key=lambda x: x[1])
    degenerate = sum(abs(x[1] - 2 / 3) < 1e-9 for x in f1)
    shown = ", ".join(f"{s}: {v:.3f} (AUC {a:.3f})" for s, v, a in f1)
    verdict = "best differs from the first" if best[0] != f1[0][0] else "best is the first"
    if summary and summary.get("best_checkpoint"):
        verdict += f"; kept {Path(summary['best_checkpoint']).name}"
    return f"F1 by step {shown}; F1 = 2/3 (all 'same') at {degenerate} of {len(f1)}", verdict


def base_validation_check(args: argparse.Namespace, log: list[dict]) -> tuple[str, str]:
    """The untrained base model on the run's own validation pairs (the same ``author_data`` call as ``train``)."""
    from sentence_transformers import SentenceTransformer

    from mteb_contrastive.cli.train import author_data
    from mteb_contrastive.config import bundled_minilm
    from mteb_contrastive.training.validation import VerificationEvaluator

    ns = argparse.Namespace(
        docs=args.docs,
        validation_docs=args.validation_docs,
        duplicates="refuse",
        holdout=[],
        topic_field=None,
        context_length=args.context_length,
        validation_pairs_per_author=4,
        seed=args.seed,
        drop_overlapping=False,
        max_validation_pairs=args.max_validation_pairs,
        validation_share=0.2,
    )
    _, pairs, _ = author_data(ns)
    model = SentenceTransformer(bundled_minilm(), device="cpu")
    model.max_seq_length = args.context_length
    m = VerificationEvaluator(pairs)(model)
    ev = [r for r in log if "eval_validation_auc" in r]
    trained = ", ".join(f"step {r['step']}: {r['eval_validation_auc']:.3f}" for r in ev)
    return (
        f"{len(pairs)} validation pairs, base model (step 0): F1 {m['validation_f1']:.3f}, AUC "
        f"{m['validation_auc']:.3f}; trained AUC {trained}",
        "no trained validation logged"
        if not ev
        else ("rose" if ev[-1]["eval_validation_auc"] > m["validation_auc"] else "fell")
        + f" by {abs(ev[-1]['eval_validation_auc'] - m['validation_auc']):.3f} (last validation vs base)",
    )


def main(argv: list[str] | None = None) -> int:
    from mteb_contrastive.cli.train import read_documents

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--docs", action="append", required=True)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--context-length", type=int, default=128)
    ap.add_argument("--learning-rate", type=float, default=5e-5)
    ap.add_argument("--warmup-ratio", type=float, default=0.1)
    ap.add_argument("--max-steps", type=int, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-trainer", action="store_true", help="skip the 2-epoch real trainer check")
    ap.add_argument("--validation-docs", action="append", default=[], help="as train: adds the base model's row")
    ap.add_argument("--max-validation-pairs", type=int, default=None)
    a = ap.parse_args(argv)
    out = Path(a.out)
    log = _log(out)
    cfg_file = out / "training_config.json"
    summary = json.loads(cfg_file.read_text())["summary"] if cfg_file.is_file() else None
    docs, _ = read_documents(a.docs, None)
    rows = [
        ("loss falls", *loss_check(log)),
        ("gradient norms", *grad_check(log)),
        ("learning-rate schedule", *lr_check(log, a.learning_rate, a.warmup_ratio, a.max_steps)),
        ("sampler batches (MPerClassSampler, m = 2)", *sampler_check(docs, a.batch_size, a.seed)),
    ]
    if not a.skip_trainer:
        rows.append(("epochs draw new batches in the trainer", *trainer_epoch_check(docs, a.seed)))
    rows += [
        ("rotation cuts", *rotation_check(docs, a.context_length, a.seed)),
        ("best-F1 checkpoint", *selection_check(log, summary)),
    ]
    if a.validation_docs:
        rows.append(("validation: trained vs the base model", *base_validation_check(a, log)))
    print("| check | measured | verdict |\n|---|---|---|")
    for name, measured, verdict in rows:
        print(f"| {name} | {measured} | {verdict} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
