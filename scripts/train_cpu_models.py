"""The two models the CPU run evaluates (docs/training.md), both read at one evaluation context.

    python scripts/train_cpu_models.py --base RUN/models/base --trained RUN/models/contrastive-s0 \\
        --out RUN/models/trained --context-length 128

* ``--base``: the bundled all-MiniLM-L6-v2 saved with ``max_seq_length`` = the context (not overwritten when
  it exists);
* ``--out``: the trained model (``--trained``, the folder ``mteb-contrastive train`` wrote) saved again with
  ``max_seq_length`` = the same context, its ``training_config.json``, ``training_log.jsonl`` and
  ``verification_calibration.json`` copied beside. Only the input length changes: both models then read the
  same tokens of every benchmark text (the trained one was trained on shorter spans; positions up to the
  context were pretrained in the base model).
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    from sentence_transformers import SentenceTransformer

    from mteb_contrastive.config import bundled_minilm

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True)
    ap.add_argument("--trained", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--context-length", type=int, default=128)
    a = ap.parse_args(argv)
    if not Path(a.base).is_dir():
        m = SentenceTransformer(bundled_minilm(), device="cpu")
        m.max_seq_length = a.context_length
        m.save(a.base)
    m = SentenceTransformer(a.trained, device="cpu")
    m.max_seq_length = a.context_length
    m.save(a.out)
    for f in ("training_config.json", "training_log.jsonl", "verification_calibration.json"):
        if (Path(a.trained) / f).is_file():
            shutil.copy(Path(a.trained) / f, Path(a.out) / f)
    print(f"{a.base}, {a.out}: max_seq_length {a.context_length}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
