"""Texts compared by content: one text under two labels (refused or collapsed), splits disjoint by
content, topic-controlled pairs, and held-out text found inside training documents."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mteb_contrastive.data.content import (
    apply_duplicate_rule,
    collapse_author_sets,
    collapse_labels,
    content_key,
    near_duplicate_pairs,
    overlapping_texts,
)
from mteb_contrastive.data.errors import DataError
from mteb_contrastive.data.halvest_builder import build_halvest_dataset
from mteb_contrastive.data.verification_builder import build_verification_dataset, sample_split_pairs

WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau".split()


def text(seed: int, n: int = 40) -> str:
    """A synthetic text of ``n`` words, distinct for each seed (no 8-word run shared with another seed)."""
    return " ".join(f"{WORDS[(seed * 7 + i) % len(WORDS)]}{seed}x{i}" for i in range(n))


def test_content_key_is_nfc_and_whitespace_normalised():
    assert content_key(" Cafe\u0301\n\n au\u00a0 lait\t") == "Caf\u00e9 au lait"
    assert content_key("a b") == content_key("a\n b ") != content_key("ab")


def test_a_text_under_two_authors_is_refused_naming_both_labels_and_the_row():
    docs = [
        {"id": "p1-a", "author": "P1", "text": text(1)},
        {"id": "p1-b", "author": "P1", "text": text(2)},
        {"id": "p2-a", "author": "P2", "text": "  " + text(1).replace(" ", "\n", 3)},  # same content
    ]
    with pytest.raises(DataError) as e:
        apply_duplicate_rule(docs, "refuse", "corpus.jsonl")
    msg = str(e.value)
    assert msg.startswith("corpus.jsonl, record 3, field 'text': the same text")
    assert "'P1' (record 1, id 'p1-a')" in msg and "'P2' (id 'p2-a')" in msg and "--duplicates collapse" in msg
    # a text repeated under the same author is kept once, and counted
    out, rep = apply_duplicate_rule(docs[:2] + [{"id": "p1-c", "author": "P1", "text": text(2)}], "refuse", "c")
    assert [d["id"] for d in out] == ["p1-a", "p1-b"] and rep["rows_dropped"] == 1


def test_collapse_merges_labels_sharing_a_text_transitively_and_near_duplicates():
    near = text(9).split()
    near[20] = "edited"  # one word of 40 changed: 8-grams shared 25 of 33 + 8 -> Jaccard 25/41 < 0.9
    long_a = text(7, 400)
    long_b = long_a.split()
    long_b[200] = "edited"  # one word of 400: 385 of 393 + 8 shared -> Jaccard 385/401 = 0.960
    docs = [
        {"id": "1", "author": "B", "text": text(1)},
        {"id": "2", "author": "C", "text": text(1)},  # B ~ C
        {"id": "3", "author": "C", "text": text(2)},
        {"id": "4", "author": "D", "text": text(2)},  # C ~ D, so B ~ C ~ D
        {"id": "5", "author": "E", "text": long_a},
        {"id": "6", "author": "A", "text": " ".join(long_b)},  # near duplicate: A ~ E
        {"id": "7", "author": "F", "text": text(9)},
        {"id": "8", "author": "G", "text": " ".join(near)},  # too different: stays G
    ]
    pairs = near_duplicate_pairs([content_key(d["text"]) for d in docs])
    assert [(i, j) for i, j, _ in pairs] == [(0, 1), (2, 3), (4, 5)]
    assert pairs[2][2] == pytest.approx(385 / 401)
    out, rep = collapse_labels(docs)
    assert [(d["id"], d["author"]) for d in out] == [("1", "B"), ("3", "B"), ("5", "A"), ("7", "F"), ("8", "G")]
    assert rep["texts"] == 5 and rep["labels"] == 7 and rep["authors"] == 4 and rep["merged_groups"] == 2
    assert rep["largest_group"] == 3 and rep["near_duplicate_pairs"] == 1 and rep["rows_dropped"] == 3


def test_overlapping_texts_are_found_as_whole_words_inside_documents():
    doc = "One two three four five six seven eight nine ten eleven twelve."
    inside = "three  four five six\nseven eight nine ten"  # 8 words, inside doc after normalisation
    partial = "hree four five six seven eight nine ten"  # not at a word start
    short = "five six"  # shorter than 8 words: plain whole-word search
    absent = "three four five six seven eight nine eleven"
    chinese = "我喜欢苹果"
    found = overlapping_texts([inside, partial, short, absent, chinese], [doc, "他说我喜欢苹果。"])
    assert found == {content_key(inside), "five six", chinese}


def _corpus(n_authors: int, docs_per_author: int, shared: dict[int, int] | None = None) -> list[dict]:
    docs = []
    for a in range(n_authors):
        for j in range(docs_per_author):
            docs.append({"id": f"a{a}d{j}", "author": f"A{a:02d}", "text": text(100 * a + j, 60), "group": "g"})
    for row, copy_of in (shared or {}).items():
        docs[row] = {**docs[row], "text": docs[copy_of]["text"]}
    return docs


def test_builder_refuses_or_collapses_and_the_splits_are_disjoint_by_content(tmp_path):
    # author A01's first document is a copy of A00's first: two authors, one text
    docs = _corpus(12, 3, shared={3: 0})
    kw = dict(chunk_words=20, pairs_per_author=2, split_ratios=(0.4, 0.3, 0.3), languages=("eng-Latn",))
    with pytest.raises(DataError, match=r"record 4, field 'text': the same text .* 'A00' .* 'A01'"):
        build_verification_dataset(docs, tmp_path, "Dup", **kw)
    folder = build_verification_dataset(docs, tmp_path, "Dup", duplicates="collapse", **kw)
    info = json.loads((folder / "mteb_contrastive.json").read_text())
    assert info["duplicates"]["authors"] == 11 and info["duplicates"]["rows_dropped"] == 1
    assert info["params"]["duplicates"] == "collapse" and info["topic_controlled"] is False
    assert "Not topic-controlled" in (folder / "README.md").read_text()
    texts = {}
    for split in ("train", "validation", "test"):
        rows = [json.loads(line) for line in (folder / split / "pairs.jsonl").read_text().splitlines()]
        texts[split] = {content_key(t) for r in rows for t in r["pair"]}
    assert not texts["train"] & texts["validation"] and not texts["train"] & texts["test"]
    assert not texts["validation"] & texts["test"]


def test_topic_controlled_pairs_set_topic_against_the_label():
    # 6 authors x 4 works; topics: works 0, 1 in topic "x", works 2, 3 in "y"
    docs = []
    for a in range(6):
        for j in range(4):
            docs.append({"id": f"a{a}d{j}", "author": f"A{a}", "text": "", "group": "", "topic": "x" if j < 2 else "y"})
    chunks = {d["id"]: [f"chunk {d['id']} {c}" for c in range(2)] for d in docs}
    topic_of = {d["id"]: d["topic"] for d in docs}
    rows, counts = sample_split_pairs(
        docs, chunks, "validation", name="T", pairs_per_author=3, positive_ratio=0.5, seed=0, topic=True
    )
    assert counts["same_author"] == counts["different_author"] == 18  # 6 authors x 3, balanced
    for r in rows:
        # the pair's fandoms are its two works' topics (PAN's fandom is a topic)
        t1, t2 = (topic_of[c.split()[1]] for c in r["pair"])
        assert r["fandoms"] == [t1, t2]
        assert (t1 != t2) if r["same"] else (t1 == t2 and r["authors"][0] != r["authors"][1])
    # one topic per author: no cross-topic same-author pair, so no pair at all
    one_topic = [{**d, "topic": d["author"]} for d in docs]
    _, counts = sample_split_pairs(
        one_topic, chunks, "validation", name="T", pairs_per_author=3, positive_ratio=0.5, seed=0, topic=True
    )
    assert counts["same_author"] == counts["different_author"] == 0


def test_a_topic_controlled_build_writes_the_topics_as_fandoms_and_the_protocol_reads_them(tmp_path):
    from mteb_contrastive.data.pan import load_split
    from mteb_contrastive.metrics.content import verification_topic_scores

    # 12 authors x 4 works, works 0 and 1 on topic "x", 2 and 3 on "y"
    docs = [{**d, "topic": "xy"[int(d["id"][-1]) // 2]} for d in _corpus(12, 4)]
    kw = dict(chunk_words=20, pairs_per_author=2, split_ratios=(0.4, 0.3, 0.3), languages=("eng-Latn",))
    folder = build_verification_dataset(docs, tmp_path, "Topics", topic_field="topic", **kw)
    assert json.loads((folder / "mteb_contrastive.json").read_text())["topic_controlled"] is True
    rows = load_split(folder, "test")
    assert rows and all(set(r["fandoms"]) <= {"x", "y"} for r in rows)
    labels = [int(r["same"]) for r in rows]
    out = verification_topic_scores(labels, [0.0] * len(rows), *zip(*(r["fandoms"] for r in rows)))
    # every pair sets its topic against its label, so every pair is a topic-controlled one
    assert out["n_pairs_topic_controlled"] == len(rows) and "topic_controlled_withheld" not in out
    assert out["auc_topic_controlled"] == 0.5  # a constant scorer: every pair tied


def test_topic_field_of_any_column_and_a_row_without_it(tmp_path):
    from mteb_contrastive.data.documents import load_documents

    f = tmp_path / "c.jsonl"
    rows = [
        {"id": "1", "author": "A", "text": "x y", "fandom": "f1", "domains": ["cs.CL", "math", "cs.CL"]},
        {"id": "2", "author": "A", "text": "x z", "domains": ["math"]},
    ]
    f.write_text("\n".join(json.dumps(r) for r in rows))
    assert [d["topic"] for d in load_documents("corpus", f, topic_field="domains")] == ["cs.CL|math", "math"]
    with pytest.raises(DataError, match=r"c.jsonl, line 2, field 'fandom': missing or empty topic"):
        load_documents("corpus", f, topic_field="fandom")


def test_halvest_builder_refuses_or_unites_author_sets(tmp_path):
    s = " ".join(f"Sentence number {i} is here." for i in range(6))
    docs = [
        {"id": "d0", "authors": ["A", "B"], "text": s, "domains": []},
        {"id": "d1", "authors": ["A"], "text": s + " ", "domains": []},  # same text, another author set
        {"id": "d2", "authors": ["C"], "text": "Other text. Here it is.", "domains": []},
    ]
    with pytest.raises(DataError, match=r"record 2, field 'text': the same text .* author set \['A', 'B'\]"):
        build_halvest_dataset(docs, tmp_path, "H", ks=(2,), language="en")
    out, rep = collapse_author_sets(docs)
    assert [(r["id"], r["authors"]) for r in out] == [("d0", ["A", "B"]), ("d2", ["C"])] and rep["rows_dropped"] == 1


def test_build_verification_cli_refuses_a_text_under_two_authors_in_one_line(tmp_path, capsys):
    from mteb_contrastive.cli.main import main

    f = tmp_path / "c.jsonl"
    rows = [
        {"id": f"d{i}", "author": a, "text": t, "language": "en"}
        for i, (a, t) in enumerate([("A", text(1)), ("A", text(2)), ("B", text(3)), ("B", text(1))])
    ]
    f.write_text("\n".join(json.dumps(r) for r in rows))
    assert main(["build-verification", "corpus", str(f), "--name", "X", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "line 4, field 'text': the same text" in err[0] and "'A'" in err[0] and "'B'" in err[0]
    assert not (tmp_path / "o" / "X").exists()


def test_normalised_documents_keep_their_file_lines_in_the_duplicate_error(tmp_path, capsys):
    from mteb_contrastive.cli.main import main

    f = tmp_path / "dup.jsonl"
    rows = [("a", "A", text(1)), ("b", "A", text(2)), ("c", "B", text(3)), ("d", "B", text(1))]
    lines = [json.dumps({"id": i, "author": a, "text": t, "language": "en"}) for i, a, t in rows]
    f.write_text("\n" + lines[0] + "\n\n" + "\n".join(lines[1:3]) + "\n\n" + lines[3] + "\n")  # on lines 2, 4, 5, 7
    argv = ["build-verification", "corpus", str(f), "--name", "X", "--out", str(tmp_path / "o")]
    argv += ["--normalise", "edition"]
    assert main(argv) == 2
    (err,) = capsys.readouterr().err.strip().splitlines()
    assert err.startswith(f"mteb-contrastive: error: {f}, line 7, field 'text': the same text")
    assert "(line 2, id 'a')" in err


def test_triplet_builder_finds_copies_that_the_normalisation_makes_identical(tmp_path):
    s = " ".join(f"Sentence number {i} is here." for i in range(6))
    docs = [
        {"id": "a", "authors": ["A"], "text": s, "domains": []},
        {"id": "b", "authors": ["B"], "text": s.replace("number", "num\u00adber"), "domains": []},  # a soft hyphen
        {"id": "c", "authors": ["C"], "text": "Other text. Here it is.", "domains": []},
    ]
    docs += [  # a second text for each author: triplets can be drawn
        {"id": f"{a}2", "authors": [a.upper()], "text": f"Second text {a}. It has {a} words.", "domains": []}
        for a in "abc"
    ]
    build_halvest_dataset(docs, tmp_path, "Raw", ks=(2,), language="en")  # two different texts without it
    with pytest.raises(DataError, match=r"record 2, field 'text': the same text .* author set \['A'\]"):
        build_halvest_dataset(docs, tmp_path, "Norm", ks=(2,), language="en", normalise="edition")


def test_a_missing_topic_in_a_pan_folder_is_named_at_the_pairs_line(tmp_path):
    from mteb_contrastive.data.documents import load_documents
    from mteb_contrastive.data.pan import write_pairs_and_truth

    rows = [
        {"id": "p1", "fandoms": ["f", "g"], "pair": [text(1), text(2)], "same": True, "authors": ["x", "x"]},
        {"id": "p2", "fandoms": ["h", ""], "pair": [text(3), text(4)], "same": False, "authors": ["y", "z"]},
    ]
    write_pairs_and_truth(tmp_path / "train", rows)
    with pytest.raises(DataError, match=r"pairs.jsonl, line 2, field 'fandom': missing or empty topic"):
        load_documents("pan-folder", tmp_path, topic_field="fandom")


def _brute_force_near_duplicates(keys, threshold):
    """Every pair's Jaccard of its word 8-gram sets (tuples, not hashes): the rule written out."""

    def grams(k):
        w = k.split(" ")
        return {tuple(w)} if len(w) <= 8 else {tuple(w[i : i + 8]) for i in range(len(w) - 7)}

    sets = [grams(k) for k in keys]
    out = []
    for i in range(len(keys)):
        for j in range(i + 1, len(keys)):
            n = len(sets[i] & sets[j])
            if n and n / (len(sets[i]) + len(sets[j]) - n) >= threshold:
                out.append((i, j, n / (len(sets[i]) + len(sets[j]) - n)))
    return out


@settings(deadline=None)
@given(
    base=st.lists(st.sampled_from("a b c d e f".split()), min_size=1, max_size=40),
    edits=st.lists(
        st.tuples(st.integers(0, 39), st.sampled_from("a b c d e f g".split()), st.integers(0, 30)), max_size=12
    ),
    threshold=st.sampled_from([0.1, 0.5, 0.8, 1.0]),
)
def test_near_duplicate_pairs_equal_the_rule_written_out(base, edits, threshold):
    # texts made by editing (one word) and cutting (a prefix) one base text: many share 8-grams
    texts = []
    for pos, word, cut in edits:
        w = list(base)
        w[pos % len(w)] = word
        texts.append(" ".join(w[cut % len(w) :]))
    keys = sorted({content_key(t) for t in [" ".join(base), *texts]})
    got = near_duplicate_pairs(keys, threshold)
    want = _brute_force_near_duplicates(keys, threshold)
    assert [(i, j) for i, j, _ in got] == [(i, j) for i, j, _ in want]
    assert [x for _, _, x in got] == [x for _, _, x in want]
