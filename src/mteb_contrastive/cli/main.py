"""``mteb-contrastive``: build benchmark folders, seed the bundled model, run the main job.

Evaluation itself stays the stock ``mteb run``; this command prepares what it needs, and
``evaluate`` runs the release evaluation (one ``mteb run`` per model, one report).
Every import beyond the standard library happens inside the subcommand that needs it, so
``--help`` answers at once.

    mteb-contrastive seed-model
    mteb-contrastive build-triplets CORPUS.jsonl --name MyCorpus --out DIR [--k 2 4 8] [--topic-field F]
    mteb-contrastive build-taln [--shared ../shared/data] [--out build/datasets] [--topic-field keywords]
    mteb-contrastive build-ir-triplets (BEIR_FOLDER | --mteb-task NAME) --name MyColl --out DIR
    mteb-contrastive evaluate -m MODEL [-m MODEL2 ...] [--out build/release] [--suite default|full]
    mteb-contrastive report RESULTS_DIR [--out DIR] [--predictions MODEL=DIR ...]
    mteb-contrastive tasks
    mteb-contrastive main [--out build] [--models ...]
    mteb-contrastive build-verification {eltec,pan14,corpus} PATH --name NAME --out DIR
    mteb-contrastive build-pan-benchmarks [--shared ../shared/data] [--out build/verification]
    mteb-contrastive pan-score TRUTH.jsonl ANSWERS.jsonl [--year 2020|2021]
    mteb-contrastive pan-report RESULTS_DIR
    mteb-contrastive build-quoter FILE --name NAME --language xxx-Xxxx --out DIR [--split shuffled|line-order]
    mteb-contrastive build-attribution CORPUS.jsonl --name NAME --language L [--open-set] [--composite ...]
    mteb-contrastive train | train-cross-encoder | train-reranker ...   (docs/training.md)
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from mteb_contrastive import config
from mteb_contrastive.cli import attribution as attribution_cli
from mteb_contrastive.cli import evaluate as evaluate_cmd
from mteb_contrastive.cli import pan as pan_cli
from mteb_contrastive.cli import quoter as quoter_cli
from mteb_contrastive.cli import train as training_cli
from mteb_contrastive.cli.args import (
    HelpFormatter,
    OneLineParser,
    add_field_options,
    dataset_name,
    field_map,
    non_negative_float,
    positive_int,
    print_error,
    seed,
)
from mteb_contrastive.cli.outputs import add_force, check_outputs
from mteb_contrastive.config import shared_data_dir


def build_taln(
    shared: Path, out: Path, *, seed: int = 0, n_triplets: int = 2, topic_field: str | None = None
) -> list[Path]:
    """Build the TALN author-triplet folders (:data:`mteb_contrastive.benchmarks.shared_data.TALN_RECIPES`),
    with ``topic_field`` (e.g. ``keywords``) their topic-controlled triplets too."""
    from mteb_contrastive.benchmarks.shared_data import TALN_RECIPES, build_taln_benchmark

    made = []
    for recipe in TALN_RECIPES:
        made.append(
            build_taln_benchmark(shared, out, recipe, seed=seed, n_triplets=n_triplets, topic_field=topic_field)
        )
        print(f"built {made[-1]}", flush=True)
    return made


def main_job(out: Path, shared_arg: str | None, models: list[str]) -> int:
    """Evaluate on HALvest from the Hub when reachable; else build and evaluate the TALN tasks."""
    import subprocess

    results = out / "results"
    shared = shared_data_dir(shared_arg)
    # a readable log: no per-batch progress bars (set TQDM_DISABLE=0 to see them)
    os.environ.setdefault("TQDM_DISABLE", "1")
    from mteb_contrastive.plugin.quiet import apply_environment

    apply_environment({"HF_DATASETS_DISABLE_PROGRESS_BARS": os.environ.get("HF_DATASETS_DISABLE_PROGRESS_BARS", "1")})
    if config.hub_reachable():
        print(
            "main job: HuggingFace Hub reachable -> "
            f"HALvestRetrieval + HALvestTripletClassification from the Hub, results in {results}",
            flush=True,
        )
        tasks = ["HALvestRetrieval", "HALvestTripletClassification"]
        env = dict(os.environ)
    elif (shared / "taln" / "articles.jsonl.gz").is_file():
        print(
            f"main job: HuggingFace Hub not reachable -> building TALN tasks from {shared} and "
            f"evaluating them instead, results in {results}",
            flush=True,
        )
        folders = build_taln(shared, out / "datasets")
        env = dict(os.environ, MTEB_CONTRASTIVE_DATASETS=str(out / "datasets"), HF_HUB_OFFLINE="1")
        tasks = [f"{f.name}{kind}" for f in folders for kind in ("AuthorRetrieval", "AuthorTripletClassification")]
    else:
        print(
            "main job: needs either the HuggingFace Hub (Madjakul/HALvest-Contrastive) "
            f"or the shared data at {shared}/taln/articles.jsonl.gz (set MTEB_CONTRASTIVE_SHARED); found neither.",
            flush=True,
        )
        return 2
    for model in models:
        # BM25 is a search model: retrieval tasks only
        model_tasks = [t for t in tasks if not (model == "mteb/baseline-bm25s" and "Triplet" in t)]
        cmd = [
            "mteb",
            "run",
            "-m",
            model,
            "-t",
            *model_tasks,
            "--output-folder",
            str(results),
            "--overwrite-strategy",
            "always",
            "-v",
            "1",
        ]
        print("$ " + " ".join(cmd), flush=True)
        rc = subprocess.call(cmd, env=env)
        if rc != 0:
            print(f"failed: {' '.join(cmd)} (exit {rc})", flush=True)
            return rc
    from mteb_contrastive.report.tables import author_table

    print(author_table(results))
    return 0


#: the commands by job, in the order ``mteb-contrastive --help`` lists them
COMMAND_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("evaluate and report", ("evaluate", "report", "pan-report", "tasks", "main", "seed-model")),
    (
        "build",
        (
            "build-triplets",
            "build-taln",
            "build-verification",
            "build-pan-benchmarks",
            "build-attribution",
            "build-quoter",
            "build-ir-triplets",
        ),
    ),
    ("score", ("pan-score",)),
    ("train", ("train", "train-cross-encoder", "train-reranker")),
)

DESCRIPTION = """\
Build benchmark folders from your corpora, evaluate models on every benchmark available here (one
stock mteb run per model, one report), score PAN answers, train Kirby's contrastive recipe.
Evaluation of one task is the stock mteb run (mteb run -m MODEL -t TASK).
Every command: mteb-contrastive COMMAND --help. Bad input is one error line and exit status 2."""


def _grouped_commands(helps: dict[str, str]) -> str:
    """The epilog of ``--help``: each job's commands with their one-line help."""
    width = max(len(c) for c in helps) + 2
    lines = ["commands:"]
    for job, cmds in COMMAND_GROUPS:
        lines.append(f"  {job}:")
        lines += [f"    {c.ljust(width)}{helps[c]}" for c in cmds]
    return "\n".join(lines)


def _version() -> str:
    from importlib.metadata import version

    return f"mteb-contrastive {version('mteb-contrastive')}"


def build_parser() -> OneLineParser:
    """The ``mteb-contrastive`` argument parser (options checked by :mod:`mteb_contrastive.cli.args`);
    ``--help`` lists the commands by job (:data:`COMMAND_GROUPS`)."""
    ap = OneLineParser(prog="mteb-contrastive", description=DESCRIPTION, formatter_class=HelpFormatter)
    ap.add_argument("--version", action="version", version=_version(), help="print the version and exit")
    sub = ap.add_subparsers(
        dest="cmd", required=True, title="command", metavar="COMMAND", help="one of the commands below, by job"
    )
    _add = sub.add_parser
    helps: dict[str, str] = {}

    def add_parser(name: str, *, help: str, **kw):  # noqa: A002  (argparse's keyword)
        # listed once, by job, in the epilog; every --help shows the defaults
        helps[name] = help
        kw.setdefault("description", help[:1].upper() + help[1:] + ".")
        return _add(name, formatter_class=HelpFormatter, **kw)

    sub.add_parser = add_parser
    sub.add_parser("seed-model", help="copy the bundled all-MiniLM-L6-v2 into the HF cache")
    b = sub.add_parser("build-triplets", help="HALvest-format triplets from an author-labelled JSONL corpus")
    b.add_argument("corpus", help="JSONL (or .jsonl.gz) rows {id, authors, text[, domains, year, language]}")
    b.add_argument(
        "--name",
        required=True,
        type=dataset_name,
        help="letters and digits; the tasks are <name>AuthorRetrieval and <name>AuthorTripletClassification",
    )
    b.add_argument("--out", required=True, help="parent folder; the dataset folder is OUT/NAME")
    add_force(b)
    b.add_argument(
        "--k",
        type=positive_int,
        nargs="+",
        default=[2, 4, 8],
        help="sentences per span, any k >= 1 (one config base-<k> each)",
    )
    b.add_argument(
        "--language",
        default=None,
        help=(
            "ISO 639-1 code of the texts (sentence splitting) "
            "for rows without a 'language' field (default: the rows'; required when no row has one)"
        ),
    )
    b.add_argument(
        "--mteb-language",
        default=None,
        help=(
            "mteb language-script code recorded in the tasks (default: from the rows' 'language', else from --language)"
        ),
    )
    b.add_argument(
        "--duplicates",
        choices=["refuse", "collapse"],
        default="refuse",
        help="a text under two author sets: refuse (one line naming both) or collapse (one row, the sets united)",
    )
    b.add_argument(
        "--n-triplets", type=positive_int, default=2, help="positives per anchor document and negatives per positive"
    )
    b.add_argument("--seed", type=seed, default=0, help="seed of the span and triplet sampling")
    add_field_options(b)
    b.add_argument(
        "--topic-field",
        default=None,
        help=(
            "a column holding each document's topics (a string or a list of strings: keywords, a domain, a genre): "
            "adds topic-controlled triplets (same author on another topic vs another author on the same topic; "
            "docs/content-independence.md); default: none"
        ),
    )
    b.add_argument(
        "--normalise",
        choices=["edition"],
        default=None,
        help="edition: remove soft hyphens, unify dashes, Serbian Latin -> Cyrillic (docs/stylometry.md); "
        "default: texts as given",
    )
    t = sub.add_parser("build-taln", help="the TALN author-triplet folders from shared/data")
    t.add_argument(
        "--shared",
        help="shared data folder (default: $MTEB_CONTRASTIVE_SHARED, else ../shared/data beside the checkout)",
    )
    t.add_argument("--out", default="build/datasets", help="parent folder of the built TALN folders")
    t.add_argument(
        "--topic-field",
        default=None,
        help=(
            "a field of the papers as topic (keywords: the view's own keywords_fr / keywords_en): adds "
            "topic-controlled triplets (docs/content-independence.md); default: none"
        ),
    )
    ir = sub.add_parser(
        "build-ir-triplets",
        help="Paragraph Vector IR triplets (Le & Mikolov 2014, 3.3) from a BEIR folder or an mteb retrieval task",
    )
    ir.add_argument("beir_folder", nargs="?", help="folder with corpus.jsonl, queries.jsonl, qrels/")
    ir.add_argument(
        "--mteb-task", help="an installed mteb retrieval task instead of a folder (default: none, the folder is read)"
    )
    ir.add_argument("--mteb-split", default="test", help="the split of --mteb-task whose queries and qrels are used")
    ir.add_argument(
        "--qrels",
        help=(
            "qrels file relative to the folder (default qrels/test_gain.tsv if present, "
            "else qrels/test.tsv); scores are gains"
        ),
    )
    ir.add_argument("--name", required=True, type=dataset_name, help="letters and digits; the task is <name>IRTriplets")
    ir.add_argument("--out", required=True, help="parent folder; the dataset folder is OUT/NAME")
    add_force(ir)
    ir.add_argument("--seed", type=seed, default=0, help="seed of the pair and negative sampling")
    ir.add_argument("--min-grade", type=non_negative_float, default=1, help="smallest qrels gain counted as relevant")
    ir.add_argument(
        "--max-per-query",
        type=positive_int,
        default=None,
        help="most (p1, p2) pairs per query (default: mteb_contrastive.data.ir_triplets.DEFAULT_MAX_PER_QUERY = 50)",
    )
    ir.add_argument(
        "--negative",
        choices=["other-query", "random"],
        default="other-query",
        help="the third document: relevant to another query (the paper's), or any document",
    )
    ir.add_argument(
        "--language",
        default=None,
        help=(
            "mteb language-script code of the collection (default: the mteb task's language; "
            "for a folder, eng-Latn, stated in one line)"
        ),
    )
    m = sub.add_parser("main", help="the main job (see README)")
    m.add_argument("--out", default="build", help="output folder: results/ and, offline, datasets/")
    m.add_argument(
        "--shared",
        help="shared data folder (default: $MTEB_CONTRASTIVE_SHARED, else ../shared/data beside the checkout)",
    )
    m.add_argument(
        "--models",
        nargs="+",
        default=["sentence-transformers/all-MiniLM-L6-v2", "mteb/baseline-bm25s"],
        help="mteb model names, one mteb run each",
    )
    r = sub.add_parser(
        "report",
        help="the report (every task family, chance levels) of an mteb --output-folder; printed, or written with --out",
    )
    r.add_argument("results", help="an mteb --output-folder")
    r.add_argument(
        "--out", help="write report.md/.json/.csv and plots/ here instead of printing the Markdown (default: print)"
    )
    r.add_argument(
        "--predictions",
        nargs="+",
        default=[],
        metavar="MODEL=DIR",
        help="prediction folder of a model, for per-item comparisons and plots (default: none)",
    )
    r.add_argument("--reference", help="the model the others are compared with (default: the first found)")
    r.add_argument(
        "--author-table",
        action="store_true",
        help="print only the author-task table (pool, triplets, nDCG@10, Recall@10, accuracy, wall time)",
    )
    r.add_argument(
        "--content-table",
        action="store_true",
        help="print only the content-independence table (docs/content-independence.md)",
    )
    r.add_argument(
        "--languages-table",
        action="store_true",
        help="print only the per-language table of the ELTeC benchmarks (docs/stylometry.md)",
    )
    r.add_argument(
        "--timings",
        help="JSON {'<model> <task>': seconds} for the author table's wall-time column (default: mteb's stored phases)",
    )
    sub.add_parser("tasks", help="Markdown table of the tasks (main score, direction, tie rule, data source)")
    evaluate_cmd.add_parser(sub)
    pan_cli.add_parsers(sub)
    quoter_cli.add_parsers(sub)
    attribution_cli.add_parsers(sub)
    training_cli.add_parsers(sub)
    ap.epilog = _grouped_commands(helps)
    return ap


#: build commands -> the list (:mod:`mteb_contrastive.data.registry`) their ``--out`` folder is added to
BUILD_COMMANDS = {
    "build-triplets": "datasets",
    "build-taln": "datasets",
    "build-ir-triplets": "datasets",
    "build-quoter": "datasets",
    "build-attribution": "datasets",
    "build-verification": "verification",
    "build-pan-benchmarks": "verification",
}


def main(argv: list[str] | None = None) -> int:
    """Run one ``mteb-contrastive`` subcommand; bad input is one stderr line and exit status 2.

    A build command that succeeds adds its ``--out`` folder to the list of built folders
    (:func:`mteb_contrastive.data.registry.remember`): the stock ``mteb`` command finds what it built."""
    from mteb_contrastive.process_exit import skip_final_collection

    skip_final_collection()  # a command ends without the interpreter's last collections (1-2 s)
    ap = build_parser()
    args = ap.parse_args(argv)
    from mteb_contrastive.data.errors import DataError

    try:
        check_outputs(args)  # where it writes, before any work: one line, exit 2
    except (DataError, OSError) as exc:
        return print_error(exc)
    rc = _run(ap, args)
    if rc == 0 and args.cmd in BUILD_COMMANDS and getattr(args, "out", None):
        from mteb_contrastive.data.registry import remember

        remember(args.out, BUILD_COMMANDS[args.cmd])
    return rc


def _run(ap: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from mteb_contrastive.data.errors import DataError

    if args.cmd in training_cli.COMMANDS:
        return training_cli.run(args)

    try:
        if args.cmd == "seed-model":
            from mteb_contrastive.models.bundled import seed_bundled_model

            print(seed_bundled_model())
        elif args.cmd == "build-triplets":
            from mteb_contrastive.data.corpus import read_corpus
            from mteb_contrastive.data.halvest_builder import build_halvest_dataset
            from mteb_contrastive.data.languages import languages_from_rows, resolve_languages

            docs = read_corpus(args.corpus, topic_field=args.topic_field, fields=field_map(args))
            given = [args.mteb_language] if args.mteb_language else ([args.language] if args.language else None)
            if (
                resolve_languages(
                    languages_from_rows(docs, args.corpus),
                    given,
                    source=args.corpus,
                    option="--mteb-language/--language",
                )
                is None
            ):
                raise DataError(
                    args.corpus,
                    "no row has a 'language' field; pass --language (ISO 639-1 of the texts, e.g. fr) "
                    "or give each row a 'language'",
                )
            print(
                build_halvest_dataset(
                    docs,
                    args.out,
                    args.name,
                    ks=tuple(args.k),
                    language=args.language,
                    mteb_language=args.mteb_language,
                    n_triplets=args.n_triplets,
                    seed=args.seed,
                    source=str(args.corpus),
                    topic_field=args.topic_field,
                    normalise=args.normalise,
                    duplicates=args.duplicates,
                    force=args.force,
                )
            )
        elif args.cmd == "build-taln":
            build_taln(shared_data_dir(args.shared), Path(args.out), topic_field=args.topic_field)
        elif args.cmd == "build-ir-triplets":
            from mteb_contrastive.data import ir_triplets as irt
            from mteb_contrastive.data.languages import mteb_language

            if bool(args.beir_folder) == bool(args.mteb_task):
                ap.error("give either BEIR_FOLDER or --mteb-task")
            language = args.language
            if language is not None and mteb_language(language) is None:
                ap.error(f"argument --language: {language!r} is not a language code mteb knows; give e.g. eng-Latn")
            if args.mteb_task:
                check_mteb_task(args.mteb_task, args.mteb_split)
                corpus, queries, qrels = irt.collection_from_mteb_task(args.mteb_task, args.mteb_split)
                source = f"mteb task {args.mteb_task} ({args.mteb_split})"
                if language is None:
                    import mteb

                    langs = mteb.get_task(args.mteb_task).metadata.languages
                    language = langs[0] if len(langs) == 1 else None
            else:
                corpus, queries, qrels = irt.read_beir_folder(args.beir_folder, args.qrels)
                source = str(Path(args.beir_folder).resolve())
            if language is None:
                language = "eng-Latn"
                print(
                    f"build-ir-triplets: {source} names no language; "
                    "recorded as eng-Latn (pass --language to state it)",
                    file=sys.stderr,
                )
            print(
                irt.build_ir_triplets(
                    corpus,
                    qrels,
                    args.out,
                    args.name,
                    queries=queries,
                    seed=args.seed,
                    min_grade=args.min_grade,
                    max_per_query=irt.DEFAULT_MAX_PER_QUERY if args.max_per_query is None else args.max_per_query,
                    negative=args.negative,
                    language=mteb_language(language),
                    source=source,
                    force=args.force,
                )
            )
        elif args.cmd == "main":
            return main_job(Path(args.out), args.shared, args.models)
        elif args.cmd == "tasks":
            import mteb  # noqa: F401  (registers the tasks)

            from mteb_contrastive.benchmarks.task_table import task_table

            print(task_table())
        elif args.cmd == "evaluate":
            return evaluate_cmd.main(args)
        elif args.cmd == "report":
            return report_command(args)
        elif args.cmd in quoter_cli.COMMANDS:
            return quoter_cli.run(args, ap) or 0
        elif args.cmd in attribution_cli.COMMANDS:
            return attribution_cli.run(args)
        else:
            return pan_cli.run(args, shared_data_dir) or 0
    except (DataError, ValueError, OSError) as exc:  # bad input or options: one line, never a traceback
        return print_error(exc)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return 0


def check_mteb_task(name: str, split: str) -> None:
    """``build-ir-triplets --mteb-task NAME --mteb-split SPLIT``: an mteb retrieval task with that split.

    Raises:
        InputError: a name mteb does not know (with the nearest names), a task that is not a
            retrieval task, a split the task does not evaluate.
    """
    import difflib

    import mteb

    from mteb_contrastive.data.errors import InputError

    try:
        task = mteb.get_task(name)
    except KeyError:
        names = [t.metadata.name for t in mteb.get_tasks(task_types=["Retrieval"])]
        near = difflib.get_close_matches(name, names, n=3)
        raise InputError(
            f"--mteb-task {name}: not a task mteb knows; give an mteb retrieval task"
            + (f", e.g. {', '.join(near)}" if near else " (mteb.get_tasks(task_types=['Retrieval']) lists them)")
        ) from None
    if task.metadata.type != "Retrieval":
        raise InputError(f"--mteb-task {name}: a {task.metadata.type} task; give an mteb retrieval task")
    if split not in task.metadata.eval_splits:
        raise InputError(
            f"--mteb-split {split}: {name} has no such split; give one of {', '.join(task.metadata.eval_splits)}"
        )


def report_command(args: argparse.Namespace) -> int:
    """``mteb-contrastive report``: the one reader's report of a results folder."""
    results = Path(args.results)
    if not results.is_dir():
        print(f"error: {results}: not a folder (give an mteb --output-folder)", file=sys.stderr)
        return 2
    if args.content_table:
        from mteb_contrastive.report.tables import content_table

        print(content_table(results))
        return 0
    if args.author_table:
        from mteb_contrastive.data.readers import read_json
        from mteb_contrastive.report.tables import author_table

        timings = read_json(args.timings, what="timings file") if args.timings else {}
        print(author_table(results, timings))
        return 0
    preds = {}
    for item in args.predictions:
        model, sep, folder = item.partition("=")
        if not sep or not model or not folder:
            return print_error(f"--predictions {item}: expected MODEL=DIR, e.g. org/model=build/release/predictions")
        if not Path(folder).is_dir():
            return print_error(
                f"--predictions {item}: {folder}: no such folder; give the --prediction-folder of the model's mteb run"
            )
        preds[model] = Path(folder)
    if args.reference is not None or preds:
        from mteb_contrastive.report.reader import read_results

        found = sorted({r.model for r in read_results(results)})
        for option, name in [("--reference", args.reference)] + [("--predictions", m) for m in preds]:
            if name is not None and name not in found:
                return print_error(
                    f"{option} {name}: no result of this model in {results}; "
                    f"give one of the models found there: {', '.join(found) or '(none)'}"
                )
    if args.languages_table:
        from mteb_contrastive.report.tables import languages_table

        print(languages_table(results, preds, args.reference))
        return 0
    from mteb_contrastive.report.write import build, render_markdown, write_report

    if args.out:
        print(write_report(results, args.out, prediction_dirs=preds, reference_model=args.reference))
    else:
        rep = build(results, prediction_dirs=preds, reference_model=args.reference, plots_dir=None)
        if not rep.rows:
            print(f"error: {results}: no mteb result files found", file=sys.stderr)
            return 2
        print(render_markdown(rep))
    return 0


if __name__ == "__main__":
    sys.exit(main())
