"""HALvest pairs release evaluated natively: pair classification, author retrieval with the config's
positive rule, cross-document metrics, chance levels, the triplet join's guard, the user's source.

The pairs copy stands in for ``almanach/HALvest-Contrastive`` (``MTEB_CONTRASTIVE_HALVEST_PAIRS_PATH``);
the triplet and retrieval tasks, whose default is the triplet release, are pointed at it with
``MTEB_CONTRASTIVE_HALVEST_REPO``.

The tiny local copies use synthetic texts. Documents and authors (author order matters):
d1 = [A, B], d2 = [A, C], d3 = [B, A], d4 = [Z], d5 = [Y].
"""

from __future__ import annotations

import math

import datasets
import mteb
import numpy as np
import pytest
from conftest import TableEncoder

from mteb_contrastive.data.halvest import PAIR_RELEASE, TRIPLET_RELEASE, resolve_source
from mteb_contrastive.tasks.halvest import HALvestPairClassification, HALvestRetrieval, HALvestTripletClassification

AUTH = {"d1": ["A", "B"], "d2": ["A", "C"], "d3": ["B", "A"], "d4": ["Z"], "d5": ["Y"]}


def pair(qdoc, qtext, kdoc, ktext, label):
    return {
        "query_halid": qdoc,
        "query_text": qtext,
        "query_authors": AUTH[qdoc],
        "query_domains": ["cs"],
        "key_halid": kdoc,
        "key_text": ktext,
        "key_authors": AUTH[kdoc],
        "key_domains": ["cs"],
        "author_label": label,
        "domain_label": 1,
        "affiliation_label": 0,
    }


TEST = [
    pair("d1", "Q1", "d2", "K2", 1),
    pair("d1", "Q1b", "d4", "K4", 0),  # a new query span for the negative: does not join
    pair("d3", "Q3", "d1", "K1", 1),
    pair("d3", "Q3", "d5", "K5", 0),  # shares span Q3 with the row above: joins
]
NO_REPEAT = TEST[:3] + [pair("d3", "Q3b", "d5", "K5", 0)]  # no query span repeats
VALID = [
    pair("d1", "Q1", "d3", "K1", 1),
    pair("d1", "Q1", "d5", "K5", 0),
    pair("d3", "Q3", "d2", "K2", 1),
    pair("d3", "Q3", "d4", "K4", 0),
]
ICT = [
    pair("d1", "Q1", "d1", "K1", 1),
    pair("d2", "Q2", "d2", "K2", 1),
    pair("d2", "Q2", "d2", "", 1),  # the ICT sampler writes empty spans for short documents
]


def unit(deg):
    return [math.cos(math.radians(deg)), math.sin(math.radians(deg))]


# queries at 0 deg (Q1, Q1b) and 100 deg (Q3); candidates K4 10, K1 30, K2 60, K5 90 deg
TABLE = {
    "Q1": unit(0),
    "Q1b": unit(0),
    "Q3": unit(100),
    "Q3b": unit(100),
    "Q2": unit(50),
    "K4": unit(10),
    "K1": unit(30),
    "K2": unit(60),
    "K5": unit(90),
}


def hub_copy(root, configs: dict[str, dict[str, list[dict]]]):
    """A local folder in the Hub repository's layout (README YAML configs + parquet shards)."""
    lines = ["---", "configs:"]
    for cfg, splits in configs.items():
        (root / cfg).mkdir(parents=True)
        lines += [f"- config_name: {cfg}", "  data_files:"]
        for split, rows in splits.items():
            datasets.Dataset.from_list(rows).to_parquet(str(root / cfg / f"{split}-00000-of-00001.parquet"))
            lines += [f"  - split: {split}", f"    path: {cfg}/{split}-*"]
    (root / "README.md").write_text("\n".join(lines + ["---", "# copy"]) + "\n")
    return root


@pytest.fixture
def copy(tmp_path, monkeypatch):
    root = hub_copy(
        tmp_path / "hub",
        {
            "base-2": {"valid": VALID, "test": TEST},
            "base-soft-2": {"valid": VALID, "test": TEST},
            "base-4": {"valid": VALID, "test": NO_REPEAT},
            "ict-2": {"valid": ICT, "test": ICT},
        },
    )
    for release in (TRIPLET_RELEASE, PAIR_RELEASE):
        for var in (release.path_env, release.repo_env, release.revision_env):
            monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv(PAIR_RELEASE.path_env, str(root))
    monkeypatch.setenv(TRIPLET_RELEASE.repo_env, PAIR_RELEASE.repo)  # triplet and retrieval tasks: the pairs release
    return root


def run(task_cls, subsets, enc=None):
    task = task_cls()
    task.hf_subsets = subsets
    res = mteb.evaluate(enc or TableEncoder(TABLE), task, cache=None, overwrite_strategy="always")
    return {s["hf_subset"]: s for s in res.task_results[0].scores["test"]}, res.task_results[0]


D = 1 / np.log2(np.arange(2, 12))  # nDCG discounts of ranks 1..10


def test_retrieval_first_author_rule_cross_document_and_chance(copy):
    s = run(HALvestRetrieval, ["base-2"])[0]["base-2"]
    # pool K2 K4 K1 K5; base-2 rule = same first author. Q1, Q1b (d1, first A): relevant K2 (d2) and K1 (d1);
    # Q3 (d3, first B): none (dropped by mteb). Q1 ranks K4 .985, K1 .866, K2 .5, K5 0: relevant at ranks 2, 3
    assert s["pool_size"] == 4 and s["n_queries"] == 3 and s["queries_without_relevant"] == 1
    assert s["ndcg_at_10"] == pytest.approx((D[1] + D[2]) / (D[0] + D[1]), abs=1e-5)  # 0.69343
    assert s["hit_rate_at_1"] == 0 and s["recall_at_1"] == 0 and s["hit_rate_at_5"] == 1 and s["mrr_at_10"] == 0.5
    # cross-document: K1 is Q1's own document: ranking K4, K2, K5 with K2 the only relevant, rank 2
    assert s["ndcg_at_10_cross_document"] == pytest.approx(D[1], abs=1e-5)  # 0.63093
    assert s["recall_at_5_cross_document"] == 1 and s["hit_rate_at_1_cross_document"] == 0
    assert s["queries_with_same_document_candidates"] == 2 and s["n_queries_cross_document"] == 2  # Q1, Q1b (K1 is d1)
    # chance: N = 4, R = 2 -> E[nDCG@10] = 2/4 * (d1+..+d4) / (d1+d2); E[hit@1] = 1 - C(2,1)/C(4,1) = 1/2
    assert s["random_ndcg_at_10"] == pytest.approx(0.5 * D[:4].sum() / D[:2].sum())
    assert s["random_hit_rate_at_1"] == pytest.approx(0.5) and s["random_recall_at_1"] == pytest.approx(0.25)
    # cross-document chance: N = 3, R = 1 -> E[nDCG@10] = (d1+d2+d3)/3, E[hit@1] = 1/3
    assert s["random_ndcg_at_10_cross_document"] == pytest.approx(D[:3].sum() / 3)
    assert s["random_hit_rate_at_1_cross_document"] == pytest.approx(1 / 3)
    assert s["pool_size_over_paper"] == pytest.approx(4 / 14300)


def test_retrieval_any_author_rule(copy):
    s = run(HALvestRetrieval, ["base-soft-2"])[0]["base-soft-2"]
    # base-soft-2: any shared author. Q3 (d3 = [B, A]) now has K2 (d2, shares A) and K1 (d1) relevant;
    # Q3 at 100 deg ranks K5 .985, K2 .766, K1 .342, K4 0: relevant at ranks 2 and 3 again
    assert s["queries_without_relevant"] == 0
    assert s["ndcg_at_10"] == pytest.approx((D[1] + D[2]) / (D[0] + D[1]), abs=1e-5)
    # cross-document: Q1, Q1b lose K1 (0.63093 each); Q3 has no candidate from d3 (0.69343)
    want = (2 * D[1] + (D[1] + D[2]) / (D[0] + D[1])) / 3
    assert s["ndcg_at_10_cross_document"] == pytest.approx(want, abs=1e-5)
    assert s["queries_with_same_document_candidates"] == 2


def test_ict_rule_is_same_document_and_empty_spans_dropped(copy):
    s = run(HALvestRetrieval, ["ict-2"])[0]["ict-2"]
    # ICT: the key of a query is its own document's context; the empty-span row is dropped
    assert s["pair_rows_empty_text"] == 1 and s["pool_size"] == 2 and s["n_queries"] == 2
    # Q1 (0 deg) ranks K1 (30 deg, its document's key) first; Q2 (50 deg) ranks K2 (60 deg) first
    assert s["ndcg_at_1"] == 1.0 and s["hit_rate_at_1"] == 1.0
    # every relevant key is from the query's document: no cross-document metric exists
    assert s["n_queries_cross_document"] == 0 and "ndcg_at_10_cross_document" not in s


def test_pair_classification_thresholds_from_valid(copy):
    s = run(HALvestPairClassification, ["base-2"])[0]["base-2"]
    # test sims (label): Q1-K2 .5 (1), Q1b-K4 .985 (0), Q3-K1 .342 (1), Q3-K5 .985 (0)
    # AP: cut at .985 -> P 0; at .5 -> P 1/3, R 1/2; at .342 -> P 1/2, R 1  => 1/2 * 1/3 + 1/2 * 1/2
    assert s["average_precision"] == pytest.approx(0.5 / 3 + 0.25)
    # valid sims (label): Q1-K1 .866 (1), Q1-K5 0 (0), Q3-K2 .766 (1), Q3-K4 0 (0): both thresholds = .766 / 2
    assert s["accuracy_threshold"] == pytest.approx(math.cos(math.radians(40)) / 2)
    assert s["f1_threshold"] == pytest.approx(math.cos(math.radians(40)) / 2)
    assert s["validation_accuracy"] == 1.0 and s["validation_f1"] == 1.0
    # on test at .383: predicted same = .5, .985, .985 -> 1 of 4 right; F1 = 2*1 / (3 + 2)
    assert s["accuracy_validation_threshold"] == 0.25 and s["f1_validation_threshold"] == pytest.approx(0.4)
    assert s["n_pairs"] == 4 and s["n_validation_pairs"] == 4 and s["main_score"] == s["average_precision"]
    # the pairs copy stands in for its release: the repository, and the copy's content as the revision
    assert s["dataset_path"] == PAIR_RELEASE.repo and s["dataset_revision"].startswith("content-")


def test_pair_classification_withheld_on_ict(copy):
    s = run(HALvestPairClassification, ["ict-2"])[0]["ict-2"]
    assert math.isnan(s["average_precision"]) and "only author_label [1]" in s["pair_score_withheld"]


def test_triplets_only_from_shared_spans_with_count(copy):
    s = run(HALvestTripletClassification, ["base-2"])[0]["base-2"]
    # only span Q3 has a positive and a negative: 1 triplet from 2 positive rows (share 1/2 >= 1/2)
    # Q3: K1 .342 vs K5 .985 -> wrong
    assert s["n_triplets"] == 1 and s["positive_rows"] == 2 and s["triplet_join_share"] == 0.5
    assert s["accuracy"] == 0.0 and s["n_triplets_cross_document"] == 1


def test_no_triplet_score_when_spans_never_repeat(copy):
    s = run(HALvestTripletClassification, ["base-4"])[0]["base-4"]
    assert math.isnan(s["accuracy"]) and s["triplets"] == 0
    assert (
        s["triplet_score_withheld"].startswith("no triplet score: no query span repeats")
        and "0 of 2" in s["triplet_score_withheld"]
    )


def test_prompt_types_in_triplet_and_pair_tasks(copy):
    seen: list[tuple[str | None, list[str]]] = []
    enc = TableEncoder(TABLE)

    def recording_encode(inputs, *, task_metadata, hf_split, hf_subset, prompt_type=None, **kwargs):
        texts = [t for batch in inputs for t in batch["text"]]
        seen.append((None if prompt_type is None else prompt_type.value, texts))
        return np.stack([enc.vec(t) for t in texts])

    enc.encode = recording_encode
    run(HALvestTripletClassification, ["base-2"], enc)
    assert seen == [("query", ["Q3"]), ("document", ["K1", "K5"])]
    seen.clear()
    run(HALvestPairClassification, ["base-2"], enc)
    assert seen == [
        ("query", ["Q1", "Q3"]),
        ("document", ["K1", "K5", "K2", "K4"]),  # valid
        ("query", ["Q1", "Q1b", "Q3"]),
        ("document", ["K2", "K4", "K1", "K5"]),  # test
    ]


def test_source_precedence_and_recorded(copy, monkeypatch, tmp_path):
    T, P = TRIPLET_RELEASE, PAIR_RELEASE
    monkeypatch.delenv(T.repo_env)
    assert resolve_source(T) == (T.repo, None) and resolve_source(P) == (P.repo, P.revision)
    monkeypatch.setenv(T.revision_env, "abc123")
    assert resolve_source(T) == (T.repo, "abc123")
    assert resolve_source(P) == (P.repo, P.revision)  # the triplet release's variables do not move the pairs task
    monkeypatch.setenv(T.repo_env, "someone/HALvest-copy")
    assert resolve_source(T) == ("someone/HALvest-copy", "abc123")
    assert resolve_source(T, "other/repo") == ("other/repo", None)
    assert resolve_source(T, "other/repo", "v1") == ("other/repo", "v1")
    assert resolve_source(T, P.repo) == (P.repo, P.revision)  # a known release brings its pinned commit
    monkeypatch.setenv(P.revision_env, "def456")
    assert resolve_source(P) == (P.repo, "def456")
    monkeypatch.delenv(T.repo_env)
    monkeypatch.delenv(T.revision_env)
    monkeypatch.delenv(P.revision_env)
    # a Python argument: a local folder, recorded by its content fingerprint, its configs as subsets
    task = HALvestRetrieval(path=str(copy))
    assert task.metadata.dataset["path"] == str(copy) and task.metadata.dataset["revision"].startswith("content-")
    assert task.hf_subsets == ["base-2", "base-4", "base-soft-2", "ict-2"]
    assert HALvestRetrieval.metadata.dataset == {"path": T.repo, "revision": "main"}
    task.hf_subsets = ["base-2"]
    revision = task.metadata.dataset["revision"]
    res = mteb.evaluate(TableEncoder(TABLE), task, cache=None, overwrite_strategy="always").task_results[0]
    assert res.dataset_revision == revision
    again = mteb.evaluate(TableEncoder(TABLE), task, cache=None, overwrite_strategy="always").task_results[0]
    assert again.dataset_revision == revision  # mteb's unload_data drops instance metadata; the choice stays
    assert res.scores["test"][0]["dataset_path"] == str(copy)
    path = tmp_path / "r.json"
    res.to_disk(path)
    back = type(res).from_disk(path)
    assert back.dataset_revision == revision and back.scores["test"][0]["dataset_revision"] == revision
