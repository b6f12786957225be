"""Cross-encoders: Kirby's classification rival, and trained rerankers (QuoteR, author pairs).

**The classification rival** (Kirby, the comparison arm: a cross-encoder trained as a pair
classifier, beaten by the contrastive bi-encoder for every model tested). Same documents, same
sampler and the same span rotation as :mod:`~mteb_contrastive.training.contrastive`: each batch of
``B`` authors x 2 documents becomes ``B`` same-author pairs ``(d_i, d_i')`` (label 1) and ``B``
different-author pairs ``(d_i, d_{i+1}')`` (label 0, the next author of the batch), concatenated
``[CLS] t1 [SEP] t2 [SEP]`` for a sentence-transformers ``CrossEncoder`` with one output and a
sigmoid (``BinaryCrossEntropyLoss`` on the logit). Each text gets half the context length, so a
pair fits the same ``context_length`` tokens. Validation every epoch with the verification
protocol on the model's probability (threshold maximising F1, Platt, abstention); the best
checkpoint by validation overall is kept and ``verification_calibration.json`` saved beside it.

**The fresh head's learning rate.** ``CrossEncoder(all-MiniLM-L6-v2, num_labels=1)`` adds a
classification layer initialised with std 0.02 (Hugging Face ``BertForSequenceClassification``), on
top of a ``[CLS]`` pooler that the sentence-embedding checkpoint never used (it was trained with
mean pooling). At first the logits are ~0.01, every probability is 0.5 and the loss sits at ln 2
(0.693); the body's gradient is scaled by the tiny head, so at a fine-tuning learning rate the
model needs many steps before the loss moves. Measured on PAN14 (16 pairs x 128 tokens per
step, AdamW 5e-5, no schedule): loss 0.694 -> 0.689 after 15 steps and 0.644 after 30 with one
learning rate; 0.600 after 15 and 0.49 after 20 with the head (classifier + pooler) at 20x.
The previous 24-step runs (linear warmup and decay) therefore stayed at ln 2. The head's
parameters get ``head_lr_multiplier`` x the learning rate (:func:`head_param_groups`; default 20
for the cross-encoder commands), the usual remedy for a randomly initialised head (e.g.
discriminative learning rates, Howard & Ruder 2018, ULMFiT).

**QuoteR reranker** (:func:`train_quoter_reranker`): a cross-encoder fine-tuned on the training
split of a QuoteR-format file (context -> gold quote, QuoteR's query format with the ``[MASK]``
slot) with BM25-mined negatives (``bm25s`` over the file's candidate pool, the gold removed):
for each query one positive and ``n_negatives`` negatives, ``BinaryCrossEntropyLoss``.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
import random
import time
from pathlib import Path
from typing import Any

import numpy as np

from mteb_contrastive.data.atomic import atomic_folder, write_text_atomic
from mteb_contrastive.data.quoter import (
    OFFICIAL_FILES,
    QueryFormat,
    read_quoter_file,
    split_by_boundaries,
    split_by_proportions,
)
from mteb_contrastive.training.contrastive import (
    CONFIG_FILE,
    LOG_FILE,
    ContrastiveConfig,
    _JsonlLog,
    check_context_length,
    checkpoints_dir,
    last_checkpoint,
    training_summary,
)
from mteb_contrastive.training.data import TrainingDataError, eligible_authors
from mteb_contrastive.training.sampler import AuthorPairBatchSampler, RotatingCollator, author_pair_sampler
from mteb_contrastive.training.validation import CALIBRATION_FILE, VerificationEvaluator

logger = logging.getLogger(__name__)


def cross_encoder_pair_scores(model: Any, texts1: list[str], texts2: list[str], batch_size: int = 32) -> np.ndarray:
    """A sentence-transformers ``CrossEncoder``'s score of each pair (its activation applied:
    a sigmoid probability in [0, 1] for one output)."""
    pairs = list(zip(texts1, texts2))
    if not pairs:
        return np.zeros(0)
    return np.asarray(model.predict(pairs, batch_size=batch_size, show_progress_bar=False), dtype=np.float64).reshape(
        -1
    )


class CrossEncoderVerificationEvaluator(VerificationEvaluator):
    """:class:`VerificationEvaluator` with the cross-encoder's pair score instead of a cosine."""

    def scores(self, model: Any) -> np.ndarray:
        return cross_encoder_pair_scores(model, self.texts1, self.texts2, self.batch_size)


class PairClassificationCollator(RotatingCollator):
    """Document rows in sampler order -> (text1, text2, label) rows for the cross-encoder collator.

    ``B`` authors give ``B`` same-author pairs and ``B`` different-author pairs (see module
    docstring); each text is rotated (unless ``rotate`` is False) and cut to ``max_words``.
    """

    def rows(self, texts: list[str]) -> list[dict[str, Any]]:
        first, second = texts[0::2], texts[1::2]
        b = len(first)
        rows = [{"text1": first[i], "text2": second[i], "label": 1.0} for i in range(b)]
        return rows + [{"text1": first[i], "text2": second[(i + 1) % b], "label": 0.0} for i in range(b)]


def head_param_groups(
    model: Any, learning_rate: float, head_lr_multiplier: float, weight_decay: float
) -> list[dict[str, Any]]:
    """AdamW parameter groups of a ``CrossEncoder``: the head (``classifier.*`` and the ``[CLS]`` pooler)
    at ``learning_rate * head_lr_multiplier``, the rest at ``learning_rate``; no weight decay on
    biases and LayerNorm weights (as the Hugging Face trainer). Empty groups are dropped.

    Raises:
        ValueError: ``head_lr_multiplier`` <= 0, or the model has no ``classifier`` parameter.
    """
    if not head_lr_multiplier > 0:
        raise ValueError(f"--head-lr-multiplier must be > 0, got {head_lr_multiplier}")
    groups: dict[tuple[bool, bool], list[Any]] = {(h, d): [] for h in (False, True) for d in (False, True)}
    n_classifier = 0
    for name, p in model.model.named_parameters():
        if not p.requires_grad:
            continue
        is_head = name.startswith("classifier") or ".pooler." in name or name.startswith("pooler")
        n_classifier += name.startswith("classifier")
        decay = not (name.endswith("bias") or "LayerNorm" in name or "layer_norm" in name)
        groups[(is_head, decay)].append(p)
    if not n_classifier:
        raise ValueError("the cross-encoder has no 'classifier' parameters: cannot give its head its own learning rate")
    return [
        {
            "params": ps,
            "lr": learning_rate * (head_lr_multiplier if h else 1.0),
            "weight_decay": weight_decay if d else 0.0,
        }
        for (h, d), ps in groups.items()
        if ps
    ]


def _optimizer(model: Any, cfg: ContrastiveConfig) -> Any:
    import torch

    return torch.optim.AdamW(
        head_param_groups(model, cfg.learning_rate, cfg.head_lr_multiplier, cfg.weight_decay), lr=cfg.learning_rate
    )


def _ce_args(ck_dir: Path, cfg: ContrastiveConfig, n_steps: int, *, evaluate: bool, batch_sampler: Any = None) -> Any:
    import torch
    from sentence_transformers.cross_encoder import CrossEncoderTrainingArguments

    kw = dict(batch_sampler=batch_sampler) if batch_sampler is not None else {}
    return CrossEncoderTrainingArguments(
        output_dir=str(ck_dir),
        num_train_epochs=cfg.epochs,
        max_steps=cfg.max_steps,
        per_device_train_batch_size=cfg.batch_size,
        learning_rate=cfg.learning_rate,
        warmup_steps=int(math.ceil(cfg.warmup_ratio * n_steps)),
        weight_decay=cfg.weight_decay,
        lr_scheduler_type="linear",
        seed=cfg.seed,
        data_seed=cfg.seed,
        eval_strategy="epoch" if evaluate else "no",
        save_strategy="epoch",
        logging_strategy="steps" if cfg.logging_steps > 0 else "epoch",
        logging_steps=cfg.logging_steps if cfg.logging_steps > 0 else 500,
        load_best_model_at_end=evaluate,
        metric_for_best_model="eval_validation_overall" if evaluate else None,
        greater_is_better=True,
        save_total_limit=2,
        report_to="none",
        dataloader_drop_last=False,
        use_cpu=not torch.cuda.is_available(),
        **kw,
    )


def _new_cross_encoder(base_model: str, context_length: int, seed: int) -> Any:
    import torch
    from sentence_transformers import CrossEncoder

    torch.manual_seed(seed)  # the new classification head
    model = CrossEncoder(
        base_model, num_labels=1, max_length=context_length, device="cpu" if not torch.cuda.is_available() else None
    )
    check_context_length(model, context_length, base_model)
    return model


def _save(
    model: Any,
    out: str | os.PathLike,
    cfg: ContrastiveConfig,
    recipe: str,
    summary: dict[str, Any],
    calibration: dict[str, Any] | None,
    log_path: Path,
) -> None:
    with atomic_folder(out) as tmp:
        model.save(str(tmp))
        if calibration is not None:
            write_text_atomic(tmp / CALIBRATION_FILE, json.dumps(calibration, indent=2) + "\n")
        write_text_atomic(
            tmp / CONFIG_FILE,
            json.dumps({"recipe": recipe, "config": dataclasses.asdict(cfg), "summary": summary}, indent=2, default=str)
            + "\n",
        )
        if log_path.exists():
            (tmp / LOG_FILE).write_text(log_path.read_text())


def train_pair_classifier(
    docs: list[dict[str, Any]],
    validation: list[dict[str, Any]],
    out: str | os.PathLike,
    cfg: ContrastiveConfig,
    *,
    resume: bool = False,
    show_progress: bool = True,
    source: str = "",
) -> dict[str, Any]:
    """Train the classification rival on the same documents (see module docstring).

    ``cfg.temperature`` and ``cfg.cached`` do not apply. Same errors as
    :func:`~mteb_contrastive.training.contrastive.train_contrastive`.
    """
    from datasets import Dataset
    from sentence_transformers.cross_encoder import CrossEncoderTrainer
    from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss

    cfg.check()
    if not validation or len({bool(r["same"]) for r in validation}) < 2:
        raise TrainingDataError(
            "validation", "validation needs same-author and different-author pairs (it is empty or has one class)"
        )
    eligible, skipped = eligible_authors(docs)
    if cfg.batch_size > 2 * len(eligible):
        raise TrainingDataError(
            "--batch-size",
            f"{cfg.batch_size} texts need {cfg.batch_size // 2} distinct authors per batch but only {len(eligible)} "
            f"authors have two documents; use --batch-size <= {2 * len(eligible)}",
        )
    resume_from = last_checkpoint(out) if resume else None
    if resume and resume_from is None:
        raise TrainingDataError(str(checkpoints_dir(out)), "--resume: no checkpoint-<step> folder to resume from")
    model = _new_cross_encoder(cfg.base_model, cfg.context_length, cfg.seed)
    keep = sorted(i for ix in eligible.values() for i in ix)
    ds = Dataset.from_dict({"text": [docs[i]["text"] for i in keep], "author": [docs[i]["author"] for i in keep]})
    n_batches = len(AuthorPairBatchSampler(ds, cfg.batch_size, passes=cfg.passes))
    ck_dir = checkpoints_dir(out)
    log_path = ck_dir / LOG_FILE
    if not resume and log_path.exists():
        log_path.unlink()
    evaluator = CrossEncoderVerificationEvaluator(validation, batch_size=16)
    args = _ce_args(
        ck_dir,
        cfg,
        cfg.max_steps if cfg.max_steps > 0 else n_batches * cfg.epochs,
        evaluate=True,
        batch_sampler=author_pair_sampler(cfg.passes),
    )
    trainer = CrossEncoderTrainer(
        model=model,
        args=args,
        train_dataset=ds,
        loss=BinaryCrossEntropyLoss(model),
        evaluator=evaluator,
        callbacks=[_JsonlLog(log_path)],
        optimizers=(_optimizer(model, cfg), None),
    )
    # each text gets half the context, so that a pair fits in context_length tokens
    trainer.data_collator = PairClassificationCollator(
        trainer.data_collator, max_words=max(1, cfg.context_length // 2), rotate=cfg.rotate, seed=cfg.seed
    )
    t0 = time.monotonic()
    trainer.train(resume_from_checkpoint=str(resume_from) if resume_from else None)
    summary = training_summary(
        source, keep, eligible, skipped, validation, n_batches, trainer, time.monotonic() - t0, resume_from
    )
    calibration = evaluator.calibration(model)
    calibration["protocol"] = (
        "mteb_contrastive.protocols.verification (cross-encoder probability; "
        "threshold max F1, Platt, abstention on validation)"
    )
    _save(model, out, cfg, "pair classification cross-encoder (Kirby's rival)", summary, calibration, log_path)
    summary["validation"] = calibration
    return summary


def bm25_negatives(
    queries: list[str], golds: list[str], pool: list[str], n_negatives: int, *, language: str = "en", seed: int = 0
) -> list[list[str]]:
    """For each query, the ``n_negatives`` best BM25 candidates of ``pool`` other than its gold (bm25s,
    English stemming/stopwords for ``en``)."""
    import bm25s

    stop = "en" if language == "en" else None
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(pool, stopwords=stop, show_progress=False), show_progress=False)
    k = min(len(pool), n_negatives + 1)
    ids, _ = retriever.retrieve(bm25s.tokenize(queries, stopwords=stop, show_progress=False), k=k, show_progress=False)
    out = []
    for row, gold in zip(ids, golds):
        out.append([pool[j] for j in row if pool[j] != gold][:n_negatives])
    return out


def train_quoter_reranker(
    quoter_file: str | os.PathLike,
    out: str | os.PathLike,
    cfg: ContrastiveConfig,
    *,
    n_negatives: int = 3,
    max_queries: int | None = None,
    language: str = "en",
    official: str | None = None,
    show_progress: bool = True,
) -> dict[str, Any]:
    """Fine-tune a cross-encoder reranker on a QuoteR file's **train** split (see module docstring).

    Args:
        quoter_file: a QuoteR line file; split by the shared files' rule (seeded shuffle, 80/10/10)
            unless ``official`` names an official file's boundaries (``english``, ...).
        max_queries: a seeded sample of that many training queries (CPU budgets).

    Raises:
        DataError: unreadable QuoteR file (names file and line).
    """
    from datasets import Dataset
    from sentence_transformers.cross_encoder import CrossEncoderTrainer
    from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss

    examples = read_quoter_file(quoter_file)
    if official:
        splits = split_by_boundaries(examples, *OFFICIAL_FILES[official][1:3], source=quoter_file)
    else:
        splits = split_by_proportions(examples, source=quoter_file)
    train = splits["train"]
    if max_queries is not None and len(train) > max_queries:
        train = random.Random(cfg.seed).sample(train, max_queries)
    if not train:
        raise TrainingDataError(quoter_file, "the train split is empty")
    fmt = QueryFormat(language=language)
    pool = list(dict.fromkeys(fmt.quote(ex.quote) for ex in splits["train"]))
    queries = [fmt.query(ex.left, ex.right) for ex in train]
    golds = [fmt.quote(ex.quote) for ex in train]
    negs = bm25_negatives(queries, golds, pool, n_negatives, language=language, seed=cfg.seed)
    rows = {"query": [], "candidate": [], "label": []}
    for q, g, ns in zip(queries, golds, negs):
        for c, y in [(g, 1.0)] + [(n, 0.0) for n in ns]:
            rows["query"].append(q)
            rows["candidate"].append(c)
            rows["label"].append(y)
    ds = Dataset.from_dict(rows)
    model = _new_cross_encoder(cfg.base_model, cfg.context_length, cfg.seed)
    ck_dir = checkpoints_dir(out)
    log_path = ck_dir / LOG_FILE
    if log_path.exists():
        log_path.unlink()
    n_steps = cfg.max_steps if cfg.max_steps > 0 else math.ceil(len(ds) / cfg.batch_size) * cfg.epochs
    args = _ce_args(ck_dir, cfg, n_steps, evaluate=False)
    trainer = CrossEncoderTrainer(
        model=model,
        args=args,
        train_dataset=ds,
        loss=BinaryCrossEntropyLoss(model, pos_weight=None),
        callbacks=[_JsonlLog(log_path)],
        optimizers=(_optimizer(model, cfg), None),
    )
    t0 = time.monotonic()
    trainer.train()
    summary = {
        "source": str(quoter_file),
        "n_train_queries": len(train),
        "n_pairs": len(ds),
        "n_negatives_per_query": n_negatives,
        "candidate_pool": len(pool),
        "global_step": trainer.state.global_step,
        "train_seconds": round(time.monotonic() - t0, 1),
    }
    _save(model, out, cfg, "QuoteR reranker (cross-encoder, BM25 negatives)", summary, None, log_path)
    return summary
