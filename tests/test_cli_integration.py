"""End to end through the stock `mteb` command and fresh Python processes."""

from __future__ import annotations

import json
import sys
from collections import Counter

import pytest
from conftest import MINILM, bundled_minilm_path, run

from mteb_contrastive.data.halvest_builder import build_halvest_dataset
from mteb_contrastive.data.taln import taln_corpus


def test_startup_hook_does_not_import_mteb():
    r = run([sys.executable, "-c", "import sys; print('mteb' in sys.modules, 'mteb_contrastive_hook' in sys.modules)"])
    assert r.stdout.split() == ["False", "True"], r.stderr


def test_fresh_process_finds_tasks_without_importing_the_package():
    code = (
        "import mteb; t = mteb.get_task('HALvestRetrieval'); print(t.metadata.name, t.hf_subsets, "
        "mteb.get_task('HALvestTripletClassification').metadata.main_score)"
    )
    r = run([sys.executable, "-c", code])
    subsets = "['base-2', 'base-4', 'base-6', 'base-8']"
    assert r.stdout.strip() == f"HALvestRetrieval {subsets} accuracy", r.stderr  # the triplet release's configs


@pytest.fixture(scope="module")
def small_taln(tmp_path_factory):
    """A small real benchmark: TALN English abstracts of 40 author sets with >= 2 papers + 80 others."""
    from pathlib import Path

    shared = Path(__file__).resolve().parents[2] / "shared" / "data"
    docs, _ = taln_corpus(shared / "taln" / "articles.jsonl.gz", "abstract-en")
    sets = Counter(frozenset(d["authors"]) for d in docs)
    paired = [s for s, n in sets.items() if n >= 2][:40]
    keep = [d for d in docs if frozenset(d["authors"]) in paired] + [
        d for d in docs if sets[frozenset(d["authors"])] == 1
    ][:80]
    out = tmp_path_factory.mktemp("datasets")
    build_halvest_dataset(
        keep,
        out,
        "TALNSmallEn",
        ks=(2,),
        language="en",
        mteb_language="eng-Latn",
        n_triplets=1,
        seed=0,
        source="TALN abstracts (test subset)",
    )
    return out


def test_mteb_run_local_model_folder_on_built_tasks(small_taln, tmp_path):
    from mteb import ResultCache, TaskResult

    env = {"MTEB_CONTRASTIVE_DATASETS": str(small_taln)}
    r = run(
        [
            "mteb",
            "run",
            "-m",
            bundled_minilm_path(),
            "-t",
            "TALNSmallEnAuthorRetrieval",
            "TALNSmallEnAuthorTripletClassification",
            "--output-folder",
            str(tmp_path / "res"),
            "-v",
            "1",
        ],
        env,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    files = sorted(p.name for p in (tmp_path / "res").rglob("*.json"))
    assert files == [
        "TALNSmallEnAuthorRetrieval.json",
        "TALNSmallEnAuthorTripletClassification.json",
        "model_meta.json",
    ]
    f = next((tmp_path / "res").rglob("TALNSmallEnAuthorRetrieval.json"))
    assert f.parent.parent.name == "local__model"  # mteb's layout: <model>/<revision>/<task>.json
    s = TaskResult.from_disk(f).scores["test"][0]
    assert 0 < s["ndcg_at_10"] <= 1 and s["pool_size"] > 50 and s["main_score"] == s["ndcg_at_10"]
    cache_results = ResultCache(tmp_path / "res").load_results(models=["local/model"], tasks=None)
    names = {tr.task_name for mr in cache_results.model_results for tr in mr.task_results}
    assert {"TALNSmallEnAuthorRetrieval", "TALNSmallEnAuthorTripletClassification"} <= names


def test_mteb_run_standard_model_name_offline(small_taln, tmp_path):
    env = {"MTEB_CONTRASTIVE_DATASETS": str(small_taln)}
    r = run(
        [
            "mteb",
            "run",
            "-m",
            MINILM,
            "-t",
            "TALNSmallEnAuthorTripletClassification",
            "--output-folder",
            str(tmp_path / "res"),
            "-v",
            "1",
        ],
        env,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    res = json.loads(next((tmp_path / "res").rglob("TALNSmallEnAuthorTripletClassification.json")).read_text())
    s = res["scores"]["test"][0]
    assert s["n_triplets"] > 50 and 0.5 < s["accuracy"] <= 1


def test_main_job_without_hub_or_data_says_what_it_needs(tmp_path):
    r = run(["mteb-contrastive", "main", "--out", str(tmp_path / "b"), "--shared", str(tmp_path / "nowhere")])
    assert r.returncode == 2
    assert r.stdout.strip().splitlines() == [
        "main job: needs either the HuggingFace Hub (Madjakul/HALvest-Contrastive) "
        f"or the shared data at {tmp_path / 'nowhere'}/taln/articles.jsonl.gz "
        "(set MTEB_CONTRASTIVE_SHARED); found neither."
    ]
    assert not (tmp_path / "b" / "results").exists()


def test_a_command_that_imports_mteb_late_registers_cleanly(tmp_path):
    """In the `mteb-contrastive` command mteb is imported only when a subcommand needs it; the start-up
    hook then registers the extension while the subcommand's own modules are being imported. No
    module on that path may need a package face that is still half-imported (seed-model imports
    `mteb_contrastive.models.bundled`; `models/__init__` importing the metas made a circular import)."""
    r = run(["mteb-contrastive", "seed-model"], {"HF_HUB_CACHE": str(tmp_path / "hub")})
    assert r.returncode == 0, r.stderr
    assert "could not register" not in r.stderr, r.stderr
    assert r.stdout.strip().endswith("8b3219a92973c328a8e22fadcfa821b5dc75636a")
    code = "import mteb; print('QuoteRKJVNovelsEnglishRetrieval' in {t.metadata.name for t in mteb.get_tasks()})"
    r = run([sys.executable, "-c", code])
    assert r.stdout.split() == ["True"] and "could not register" not in r.stderr, r.stderr
