"""Benchmark: the encoding statistics' token counts (``SentenceTransformerCore.token_counts``) against the
tokenizer call they replaced (``token_ids``: the model's tokenizer, no truncation, every text's ids), on the
PAN 2014 known texts of the shared data, with MiniLM's tokenizer; rounds interleaved, each printed, the counts
checked equal.

    python scripts/bench_token_counts.py [--rounds 3] [--shared ../shared/data]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import time
from pathlib import Path
from types import SimpleNamespace

from bench_env import cpu_model


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    args = ap.parse_args()
    from transformers import AutoTokenizer

    from mteb_contrastive import config
    from mteb_contrastive.encoding import core as core_module

    tok = AutoTokenizer.from_pretrained(config.bundled_minilm())
    core = core_module.SentenceTransformerCore(SimpleNamespace(model=SimpleNamespace(tokenizer=tok)))
    with gzip.open(args.shared / "pan" / "pan14_known.jsonl.gz", "rt", encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for line in f]
    threads = min(core_module.COUNT_THREADS, core_module._cores())
    print(
        f"CPU: {cpu_model()}, {os.cpu_count()} logical cores; "
        f"TOKENIZERS_PARALLELISM={os.environ.get('TOKENIZERS_PARALLELISM')}"
    )
    print(
        f"{len(texts)} texts, {sum(map(len, texts)) / 1e6:.1f} M characters; token_counts in up to {threads} threads\n"
    )
    print("| round | token_ids s | token_counts s | ratio | same counts |")
    print("|---:|---:|---:|---:|---|")
    for r in range(1, args.rounds + 1):
        t = time.perf_counter()
        expected = [len(ids) for ids in core.token_ids(texts)]
        t_ids = time.perf_counter() - t
        t = time.perf_counter()
        got = core.token_counts(texts)
        t_counts = time.perf_counter() - t
        print(f"| {r} | {t_ids:.2f} | {t_counts:.2f} | {t_ids / t_counts:.2f}x | {got == expected} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
