"""Kirby's contrastive recipe for authorship verification as the authors' code runs it, on sentence-transformers.

"Contrastive Learning for Authorship Verification" (Kirby; ../shared/papers/contrastive-authorship-verification.md;
code github.com/petekirby/contrastive-av, commit 8363393): a bi-encoder (mean pooling, no projection
head, cosine) trained with a supervised contrastive loss over in-batch negatives. Each rule and its
source in the authors' code:

* **loss** -- pytorch-metric-learning ``SupConLoss`` over all ``2B`` texts of a batch, every text an
  anchor (``models/loss_defaults.py:26-32``, ``models/transformer_contrastive_module.py:83-98``):
  :mod:`mteb_contrastive.training.supcon`; the gradient-cache variant (``cached``, the configs'
  ``microbatch_size``, ``models/torch_utils.py:73-123``) has the same value;
* **batches** -- ``MPerClassSampler`` with m = 2, fresh authors for every batch, single-document
  authors kept, ``floor(documents / batch)`` batches an epoch (``data/distributed_sampler.py:7-19``):
  :mod:`mteb_contrastive.training.sampler`;
* **span rotation** -- a start character drawn uniformly, moved back to a word boundary, the text
  wrapped round there, at every draw (``data/contrastive_collate.py:6-18``):
  :func:`~mteb_contrastive.training.data.rotate_span`;
* **optimiser and schedule** -- AdamW, linear decay after a linear warmup of ``floor(0.1 x steps)``
  steps (``models/transformer_contrastive_module.py:100-116``), weight decay / betas / eps per config,
  no gradient clipping (neither the Lightning trainer of ``train.py`` nor any config sets one; the
  Hugging Face trainer's default clipping at norm 1.0 is turned off, ``max_grad_norm = 0``);
* **model selection** -- every epoch, validation F1 at the F1-optimal threshold; the best checkpoint
  is kept (``train.py:21``): :mod:`mteb_contrastive.training.validation`;
* **defaults** -- the authors' numbers are the ``kirby-*`` presets (:mod:`mteb_contrastive.training.presets`);
  the default is ``ours-cpu``, a CPU-sized setting of ours.

Output folder (a plain sentence-transformers model: ``SentenceTransformer(folder)``,
``mteb run -m folder``), written atomically at the end: the best checkpoint's weights (by
validation F1), ``verification_calibration.json`` (both calibrations fitted on the validation
pairs), ``training_config.json`` (the preset and every value, the data counts, the trainer's time),
``training_log.jsonl`` (one line per logged step/epoch). Checkpoints go to ``<out>.checkpoints/``
(one per epoch); ``resume=True`` continues from the last of them.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mteb_contrastive.data.atomic import atomic_folder, write_text_atomic
from mteb_contrastive.layout import TRAINING_CONFIG_FILE
from mteb_contrastive.training.data import TrainingDataError, author_counts
from mteb_contrastive.training.presets import DEFAULT_PRESET, PRESETS
from mteb_contrastive.training.sampler import AuthorBatchSampler, SupConCollator, author_batch_sampler, check_batch
from mteb_contrastive.training.supcon import CachedSupConLoss, SupConLoss
from mteb_contrastive.training.validation import CALIBRATION_FILE, VerificationEvaluator

logger = logging.getLogger(__name__)

LOG_FILE = "training_log.jsonl"
CONFIG_FILE = TRAINING_CONFIG_FILE
#: the trainer's log key of the default selection metric (validation F1, as the authors' ``val_f1``)
SELECTION_METRIC = "eval_validation_f1"
#: ``--selection-metric`` values -> the trainer's log key. ``f1`` is the authors' (``train.py:21``); ``auc`` is ours:
#: on balanced pairs answering "same" for every pair already has F1 = 2/3, so a model that separates the
#: classes only a little has its best F1 there, every checkpoint ties, and the first is kept; the AUC
#: of the raw cosine moves with any separation.
SELECTION_METRICS = {"f1": SELECTION_METRIC, "auc": "eval_validation_auc"}


@dataclass
class ContrastiveConfig:
    """Parameters of the recipe (see the module docstring for sources; the defaults are ``ours-cpu``).

    Attributes:
        base_model: a sentence-transformers model name or folder (mean pooling expected).
        context_length: tokens per text (the model's ``max_seq_length``); <= the model's limit.
        batch_size: texts per batch, even (``batch_size / 2`` authors x 2 documents).
        temperature: SupCon temperature (> 0). The authors' final configs: 0.01.
        rotate: random span rotation at every draw (the authors: on).
        cached: gradient caching over ``mini_batch_size`` texts (the configs' ``microbatch_size``).
        learning_rate, epochs, warmup_ratio, weight_decay, adam_beta2, adam_epsilon, seed: AdamW and
            the linear schedule (warmup ``floor(warmup_ratio x steps)`` steps).
        bf16: bf16 mixed precision where a CUDA GPU supports it (the configs' ``precision: bf16-mixed``);
            ignored on a CPU.
        max_grad_norm: gradient clipping norm; 0 (default): none, as the authors.
        max_steps: stop after this many optimiser steps (-1: run all epochs).
        logging_steps: log the loss every N steps (0: once per epoch).
        eval_steps: validate (F1) and save a checkpoint every N optimiser steps (0: once per epoch, as the
            authors). On a small corpus an epoch is a few batches (``floor(documents / batch)``), and a
            validation per epoch would cost more than the steps between them.
        head_lr_multiplier: cross-encoders only: the fresh classification head's learning rate is
            this times ``learning_rate`` (see :mod:`mteb_contrastive.training.cross_encoder`).
        selection_metric: the validation statistic the kept checkpoint maximises (:data:`SELECTION_METRICS`; the
            first maximum is kept): ``f1`` (the authors') or ``auc``.
        preset: the :data:`~mteb_contrastive.training.presets.PRESETS` name the values started from.
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
    adam_beta2: float = 0.999
    adam_epsilon: float = 1e-8
    bf16: bool = False
    max_grad_norm: float = 0.0
    seed: int = 0
    max_steps: int = -1
    logging_steps: int = 0
    eval_steps: int = 0
    selection_metric: str = "f1"
    head_lr_multiplier: float = 20.0
    preset: str = DEFAULT_PRESET
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_preset(cls, name: str, **overrides: Any) -> ContrastiveConfig:
        """The preset's values, then ``overrides`` (None values ignored).

        Raises:
            TrainingDataError: an unknown preset name.
        """
        if name not in PRESETS:
            raise TrainingDataError("--preset", f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}")
        values = {**PRESETS[name].values, **{k: v for k, v in overrides.items() if v is not None}}
        if "base_model" not in values:
            raise TrainingDataError("--base-model", f"preset {name!r} names no base model: give --base-model")
        return cls(**values, preset=name)

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
        if self.epochs < 1:
            raise TrainingDataError("--epochs", "must be >= 1")
        if self.selection_metric not in SELECTION_METRICS:
            raise TrainingDataError(
                "--selection-metric", f"must be one of {', '.join(SELECTION_METRICS)}, got {self.selection_metric!r}"
            )
        if self.eval_steps < 0:
            raise TrainingDataError("--eval-steps", f"must be >= 0 (0: every epoch), got {self.eval_steps}")
        if self.mini_batch_size < 1:
            raise TrainingDataError("--mini-batch-size", f"must be >= 1, got {self.mini_batch_size}")

    def recorded(self) -> dict[str, Any]:
        """Every value, with the preset's source and which values differ from the preset (``training_config.json``)."""
        preset = PRESETS.get(self.preset)
        values = dataclasses.asdict(self)
        return {
            **values,
            "preset_source": preset.source if preset else None,
            "changed_from_preset": sorted(
                k for k, v in (preset.values if preset else {}).items() if k in values and values[k] != v
            ),
        }


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
    """A trainer callback appending every log entry (loss, the last step's gradient norm, learning rate, validation
    metrics) to a JSONL file, each with its wall-clock ``unix_time`` (seconds)."""

    def __new__(cls, path: Path):
        from transformers import TrainerCallback

        class _CB(TrainerCallback):
            def on_log(self, args, state, control, logs=None, **kwargs):
                if logs:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    with open(path, "a", encoding="utf-8") as fh:
                        row = {
                            "step": state.global_step,
                            "epoch": state.epoch,
                            "unix_time": round(time.time(), 1),
                            **logs,
                        }
                        fh.write(json.dumps(row) + "\n")

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
    """The recipe's loss: SupCon over every text of the batch (:mod:`mteb_contrastive.training.supcon`)."""
    if cfg.cached:
        return CachedSupConLoss(model, temperature=cfg.temperature, mini_batch_size=cfg.mini_batch_size)
    return SupConLoss(model, temperature=cfg.temperature)


def warmup_steps(cfg: ContrastiveConfig, n_batches: int) -> int:
    """``floor(warmup_ratio x total steps)`` (``models/transformer_contrastive_module.py:110-116``)."""
    return int(cfg.warmup_ratio * (cfg.max_steps if cfg.max_steps > 0 else n_batches * cfg.epochs))


def selection_schedule(cfg: ContrastiveConfig) -> dict[str, Any]:
    """The trainer's validation and checkpoint schedule: every epoch (``eval_steps`` 0, the authors'
    ``train.py:21``), else every ``eval_steps`` optimiser steps (the end of training is always saved)."""
    if cfg.eval_steps > 0:
        return {
            "eval_strategy": "steps",
            "save_strategy": "steps",
            "eval_steps": cfg.eval_steps,
            "save_steps": cfg.eval_steps,
        }
    return {"eval_strategy": "epoch", "save_strategy": "epoch"}


def check_validation(validation: list[dict[str, Any]]) -> None:
    """Raises TrainingDataError: no validation pairs, or a single class."""
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
            "both classes are needed for the F1 threshold and the calibrations",
        )


def training_table(docs: list[dict[str, Any]]) -> Any:
    """A ``datasets.Dataset`` of the training documents: ``text``, ``author``, ``label`` (the author's number)."""
    from datasets import Dataset

    names = {a: i for i, a in enumerate(sorted({str(d["author"]) for d in docs}))}
    return Dataset.from_dict(
        {
            "text": [d["text"] for d in docs],
            "author": [str(d["author"]) for d in docs],
            "label": [names[str(d["author"])] for d in docs],
        }
    )


def training_summary(
    source: str,
    docs: list[dict[str, Any]],
    validation: list,
    n_batches: int,
    trainer: Any,
    seconds: float,
    resume_from: Path | None,
    selection_key: str = SELECTION_METRIC,
) -> dict[str, Any]:
    """The counts, steps, best checkpoint and wall seconds of a finished training run (``training_config.json``)."""
    counts = author_counts(docs)
    return {
        "source": source,
        "n_training_documents": counts["documents"],
        "n_training_authors": counts["authors"],
        "n_single_document_authors": counts["single_document_authors"],
        "n_validation_pairs": len(validation),
        "batches_per_epoch": n_batches,
        "global_step": trainer.state.global_step,
        "best_checkpoint": trainer.state.best_model_checkpoint,
        "selection_metric": selection_key,
        "best_validation_f1": trainer.state.best_metric,
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
    data_counts: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Train the recipe on ``docs`` and write the model folder ``out`` (see module docstring).

    Args:
        docs: training documents ``{"id", "author", "text"}`` (every author kept, one document or more).
        validation: held-out authors' pairs ``{"pair": [t1, t2], "same": bool}`` (both classes).
        resume: continue from the last checkpoint in ``<out>.checkpoints`` (error if none).
        data_counts: what the caller did to the data (read, removed, topic control), recorded.

    Returns:
        summary: counts, wall seconds, best validation metrics, paths.

    Raises:
        TrainingDataError: empty validation or a single class in it, a batch the documents cannot fill
            (:func:`~mteb_contrastive.training.sampler.check_batch`), a context length beyond the
            model's limit, ``resume`` without a checkpoint.
    """
    import torch
    from sentence_transformers import (
        SentenceTransformer,
        SentenceTransformerTrainer,
        SentenceTransformerTrainingArguments,
    )

    cfg.check()
    check_validation(validation)
    counts = author_counts(docs)
    check_batch(cfg.batch_size, counts["authors"], counts["documents"])
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

    train_ds = training_table(docs)
    evaluator = VerificationEvaluator(validation, batch_size=max(8, cfg.mini_batch_size))
    n_batches = len(AuthorBatchSampler(train_ds, cfg.batch_size, seed=cfg.seed))
    log_path = ck_dir / LOG_FILE
    if not resume and log_path.exists():
        log_path.unlink()
    gpu = torch.cuda.is_available()
    args = SentenceTransformerTrainingArguments(
        output_dir=str(ck_dir),
        num_train_epochs=cfg.epochs,
        max_steps=cfg.max_steps,
        per_device_train_batch_size=cfg.batch_size,
        learning_rate=cfg.learning_rate,
        warmup_steps=warmup_steps(cfg, n_batches),
        weight_decay=cfg.weight_decay,
        adam_beta2=cfg.adam_beta2,
        adam_epsilon=cfg.adam_epsilon,
        lr_scheduler_type="linear",
        max_grad_norm=cfg.max_grad_norm,
        bf16=bool(cfg.bf16 and gpu and torch.cuda.is_bf16_supported()),
        seed=cfg.seed,
        data_seed=cfg.seed,
        **selection_schedule(cfg),
        logging_strategy="steps" if cfg.logging_steps > 0 else "epoch",
        logging_steps=cfg.logging_steps if cfg.logging_steps > 0 else 500,
        load_best_model_at_end=True,
        metric_for_best_model=SELECTION_METRICS[cfg.selection_metric],
        greater_is_better=True,
        save_total_limit=2,
        batch_sampler=author_batch_sampler(),
        report_to="none",
        disable_tqdm=not show_progress,
        dataloader_drop_last=False,
        use_cpu=not gpu,
    )
    trainer = SentenceTransformerTrainer(
        model=model,
        args=args,
        train_dataset=train_ds,
        loss=build_loss(model, cfg),
        evaluator=evaluator,
        callbacks=[_JsonlLog(log_path)],
    )
    trainer.data_collator = SupConCollator(
        trainer.data_collator, max_words=cfg.context_length, rotate=cfg.rotate, seed=cfg.seed
    )
    t0 = time.monotonic()
    trainer.train(resume_from_checkpoint=str(resume_from) if resume_from else None)
    seconds = time.monotonic() - t0
    calibration = evaluator.calibration(model)
    summary = training_summary(
        source, docs, validation, n_batches, trainer, seconds, resume_from, SELECTION_METRICS[cfg.selection_metric]
    )
    if data_counts:
        summary["data"] = data_counts
    with atomic_folder(out) as tmp:
        model.save(str(tmp))
        write_text_atomic(tmp / CALIBRATION_FILE, json.dumps(calibration, indent=2) + "\n")
        write_text_atomic(
            tmp / CONFIG_FILE,
            json.dumps(
                {"recipe": "contrastive (Kirby)", "config": cfg.recorded(), "summary": summary},
                indent=2,
                default=str,
            )
            + "\n",
        )
        if log_path.exists():
            (tmp / LOG_FILE).write_text(log_path.read_text())
    summary["validation"] = calibration
    return summary
