"""TALN corpus views: body offsets (no byline, no references), languages, counts."""

import gzip
import json

import pytest

from mteb_contrastive.data.errors import DataError
from mteb_contrastive.data.taln import taln_corpus


def test_fulltext_uses_body_between_offsets(shared):
    path = shared / "taln" / "articles.jsonl.gz"
    rows, counts = taln_corpus(path, "fulltext-fr")
    assert counts["papers"] == 1483 and counts["kept"] == len(rows) == 1269  # text_lang fr with a body
    papers = {p["id"]: p for p in map(json.loads, gzip.open(path, "rt", encoding="utf-8"))}
    for r in rows[:50]:
        p = papers[r["id"]]
        assert r["text"] == p["text"][p["body_offset"] : p["refs_offset"]]
        assert r["authors"] == p["authors"] and r["language"] == "fr"


def test_abstract_view_and_unknown_view(shared):
    rows, counts = taln_corpus(shared / "taln" / "articles.jsonl.gz", "abstract-en")
    assert counts["kept"] == 1280 and all(r["language"] == "en" for r in rows)
    with pytest.raises(DataError, match="unknown TALN view 'abstract-de'"):
        taln_corpus(shared / "taln" / "articles.jsonl.gz", "abstract-de")
