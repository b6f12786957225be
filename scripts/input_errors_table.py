"""Print the markdown table of docs/input-and-identity.md: what the CLI answers to each kind of bad input.

    # bad inputs and their one-line answers
    PYTHONPATH=src python scripts/input_errors_table.py
    # mteb_contrastive.json fields of hand-made PAN folders
    PYTHONPATH=src python scripts/input_errors_table.py --fields

Each row runs ``mteb-contrastive`` in-process on a small bad input made in a temporary folder
(shown as ``$TMP``) and shows the exit status and the one line it printed on stderr.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
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
        ]
        lines = ["| bad input | exit | stderr (one line) |", "|---|---|---|"]
        for label, argv in cases:
            rc, err = _run(argv)
            err = err.replace(str(tmp), "$TMP").replace("|", "\\|")
            lines.append(f"| {label} | {rc} | `{err}` |")
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
