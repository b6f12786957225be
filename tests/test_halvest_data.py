"""HALvest-Contrastive schemas: detection, the pairs->triplets join, validation, Hub-layout loading."""

from __future__ import annotations

import datasets
import pytest

from mteb_contrastive.data.errors import DataError
from mteb_contrastive.data.halvest import (
    PAIR_COLUMNS,
    PAIR_RELEASE,
    TRIPLET_COLUMNS,
    TRIPLET_RELEASE,
    detect_schema,
    load_triplets,
    pairs_to_triplets,
    validate_triplets,
)


def pair(qid, qtext, kid, ktext, label, qa=("a1",), ka=("a1",)):
    return {
        "query_halid": qid,
        "query_text": qtext,
        "query_authors": list(qa),
        "query_domains": ["cs"],
        "key_halid": kid,
        "key_text": ktext,
        "key_authors": list(ka),
        "key_domains": ["cs"],
        "author_label": label,
        "domain_label": 1,
        "affiliation_label": 0,
    }


PAIRS = [
    pair("h1", "span A", "h2", "pos A1", 1),
    pair("h1", "span A", "h9", "neg A1", 0, ka=("z",)),
    pair("h1", "span A", "h8", "neg A2", 0, ka=("y",)),  # second negative of span A: unjoined
    pair("h1", "span B", "h3", "pos B1", 1),  # span B has no negative: unjoined
    pair("h4", "span C", "h7", "neg C1", 0, qa=("c",), ka=("x",)),
    pair("h4", "span C", "h5", "pos C1", 1, qa=("c",), ka=("c",)),
]


def test_detect_schema_both_and_missing_columns_named():
    assert detect_schema(list(TRIPLET_COLUMNS) + ["query_domain"], "x") == "triplets"
    assert detect_schema(list(PAIR_COLUMNS) + ["domain_label"], "x") == "pairs"
    with pytest.raises(DataError) as e:
        detect_schema(["query", "positive", "query_text"], "my.parquet")
    msg = str(e.value)
    assert "my.parquet" in msg and "negative" in msg and "key_text" in msg


def test_pairs_join_rule_and_counts():
    triplets, stats = pairs_to_triplets(PAIRS)
    # span A: 1 positive x first negative; span C: joined although the negative row comes first
    assert [(t["query"], t["positive"], t["negative"]) for t in triplets] == [
        ("span A", "pos A1", "neg A1"),
        ("span C", "pos C1", "neg C1"),
    ]
    assert stats.as_dict() == {
        "pair_rows": 6,
        "positive_rows": 3,
        "triplets": 2,
        "unjoined_positive_rows": 1,
        "unjoined_negative_rows": 1,
    }
    assert stats.join_share == 2 / 3
    assert triplets[1]["query_authorids"] == ["c"] and triplets[1]["neg_authorids"] == ["x"]


def test_bad_label_and_empty_fields():
    with pytest.raises(DataError, match=r"record 2, field 'author_label'"):
        pairs_to_triplets([PAIRS[0], dict(PAIRS[1], author_label=2)])
    good = pairs_to_triplets(PAIRS)[0]
    with pytest.raises(DataError, match=r"src, record 2, field 'negative': empty"):
        validate_triplets([good[0], dict(good[1], negative="   ")], "src")
    with pytest.raises(DataError, match=r"src, record 1, field 'pos_authorids': empty author set"):
        validate_triplets([dict(good[0], pos_authorids=[])], "src")


def write_hub_copy(root, config_rows: dict[str, list[dict]]):
    """A local folder in the Hub repository's layout: README YAML configs + parquet shards."""
    lines = ["---", "configs:"]
    for cfg, rows in config_rows.items():
        (root / cfg).mkdir(parents=True)
        datasets.Dataset.from_list(rows).to_parquet(str(root / cfg / "test-00000-of-00001.parquet"))
        lines += [f"- config_name: {cfg}", "  data_files:", "  - split: test", f"    path: {cfg}/test-*"]
    (root / "README.md").write_text("\n".join(lines + ["---", "# copy"]) + "\n")
    return root


def test_load_pairs_schema_from_hub_layout(tmp_path):
    root = write_hub_copy(tmp_path / "hub", {"base-2": PAIRS})
    rows, info = load_triplets(str(root), "base-2", "test")
    assert info["schema"] == "pairs" and info["triplets"] == 2 and len(rows) == 2


def test_load_triplet_schema_from_hub_layout(tmp_path):
    trip = pairs_to_triplets(PAIRS)[0]
    root = write_hub_copy(tmp_path / "hub", {"base-4": trip})
    rows, info = load_triplets(str(root), "base-4", "test")
    assert info == {"schema": "triplets"} and rows[0]["positive"] == "pos A1"


def test_unknown_config_and_not_halvest(tmp_path):
    root = write_hub_copy(tmp_path / "hub", {"base-2": PAIRS, "other": [{"text": "x", "label": 1}]})
    with pytest.raises(DataError, match="unknown config 'base-10'"):
        load_triplets(str(root), "base-10", "test")
    with pytest.raises(DataError, match="lacks columns"):
        load_triplets(str(root), "other", "test")


def test_triplet_task_on_the_pairs_release_copy(tmp_path, monkeypatch):
    """HALvestTripletClassification through mteb.evaluate, pointed at a local copy of the pairs release."""
    import mteb
    from conftest import TableEncoder

    root = write_hub_copy(tmp_path / "hub", {"base-2": PAIRS})
    monkeypatch.delenv(TRIPLET_RELEASE.path_env, raising=False)
    monkeypatch.delenv(TRIPLET_RELEASE.revision_env, raising=False)
    monkeypatch.setenv(PAIR_RELEASE.path_env, str(root))
    monkeypatch.setenv(TRIPLET_RELEASE.repo_env, PAIR_RELEASE.repo)
    task = mteb.get_task("HALvestTripletClassification", hf_subsets=["base-2"])
    assert task.metadata.dataset["path"] == PAIR_RELEASE.repo
    assert task.metadata.dataset["revision"].startswith("content-")
    assert len(task.metadata.eval_langs) == len(PAIR_RELEASE.configs)  # the pairs release's configs as subsets
    # span A closer to pos A1 than neg A1; span C closer to neg C1 (an error)
    enc = TableEncoder(
        {"span A": [1, 0], "pos A1": [1, 0.1], "neg A1": [0, 1], "span C": [1, 0], "pos C1": [0, 1], "neg C1": [1, 0]}
    )
    res = mteb.evaluate(enc, task, cache=None, overwrite_strategy="always")
    s = res.task_results[0].scores["test"][0]
    assert s["accuracy"] == 0.5 and s["n_triplets"] == 2 and s["unjoined_negative_rows"] == 1
    assert s["triplet_join_share"] == pytest.approx(2 / 3) and "triplet_score_withheld" not in s
    assert s["n_unique_texts"] == 6
    assert enc.calls == [2, 4]  # the 2 anchors as queries, the 4 candidates as documents, once each
    assert s["dataset_path"] == PAIR_RELEASE.repo
    # evaluated again (mteb's unload_data restored the class metadata): the same release, the same one subset
    assert task.metadata.dataset["path"] == PAIR_RELEASE.repo  # after mteb's unload_data too
    again = mteb.evaluate(enc, task, cache=None, overwrite_strategy="always").task_results[0]
    assert [x["hf_subset"] for x in again.scores["test"]] == ["base-2"] and again.scores["test"][0]["accuracy"] == 0.5
    assert again.dataset_revision == res.task_results[0].dataset_revision
