"""Unicode identity (NFC) in builders and readers, and the one reader error path (issue 9, sections 1 and 6)."""

from __future__ import annotations

import gzip
import json
import unicodedata

import pytest

from mteb_contrastive.data.corpus import read_corpus
from mteb_contrastive.data.errors import DataError
from mteb_contrastive.data.halvest_builder import sample_triplets
from mteb_contrastive.data.ir_triplets import read_qrels, validate_collection
from mteb_contrastive.data.pan import align_answers, read_answers, read_truth
from mteb_contrastive.data.quoter import QueryFormat, QuoteRExample, build_pool
from mteb_contrastive.data.readers import read_text
from mteb_contrastive.data.verification_builder import split_authors, validate_documents

NFC = unicodedata.normalize("NFC", "José Müller")
NFD = unicodedata.normalize("NFD", "José Müller")
TEXT = "One sentence here. Another one there. A third one."


def test_the_two_spellings_differ_as_strings():
    assert NFC != NFD and len(NFD) == len(NFC) + 2


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_nfc_and_nfd_author_is_one_author_in_the_triplet_builder(tmp_path):
    rows = [
        {"id": "d1", "authors": [NFC], "text": TEXT},
        {"id": "d2", "authors": [NFD], "text": TEXT},
        {"id": "d3", "authors": ["Ann Other"], "text": TEXT},
        {"id": "d4", "authors": ["Ann Other"], "text": TEXT},
    ]
    docs = read_corpus(write_jsonl(tmp_path / "c.jsonl", rows))
    assert docs[1]["authors"] == [NFC]
    _, counts = sample_triplets(docs, 1, n_triplets=1, seed=0)
    assert counts["skipped_no_positive"] == 0 and counts["query_documents"] == 4
    # rows that did not go through the reader are compared in NFC too
    raw = [{**r, "domains": []} for r in rows]
    triplets, counts = sample_triplets(raw, 1, n_triplets=1, seed=0)
    assert counts["skipped_no_positive"] == 0
    assert {t["pos_halid"] for t in triplets if t["query_halid"] == "d1"} == {"d2"}


def test_nfc_and_nfd_author_is_one_author_in_the_verification_builder():
    docs = validate_documents([{"id": "a", "author": NFC, "text": "x"}, {"id": "b", "author": NFD, "text": "y"}])
    assert {d["author"] for d in docs} == {NFC}
    assert set(split_authors(docs, (0.0, 0.5, 0.5), 0)) == {NFC}


def test_nfc_and_nfd_duplicate_ids_are_one_id():
    with pytest.raises(DataError, match=r"documents, record 2, field 'id': duplicate id .* \(first at record 1\)"):
        validate_documents([{"id": f"{NFC}", "author": "A", "text": "x"}, {"id": f"{NFD}", "author": "B", "text": "y"}])


def test_pan_answers_align_with_truth_across_normal_forms(tmp_path):
    truth = read_truth(write_jsonl(tmp_path / "truth.jsonl", [{"id": f"p-{NFD}", "same": True, "authors": [NFD, NFD]}]))
    answers = read_answers(write_jsonl(tmp_path / "answers.jsonl", [{"id": f"p-{NFC}", "value": 0.9}]))
    assert align_answers(truth, answers) == ([1], [0.9])
    assert truth[0]["authors"] == [NFC, NFC]


def test_ir_qrels_ids_match_corpus_ids_across_normal_forms(tmp_path):
    q = tmp_path / "qrels.tsv"
    q.write_text(f"query-id\tcorpus-id\tscore\nq1\t{NFD}\t1\n", encoding="utf-8")
    qrels = read_qrels(q)
    assert qrels == {"q1": {NFC: 1.0}}
    validate_collection({NFC: "text"}, {"q1": "query"}, qrels)  # no "absent from the corpus"


def test_quote_pool_merges_identical_quotes_across_normal_forms():
    ex = [QuoteRExample(0, "l", f"said {NFC}", "r"), QuoteRExample(1, "l", f"said {NFD}", "r")]
    corpus, ids = build_pool(ex, QueryFormat("zh"))
    assert len(corpus) == 1 and corpus[0]["text"] == f"said {NFC}"


# --- the one reader error path -------------------------------------------------------------------


def test_non_utf8_corpus_is_one_line_naming_file_and_row(tmp_path):
    f = tmp_path / "c.jsonl"
    f.write_bytes(b'{"id": 1, "authors": ["A"], "text": "ok"}\n{"id": 2, "authors": ["A"], "text": "caf\xe9"}\n')
    with pytest.raises(DataError) as e:
        read_corpus(f)
    msg = str(e.value)
    assert (
        msg.startswith(f"{f}, line 2: not UTF-8 text (byte 40:")
        and "re-encode the file as UTF-8" in msg
        and "\n" not in msg
    )


def test_truncated_gzip_is_one_line(tmp_path):
    full = gzip.compress(
        b"".join(json.dumps({"id": i, "authors": ["A"], "text": "x" * 200}).encode() + b"\n" for i in range(200))
    )
    f = tmp_path / "c.jsonl.gz"
    f.write_bytes(full[: len(full) // 2])
    with pytest.raises(
        DataError, match=r"c\.jsonl\.gz: truncated or corrupt gzip file .*re-download or re-compress it"
    ):
        read_corpus(f)
    with pytest.raises(DataError, match="truncated or corrupt gzip"):
        read_text(f)


def test_missing_files_are_one_line(tmp_path):
    with pytest.raises(DataError, match=r"nope\.jsonl: file not found; check the path"):
        read_corpus(tmp_path / "nope.jsonl")
    with pytest.raises(DataError, match=r"truth\.jsonl: file not found"):
        read_truth(tmp_path / "truth.jsonl")
    with pytest.raises(DataError, match=r"q\.txt: file not found"):
        read_text(tmp_path / "q.txt")


def test_repeated_qrels_row_with_another_grade_is_rejected(tmp_path):
    q = tmp_path / "qrels.tsv"
    q.write_text("query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t1\nq1\td1\t1\n", encoding="utf-8")
    with pytest.raises(
        DataError,
        match=r"qrels\.tsv, line 4, field 'score': query 'q1', document 'd1' already graded 2 at line 2, here 1",
    ):
        read_qrels(q)
    q.write_text("q1\td1\t2\nq1\td1\t2\n", encoding="utf-8")  # an exact repeat is harmless
    assert read_qrels(q) == {"q1": {"d1": 2.0}}
