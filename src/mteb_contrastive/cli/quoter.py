"""``mteb-contrastive build-quoter``: your own QuoteR-format file as an mteb task.

    mteb-contrastive build-quoter FILE --name NAME --language TAG --out DIR
        [--split shuffled|line-order] [--proportions 0.8 0.9] [--seed 20240611] [--boundaries TRAIN_END VALID_END]
    MTEB_CONTRASTIVE_DATASETS=DIR mteb run -m MODEL -t NAMEQuoteRRetrieval

See :func:`mteb_contrastive.data.quoter.build_quoter_folder` for the rules.
"""

from __future__ import annotations

import argparse

from mteb_contrastive.cli.args import Increasing, closed_fraction, dataset_name, non_negative_int, seed

COMMANDS = ("build-quoter",)


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Add ``build-quoter`` to ``mteb-contrastive``'s subparsers."""
    from mteb_contrastive.cli.outputs import add_force
    from mteb_contrastive.data.quoter import SHARED_PROPORTIONS, SHUFFLE_SEED, SPLIT_RULES

    q = sub.add_parser(
        "build-quoter", help="a QuoteR task (<NAME>QuoteRRetrieval) from your own left<TAB>quote<TAB>right file"
    )
    q.add_argument("file", help="QuoteR line file: left_context<TAB>quote<TAB>right_context per line, UTF-8")
    q.add_argument(
        "--name", required=True, type=dataset_name, help="letters and digits; the task is <NAME>QuoteRRetrieval"
    )
    q.add_argument(
        "--language",
        required=True,
        help="mteb language tag, e.g. eng-Latn (lower-cased, as the official English script), cmn-Hans, lzh-Hant",
    )
    q.add_argument(
        "--out",
        required=True,
        help="parent folder; the task folder is OUT/NAME (point MTEB_CONTRASTIVE_DATASETS at OUT)",
    )
    add_force(q)
    q.add_argument(
        "--split",
        choices=SPLIT_RULES,
        default="shuffled",
        help=(
            "shuffled: fixed-seed shuffle then cut (default); line-order: cut in file order, "
            "for files already ordered for a disjoint split"
        ),
    )
    q.add_argument(
        "--proportions",
        type=closed_fraction,
        nargs=2,
        action=Increasing,
        default=list(SHARED_PROPORTIONS),
        metavar=("TRAIN_END", "VALID_END"),
        help="cut points as fractions of the lines (default 0.8 0.9: 80/10/10)",
    )
    q.add_argument(
        "--seed", type=seed, default=SHUFFLE_SEED, help="shuffle seed (default: %(default)s, the shared files')"
    )
    q.add_argument(
        "--boundaries",
        type=non_negative_int,
        nargs=2,
        action=Increasing,
        metavar=("TRAIN_END", "VALID_END"),
        help="line-order only: explicit cut lines, e.g. 101171 113942 for the official english.txt "
        "(default: --proportions)",
    )


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int | None:
    """Run a QuoteR subcommand; None when ``args.cmd`` is not one of them. Bad options exit 2 with one line."""
    if args.cmd != "build-quoter":
        return None
    from mteb_contrastive.data.quoter import build_quoter_folder

    try:
        folder = build_quoter_folder(
            args.file,
            args.out,
            args.name,
            args.language,
            split=args.split,
            proportions=tuple(args.proportions),
            seed=args.seed,
            boundaries=tuple(args.boundaries) if args.boundaries else None,
            force=args.force,
        )
    except FileNotFoundError as exc:
        parser.exit(2, f"error: {exc.filename or args.file}: no such file; give the path of your QuoteR file\n")
    except OSError as exc:
        parser.exit(2, f"error: {exc.filename or args.file}: {exc.strerror or exc}; check the file and --out\n")
    except ValueError as exc:
        from mteb_contrastive.data.errors import DataError

        if isinstance(exc, DataError):
            raise  # the CLI prints it as one line, exit 2
        parser.exit(2, f"error: {exc}\n")
    print(folder)
    return 0
