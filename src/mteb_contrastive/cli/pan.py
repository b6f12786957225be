"""``mteb-contrastive`` subcommands for authorship verification (PAN).

    mteb-contrastive build-verification {eltec,pan14,corpus} PATH --name NAME --out DIR [options]
    mteb-contrastive build-pan-benchmarks [--shared ../shared/data] [--out build/verification]
    mteb-contrastive pan-score TRUTH.jsonl ANSWERS.jsonl [--year 2020|2021] [--single-class-auc undefined|pan]

The built folders become ``<NAME>Verification`` tasks when ``MTEB_CONTRASTIVE_VERIFICATION``
names them (or their parent folder); evaluation is the stock ``mteb run``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mteb_contrastive.cli.args import (
    Shares,
    add_field_options,
    dataset_name,
    field_map,
    non_negative_float,
    open_fraction,
    positive_int,
    seed,
)
from mteb_contrastive.cli.outputs import add_force


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Add the PAN subcommands to ``mteb-contrastive``'s subparsers."""
    b = sub.add_parser(
        "build-verification", help="PAN-format verification pairs from an author-labelled corpus of long documents"
    )
    b.add_argument(
        "kind",
        choices=["eltec", "pan14", "corpus"],
        help=(
            "eltec: eltec/<lang>_novels.jsonl.gz; pan14: pan/pan14_known.jsonl.gz; corpus: "
            "JSONL {id, author, text[, group, language]}"
        ),
    )
    b.add_argument("path", help="the file of the kind: a JSON Lines file (.jsonl or .jsonl.gz)")
    b.add_argument(
        "--name", required=True, type=dataset_name, help="letters and digits; the task is <name>Verification"
    )
    b.add_argument("--out", required=True, help="parent folder; the dataset folder is OUT/NAME")
    add_force(b)
    b.add_argument(
        "--chunk-words",
        type=positive_int,
        default=1000,
        help=(
            "chunk length in words: whitespace tokens; jieba words (Chinese) "
            "or characters (Japanese, Thai, ...) in text written without spaces"
        ),
    )
    b.add_argument("--min-words", type=positive_int, default=None, help="shortest chunk kept (default chunk-words/2)")
    b.add_argument(
        "--split-ratios",
        type=non_negative_float,
        nargs=3,
        action=Shares,
        default=[0.4, 0.3, 0.3],
        metavar=("TRAIN", "VALIDATION", "TEST"),
        help="shares of the authors in each split: three numbers >= 0 that sum to 1, test > 0",
    )
    b.add_argument("--pairs-per-author", type=positive_int, default=20, help="pairs drawn per author and split")
    b.add_argument(
        "--positive-ratio", type=open_fraction, default=0.5, help="share of same-author pairs, between 0 and 1"
    )
    b.add_argument("--seed", type=seed, default=0, help="seed of the author split, chunk and pair sampling")
    add_field_options(b)
    b.add_argument(
        "--languages",
        nargs="+",
        default=None,
        help=(
            "mteb language-script codes of the texts (default: from the rows' 'language' or, for ELTeC, the id prefix; "
            "required when the data does not say)"
        ),
    )
    b.add_argument(
        "--normalise",
        choices=["edition"],
        default=None,
        help="edition: remove soft hyphens, unify dashes, Serbian Latin -> Cyrillic (docs/stylometry.md); "
        "default: texts as given",
    )
    b.add_argument(
        "--duplicates",
        choices=["refuse", "collapse"],
        default="refuse",
        help=(
            "a text (NFC, whitespace-normalised) under two authors: refuse (one line naming both), or collapse "
            "(authors sharing a text are one author; docs/verification.md)"
        ),
    )
    b.add_argument(
        "--topic-field",
        default=None,
        help=(
            "a field of the rows (a fandom, domain, keyword, genre): same-author pairs then come from two topics, "
            "different-author pairs from one (Kirby's topic-controlled pairs); default: none"
        ),
    )
    p = sub.add_parser(
        "build-pan-benchmarks",
        help="the verification benchmarks of shared/data (PAN14Known, ELTeC in five languages)",
    )
    p.add_argument(
        "--shared",
        help="shared data folder (default: $MTEB_CONTRASTIVE_SHARED, else ../shared/data beside the checkout)",
    )
    p.add_argument("--out", default="build/verification", help="parent folder of the built benchmark folders")
    s = sub.add_parser("pan-score", help="score a PAN answers file against a truth file (official PAN metrics)")
    s.add_argument("truth", help='PAN truth file: JSON Lines {"id", "same": true|false[, "authors"]}')
    s.add_argument("answers", help='PAN answers file: JSON Lines {"id", "value": 0..1}; an id left out counts as 0.5')
    s.add_argument(
        "--year",
        type=int,
        choices=[2020, 2021],
        default=2021,
        help="2020: F0.5u with 0.5 -> same, overall of four; 2021: 0.5 = non-answer, overall of five",
    )
    s.add_argument(
        "--single-class-auc",
        choices=["undefined", "pan"],
        default="undefined",
        help=(
            "single-class truth: AUC undefined (null, overall of the other metrics; default) "
            "or 0.0 as the PAN evaluator (leaderboard comparisons)"
        ),
    )
    r = sub.add_parser("pan-report", help="markdown table of the verification results in an mteb --output-folder")
    r.add_argument("results", help="an mteb --output-folder")


def run(args: argparse.Namespace, shared_dir) -> int | None:
    """Run a PAN subcommand; None when ``args.cmd`` is not one of them."""
    from mteb_contrastive.data.documents import load_documents
    from mteb_contrastive.data.verification_builder import build_verification_dataset

    if args.cmd == "build-verification":
        from mteb_contrastive.data.errors import DataError
        from mteb_contrastive.data.languages import languages_from_rows, resolve_languages
        from mteb_contrastive.data.normalise import normalise_documents

        # normalised first: a transliterated Serbian novel is Cyrillic when the languages are read
        docs = normalise_documents(
            load_documents(args.kind, args.path, topic_field=args.topic_field, fields=field_map(args)), args.normalise
        )
        langs = resolve_languages(
            languages_from_rows(docs, args.path), args.languages, source=args.path, option="--languages"
        )
        if langs is None:
            raise DataError(
                args.path,
                "the documents name no language; pass --languages (mteb codes of the texts, e.g. fra-Latn) "
                "or give each row a 'language'",
            )
        if args.min_words is not None and args.min_words > args.chunk_words:
            raise ValueError(
                f"--min-words {args.min_words} is more than "
                f"--chunk-words {args.chunk_words}; give --min-words <= --chunk-words"
            )
        print(
            build_verification_dataset(
                docs,
                args.out,
                args.name,
                chunk_words=args.chunk_words,
                min_words=args.min_words,
                split_ratios=tuple(args.split_ratios),
                pairs_per_author=args.pairs_per_author,
                positive_ratio=args.positive_ratio,
                seed=args.seed,
                languages=tuple(langs),
                source=str(args.path),
                normalise=args.normalise,
                duplicates=args.duplicates,
                topic_field=args.topic_field,
                force=args.force,
            )
        )
        return 0
    if args.cmd == "build-pan-benchmarks":
        from mteb_contrastive.benchmarks.shared_data import VERIFICATION_RECIPES, build_verification_benchmark

        shared = shared_dir(args.shared)
        for name in VERIFICATION_RECIPES:
            print(build_verification_benchmark(shared, Path(args.out), name), flush=True)
        return 0
    if args.cmd == "pan-score":
        from mteb_contrastive.data.pan import align_answers, read_answers, read_truth
        from mteb_contrastive.metrics.pan import evaluate_all

        truth = read_truth(args.truth)
        labels, values = align_answers(truth, read_answers(args.answers), args.answers)
        res = evaluate_all(labels, values, year=args.year, single_class_auc=args.single_class_auc)
        print(json.dumps({k: (round(v, 3) if isinstance(v, float) else v) for k, v in res.items()}))
        return 0
    if args.cmd == "pan-report":
        from mteb_contrastive.report.tables import pan_table

        print(pan_table(args.results))
        return 0
    return None


__all__ = ["add_parsers", "run"]
