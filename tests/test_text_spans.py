"""Sentence splitting on whole tokens and spans as substrings (issue 9, section 1)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mteb_contrastive.data.corpus import ends_with_abbreviation, sentence_offsets, sentence_span, split_sentences
from mteb_contrastive.data.halvest_builder import sample_triplets


def test_word_ending_like_an_abbreviation_does_not_merge():
    # "stop." ends in "p." (an abbreviation of the list) but is not the token "p."
    assert split_sentences("We had to stop. It was loud.") == ["We had to stop.", "It was loud."]
    assert not ends_with_abbreviation("We had to stop.")
    assert not ends_with_abbreviation("It is in the lab.")  # ends in "b." ... and "tab." is no token here


def test_whole_token_abbreviations_still_merge():
    assert split_sentences("See Smith et al. For details. Done.") == ["See Smith et al. For details.", "Done."]
    assert ends_with_abbreviation("as shown (e.g.")
    assert ends_with_abbreviation("see p.")
    assert ends_with_abbreviation("Some Tab.")


def test_chinese_span_keeps_no_separator():
    text = "我喜欢苹果。你呢？很好！"
    offs = sentence_offsets(text, "zh")
    assert [text[a:b] for a, b in offs] == ["我喜欢苹果。", "你呢？", "很好！"]
    assert sentence_span(text, offs, 0, 2) == "我喜欢苹果。你呢？"
    assert sentence_span(text, offs, 1, 2) == "你呢？很好！"


def test_french_span_keeps_the_source_separators():
    text = "Il est venu.  Elle est partie !\nIl pleut. Fin."
    offs = sentence_offsets(text, "fr")
    assert sentence_span(text, offs, 0, 2) == "Il est venu.  Elle est partie !"
    assert sentence_span(text, offs, 1, 2) == "Elle est partie !\nIl pleut."
    for a in range(len(offs)):
        for k in range(1, len(offs) - a + 1):
            assert sentence_span(text, offs, a, k) in text


def test_sampled_spans_are_substrings_of_their_document():
    zh = "我喜欢苹果。你呢？很好！我们走吧。"
    docs = [
        {"id": "a", "authors": ["甲"], "text": zh, "domains": [], "language": "zh"},
        {"id": "b", "authors": ["甲"], "text": zh[::-1] + "。", "domains": [], "language": "zh"},
        {
            "id": "c",
            "authors": ["乙"],
            "text": "Il est venu.  Elle est partie !\nIl pleut. Fin.",
            "domains": [],
            "language": "fr",
        },
        {"id": "d", "authors": ["乙"], "text": "Un.\nDeux.  Trois.", "domains": [], "language": "fr"},
    ]
    rows, _ = sample_triplets(docs, 2, n_triplets=2, seed=0)
    text_of = {d["id"]: d["text"] for d in docs}
    assert rows
    for r in rows:
        assert r["query"] in text_of[r["query_halid"]]
        assert r["positive"] in text_of[r["pos_halid"]]
        assert r["negative"] in text_of[r["neg_halids"]]
    assert any(
        r["query"] in ("我喜欢苹果。你呢？", "你呢？很好！", "很好！我们走吧。")
        for r in rows
        if r["query_halid"] == "a"
    )


def test_word_pieces_cut_at_word_starts_and_join_back_to_the_text():
    """By hand (jieba: 我 / 喜欢 / 苹果; "。」" a punctuation run): every span starts a piece; with
    words_only the punctuation stays with 苹果. Both join back to the text, nothing inserted."""
    from mteb_contrastive.data.text import word_pieces

    t = "我喜欢苹果。」Hello world"
    assert word_pieces(t) == ["我", "喜欢", "苹果", "。」", "Hello ", "world"]
    assert word_pieces(t, words_only=True) == ["我", "喜欢", "苹果。」", "Hello ", "world"]
    assert "".join(word_pieces(t)) == "".join(word_pieces(t, words_only=True)) == t
    assert word_pieces("") == [] and word_pieces("。」") == ["。」"]


def test_grapheme_starts_keep_combining_marks_with_their_base():
    from mteb_contrastive.data.text import grapheme_floor, grapheme_starts

    assert grapheme_starts("e\u0301te") == [0, 2, 3, 4]  # NFD é is one cluster of two code points
    assert grapheme_starts("สวัสดี") == [0, 1, 3, 4, 6]  # ส | วั | ส | ดี: Thai vowel marks stay on their consonant
    assert grapheme_starts("") == [0]
    assert grapheme_floor("สวัสดี", 2) == 1 and grapheme_floor("สวัสดี", 3) == 3 and grapheme_floor("สวัสดี", 99) == 6


# issue 20: text is cut only between grapheme clusters (a base character keeps its combining marks)
THAI = "กินข้าว"  # ก ิ น ข ้ า ว: the vowel ิ (above) and the tone mark ้ belong to the consonant before them
DEVANAGARI = "किताब我们पढ़ता"  # क ि त ा ब: vowel signs; ढ़ = ढ + nukta (in a token that also holds Han)
NFD = "我们cafe\u0301 re\u0301sume\u0301你好"  # é written e + combining acute


def test_word_spans_keep_thai_devanagari_and_nfd_clusters_whole():
    from mteb_contrastive.data.text import word_spans

    assert [THAI[a:b] for a, b in word_spans(THAI)] == ["กิ", "น", "ข้", "า", "ว"]
    assert [DEVANAGARI[a:b] for a, b in word_spans(DEVANAGARI)] == ["किताब", "我们", "पढ़ता"]
    assert [NFD[a:b] for a, b in word_spans(NFD)] == ["我们", "cafe\u0301", "re\u0301sume\u0301", "你好"]


def test_word_pieces_and_verification_chunks_never_split_a_cluster():
    from mteb_contrastive.data.text import grapheme_starts, word_pieces
    from mteb_contrastive.data.verification_builder import chunk_text

    for text in (THAI, DEVANAGARI, NFD, THAI + " " + THAI):
        pieces = word_pieces(text, words_only=True)
        assert "".join(pieces) == text
        cuts = [len("".join(pieces[:i])) for i in range(len(pieces) + 1)]
        assert set(cuts) <= set(grapheme_starts(text))
    assert chunk_text(THAI + " " + THAI, 3, 1) == ["กินข้", "าว กิ", "นข้า", "ว"]  # 3 clusters per chunk
    assert chunk_text(DEVANAGARI + " हूँ", 2, 1) == ["किताब我们", "पढ़ता हूँ"]
    assert chunk_text(NFD, 2, 1) == ["我们cafe\u0301", "re\u0301sume\u0301你好"]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(["a", " ", "\u0301", "\u200d", "\u0e2a", "\u0e31", "\u4e2d", "\u6587", "\U0001f1e6", "\n"]),
        max_size=40,
    ),
    st.lists(st.integers(-3, 45), max_size=20),
)
def test_grapheme_floors_equal_one_floor_at_a_time(chars, offsets):
    """The floors found with the clusters read once equal the plain definition (the largest cluster
    start <= i, 0 below the text, len(text) beyond it) for every offset, in order."""
    from mteb_contrastive.data.text import grapheme_floors, grapheme_starts

    text = "".join(chars)
    starts = grapheme_starts(text)
    plain = [0 if i <= 0 else len(text) if i >= len(text) else max(s for s in starts if s <= i) for i in offsets]
    assert grapheme_floors(text, offsets) == plain
