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
    mean_of_windows,
    n_windows,
    settings_from,
    split_model_name,
    window_spans,
    window_starts,
)
from mteb_contrastive.encoding.core import token_cuts

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
    ],
)
def test_window_starts_cover_every_token(n, window, stride, starts):
    assert window_starts(n, window, stride) == starts
    assert n_windows(n, window, stride) == len(starts)
    spans = window_spans(n, window, stride)
    assert [a for a, _ in spans] == starts and spans[-1][1] == n
    assert all(a2 <= b1 for (_, b1), (a2, _) in zip(spans, spans[1:]))  # no gap between two windows


def test_a_stride_larger_than_the_window_is_refused_in_one_line():
    # window 4, stride 5 read tokens 1-4 and 6-9: token 5 was never read (issue 20)
    with pytest.raises(ValueError, match=r"stride \(5\) is larger than the window \(4 tokens\)"):
        window_starts(10, 4, 5)
    with pytest.raises(EncodingSettingsError) as e:
        counting_model(None, max_seq_length=6, long_document="mean", stride=5)
    assert str(e.value) == (
        "encoding option stride=5 is larger than the window of 4 tokens (max_seq_length 6 minus 2 special tokens): "
        "the tokens between two windows would never be read; give stride=4 or less"
    )
    assert "\n" not in str(e.value)


def test_two_texts_differing_only_between_windows_get_different_vectors():
    # with stride 5 over windows of 4, the 5th token ("5" / "99") fell between the windows: equal vectors
    a, b = "1 2 3 4 5 6 7 8 9", "1 2 3 4 99 6 7 8 9"
    # stride 4: windows 1-4, 5-8, 9 (weights 4, 4, 1); stride 3: 1-4, 4-7, 7-9 (4, 4, 3); "5" -> "99" adds 94
    # to the sum of ids of the one window that holds it
    for stride, expected in ((4, 4 * 94 / 9), (3, 4 * 94 / 11)):
        model = counting_model(None, max_seq_length=6, long_document="mean", stride=stride)
        emb = encode(model, [a, b])
        assert emb[1, 1] - emb[0, 1] == pytest.approx(expected, rel=1e-6)


def test_a_tiny_last_window_weighs_by_its_tokens():
    # one full window (4 tokens) plus one token: windows [1 2 3 4] and [5]; weights 4 and 1
    model = counting_model(None, max_seq_length=6, long_document="mean")
    emb = encode(model, ["1 2 3 4 5", "1 2 3 4"])
    assert emb[0, :3].tolist() == pytest.approx([(4 * 4 + 1 * 1) / 5, (4 * 10 + 1 * 5) / 5, 1.0])
    assert emb[0, :3].tolist() != pytest.approx([(4 + 1) / 2, (10 + 5) / 2, 1.0])  # not the unweighted mean
    assert emb[1, :3].tolist() == [4, 10, 1]


def test_windows_never_cut_a_grapheme():
    # token i may start a window only where cuts[i]: a cut inside a cluster moves back to its first token
    cuts = [True, True, True, False, True, True, True, True]  # token 3 is a combining mark of token 2
    assert window_spans(8, 3, 3, cuts) == [(0, 2), (2, 5), (5, 8)]
    assert window_spans(8, 4, 2, cuts) == [(0, 4), (2, 6), (4, 8)]
    assert window_spans(4, 2, 2, [True, False, False, False]) == [(0, 2), (2, 4)]  # one cluster longer than a step
    # the three scripts of the issue, with the offsets of a word-piece tokenizer
    deva = "किताब"  # क ि त ा ब: two vowel signs
    assert token_cuts(deva, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]) == [True, False, True, False, True]
    thai = "กิน"  # ก + ิ (vowel above) + น
    assert token_cuts(thai, [(0, 1), (1, 2), (2, 3)]) == [True, False, True]
    nfd = "e\u0301te"  # é in NFD: e + combining acute
    assert token_cuts(nfd, [(0, 1), (1, 2), (2, 3), (3, 4)]) == [True, False, True, True]


def test_mean_of_windows_keeps_clusters_whole():
    seen = []

    def enc(windows):
        seen.extend(windows)
        return np.asarray([[len(w), float(sum(w))] for w in windows])

    emb, counts = mean_of_windows([[1, 2, 3, 4, 5]], 2, 2, enc, cuts=[[True, True, False, True, True]])
    assert seen == [[1], [2, 3], [4, 5]] and counts == [3]  # not [1, 2], [3, 4], [5]
    assert emb[0].tolist() == pytest.approx([(1 + 4 + 4) / 5, (1 + 2 * 5 + 2 * 9) / 5])


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
def test_long_document_mode_is_the_token_weighted_mean_of_window_embeddings(stride, sums, lens):
    model = counting_model(None, max_seq_length=6, long_document="mean", stride=stride)
    emb = encode(model, [SHORT, EXACT, LONG])
    w = np.asarray(lens, dtype=float)  # each window weighs its number of tokens
    assert emb[2, :3] == pytest.approx([np.average(lens, weights=w), np.average(sums, weights=w), 1.0])
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
