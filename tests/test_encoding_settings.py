"""Truncation statistics, long-document windows and encoding options, on hand-checkable inputs
(a whitespace tokenizer with 2 special tokens, vectors [len(ids), sum(ids), 1, ...])."""

from __future__ import annotations

import mteb
import numpy as np
import pytest
from encoding_fakes import counting_model
from test_author_retrieval import make_task, row

from mteb_contrastive.encoding import (
    EncodingSettings,
    EncodingSettingsError,
    n_windows,
    settings_from,
    split_model_name,
    window_starts,
)

SHORT, EXACT, LONG = "a b", "1 2 3 4", "1 2 3 4 5 6 7 8 9 10"  # 4, 6 and 12 tokens with [CLS] [SEP]
ROWS = [row(SHORT, EXACT, LONG)]


def encode(model, texts, name="EncStats"):
    task = make_task("triplet", ROWS, name)
    return model.encode([{"text": texts}], task_metadata=task.metadata, hf_split="test", hf_subset="default")


@pytest.mark.parametrize(
    "n, window, stride, starts",
    [
        (0, 4, 4, [0]),
        (3, 4, 4, [0]),
        (4, 4, 4, [0]),
        (5, 4, 4, [0, 4]),
        (10, 4, 4, [0, 4, 8]),
        (10, 4, 2, [0, 2, 4, 6]),
        (10, 4, 3, [0, 3, 6]),
        (10, 4, 5, [0, 5, 10]),
    ],
)
def test_window_starts_cover_every_token(n, window, stride, starts):
    assert window_starts(n, window, stride) == starts
    assert n_windows(n, window, stride) == len(starts)


def test_truncating_mode_keeps_the_first_tokens_and_counts_truncated_texts():
    model = counting_model(None, max_seq_length=6)  # 4 content tokens per pass
    emb = encode(model, [SHORT, EXACT, LONG])
    assert emb[0, :3].tolist() == [2, ord("a") + ord("b"), 1]
    assert emb[1, :3].tolist() == [4, 10, 1]  # fits exactly: 4 + 2 = 6 tokens
    assert emb[2, :3].tolist() == [4, 10, 1]  # cut after "4"
    s = model.encoding_scores("EncStats", "test", "default")
    assert s["encoding_n_texts"] == 3
    assert s["encoding_tokens_mean"] == pytest.approx((4 + 6 + 12) / 3)
    assert s["encoding_tokens_max"] == 12
    assert s["encoding_truncated_share"] == pytest.approx(1 / 3) == s["encoding_over_limit_share"]
    assert (s["encoding_windows_mean"], s["encoding_max_seq_length"], s["encoding_long_document"]) == (1.0, 6, "off")


@pytest.mark.parametrize(
    "stride, sums, lens",
    [
        (None, [10, 26, 19], [4, 4, 2]),  # windows 1-4, 5-8, 9-10
        (2, [10, 18, 26, 34], [4, 4, 4, 4]),  # windows 1-4, 3-6, 5-8, 7-10
    ],
)
def test_long_document_mode_is_the_mean_of_window_embeddings(stride, sums, lens):
    model = counting_model(None, max_seq_length=6, long_document="mean", stride=stride)
    emb = encode(model, [SHORT, EXACT, LONG])
    assert emb[2, :3] == pytest.approx([np.mean(lens), np.mean(sums), 1.0])
    assert emb[1, :3].tolist() == [4, 10, 1]  # one window: as without the mode
    s = model.encoding_scores("EncStats", "test", "default")
    assert s["encoding_windows_mean"] == pytest.approx((1 + 1 + len(sums)) / 3)
    assert s["encoding_truncated_share"] == 0.0 and s["encoding_over_limit_share"] == pytest.approx(1 / 3)
    assert (s["encoding_long_document"], s["encoding_stride"]) == ("mean", stride or 4)


def test_statistics_reach_the_result_of_every_subset():
    model = counting_model(None, max_seq_length=6)
    res = mteb.evaluate(
        model,
        make_task("triplet", ROWS, "EncStatsResult"),
        cache=None,
        overwrite_strategy="always",
        show_progress_bar=False,
    )
    s = res.task_results[0].scores["test"][0]
    assert (s["encoding_n_texts"], s["encoding_tokens_max"], s["encoding_truncated_share"]) == (
        3,
        12,
        pytest.approx(1 / 3),
    )


def test_name_suffix_and_keyword_options_parse_to_one_settings_object():
    base, opts = split_model_name(
        "org/model::max_seq_length=512, long_document=mean,stride=128,precision=bf16,backend=onnx,cache=off"
    )
    assert base == "org/model"
    s = settings_from(opts)
    assert s == EncodingSettings(
        max_seq_length=512, long_document="mean", stride=128, precision="bf16", backend="onnx", cache=False
    )
    assert s == settings_from(
        dict(max_seq_length=512, long_document="mean", stride=128, precision="bf16", backend="onnx", cache=False)
    )
    assert s.revision_tag(256) == "msl512-long-s128-bf16-onnx"
    assert EncodingSettings(max_seq_length=256).revision_tag(256) == ""  # the model's own limit: same embeddings
    assert settings_from({}, env={"MTEB_CONTRASTIVE_EMBEDDING_CACHE": "off"}).cache is False


@pytest.mark.parametrize(
    "name, message",
    [
        ("m::max_seq_len=5", "unknown encoding option 'max_seq_len'"),
        ("m::max_seq_length=abc", "max_seq_length='abc': give an integer"),
        ("m::max_seq_length=4", "max_seq_length=4: give an integer >= 8"),
        ("m::precision=fp16", "precision='fp16': choose one of fp32, bf16, int8"),
        ("m::precision=int8,backend=onnx", "precision=int8 is torch dynamic quantisation: use it with backend=torch"),
        ("m::stride=64", "stride is only used with long_document=mean"),
        ("m::long_document", "option 'long_document' is not key=value"),
    ],
)
def test_bad_options_name_the_option_and_the_fix(name, message):
    with pytest.raises(EncodingSettingsError, match=message.replace("(", r"\(").replace("[", r"\[")):
        settings_from(split_model_name(name)[1])


def test_options_for_a_model_that_is_not_sentence_transformers_are_refused():
    with pytest.raises(EncodingSettingsError, match="apply to sentence-transformers models only"):
        mteb.get_model_meta("mteb/baseline-bm25s::max_seq_length=512")
