"""The two HALvest releases: which one each task reads when nothing is set, local copies of each in its
own schema, the recorded repository and revision, and the commit a branch is recorded as.

Synthetic triplet release (``base-2``): documents and author sets
d1 = d2 = {A, B}, d3 = d5 = {C}, d4 = {D}; spans as unit vectors at the angles below.
"""

from __future__ import annotations

import math

import mteb
import pytest
from conftest import TableEncoder
from test_halvest_data import PAIRS, write_hub_copy
from test_halvest_pairs import hub_copy

from mteb_contrastive.data.errors import DataError
from mteb_contrastive.data.halvest import PAIR_RELEASE, TRIPLET_RELEASE, folder_configs, hub_commit, positive_rule
from mteb_contrastive.protocols.author_retrieval import positive_author_set_differs
from mteb_contrastive.tasks.halvest import HALvestPairClassification, HALvestRetrieval, HALvestTripletClassification

AUTH = {"d1": ["A", "B"], "d2": ["B", "A"], "d3": ["C"], "d4": ["D"], "d5": ["C"]}
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def trip(q, qd, p, pd, n, nd):
    return {
        "query_halid": qd,
        "query": q,
        "query_year": "2020",
        "query_domain": ["cs"],
        "query_affiliations": ["x"],
        "query_authorids": AUTH[qd],
        "pos_halid": pd,
        "positive": p,
        "pos_year": "2021",
        "pos_domain": ["cs"],
        "pos_affiliations": ["x"],
        "pos_authorids": AUTH[pd],
        "neg_halids": nd,
        "negative": n,
        "neg_year": "2019",
        "neg_domain": ["cs"],
        "neg_affiliations": ["y"],
        "neg_authorids": AUTH[nd],
    }


TRIPLETS = [
    trip("Q1", "d1", "P1", "d2", "N1", "d3"),  # cross-document positive
    trip("Q2", "d1", "P2", "d1", "N2", "d4"),  # same-document positive (an "unrestricted" row)
    trip("Q3", "d3", "P3", "d5", "N3", "d1"),
]


def unit(deg):
    return [math.cos(math.radians(deg)), math.sin(math.radians(deg))]


ANGLES = {"Q1": 0, "Q2": 0, "Q3": 100, "P1": 20, "N1": 60, "P2": 90, "N2": 10, "P3": 120, "N3": 30}
TABLE = {t: unit(a) for t, a in ANGLES.items()}
D = [1 / math.log2(i + 2) for i in range(10)]  # nDCG discounts of ranks 1..10

ALL_VARS = [v for r in (TRIPLET_RELEASE, PAIR_RELEASE) for v in (r.path_env, r.repo_env, r.revision_env)]


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    """Nothing set: no release variable, an empty Hugging Face cache, the Hub offline."""
    import huggingface_hub.constants

    for var in ALL_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    return monkeypatch


@pytest.fixture
def triplet_copy(tmp_path, clean_env):
    root = write_hub_copy(tmp_path / "triplets", {"base-2": TRIPLETS, "base-8": TRIPLETS[:1]})
    clean_env.setenv(TRIPLET_RELEASE.path_env, str(root))
    return root


def scores(task, enc=None):
    res = mteb.evaluate(enc or TableEncoder(TABLE), task, cache=None, overwrite_strategy="always").task_results[0]
    return {s["hf_subset"]: s for s in res.scores["test"]}, res


def test_default_releases_when_nothing_is_set(clean_env):
    for cls in (HALvestTripletClassification, HALvestRetrieval):
        task = mteb.get_task(cls.metadata.name)
        assert task.metadata.dataset == {"path": "Madjakul/HALvest-Contrastive", "revision": "main"}
        assert task.hf_subsets == ["base-2", "base-4", "base-6", "base-8"]
        assert "`Madjakul/HALvest-Contrastive`" in cls.source_kind() and "authors' evaluation" in cls.source_kind()
        m = cls.missing()
        assert m is not None and "MTEB_CONTRASTIVE_HALVEST_PATH" in m.message  # offline: what to set
    task = mteb.get_task("HALvestPairClassification")
    assert task.metadata.dataset == {
        "path": "almanach/HALvest-Contrastive",
        "revision": "4c222e5249d318133cf0cfead7230955d0cf3409",
    }
    assert len(task.hf_subsets) == 10 and task.hf_subsets[4] == "base-soft-2" and task.hf_subsets[-1] == "ict-4"
    assert "MTEB_CONTRASTIVE_HALVEST_PAIRS_PATH" in HALvestPairClassification.missing().message


def test_triplet_copy_is_the_default_release_for_triplet_classification(triplet_copy):
    task = mteb.get_task("HALvestTripletClassification", hf_subsets=["base-2"])
    assert task.metadata.dataset["path"] == "Madjakul/HALvest-Contrastive"
    rev = task.metadata.dataset["revision"]
    assert rev.startswith("content-")
    s, res = scores(task)
    s = s["base-2"]
    # Q1: P1 20 deg (.940) > N1 60 deg (.5) right; Q2: P2 90 deg (0) < N2 10 deg (.985) wrong;
    # Q3 at 100 deg: P3 20 deg away (.940) > N3 70 deg away (.342) right
    assert s["accuracy"] == pytest.approx(2 / 3) and s["n_triplets"] == 3
    # base rows (positive from another document): Q1 and Q3, both right
    assert s["accuracy_cross_document"] == 1.0 and s["n_triplets_cross_document"] == 2
    assert s["dataset_path"] == "Madjakul/HALvest-Contrastive" and s["dataset_revision"] == rev
    assert res.dataset_revision == rev


def test_triplet_copy_retrieval_pool_and_qrels_by_hand(triplet_copy):
    task = mteb.get_task("HALvestRetrieval", hf_subsets=["base-2"])
    s = scores(task)[0]["base-2"]
    # pool P1 N1 P2 N2 P3 N3; relevant to Q1, Q2 ({A, B}): P1, P2, N3; to Q3 ({C}): N1, P3.
    # Q1 and Q2 (0 deg) rank N2 P1 N3 N1 P2 P3: relevant at 2, 3, 5; Q3 (100 deg) ranks P2 P3 N1 N3 P1 N2: at 2, 3
    q12 = (D[1] + D[2] + D[4]) / (D[0] + D[1] + D[2])
    q3 = (D[1] + D[2]) / (D[0] + D[1])
    assert s["ndcg_at_10"] == pytest.approx((2 * q12 + q3) / 3, abs=1e-5)
    assert s["mrr_at_10"] == pytest.approx(0.5) and s["hit_rate_at_1"] == 0
    # cross-document: Q1, Q2 lose P2 and N3 (document d1), Q3 loses N1 (d3): each keeps one relevant at rank 2
    assert s["ndcg_at_10_cross_document"] == pytest.approx(D[1], abs=1e-5)
    assert s["queries_with_same_document_candidates"] == 3
    assert s["pool_size"] == 6 and s["pool_candidates_raw"] == 6 and s["n_queries"] == 3
    assert s["rows_positive_author_set_differs"] == 0  # the authors' qrels (positive's set) are the same here
    assert s["dataset_path"] == "Madjakul/HALvest-Contrastive"


def test_positive_author_set_differs_counts_rows_in_nfc():
    rows = [dict(TRIPLETS[0]), dict(TRIPLETS[0], pos_authorids=["A"]), dict(TRIPLETS[0], pos_authorids=["B", "A"])]
    rows.append(dict(TRIPLETS[0], query_authorids=["Jose\u0301"], pos_authorids=["Jos\u00e9"]))  # NFD vs NFC
    assert positive_author_set_differs(rows) == 1


def test_pairs_copy_is_the_default_release_of_pair_classification_only(tmp_path, clean_env):
    root = write_hub_copy(tmp_path / "pairs", {"base-2": PAIRS})
    clean_env.setenv(PAIR_RELEASE.path_env, str(root))
    pair = mteb.get_task("HALvestPairClassification")
    assert pair.metadata.dataset["path"] == "almanach/HALvest-Contrastive"
    assert pair.metadata.dataset["revision"].startswith("content-")
    assert HALvestPairClassification.missing() is None
    assert HALvestTripletClassification.missing() is not None  # its release (the triplet one) is not here
    assert mteb.get_task("HALvestRetrieval").metadata.dataset["revision"] == "main"


def test_copy_in_the_other_schema_is_refused_naming_the_variable(tmp_path, clean_env):
    pairs = write_hub_copy(tmp_path / "pairs", {"base-2": PAIRS})
    clean_env.setenv(TRIPLET_RELEASE.path_env, str(pairs))
    task = mteb.get_task("HALvestTripletClassification", hf_subsets=["base-2"])
    with pytest.raises(DataError) as e:
        task.load_data()
    msg = str(e.value)
    assert msg.startswith(str(pairs)) and "MTEB_CONTRASTIVE_HALVEST_PATH names a copy of Madjakul" in msg
    assert "set MTEB_CONTRASTIVE_HALVEST_PAIRS_PATH" in msg
    trip_root = hub_copy(tmp_path / "trip", {"base-2": {"valid": TRIPLETS, "test": TRIPLETS}})
    clean_env.setenv(PAIR_RELEASE.path_env, str(trip_root))
    task = mteb.get_task("HALvestPairClassification", hf_subsets=["base-2"])
    with pytest.raises(DataError, match="set MTEB_CONTRASTIVE_HALVEST_PATH for a copy of Madjakul"):
        task.load_data()


def test_switching_release_switches_subsets(triplet_copy, clean_env):
    clean_env.setenv(TRIPLET_RELEASE.repo_env, PAIR_RELEASE.repo)
    task = mteb.get_task("HALvestRetrieval")
    assert task.metadata.dataset["path"] == PAIR_RELEASE.repo
    assert task.metadata.dataset["revision"] == PAIR_RELEASE.revision  # the pairs release's own pin
    assert task.hf_subsets == list(PAIR_RELEASE.configs)
    pair = HALvestPairClassification(path=TRIPLET_RELEASE.repo)  # Python argument: the triplet release
    assert pair.hf_subsets == list(TRIPLET_RELEASE.configs)
    assert pair.metadata.dataset["revision"].startswith("content-")  # read from its local copy


def test_folder_configs_in_order(tmp_path):
    for name in ("ict-2", "base-soft-4", "base-10", "base-2", "notes", "base-soft-2"):
        (tmp_path / name).mkdir()
    (tmp_path / "base-4").write_text("a file, not a config")
    assert folder_configs(tmp_path) == ("base-2", "base-10", "base-soft-2", "base-soft-4", "ict-2")
    assert folder_configs(tmp_path / "absent") == ()
    assert positive_rule("base-10") == "first_author"


def test_hub_commit_from_a_commit_the_cache_or_the_hub(clean_env, tmp_path):
    import huggingface_hub
    from huggingface_hub import constants

    repo = TRIPLET_RELEASE.repo
    assert hub_commit(repo, COMMIT) == COMMIT  # a commit is itself
    assert hub_commit(repo, None) is None  # offline, empty cache
    ref = tmp_path / "hf-cache" / "datasets--Madjakul--HALvest-Contrastive" / "refs" / "main"
    assert constants.HF_HUB_CACHE == str(tmp_path / "hf-cache")
    ref.parent.mkdir(parents=True)
    ref.write_text(COMMIT)
    assert hub_commit(repo, None) == COMMIT and hub_commit(repo, "main") == COMMIT
    assert hub_commit(repo, "other-branch") is None
    # the construction records the cached commit of the default branch
    assert HALvestRetrieval().metadata.dataset == {"path": repo, "revision": COMMIT}
    # online: the Hub's answer first (a fake Hub answer; no network)
    clean_env.delenv("HF_HUB_OFFLINE")
    newer = "f" * 40

    class Info:
        sha = newer

    asked = []

    def fake_info(self, repo_id, *, revision=None, timeout=None, **kw):
        asked.append((repo_id, revision))
        return Info()

    clean_env.setattr(huggingface_hub.HfApi, "dataset_info", fake_info)
    assert hub_commit(repo, None) == newer and asked == [(repo, "main")]
    assert hub_commit(repo, None, ask_hub=False) == COMMIT  # at construction the cache only

    def no_hub(self, *a, **kw):
        raise OSError("no network")

    clean_env.setattr(huggingface_hub.HfApi, "dataset_info", no_hub)
    assert hub_commit(repo, None) == COMMIT  # the Hub silent: the cache


def test_a_copy_rewritten_in_place_is_read_anew(triplet_copy):
    """The rows are read from the copy's files as they are now (datasets' cache of a local folder keys on
    its name and README only), and the recorded revision follows the content."""
    first, res1 = scores(mteb.get_task("HALvestTripletClassification", hf_subsets=["base-2"]))
    assert first["base-2"]["n_triplets"] == 3
    shard = triplet_copy / "base-2" / "test-00000-of-00001.parquet"
    import datasets

    datasets.Dataset.from_list(TRIPLETS[:2]).to_parquet(str(shard))
    again, res2 = scores(mteb.get_task("HALvestTripletClassification", hf_subsets=["base-2"]))
    assert again["base-2"]["n_triplets"] == 2 and again["base-2"]["accuracy"] == 0.5  # Q1 right, Q2 wrong
    assert res2.dataset_revision.startswith("content-") and res2.dataset_revision != res1.dataset_revision


def test_local_files_hub_header_lists_and_errors(tmp_path):
    from mteb_contrastive.data.halvest import local_files

    (tmp_path / "data").mkdir()
    for name in ("a-0.parquet", "a-1.parquet", "b-0.parquet"):
        (tmp_path / "data" / name).write_bytes(b"")
    (tmp_path / "README.md").write_text(
        "---\nconfigs:\n- config_name: base-2\n  data_files:\n  - split: test\n    path:\n    - data/a-*\n"
        "    - data/b-0.parquet\n  - split: valid\n    path: data/none-*\n---\n# card\n"
    )
    assert [f.name for f in local_files(tmp_path, "base-2", "test")] == ["a-0.parquet", "a-1.parquet", "b-0.parquet"]
    with pytest.raises(DataError, match=r"unknown config 'base-4': README.md lists \['base-2'\]"):
        local_files(tmp_path, "base-4", "test")
    with pytest.raises(DataError, match="config 'base-2' has no split 'valid'"):
        local_files(tmp_path, "base-2", "valid")
