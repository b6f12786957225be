"""``mteb-contrastive`` subcommands for training (see docs/training.md).

    mteb-contrastive train --docs KIND=PATH [--docs ...] (--holdout FOLDER | --validation-share 0.2) --out DIR
        [--preset ours-cpu|kirby-tinybert|...] [--duplicates refuse|collapse] [--topic-field FIELD] [options]
    mteb-contrastive train-cross-encoder  (same options: Kirby's pair-classification rival)
    mteb-contrastive train-reranker QUOTER_FILE --out DIR [--n-negatives 3] [--max-queries N] [options]

``KIND`` is one of ``corpus`` (builders' JSONL), ``eltec``, ``pan14``, ``taln`` (shared files) or
``pan-folder`` (train split of a PAN-format folder). Before training starts:

1. texts are compared by content (:mod:`mteb_contrastive.data.content`): a text under two authors is
   refused (one line naming both, the file and line) unless ``--duplicates collapse`` merges the authors
   that share a text;
2. ``--holdout FOLDER`` (a built verification benchmark) removes every author of its validation and
   test splits from the training documents and validates on its validation pairs; without it,
   ``--validation-docs KIND=PATH`` names the validation authors' documents (their authors are removed
   from training), or ``--validation-share`` of the authors is held out; with ``--topic-field`` the
   training documents that share a topic with a validation document are dropped too
   (:func:`~mteb_contrastive.training.data.hold_out_topics`);
3. no text of a validation or test pair (of the holdout, or of the held-out authors) may occur inside
   a training document (by content): otherwise ``train`` stops with the counts, or, with
   ``--drop-overlapping``, trains without the documents that hold them and reports how many.

Bad input: one line on stderr naming the file, line and field (or the option), exit status 2.
"""

from __future__ import annotations

import argparse
import json
import logging
from typing import Any

from mteb_contrastive.cli.args import (
    add_field_options,
    closed_fraction,
    field_map,
    non_negative_float,
    non_negative_int,
    open_fraction,
    positive_float,
    positive_int,
    seed,
    steps,
)

COMMANDS = ("train", "train-cross-encoder", "train-reranker")

#: loggers that log INFO lines while their library loads (faiss's loader tries each CPU build in turn:
#: 11 lines before anything else); set to WARNING by the training commands, which log INFO themselves.
#: (Not :func:`mteb_contrastive.plugin.quiet.quiet_libraries`: importing the plugin before mteb is a cycle.)
LOADING_LOGGERS = ("faiss", "jieba", "bm25s", "numexpr")


def _head_opt(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--head-lr-multiplier",
        type=positive_float,
        default=20.0,
        help="the classification head (new and randomly initialised unless --base-model is already a "
        "cross-encoder) learns at this x --learning-rate (a factor > 0)",
    )


def _common(
    p: argparse.ArgumentParser, batch_help: str = "texts per batch, two per author: an even number >= 4"
) -> None:
    from mteb_contrastive.training.presets import DEFAULT_PRESET, PRESETS

    p.add_argument("--out", required=True, help="output model folder (checkpoints go to OUT.checkpoints)")
    p.add_argument(
        "--preset",
        choices=list(PRESETS),
        default=DEFAULT_PRESET,
        help="starting values: the authors' configurations (kirby-*) or ours-cpu (ours); the options below "
        "override them (docs/training.md)",
    )
    p.add_argument(
        "--base-model",
        default=None,
        help="sentence-transformers model name or folder (default: the preset's; ours-cpu: bundled all-MiniLM-L6-v2)",
    )
    p.add_argument(
        "--context-length",
        type=positive_int,
        default=None,
        help="tokens per text (per pair for a cross-encoder), >= 8 (default: the preset's)",
    )
    p.add_argument(
        "--batch-size",
        type=positive_int,
        default=None,
        help=f"{batch_help} (default: the preset's)",
    )
    p.add_argument(
        "--learning-rate", type=positive_float, default=None, help="peak learning rate, > 0 (default: the preset's)"
    )
    p.add_argument(
        "--epochs", type=positive_int, default=None, help="passes over the data, >= 1 (default: the preset's)"
    )
    p.add_argument(
        "--warmup-ratio",
        type=closed_fraction,
        default=None,
        help="share of the steps with a rising learning rate, from 0 to 1 (default: the preset's)",
    )
    p.add_argument(
        "--weight-decay", type=non_negative_float, default=None, help="AdamW weight decay, >= 0 (default: the preset's)"
    )
    p.add_argument("--seed", type=seed, default=0, help="seed of the split, the sampler and the initialisation")
    p.add_argument("--max-steps", type=steps, default=-1, help="stop after N optimiser steps (-1: no limit)")
    p.add_argument(
        "--logging-steps", type=non_negative_int, default=0, help="log the loss every N steps (0: once an epoch)"
    )
    p.add_argument(
        "--selection-metric",
        choices=["f1", "auc"],
        default=None,
        help="the validation statistic of the kept checkpoint (default f1, the authors'; auc: the raw score's ROC "
        "AUC, which moves while F1 still ties at the 2/3 of answering 'same' everywhere)",
    )
    p.add_argument(
        "--eval-steps",
        type=non_negative_int,
        default=None,
        help="validate and save a checkpoint every N optimiser steps (default 0: every epoch, as the authors)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bars (default: bars on)")


def _author_opts(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--docs",
        action="append",
        required=True,
        metavar="KIND=PATH",
        help="documents; KIND in corpus, eltec, pan14, taln, pan-folder; repeatable (at least one)",
    )
    add_field_options(p)
    p.add_argument(
        "--duplicates",
        choices=["refuse", "collapse"],
        default="refuse",
        help="a text (NFC, whitespace-normalised) under two authors: refuse, or collapse (authors sharing a text "
        "are one author, named by the smallest label: the rule PAN14Known is built with)",
    )
    p.add_argument(
        "--holdout",
        action="append",
        default=[],
        metavar="FOLDER",
        help=(
            "a PAN-format benchmark: its validation/test authors are removed from training, "
            "its validation pairs validate; repeatable (default: none, --validation-share instead)"
        ),
    )
    p.add_argument(
        "--min-author-documents",
        type=positive_int,
        default=1,
        metavar="N",
        help="train only on the authors with at least N documents (after the held-out authors are removed); "
        "1 keeps every author, as the authors' code does: a one-document author's positive pair is two rotations "
        "of that document (default: 1)",
    )
    p.add_argument(
        "--drop-overlapping",
        action="store_true",
        help="train without the documents that hold a validation or test text (default: stop instead)",
    )
    p.add_argument(
        "--validation-docs",
        action="append",
        default=[],
        metavar="KIND=PATH",
        help="documents of the validation authors (instead of --validation-share): their authors are removed "
        "from training, and the validation pairs are cut from these documents; repeatable",
    )
    p.add_argument(
        "--validation-share",
        type=open_fraction,
        default=0.2,
        help="share of the authors held out for validation when no --holdout, between 0 and 1",
    )
    p.add_argument(
        "--validation-pairs-per-author",
        type=positive_int,
        default=4,
        help="validation pairs drawn per held-out author (--validation-share)",
    )
    p.add_argument(
        "--topic-field",
        default=None,
        metavar="FIELD",
        help="a field of the documents (fandom, domain, keyword, genre): the validation pairs (--validation-share "
        "or --validation-docs) are then topic-controlled (same author + different topic vs different author + same "
        "topic), and training documents sharing a topic with a validation document are dropped (the authors hold "
        "validation fandoms out of training); default: none",
    )
    p.add_argument(
        "--max-validation-pairs",
        type=positive_int,
        default=None,
        help="a seeded, class-balanced sample of at most N validation pairs (default: all)",
    )
    p.add_argument(
        "--no-rotation", action="store_true", help="no random span rotation (the paper's ablation; default: rotate)"
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="continue from the last checkpoint in OUT.checkpoints (default: start anew)",
    )


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Add ``train``, ``train-cross-encoder`` and ``train-reranker`` to ``mteb-contrastive``."""
    t = sub.add_parser("train", help="Kirby's contrastive recipe (SupCon over authors, span rotation)")
    _author_opts(t)
    _common(t)
    t.add_argument(
        "--temperature", type=positive_float, default=None, help="SupCon temperature, > 0 (default: the preset's)"
    )
    t.add_argument(
        "--cached",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="gradient caching over --mini-batch-size texts (the authors' GradCache micro-batches; "
        "default: the preset's)",
    )
    t.add_argument(
        "--mini-batch-size",
        type=positive_int,
        default=None,
        help="texts per forward pass of the cached loss, >= 1 (default: the preset's)",
    )
    c = sub.add_parser("train-cross-encoder", help="the pair-classification rival (cross-encoder, sigmoid, same data)")
    _author_opts(c)
    _common(c)
    _head_opt(c)
    r = sub.add_parser("train-reranker", help="a cross-encoder reranker on a QuoteR file's train split, BM25 negatives")
    r.add_argument("quoter_file", help="a QuoteR line file (left<TAB>quote<TAB>right per line, UTF-8)")
    _common(r, batch_help="(query, candidate) pairs per batch: each training query's gold and its BM25 negatives")
    _head_opt(r)
    r.add_argument("--n-negatives", type=positive_int, default=3, help="BM25 negatives per query")
    r.add_argument(
        "--max-queries",
        type=positive_int,
        default=None,
        help="a seeded sample of at most N training queries (default: all)",
    )
    r.add_argument("--language", default="en", choices=["en", "zh"], help="language of the file (BM25 tokenisation)")
    r.add_argument(
        "--official",
        default=None,
        choices=["english", "modern_chinese", "ancient_chinese"],
        help="an official QuoteR file's split boundaries (default: the shuffled 80/10/10 split)",
    )


def _config(args: argparse.Namespace) -> Any:
    from mteb_contrastive.config import bundled_minilm
    from mteb_contrastive.training.contrastive import ContrastiveConfig
    from mteb_contrastive.training.presets import PRESETS

    base = args.base_model or PRESETS[args.preset].values.get("base_model") or bundled_minilm()
    return ContrastiveConfig.from_preset(
        args.preset,
        base_model=base,
        context_length=args.context_length,
        batch_size=args.batch_size,
        temperature=getattr(args, "temperature", None),
        rotate=False if getattr(args, "no_rotation", False) else None,
        cached=getattr(args, "cached", None),
        mini_batch_size=getattr(args, "mini_batch_size", None),
        learning_rate=args.learning_rate,
        epochs=args.epochs,
        warmup_ratio=args.warmup_ratio,
        weight_decay=args.weight_decay,
        seed=args.seed,
        max_steps=args.max_steps,
        logging_steps=args.logging_steps,
        eval_steps=args.eval_steps,
        selection_metric=getattr(args, "selection_metric", None),
        head_lr_multiplier=getattr(args, "head_lr_multiplier", None),
    )


def balanced_sample(pairs: list[dict[str, Any]], n: int | None, seed: int) -> list[dict[str, Any]]:
    """At most ``n`` pairs, half same-author and half different-author (seeded), in input order."""
    import random

    if n is None or len(pairs) <= n:
        return pairs
    rng = random.Random(seed)
    pos = [i for i, r in enumerate(pairs) if r["same"]]
    neg = [i for i, r in enumerate(pairs) if not r["same"]]
    keep = set(rng.sample(pos, min(len(pos), n // 2))) | set(rng.sample(neg, min(len(neg), n - n // 2)))
    return [r for i, r in enumerate(pairs) if i in keep]


def read_documents(
    specs: list[str], topic_field: str | None, fields: Any = None
) -> tuple[list[dict[str, Any]], list[tuple[str, dict[str, int]]]]:
    """Documents of every ``--docs KIND=PATH`` (ids prefixed ``KIND:``) and each one's (file, position:
    :func:`~mteb_contrastive.data.errors.position`).

    Raises:
        TrainingDataError: a bad ``--docs`` value; DataError: unreadable files.
    """
    from mteb_contrastive.data.documents import load_documents
    from mteb_contrastive.data.errors import position
    from mteb_contrastive.training.data import SOURCES, TrainingDataError

    docs: list[dict[str, Any]] = []
    where: list[tuple[str, dict[str, int]]] = []
    for spec in specs:
        kind, sep, path = spec.partition("=")
        if not sep or kind not in SOURCES:
            raise TrainingDataError("--docs", f"expected KIND=PATH with KIND in {', '.join(SOURCES)}, got {spec!r}")
        rows = load_documents(kind, path, topic_field=topic_field, fields=fields)
        docs += [{**d, "id": f"{kind}:{d['id']}"} for d in rows]
        where += [(path, position(rows, i)) for i in range(len(rows))]
    return docs, where


def remove_overlap(
    docs: list[dict[str, Any]], held_out: dict[str, list[dict[str, Any]]], what: str, drop: bool
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Training documents without any text of the held-out pairs (checked by content).

    Args:
        held_out: split name -> its pairs ``{"pair": [t1, t2], ...}``.
        what: names the pairs' source in the message (a holdout folder, or "the held-out authors").
        drop: drop the training documents that hold such a text instead of stopping.

    Returns:
        (documents, counts: pairs per split that held a training text, documents dropped).

    Raises:
        TrainingDataError: an overlap and not ``drop``: the counts per split and the two fixes.
    """
    from mteb_contrastive.data.content import content_key, overlapping_texts
    from mteb_contrastive.training.data import TrainingDataError

    texts = {t for rows in held_out.values() for r in rows for t in r["pair"]}
    found = overlapping_texts(texts, [d["text"] for d in docs])
    counts = {
        f"{split}_pairs_with_training_text": sum(any(content_key(t) in found for t in r["pair"]) for r in rows)
        for split, rows in held_out.items()
    }
    if not found:
        return docs, {**counts, "documents_dropped_overlap": 0}
    if not drop:
        parts = ", ".join(
            f"{counts[f'{s}_pairs_with_training_text']} of the {len(rows)} {s} pairs" for s, rows in held_out.items()
        )
        raise TrainingDataError(
            what,
            f"{parts} hold a text found inside the training documents (by content: NFC, whitespace-normalised); "
            "training would see test text. Rebuild the benchmark from the same documents with the same "
            "--duplicates rule (build-pan-benchmarks builds PAN14Known with the collapse rule), or pass "
            "--drop-overlapping to train without the documents that hold them",
        )
    keep = [d for d in docs if not overlapping_texts(found, [d["text"]])]
    return keep, {**counts, "documents_dropped_overlap": len(docs) - len(keep)}


def author_data(args: argparse.Namespace) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
    """(training documents, validation pairs, counts) from ``--docs``, ``--holdout`` / ``--validation-share``.

    Raises:
        TrainingDataError: a bad ``--docs`` value, a text under two authors (``--duplicates refuse``),
            held-out text inside the training documents (without ``--drop-overlapping``), an empty
            validation, no training author left.
    """
    from pathlib import Path

    from mteb_contrastive.data.content import apply_duplicate_rule
    from mteb_contrastive.data.pan import load_split
    from mteb_contrastive.data.readers import read_json
    from mteb_contrastive.training.data import (
        TrainingDataError,
        held_out_authors,
        hold_out_topics,
        keep_authors_with,
        split_documents_by_author,
        validation_pairs,
    )

    docs, where = read_documents(args.docs, args.topic_field, field_map(args))
    counts: dict[str, Any] = {"documents_read": len(docs)}
    docs, dup = apply_duplicate_rule(
        docs, args.duplicates, " ".join(args.docs), option="--duplicates collapse", where=lambda i: where[i]
    )
    counts["duplicates"] = dup
    if args.holdout:
        excluded: set[str] = set()
        validation: list[dict[str, Any]] = []
        held_out: dict[str, list[dict[str, Any]]] = {"validation": [], "test": []}
        topic = []
        for folder in args.holdout:
            excluded |= held_out_authors(folder)
            validation += load_split(folder, "validation")
            for split in held_out:
                held_out[split] += load_split(folder, split)
            info_file = Path(folder) / "mteb_contrastive.json"
            info = read_json(info_file) if info_file.is_file() else {}  # one line for a cut or non-JSON file
            if not isinstance(info, dict):
                raise TrainingDataError(
                    info_file, "expected a JSON object (the folder's info file); rebuild the folder"
                )
            topic.append(bool(info.get("topic_controlled")))
        before = len(docs)
        docs = [d for d in docs if d["author"] not in excluded]
        counts.update(
            holdout=list(args.holdout), held_out_authors=len(excluded), documents_removed_held_out=before - len(docs)
        )
        if not docs:
            raise TrainingDataError(
                "--holdout",
                f"every training document's author is held out by {', '.join(args.holdout)}: nothing left to train on",
            )
        docs, overlap = remove_overlap(docs, held_out, "--holdout " + " ".join(args.holdout), args.drop_overlapping)
        counts.update(overlap)
        counts["validation_topic_controlled"] = all(topic)
    else:
        if args.validation_docs:
            val_docs, vwhere = read_documents(args.validation_docs, args.topic_field)
            val_docs, vdup = apply_duplicate_rule(
                val_docs,
                args.duplicates,
                " ".join(args.validation_docs),
                option="--duplicates collapse",
                where=lambda i: vwhere[i],
            )
            val_authors = {d["author"] for d in val_docs}
            before = len(docs)
            docs = [d for d in docs if d["author"] not in val_authors]
            counts.update(
                validation_docs=list(args.validation_docs),
                validation_duplicates=vdup,
                documents_removed_validation_authors=before - len(docs),
            )
            if not docs:
                raise TrainingDataError("--validation-docs", "every training document's author is a validation author")
        else:
            docs, val_docs = split_documents_by_author(docs, args.validation_share, args.seed)
        if args.topic_field is not None:
            docs, n_topic = hold_out_topics(docs, val_docs)
            counts["documents_removed_validation_topics"] = n_topic
            if not docs:
                raise TrainingDataError(
                    "--topic-field",
                    f"every training document shares a {args.topic_field!r} value with a validation document: "
                    "nothing left to train on (use a coarser topic field, or none)",
                )
        validation = validation_pairs(
            val_docs,
            max_words=args.context_length or 256,
            pairs_per_author=args.validation_pairs_per_author,
            seed=args.seed,
            topic=args.topic_field is not None,
        )
        docs, overlap = remove_overlap(
            docs, {"validation": validation}, "the held-out authors' validation pairs", args.drop_overlapping
        )
        counts.update(overlap)
        counts.update(
            validation_share=None if args.validation_docs else args.validation_share,
            validation_documents=len(val_docs),
            validation_topic_controlled=args.topic_field is not None,
        )
    if not counts["validation_topic_controlled"]:
        counts["validation_note"] = (
            "not topic-controlled: no topic field (a pair's topic is not set against its label, unlike the paper's "
            "same-author/different-fandom vs different-author/same-fandom pairs)"
        )
    docs, n_few = keep_authors_with(docs, args.min_author_documents)
    if n_few:
        counts["documents_removed_few_per_author"] = n_few
    validation = balanced_sample(validation, args.max_validation_pairs, args.seed)
    if not validation:
        raise TrainingDataError("validation", "the split leaves validation empty (no pair of held-out authors)")
    counts.update(training_documents=len(docs), validation_pairs=len(validation))
    return docs, validation, counts


def run(args: argparse.Namespace) -> int | None:
    """Run a training subcommand; None when ``args.cmd`` is not one of them. Exit 2 on bad input."""
    if args.cmd not in COMMANDS:
        return None
    from mteb_contrastive.cli.args import print_error
    from mteb_contrastive.data.errors import InputError

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    for name in LOADING_LOGGERS:  # the training's INFO lines, not the libraries' loading chatter
        logging.getLogger(name).setLevel(logging.WARNING)
    try:
        cfg = _config(args)
        cfg.check()
        from mteb_contrastive.models.local import check_model_weights

        check_model_weights(cfg.base_model, "--base-model")
        if args.cmd == "train-reranker":
            from mteb_contrastive.training.cross_encoder import train_quoter_reranker

            summary = train_quoter_reranker(
                args.quoter_file,
                args.out,
                cfg,
                n_negatives=args.n_negatives,
                max_queries=args.max_queries,
                language=args.language,
                official=args.official,
                show_progress=not args.no_progress,
            )
        else:
            docs, validation, counts = author_data(args)
            print(json.dumps({"data": counts}), flush=True)
            if args.cmd == "train":
                from mteb_contrastive.training.contrastive import train_contrastive as fn
            else:
                from mteb_contrastive.training.cross_encoder import train_pair_classifier as fn
            summary = fn(
                docs,
                validation,
                args.out,
                cfg,
                resume=args.resume,
                show_progress=not args.no_progress,
                source=" ".join(args.docs),
                data_counts=counts,
            )
    except (InputError, OSError) as exc:  # bad input (data, a model folder without weights): one line
        return print_error(exc)
    print(json.dumps(summary, default=str), flush=True)
    return 0
