"""Content independence: topic-controlled triplets, retrieval and pairs, and the figure, by hand."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from mteb_contrastive.baselines.base import FittedBaseline
from mteb_contrastive.baselines.table import TOPIC_REFERENCE
from mteb_contrastive.data.corpus import normalise_topics, read_corpus
from mteb_contrastive.data.errors import DataError
from mteb_contrastive.data.halvest_builder import KIND, build_halvest_dataset, sample_triplets
from mteb_contrastive.identity import fingerprint
from mteb_contrastive.metrics.content import content_independence, topic_controlled_pairs
from mteb_contrastive.report.content import content_rows, render_content
from mteb_contrastive.report.reader import ScoreRow

TOPIC_WORDS = {"river", "lake", "mountain", "hill"}
MARKERS = {"alpha", "beta"}


class _WordOverlap(FittedBaseline):
    """Pair score = number of shared words of one kind: topic words (a topic-only model) or the
    authors' marker words (a style feature)."""

    def __init__(self, words: set[str], name: str) -> None:
        super().__init__(name)
        self.words = words

    def _fit(self, texts, train_texts, candidate_texts) -> None:
        self.fit_summary = {}

    def score_pairs(self, queries, docs):
        return np.array([len(set(q.split()) & set(d.split()) & self.words) for q, d in zip(queries, docs)], float)


# author A: alpha (marker) -- missing in A2; author B: beta. Topics: river/lake (X), mountain/hill (Y)
A1, A2, A3, A4 = "alpha river", "river lake", "alpha mountain", "alpha river lake"
B1, B2, B3 = "beta mountain", "beta mountain hill", "beta river"


def _row(q, p, n, controlled):
    return {
        "query": q,
        "positive": p,
        "negative": n,
        "query_halid": q,
        "pos_halid": p,
        "neg_halids": n,
        "query_authorids": [q[0]],
        "pos_authorids": [p[0]],
        "neg_authorids": [n[0]],
        "topic_controlled": controlled,
    }


#: usual rows (topic agrees with author) and topic-controlled rows (positive on the other topic,
#: negative on the anchor's): topic model 5/5 and 0/2; style feature 3/5 (ties on A2 are errors) and 2/2
ROWS = [
    _row(A1, A2, B1, False),  # topic 1 > 0; style 0 = 0 (error)
    _row(B1, B2, A1, False),  # topic 1 > 0; style 1 > 0
    _row(A2, A1, B2, False),  # topic 1 > 0; style 0 = 0 (error)
    _row(B2, B1, A2, False),  # topic 1 > 0; style 1 > 0
    _row(A4, A1, B1, False),  # topic 1 > 0; style 1 > 0
    _row(A1, A3, B3, True),  # topic 0 < 1; style 1 > 0
    _row(B1, B3, A3, True),  # topic 0 < 1; style 1 > 0
]


def _triplet_scores(model):
    import mteb

    task = mteb.get_task("HALvestTripletClassification")
    task.dataset = {"k-2": {"test": ROWS}}
    task.data_loaded = True
    return task._evaluate_subset(model, ROWS, hf_split="test", hf_subset="k-2", encode_kwargs={})


def test_topic_model_perfect_on_all_and_zero_on_controlled_style_feature_the_reverse():
    topic = _triplet_scores(_WordOverlap(TOPIC_WORDS, TOPIC_REFERENCE))
    style = _triplet_scores(_WordOverlap(MARKERS, "style"))
    assert (topic["accuracy"], topic["accuracy_topic_controlled"]) == (1.0, 0.0)
    assert (style["accuracy"], style["accuracy_topic_controlled"]) == (0.6, 1.0)
    assert topic["n_triplets"] == 5 and topic["n_triplets_topic_controlled"] == 2 and style["n_ties"] == 2
    # the figure, by hand: chance 0.5 on both sets
    # topic model: reliance (1 - .5) - (0 - .5) = 1; share of its own margin (1 - .5) / (1 - .5) = 1
    assert content_independence(1.0, 0.0, 0.5, 0.5, 1.0) == {"ci": 0.0, "topic_reliance": 1.0, "topic_share": 1.0}
    # style feature: CI 1; reliance (.6 - .5) - (1 - .5) = -0.4; topic share (1 - .5) / (.6 - .5) = 5
    fig = content_independence(0.6, 1.0, 0.5, 0.5, 1.0)
    assert fig["ci"] == 1.0 and fig["topic_reliance"] == pytest.approx(-0.4) and fig["topic_share"] == pytest.approx(5)
    # a margin under 0.02 gives no share; a missing controlled score gives no CI
    assert content_independence(0.51, 0.9, 0.5, 0.5, 1.0)["topic_share"] is None
    assert content_independence(0.6, float("nan"), 0.5, 0.5)["ci"] is None

    rows = [
        ScoreRow(m, "r", "T", "test", "k-2", "author", "accuracy", s, dataset_revision="d")
        for m, s in ((TOPIC_REFERENCE, topic), ("style", style))
    ]
    by_model = {c["model"]: c for c in content_rows(rows)}
    assert by_model["style"]["reference_all"] == 1.0 and by_model["style"]["topic_share"] == pytest.approx(5)
    assert by_model["style"]["topic_reliance"] == pytest.approx(-0.4) and by_model["style"]["n_topic_controlled"] == 2
    table = "\n".join(render_content(list(by_model.values())))
    assert "| T | k-2 | style | accuracy | 0.600 | 1.000 | 0.500 / 0.500 | 1.000 | 0.000 | -0.400 | 5.00 | 2 |" in table
    # another dataset revision is not the reference's
    rows[1].dataset_revision = "other"
    assert not {c["model"]: c for c in content_rows(rows)}["style"]["reference_run"]


def test_topic_controlled_verification_pairs_and_auc_by_hand(tmp_path, monkeypatch):
    import mteb

    from mteb_contrastive.data.pan import write_pairs_and_truth

    # (texts, same author, fandoms): the topic-controlled pairs are p1 (same, two fandoms), p3 (other, one fandom)
    pairs = [
        (("alpha river", "alpha mountain"), True, ("x", "y")),
        (("beta river", "beta lake river"), True, ("x", "x")),
        (("alpha river", "beta river"), False, ("x", "x")),
        (("alpha lake", "beta mountain"), False, ("x", "y")),
    ]
    assert topic_controlled_pairs([1, 1, 0, 0], ["x", "x", "x", "x"], ["y", "x", "x", "y"]).tolist() == [
        True,
        False,
        True,
        False,
    ]
    rows = [
        {"id": f"p{i}", "fandoms": list(f), "pair": list(t), "same": s, "authors": [t[0][0], t[1][0]]}
        for i, (t, s, f) in enumerate(pairs)
    ]
    for split in ("validation", "test"):
        write_pairs_and_truth(tmp_path / split, rows)
    monkeypatch.setenv("MTEB_CONTRASTIVE_PAN21", str(tmp_path))
    monkeypatch.delenv("MTEB_CONTRASTIVE_ANSWERS_DIR", raising=False)
    task = mteb.get_task("PAN21Verification")
    topic = task.evaluate(_WordOverlap(TOPIC_WORDS, "t"), "test", encode_kwargs={})["default"]
    # topic scores 0, 1, 1, 0 for labels 1, 1, 0, 0: AUC (0 + .5 + .5 + 1) / 4; on p1, p3: 0 < 1 -> 0
    assert topic["auc"] == 0.5 and topic["auc_topic_controlled"] == 0.0 and topic["n_pairs_topic_controlled"] == 2
    style = task.evaluate(_WordOverlap(MARKERS, "s"), "test", encode_kwargs={})["default"]
    assert style["auc"] == 1.0 and style["auc_topic_controlled"] == 1.0


def test_verification_without_same_fandom_negatives_withholds_the_controlled_auc():
    from mteb_contrastive.metrics.content import verification_topic_scores

    out = verification_topic_scores([1, 0], [0.9, 0.1], ["a", "a"], ["b", "c"])
    assert math.isnan(out["auc_topic_controlled"]) and out["n_pairs_topic_controlled"] == 1
    assert "0 different-author pairs on one topic" in out["topic_controlled_withheld"]


# ------------------------------------------------------------------------------ the builder


def _sentences(author: str, i: int, topic: str, n: int = 6) -> str:
    return " ".join(f"Writer {author} tells story {i} of the {topic} in part {j}." for j in range(n))


def _corpus():
    # A: topics x, x, y; B: y, y, x; C: z (no partner on another topic); D: no topics
    plan = [("A", "x"), ("A", "x"), ("A", "y"), ("B", "y"), ("B", "y"), ("B", "x"), ("C", "z"), ("C", "z")]
    docs = [
        {"id": f"d{i}", "authors": [a], "text": _sentences(a, i, t), "domains": [], "topics": [t], "language": "en"}
        for i, (a, t) in enumerate(plan)
    ]
    docs += [
        {"id": f"e{i}", "authors": ["D"], "text": _sentences("D", i, "w"), "domains": [], "topics": []}
        for i in range(2)
    ]
    return docs


def test_builder_topic_controlled_rule_and_usual_rows_unchanged():
    docs = _corpus()
    plain, c0 = sample_triplets([{k: v for k, v in d.items() if k != "topics"} for d in docs], 2, seed=3)
    rows, c1 = sample_triplets(docs, 2, seed=3, topics=True)
    usual = [r for r in rows if not r["topic_controlled"]]
    strip = ("query_topics", "pos_topics", "neg_topics", "topic_controlled")
    assert [{k: v for k, v in r.items() if k not in strip} for r in usual] == plain  # drawn as without topics
    tc = [r for r in rows if r["topic_controlled"]]
    # anchors with a same-author doc on another topic and another author's doc on its topic: A's 3, B's 3
    assert c1["topic_controlled_query_documents"] == 6 and c1["topic_controlled_triplets"] == len(tc) == 24
    for r in tc:
        assert r["query_authorids"] == r["pos_authorids"] and not set(r["query_topics"]) & set(r["pos_topics"])
        assert set(r["query_topics"]) & set(r["neg_topics"]) and r["neg_authorids"] != r["query_authorids"]
    assert c0["triplets"] == c1["triplets"] == len(usual)


def test_build_without_topic_field_keeps_its_build_id(tmp_path):
    """The build id of a folder built without the new options is the one it had before them."""
    W = range(12)
    docs = [
        {
            "id": f"d{a}{i}",
            "authors": [a],
            "text": " ".join(f"Author {a} writes sentence {j} of work {i} about topic {(i + j) % 3}." for j in W),
            "domains": [],
            "year": 2000 + i,
            "language": "en",
        }
        for a in "ABCD"
        for i in range(3)
    ]
    folder = build_halvest_dataset(docs, tmp_path, "Pin", ks=(2,), n_triplets=2, seed=0)
    info = json.loads((folder / "mteb_contrastive.json").read_text())
    assert info["params"] == {"ks": [2], "n_triplets": 2, "seed": 0, "language": "en"}
    rows = pd.read_parquet(folder / "base-2" / "test.parquet").to_dict("records")
    rows = [{k: (list(v) if isinstance(v, np.ndarray) else v) for k, v in r.items()} for r in rows]
    assert "topic_controlled" not in rows[0]
    assert info["build_id"] == fingerprint(KIND, info["params"], ["eng-Latn"], {"base-2": rows})
    assert info["build_id"] == "cbe3a40dcfe71b18"  # the same corpus built at 5d3590d, before the topic field
    with_topics = build_halvest_dataset(
        [{**d, "topics": [str(i % 2)]} for i, d in enumerate(docs)], tmp_path, "PinT", ks=(2,), topic_field="t"
    )
    info_t = json.loads((with_topics / "mteb_contrastive.json").read_text())
    assert info_t["params"]["topic_field"] == "t" and info_t["build_id"] != info["build_id"]


def test_topic_field_read_normalised_and_checked(tmp_path):
    assert normalise_topics(["Extraction d\u2019information ", "  Parsing", "parsing", ""]) == [
        "extraction d'information",
        "parsing",
    ]
    assert normalise_topics("Syntaxe") == ["syntaxe"] and normalise_topics(None) == []
    f = tmp_path / "c.jsonl"
    f.write_text(
        json.dumps({"id": 1, "authors": ["A"], "text": "t.", "kw": ["Lexique"]})
        + "\n"
        + json.dumps({"id": 2, "authors": ["B"], "text": "u.", "kw": 3})
        + "\n"
    )
    with pytest.raises(DataError, match=r"line 2, field .kw.: a topic must be a string or a list of strings"):
        read_corpus(f, topic_field="kw")
    f.write_text(json.dumps({"id": 1, "authors": ["A"], "text": "t."}) + "\n")
    with pytest.raises(DataError, match="--topic-field 'keywords': no row has"):
        read_corpus(f, topic_field="keywords")


def test_cli_topic_field_typo_is_one_line(tmp_path, capsys):
    from mteb_contrastive.cli.main import main

    f = tmp_path / "c.jsonl"
    f.write_text(json.dumps({"id": 1, "authors": ["A"], "text": "t.", "language": "en"}) + "\n")
    rc = main(["build-triplets", str(f), "--name", "X", "--out", str(tmp_path / "o"), "--topic-field", "kw"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "--topic-field 'kw'" in err[0] and not (tmp_path / "o" / "X").exists()


def test_retrieval_topic_controlled_removes_same_author_same_topic_candidates():
    from mteb_contrastive.protocols.author_retrieval import build_pool, topic_chance, topic_exclusions

    def row(q, p, n, qt, pt, nt):
        return {
            "query": q,
            "positive": p,
            "negative": n,
            "query_authorids": [q[0]],
            "pos_authorids": [p[0]],
            "neg_authorids": [n[0]],
            "query_topics": qt,
            "pos_topics": pt,
            "neg_topics": nt,
        }

    rows = [row("A1", "A2", "B1", ["x"], ["x"], ["x"]), row("A3", "A4", "B2", ["x"], ["y"], ["y"])]
    data, _ = build_pool(rows)
    removed = topic_exclusions(rows, data)
    ids = {c["text"]: c["id"] for c in data["corpus"]}
    qids = {q["text"]: q["id"] for q in data["queries"]}
    # A1 (topic x): A2 shares x -> removed; A4 (topic y) stays relevant; B1 (x) stays a distractor
    assert removed[qids["A1"]] == {ids["A2"]} and removed[qids["A3"]] == {ids["A2"]}
    ch = topic_chance(data, removed, (1,))
    # each query: pool of 4 less A2 -> 3 candidates, 1 relevant (A4): random nDCG@1 = 1/3
    assert ch["n_queries_topic_controlled"] == 2 and ch["random_ndcg_at_1_topic_controlled"] == pytest.approx(1 / 3)
    assert topic_exclusions([{k: v for k, v in r.items() if "topics" not in k} for r in rows], data) == {}


def test_topic_controlled_triplets_are_recorded_and_compared_apart(tmp_path):
    """The protocol writes the topic-controlled rows' own per-item record beside the usual one; the report
    reads it back and compares two models on those rows alone (by hand: topic model 0/2, style 2/2 on
    them, both anchors' authors A and B: 2 units)."""
    import mteb
    from mteb.models.model_meta import ModelMeta

    from mteb_contrastive.layout import model_root
    from mteb_contrastive.report.reader import per_item_scores, topic_controlled_items
    from mteb_contrastive.report.statistics import compare_rows

    task = mteb.get_task("HALvestTripletClassification")
    task.dataset = {"k-2": {"test": ROWS}}
    task.data_loaded = True
    rows = []
    for model in (_WordOverlap(TOPIC_WORDS, TOPIC_REFERENCE), _WordOverlap(MARKERS, "test/style")):
        model.mteb_model_meta = ModelMeta.create_empty(overwrites=dict(name=model.model_name, revision="1"))
        scores = task._evaluate_subset(
            model, ROWS, hf_split="test", hf_subset="k-2", encode_kwargs={}, prediction_folder=tmp_path
        )
        rows.append(ScoreRow(model.model_name, "1", task.metadata.name, "test", "k-2", "author", "accuracy", scores))
    folders = {r.model: model_root(tmp_path, r.model) for r in rows}
    usual = [per_item_scores(r, folders[r.model]) for r in rows]
    topic = [topic_controlled_items(r, folders[r.model]) for r in rows]
    assert [u.values for u in usual] == [[1.0] * 5, [0.0, 1.0, 0.0, 1.0, 1.0]]  # the 5 usual rows, as above
    assert [t.values for t in topic] == [[0.0, 0.0], [1.0, 1.0]] and topic[
        0
    ].statistic_name == "accuracy_topic_controlled"
    assert topic[0].ids == topic[1].ids and len(set(topic[0].ids)) == 2
    c = compare_rows(rows[0], rows[1], lambda r: topic_controlled_items(r, folders[r.model]))
    assert c.result.statistic == "accuracy_topic_controlled"
    assert (c.result.reference_value, c.result.candidate_value, c.result.diff) == (0.0, 1.0, 1.0)
