"""The registry of bad inputs: the cases the tests run and ``docs/input-and-identity.md``'s table shows.

One list, two readers: ``tests/test_input_kinds.py`` runs every :data:`CASES` entry and the generated
kinds (:data:`FILE_KINDS` over :data:`FILE_COMMANDS`), and ``scripts/input_errors_table.py`` prints the
table of :data:`CASES` and the list of generated kinds, so the table is what the tests cover.

To add a case: append a :class:`Case` to :data:`CASES` (``make`` writes its files under the
temporary folder it is given and returns the command line; ``expect`` is what its stderr line must
contain, ``{tmp}`` standing for that folder). To add a generated kind: a function ``bytes -> bytes``
in :data:`FILE_KINDS` with what it must give (``accept`` or ``refuse``).
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mteb_contrastive.cli.main import main

BOM = b"\xef\xbb\xbf"

# --- running a command ------------------------------------------------------------------------------


def is_progress(line: str) -> bool:
    """A progress bar's line (``datasets``' parquet writer prints one on stderr)."""
    return "%|" in line or "it/s]" in line or "ba/s]" in line


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """``mteb-contrastive argv`` in this process: (exit status, stdout, stderr without progress bars)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            rc = main(argv)
        except SystemExit as exc:
            rc = exc.code
    lines = [x for x in err.getvalue().replace("\r", "\n").splitlines() if x.strip() and not is_progress(x)]
    return rc, out.getvalue(), "\n".join(lines)


def run_mteb(args: list[str], env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """``mteb run ... -v 1`` in a fresh process (the Hub off): (exit status, stdout, stderr without bars)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})}
    mteb = str(Path(sys.executable).with_name("mteb"))
    res = subprocess.run([mteb, "run", *args, "-v", "1"], capture_output=True, text=True, env=env, timeout=600)
    lines = [x for x in res.stderr.replace("\r", "\n").splitlines() if x.strip() and not is_progress(x)]
    return res.returncode, res.stdout, "\n".join(lines)


# --- small valid inputs -----------------------------------------------------------------------------


def jsonl(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def corpus_rows(n: int = 6) -> list[dict]:
    """An author-labelled corpus build-triplets accepts: three authors, two texts each, three sentences a text."""
    return [
        {
            "id": f"d{i}",
            "authors": ["ABC"[i % 3]],
            "text": f"Sentence one of text {i}. Sentence two of text {i}. Sentence three of text {i}.",
            "language": "en",
        }
        for i in range(n)
    ]


def attribution_rows() -> list[dict]:
    """A corpus build-attribution accepts (chunks of 10 words): two authors, two texts each, one disputed."""
    words = lambda i: " ".join(f"w{i}x{j}" for j in range(24))  # noqa: E731
    rows = [{"id": f"t{i}", "author": "AB"[i % 2], "status": "ok", "text": words(i)} for i in range(4)]
    rows.append({"id": "t4", "author": "A", "status": "disputed", "text": words(4)})
    return [{**r, "language": "en"} for r in rows]


def verification_rows() -> list[dict]:
    """A corpus build-verification accepts (--chunk-words 5): six authors, two texts each."""
    return [
        {"id": f"v{a}{i}", "author": a, "text": " ".join(f"{a}w{i}k{j}" for j in range(12)), "language": "en"}
        for a in "abcdef"
        for i in range(2)
    ]


def truth_rows() -> list[dict]:
    return [{"id": f"p{i}", "same": i % 2 == 0, "authors": ["a", "a" if i % 2 == 0 else "b"]} for i in range(4)]


def answer_rows() -> list[dict]:
    return [{"id": f"p{i}", "value": [0.9, 0.2, 0.7, 0.4][i]} for i in range(4)]


def quoter_lines() -> bytes:
    return "".join(f"left {i}\tquote {i}\tright {i}\n" for i in range(12)).encode()


def beir_folder(folder: Path) -> Path:
    jsonl(folder / "corpus.jsonl", [{"_id": f"d{i}", "title": "", "text": f"document {i} words"} for i in range(6)])
    jsonl(folder / "queries.jsonl", [{"_id": f"q{i}", "text": f"query {i}"} for i in range(3)])
    (folder / "qrels").mkdir(parents=True, exist_ok=True)
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"q{i}\td{2 * i}\t1\nq{i}\td{2 * i + 1}\t1\n" for i in range(3))
    )
    return folder


def _beir_around(corpus: Path) -> Path:
    """The BEIR folder of ``corpus`` (its queries and qrels written beside it)."""
    folder = corpus.parent
    jsonl(folder / "queries.jsonl", [{"_id": f"q{i}", "text": f"query {i}"} for i in range(3)])
    (folder / "qrels").mkdir(exist_ok=True)
    (folder / "qrels" / "test.tsv").write_text("".join(f"q{i}\td{2 * i}\t1\nq{i}\td{2 * i + 1}\t1\n" for i in range(3)))
    return folder


def pan_folder(folder: Path, validation: list[bool]) -> None:
    """A hand-made PAN-format folder: validation pairs labelled ``validation``, four test pairs."""
    words = {a: [f"w{a}{i}" for i in range(6)] for a in "abcd"}
    for split, labels, authors in (("validation", validation, "ab"), ("test", [True, False, True, False], "cd")):
        (folder / split).mkdir(parents=True)
        pairs, truth = [], []
        for i, same in enumerate(labels):
            a, b = authors[0], authors[0] if same else authors[1]
            t1 = " ".join(words[a][(i + k) % 6] for k in range(5))
            t2 = " ".join(words[b][(i + 1 + k) % 6] for k in range(5))
            pairs.append(json.dumps({"id": f"{split}{i}", "pair": [t1, t2]}))
            truth.append(json.dumps({"id": f"{split}{i}", "same": same, "authors": [a, b]}))
        (folder / split / "pairs.jsonl").write_text("\n".join(pairs) + "\n")
        (folder / split / "truth.jsonl").write_text("\n".join(truth) + "\n")
    info = {"kind": "pan-verification", "name": folder.name, "languages": ["eng-Latn"]}
    (folder / "mteb_contrastive.json").write_text(json.dumps(info))


# --- the cases of the table -------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One bad input: ``make(tmp)`` writes it under ``tmp`` and returns the command line (after
    ``mteb-contrastive``, or after ``mteb run`` when ``runner == "mteb"``); the command must exit with
    ``exit`` and its one stderr line contain every string of ``expect`` (``{tmp}``: the folder)."""

    label: str
    kind: str
    make: Callable[[Path], list[str]]
    expect: tuple[str, ...]
    exit: int = 2
    runner: str = "cli"
    env: Callable[[Path], dict[str, str]] = field(default=lambda tmp: {})
    #: for ``runner == "mteb"``: the test that runs the case in this process (a fresh ``mteb`` process
    #: takes a minute on a loaded machine; the table script runs each in one)
    covered_by: str = ""

    def run(self, tmp: Path) -> tuple[str, int, str, str]:
        """(the command as the table names it, exit status, stdout, stderr without progress bars)."""
        argv = self.make(tmp)
        if self.runner == "mteb":
            return ("mteb run", *run_mteb(argv, self.env(tmp)))
        return (f"mteb-contrastive {argv[0]}", *run_cli(argv))


def _triplets(path: Path, *extra: str) -> list[str]:
    return ["build-triplets", str(path), "--name", "A", "--out", str(path.parent / "o"), *extra]


def _corpus(tmp: Path, name: str, rows: list[dict] | None = None, raw: bytes | None = None) -> Path:
    p = tmp / name
    if raw is not None:
        p.write_bytes(raw)
        return p
    return jsonl(p, rows if rows is not None else corpus_rows())


def _bytes(rows: list[dict]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def _cut_gz(tmp: Path) -> list[str]:
    data = gzip.compress(_bytes([{**r, "id": f"d{i}"} for i, r in enumerate(corpus_rows() * 40)]))
    return _triplets(_corpus(tmp, "cut.jsonl.gz", raw=data[:-20]))


def _attribution(tmp: Path, *extra: str) -> list[str]:
    p = jsonl(tmp / "attr.jsonl", attribution_rows())
    return ["build-attribution", str(p), "--name", "A", "--out", str(tmp / "o"), "--chunk-words", "10", *extra]


def _abstract(tmp: Path) -> Path:
    return jsonl(
        tmp / "cacm.jsonl", [{k if k != "text" else "abstract": v for k, v in r.items()} for r in corpus_rows()]
    )


def _train(tmp: Path, *extra: str) -> list[str]:
    return ["train", "--docs", f"corpus={jsonl(tmp / 'c.jsonl', verification_rows())}", "--out", str(tmp / "m"), *extra]


def _pan_score(tmp: Path, truth: bytes | None = None, answers: bytes | None = None) -> list[str]:
    t, a = tmp / "truth.jsonl", tmp / "answers.jsonl"
    t.write_bytes(_bytes(truth_rows()) if truth is None else truth)
    a.write_bytes(_bytes(answer_rows()) if answers is None else answers)
    return ["pan-score", str(t), str(a)]


def _results(tmp: Path) -> Path:
    """A results folder holding one result of the model ``org/model`` (what ``report`` reads)."""
    from mteb.cache import ResultCache
    from mteb.models.model_meta import ModelMeta
    from mteb.results import TaskResult

    scores = {"test": [{"hf_subset": "default", "main_score": 0.5, "languages": ["eng-Latn"], "accuracy": 0.5}]}
    result = TaskResult(
        dataset_revision="1", task_name="CranfieldIRTriplets", mteb_version="2", scores=scores, evaluation_time=1.0
    )
    ResultCache(str(tmp / "r")).save_to_cache(result, ModelMeta.create_empty(overwrites={"name": "org/model"}))
    return tmp / "r" / "results"


def _repeated_qrels(tmp: Path) -> list[str]:
    beir_folder(tmp / "beir")
    (tmp / "beir" / "qrels" / "test.tsv").write_text("q1\td1\t1\nq1\td2\t1\nq1\td1\t0\n")
    return ["build-ir-triplets", str(tmp / "beir"), "--name", "B", "--out", str(tmp / "o")]


def _pan_env(tmp: Path) -> dict[str, str]:
    return {"MTEB_CONTRASTIVE_VERIFICATION": str(tmp / "v"), "MTEB_CONTRASTIVE_CACHE": str(tmp / "c")}


def _one_class(tmp: Path) -> list[str]:
    pan_folder(tmp / "v" / "OneClass", [True, True, True])
    return ["-m", "mteb-contrastive/tfidf-words", "--output-folder", str(tmp / "r"), "-t", "OneClassVerification"]


def _two_pairs(tmp: Path) -> list[str]:
    if not (tmp / "v" / "TwoPairs").is_dir():
        pan_folder(tmp / "v" / "TwoPairs", [True, False])
    return ["-m", "mteb-contrastive/tfidf-words", "--output-folder", str(tmp / "r"), "-t", "TwoPairsVerification"]


def _cut_result(tmp: Path) -> list[str]:
    args = _two_pairs(tmp)
    rc, _, err = run_mteb(args, _pan_env(tmp))
    assert rc == 0, err
    next((tmp / "r").rglob("TwoPairsVerification.json")).write_text("")  # what a kill while mteb wrote it left
    return args


QUOTER = ["--name", "Q", "--language", "eng-Latn"]
_NAME = "mteb-contrastive build-triplets: error: argument"
_MINILM = "sentence-transformers/all-MiniLM-L6-v2"

#: every bad input of the table, by kind (the kinds of issue 26); the tests run each one
CASES: list[Case] = [
    # --- input files: one reader (data/readers.py) -------------------------------------------------
    Case(
        "corpus with non-UTF-8 bytes",
        "input files",
        lambda t: _triplets(_corpus(t, "latin1.jsonl", raw=b'{"id": 1, "authors": ["A"], "text": "na\xefve"}\n')),
        ("{tmp}/latin1.jsonl, line 1: not UTF-8 text (byte 39", "re-encode the file as UTF-8"),
    ),
    Case(
        "truncated .jsonl.gz",
        "input files",
        _cut_gz,
        ("{tmp}/cut.jsonl.gz: truncated or corrupt gzip file", "(cut after line"),
    ),
    Case(
        "gzip file named without .gz",
        "input files",
        lambda t: _triplets(_corpus(t, "c.jsonl", raw=gzip.compress(_bytes(corpus_rows())))),
        ("{tmp}/c.jsonl: a gzip-compressed file under a name without .gz",),
    ),
    Case(
        "corpus that does not exist",
        "input files",
        lambda t: _triplets(t / "nope.jsonl"),
        ("{tmp}/nope.jsonl: file not found",),
    ),
    Case(
        "a folder given as the corpus",
        "input files",
        lambda t: (t / "dir.jsonl").mkdir() or _triplets(t / "dir.jsonl"),
        ("{tmp}/dir.jsonl: expected a file, found a folder",),
    ),
    Case(
        "empty corpus file",
        "input files",
        lambda t: _triplets(_corpus(t, "empty.jsonl", raw=b"")),
        ("{tmp}/empty.jsonl: empty file: no JSON line",),
    ),
    Case(
        "corpus with a UTF-8 BOM and CRLF line ends (accepted)",
        "input files",
        lambda t: _triplets(_corpus(t, "bom.jsonl", raw=BOM + _bytes(corpus_rows()).replace(b"\n", b"\r\n"))),
        (),
        exit=0,
    ),
    Case(
        "last line cut inside a string",
        "input files",
        lambda t: _triplets(_corpus(t, "cut.jsonl", raw=_bytes(corpus_rows()) + b'{"id": "x", "text": "Half a sen')),
        ("{tmp}/cut.jsonl, line 7: not JSON: the line ends inside a string", "the line is cut"),
    ),
    Case(
        "a JSON list where a row goes",
        "input files",
        lambda t: _triplets(_corpus(t, "list.jsonl", raw=_bytes(corpus_rows()) + b'["d9", "A", "text"]\n')),
        ("{tmp}/list.jsonl, line 7: expected a JSON object {...} per line, found a list",),
    ),
    Case(
        "PAN truth file that does not exist",
        "input files",
        lambda t: ["pan-score", str(t / "truth.jsonl"), str(t / "answers.jsonl")],
        ("{tmp}/truth.jsonl: file not found",),
    ),
    Case(
        "empty PAN answers file",
        "input files",
        lambda t: _pan_score(t, answers=b""),
        ("{tmp}/answers.jsonl: empty file: no JSON line",),
    ),
    Case(
        "QuoteR file whose 3rd line has no tab",
        "input files",
        lambda t: [
            "build-quoter",
            str(_corpus(t, "q.txt", raw=b"l\tq\tr\nl\tq2\tr\nno tab\n")),
            *QUOTER,
            "--out",
            str(t),
        ],
        ("{tmp}/q.txt, line 3: expected 3 tab-separated fields (left, quote, right), found 1",),
    ),
    Case(
        "empty QuoteR file",
        "input files",
        lambda t: ["build-quoter", str(_corpus(t, "empty.txt", raw=b"")), *QUOTER, "--out", str(t)],
        ("{tmp}/empty.txt: the file holds no example",),
    ),
    Case(
        "QuoteR split leaving no test line",
        "input files",
        lambda t: [
            "build-quoter",
            str(_corpus(t, "two.txt", raw=b"a\tq1\tb\nc\tq2\td\n")),
            *QUOTER,
            "--out",
            str(t),
            "--split",
            "line-order",
            "--boundaries",
            "1",
            "2",
        ],
        ("{tmp}/two.txt: the test split is empty",),
    ),
    Case(
        "repeated qrels row, other grade",
        "input files",
        _repeated_qrels,
        ("{tmp}/beir/qrels/test.tsv, line 3, field 'score': query 'q1', document 'd1' already graded 1 at line 1",),
    ),
    # --- fields and values (data/fields.py) --------------------------------------------------------
    Case(
        "a number where the text goes",
        "fields and options",
        lambda t: _triplets(jsonl(t / "c.jsonl", [*corpus_rows()[:5], {**corpus_rows()[5], "text": 5}])),
        ("{tmp}/c.jsonl, line 6, field 'text': expected the text as a non-empty string, found a number (5)",),
    ),
    Case(
        "a null id",
        "fields and options",
        lambda t: _triplets(jsonl(t / "c.jsonl", [*corpus_rows()[:5], {**corpus_rows()[5], "id": None}])),
        ("{tmp}/c.jsonl, line 6, field 'id': expected an id (a non-empty string or a whole number), found null",),
    ),
    Case(
        "a list as id (PAN truth)",
        "fields and options",
        lambda t: _pan_score(t, truth=_bytes([{**truth_rows()[0], "id": ["p0"]}, *truth_rows()[1:]])),
        ("{tmp}/truth.jsonl, line 1, field 'id': expected an id", "found a list"),
    ),
    Case(
        "text in 'abstract', read with --text-field abstract (accepted)",
        "fields and options",
        lambda t: _triplets(_abstract(t), "--text-field", "abstract"),
        (),
        exit=0,
    ),
    Case(
        "--text-field naming a field no row has",
        "fields and options",
        lambda t: _triplets(_abstract(t), "--text-field", "abstracts"),
        ("{tmp}/cacm.jsonl: --text-field 'abstracts': no row has a field 'abstracts'", "'abstract'"),
    ),
    Case(
        "--questioned-field Status when the rows say status",
        "fields and options",
        lambda t: _attribution(t, "--questioned-field", "Status", "--questioned-value", "disputed"),
        ("{tmp}/attr.jsonl: --questioned-field 'Status': no row has a field 'Status' (the rows have 'status'",),
    ),
    Case(
        "--topic-field naming a field no row has (build-verification)",
        "fields and options",
        lambda t: [
            "build-verification",
            "corpus",
            str(jsonl(t / "c.jsonl", verification_rows())),
            "--name",
            "V",
            "--out",
            str(t / "o"),
            "--topic-field",
            "genre",
        ],
        ("{tmp}/c.jsonl: --topic-field 'genre': no row has a field 'genre'",),
    ),
    Case(
        "--k 0",
        "fields and options",
        lambda t: ["build-triplets", "c.jsonl", "--name", "A", "--out", "o", "--k", "0"],
        (f"{_NAME} --k: must be 1 or more, got 0",),
    ),
    Case(
        "--name my-corpus",
        "fields and options",
        lambda t: ["build-triplets", "c.jsonl", "--name", "my-corpus", "--out", "o"],
        (f"{_NAME} --name: 'my-corpus' must be letters and digits", "give e.g. MyCorpus"),
    ),
    Case(
        "--split-ratios 0.5 0.5 0.5",
        "fields and options",
        lambda t: (
            ["build-verification", "corpus", "c.jsonl", "--name", "A", "--out", "o", "--split-ratios"]
            + ["0.5", "0.5", "0.5"]
        ),
        ("argument --split-ratios: 0.5 0.5 0.5 sum to 1.5, not 1",),
    ),
    Case(
        "--learning-rate -1",
        "fields and options",
        lambda t: _train(t, "--learning-rate", "-1"),
        ("mteb-contrastive train: error: argument --learning-rate: must be more than 0, got -1",),
    ),
    Case(
        "--warmup-ratio 2",
        "fields and options",
        lambda t: _train(t, "--warmup-ratio", "2"),
        ("mteb-contrastive train: error: argument --warmup-ratio: must be from 0 to 1, got 2",),
    ),
    Case(
        "--batch-size 0 (evaluate)",
        "fields and options",
        lambda t: ["evaluate", "-m", _MINILM, "--out", str(t / "release"), "--batch-size", "0"],
        ("mteb-contrastive evaluate: error: argument --batch-size: must be 1 or more, got 0",),
    ),
    Case(
        "--batch-size 0 (mteb run)",
        "fields and options",
        lambda t: ["-m", "mteb-contrastive/tfidf-words", "-t", "CranfieldIRTriplets", "--batch-size", "0"],
        ("mteb: error: argument --batch-size: must be 1 or more, got 0",),
        runner="mteb",
        covered_by="tests/test_input_kinds.py::test_mteb_run_batch_size_0_is_one_line",
    ),
    Case(
        "--proportions 0.9 0.8 (QuoteR cut points out of order)",
        "fields and options",
        lambda t: ["build-quoter", "q.txt", *QUOTER, "--out", "o", "--proportions", "0.9", "0.8"],
        ("argument --proportions: 0.9 0.8 are not in increasing order",),
    ),
    # --- references to something absent ------------------------------------------------------------
    Case(
        "report --reference naming no model of the results",
        "fields and options",
        lambda t: ["report", str(_results(t)), "--reference", "no/such-model"],
        ("--reference no/such-model: no result of this model in {tmp}/r/results", "org/model"),
    ),
    Case(
        "report --predictions M=<missing folder>",
        "fields and options",
        lambda t: ["report", str(_results(t)), "--predictions", f"org/model={t}/nowhere"],
        ("--predictions org/model={tmp}/nowhere: {tmp}/nowhere: no such folder",),
    ),
    Case(
        "build-ir-triplets --mteb-task NoSuchTask",
        "fields and options",
        lambda t: ["build-ir-triplets", "--mteb-task", "NoSuchTask", "--name", "B", "--out", str(t / "o")],
        ("--mteb-task NoSuchTask: not a task mteb knows",),
    ),
    Case(
        "--max-per-query 0",
        "fields and options",
        lambda t: ["build-ir-triplets", "f", "--name", "B", "--out", "o", "--max-per-query", "0"],
        ("argument --max-per-query: must be 1 or more, got 0",),
    ),
    Case(
        "corpus without any language",
        "fields and options",
        lambda t: _triplets(jsonl(t / "nolang.jsonl", [{**r, "language": None} for r in corpus_rows()])),
        ("{tmp}/nolang.jsonl: no row has a 'language' field; pass --language",),
    ),
    # --- the stock mteb run -----------------------------------------------------------------------
    Case(
        "model name mteb does not know, Hub offline",
        "models, caches, results",
        lambda t: ["-m", "nonexistent-org/unknown-model", "-t", "CranfieldIRTriplets"],
        ("mteb: error: model 'nonexistent-org/unknown-model': not a model mteb knows",),
        runner="mteb",
        covered_by="tests/test_input_tracebacks.py::test_mteb_run_with_an_unknown_model_offline_is_one_line",
    ),
    Case(
        "model path that does not exist",
        "models, caches, results",
        lambda t: ["-m", "./path/that/does/not/exist", "-t", "CranfieldIRTriplets"],
        ("mteb: error: model './path/that/does/not/exist': no such folder",),
        runner="mteb",
        covered_by="tests/test_input_tracebacks.py::test_mteb_run_with_a_model_path_that_does_not_exist_is_one_line",
    ),
    Case(
        "built task, MTEB_CONTRASTIVE_DATASETS unset",
        "models, caches, results",
        lambda t: ["-m", "mteb/baseline-bm25s", "-t", "MyCorpusAuthorRetrieval"],
        ("mteb: error: -t MyCorpusAuthorRetrieval: no such task", "MTEB_CONTRASTIVE_DATASETS, which is unset"),
        runner="mteb",
        covered_by="tests/test_input_tracebacks.py::test_mteb_run_of_a_built_task_names_the_variable_that_finds_it",
        env=lambda t: {"MTEB_CONTRASTIVE_DATASETS": ""},
    ),
    Case(
        "long-document stride larger than the window",
        "models, caches, results",
        lambda t: ["-m", f"{_MINILM}::long_document=mean,stride=999", "-t", "CranfieldIRTriplets"],
        ("mteb: error: encoding option stride=999 is larger than the window of 254 tokens",),
        runner="mteb",
        covered_by="tests/test_encoding_settings.py::test_a_stride_larger_than_the_window_is_refused_in_one_line",
    ),
    Case(
        "PAN-format validation split of one class",
        "models, caches, results",
        _one_class,
        ("mteb: error: {tmp}/v/OneClass/validation/truth.jsonl: only same-author pairs (3)",),
        runner="mteb",
        covered_by="tests/test_input_tracebacks.py::test_a_pan_benchmark_with_one_pair_per_class_runs_and_a_one_class_validation_is_one_line",
        env=_pan_env,
    ),
    Case(
        "result file cut by a kill (empty `<Task>.json`)",
        "models, caches, results",
        _cut_result,
        ("warning: {tmp}/r/results/mteb-contrastive__tfidf-words/", "unreadable result file", "evaluated again"),
        exit=0,
        runner="mteb",
        covered_by="tests/test_input_tracebacks.py::test_a_pan_benchmark_with_one_pair_per_class_runs_and_a_one_class_validation_is_one_line",
        env=_pan_env,
    ),
]


# --- the generated kinds: what a file may look like -------------------------------------------------


def cut_last_line(data: bytes, x: float) -> bytes:
    """``data`` with its last line cut after a share ``x`` of it (at least one byte kept, the end dropped)."""
    body = data.rstrip(b"\n")
    start = body.rfind(b"\n") + 1
    return body[: start + max(1, int(x * (len(body) - start - 1)))]


#: name -> (what the kind does to a valid file's bytes, "accept" or "refuse"); tests draw them and
#: their combinations (each function takes the bytes and a random position in [0, 1))
FILE_KINDS: dict[str, tuple[Callable[[bytes, float], bytes], str]] = {
    "UTF-8 BOM": (lambda b, x: BOM + b, "accept"),
    "CRLF line ends": (lambda b, x: b.replace(b"\n", b"\r\n"), "accept"),
    "blank lines between rows": (lambda b, x: b.replace(b"\n", b"\n\n"), "accept"),
    "invalid UTF-8 byte at a random place": (
        lambda b, x: b[: int(x * len(b))] + b"\xff" + b[int(x * len(b)) :],
        "refuse",
    ),
    "last line cut at a random place": (lambda b, x: cut_last_line(b, x), "either"),
    "a JSON list row": (lambda b, x: b + b'["a", "b"]\n', "refuse"),
    "a JSON number row": (lambda b, x: b + b"42\n", "refuse"),
    "a JSON string row": (lambda b, x: b + b'"text"\n', "refuse"),
    "empty file": (lambda b, x: b"", "refuse"),
    "only blank lines": (lambda b, x: b"\n \n\r\n", "refuse"),
}

#: whether a kind is applied before gzip (the file is ``.gz``) or the gzip stream itself is cut
GZIP_KINDS = {
    "gzip-compressed (.gz)": "accept",
    "gzip stream cut at a random place": "refuse",
}


@dataclass(frozen=True)
class FileCommand:
    """A command reading one user file: ``make(tmp, path)`` writes the other inputs and returns the
    command line reading ``path``; ``valid()`` is that file's valid bytes; ``result(tmp, stdout)`` the
    result compared between a file and the same file in an accepted form (BOM, CRLF, .gz)."""

    name: str
    filename: str
    valid: Callable[[], bytes]
    make: Callable[[Path, Path], list[str]]
    result: Callable[[Path, str], object]
    gzip: bool = True  # the reader also reads a .gz of this file
    row_kinds: bool = True  # rows are JSON objects (the JSON-type kinds apply)
    expect: dict[str, str] = field(default_factory=dict)  # kinds whose outcome differs in this format
    refuse_only: bool = False  # an accepted file starts a long job (train): only kinds that must be refused

    def outcome(self, kind: str) -> str:
        return self.expect.get(kind, FILE_KINDS[kind][1] if kind in FILE_KINDS else GZIP_KINDS[kind])


def _info(key: str) -> Callable[[Path, str], object]:
    return lambda t, out: json.loads((Path(out.strip().splitlines()[-1]) / "mteb_contrastive.json").read_text())[key]


#: every command that reads a user file, with a valid file of its own
FILE_COMMANDS: list[FileCommand] = [
    FileCommand(
        "build-triplets",
        "corpus.jsonl",
        lambda: _bytes(corpus_rows()),
        lambda t, p: ["build-triplets", str(p), "--name", "A", "--out", str(t / "o"), "--k", "2"],
        _info("build_id"),
    ),
    FileCommand(
        "build-verification",
        "corpus.jsonl",
        lambda: _bytes(verification_rows()),
        lambda t, p: (
            ["build-verification", "corpus", str(p), "--name", "V", "--out", str(t / "o")]
            + ["--chunk-words", "5", "--pairs-per-author", "2"]
        ),
        _info("build_id"),
    ),
    FileCommand(
        "build-attribution",
        "corpus.jsonl",
        lambda: _bytes(attribution_rows()),
        lambda t, p: ["build-attribution", str(p), "--name", "A", "--out", str(t / "o"), "--chunk-words", "10"],
        _info("build_id"),
    ),
    FileCommand(
        "pan-score (truth)",
        "truth.jsonl",
        lambda: _bytes(truth_rows()),
        lambda t, p: ["pan-score", str(p), str(jsonl(t / "answers.jsonl", answer_rows()))],
        lambda t, out: json.loads(out),
    ),
    FileCommand(
        "pan-score (answers)",
        "answers.jsonl",
        lambda: _bytes(answer_rows()),
        lambda t, p: ["pan-score", str(jsonl(t / "truth.jsonl", truth_rows())), str(p)],
        lambda t, out: json.loads(out),
    ),
    FileCommand(
        "build-quoter",
        "quotes.txt",
        quoter_lines,
        lambda t, p: ["build-quoter", str(p), *QUOTER, "--out", str(t / "o")],
        _info("n_lines"),
        gzip=False,  # the built folder keeps the file's bytes: a plain text file
        row_kinds=False,
        expect={"blank lines between rows": "refuse", "only blank lines": "refuse"},  # a line is an example
    ),
    FileCommand(
        "build-ir-triplets (BEIR corpus)",
        "beir/corpus.jsonl",
        lambda: _bytes([{"_id": f"d{i}", "title": "", "text": f"document {i} words"} for i in range(6)]),
        lambda t, p: ["build-ir-triplets", str(_beir_around(p)), "--name", "B", "--out", str(t / "o")],
        _info("build_id"),
        gzip=False,  # a BEIR folder holds corpus.jsonl
    ),
    FileCommand(
        "train (--docs corpus=)",
        "corpus.jsonl",
        lambda: _bytes(verification_rows()),
        lambda t, p: ["train", "--docs", f"corpus={p}", "--out", str(t / "m")],
        lambda t, out: None,
        refuse_only=True,
    ),
]
