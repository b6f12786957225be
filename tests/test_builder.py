"""The HALvest-format builder: the paper's sampler rules, determinism, bad input, atomic output."""

from __future__ import annotations

import json

import pytest

from mteb_contrastive.data.corpus import read_corpus, split_sentences
from mteb_contrastive.data.errors import DataError
from mteb_contrastive.data.halvest_builder import build_halvest_dataset, sample_triplets

S = " ".join(f"Sentence number {i} is here." for i in range(10))


def doc(i, authors, domains=(), text=None):
    return {
        "id": f"d{i}",
        "authors": list(authors),
        "text": text or f"{S} Document {i} ends.",  # one text per document: a shared text is refused
        "domains": list(domains),
        "year": 2000 + i,
        "language": "en",
    }


DOCS = [
    doc(0, ["A", "B"]),
    doc(1, ["B", "A"]),  # same author set (order ignored): partners
    doc(2, ["A"]),  # shares A but no identical set: no positive
    doc(3, ["C"]),
    doc(4, ["C"]),
    doc(5, ["D"]),  # alone
]


def test_sampler_rules_and_counts():
    rows, counts = sample_triplets(DOCS, 2, n_triplets=2, seed=1)
    assert counts == {
        "documents": 6,
        "skipped_no_positive": 2,
        "skipped_no_negative": 0,
        "query_documents": 4,
        "triplets": 16,
    }
    for r in rows:
        assert set(r["pos_authorids"]) == set(r["query_authorids"]) and r["pos_halid"] != r["query_halid"]
        assert not set(r["neg_authorids"]) & set(r["query_authorids"])
        assert r["query"].count(".") == 2 and r["query"] in f"{S} Document {r['query_halid'][1:]} ends."  # 2 contiguous
    # d0's negatives may not be d2 (shares author A)
    assert not any(r["query_halid"] == "d0" and r["neg_halids"] == "d2" for r in rows)


def test_negatives_restricted_to_same_domain_set():
    docs = [
        doc(0, ["A"], ["x"]),
        doc(1, ["A"], ["x"]),
        doc(2, ["B"], ["y"]),
        doc(3, ["C"], ["x"]),
        doc(4, ["B"], ["y"]),
    ]
    rows, counts = sample_triplets(docs, 1, n_triplets=3, seed=0)
    assert {r["neg_halids"] for r in rows if r["query_halid"] in ("d0", "d1")} == {"d3"}
    assert counts["skipped_no_negative"] == 2  # d2/d4 (domain y): no author-disjoint doc with domains {y}


def test_deterministic_and_short_document_used_whole():
    docs = [doc(0, ["A"], text="One. Two."), doc(1, ["A"]), doc(2, ["B"])]
    a, _ = sample_triplets(docs, 4, seed=7)
    b, _ = sample_triplets(docs, 4, seed=7)
    c, _ = sample_triplets(docs, 4, seed=8)
    assert a == b and a != c
    assert {r["query"] for r in a if r["query_halid"] == "d0"} == {"One. Two."}


def test_merge_triggers_keep_abbreviations_inside_sentences():
    assert split_sentences("See Smith et al. For details. Done.", "en") == ["See Smith et al. For details.", "Done."]


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.parametrize(
    "rows, match",
    [
        (
            [{"id": 1, "authors": ["A"], "text": "ok"}, {"id": 2, "authors": ["A"], "text": "  "}],
            r"line 2, field 'text': expected the text as a non-empty string, found a string of only whitespace",
        ),
        ([{"id": 1, "authors": [], "text": "ok"}], r"line 1, field 'authors': empty author set"),
        (
            [{"id": 1, "authors": ["A"], "text": "a"}, {"id": 1, "authors": ["B"], "text": "b"}],
            r"line 2, field 'id': duplicate id '1' \(first at line 1\)",
        ),
        ([{"id": 1, "text": "a"}], r"line 1, field 'authors': missing; give every row an 'authors'"),
    ],
)
def test_bad_corpus_rows(tmp_path, rows, match):
    f = write_jsonl(tmp_path / "c.jsonl", rows)
    with pytest.raises(DataError, match=match) as e:
        read_corpus(f)
    assert str(f) in str(e.value)


def test_not_jsonl(tmp_path):
    f = tmp_path / "c.jsonl"
    f.write_text('{"id": 1, "authors": ["A"], "text": "a"}\nid,authors,text\n')
    with pytest.raises(DataError, match=r"c.jsonl, line 2: not JSON: "):
        read_corpus(f)


def test_folder_written_whole_or_not_at_all(tmp_path):
    out = build_halvest_dataset(DOCS, tmp_path, "Toy", ks=(2,), seed=0, source="toy")
    info = json.loads((out / "mteb_contrastive.json").read_text())
    assert info["configs"]["base-2"]["triplets"] == 16 and (out / "base-2" / "test.parquet").is_file()
    assert "| base-2 | 6 | 2 | 0 | 4 | 16 |" in (out / "README.md").read_text()
    # a failing build (no partner anywhere) leaves the old folder untouched and no temp folder
    with pytest.raises(DataError, match="no triplet could be sampled"):
        build_halvest_dataset([doc(0, ["A"]), doc(1, ["B"])], tmp_path, "Toy", ks=(2,))
    assert json.loads((out / "mteb_contrastive.json").read_text()) == info
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Toy"]
