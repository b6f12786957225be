"""The encoding statistics' token counts (encoding/core.token_counts): the lengths of token_ids, whatever the
texts and the threads, the model's own tokenizer left as it was, a slow tokenizer counted the plain way."""

from __future__ import annotations

import gzip
import json
from itertools import islice
from types import SimpleNamespace

import pytest
from conftest import SHARED, bundled_minilm_path
from hypothesis import given, settings
from hypothesis import strategies as st

from mteb_contrastive.encoding import core as core_module
from mteb_contrastive.encoding.core import SentenceTransformerCore


@pytest.fixture(scope="module")
def core():
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(bundled_minilm_path())
    return SentenceTransformerCore(SimpleNamespace(model=SimpleNamespace(tokenizer=tok)))


def _lengths(core, texts):
    return [len(ids) for ids in core.token_ids(texts)]


def _real_texts() -> list[str]:
    out = []
    with gzip.open(SHARED / "pan" / "pan14_known.jsonl.gz", "rt", encoding="utf-8") as f:
        out += [json.loads(line)["text"] for line in islice(f, 120)]
    with gzip.open(SHARED / "taln" / "articles.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in islice(f, 200):
            row = json.loads(line)
            out += [v for v in row.values() if isinstance(v, str) and len(v) > 40][:2]
    return out


def test_real_texts_in_one_thread_and_in_several(core, monkeypatch):
    texts = _real_texts()
    assert len(texts) > 300 and max(len(t) for t in texts) > 5000
    expected = _lengths(core, texts)
    assert max(expected) > 1000, "texts longer than the model's 256 tokens are counted whole"
    monkeypatch.setattr(core_module, "COUNT_MIN_SLICE", 10**9)
    assert core.token_counts(texts) == expected  # one thread
    monkeypatch.setattr(core_module, "COUNT_MIN_SLICE", 7)
    monkeypatch.setattr(core_module, "_cores", lambda: 4)
    assert core.token_counts(texts) == expected  # four threads, slices of consecutive texts
    assert core.token_counts([]) == [] and core.token_counts(texts[:1]) == expected[:1]


@settings(max_examples=60, deadline=None)
@given(
    texts=st.lists(
        st.text(max_size=300) | st.sampled_from(["", " ", "\n\t", "naïve café", "e\u0301", "日本語の文", "👍🏽x"]),
        max_size=40,
    ),
    slice_size=st.integers(1, 50),
)
def test_any_texts_are_counted_as_token_ids_are(core, texts, slice_size):
    original = core_module.COUNT_MIN_SLICE
    core_module.COUNT_MIN_SLICE = slice_size
    try:
        assert core.token_counts(texts) == _lengths(core, texts)
    finally:
        core_module.COUNT_MIN_SLICE = original


def test_the_models_tokenizer_keeps_its_truncation(core):
    tok = core.tokenizer
    long = "word " * 400
    before = tok([long], truncation=True, max_length=16)["input_ids"]
    assert len(before[0]) == 16
    setting = tok.backend_tokenizer.truncation
    assert core.token_counts([long] * 3) == [400] * 3
    assert tok.backend_tokenizer.truncation == setting
    assert tok([long], truncation=True, max_length=16)["input_ids"] == before


def test_special_token_text_is_counted_as_the_tokenizer_splits_it():
    from transformers import AutoTokenizer

    texts = ["a [CLS] b [SEP] [MASK] c", "[PAD][UNK]", "plain"]
    for split in (False, True):
        tok = AutoTokenizer.from_pretrained(bundled_minilm_path(), split_special_tokens=split)
        c = SentenceTransformerCore(SimpleNamespace(model=SimpleNamespace(tokenizer=tok)))
        assert c.token_counts(texts) == _lengths(c, texts)
    assert _lengths(c, texts)[1] > 2, "split: the special tokens' text is word pieces"


def test_a_slow_tokenizer_is_counted_by_its_token_ids():
    class Slow:
        is_fast = False

        def __call__(self, texts, add_special_tokens=True, **kwargs):
            ids = [[7] * len(t.split()) for t in ([texts] if isinstance(texts, str) else texts)]
            if add_special_tokens:
                ids = [[1, *x, 2] for x in ids]
            return {"input_ids": ids[0] if isinstance(texts, str) else ids}

    slow = SentenceTransformerCore(SimpleNamespace(model=SimpleNamespace(tokenizer=Slow())))
    assert slow.n_special == 2
    assert slow.token_counts(["a b c", "", "one"]) == [3, 0, 1]
