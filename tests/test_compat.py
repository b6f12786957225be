"""Every private mteb function the project wraps still exists with the parameters we pass
(fails loudly on an mteb change)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mteb_contrastive import compat


@pytest.mark.parametrize("target", sorted(compat.EXPECTED))
def test_private_function_signature(target):
    compat.check(target)


def test_check_names_what_changed():
    compat.EXPECTED["mteb._create_dataloaders:nope"] = ("x",)
    try:
        with pytest.raises(RuntimeError, match=r"mteb changed: mteb._create_dataloaders:nope not found"):
            compat.check("mteb._create_dataloaders:nope")
    finally:
        del compat.EXPECTED["mteb._create_dataloaders:nope"]


def test_combine_queries_with_instruction_text():
    from datasets import Dataset

    ds = compat.combine_queries_with_instruction_text(
        Dataset.from_dict({"id": ["q"], "text": ["find x"], "instruction": ["in French"]})
    )
    assert ds["text"] == ["find x in French"] and ds["query"] == ["find x"]


def test_pair_classification_metrics_and_predictions(tmp_path):
    import mteb
    from mteb.abstasks.pair_classification import AbsTaskPairClassification

    task = next(
        t for t in mteb.get_tasks(task_types=["PairClassification"]) if isinstance(t, AbsTaskPairClassification)
    )
    sims = [0.9, 0.8, 0.2, 0.1]
    d = {
        "similarity_scores": sims,
        "cosine_scores": sims,
        "euclidean_distances": [1 - s for s in sims],
        "manhattan_distances": [1 - s for s in sims],
        "dot_scores": sims,
    }
    scores = compat.pair_classification_metrics(task, d, [1, 1, 0, 0])
    assert scores["similarity_accuracy"] == 1.0 and scores["similarity_ap"] == 1.0

    class Model:
        class mteb_model_meta:
            name, revision = "m", "1"

    compat.save_task_predictions(
        task,
        {"per_item": {"name": "accuracy", "ids": [1], "values": [1.0]}},
        Model,
        tmp_path,
        hf_split="test",
        hf_subset="default",
    )
    from mteb_contrastive.layout import prediction_subfolder

    # predictions go to a per-model folder (registration._patch_predictions_path)
    data = json.loads((prediction_subfolder(tmp_path, "m", "1") / f"{task.metadata.name}_predictions.json").read_text())
    assert data["default"]["test"]["per_item"]["values"] == [1.0]


def test_pair_classification_metric_values():
    import mteb
    from mteb.abstasks.pair_classification import AbsTaskPairClassification

    task = next(
        t for t in mteb.get_tasks(task_types=["PairClassification"]) if isinstance(t, AbsTaskPairClassification)
    )
    # scores 0.9, 0.8 (same author), 0.3, 0.1 (different): any threshold in (0.3, 0.8] separates them
    v = compat.pair_classification_metric_values(task, [0.9, 0.8, 0.3, 0.1], np.array([1, 1, 0, 0]))
    assert (v["accuracy"], v["f1"], v["ap"]) == (1.0, 1.0, 1.0)
    # as distances (low = similar) the two same-author pairs rank 3rd and 4th: AP = (1/3 + 2/4) / 2 = 5/12
    d = compat.pair_classification_metric_values(
        task, [0.9, 0.8, 0.3, 0.1], np.array([1, 1, 0, 0]), high_score_more_similar=False
    )
    assert d["ap"] == pytest.approx(5 / 12)


# ---- private attributes, patches, behaviour, and the scan of src/ ----


@pytest.mark.parametrize("target", sorted(compat.PRIVATE_ATTRIBUTES))
def test_private_attribute_exists(target):
    obj = None
    if target.endswith("BM25Search._tokenizer"):  # an instance attribute
        from mteb.models.model_implementations.bm25 import BM25Search

        obj = BM25Search()
    compat.check_attribute(target, obj)


def test_check_attribute_names_what_changed():
    compat.PRIVATE_ATTRIBUTES["mteb.get_tasks:_NOPE"] = "x"
    try:
        with pytest.raises(RuntimeError, match=r"mteb changed: mteb.get_tasks:_NOPE not found"):
            compat.check_attribute("mteb.get_tasks:_NOPE")
    finally:
        del compat.PRIVATE_ATTRIBUTES["mteb.get_tasks:_NOPE"]


def test_patch_installs_once_and_keeps_the_checked_signature(monkeypatch):
    import importlib

    gb = importlib.import_module("mteb.benchmarks.get_benchmark")
    installed = gb._build_registry  # registration's replacement
    assert getattr(installed, "_mteb_contrastive", False)
    assert compat.patch(compat.BUILD_BENCHMARK_REGISTRY, lambda original: lambda: {}) is False  # already there
    assert gb._build_registry is installed
    # a fresh function: replaced, marked, original reachable (so check() still sees mteb's signature)
    monkeypatch.setattr(gb, "_build_registry", installed.__wrapped__)
    assert compat.patch(compat.BUILD_BENCHMARK_REGISTRY, lambda original: lambda: {"n": len(original())}) is True
    assert gb._build_registry()["n"] == len(installed.__wrapped__()) > 0
    assert gb._build_registry.__wrapped__ is installed.__wrapped__


def test_task_table_is_what_get_task_reads():
    import mteb

    table = compat.task_table()
    assert table["HALvestRetrieval"] is type(mteb.get_task("HALvestRetrieval"))
    assert all(isinstance(c, type) for c in compat.listed_tasks())


def test_allow_cross_encoders_sets_mteb_flag():
    from mteb.abstasks.abstask import AbsTask

    class T(AbsTask):
        pass

    assert T._support_cross_encoder is False  # mteb's default
    compat.allow_cross_encoders(T)
    assert T._support_cross_encoder is True


def test_retrieval_scores_by_hand():
    # q1: relevant d1 ranked 2nd of 2; q2: relevant d3 ranked 1st
    qrels = {"q1": {"d1": 1}, "q2": {"d3": 1}}
    results = {"q1": {"d2": 0.9, "d1": 0.5}, "q2": {"d3": 0.8, "d4": 0.1}}
    s = compat.retrieval_scores(qrels, results, [1, 2])
    assert s["recall_at_1"] == pytest.approx(0.5) and s["recall_at_2"] == pytest.approx(1.0)
    assert s["mrr_at_2"] == pytest.approx((1 / 2 + 1) / 2)
    assert s["ndcg_at_2"] == pytest.approx((1 / np.log2(3) + 1) / 2, abs=1e-5)
    assert s["hit_rate_at_1"] == pytest.approx(0.5)


def test_hf_lang_to_iso_lang_script():
    assert compat.hf_lang_to_iso_lang_script("fr") == "fra-Latn"
    assert compat.hf_lang_to_iso_lang_script("zz-not-a-language") is None


def test_bm25_pool_scores_match_mteb_bm25_search():
    import mteb
    from datasets import Dataset

    docs = ["the red fox sleeps", "a blue whale swims", "the red horse runs fast", "green hills"]
    corpus = Dataset.from_list([{"id": f"c{i}", "text": t} for i, t in enumerate(docs)])
    queries = Dataset.from_list([{"id": "q", "text": "red fox"}, {"id": "w", "text": "whale"}])
    task = mteb.get_task("QuoteRKJVNovelsEnglishRetrieval")  # an English text task's metadata
    kw = dict(task_metadata=task.metadata, hf_split="test", hf_subset="default", encode_kwargs={"batch_size": 4})
    m = mteb.get_model("mteb/baseline-bm25s")
    assert compat.is_mteb_bm25(m) and not compat.is_mteb_bm25(object())
    m.index(corpus, **kw)
    found = m.search(queries, top_k=10, **kw)
    pos, scores = compat.bm25_pool_scores(m, ["red fox", "whale", "zebra"])  # one tokenisation for all queries
    assert sorted(pos) == ["c0", "c1", "c2", "c3"] and scores.shape == (3, 4)
    for k, q in enumerate(("q", "w")):
        for cid, s in found[q].items():  # every returned score is the pool score of that document
            assert scores[k, pos[cid]] == pytest.approx(s, rel=1e-5)
    assert scores[0, pos["c0"]] > scores[0, pos["c2"]] > 0 == scores[0, pos["c1"]]  # both terms > one term > none
    assert scores[1, pos["c1"]] > 0 and scores[2].tolist() == [0, 0, 0, 0]  # a term outside the index scores 0


def _private_references(path, private_names):
    """(line, what) of each reference to a private mteb name in the code of ``path`` (docstrings ignored)."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                docstrings.add(id(first.value))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [
                (node.lineno, a.name)
                for a in node.names
                if a.name.startswith("mteb._") or (a.name.startswith("mteb.") and "._" in a.name)
            ]
        elif isinstance(node, ast.ImportFrom) and (node.module == "mteb" or (node.module or "").startswith("mteb.")):
            mod = node.module or ""
            if mod.startswith("mteb._") or "._" in mod:
                found.append((node.lineno, mod))
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("_")]
        elif isinstance(node, ast.Attribute) and node.attr in private_names:
            found.append((node.lineno, node.attr))
        elif isinstance(node, ast.Name) and node.id in private_names:
            found.append((node.lineno, node.id))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            if "mteb._" in node.value or node.value in private_names:
                found.append((node.lineno, node.value))
    return found


def _private_names():
    """Every ``_``-prefixed segment of the private mteb names compat wraps (functions and attributes)."""
    names = set()
    for target in [*compat.EXPECTED, *compat.PRIVATE_ATTRIBUTES]:
        if target in compat.TASK_HOOKS:  # overridden by the protocols, as mteb's own tasks do
            continue
        module, _, attr = target.partition(":")
        names.update(p for p in [*module.split("."), *attr.split(".")] if p.startswith("_"))
    return names


def test_scan_finds_private_references(tmp_path):
    f = tmp_path / "m.py"
    f.write_text(
        '"""Docs may name mteb._evaluators."""\nimport mteb._create_dataloaders\n'
        "from mteb.evaluate import _check_cache\n"
        'x = m._tokenizer\ny = getattr(m, "_tokenizer")\nz = "mteb._evaluators"\n'
        "from mteb_contrastive.x import _ours\n",
        encoding="utf-8",
    )
    got = _private_references(f, _private_names())
    assert sorted(line for line, _ in got) == [2, 3, 4, 5, 6]  # not line 1 (a docstring)


def test_only_compat_touches_private_mteb_names():
    from pathlib import Path

    root = Path(compat.__file__).resolve().parent
    names = _private_names()
    assert {"_TASKS_REGISTRY", "_evaluate_task", "_combine_queries_with_instruction_text", "_tokenizer"} <= names
    offenders = []
    files = sorted({*root.rglob("*.py"), *(root / "tasks").glob("*.py")})  # rglob does not enter the tasks/ symlink
    assert root / "tasks" / "pan.py" in files
    for path in files:
        rel = path.relative_to(root)
        if path.resolve() == Path(compat.__file__).resolve():
            continue
        offenders += [f"{rel}:{line}: {what}" for line, what in _private_references(path, names)]
    assert not offenders, "private mteb names outside compat.py (add a compat accessor):\n" + "\n".join(offenders)


# ---- the embedding cache override, the check at registration, all-or-nothing registration ----


def test_cache_wrapper_attributes_are_mteb_s(tmp_path):
    """NamespacedEmbeddingCache sets exactly the attributes mteb's CachedEmbeddingWrapper.__init__ sets
    (it does not call that __init__), and mteb's encode still asks _get_or_create_cache for its store."""
    import inspect

    from mteb.models.cache_wrappers.cache_wrapper import CachedEmbeddingWrapper

    class Model:
        mteb_model_meta = None

        def encode(self, *a, **k):
            raise AssertionError

    assert set(vars(CachedEmbeddingWrapper(Model(), tmp_path))) == set(compat.CACHE_WRAPPER_ATTRIBUTES)
    ours = compat.NamespacedEmbeddingCache(Model(), tmp_path / "c", dict)
    assert set(vars(ours)) == set(compat.CACHE_WRAPPER_ATTRIBUTES)
    source = inspect.getsource(CachedEmbeddingWrapper.encode)
    assert "self._get_or_create_cache(task_name, prompt_type, kwargs)" in source


def test_namespaced_cache_serves_mteb_encode_from_the_chosen_store(tmp_path):
    """mteb's own encode, through the override: the second call finds every text in the store."""
    from datasets import Dataset
    from torch.utils.data import DataLoader

    from mteb_contrastive.encoding.store import MemoryEmbeddingStore

    calls = []

    class Model:
        mteb_model_meta = None

        def encode(self, inputs, **kwargs):
            texts = [t for b in inputs for t in b["text"]]
            calls.append(texts)
            return np.array([[float(len(t)), 1.0] for t in texts], dtype=np.float32)

    class OneStore(compat.NamespacedEmbeddingCache):
        def current_store(self):
            if "s" not in self.cache_dict:
                self.cache_dict["s"] = self.cache_backend(None, namespace="s", description={})
            return self.cache_dict["s"]

    import mteb

    task = mteb.get_task("CranfieldIRTriplets")
    cache = OneStore(Model(), None, MemoryEmbeddingStore)
    loader = DataLoader(Dataset.from_dict({"text": ["ab", "abcd"]}), batch_size=2)
    kw = dict(task_metadata=task.metadata, hf_split="test", hf_subset="default")
    first = cache.encode(loader, **kw)
    second = cache.encode(loader, **kw)
    assert calls == [["ab", "abcd"]]
    assert first.tolist() == second.tolist() == [[2.0, 1.0], [4.0, 1.0]]


def test_a_changed_cache_signature_is_refused_naming_the_mteb_version(monkeypatch):
    """mteb 2.20's one-argument _get_or_create_cache: check_all refuses in one line with the version."""
    import importlib.metadata

    from mteb.models.cache_wrappers.cache_wrapper import CachedEmbeddingWrapper

    def old(self, task_name):  # the mteb 2.20 signature
        raise AssertionError

    monkeypatch.setattr(CachedEmbeddingWrapper, "_get_or_create_cache", old)
    monkeypatch.setattr(compat, "_checked", set())
    with pytest.raises(RuntimeError) as err:
        compat.check_all()
    msg = str(err.value)
    assert "\n" not in msg
    assert f"mteb {importlib.metadata.version('mteb')} is not supported" in msg
    assert compat.GET_OR_CREATE_CACHE in msg and "encode_kwargs" in msg


def test_all_or_nothing_undoes_every_change():
    import importlib

    import mteb

    gb = importlib.import_module("mteb.benchmarks.get_benchmark")
    before_fn, before_gmm = gb._build_registry, mteb.get_model_meta
    table = dict(compat.task_table())

    class Marker:
        pass

    with pytest.raises(ZeroDivisionError):
        with compat.all_or_nothing():
            assert compat.patch(compat.BUILD_BENCHMARK_REGISTRY, lambda o: lambda: {}, marker="_test_marker")
            compat.allow_cross_encoders(Marker)
            compat.task_table()["NoSuchTaskForTheTest"] = Marker
            raise ZeroDivisionError
    assert gb._build_registry is before_fn and mteb.get_model_meta is before_gmm
    assert "_support_cross_encoder" not in vars(Marker)
    assert compat.task_table() == table


def test_registration_failing_half_way_leaves_mteb_as_shipped():
    """A step of register() that raises: every patch already applied is undone, and a second call (the
    step fixed) registers. Run in a fresh interpreter with the start-up hook off."""
    import subprocess
    import sys

    code = """
import os, sys
sys.argv[0] = "mteb-contrastive"  # so `import mteb_contrastive` does not register at once
import mteb_contrastive, mteb
from mteb_contrastive import compat
from mteb_contrastive.plugin import registration as r
targets = [compat.CHECK_CACHE, compat.SAVE_RESULT, compat.LOAD_RESULT, compat.SAVE_TASK_PREDICTIONS,
           compat.EVALUATE_TASK, compat.GET_MODEL_META]
before = [compat.resolve(t) for t in targets]
n_tasks = len(compat.task_table())
step = r._list_only_configured_tasks
def boom():
    raise OSError("disk gone")
r._list_only_configured_tasks = boom
try:
    r.register()
except OSError:
    pass
print([compat.resolve(t) is b for t, b in zip(targets, before)], len(compat.task_table()) == n_tasks,
      mteb.get_model_meta is before[-1], r._registered)
r._list_only_configured_tasks = step
r.register()
print(all(getattr(compat.resolve(t), "_mteb_contrastive", False) for t in targets), r._registered,
      "CranfieldIRTriplets" in compat.task_table())
"""
    env = dict(__import__("os").environ, MTEB_CONTRASTIVE_DISABLE="1")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.splitlines() == ["[True, True, True, True, True, True] True True False", "True True True"]


def test_importing_compat_does_not_import_mteb():
    """The `mteb-contrastive` command imports mteb only when a subcommand needs it: compat (imported by the
    builders) must not import it, or the start-up hook registers in the middle of a builder's import."""
    import subprocess
    import sys

    code = "import sys; sys.argv[0] = 'mteb-contrastive'; import mteb_contrastive.compat; print('mteb' in sys.modules)"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.split() == ["False"]


def test_model_check_of_evaluate_needs_no_sentence_transformers_for_a_meta(monkeypatch):
    import importlib
    import sys

    import mteb
    from mteb.models.model_meta import ModelMeta

    ev = importlib.import_module("mteb.evaluate")  # the module (mteb.evaluate is also mteb's function)

    installed = ev._sanitize_model  # registration's replacement
    assert getattr(installed, "_mteb_contrastive", False)
    original = installed.__wrapped__
    meta = mteb.get_model_meta("mteb/baseline-bm25s")

    class WithMeta:
        mteb_model_meta = meta

    class WithOtherMeta:
        mteb_model_meta = "not a ModelMeta"

    # with sentence-transformers imported, the same answers as mteb's own function
    import sentence_transformers  # noqa: F401

    for model in (meta, WithMeta(), WithOtherMeta()):
        assert installed(model) == original(model)
    # without it, answered without importing it (an import would raise here)
    monkeypatch.delitem(sys.modules, "sentence_transformers")

    class NoImport:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] == "sentence_transformers":
                raise AssertionError("sentence_transformers imported")

    monkeypatch.setattr(sys, "meta_path", [NoImport(), *sys.meta_path])
    assert installed(meta) == (meta, meta, "mteb/baseline-bm25s", meta.revision)
    m = WithMeta()
    assert installed(m) == (m, meta, meta.name, meta.revision)
    m = WithOtherMeta()
    assert installed(m)[1] == ModelMeta.create_empty() and installed(m)[0] is m
    with pytest.raises(AssertionError, match="sentence_transformers imported"):
        installed(object())  # anything else is mteb's: its import comes first
