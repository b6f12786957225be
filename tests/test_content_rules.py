"""Content rules, once (issue 26, kind 5): the duplicate-text rule in every builder, text identity in
scripts written without spaces, and topics compared as case-folded sets of NFC values everywhere."""

from __future__ import annotations

import json
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mteb_contrastive.cli.main import main
from mteb_contrastive.data.attribution_builder import apply_text_rule, build_attribution_dataset, classify_rows
from mteb_contrastive.data.content import content_key, overlapping_texts, shares_topic, topic_set
from mteb_contrastive.data.corpus import normalise_topics
from mteb_contrastive.data.errors import DataError, LineRows
from mteb_contrastive.data.verification_builder import sample_split_pairs, topic_value
from mteb_contrastive.metrics.content import topic_controlled_pairs

PROSE = "Café au lait. Some years ago, never mind how long precisely, having little money in my purse. "


def _rows(texts_by_author):
    rows = [{"id": f"t{i}", "author": a, "text": t, "language": "en"} for i, (a, t) in enumerate(texts_by_author)]
    return LineRows(rows, [i + 1 for i in range(len(rows))])


# --- build-attribution: the duplicate-text rule ------------------------------------------------------------


def test_attribution_keeps_a_copy_under_the_same_author_once(tmp_path):
    """The issue's example: an NFD copy with doubled spaces under the same author was kept, so
    leave-one-text-out compared the held-out text with itself."""
    a1 = PROSE * 6
    copy = unicodedata.normalize("NFD", a1).replace(" ", "  ")
    assert copy != a1 and content_key(copy) == content_key(a1)
    rows = _rows(
        [
            ("Melville", a1),
            ("Melville", "Call me Ishmael. " * 40),
            ("Melville", copy),
            ("Austen", "It is a truth. " * 40),
        ]
        + [("Austen", "Universally acknowledged. " * 40)]
    )
    folder = build_attribution_dataset(rows, tmp_path, "Att", chunk_words=20)
    texts = [json.loads(x) for x in (folder / "texts.jsonl").read_text().splitlines()]
    assert [t["id"] for t in texts] == ["t0", "t1", "t3", "t4"]
    info = json.loads((folder / "mteb_contrastive.json").read_text())
    assert info["duplicates"]["rows_dropped"] == 1 and info["counts"]["known_texts"] == 4


def test_attribution_refuses_one_text_under_two_authors(tmp_path, capsys):
    rows = [
        {"id": "a", "author": "Melville", "text": PROSE * 6},
        {"id": "b", "author": "Melville", "text": "Call me Ishmael. " * 40},
        {"id": "c", "author": "Austen", "text": "It is a truth. " * 40},
        {"id": "d", "author": "Austen", "text": unicodedata.normalize("NFD", PROSE * 6)},
        {"id": "e", "author": "Dickens", "text": "It was the best of times. " * 40},
        {"id": "f", "author": "Dickens", "text": "It was the worst of times. " * 40},
    ]
    f = tmp_path / "c.jsonl"
    f.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    argv = ["build-attribution", str(f), "--name", "Att", "--out", str(tmp_path / "o"), "--language", "en"]
    assert main([*argv, "--chunk-words", "20"]) == 2
    err = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert len(err) == 1 and f"{f}, line 4, field 'text'" in err[0]
    assert "'Melville' (line 1, id 'a')" in err[0] and "'Austen'" in err[0] and "--duplicates collapse" in err[0]
    assert not (tmp_path / "o" / "Att").exists()
    # collapsed like the other builders: the two labels are one author, the text kept once
    assert main([*argv, "--chunk-words", "20", "--duplicates", "collapse"]) == 0
    texts = [json.loads(x) for x in (tmp_path / "o" / "Att" / "texts.jsonl").read_text().splitlines()]
    assert [(t["id"], t["author"]) for t in texts] == [
        ("a", "Austen"),
        ("b", "Austen"),
        ("c", "Austen"),
        ("e", "Dickens"),
        ("f", "Dickens"),
    ]


def test_attribution_refuses_a_questioned_copy_of_a_known_text():
    rows = _rows([("A", PROSE), ("A", "Other text here."), ("B", "Third text."), (None, PROSE.replace(" ", "\n"))])
    texts = classify_rows(rows, "c.jsonl")
    with pytest.raises(DataError, match=r"c.jsonl, line 4, field 'text': questioned text 't3' is a copy"):
        apply_text_rule(texts, rows, "refuse", "c.jsonl")
    kept, report = apply_text_rule(texts, rows, "collapse", "c.jsonl")
    assert [t["id"] for t in kept] == ["t0", "t1", "t2"] and report["rows_dropped"] == 1


# --- text identity in scripts written without spaces --------------------------------------------------------

ZH = "天地玄黄，宇宙洪荒。日月盈昃，辰宿列张。寒来暑往，秋收冬藏。闰余成岁，律吕调阳。云腾致雨，露结为霜。"


def test_a_hard_wrapped_chinese_copy_is_the_same_content():
    """The issue's example: a line break inside Chinese text became a space, so a hard-wrapped copy of a
    test text escaped ``train --holdout``."""
    wrapped = "\n".join(ZH[i : i + 7] for i in range(0, len(ZH), 7))
    assert content_key(wrapped) == content_key(ZH)
    assert content_key("日本語の\n文章です") == content_key("日本語の文章です")
    assert overlapping_texts([ZH], ["序。" + wrapped + "\n跋。"]) == {content_key(ZH)}
    from mteb_contrastive.cli.train import remove_overlap
    from mteb_contrastive.training.data import TrainingDataError

    held_out = {"test": [{"pair": [ZH, "另一段文字。"]}]}
    with pytest.raises(TrainingDataError, match="1 of the 1 test pairs hold a text found inside the training"):
        remove_overlap([{"text": "前言。" + wrapped}], held_out, "holdout", drop=False)


def test_spaces_between_words_of_spaced_scripts_still_count():
    assert content_key("ab cd") != content_key("abcd")
    assert content_key("über  alles\n") == content_key(unicodedata.normalize("NFD", "über alles"))


LATIN_WORDS = st.text(alphabet="abcdeéüñøß", min_size=1, max_size=6)
UNSPACED = "天地玄黄宇宙洪荒日月のをかなカタกขค，。"
UNSPACED_RUNS = st.text(alphabet=UNSPACED, min_size=1, max_size=6)
SPACES = st.sampled_from([" ", "  ", "\n", "\t", " \n ", "\u3000", "\r\n", "\u00a0"])


@settings(max_examples=200, deadline=None)
@given(
    tokens=st.lists(st.one_of(LATIN_WORDS, UNSPACED_RUNS), min_size=1, max_size=8),
    data=st.data(),
)
def test_generated_whitespace_and_normal_form_variants_are_one_content(tokens, data):
    text = " ".join(tokens)
    variant = ""
    for i, tok in enumerate(tokens):
        if i:
            variant += data.draw(SPACES)
        # inside a run of an unsegmented script, a line break (a hard wrap) may fall anywhere
        if tok[0] in UNSPACED and len(tok) > 1:
            cut = data.draw(st.integers(1, len(tok) - 1))
            tok = tok[:cut] + data.draw(st.sampled_from(["\n", "\r\n", " "])) + tok[cut:]
        variant += tok
    variant = unicodedata.normalize(data.draw(st.sampled_from(["NFC", "NFD"])), variant)
    assert content_key(variant) == content_key(text)
    # and the key of a text holds no whitespace beside a character of an unsegmented script
    assert content_key(content_key(text)) == content_key(text)


@settings(max_examples=60, deadline=None)
@given(
    texts=st.lists(st.sampled_from(["alpha beta gamma.", "delta epsilon.", "zeta eta theta."]), min_size=2, max_size=8),
    authors=st.lists(st.sampled_from(["A", "B", "C"]), min_size=8, max_size=8),
    forms=st.lists(st.sampled_from(["NFC", "NFD"]), min_size=8, max_size=8),
    doubled=st.lists(st.booleans(), min_size=8, max_size=8),
)
def test_generated_attribution_copies(texts, authors, forms, doubled):
    raw = [
        (authors[i], unicodedata.normalize(forms[i], t.replace(" ", "  ") if doubled[i] else t))
        for i, t in enumerate(texts)
    ]
    rows = _rows(raw)
    classified = classify_rows(rows, "c.jsonl")
    owners: dict[str, set] = {}
    for a, t in raw:
        owners.setdefault(content_key(t), set()).add(a)
    if any(len(v) > 1 for v in owners.values()):
        with pytest.raises(DataError, match="filed under author"):
            apply_text_rule(classified, rows, "refuse", "c.jsonl")
        kept, _ = apply_text_rule(classified, rows, "collapse", "c.jsonl")
    else:
        kept, report = apply_text_rule(classified, rows, "refuse", "c.jsonl")
        assert report["rows_dropped"] == len(raw) - len(owners)
    keys = [(t["author"], content_key(t["text"])) for t in kept]
    assert len(keys) == len(set(keys))  # no author keeps a copy of its own text
    assert {k for _, k in keys} == set(owners)  # every text is still there
    by_text: dict[str, set] = {}
    for a, k in keys:
        by_text.setdefault(k, set()).add(a)
    assert all(len(v) == 1 for v in by_text.values())  # one text, one author


# --- topics: case-folded sets of NFC values everywhere ------------------------------------------------------


def test_topics_are_case_folded_sets():
    """The issue's examples: ``parsing`` vs ``Parsing`` and ``syntax|treebanks`` vs ``corpora|treebanks``
    were different topics for the verification builder and the metrics."""
    assert shares_topic("parsing", "Parsing")
    assert shares_topic("syntax|treebanks", "corpora|treebanks")
    assert shares_topic(["Syntax", "Treebanks"], "corpora|treebanks")
    assert not shares_topic("syntax", "semantics") and not shares_topic("", "")
    assert topic_set(topic_value(["Treebanks", "syntax"])) == topic_set("SYNTAX|treebanks") == {"syntax", "treebanks"}
    assert normalise_topics("Syntax|Treebanks") == ["syntax", "treebanks"]
    assert list(
        topic_controlled_pairs(
            [1, 0, 1, 0], ["parsing", "syntax|treebanks", "a", "a"], ["Parsing", "corpora|treebanks", "b", "b"]
        )
    ) == [False, True, True, False]  # noqa: E501


def test_verification_topic_controlled_pairs_share_no_topic_for_positives():
    docs, chunks = [], {}
    topics = ["Parsing", "parsing", "syntax|treebanks", "corpora|treebanks", "semantics", "Semantics|Syntax"]
    for a in range(4):
        for w, t in enumerate(topics):
            did = f"a{a}w{w}"
            docs.append({"id": did, "author": f"A{a}", "topic": topic_value(t), "group": ""})
            chunks[did] = [f"text of {did} number {c}" for c in range(3)]
    rows, counts = sample_split_pairs(
        docs, chunks, "test", name="T", pairs_per_author=6, positive_ratio=0.5, seed=0, topic=True
    )
    assert counts["same_author"] > 0 and counts["different_author"] > 0
    for r in rows:
        t1, t2 = r["fandoms"]
        assert shares_topic(t1, t2) != r["same"], r  # positives on no shared topic, negatives on a shared one


TOPIC_WORDS = st.sampled_from(["Parsing", "parsing", "PARSING", "Syntax", "treebanks", "Café", "cafe\u0301", "NLP"])


@settings(max_examples=200, deadline=None)
@given(a=st.lists(TOPIC_WORDS, max_size=3), b=st.lists(TOPIC_WORDS, max_size=3), joined=st.booleans())
def test_generated_topic_sets(a, b, joined):
    def fold(xs):
        return {unicodedata.normalize("NFC", x).casefold() for x in xs}

    va, vb = ("|".join(a), "|".join(b)) if joined else (a, b)
    assert topic_set(va) == fold(a)
    assert shares_topic(va, vb) == bool(fold(a) & fold(b)) == shares_topic(vb, va)
    # every place reads topics the same way: the triplet builder's, the verification builder's, the metric's
    assert normalise_topics(list(a)) == sorted(topic_set(va))
    assert topic_set(topic_value(va)) == topic_set(va)
    same = bool(fold(a) & fold(b))
    assert list(topic_controlled_pairs([1, 0], [va, va], [vb, vb])) == [not same, same]
