"""Named training presets: the authors' configurations, and the small CPU default (ours).

Each ``kirby-*`` preset copies one configuration file of github.com/petekirby/contrastive-av (commit
8363393, ``configs/<file>``; line numbers in :data:`PRESETS`): base model, learning rate, global batch
(per-device ``batch_size`` x ``devices``), epochs, context length (``max_length``; for
``modernbert_large_contrastive_long.yaml`` the training length ``short_length`` 512, ``:46-48``),
temperature, GradCache micro-batch (``microbatch_size``), weight decay, Adam betas and epsilon.
Shared by every config: ``lr_schedule: linear``, ``warmup_ratio: 0.1``, bf16 mixed precision, seed
1000, pooling ``mean``, no head, normalised embeddings, m = 2; the module defaults are weight decay
0.01, betas (0.9, 0.999), eps 1e-8 (``models/transformer_contrastive_module.py:24-31``). The width
scaling of the learning rate is the configs' own (4e-4 at width 312 -> 1.6e-4 at 768, x 0.4 ->
1.2e-4 at 1024, x 0.3), as the paper states it (../shared/papers/contrastive-authorship-verification.md,
"Methodology in Plain English").

Not reproduced here: the 8-bit paged AdamW of bitsandbytes (``:109``; a plain torch AdamW
instead), ``torch.compile`` and flash attention (speed only), bf16 *weights* (``use_bf16``; bf16
mixed precision is used on a GPU that supports it), several GPUs (a global batch runs on one device
through the micro-batches). The base models need the Hugging Face Hub (or a local copy passed with
``--base-model``).

``ours-cpu`` is not the authors': the small default sized for a CPU (the bundled all-MiniLM-L6-v2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

REPO = "github.com/petekirby/contrastive-av@8363393"


@dataclass(frozen=True)
class Preset:
    """One named set of :class:`~mteb_contrastive.training.contrastive.ContrastiveConfig` values and its source."""

    name: str
    source: str
    values: dict[str, Any] = field(default_factory=dict)


def _kirby(name: str, source: str, base: str, **values: Any) -> Preset:
    common = dict(warmup_ratio=0.1, temperature=0.01, weight_decay=0.01, adam_beta2=0.999, adam_epsilon=1e-8, bf16=True)
    return Preset(name, f"{REPO} {source}", {**common, "base_model": base, "cached": True, **values})


TINYBERT = "huawei-noah/TinyBERT_General_4L_312D"
MODERNBERT_LARGE = "answerdotai/ModernBERT-large"
_LARGE = dict(learning_rate=1.2e-4, weight_decay=1e-5, adam_beta2=0.98, adam_epsilon=1e-6)

#: name -> preset
PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            "ours-cpu",
            "ours (not the authors'): minutes on a CPU with the bundled all-MiniLM-L6-v2",
            dict(
                context_length=256,
                batch_size=32,
                learning_rate=2e-5,
                epochs=3,
                temperature=0.01,
                warmup_ratio=0.1,
                weight_decay=0.01,
                cached=False,
            ),
        ),
        _kirby(
            "kirby-tinybert",
            "configs/tinybert_contrastive_final.yaml:4,20-23,25,35,38,43 (the five-model comparison row)",
            TINYBERT,
            learning_rate=4e-4,
            batch_size=512,
            epochs=10,
            context_length=512,
            mini_batch_size=256,
        ),
        _kirby(
            "kirby-tinybert-best",
            "configs/tinybert_contrastive_best.yaml:4,20,23,25,34,37,42 (pooling/head and temperature sweeps; "
            "its file's mean_first_last + ln_gelu_residual are replaced by mean / no head, which its comments :27-28 "
            "say were best)",
            TINYBERT,
            learning_rate=4e-4,
            batch_size=1024,
            epochs=40,
            context_length=512,
            mini_batch_size=256,
            bf16=True,
        ),
        _kirby(
            "kirby-tinybert-loss-sweep",
            "configs/tinybert_contrastive.yaml:4,22,28,38,44 (the loss comparison: SupCon's default temperature "
            "0.05, models/loss_defaults.py:26-32; no GradCache)",
            TINYBERT,
            learning_rate=2e-5,
            batch_size=256,
            epochs=10,
            context_length=512,
            temperature=0.05,
            cached=False,
        ),
        _kirby(
            "kirby-distilbert",
            "configs/distilbert_contrastive.yaml:4,20,23,25,35,38,43",
            "distilbert/distilbert-base-cased",
            learning_rate=1.6e-4,
            batch_size=512,
            epochs=10,
            context_length=512,
            mini_batch_size=64,
        ),
        _kirby(
            "kirby-bert",
            "configs/bert_contrastive.yaml:4,20,23,25,35,38,43",
            "google-bert/bert-base-cased",
            learning_rate=1.6e-4,
            batch_size=512,
            epochs=10,
            context_length=512,
            mini_batch_size=64,
        ),
        _kirby(
            "kirby-modernbert",
            "configs/modernbert_contrastive.yaml:4,20-23,26,28,38,41,46",
            "answerdotai/ModernBERT-base",
            learning_rate=1.6e-4,
            weight_decay=5e-6,
            adam_beta2=0.98,
            adam_epsilon=1e-6,
            batch_size=512,
            epochs=10,
            context_length=512,
            mini_batch_size=64,
        ),
        _kirby(
            "kirby-modernbert-large",
            "configs/modernbert_large_contrastive.yaml:4,20-23,26,28,38,41,46 (the five-model comparison row)",
            MODERNBERT_LARGE,
            **_LARGE,
            batch_size=512,
            epochs=10,
            context_length=512,
            mini_batch_size=32,
        ),
        _kirby(
            "kirby-modernbert-large-512",
            "configs/modernbert_large_contrastive_long.yaml:4,20-23,26,41,46-48 (context 512 / batch 1024: trained "
            "at short_length 512; its test length 8192 is not a training setting)",
            MODERNBERT_LARGE,
            **_LARGE,
            batch_size=1024,
            epochs=40,
            context_length=512,
            mini_batch_size=32,
        ),
        _kirby(
            "kirby-modernbert-large-1024",
            "configs/modernbert_large_contrastive_long_4x.yaml:4,6,22-25,28,43,48 (256 x 4 devices = 1024)",
            MODERNBERT_LARGE,
            **_LARGE,
            batch_size=1024,
            epochs=40,
            context_length=1024,
            mini_batch_size=16,
        ),
        _kirby(
            "kirby-modernbert-large-2048",
            "configs/modernbert_large_contrastive_long_8x.yaml:4,6,22-25,28,43,48 (256 x 8 devices = 2048)",
            MODERNBERT_LARGE,
            **_LARGE,
            batch_size=2048,
            epochs=40,
            context_length=2048,
            mini_batch_size=8,
        ),
        _kirby(
            "kirby-modernbert-large-4096",
            "configs/modernbert_large_contrastive_long_8x_4096.yaml:4,6,22-25,28,43,48 (512 x 8 devices = 4096: "
            "the final PAN21 model)",
            MODERNBERT_LARGE,
            **_LARGE,
            batch_size=4096,
            epochs=40,
            context_length=4096,
            mini_batch_size=4,
        ),
    )
}

DEFAULT_PRESET = "ours-cpu"
