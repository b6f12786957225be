"""Tiny synthetic benchmarks (one per family) for end-to-end tests of the release evaluation.

Texts are generated words (no line of any real data set): each author has a private vocabulary,
so every family has a signal a lexical model can find.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

SHARED_WORDS = ["the", "model", "text", "data", "shows", "with", "and", "of", "result", "method"]


def _sentence(rng: random.Random, vocab: list[str], n: int = 7) -> str:
    words = [rng.choice(vocab if rng.random() < 0.5 else SHARED_WORDS) for _ in range(n)]
    return " ".join(words).capitalize() + "."


def author_docs(n_authors: int = 6, docs_per_author: int = 3, sentences: int = 10, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    docs = []
    for a in range(n_authors):
        vocab = [f"w{a}x{j}" for j in range(12)]
        for d in range(docs_per_author):
            text = " ".join(_sentence(rng, vocab) for _ in range(sentences))
            docs.append(
                {
                    "id": f"a{a}d{d}",
                    "authors": [f"author{a}"],
                    "author": f"author{a}",
                    "text": text,
                    "domains": [],
                    "year": 2000 + d,
                    "language": "en",
                }
            )
    return docs


def build_all(out: Path) -> dict[str, Path]:
    """Build one author-triplet folder, one verification folder and one IR-triplet folder under ``out``."""
    from mteb_contrastive.data.halvest_builder import build_halvest_dataset
    from mteb_contrastive.data.ir_triplets import build_ir_triplets
    from mteb_contrastive.data.verification_builder import build_verification_dataset

    datasets, verification = out / "datasets", out / "verification"
    build_halvest_dataset(author_docs(), datasets, "SynthAuthors", ks=(2, 3), n_triplets=1, seed=0, source="synthetic")
    long_docs = author_docs(n_authors=8, docs_per_author=3, sentences=40, seed=1)
    build_verification_dataset(
        long_docs,
        verification,
        "SynthPairs",
        chunk_words=60,
        split_ratios=(0.0, 0.5, 0.5),
        pairs_per_author=4,
        seed=0,
        source="synthetic",
    )
    rng = random.Random(2)
    corpus, qrels = {}, {}
    for q in range(8):
        vocab = [f"t{q}y{j}" for j in range(10)]
        qrels[f"q{q}"] = {}
        for d in range(4):
            corpus[f"q{q}d{d}"] = " ".join(_sentence(rng, vocab) for _ in range(3))
            qrels[f"q{q}"][f"q{q}d{d}"] = 1
    build_ir_triplets(corpus, qrels, datasets, "SynthIR", seed=0, min_grade=1, max_per_query=6, source="synthetic")
    return {"datasets": datasets, "verification": verification}


if __name__ == "__main__":
    import sys

    print(json.dumps({k: str(v) for k, v in build_all(Path(sys.argv[1])).items()}))
