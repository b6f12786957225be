"""Long-document mode (issue 8) on the PAN-format verification benchmarks: truncate vs mean of windows.

Runs all-MiniLM-L6-v2 (256 tokens per pass) on ``ELTeCEngVerification`` (1000-word chunks) and
``PAN14KnownVerification`` (400-word chunks) twice -- the model's own truncation and
``long_document=mean`` (windows of 254 content tokens, stride = window) -- in one process, and
prints one Markdown table with the main score (PAN overall, Platt + abstention), AUC and the
encoding statistics each result records. Build the benchmarks first:

    mteb-contrastive build-pan-benchmarks --out build/verification
    PYTHONPATH=src HF_HUB_OFFLINE=1 nice python scripts/long_document_table.py --verification build/verification

The embedding cache is switched off (every run encodes); ``--stride`` sets the window stride;
``--pairs N`` evaluates a documented subset: the first N pairs of every split (the builder writes
pairs in shuffled order, so the subset keeps both classes), copied to a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
TASKS = ("ELTeCEngVerification", "PAN14KnownVerification")


def subset(folder: Path, names: list[str], n: int) -> Path:
    """A temporary copy of the benchmark folders ``names`` with the first ``n`` pairs of each split."""
    import shutil
    import tempfile

    out = Path(tempfile.mkdtemp(prefix="verification-subset-"))
    for name in names:
        shutil.copytree(folder / name, out / name)
        for split_dir in (out / name).iterdir():
            if split_dir.is_dir():
                for f in ("pairs.jsonl", "truth.jsonl"):
                    lines = (split_dir / f).read_text(encoding="utf-8").splitlines(keepends=True)[:n]
                    (split_dir / f).write_text("".join(lines), encoding="utf-8")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--verification", required=True, help="folder holding ELTeCEng/ and PAN14Known/ (build-pan-benchmarks --out)"
    )
    ap.add_argument("--model", default=MINILM)
    ap.add_argument("--stride", type=int, default=None)
    ap.add_argument("--tasks", nargs="+", default=list(TASKS))
    ap.add_argument("--pairs", type=int, default=None, help="first N pairs of every split only")
    args = ap.parse_args()
    folder = Path(args.verification).resolve()
    if args.pairs:
        folder = subset(folder, [t.removesuffix("Verification") for t in args.tasks], args.pairs)
        print(f"Subset: the first {args.pairs} pairs of every split of each benchmark.\n")
    os.environ["MTEB_CONTRASTIVE_VERIFICATION"] = str(folder)
    import mteb
    from bench_env import machine_lines

    import mteb_contrastive  # noqa: F401

    print("\n".join(machine_lines()) + "\n")
    modes = [
        ("truncate (first 256 tokens)", {}),
        (
            "mean of windows" + (f", stride {args.stride}" if args.stride else ""),
            {"long_document": "mean", **({"stride": args.stride} if args.stride else {})},
        ),
    ]
    rows = []
    for task_name in args.tasks:
        for label, opts in modes:
            model = mteb.get_model(args.model, cache=False, **opts)
            task = mteb.get_task(task_name)
            t0 = time.perf_counter()
            res = mteb.evaluate(model, task, cache=None, overwrite_strategy="always", show_progress_bar=False)
            wall = time.perf_counter() - t0
            s = res.task_results[0].scores["test"][0]
            auc = next(
                (v for k, v in s.items() if k.startswith("pan_platt_abstain") and k.endswith("auc")), float("nan")
            )
            rows.append(
                (
                    task_name,
                    label,
                    s["main_score"],
                    auc,
                    s.get("encoding_n_texts"),
                    s.get("encoding_tokens_mean"),
                    s.get("encoding_tokens_max"),
                    s.get("encoding_over_limit_share"),
                    s.get("encoding_truncated_share"),
                    s.get("encoding_windows_mean"),
                    model.n_encoded,
                    wall,
                )
            )
            print(f"done {task_name} {label}: main {s['main_score']:.4f} in {wall:.0f} s", file=sys.stderr, flush=True)
    print(
        "| task | mode | PAN overall (Platt, abstain) | AUC | texts | tokens mean | tokens max | over 256 | "
        "truncated | windows/text | texts encoded | wall s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r[0]} | {r[1]} | {r[2]:.4f} | {r[3]:.4f} | {r[4]} | {r[5]:.0f} | {r[6]} | {r[7]:.1%} | {r[8]:.1%} "
            f"| {r[9]:.2f} | {r[10]} | {r[11]:.0f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
