"""Kirby's contrastive recipe for authorship verification, on sentence-transformers' trainer.

"Contrastive Learning for Authorship Verification" (Kirby): a bi-encoder (mean pooling, no
projection head, cosine similarity) trained with InfoNCE over in-batch negatives, where each batch
holds two documents of each of its authors and every other author's documents are negatives;
random span rotation of every text at every draw; validation with the verification protocol;
the best checkpoint kept. Each element is a field of :class:`ContrastiveConfig`.

Loss: sentence-transformers' ``MultipleNegativesRankingLoss`` (or
``CachedMultipleNegativesRankingLoss``, the gradient-cache variant of Gao et al. 2021 with the
same value, for a large effective batch in bounded memory) with ``scale = 1 / temperature`` and
``directions = ("query_to_doc", "query_to_query")`` in one joint softmax: for the anchor text of
author *i*, the candidates are the author's other text (the positive) and **both** texts of every
other author of the batch (``2B - 2`` negatives) -- the anchor half of NT-Xent (Chen et al. 2020),
the InfoNCE of the paper. We use sentence-transformers' loss rather than pytorch-metric-learning's
``NTXentLoss`` because it plugs into the library trainer (checkpoints, resume, evaluator, model
card) and has the cached variant; with the sampler's "no author twice" batches no negative is a
duplicate of the positive, so a perfect encoder's loss tends to 0 (with a duplicate author the
floor is ln 2).

Defaults: temperature 0.01 and span rotation on are the paper's as the project's issue states them
(its ablation: 0.861 overall with rotation, 0.713 without). The paper is P. Kirby, "Contrastive
Learning for Authorship Verification", arXiv:2609.28471 (2026). Only its abstract and third-party
summaries were available (the full text was not): contrastive learning beats a classification approach in the tested
settings; the important factors are the loss function, batch size, training duration, pre-trained model, input
context length and random text-span augmentation; the final model is a ModernBERT bi-encoder
(98.4% accuracy on PAN21) with long contexts (up to 4,096 tokens) and learning rates scaled with
the model's width (muTransfer), compared from TinyBERT to ModernBERT-large. No numeric batch size,
learning rate, epochs or warmup were found: the defaults below are ours, and
:mod:`scripts/train_gpu.sh` documents the larger settings.

Output folder (a plain sentence-transformers model: ``SentenceTransformer(folder)``,
``mteb run -m folder``), written atomically at the end: the best checkpoint's weights (by
validation overall), ``verification_calibration.json`` (validation threshold, Platt coefficient
and intercept, abstention delta, validation AUC/overall), ``training_config.json``,
``training_log.jsonl`` (one line per logged step/epoch: loss, validation metrics). Checkpoints go to
``<out>.checkpoints/`` (one per epoch); ``resume=True`` continues from the last of them.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mteb_contrastive.data.atomic import atomic_folder, write_text_atomic
from mteb_contrastive.training.data import TrainingDataError, eligible_authors
from mteb_contrastive.training.sampler import AuthorPairBatchSampler, AuthorPairCollator, author_pair_sampler
from mteb_contrastive.training.validation import CALIBRATION_FILE, VerificationEvaluator

logger = logging.getLogger(__name__)

LOG_FILE = "training_log.jsonl"
CONFIG_FILE = "training_config.json"


@dataclass
class ContrastiveConfig:
    """Parameters of the recipe (see the module docstring for sources).

    Attributes:
        base_model: a sentence-transformers model name or folder (mean pooling expected).
        context_length: tokens per text (the model's ``max_seq_length``); <= the model's limit.
        batch_size: texts per batch, even (``batch_size / 2`` authors x 2 documents).
        temperature: InfoNCE temperature (> 0); the loss scale is ``1 / temperature``. Paper: 0.01.
        rotate: random span rotation at every draw (paper: on).
        cached: use the gradient-cache loss (``mini_batch_size`` texts per forward pass).
        learning_rate, epochs, warmup_ratio, weight_decay, seed: optimiser and schedule (AdamW, linear).
        passes: times each eligible author is drawn per epoch.
        max_steps: stop after this many optimiser steps (-1: run all epochs).
        logging_steps: log the loss every N steps (0: once per epoch).
        head_lr_multiplier: cross-encoders only: the fresh classification head's learning rate is
            this times ``learning_rate`` (see :mod:`mteb_contrastive.training.cross_encoder`).
    """

    base_model: str
    context_length: int = 256
    batch_size: int = 32
    temperature: float = 0.01
    rotate: bool = True
    cached: bool = False
    mini_batch_size: int = 16
    learning_rate: float = 2e-5
    epochs: int = 3
    warmup_ratio: float = 0.1
    weight_decay: float = 0.01
    seed: int = 0
    passes: int = 1
    max_steps: int = -1
    logging_steps: int = 0
    head_lr_multiplier: float = 20.0
    directions: tuple[str, ...] = ("query_to_doc", "query_to_query")
    extra: dict[str, Any] = field(default_factory=dict)

    def check(self) -> None:
        """Raises TrainingDataError naming the bad option."""
        if not self.temperature > 0:
            raise TrainingDataError("--temperature", f"must be > 0, got {self.temperature}")
        if self.batch_size < 4 or self.batch_size % 2:
            raise TrainingDataError(
                "--batch-size",
                f"must be an even number of texts >= 4 (two per author, at least two authors), got {self.batch_size}",
            )
        if self.context_length < 8:
            raise TrainingDataError("--context-length", f"must be >= 8 tokens, got {self.context_length}")
        if not self.head_lr_multiplier > 0:
            raise TrainingDataError("--head-lr-multiplier", f"must be > 0, got {self.head_lr_multiplier}")
        if self.epochs < 1 or self.passes < 1:
            raise TrainingDataError("--epochs/--passes", "must be >= 1")


def model_token_limits(model: Any) -> tuple[int, int]:
    """(hard, trained) input limits in tokens: the transformer's position embeddings, and the tokenizer's
    ``model_max_length`` (the length the checkpoint was trained at; all-MiniLM-L6-v2: 512 and 256)."""
    first = model[0]
    cfg = getattr(getattr(first, "auto_model", None), "config", None) or getattr(
        getattr(first, "model", None), "config", None
    )
    hard = int(getattr(cfg, "max_position_embeddings", 0) or 10**9)
    tok = getattr(model, "tokenizer", None)
    trained = int(getattr(tok, "model_max_length", 0) or 0)
    trained = trained if 0 < trained < 10**7 else hard
    return hard, min(hard, trained)


def check_context_length(model: Any, context_length: int, name: str = "") -> None:
    """Error beyond the model's position embeddings; a warning beyond the length it was trained at.

    Raises:
        TrainingDataError: ``context_length`` exceeds the position embeddings.
    """
    hard, trained = model_token_limits(model)
    if context_length > hard:
        raise TrainingDataError(
            "--context-length",
            f"{context_length} tokens is beyond the limit of {name or 'the model'} "
            f"({hard} tokens); use --context-length <= {hard}",
        )
    if context_length > trained:
        logger.warning(
            "--context-length %d is beyond the %d tokens %s was trained at (its tokenizer's "
            "model_max_length); positions above %d start untrained",
            context_length,
            trained,
            name or "the model",
            trained,
        )


class _JsonlLog:
    """A trainer callback appending every log entry (loss, learning rate, validation metrics) to a JSONL file."""

    def __new__(cls, path: Path):
        from transformers import TrainerCallback

        class _CB(TrainerCallback):
            def on_log(self, args, state, control, logs=None, **kwargs):
                if logs:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    with open(path, "a", encoding="utf-8") as fh:
                        fh.write(json.dumps({"step": state.global_step, "epoch": state.epoch, **logs}) + "\n")

        return _CB()


def checkpoints_dir(out: str | os.PathLike) -> Path:
    out = Path(out)
    return out.parent / f"{out.name}.checkpoints"


def last_checkpoint(out: str | os.PathLike) -> Path | None:
    """The newest ``checkpoint-<step>`` folder of a run, or None."""
    ck = checkpoints_dir(out)
    found = sorted(
        (p for p in ck.glob("checkpoint-*") if p.is_dir() and p.name.split("-")[-1].isdigit()),
        key=lambda p: int(p.name.split("-")[-1]),
    )
    return found[-1] if found else None


def build_loss(model: Any, cfg: ContrastiveConfig) -> Any:
    """The InfoNCE loss of the recipe (see module docstring)."""
    from sentence_transformers.sentence_transformer import losses

    if cfg.cached:
        return losses.CachedMultipleNegativesRankingLoss(
            model, scale=1.0 / cfg.temperature, mini_batch_size=cfg.mini_batch_size, directions=tuple(cfg.directions)
        )
    return losses.MultipleNegativesRankingLoss(model, scale=1.0 / cfg.temperature, directions=tuple(cfg.directions))


def training_summary(
    source: str,
    keep: list,
    eligible: Any,
    skipped: int,
    validation: list,
    n_batches: int,
    trainer: Any,
    seconds: float,
    resume_from: Path | None,
    *,
    n_documents: int | None = None,
) -> dict[str, Any]:
    """The counts, steps, best checkpoint and wall seconds of a finished training run (``training_config.json``)."""
    counts = {"n_documents": n_documents} if n_documents is not None else {}
    return {
        "source": source,
        **counts,
        "n_training_documents": len(keep),
        "n_authors_eligible": len(eligible),
        "n_authors_skipped_single_document": skipped,
        "n_validation_pairs": len(validation),
        "batches_per_epoch": n_batches,
        "global_step": trainer.state.global_step,
        "best_checkpoint": trainer.state.best_model_checkpoint,
        "best_validation_overall": trainer.state.best_metric,
        "train_seconds": round(seconds, 1),
        "resumed_from": str(resume_from) if resume_from else None,
    }


def train_contrastive(
    docs: list[dict[str, Any]],
    validation: list[dict[str, Any]],
    out: str | os.PathLike,
    cfg: ContrastiveConfig,
    *,
    resume: bool = False,
    show_progress: bool = True,
    source: str = "",
) -> dict[str, Any]:
    """Train the recipe on ``docs`` and write the model folder ``out`` (see module docstring).

    Args:
        docs: training documents ``{"id", "author", "text"}`` (authors with one document are
            skipped and counted).
        validation: held-out authors' pairs ``{"pair": [t1, t2], "same": bool}`` (both classes).
        resume: continue from the last checkpoint in ``<out>.checkpoints`` (error if none).

    Returns:
        summary: counts, wall seconds, best validation metrics, paths.

    Raises:
        TrainingDataError: empty validation or a single class in it, no eligible author, a batch
            larger than twice the eligible authors, a context length beyond the model's limit,
            ``resume`` without a checkpoint.
    """
    import torch
    from datasets import Dataset
    from sentence_transformers import (
        SentenceTransformer,
        SentenceTransformerTrainer,
        SentenceTransformerTrainingArguments,
    )

    cfg.check()
    if not validation:
        raise TrainingDataError(
            "validation",
            "no validation pairs: the split leaves validation empty (hold out more authors with two documents)",
        )
    labels = {bool(r["same"]) for r in validation}
    if len(labels) < 2:
        raise TrainingDataError(
            "validation",
            f"validation pairs are all {'same' if True in labels else 'different'}-author: "
            "both classes are needed for the threshold and Platt scaling",
        )
    eligible, skipped = eligible_authors(docs)
    if len(eligible) < 2:
        raise TrainingDataError(
            "training documents",
            f"{len(eligible)} authors with two documents ({skipped} skipped with one): at least 2 are needed",
        )
    if cfg.batch_size > 2 * len(eligible):
        raise TrainingDataError(
            "--batch-size",
            f"{cfg.batch_size} texts need {cfg.batch_size // 2} distinct authors per batch but only {len(eligible)} "
            f"authors have two documents; use --batch-size <= {2 * len(eligible)}",
        )
    ck_dir = checkpoints_dir(out)
    resume_from = None
    if resume:
        resume_from = last_checkpoint(out)
        if resume_from is None:
            raise TrainingDataError(str(ck_dir), "--resume: no checkpoint-<step> folder to resume from")

    torch.manual_seed(cfg.seed)
    model = SentenceTransformer(cfg.base_model, device="cpu" if not torch.cuda.is_available() else None)
    check_context_length(model, cfg.context_length, cfg.base_model)
    model.max_seq_length = cfg.context_length

    keep = {i for ix in eligible.values() for i in ix}
    train_ds = Dataset.from_dict(
        {
            "text": [d["text"] for i, d in enumerate(docs) if i in keep],
            "author": [d["author"] for i, d in enumerate(docs) if i in keep],
        }
    )
    evaluator = VerificationEvaluator(validation, batch_size=max(8, cfg.mini_batch_size))
    n_batches = len(AuthorPairBatchSampler(train_ds, cfg.batch_size, passes=cfg.passes))
    log_path = ck_dir / LOG_FILE
    if not resume and log_path.exists():
        log_path.unlink()
    args = SentenceTransformerTrainingArguments(
        output_dir=str(ck_dir),
        num_train_epochs=cfg.epochs,
        max_steps=cfg.max_steps,
        per_device_train_batch_size=cfg.batch_size,
        learning_rate=cfg.learning_rate,
        warmup_steps=int(
            math.ceil(cfg.warmup_ratio * (cfg.max_steps if cfg.max_steps > 0 else n_batches * cfg.epochs))
        ),
        weight_decay=cfg.weight_decay,
        lr_scheduler_type="linear",
        seed=cfg.seed,
        data_seed=cfg.seed,
        eval_strategy="epoch",
        save_strategy="epoch",
        logging_strategy="steps" if cfg.logging_steps > 0 else "epoch",
        logging_steps=cfg.logging_steps if cfg.logging_steps > 0 else 500,
        load_best_model_at_end=True,
        metric_for_best_model="eval_validation_overall",
        greater_is_better=True,
        save_total_limit=2,
        batch_sampler=author_pair_sampler(cfg.passes),
        report_to="none",
        disable_tqdm=not show_progress,
        dataloader_drop_last=False,
        use_cpu=not torch.cuda.is_available(),
    )
    trainer = SentenceTransformerTrainer(
        model=model,
        args=args,
        train_dataset=train_ds,
        loss=build_loss(model, cfg),
        evaluator=evaluator,
        callbacks=[_JsonlLog(log_path)],
    )
    trainer.data_collator = AuthorPairCollator(
        trainer.data_collator, max_words=cfg.context_length, rotate=cfg.rotate, seed=cfg.seed
    )
    t0 = time.monotonic()
    trainer.train(resume_from_checkpoint=str(resume_from) if resume_from else None)
    seconds = time.monotonic() - t0
    calibration = evaluator.calibration(model)
    summary = training_summary(
        source, keep, eligible, skipped, validation, n_batches, trainer, seconds, resume_from, n_documents=len(docs)
    )
    with atomic_folder(out) as tmp:
        model.save(str(tmp))
        write_text_atomic(tmp / CALIBRATION_FILE, json.dumps(calibration, indent=2) + "\n")
        write_text_atomic(
            tmp / CONFIG_FILE,
            json.dumps(
                {"recipe": "contrastive (Kirby)", "config": dataclasses.asdict(cfg), "summary": summary},
                indent=2,
                default=str,
            )
            + "\n",
        )
        if log_path.exists():
            (tmp / LOG_FILE).write_text(log_path.read_text())
    summary["validation"] = calibration
    return summary
