"""A fitted model's revision is what it computes: a pure refactor keeps it, a changed output, parameter or
library version moves it (baselines.revision)."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mteb_contrastive.baselines import BASELINES, bm25_lang
from mteb_contrastive.baselines import revision as rv

BASELINES_DIR = Path(rv.__file__).resolve().parent
SPARSE = [
    "mteb-contrastive/bm25-halvest",
    "mteb-contrastive/bm25s-triplets",
    "mteb-contrastive/tfidf-words",
    "mteb-contrastive/tfidf-bigrams",
    "mteb-contrastive/tfidf-char3",
]


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """An empty revision cache (disk and process), and a count of the probes run."""
    monkeypatch.setenv("MTEB_CONTRASTIVE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(rv, "_memo", {})
    calls = []
    probe = rv.probe_outputs

    def counted(model):
        calls.append(getattr(model, "model_name", type(model).__name__))
        return probe(model)

    monkeypatch.setattr(rv, "probe_outputs", counted)
    return calls


@pytest.fixture
def copy_package(tmp_path, monkeypatch):
    """Copy the baselines package to ``tmp/copies/<name>``, edit it, import it under ``name``."""
    made = []

    def make(name: str, edit) -> str:
        folder = tmp_path / "copies" / name
        shutil.copytree(BASELINES_DIR, folder, ignore=shutil.ignore_patterns("__pycache__"))
        edit(folder)
        monkeypatch.syspath_prepend(str(tmp_path / "copies"))
        importlib.invalidate_caches()
        made.append(name)
        return name

    yield make
    for name in made:
        for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[mod]


def edit_file(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path.name} no longer holds {old!r}: update the test's edit"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def refactor(folder: Path) -> None:
    """A pure refactor of sparse.py: a comment edited, a comment added, two imports moved."""
    sparse = folder / "sparse.py"
    edit_file(
        sparse,
        "from collections.abc import Sequence\nfrom typing import Any\n",
        "from typing import Any\n\nfrom collections.abc import Sequence\n",
    )
    edit_file(sparse, "# retrieval: mteb's BM25 search (bm25s), unchanged", "# retrieval: mteb's BM25Search as shipped")
    edit_file(
        sparse,
        "class TfidfBaseline(FittedBaseline):\n",
        "# scikit-learn does the work\nclass TfidfBaseline(FittedBaseline):\n",
    )


def test_a_pure_refactor_keeps_every_revision_after_probing_again(fresh_cache, copy_package, tmp_path):
    original = {n: rv.baseline_revision(n) for n in SPARSE}
    assert sorted(fresh_cache) == sorted(SPARSE)
    fresh_cache.clear()
    pkg = copy_package("refactored_baselines", refactor)
    copied = {n: rv.baseline_revision(n, package=pkg) for n in SPARSE}
    assert copied == original and all(r.startswith("probe-") for r in copied.values())
    # not served from the cache: the edited bytes gave new keys, and the probe ran again for each
    assert all(rv.cache_key(n, *BASELINES[n][:2], package=pkg) != rv.cache_key(n, *BASELINES[n][:2]) for n in SPARSE)
    assert sorted(fresh_cache) == sorted(SPARSE)
    assert len(list((tmp_path / "cache" / "baseline_revisions").glob("*.json"))) == 2 * len(SPARSE)
    # the copy's classes were the ones probed
    assert Path(sys.modules[f"{pkg}.sparse"].__file__).is_relative_to(tmp_path / "copies")


def test_a_changed_output_moves_the_revision_of_that_baseline_only(fresh_cache, copy_package):
    """char3 becomes char 2-and-3-grams in a copy: same name, class, kwargs and libraries, other scores."""

    def char_2_3(folder: Path) -> None:
        edit_file(
            folder / "sparse.py",
            '"char3": {"analyzer": "char", "ngram_range": (3, 3)}',
            '"char3": {"analyzer": "char", "ngram_range": (2, 3)}',
        )

    pkg = copy_package("changed_baselines", char_2_3)
    char3, words = "mteb-contrastive/tfidf-char3", "mteb-contrastive/tfidf-words"
    assert rv.baseline_revision(char3, package=pkg) != rv.baseline_revision(char3)
    assert rv.baseline_revision(words, package=pkg) == rv.baseline_revision(words)


def test_a_changed_parameter_moves_the_outputs_and_the_revision(fresh_cache):
    from mteb_contrastive.baselines.sparse import BM25sTripletBaseline

    default, k1 = rv.probe_outputs(BM25sTripletBaseline()), rv.probe_outputs(BM25sTripletBaseline(k1=1.2))
    assert default["pairs"] != k1["pairs"] and len(default["pairs"]) == 6 * 9
    name = "mteb-contrastive/bm25s-triplets"
    assert rv.baseline_revision(name, params={"k1": 1.2}) != rv.baseline_revision(name)
    lang = rv.model_revision(
        bm25_lang.MODEL_NAME, "bm25_lang.LanguageBM25Search", {"k1": 1.2}, package="mteb_contrastive.baselines"
    )
    assert lang.startswith("probe-") and lang != bm25_lang.revision()


def test_a_library_version_moves_the_revision_of_the_baselines_that_use_it(fresh_cache, monkeypatch):
    import sklearn

    assert rv.library_version("scikit-learn") == sklearn.__version__
    before = {n: rv.baseline_revision(n) for n in BASELINES}
    real = rv.library_version
    monkeypatch.setattr(rv, "library_version", lambda dist: "0.0.test" if dist == "scikit-learn" else real(dist))
    after = {n: rv.baseline_revision(n) for n in BASELINES}
    tfidf = {n for n in BASELINES if BASELINES[n][0] == "sparse.TfidfBaseline"}
    sklearn_users = {n for n in BASELINES if "scikit-learn" in rv.LIBRARIES[BASELINES[n][0]]}  # TF-IDF, Delta
    assert tfidf and tfidf | {"mteb-contrastive/burrows-delta", "mteb-contrastive/cosine-delta"} == sklearn_users
    assert all(after[n] != before[n] for n in sklearn_users)
    assert all(after[n] == before[n] for n in set(BASELINES) - sklearn_users)  # gensim, BM25, PPMd: no scikit-learn


def test_the_cache_serves_the_probe_once(fresh_cache):
    name = "mteb-contrastive/tfidf-words"
    first = rv.baseline_revision(name)
    key = rv.cache_key(name, *BASELINES[name][:2])
    folder = Path(os.environ["MTEB_CONTRASTIVE_CACHE"]) / "baseline_revisions"
    assert sorted(p.name for p in folder.iterdir()) == [f"{key}.json", "probe.lock"]  # whole, no temporary left
    assert json.loads((folder / f"{key}.json").read_text())["revision"] == first
    rv._memo.clear()
    assert rv.baseline_revision(name) == first and fresh_cache == [name]  # read back, not probed again
    (folder / f"{key}.json").write_text("{half")
    rv._memo.clear()
    assert rv.baseline_revision(name) == first and fresh_cache == [name, name]  # a broken entry is recomputed


def test_rounding_absorbs_summation_noise():
    assert rv.rounded([0.12345678, 1e-17, -1e-17, -0.5]) == [0.123457, 0.0, 0.0, -0.5]
    assert rv.rounded([3.14159265, 0.001234567]) == [3.14159, 0.00123]  # one quantum: 6 digits of the largest
    assert rv.rounded([2.0 * (1 + 1e-12), 7e-16]) == rv.rounded([2.0, 0.0])
    assert rv.rounded([]) == [] and rv.rounded([0.0, -0.0]) == [0.0, 0.0]
    assert str(rv.rounded([-0.0])[0]) == "0.0"


def test_registered_revisions_are_the_probe_revisions():
    import mteb

    for name in BASELINES:
        assert mteb.get_model_meta(name).revision == rv.baseline_revision(name)
    char3 = mteb.get_model_meta("mteb-contrastive/tfidf-char3").revision
    assert char3 == rv.baseline_revision("mteb-contrastive/tfidf-char3") and char3.startswith("probe-")
    assert mteb.get_model_meta(bm25_lang.MODEL_NAME).revision == bm25_lang.revision()


def test_revisions_are_the_same_in_another_process_with_another_hash_salt(tmp_path):
    """Probed again from scratch (empty cache, PYTHONHASHSEED=1): the gensim models included."""
    script = (
        "import json, mteb\nfrom mteb_contrastive.baselines import BASELINES, baseline_revision\n"
        "from mteb_contrastive.baselines import bm25_lang\n"
        "print(json.dumps({**{n: baseline_revision(n) for n in BASELINES}, 'lang': bm25_lang.revision()}))"
    )
    env = dict(os.environ, PYTHONHASHSEED="1", HF_HUB_OFFLINE="1", MTEB_CONTRASTIVE_CACHE=str(tmp_path / "cache"))
    r = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stderr.count("BM25S") == 0  # the probe's progress bars are held back
    here = {**{n: rv.baseline_revision(n) for n in BASELINES}, "lang": bm25_lang.revision()}
    assert json.loads(r.stdout.strip().splitlines()[-1]) == here
    assert len(list((tmp_path / "cache" / "baseline_revisions").glob("*.json"))) == len(BASELINES) + 1


def test_a_process_that_finds_the_probe_locked_waits_and_reads_the_revision_stored_meanwhile(tmp_path):
    # the lock is held here; the other process, on the same empty cache, must wait for it and then take
    # what was stored while it waited (a sentinel no probe gives) instead of probing again
    from mteb_contrastive.data.atomic import exclusive_lock

    env = {**os.environ, "MTEB_CONTRASTIVE_CACHE": str(tmp_path / "cache")}
    name = "mteb-contrastive/tfidf-words"
    code = (
        "import sys; from mteb_contrastive.baselines.revision import baseline_revision\n"
        f"sys.stdout.write(baseline_revision({name!r}))\n"
    )
    folder = tmp_path / "cache" / "baseline_revisions"
    folder.mkdir(parents=True)
    with exclusive_lock(folder / "probe"):
        proc = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=8)  # it waits on the lock (a probe alone takes well under a second)
        class_path, kwargs = BASELINES[name][0], BASELINES[name][1]
        key = rv.cache_key(name, class_path, dict(kwargs))
        (folder / f"{key}.json").write_text(json.dumps({"name": name, "revision": "probe-sentinel"}))
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0 and out == "probe-sentinel"
