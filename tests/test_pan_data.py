"""PAN files (reading, validation, answers writing) and the verification builder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mteb_contrastive.data.errors import DataError
from mteb_contrastive.data.pan import (
    align_answers,
    load_split,
    read_answers,
    read_pairs,
    read_pairs_with_truth,
    read_truth,
    write_answers,
)
from mteb_contrastive.data.verification_builder import (
    build_verification_dataset,
    chunk_text,
    eltec_documents,
    pan14_documents,
    split_authors,
)

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def _jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def _pair(i, a="some text", b="other text"):
    return {"id": f"p{i}", "fandoms": ["f1", "f2"], "pair": [a, b]}


def _truth(i, same=True):
    return {"id": f"p{i}", "same": same, "authors": ["a", "a" if same else "b"]}


def test_pairs_and_truth_joined_by_id(tmp_path):
    pairs = _jsonl(tmp_path / "pairs.jsonl", [_pair(0), _pair(1)])
    truth = _jsonl(tmp_path / "truth.jsonl", [_truth(1, False), _truth(0, True)])  # other order
    rows = read_pairs_with_truth(pairs, truth)
    assert [(r["id"], r["same"]) for r in rows] == [("p0", True), ("p1", False)]
    assert rows[1]["authors"] == ["a", "b"]


def test_ids_disagree(tmp_path):
    pairs = _jsonl(tmp_path / "pairs.jsonl", [_pair(0), _pair(1)])
    truth = _jsonl(tmp_path / "truth.jsonl", [_truth(0), _truth(2)])
    with pytest.raises(DataError, match="id 'p1' has no truth row") as e:
        read_pairs_with_truth(pairs, truth)
    assert e.value.source == str(pairs) and e.value.line == 2 and e.value.field == "id"


def test_counts_disagree(tmp_path):
    pairs = _jsonl(tmp_path / "pairs.jsonl", [_pair(0), _pair(1)])
    truth = _jsonl(tmp_path / "truth.jsonl", [_truth(0)])
    with pytest.raises(DataError, match="1 truth rows but 2 pairs") as e:
        read_pairs_with_truth(pairs, truth)
    assert e.value.source == str(truth)


def test_empty_text(tmp_path):
    pairs = _jsonl(tmp_path / "pairs.jsonl", [_pair(0), _pair(1, b="   \n")])
    with pytest.raises(DataError, match="text 2 of the pair is empty") as e:
        read_pairs(pairs)
    assert (e.value.line, e.value.field) == (2, "pair")
    assert str(e.value).startswith(f"{pairs}, line 2, field 'pair': text 2 of the pair is empty")


def test_pair_not_two_texts_and_duplicate_id(tmp_path):
    with pytest.raises(DataError, match="two texts"):
        read_pairs(_jsonl(tmp_path / "a.jsonl", [{"id": "x", "pair": ["only one"]}]))
    with pytest.raises(DataError, match="duplicate id 'p0'") as e:
        read_pairs(_jsonl(tmp_path / "b.jsonl", [_pair(0), _pair(0)]))
    assert e.value.line == 2 and "(first at line 1)" in str(e.value)


def test_truth_same_must_be_boolean(tmp_path):
    with pytest.raises(DataError, match="true or false") as e:
        read_truth(_jsonl(tmp_path / "t.jsonl", [_truth(0), {"id": "p1", "same": "yes"}]))
    assert (e.value.line, e.value.field) == (2, "same")


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ('{"id": "p1", "value": 1.5}', r"must be in \[0, 1\], got 1.5"),
        ('{"id": "p1", "value": -0.2}', r"must be in \[0, 1\]"),
        ('{"id": "p1", "value": NaN}', r"must be in \[0, 1\], got nan"),
        ('{"id": "p1", "value": "0.3"}', "must be a number"),
        ('{"id": "p1"}', "missing field"),
    ],
)
def test_bad_answer_values(tmp_path, line, match):
    path = _jsonl(tmp_path / "answers.jsonl", ['{"id": "p0", "value": 0.2}', line])
    with pytest.raises(DataError, match=match) as e:
        read_answers(path)
    assert e.value.source == str(path) and e.value.line == 2 and e.value.field == "value"


def test_answers_integers_lists_and_missing_ids(tmp_path):
    path = _jsonl(tmp_path / "answers.jsonl", ['{"id": "p0", "value": 1}', '{"id": "p1", "value": [0.25]}'])
    answers = read_answers(path)
    assert answers == {"p0": 1.0, "p1": 0.25}
    truth = [_truth(0), _truth(1, False), _truth(2)]
    assert align_answers(truth, answers) == ([1, 0, 1], [1.0, 0.25, 0.5])  # missing id -> 0.5
    with pytest.raises(DataError, match="not in the truth file"):
        align_answers(truth[:1], answers, path)


def test_bad_json_names_file_and_row(tmp_path):
    path = _jsonl(tmp_path / "answers.jsonl", ['{"id": "p0", "value": 0.2}', "{not json"])
    with pytest.raises(DataError, match="answers.jsonl, line 2: not JSON: Expecting property name"):
        read_answers(path)


def test_write_answers_round_trip_and_atomic(tmp_path):
    path = write_answers(tmp_path / "out" / "answers.jsonl", ["a", "b"], [0.25, 0.5])
    assert read_answers(path) == {"a": 0.25, "b": 0.5}
    bad = tmp_path / "bad" / "answers.jsonl"
    with pytest.raises(ValueError, match="not in"):
        write_answers(bad, ["a", "b"], [0.25, float("nan")])
    assert not bad.exists()
    with pytest.raises(ValueError, match="not in"):
        write_answers(path, ["a"], [1.5])
    assert read_answers(path) == {"a": 0.25, "b": 0.5}  # the old file is untouched


def test_load_split_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="truth.jsonl: missing"):
        (tmp_path / "test").mkdir()
        _jsonl(tmp_path / "test" / "pairs.jsonl", [_pair(0)])
        load_split(tmp_path, "test")


# --- builder ------------------------------------------------------------------------------


def test_chunking():
    text = " ".join(f"w{i}" for i in range(25))
    assert [len(c.split()) for c in chunk_text(text, 10, 5)] == [10, 10, 5]
    assert [len(c.split()) for c in chunk_text(text, 10, 6)] == [10, 10]  # last chunk too short
    assert chunk_text("a b c", 10, 5) == []
    assert chunk_text("a  b\n\nc", 10, 3) == ["a b c"]
    with pytest.raises(ValueError):
        chunk_text(text, 10, 11)


def test_chunking_text_without_spaces_cuts_substrings_between_words():
    # jieba words (punctuation does not count): 我|喜欢|吃|苹果 。你|呢 ？他|不 | 喜欢|苹果 ，他|喜欢 | 香蕉 。
    text = "我喜欢吃苹果。你呢？\n他不喜欢苹果，他喜欢香蕉。"
    chunks = chunk_text(text, 4, 2)
    assert chunks == ["我喜欢吃苹果。", "你呢？\n他不", "喜欢苹果，他喜欢"]  # "香蕉。" (1 word) < min_words
    assert all(c in text for c in chunks)  # substrings: no separator inserted
    assert chunk_text(text, 20, 13) == [text]  # 13 words; whole text, original newline kept
    assert chunk_text(text, 20, 14) == []
    # text before the first word stays in the first chunk; punctuation fused to a Latin word stays behind
    assert chunk_text("「我喜欢吃苹果。」Hello world 你好", 2, 1) == ["「我喜欢", "吃苹果。」", "Hello world", "你好"]


def _synthetic_docs(n_multi=12, n_single=12, works=3, words=120):
    docs = []
    for a in range(n_multi + n_single):
        for w in range(works if a < n_multi else 1):
            docs.append(
                {"id": f"A{a}W{w}", "author": f"author{a}", "text": " ".join(f"a{a}w{w}t{i}" for i in range(words))}
            )
    return docs


def test_builder_pairs_follow_the_rules(tmp_path):
    docs = _synthetic_docs()
    folder = build_verification_dataset(
        docs,
        tmp_path,
        "Synth",
        chunk_words=40,
        pairs_per_author=5,
        split_ratios=(0.5, 0.25, 0.25),
        positive_ratio=0.5,
        seed=3,
    )
    info = json.loads((folder / "mteb_contrastive.json").read_text())
    assert info["kind"] == "pan-verification" and info["splits"] == ["train", "validation", "test"]
    assert (folder / "README.md").read_text().startswith("# Synth")
    authors_by_split = {}
    for split in info["splits"]:
        rows = load_split(folder, split)
        pos = [r for r in rows if r["same"]]
        neg = [r for r in rows if not r["same"]]
        assert len(pos) == len(neg) == info["counts"][split]["same_author"]
        for r in pos:
            assert r["authors"][0] == r["authors"][1]
            assert r["fandoms"][0] != r["fandoms"][1]  # cross-work
        for r in neg:
            assert r["authors"][0] != r["authors"][1]
        for r in rows:
            for text, work in zip(r["pair"], r["fandoms"]):
                assert len(text.split()) == 40
                assert all(tok.startswith(f"a{work[1:].split('W')[0]}w{work.split('W')[1]}t") for tok in text.split())
        authors_by_split[split] = {a for r in rows for a in r["authors"]}
    # 12 multi-work authors shared 6 / 3 / 3: 5 positives each
    assert [info["counts"][s]["same_author"] for s in ("train", "validation", "test")] == [30, 15, 15]
    s = list(authors_by_split.values())
    assert not (s[0] & s[1]) and not (s[0] & s[2]) and not (s[1] & s[2])


def test_builder_is_deterministic_and_seed_matters(tmp_path):
    docs = _synthetic_docs()
    a = build_verification_dataset(docs, tmp_path / "a", "Synth", chunk_words=40, pairs_per_author=4, seed=1)
    b = build_verification_dataset(docs, tmp_path / "b", "Synth", chunk_words=40, pairs_per_author=4, seed=1)
    c = build_verification_dataset(docs, tmp_path / "c", "Synth", chunk_words=40, pairs_per_author=4, seed=2)
    for split in ("validation", "test"):
        assert (a / split / "pairs.jsonl").read_bytes() == (b / split / "pairs.jsonl").read_bytes()
    assert (a / "test" / "pairs.jsonl").read_bytes() != (c / "test" / "pairs.jsonl").read_bytes()


def test_builder_stated_ratio(tmp_path):
    folder = build_verification_dataset(
        _synthetic_docs(),
        tmp_path,
        "Synth",
        chunk_words=40,
        pairs_per_author=4,
        positive_ratio=0.25,
        split_ratios=(0, 0.5, 0.5),
    )
    rows = load_split(folder, "test")
    assert sum(r["same"] for r in rows) * 4 == len(rows)
    assert not (folder / "train").exists()


def test_builder_negatives_within_group(tmp_path):
    docs = _synthetic_docs()
    for d in docs:
        d["group"] = "g" + str(int(d["author"].removeprefix("author")) % 2)
    folder = build_verification_dataset(docs, tmp_path, "Synth", chunk_words=40, pairs_per_author=4)
    for r in load_split(folder, "test"):
        assert int(r["authors"][0].removeprefix("author")) % 2 == int(r["authors"][1].removeprefix("author")) % 2


def test_builder_too_few_authors_is_a_clear_error_and_writes_nothing(tmp_path):
    docs = _synthetic_docs(n_multi=1)
    with pytest.raises(DataError, match="split (validation|test): 0 same-author"):
        build_verification_dataset(docs, tmp_path, "Synth", chunk_words=40)
    assert not (tmp_path / "Synth").exists()


def test_builder_bad_documents(tmp_path):
    docs = _synthetic_docs()
    docs[3]["text"] = "  "
    with pytest.raises(DataError, match="Synth, record 4, field 'text'"):
        build_verification_dataset(docs, tmp_path, "Synth", chunk_words=40)
    with pytest.raises(ValueError, match="name"):
        build_verification_dataset(_synthetic_docs(), tmp_path, "bad name", chunk_words=40)


def test_split_authors_disjoint_and_proportional():
    docs = _synthetic_docs(n_multi=10, n_single=20)
    assignment = split_authors(docs, (0.4, 0.3, 0.3), seed=0)
    multi = {f"author{a}" for a in range(10)}
    by_split = {s: {a for a, x in assignment.items() if x == s} for s in ("train", "validation", "test")}
    assert [len(by_split[s] & multi) for s in ("train", "validation", "test")] == [4, 3, 3]
    assert [len(by_split[s] - multi) for s in ("train", "validation", "test")] == [8, 6, 6]


def test_real_source_loaders():
    eltec = eltec_documents(SHARED / "eltec" / "eng_novels.jsonl.gz")
    assert len(eltec) == 99 and len({d["author"] for d in eltec}) == 79
    pan14 = pan14_documents(SHARED / "pan" / "pan14_known.jsonl.gz")
    assert len(pan14) == 1129 and len({d["author"] for d in pan14}) == 400
    assert {d["group"] for d in pan14} == {"essays", "novels", "articles"}


def test_cli_build_verification_and_its_errors(tmp_path, capsys):
    from mteb_contrastive.cli.main import main

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in _synthetic_docs()))
    assert (
        main(
            [
                "build-verification",
                "corpus",
                str(corpus),
                "--name",
                "Synth",
                "--out",
                str(tmp_path / "out"),
                "--chunk-words",
                "40",
                "--pairs-per-author",
                "3",
                "--languages",
                "eng-Latn",
            ]
        )
        == 0
    )
    assert (tmp_path / "out" / "Synth" / "test" / "truth.jsonl").is_file()
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "x", "author": "a", "text": ""}) + "\n")
    assert main(["build-verification", "corpus", str(bad), "--name", "Bad", "--out", str(tmp_path / "out")]) == 2
    assert (
        f"error: {bad}, line 1, field 'text': expected the text as a non-empty string, found an empty string"
        in capsys.readouterr().err
    )
    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"id": "p0", "value": 2}\n')
    truth = _jsonl(tmp_path / "truth.jsonl", [_truth(0)])
    assert main(["pan-score", str(truth), str(answers)]) == 2
    assert "answers.jsonl, line 1, field 'value': must be in [0, 1], got 2.0" in capsys.readouterr().err
