"""The training presets as a markdown table (docs/training.md): ``python scripts/training_presets_table.py``."""

from __future__ import annotations

import sys


def main() -> int:
    from mteb_contrastive.training.presets import PRESETS

    print(
        "| preset | base model | lr | batch (texts) | epochs | tokens | T | micro-batch | wd / beta2 / eps | source |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for p in PRESETS.values():
        v = p.values
        micro = str(v.get("mini_batch_size", "-")) if v.get("cached") else "-"
        print(
            f"| `{p.name}` | {v.get('base_model', 'bundled all-MiniLM-L6-v2')} | {v['learning_rate']:g} | "
            f"{v['batch_size']} | {v['epochs']} | {v['context_length']} | {v['temperature']:g} | {micro} | "
            f"{v['weight_decay']:g} / {v.get('adam_beta2', 0.999):g} / {v.get('adam_epsilon', 1e-8):g} | {p.source} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
