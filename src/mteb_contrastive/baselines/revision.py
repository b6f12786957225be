"""Revision of a model fitted at evaluation time (the baselines, ``bm25s-lang``): what it computes.

The rule, for every such model::

    revision = "probe-" + fingerprint(model name, class path, loader parameters,
                                      versions of the libraries it computes with,
                                      its outputs on the probe)

The **probe** is fixed: :data:`PROBE` holds short anchors and candidates in English, French (with
accents and elisions) and Chinese (jieba words, character rules), so the tokenizer rules count. A
pair scorer is fitted on all of them (candidates as the BM25 background) and scores every
(anchor, candidate) pair with ``score_pairs``; every model then, per language, indexes that
language's candidates (one with a title) and searches them with its anchors, all candidates
returned. Outputs are the scores, the result ids and the ``fit_summary`` numbers.

**Rounding.** Each output array is rounded to :data:`SIGNIFICANT_DIGITS` (6) significant digits of
its largest absolute value (one quantum for the whole array, so a score that is 0 up to summation
noise rounds to 0), so that the order in which BLAS or numpy sums (CPU, thread count) cannot move
a revision, short of a score lying within that noise of a rounding boundary; a change of a score
by more than one quantum moves it. (A gensim model trained in float32 on a CPU with other BLAS
kernels could still round differently: its revision then differs there, which costs a
recomputation, never a stale result.)

So a pure refactor (a comment, an import moved, a helper renamed) keeps every revision, and a change
that moves a score (a parameter, a tokenizer rule) moves it. A new version of a library it computes
with moves it too, even when the probe does not move (a scikit-learn or bm25s release may change
what it computes on texts the probe does not have).

**Cost.** The probe imports the libraries and fits tiny models: about 0.75 s for all ten models
(baselines and ``bm25s-lang``) in a fresh process, 0.3 s of it the probes themselves (2 shared
cores). A revision is needed whenever mteb is imported, so it is cached on disk in
``$MTEB_CONTRASTIVE_CACHE/baseline_revisions/<key>.json`` (default ``~/.cache/mteb_contrastive``,
written atomically), keyed by :func:`cache_key`: the name, class path, parameters, library
versions and the bytes of the source files the model's code lives in (:func:`source_files`). A
code edit therefore runs the probe once more, and gives the same revision when the outputs are
unchanged; read from the cache, the ten revisions cost about 3 ms. A change of code outside those
files (e.g. inside a library) is seen through the library versions only. A probe runs under an
exclusive lock (``baseline_revisions/probe.lock``): processes that start together on an empty cache
(the ``mteb run`` processes ``evaluate`` starts ahead, beside its own) probe once, the others wait
and read the stored revision.

Errors are not hidden: a library that is missing or fails on the probe raises from the revision
(at ``import mteb``, the start-up hook then warns that the extension could not register).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.metadata
import io
import json
import math
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from mteb_contrastive.baselines.table import BASELINES
from mteb_contrastive.config import cache_root
from mteb_contrastive.data.atomic import exclusive_lock, write_text_atomic
from mteb_contrastive.identity import file_fingerprint, fingerprint

PREFIX = "probe-"
#: significant digits kept of each output array (relative to its largest absolute value)
SIGNIFICANT_DIGITS = 6
#: the package of the class paths of :data:`mteb_contrastive.baselines.table.BASELINES`
BASELINES_PACKAGE = "mteb_contrastive.baselines"

#: class path (relative to its package) -> the distributions whose code computes its scores
LIBRARIES: dict[str, tuple[str, ...]] = {
    "sparse.TfidfBaseline": ("scikit-learn", "scipy", "numpy", "jieba"),
    # triplets: its own BM25 (numpy, scipy); retrieval: mteb's BM25Search (bm25s, PyStemmer stemmers, stop words)
    "sparse.BM25TripletBaseline": ("mteb", "bm25s", "PyStemmer", "scipy", "numpy", "jieba"),
    "sparse.BM25sTripletBaseline": ("bm25s", "scipy", "numpy", "jieba"),
    "gensim_models.Word2VecAverage": ("gensim", "scipy", "numpy", "jieba"),
    "gensim_models.Doc2VecBaseline": ("gensim", "scipy", "numpy", "jieba"),
    "bm25_lang.LanguageBM25Search": ("bm25s", "scipy", "numpy", "jieba"),
    "stylometry.BurrowsDelta": ("scikit-learn", "scipy", "numpy", "jieba"),
    "stylometry.CosineDelta": ("scikit-learn", "scipy", "numpy", "jieba"),
    "compression.PPMdCBC": ("pyppmd", "numpy"),
}

#: language (ISO 639-3 + script, as mteb's ``eval_langs``) -> (anchors, candidates)
PROBE: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "eng-Latn": (
        ("The wind blows over London at night.", "Dogs bark at the postman."),
        (
            "Windy nights in London are cold.",
            "The postman fears the dogs of London.",
            "Birds sing at dawn in the garden.",
        ),
    ),
    "fra-Latn": (
        ("Le vent souffle sur Paris en été.", "Les élèves étudient à l'école."),
        (
            "L'été à Paris est chaud et venté.",
            "À l'école, les élèves préfèrent l'été.",
            "Le château médiéval domine la forêt.",
        ),
    ),
    "cmn-Hans": (
        ("我们今天去北京大学。", "他们喜欢吃苹果。"),
        ("我们明天去北京大学看书。", "我们今天在北京大学吃苹果。", "天气很好，我们去公园。"),
    ),
}
#: title of each language's first candidate in the search probe (the others have none)
_TITLES = {"eng-Latn": "London", "fra-Latn": "Paris", "cmn-Hans": "北京"}


# -- inputs of the revision -------------------------------------------------------------------------
@functools.cache
def _installed_version(dist: str) -> str:
    return importlib.metadata.version(dist)


def library_version(dist: str) -> str:
    """Installed version of distribution ``dist`` (e.g. ``"scikit-learn"``).

    Raises:
        importlib.metadata.PackageNotFoundError: ``dist`` is not installed.
    """
    return _installed_version(dist)


def library_versions(class_path: str) -> dict[str, str]:
    """Distribution -> installed version, for the libraries :data:`LIBRARIES` lists for ``class_path``.

    Raises:
        ValueError: ``class_path`` is not in :data:`LIBRARIES`.
        importlib.metadata.PackageNotFoundError: one of them is not installed.
    """
    if class_path not in LIBRARIES:
        raise ValueError(
            f"no library list for {class_path!r}: add the libraries it computes with to baselines.revision.LIBRARIES"
        )
    return {dist: library_version(dist) for dist in LIBRARIES[class_path]}


def _package_folder(package: str) -> Path:
    return Path(importlib.import_module(package).__file__).resolve().parent


def source_files(package: str) -> list[Path]:
    """The files whose bytes key the cache: every ``*.py`` of ``package``'s folder and of the
    baselines package (base class, this probe), the text rules (``data/text.py``,
    ``data/tokenize.py``) and ``compat.py``.

    Raises:
        ModuleNotFoundError: ``package`` cannot be imported.
    """
    root = _package_folder("mteb_contrastive")
    folders = {_package_folder(package), _package_folder(BASELINES_PACKAGE)}
    files = {p for folder in folders for p in folder.glob("*.py")}
    return sorted(files | {root / "data" / "text.py", root / "data" / "tokenize.py", root / "compat.py"})


def cache_key(name: str, class_path: str, params: dict[str, Any], *, package: str = BASELINES_PACKAGE) -> str:
    """Key of the cached revision: fingerprint (24 hex) of the name, class path, parameters, library
    versions and the bytes of :func:`source_files`; it changes with any edit of those files.

    Raises:
        ValueError, importlib.metadata.PackageNotFoundError: as :func:`library_versions`.
    """
    sources = file_fingerprint(source_files(package))
    return fingerprint("probe-revision", name, class_path, params, library_versions(class_path), sources, length=24)


# -- the probe --------------------------------------------------------------------------------------
def rounded(values: Iterable[float], digits: int = SIGNIFICANT_DIGITS) -> list[float]:
    """``values`` rounded to ``digits`` significant digits of their largest absolute value.

    One quantum ``10 ** (floor(log10(max |v|)) - digits + 1)`` for all of them, so summation noise
    around 0 rounds to 0 (and ``-0.0`` is ``0.0``); NaN and infinities are kept as they are.
    """
    import numpy as np

    x = np.asarray(list(values), dtype=np.float64).ravel()
    finite = x[np.isfinite(x)]
    top = float(np.max(np.abs(finite))) if finite.size else 0.0
    if top == 0.0:
        return [float(v) + 0.0 for v in x]
    quantum = 10.0 ** (math.floor(math.log10(top)) - digits + 1)
    return [float(f"{round(v / quantum) * quantum:.{digits}g}") + 0.0 if math.isfinite(v) else v for v in x.tolist()]


def _summary(summary: dict[str, float]) -> dict[str, float]:
    keys = sorted(summary)
    return dict(zip(keys, rounded([summary[k] for k in keys])))


@functools.cache
def _probe_datasets(lang: str) -> tuple[Any, Any]:
    """(corpus, queries) ``datasets.Dataset`` of :data:`PROBE`'s language ``lang``, built once per process
    (every model reads the same rows; a ``Dataset`` is not changed in place by reading it)."""
    from datasets import Dataset

    queries, docs = PROBE[lang]
    rows = [{"id": f"c{i}", "title": _TITLES[lang] if i == 0 else "", "text": t} for i, t in enumerate(docs)]
    return Dataset.from_list(rows), Dataset.from_list([{"id": f"q{i}", "text": t} for i, t in enumerate(queries)])


def probe_outputs(model: Any) -> dict[str, Any]:
    """What ``model`` computes on :data:`PROBE` (rounded, see :func:`rounded`).

    A pair scorer (a ``fit`` method) is fitted on every probe text, the candidates as
    ``candidate_texts``, and scores every (anchor, candidate) pair: ``"pairs"`` (float list, anchors
    outer) and ``"fit"`` (its ``fit_summary``). Every model then indexes each language's candidates
    (``{"id", "title", "text"}`` rows) and searches them with that language's anchors, ``top_k`` =
    all candidates: ``"search"`` = language -> ``{"hits": query id -> candidate id -> score, "fit": fit_summary}``.

    Raises:
        whatever the model raises on the probe (e.g. ``ValueError`` on empty input).
    """
    out: dict[str, Any] = {}
    anchors = [text for texts, _ in PROBE.values() for text in texts]
    candidates = [text for _, texts in PROBE.values() for text in texts]
    if hasattr(model, "fit"):
        model.fit(anchors + candidates, candidate_texts=candidates)
        out["fit"] = _summary(model.fit_summary)
        out["pairs"] = rounded(model.score_pairs([a for a in anchors for _ in candidates], candidates * len(anchors)))
    out["search"] = {}
    for lang, (_, docs) in PROBE.items():
        meta = SimpleNamespace(eval_langs=[lang], languages=[lang])  # the two fields the models read
        corpus, qs = _probe_datasets(lang)
        kw = dict(task_metadata=meta, hf_split="test", hf_subset="default", encode_kwargs={})
        model.index(corpus, **kw)
        res = model.search(qs, top_k=len(docs), **kw)
        out["search"][lang] = {
            "hits": {q: dict(zip(hits, rounded(hits.values()))) for q, hits in res.items()},
            "fit": _summary(getattr(model, "fit_summary", {})),
        }
    return out


# -- the revision -----------------------------------------------------------------------------------
_memo: dict[str, str] = {}


@contextlib.contextmanager
def _quiet_bars() -> Iterator[None]:
    """Hold back stderr (the progress bars mteb's BM25Search cannot turn off) while the probe runs;
    printed after all if the probe raises."""
    held = io.StringIO()
    try:
        with contextlib.redirect_stderr(held):
            yield
    except BaseException:
        sys.stderr.write(held.getvalue())
        raise


def _cache_file(key: str) -> Path:
    return cache_root() / "baseline_revisions" / f"{key}.json"


def model_revision(name: str, class_path: str, params: dict[str, Any], *, package: str = BASELINES_PACKAGE) -> str:
    """Revision (``"probe-"`` + 12 hex) of model ``name``: an instance of ``package.class_path``
    built with ``params``, fingerprinted by the module docstring's rule; cached by :func:`cache_key`
    (in this process and on disk; a cache that cannot be written is recomputed next time).

    Raises:
        ValueError, importlib.metadata.PackageNotFoundError: as :func:`library_versions`.
        ModuleNotFoundError, AttributeError: ``package.class_path`` does not exist.
        whatever the model raises on the probe.
    """
    key = cache_key(name, class_path, params, package=package)
    if key in _memo:
        return _memo[key]
    path = _cache_file(key)
    revision = _cached(path, name)
    if revision is None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            lock = exclusive_lock(path.parent / "probe")
        except OSError:  # a read-only cache: probed here, unlocked
            lock = contextlib.nullcontext()
        with lock:  # processes started together (evaluate's runs) probe once: the others wait, then read
            revision = _cached(path, name)
            if revision is None:
                revision = _probe(name, class_path, params, package, path)
    _memo[key] = revision
    return revision


def _cached(path: Path, name: str) -> str | None:
    """The revision stored at ``path`` for ``name``; None when absent or broken (probed again)."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        return record["revision"] if record.get("name") == name else None
    except (OSError, ValueError, AttributeError, KeyError, TypeError):
        return None


def _probe(name: str, class_path: str, params: dict[str, Any], package: str, path: Path) -> str:
    """Fit ``name`` on the probe and fingerprint it (module docstring); stored at ``path`` when it can be."""
    module, cls = class_path.rsplit(".", 1)
    model = getattr(importlib.import_module(f"{package}.{module}"), cls)(name, None, **params)
    versions = library_versions(class_path)
    with _quiet_bars():
        outputs = probe_outputs(model)
    revision = PREFIX + fingerprint(name, class_path, params, versions, outputs, length=12)
    try:  # best effort: a read-only cache only costs the probe again
        record = {"name": name, "class": class_path, "params": params, "libraries": versions, "revision": revision}
        write_text_atomic(path, json.dumps(record, ensure_ascii=False, default=str))
    except OSError:
        pass
    return revision


def baseline_revision(name: str, *, params: dict[str, Any] | None = None, package: str = BASELINES_PACKAGE) -> str:
    """Revision of baseline ``name`` of :data:`~mteb_contrastive.baselines.BASELINES`: :func:`model_revision`
    of its class path and loader kwargs (``params`` replaces them; ``package``: where the class path
    is imported from, e.g. a copy of the baselines package).

    Raises:
        KeyError: ``name`` is not a baseline.
        as :func:`model_revision`.
    """
    class_path, kwargs = BASELINES[name][0], BASELINES[name][1]
    return model_revision(name, class_path, dict(kwargs if params is None else params), package=package)
