"""IR triplets (Le & Mikolov 2014, 3.3): builder, error rate, bad input. Tiny hand-made collections."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from mteb_contrastive.data.errors import DataError
from mteb_contrastive.data.ir_triplets import (
    build_ir_triplets,
    load_ir_triplets,
    read_beir_folder,
    sample_ir_triplets,
    split_queries,
)
from mteb_contrastive.protocols.ir_triplets import error_rate

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"

CORPUS = {
    "a": "alpha one",
    "b": "alpha two",
    "c": "alpha three",
    "d": "delta one",
    "e": "delta two",
    "f": "foxtrot",
    "g": "golf",
    "z": "",
}
QRELS = {
    "q1": {"a": 3, "b": 2, "c": 1, "d": -1},  # d judged not relevant
    "q2": {"d": 2, "e": 2, "z": 3},  # z is empty: never used
    "q3": {"f": 1},  # one relevant document: skipped
    "q4": {"g": 1, "a": 1},  # a and g only at grade 1
}


def write_beir(folder: Path, corpus: list[dict], queries: list[dict], qrels_lines: list[str]) -> Path:
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in corpus))
    (folder / "queries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in queries))
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(line + "\n" for line in qrels_lines)
    )
    return folder


def test_error_rate_is_percent_of_strict_errors():
    assert error_rate(1.0) == 0.0
    assert error_rate(0.75) == 25.0
    assert error_rate(0.0) == 100.0
    assert math.isnan(error_rate(float("nan")))


def test_sampler_known_triplets_all_in_test_split():
    splits, counts = sample_ir_triplets(CORPUS, QRELS, seed=0, min_grade=1, max_per_query=10, fractions=(0.0, 0.0, 1.0))
    rows = splits["test"]
    assert counts["queries_skipped_lt2_relevant"] == 1  # q3
    assert counts["empty_documents"] == 1
    assert counts["test"]["queries"] == 3
    # q1: pairs {a,b},{a,c},{b,c}; q2: {d,e}; q4: {a,g} -> 5 triplets
    assert len(rows) == 5
    pairs = sorted((r["ir_query_id"], tuple(sorted((r["query_halid"], r["pos_halid"])))) for r in rows)
    assert pairs == [("q1", ("a", "b")), ("q1", ("a", "c")), ("q1", ("b", "c")), ("q2", ("d", "e")), ("q4", ("a", "g"))]
    for r in rows:
        n = r["neg_halids"][0]
        assert n not in {d for d, g in QRELS[r["ir_query_id"]].items() if g > 0}  # never judged relevant to p1's query
        assert r["neg_ir_query_id"] != r["ir_query_id"]
        assert QRELS[r["neg_ir_query_id"]][n] > 0  # relevant to the other query
        assert r["query"] == CORPUS[r["query_halid"]] and r["negative"] == CORPUS[n]
    q1 = [r for r in rows if r["ir_query_id"] == "q1"]
    # q1's negatives: relevant to q2 or q4, not a positive of q1 (d is judged *not* relevant to q1: allowed)
    assert {r["neg_halids"][0] for r in q1} <= {"d", "e", "g"}
    q4 = [r for r in rows if r["ir_query_id"] == "q4"]
    assert q4[0]["neg_halids"][0] in {"b", "c", "d", "e"}
    # the same call gives the same triplets (fixed seed)
    again, _ = sample_ir_triplets(CORPUS, QRELS, seed=0, min_grade=1, max_per_query=10, fractions=(0.0, 0.0, 1.0))
    assert again["test"] == rows


def test_min_grade_and_cap():
    splits, counts = sample_ir_triplets(CORPUS, QRELS, seed=0, min_grade=2, max_per_query=1, fractions=(0.0, 0.0, 1.0))
    # grade >= 2: q1 {a,b}, q2 {d,e}; q4 has no grade-2 document -> skipped with q3
    assert counts["queries_skipped_lt2_relevant"] == 2
    assert len(splits["test"]) == 2  # one triplet per query (cap)
    assert {r["ir_query_id"] for r in splits["test"]} == {"q1", "q2"}


def test_random_negative_excludes_relevant():
    splits, _ = sample_ir_triplets(CORPUS, QRELS, seed=3, negative="random", fractions=(0.0, 0.0, 1.0))
    for r in splits["test"]:
        assert r["neg_ir_query_id"] is None
        n = r["neg_halids"][0]
        assert QRELS[r["ir_query_id"]].get(n, 0) <= 0 and CORPUS[n]


def test_split_by_query_80_10_10_disjoint_and_seeded():
    ids = [f"q{i}" for i in range(20)]
    s = split_queries(ids, seed=0)
    assert [len(s[k]) for k in ("train", "valid", "test")] == [16, 2, 2]
    assert sorted(s["train"] + s["valid"] + s["test"]) == sorted(ids)
    assert split_queries(ids, seed=0) == s
    assert split_queries(ids, seed=1) != s


def test_build_folder_and_load(tmp_path):
    corpus = {f"d{i}": f"topic{i // 3} word{i}" for i in range(30)}
    qrels = {f"q{k}": {f"d{3 * k + j}": 1 for j in range(3)} for k in range(10)}
    folder = build_ir_triplets(corpus, qrels, tmp_path, "Tiny", seed=0)
    info = json.loads((folder / "mteb_contrastive.json").read_text())
    assert info["kind"] == "ir-triplets"
    c = info["configs"]["default"]
    assert [c[s]["queries"] for s in ("train", "valid", "test")] == [8, 1, 1]
    assert [c[s]["triplets"] for s in ("train", "valid", "test")] == [24, 3, 3]
    rows, load = load_ir_triplets(folder, "default", "test")
    assert len(rows) == 3 and load["n_ir_queries"] == 1
    train_q = {r["ir_query_id"] for r in load_ir_triplets(folder, "default", "train")[0]}
    assert rows[0]["ir_query_id"] not in train_q
    assert (folder / "README.md").is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary folder left


def test_bad_input_unknown_corpus_id(tmp_path):
    src = write_beir(
        tmp_path / "c",
        [{"_id": "1", "text": "x"}, {"_id": "2", "text": "y"}],
        [{"_id": "q", "text": "?"}],
        ["q\t1\t1", "q\t9\t1"],
    )
    with pytest.raises(DataError, match="absent from the corpus.*'9'"):
        read_beir_folder(src)


def test_bad_input_unknown_query_id(tmp_path):
    src = write_beir(tmp_path / "c", [{"_id": "1", "text": "x"}], [{"_id": "q", "text": "?"}], ["other\t1\t1"])
    with pytest.raises(DataError, match="query id 'other'"):
        read_beir_folder(src)


def test_bad_input_duplicate_corpus_id(tmp_path):
    src = write_beir(
        tmp_path / "c", [{"_id": "1", "text": "x"}, {"_id": "1", "text": "y"}], [{"_id": "q", "text": "?"}], ["q\t1\t1"]
    )
    with pytest.raises(
        DataError, match=r"corpus.jsonl, line 2, field '_id': duplicate corpus id '1' \(first at line 1\)"
    ) as e:
        read_beir_folder(src)
    assert e.value.line == 2


def test_bad_input_empty_corpus(tmp_path):
    src = write_beir(tmp_path / "c", [], [{"_id": "q", "text": "?"}], [])
    with pytest.raises(DataError, match="empty corpus"):
        read_beir_folder(src)
    with pytest.raises(DataError, match="empty corpus"):
        sample_ir_triplets({}, {})


def test_bad_input_non_numeric_score(tmp_path):
    src = write_beir(tmp_path / "c", [{"_id": "1", "text": "x"}], [{"_id": "q", "text": "?"}], ["q\t1\thigh"])
    with pytest.raises(DataError, match="not a number"):
        read_beir_folder(src)


def test_cranfield_real_counts(tmp_path):
    corpus, queries, qrels = read_beir_folder(SHARED / "ir" / "cranfield")  # reads qrels/test_gain.tsv
    assert len(corpus) == 1400 and len(queries) == 225
    assert min(g for d in qrels.values() for g in d.values()) == 1  # gains: no -1 rows
    folder = build_ir_triplets(corpus, qrels, tmp_path, "Cran", queries=queries, seed=0, max_per_query=50)
    c = json.loads((folder / "mteb_contrastive.json").read_text())["configs"]["default"]
    assert c["queries_skipped_lt2_relevant"] == 6  # 219 of 225 queries have >= 2 relevant documents
    assert c["empty_documents"] == 2  # docs 471 and 995
    assert [c[s]["queries"] for s in ("train", "valid", "test")] == [175, 22, 22]
    assert c["test"]["triplets"] == 350


def _row(a, p, n, i):
    return {
        "query": a,
        "positive": p,
        "negative": n,
        "query_halid": f"a{i}",
        "pos_halid": f"p{i}",
        "neg_halids": [f"n{i}"],
    }


def test_protocol_error_rate_strict_rule_with_tfidf():
    """Three hand-made triplets under TF-IDF cosine: right, wrong, tie (a tie is an error)."""
    from mteb_contrastive.baselines.sparse import TfidfBaseline
    from mteb_contrastive.tasks.paragraph_vector import CranfieldIRTriplets

    rows = [
        _row(
            "wing lift slipstream", "slipstream wing lift data", "heat transfer", 0
        ),  # right: shares words with p2 only
        _row("shell buckling", "boundary layer", "shell buckling pressure", 1),  # wrong: shares with p3 only
        _row("hypersonic flow", "laminar jet", "panel flutter", 2),  # tie at 0: error
    ]
    task = CranfieldIRTriplets()
    scores = task._evaluate_subset(
        TfidfBaseline(kind="words"), rows, hf_split="test", hf_subset="default", encode_kwargs={"batch_size": 8}
    )
    assert scores["accuracy"] == pytest.approx(1 / 3)
    assert scores["error_rate"] == pytest.approx(200 / 3)
    assert scores["n_ties"] == 1 and scores["n_triplets"] == 3
    assert scores["fit_n_texts"] == 9 and scores["fit_on_evaluated_texts"] == 1


def test_protocol_writes_per_item_scores_grouped_by_query(tmp_path):
    """With a prediction folder the protocol writes one 0/1 per triplet (mean = accuracy), content ids and the IR query
    as group."""
    from types import SimpleNamespace

    from mteb_contrastive.baselines.sparse import TfidfBaseline
    from mteb_contrastive.layout import prediction_subfolder
    from mteb_contrastive.protocols.triplet_classification import triplet_item_ids
    from mteb_contrastive.report.reader import ScoreRow, per_item_scores
    from mteb_contrastive.tasks.paragraph_vector import CranfieldIRTriplets

    rows = [
        _row("wing lift slipstream", "slipstream wing lift data", "heat transfer", 0),  # right
        _row("shell buckling", "boundary layer", "shell buckling pressure", 1),  # wrong
        _row("hypersonic flow", "laminar jet", "panel flutter", 2),  # tie: wrong
        _row("wing lift slipstream", "slipstream wing lift data", "heat transfer", 3),  # a repeat of the first: right
    ]
    for r, q in zip(rows, ("q1", "q1", "q2", "q2")):
        r["ir_query_id"] = q
    model = TfidfBaseline(kind="words")
    model.mteb_model_meta = SimpleNamespace(name="org/tfidf", revision="r1")
    task = CranfieldIRTriplets()
    scores = task._evaluate_subset(
        model, rows, hf_split="test", hf_subset="default", encode_kwargs={"batch_size": 8}, prediction_folder=tmp_path
    )
    assert scores["accuracy"] == 0.5
    f = prediction_subfolder(tmp_path, "org/tfidf", "r1") / "CranfieldIRTriplets_predictions.json"
    per_item = json.loads(f.read_text())["default"]["test"]["per_item"]
    ids = triplet_item_ids(rows, ("query", "positive", "negative"))
    assert ids[3] == ids[0] + "#2" and len(set(ids)) == 4 and len(ids[1]) == 16
    assert per_item["ids"] == ids
    assert (per_item["name"], per_item["values"], per_item["groups"]) == (
        "accuracy",
        [1.0, 0.0, 0.0, 1.0],
        ["q1", "q1", "q2", "q2"],
    )
    row = ScoreRow("org/tfidf", "r1", "CranfieldIRTriplets", "test", "default", "ir-triplets", "accuracy", scores)
    p = per_item_scores(row, tmp_path / "org__tfidf")
    assert p.groups == ["q1", "q1", "q2", "q2"] and sum(p.values) / len(p.values) == scores["accuracy"]
    # the same rows, ids from their texts: identical for another model; no prediction folder -> no file
    assert triplet_item_ids([dict(r) for r in rows], ("query", "positive", "negative")) == ids
    f.unlink()
    task._evaluate_subset(model, rows, hf_split="test", hf_subset="default", encode_kwargs={"batch_size": 8})
    assert not f.exists()


def test_author_triplets_group_by_the_anchor_first_author():
    from mteb_contrastive.protocols.triplet_classification import AbsTaskTripletClassification

    g = AbsTaskTripletClassification.item_group
    assert g(None, {"query_authorids": ["au-7", "au-2"], "query_halid": "hal-1"}) == "au-7"
    assert g(None, {"query_authorids": [], "query_halid": "hal-1"}) == "doc:hal-1"


def test_cli_build_and_task_from_folder(tmp_path, monkeypatch):
    """`mteb-contrastive build-ir-triplets` -> folder -> task <name>IRTriplets; TF-IDF gets every triplet right."""
    from mteb_contrastive.baselines.sparse import TfidfBaseline
    from mteb_contrastive.catalog import dataset_task_classes as local_task_classes
    from mteb_contrastive.cli.main import main

    corpus = [{"_id": f"d{i}", "title": "", "text": f"topic{i // 3} word{i}"} for i in range(30)]
    queries = [{"_id": f"q{k}", "text": f"query {k}"} for k in range(10)]
    qrels = [f"q{k}\td{3 * k + j}\t1" for k in range(10) for j in range(3)]
    src = write_beir(tmp_path / "src", corpus, queries, qrels)
    assert main(["build-ir-triplets", str(src), "--name", "Tiny", "--out", str(tmp_path / "ds")]) == 0
    monkeypatch.setenv("MTEB_CONTRASTIVE_DATASETS", str(tmp_path / "ds"))
    [cls] = [c for c in local_task_classes() if c.metadata.name == "TinyIRTriplets"]
    task = cls()
    task.load_data()
    rows = task.dataset["default"]["test"]
    assert len(rows) == 3
    train_rows = load_ir_triplets(tmp_path / "ds" / "Tiny", "default", "train")[0]
    expected = {t for r in train_rows for t in (r["query"], r["positive"], r["negative"])}
    assert set(task.fit_train_texts("default", "test")) == expected  # the train split's texts
    assert {r["ir_query_id"] for r in train_rows}.isdisjoint({r["ir_query_id"] for r in rows})
    scores = task._evaluate_subset(
        TfidfBaseline(kind="words"), rows, hf_split="test", hf_subset="default", encode_kwargs={"batch_size": 8}
    )
    # p1, p2 share "topicK"; p3 is another topic's document: cosine(p1, p3) = 0 < cosine(p1, p2)
    assert scores["accuracy"] == 1.0 and scores["error_rate"] == 0.0
    # bad input through the CLI: an unknown corpus id is a clear error, exit 2
    (src / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq0\tnope\t1\n")
    assert main(["build-ir-triplets", str(src), "--name", "Bad", "--out", str(tmp_path / "ds")]) == 2


def test_collection_from_an_mteb_retrieval_task(monkeypatch):
    """The builder's mteb-task input reads corpus / queries / relevant_docs of a loaded retrieval task."""
    import mteb
    from datasets import Dataset

    from mteb_contrastive.data.ir_triplets import collection_from_mteb_task

    class FakeTask:
        dataset = {
            "default": {
                "test": {
                    "corpus": Dataset.from_list(
                        [{"id": "1", "title": "T", "text": "body one"}, {"id": "2", "title": "", "text": "body two"}]
                    ),
                    "queries": Dataset.from_list([{"id": "q", "text": "question"}]),
                    "relevant_docs": {"q": {"1": 1, "2": 2}},
                }
            }
        }

        def load_data(self):
            pass

    monkeypatch.setattr(mteb, "get_task", lambda name: FakeTask())
    corpus, queries, qrels = collection_from_mteb_task("Fake")
    assert corpus == {"1": "T body one", "2": "body two"} and queries == {"q": "question"}
    assert qrels == {"q": {"1": 1.0, "2": 2.0}}
    FakeTask.dataset["default"]["test"]["relevant_docs"] = {"q": {"3": 1}}
    with pytest.raises(DataError, match="absent from the corpus"):
        collection_from_mteb_task("Fake")
