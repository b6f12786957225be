"""``mteb-contrastive build-attribution``: an authorship-attribution benchmark from your own corpus.

    mteb-contrastive build-attribution CORPUS.jsonl --name NAME --language L [--out build/datasets]
        [--questioned-field F --questioned-value V ...] [--composite refuse|questioned] [--open-set]
        [--chunk-words 1000] [--min-words N] [--chunks-per-text 10] [--kind corpus|eltec|pan14|taln]
    MTEB_CONTRASTIVE_DATASETS=build/datasets mteb run -m MODEL -t NAMEAttribution NAMEAuthorClustering

Rules: :mod:`mteb_contrastive.data.attribution_builder`; bad input is one line and exit status 2.
"""

from __future__ import annotations

import argparse

from mteb_contrastive.cli.args import add_field_options, dataset_name, field_map, positive_int
from mteb_contrastive.cli.outputs import add_force

COMMANDS = ("build-attribution",)


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Add ``build-attribution`` to ``mteb-contrastive``'s subparsers."""
    b = sub.add_parser(
        "build-attribution",
        help="closed-set attribution texts (tasks <name>Attribution, <name>AuthorClustering) from a labelled corpus",
    )
    b.add_argument(
        "corpus",
        help="JSONL (or .jsonl.gz) rows {id, author | authors, text[, title, language, ...]}; "
        "a row without an author is a questioned text",
    )
    b.add_argument(
        "--name",
        required=True,
        type=dataset_name,
        help="letters and digits; the tasks are <name>Attribution and <name>AuthorClustering",
    )
    b.add_argument("--out", default="build/datasets", help="parent folder (point MTEB_CONTRASTIVE_DATASETS at it)")
    add_force(b)
    b.add_argument(
        "--language",
        nargs="+",
        default=None,
        help="language code(s) of the texts (ISO 639 or mteb's, e.g. en or eng-Latn); "
        "default: the rows' 'language' (required when the rows have none)",
    )
    b.add_argument(
        "--kind",
        choices=["corpus", "eltec", "pan14", "taln"],
        default="corpus",
        help="corpus: the JSONL above; eltec / pan14 / taln: a shared-data file read as the verification builder "
        "reads it (every text known)",
    )
    add_field_options(b)
    b.add_argument(
        "--questioned-field",
        default=None,
        metavar="FIELD",
        help="a field whose value marks a text questioned (e.g. status; a field no row has is refused; default: none)",
    )
    b.add_argument(
        "--questioned-value",
        nargs="+",
        default=[],
        metavar="VALUE",
        help="values of --questioned-field that mark a questioned text (e.g. disputed unknown; case-insensitive)",
    )
    b.add_argument(
        "--composite",
        choices=["refuse", "questioned"],
        default="refuse",
        help='a joint or "X or Y" label: refuse the corpus (one line naming the row), or hold the text out as '
        "questioned; never a new author",
    )
    b.add_argument(
        "--open-set",
        action="store_true",
        help='also answer "none of the candidates" below a threshold validated by leave-one-author-out',
    )
    b.add_argument(
        "--duplicates",
        choices=["refuse", "collapse"],
        default="refuse",
        help="a text (NFC, whitespace-normalised) under two authors: refuse (one line naming both), or collapse "
        "(authors sharing a text are one author); a copy under the same author is always kept once",
    )
    b.add_argument("--chunk-words", type=positive_int, default=1000, help="chunk length in words")
    b.add_argument("--min-words", type=positive_int, default=None, help="shortest chunk kept (default chunk-words/2)")
    b.add_argument("--chunks-per-text", type=positive_int, default=10, help="chunks sampled per text, evenly spaced")


def run(args: argparse.Namespace) -> int:
    """Build the folder; print its path. Raises ``DataError`` / ``ValueError`` (the caller prints one line)."""
    from mteb_contrastive.data.attribution_builder import build_attribution_dataset, read_attribution_corpus
    from mteb_contrastive.data.documents import load_documents
    from mteb_contrastive.data.errors import DataError
    from mteb_contrastive.data.languages import languages_from_rows

    if args.questioned_value and not args.questioned_field:
        raise ValueError("--questioned-value needs --questioned-field (the field whose value it is)")
    if args.questioned_field and not args.questioned_value:
        raise ValueError("--questioned-field needs --questioned-value (e.g. --questioned-value disputed unknown)")
    fields = field_map(args)
    if args.kind == "corpus":
        rows = read_attribution_corpus(args.corpus, fields)
    else:
        rows = load_documents(args.kind, args.corpus, fields=fields)
    if not args.language and not languages_from_rows(rows, args.corpus):
        raise DataError(
            args.corpus, "no row has a 'language' field; pass --language (e.g. en or eng-Latn) or give each row one"
        )
    folder = build_attribution_dataset(
        rows,
        args.out,
        args.name,
        chunk_words=args.chunk_words,
        min_words=args.min_words,
        chunks_per_text=args.chunks_per_text,
        questioned_field=args.questioned_field,
        questioned_values=args.questioned_value,
        composite=args.composite,
        open_set=args.open_set,
        languages=args.language,
        source=str(args.corpus),
        duplicates=args.duplicates,
        force=args.force,
    )
    print(folder)
    return 0
