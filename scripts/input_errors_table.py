"""Print the markdown table of docs/input-and-identity.md: what the commands answer to each kind of bad input.

    # bad inputs and their one-line answers (about 1-2 minutes: the `mteb run` rows start mteb)
    PYTHONPATH=src HF_HUB_OFFLINE=1 python scripts/input_errors_table.py
    # mteb_contrastive.json fields of hand-made PAN folders
    PYTHONPATH=src python scripts/input_errors_table.py --fields

Each row runs a command on a small bad input made in a temporary folder (shown as ``$TMP``) and shows
its exit status and what it printed on stderr (progress bars left out): ``mteb-contrastive`` in
this process, the stock ``mteb run`` in a fresh process (``-v 1``; the Hub switched off).
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from mteb_contrastive.cli.main import main


def _run(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            rc = main(argv)
        except SystemExit as exc:
            rc = exc.code
    return rc, err.getvalue().strip()


def _mteb_run(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """``mteb run ... -v 1`` in a fresh process: (exit status, its stderr lines that are not progress bars)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", **env}
    mteb = str(Path(sys.executable).with_name("mteb"))
    res = subprocess.run([mteb, "run", *args, "-v", "1"], capture_output=True, text=True, env=env)
    lines = [x for x in res.stderr.replace("\r", "\n").splitlines() if x.strip() and "%|" not in x]
    return res.returncode, " ".join(lines) if lines else "(nothing)"


def _pan_folder(folder: Path, validation: list[bool]) -> None:
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


def main_table() -> str:
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        ok_rows = [
            {"id": f"d{i}", "authors": [a], "text": "One. Two. Three.", "language": "en"} for i, a in enumerate("AABB")
        ]
        (tmp / "latin1.jsonl").write_bytes(
            b'{"id": 1, "authors": ["A"], "text": "ok"}\n{"id": 2, "authors": ["A"], "text": "na\xefve"}\n'
        )
        data = gzip.compress(
            "".join(json.dumps({**r, "id": f"d{i}"}) + "\n" for i, r in enumerate(ok_rows * 50)).encode()
        )
        (tmp / "cut.jsonl.gz").write_bytes(data[:-20])
        (tmp / "nolang.jsonl").write_text(
            "".join(json.dumps({k: v for k, v in r.items() if k != "language"}) + "\n" for r in ok_rows)
        )
        (tmp / "beir" / "qrels").mkdir(parents=True)
        (tmp / "beir" / "corpus.jsonl").write_text('{"_id": "d1", "text": "a"}\n{"_id": "d2", "text": "b"}\n')
        (tmp / "beir" / "queries.jsonl").write_text('{"_id": "q1", "text": "q"}\n')
        (tmp / "beir" / "qrels" / "test.tsv").write_text("q1\td1\t1\nq1\td2\t1\nq1\td1\t0\n")
        (tmp / "quotes.txt").write_text("left\tquote\tright\nleft\tquote 2\tright\nno tab on this line\n")
        (tmp / "empty.txt").write_text("")
        (tmp / "two.txt").write_text("a\tq1\tb\nc\tq2\td\n")
        quoter = ["--name", "Q", "--language", "eng-Latn", "--out", f"{tmp}/o"]
        cases = [
            (
                "corpus with non-UTF-8 bytes",
                ["build-triplets", f"{tmp}/latin1.jsonl", "--name", "A", "--out", f"{tmp}/o", "--language", "en"],
            ),
            ("truncated .jsonl.gz", ["build-triplets", f"{tmp}/cut.jsonl.gz", "--name", "A", "--out", f"{tmp}/o"]),
            ("corpus that does not exist", ["build-triplets", f"{tmp}/nope.jsonl", "--name", "A", "--out", f"{tmp}/o"]),
            ("truth file that does not exist", ["pan-score", f"{tmp}/truth.jsonl", f"{tmp}/answers.jsonl"]),
            ("--k 0", ["build-triplets", "c.jsonl", "--name", "A", "--out", "o", "--k", "0"]),
            ("--n-triplets 0", ["build-triplets", "c.jsonl", "--name", "A", "--out", "o", "--n-triplets", "0"]),
            ("--name my-corpus", ["build-triplets", "c.jsonl", "--name", "my-corpus", "--out", "o"]),
            ("--max-per-query 0", ["build-ir-triplets", "f", "--name", "B", "--out", "o", "--max-per-query", "0"]),
            (
                "--chunk-words 0",
                ["build-verification", "corpus", "c.jsonl", "--name", "A", "--out", "o", "--chunk-words", "0"],
            ),
            (
                "repeated qrels row, other grade",
                ["build-ir-triplets", f"{tmp}/beir", "--name", "B", "--out", f"{tmp}/o"],
            ),
            (
                "corpus without any language",
                ["build-triplets", f"{tmp}/nolang.jsonl", "--name", "A", "--out", f"{tmp}/o"],
            ),
            ("QuoteR file whose 3rd line has no tab", ["build-quoter", f"{tmp}/quotes.txt", *quoter]),
            ("empty QuoteR file", ["build-quoter", f"{tmp}/empty.txt", *quoter]),
            (
                "QuoteR split leaving no test line",
                ["build-quoter", f"{tmp}/two.txt", *quoter, "--split", "line-order", "--boundaries", "1", "2"],
            ),
        ]
        lines = ["| bad input | command | exit | stderr (one line) |", "|---|---|---|---|"]
        for label, argv in cases:
            rc, err = _run(argv)
            err = err.replace(str(tmp), "$TMP").replace("|", "\\|")
            lines.append(f"| {label} | `mteb-contrastive {argv[0]}` | {rc} | `{err}` |")

        # the stock `mteb run`, each in a fresh process
        _pan_folder(tmp / "v" / "OneClass", [True, True, True])
        _pan_folder(tmp / "v" / "TwoPairs", [True, False])
        pan = {"MTEB_CONTRASTIVE_VERIFICATION": str(tmp / "v"), "MTEB_CONTRASTIVE_CACHE": str(tmp / "c")}
        tfidf = ["-m", "mteb-contrastive/tfidf-words", "--output-folder", str(tmp / "r")]
        minilm = "sentence-transformers/all-MiniLM-L6-v2"
        runs = [
            (
                "model name mteb does not know, Hub offline",
                ["-m", "nonexistent-org/unknown-model", "-t", "CranfieldIRTriplets"],
                {},
            ),
            ("model path that does not exist", ["-m", "./path/that/does/not/exist", "-t", "CranfieldIRTriplets"], {}),
            (
                "built task, MTEB_CONTRASTIVE_DATASETS unset",
                ["-m", "mteb/baseline-bm25s", "-t", "MyCorpusAuthorRetrieval"],
                {"MTEB_CONTRASTIVE_DATASETS": ""},
            ),
            (
                "long-document stride larger than the window",
                ["-m", f"{minilm}::long_document=mean,stride=999", "-t", "CranfieldIRTriplets"],
                {},
            ),
            ("PAN-format validation split of one class", [*tfidf, "-t", "OneClassVerification"], pan),
            ("PAN-format validation split of one pair per class (runs)", [*tfidf, "-t", "TwoPairsVerification"], pan),
        ]
        for label, args, env in runs:
            rc, err = _mteb_run(args, env)
            err = err.replace(str(tmp), "$TMP").replace("|", "\\|")
            lines.append(f"| {label} | `mteb run` | {rc} | `{err}` |")
        result = next((tmp / "r").rglob("TwoPairsVerification.json"))
        result.write_text("")  # what a kill while mteb wrote the result left
        rc, err = _mteb_run([*tfidf, "-t", "TwoPairsVerification"], pan)
        err = err.replace(str(tmp), "$TMP").replace("|", "\\|")
        lines.append(f"| result file cut by a kill (empty `<Task>.json`) | `mteb run` | {rc} | `{err}` |")
    return "\n".join(lines)


def fields_table() -> str:
    """The fields a hand-made PAN-format folder's mteb_contrastive.json must hold."""
    from mteb_contrastive.sources.pan import REQUIRED_FIELDS

    return "\n".join(
        ["| field | what to write |", "|---|---|"] + [f"| `{k}` | `{v}` |" for k, v in REQUIRED_FIELDS.items()]
    )


if __name__ == "__main__":
    import sys

    print(fields_table() if "--fields" in sys.argv[1:] else main_table())
