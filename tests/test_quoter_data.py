"""QuoteR line files: pool, splits, query format, bad input; counts of the real shared files."""

import random
from pathlib import Path

import pytest

from mteb_contrastive.data.errors import DataError
from mteb_contrastive.data.quoter import (
    QueryFormat,
    build_retrieval_data,
    read_quoter_file,
    split_by_boundaries,
    split_by_proportions,
)

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "quoter"

LINES = [
    "Left zero\tQuote A\tright zero",
    "left one\tQuote B\tRight one",
    "left two\tquote a\tright two",  # same as line 0 once lower-cased (English)
    "\tQuote C\tright three",  # empty left context
    "left four\tQuote D\t",  # empty right context
    "left five\tQuote B\tright five",  # exact duplicate of line 1
    "left six\tQuote E\tright six",
    "left seven\tQuote F\tright seven",
    "left eight\tQuote C\tright eight",
    "left nine\tQuote G\tright nine",
]


def _write(tmp_path, lines, name="small.txt"):
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def test_pool_and_official_split(tmp_path):
    p = _write(tmp_path, LINES)
    ex = read_quoter_file(p)
    assert len(ex) == 10 and ex[3].left == "" and ex[4].right == ""
    splits = split_by_boundaries(ex, 6, 8, source=p)
    assert [e.line for e in splits["train"]] == [0, 1, 2, 3, 4, 5]
    assert [e.line for e in splits["valid"]] == [6, 7]
    assert [e.line for e in splits["test"]] == [8, 9]
    data, stats = build_retrieval_data(ex, splits, QueryFormat(language="en"), "test")
    # pool: every distinct lower-cased quote of the WHOLE file, first-appearance order
    assert [c["text"] for c in data["corpus"]] == [
        "quote a",
        "quote b",
        "quote c",
        "quote d",
        "quote e",
        "quote f",
        "quote g",
    ]
    assert [c["id"] for c in data["corpus"]] == [f"c{i}" for i in range(7)]
    # the official query: left + "[MASK]" + right, nothing added (thunlp/QuoteR english_train_test.py line 68)
    assert data["queries"] == [
        {"id": "q8", "text": "left eight[MASK]right eight"},
        {"id": "q9", "text": "left nine[MASK]right nine"},
    ]
    assert data["qrels"] == {"q8": {"c2": 1}, "q9": {"c6": 1}}  # line 8's quote C is the candidate of line 3
    assert stats == {"n_lines": 10, "n_train": 6, "n_valid": 2, "n_test": 2, "pool_size": 7, "n_queries": 2}


def test_query_format_options():
    en = QueryFormat(language="en")
    assert en.query("The Left", "The Right") == "the left[MASK]the right"
    assert en.query("The Left ", " The Right") == "the left [MASK] the right"  # spaces in the file stay
    assert en.query("", "Right") == "[MASK]right"
    assert QueryFormat(language="en", use_right_context=False).query("A", "B") == "a[MASK]"
    assert QueryFormat(language="en", mask_marker="<q>").query("A", "B") == "a<q>b"
    zh = QueryFormat(language="zh")
    assert zh.query("他今天很早就到了，", "。") == "他今天很早就到了，[MASK]。"
    assert zh.quote("ABC马到成功") == "ABC马到成功"  # Chinese is not lower-cased
    assert QueryFormat(language="en", lowercase=False).quote("Quote") == "Quote"


def test_chinese_pool_keeps_case(tmp_path):
    p = _write(tmp_path, ["左\tQuote A\t右", "左\tquote a\t右", "左二\t马到成功\t。"])
    ex = read_quoter_file(p)
    data, _ = build_retrieval_data(ex, split_by_boundaries(ex, 1, 2, source=p), QueryFormat(language="zh"), "test")
    assert [c["text"] for c in data["corpus"]] == ["Quote A", "quote a", "马到成功"]
    assert data["queries"] == [{"id": "q2", "text": "左二[MASK]。"}]


def test_fields_kept_as_the_official_reader_keeps_them(tmp_path):
    # official: line.strip().lower().split('\t') -> only the line's two ends are stripped
    p = _write(tmp_path, ["  Left A \t Quote \t Right A  ", "\tQ2\t", "l\tq3\tr\r"])
    ex = read_quoter_file(p)
    assert (ex[0].left, ex[0].quote, ex[0].right) == ("Left A ", " Quote ", " Right A")
    assert (ex[1].left, ex[1].quote, ex[1].right) == ("", "Q2", "")  # empty contexts keep their tabs
    assert ex[2].right == "r"  # a CRLF line end is not part of the right context
    assert QueryFormat(language="en").query(ex[0].left, ex[0].right) == "left a [MASK] right a"


def test_proportion_split_is_the_documented_shuffle(tmp_path):
    p = _write(tmp_path, LINES)
    ex = read_quoter_file(p)
    s = split_by_proportions(ex, (0.8, 0.9), seed=20240611, source=p)
    order = list(range(10))
    random.Random(20240611).shuffle(order)
    assert [e.line for e in s["train"]] == order[:8]
    assert [e.line for e in s["valid"]] == order[8:9]
    assert [e.line for e in s["test"]] == order[9:]
    lo = split_by_proportions(ex, (0.8, 0.9), source=p, shuffle=False)  # line order, same cut points
    assert [e.line for e in lo["train"]] == list(range(8)) and [e.line for e in lo["test"]] == [9]


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("only one\ttab", "expected 3 tab-separated fields"),
        ("a\tb\tc\td", "found 4"),
        ("no tab at all", "found 1"),
        ("left\t  \tright", "empty quote"),
    ],
)
def test_bad_lines_name_file_and_line(tmp_path, line, needle):
    p = _write(tmp_path, ["l\tq\tr", "l\tq2\tr", line, "l\tq3\tr"], name="bad.txt")
    with pytest.raises(DataError) as e:
        read_quoter_file(p)
    msg = str(e.value)
    assert msg.startswith(f"{p}, line 3") and needle in msg
    assert e.value.line == 3


def test_not_utf8_names_file_and_line(tmp_path):
    p = tmp_path / "latin1.txt"
    p.write_bytes("l\tq\tr\nl\tcaf\u00e9\tr\n".encode("latin-1"))
    with pytest.raises(DataError) as e:
        read_quoter_file(p)
    assert str(e.value).startswith(f"{p}, line 2: not UTF-8") and e.value.line == 2


def test_boundary_past_end(tmp_path):
    p = _write(tmp_path, LINES[:5], name="short.txt")
    ex = read_quoter_file(p)
    with pytest.raises(DataError) as e:
        split_by_boundaries(ex, 3, 101171, source=p)
    assert "short.txt" in str(e.value) and "line 101172" in str(e.value) and "has 5 lines" in str(e.value)


@pytest.mark.parametrize(
    ("name", "n", "sizes", "pool"),
    [
        ("zh_idiom.txt", 11089, (8871, 1109, 1109), 11084),
        ("en_kjv_in_novels.txt", 281, (224, 28, 29), 272),
        ("en_gcide.txt", 36960, (29568, 3696, 3696), None),
    ],
)
def test_real_shared_files(name, n, sizes, pool):
    path = SHARED / name
    ex = read_quoter_file(path)
    assert len(ex) == n
    s = split_by_proportions(ex, source=path)
    assert tuple(len(s[k]) for k in ("train", "valid", "test")) == sizes
    assert sorted(e.line for k in s for e in s[k]) == list(range(n))
    data, stats = build_retrieval_data(ex, s, QueryFormat(language="zh" if name.startswith("zh") else "en"), "test")
    if pool is not None:
        assert stats["pool_size"] == pool  # README: 11,084 distinct idioms
    assert stats["n_queries"] == sizes[2] and len(data["qrels"]) == sizes[2]
    assert all(len(v) == 1 for v in data["qrels"].values())
