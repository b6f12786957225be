"""One row convention (issue 20): every reader names the 1-based line number of the bad line, the
number an editor shows, also when blank lines come before it (they are skipped, still counted)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from mteb_contrastive.data import ir_triplets, pan, quoter, verification_builder
from mteb_contrastive.data.corpus import read_corpus
from mteb_contrastive.data.errors import DataError, LineRows, position
from mteb_contrastive.data.languages import languages_from_rows

SRC = Path(__file__).resolve().parents[1] / "src" / "mteb_contrastive"


def _lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _j(obj) -> str:
    return json.dumps(obj, ensure_ascii=False)


def test_the_issue_example_the_third_line_is_line_3_in_every_reader(tmp_path):
    # issue 20: one reader said "row 2" for the third line, another "row 5: line 6"
    bad_quoter = _lines(tmp_path / "q.txt", ["l\tq\tr", "l\tq2\tr", "only one field"])
    with pytest.raises(DataError) as e:
        quoter.read_quoter_file(bad_quoter)
    assert str(e.value) == f"{bad_quoter}, line 3: expected 3 tab-separated fields (left, quote, right), found 1"
    ok = {"id": "d0", "authors": ["A"], "text": "t"}
    bad_corpus = _lines(tmp_path / "c.jsonl", [_j(ok), _j({**ok, "id": "d1"}), _j({**ok, "id": "d2", "text": " "})])
    with pytest.raises(DataError) as e:
        read_corpus(bad_corpus)
    assert (
        str(e.value) == f"{bad_corpus}, line 3, field 'text': "
        "expected the text as a non-empty string, found a string of only whitespace"
    )
    assert (e.value.line, e.value.record) == (3, None)


@pytest.mark.parametrize(
    "reader, lines, expected",
    [
        (
            read_corpus,
            [_j({"id": "a", "authors": ["A"], "text": "t"}), "", _j({"id": "a", "authors": ["B"], "text": "u"})],
            "line 3, field 'id': duplicate id 'a' (first at line 1)",
        ),
        (
            pan.read_pairs,
            [_j({"id": "p0", "pair": ["a", "b"]}), "", "", _j({"id": "p1", "pair": ["a", " "]})],
            "line 4, field 'pair': text 2 of the pair is empty",
        ),
        (
            pan.read_truth,
            [_j({"id": "p0", "same": True}), "", _j({"id": "p1", "same": "yes"})],
            "line 3, field 'same': must be true or false, got 'yes'",
        ),
        (
            pan.read_answers,
            [_j({"id": "p0", "value": 0.5}), "", _j({"id": "p0", "value": 0.1})],
            "line 3, field 'id': duplicate id 'p0' (first at line 1)",
        ),
        (
            ir_triplets.read_qrels,
            ["query-id\tcorpus-id\tscore", "q1\td1\t1", "", "q1\td2\tmany"],
            "line 4, field 'score': score 'many' is not a number",
        ),
        (
            verification_builder.corpus_documents,
            [_j({"id": "a", "author": "A", "text": "t"}), "", _j({"id": "b", "author": "A", "text": ""})],
            "line 3, field 'text': expected the text as a non-empty string, found an empty string",
        ),
        (
            verification_builder.corpus_documents,  # the duplicate is found after reading: its line is kept
            [_j({"id": "a", "author": "A", "text": "t"}), "", "", _j({"id": "a", "author": "B", "text": "u"})],
            "line 4, field 'id': duplicate id 'a' (first at line 1)",
        ),
    ],
)
def test_readers_name_the_line_after_blank_lines(tmp_path, reader, lines, expected):
    path = _lines(tmp_path / "f.jsonl", lines)
    with pytest.raises(DataError) as e:
        reader(path)
    assert str(e.value) == f"{path}, {expected}"


def test_a_check_after_reading_names_the_line_of_the_row(tmp_path):
    # pairs and truth joined by id: the pair without truth is on line 3 of its file (a blank line 2)
    pairs = _lines(
        tmp_path / "pairs.jsonl", [_j({"id": "p0", "pair": ["a", "b"]}), "", _j({"id": "p9", "pair": ["a", "c"]})]
    )
    truth = _lines(tmp_path / "truth.jsonl", [_j({"id": "p0", "same": True}), _j({"id": "p1", "same": False})])
    with pytest.raises(DataError) as e:
        pan.read_pairs_with_truth(pairs, truth)
    assert str(e.value) == f"{pairs}, line 3, field 'id': id 'p9' has no truth row in {truth}"
    # languages checked after read_corpus: the row without a language is line 4
    rows = [{"id": "a", "authors": ["A"], "text": "t", "language": "fr"}, {"id": "b", "authors": ["A"], "text": "u"}]
    corpus = _lines(tmp_path / "c.jsonl", [_j(rows[0]), "", "", _j(rows[1])])
    with pytest.raises(DataError, match=r"c.jsonl, line 4, field 'language': no language"):
        languages_from_rows(read_corpus(corpus), corpus)


def test_sources_without_lines_name_the_1_based_record():
    assert position([{}, {}], 1) == {"record": 2}
    assert position(LineRows([{}, {}], [3, 7]), 1) == {"line": 7}
    with pytest.raises(DataError) as e:
        verification_builder.validate_documents([{"id": "a", "author": "A", "text": "x"}, {"id": "b", "author": "A"}])
    assert str(e.value) == "documents, record 2, field 'text': missing; give every row its text (a non-empty string)"


def test_no_data_error_is_raised_with_a_0_based_row():
    """Every ``DataError(...)`` in the package passes ``line=`` (1-based), ``record=`` or a
    :func:`position` -- never the former 0-based ``row=``."""
    bad = []
    for f in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")).endswith(
                "DataError"
            ):
                bad += [f"{f.relative_to(SRC)}:{node.lineno}" for k in node.keywords if k.arg == "row"]
    assert bad == []
    with pytest.raises(TypeError):
        DataError("f", "m", row=1)
