"""Cross-encoders: Kirby's classification rival, and trained rerankers (QuoteR, author pairs).

**The classification rival** (Kirby, the comparison arm: a cross-encoder trained as a pair
classifier, beaten by the contrastive bi-encoder for every model tested). Same documents, same
sampler (``MPerClassSampler``, m = 2: :mod:`~mteb_contrastive.training.sampler`) and the same span
rotation as :mod:`~mteb_contrastive.training.contrastive`. Pairs as the authors form them
(``data/classification_collate.py:28-84`` of github.com/petekirby/contrastive-av): every text of
the batch is an anchor, paired with its author's other text (label 1) and with one text of another
author of the batch drawn at random (label 0), so a batch of ``2B`` texts gives ``2B`` same-author
and ``2B`` different-author pairs (``pytorch_metric_learning.utils.loss_and_miner_utils.
get_random_triplet_indices(labels, t_per_anchor=1)``, the authors' ``negatives_per_positive = 1``).
Each text is rotated, stripped and cut to ``(context_length // 2) x 5`` characters (``:9-14``, ``:30``;
the cut moved back to a grapheme start), then the pair is tokenised ``[CLS] t1 [SEP] t2 [SEP]`` and
truncated to ``context_length`` tokens, longest first. A sentence-transformers ``CrossEncoder`` with
one output and a sigmoid, ``BinaryCrossEntropyLoss`` on the logit (the authors: focal loss with
alpha 0.5, gamma 0, i.e. half the binary cross-entropy, ``transformer_classification_module.py:42-44``
and every final config; AdamW's update is unchanged by that factor). Validation every epoch on the
model's probability; the checkpoint with the best validation F1 is kept and
``verification_calibration.json`` saved beside it. Not reproduced: the authors' retry with 2x the
characters when a pair is padded (``:80-81``).

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
from mteb_contrastive.data.text import grapheme_floor
from mteb_contrastive.training.contrastive import (
    CONFIG_FILE,
    LOG_FILE,
    SELECTION_METRICS,
    ContrastiveConfig,
    _JsonlLog,
    check_context_length,
    check_validation,
    checkpoints_dir,
    last_checkpoint,
    selection_schedule,
    training_summary,
    training_table,
)
from mteb_contrastive.training.data import TrainingDataError, author_counts
from mteb_contrastive.training.sampler import AuthorBatchSampler, RotatingCollator, author_batch_sampler, check_batch
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

    Each of the ``2B`` texts is an anchor: one pair with its author's other text (label 1), one with a
    text of another author of the batch drawn at random (label 0), as the authors' triplets (module
    docstring). Texts are rotated (unless ``rotate`` is False) and cut to ``max_chars`` characters.
    """

    def __init__(self, inner: Any, *, max_chars: int, rotate: bool = True, seed: int = 0) -> None:
        super().__init__(inner, max_words=None, rotate=rotate, seed=seed)
        self.max_chars = int(max_chars)

    def rows(self, texts: list[str], features: list[dict[str, Any]]) -> list[dict[str, Any]]:
        texts = [cut_chars(t.strip(), self.max_chars) for t in texts]
        labels = [int(f["label"]) for f in features]
        rows = []
        for i, y in enumerate(labels):
            pos = [j for j, z in enumerate(labels) if z == y and j != i]
            neg = [j for j, z in enumerate(labels) if z != y]
            if not pos or not neg:
                continue
            rows.append({"text1": texts[i], "text2": texts[self.rng.choice(pos)], "label": 1.0})
            rows.append({"text1": texts[i], "text2": texts[self.rng.choice(neg)], "label": 0.0})
        return rows


def cut_chars(text: str, max_chars: int) -> str:
    """The first ``max_chars`` characters of ``text``, the cut moved back to a grapheme start
    (:func:`~mteb_contrastive.data.text.grapheme_floor`)."""
    return text if len(text) <= max_chars else text[: grapheme_floor(text, max_chars)]


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


def _ce_args(
    ck_dir: Path,
    cfg: ContrastiveConfig,
    n_steps: int,
    *,
    evaluate: bool,
    batch_sampler: Any = None,
    max_grad_norm: float | None = None,
) -> Any:
    import torch
    from sentence_transformers.cross_encoder import CrossEncoderTrainingArguments

    kw: dict[str, Any] = dict(batch_sampler=batch_sampler) if batch_sampler is not None else {}
    if max_grad_norm is not None:
        kw["max_grad_norm"] = max_grad_norm
    return CrossEncoderTrainingArguments(
        output_dir=str(ck_dir),
        num_train_epochs=cfg.epochs,
        max_steps=cfg.max_steps,
        per_device_train_batch_size=cfg.batch_size,
        learning_rate=cfg.learning_rate,
        warmup_steps=int(cfg.warmup_ratio * n_steps),
        weight_decay=cfg.weight_decay,
        lr_scheduler_type="linear",
        seed=cfg.seed,
        data_seed=cfg.seed,
        **(selection_schedule(cfg) if evaluate else {"eval_strategy": "no", "save_strategy": "epoch"}),
        logging_strategy="steps" if cfg.logging_steps > 0 else "epoch",
        logging_steps=cfg.logging_steps if cfg.logging_steps > 0 else 500,
        load_best_model_at_end=evaluate,
        metric_for_best_model=SELECTION_METRICS[cfg.selection_metric] if evaluate else None,
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
            json.dumps({"recipe": recipe, "config": cfg.recorded(), "summary": summary}, indent=2, default=str) + "\n",
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
    data_counts: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Train the classification rival on the same documents (see module docstring).

    ``cfg.temperature`` and ``cfg.cached`` do not apply. Same errors as
    :func:`~mteb_contrastive.training.contrastive.train_contrastive`.
    """
    from sentence_transformers.cross_encoder import CrossEncoderTrainer
    from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss

    cfg.check()
    check_validation(validation)
    counts = author_counts(docs)
    check_batch(cfg.batch_size, counts["authors"], counts["documents"])
    resume_from = last_checkpoint(out) if resume else None
    if resume and resume_from is None:
        raise TrainingDataError(str(checkpoints_dir(out)), "--resume: no checkpoint-<step> folder to resume from")
    model = _new_cross_encoder(cfg.base_model, cfg.context_length, cfg.seed)
    ds = training_table(docs)
    n_batches = len(AuthorBatchSampler(ds, cfg.batch_size, seed=cfg.seed))
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
        batch_sampler=author_batch_sampler(),
        max_grad_norm=cfg.max_grad_norm,  # no clipping, as the authors' classification arm
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
    # each text cut to (context // 2) x 5 characters, as the authors (classification_collate.py:30)
    trainer.data_collator = PairClassificationCollator(
        trainer.data_collator, max_chars=max(1, cfg.context_length // 2) * 5, rotate=cfg.rotate, seed=cfg.seed
    )
    t0 = time.monotonic()
    trainer.train(resume_from_checkpoint=str(resume_from) if resume_from else None)
    summary = training_summary(
        source,
        docs,
        validation,
        n_batches,
        trainer,
        time.monotonic() - t0,
        resume_from,
        SELECTION_METRICS[cfg.selection_metric],
    )
    if data_counts:
        summary["data"] = data_counts
    calibration = evaluator.calibration(model)
    calibration["protocol"] = (
        "mteb_contrastive.protocols.verification (cross-encoder probability; on validation: threshold max F1, "
        "smoothed Platt, abstention; Kirby's: F1 threshold at an observed score, LogisticRegression(C=1), abstention)"
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
