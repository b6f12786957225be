"""The one place for mteb's private functions the project needs (mteb 2.26), each wrapped once.

Each wrapper checks, on first use, that the private function still has the parameters the project
passes (:func:`check`); ``tests/test_compat.py`` runs every check, so an mteb upgrade that renames
or changes one fails loudly there rather than deep inside a protocol. Modules adopt these wrappers
instead of importing ``mteb._...`` names directly (see ``docs/architecture.md`` for who uses what).

Wrapped:

* :func:`create_dataloader` -- ``mteb._create_dataloaders.create_dataloader`` (encode texts through
  mteb's own dataloader, prompts and batch size included);
* :func:`combine_queries_with_instruction_text` -- ``mteb._create_dataloaders._combine_queries_with_instruction_text``
  (the text a search model sees for an instruction query);
* :func:`pair_classification_metrics` -- ``AbsTaskPairClassification._compute_metrics`` (mteb's
  pair-classification scores from ``PairClassificationDistances``);
* :func:`save_task_predictions` -- ``AbsTask._save_task_predictions`` (``<folder>/<task>_predictions.json``);
* :func:`pair_classification_metric_values` -- ``AbsTaskPairClassification._compute_metrics_values``
  (mteb's accuracy/F1/precision/recall/AP of one score list: pair scores without vectors);
* :class:`NamespacedEmbeddingCache` -- mteb's ``CachedEmbeddingWrapper`` with its private
  ``_get_or_create_cache`` overridden (the store chosen by the caller, not by task and prompt type) and
  the private attributes its ``encode`` reads (:data:`CACHE_WRAPPER_ATTRIBUTES`) set here;
* :func:`check_all` -- every name above checked at once (registration calls it before it changes
  anything, and refuses an mteb whose private names moved, in one line naming the version);
* the block at the end of the file: the functions mteb's code calls by module-global lookup that
  the project replaces (:func:`patch`: result cache check, task evaluation, benchmark registry,
  prediction paths, ``mteb run``, the result cache's writes and reads, the model check of
  ``mteb.evaluate`` without importing sentence-transformers), and accessors of private
  attributes (task table, BM25 tokenizer).
"""

from __future__ import annotations

import inspect
from contextlib import contextmanager
from typing import Any

#: private function -> parameters the project relies on
EXPECTED = {
    "mteb._create_dataloaders:create_dataloader": (
        "dataset",
        "task_metadata",
        "prompt_type",
        "input_column",
        "batch_size",
        "num_proc",
    ),
    "mteb._create_dataloaders:_combine_queries_with_instruction_text": ("dataset",),
    "mteb.abstasks.pair_classification:AbsTaskPairClassification._compute_metrics": (
        "self",
        "similarity_scores",
        "labels",
    ),
    "mteb.abstasks.abstask:AbsTask._save_task_predictions": (
        "self",
        "predictions",
        "model",
        "prediction_folder",
        "hf_split",
        "hf_subset",
    ),
    "mteb.abstasks.abstask:AbsTask._evaluate_subset": (
        "self",
        "model",
        "data_split",
        "hf_split",
        "hf_subset",
        "encode_kwargs",
        "prediction_folder",
        "num_proc",
        "timer",
    ),
    "mteb.abstasks.retrieval:AbsTaskRetrieval._evaluate_subset": (
        "self",
        "model",
        "data_split",
        "encode_kwargs",
        "hf_split",
        "hf_subset",
        "prediction_folder",
        "num_proc",
        "timer",
    ),
    "mteb.abstasks.clustering_legacy:AbsTaskClusteringLegacy._evaluate_subset": (
        "self",
        "model",
        "data_split",
        "encode_kwargs",
        "hf_split",
        "hf_subset",
        "prediction_folder",
        "num_proc",
        "timer",
    ),
    "mteb.abstasks.abstask:AbsTask._calculate_descriptive_statistics_from_split": (
        "self",
        "split",
        "hf_subset",
        "compute_overall",
        "num_proc",
    ),
}

#: the methods a custom mteb task implements (mteb's documented way to write a task): the
#: protocols override them and call the retrieval and clustering ones through ``super()``. Not wrapped; their
#: signatures are checked with the rest of :data:`EXPECTED`, so an mteb change fails in tests/test_compat.py.
TASK_HOOKS = frozenset(
    {
        "mteb.abstasks.abstask:AbsTask._evaluate_subset",
        "mteb.abstasks.retrieval:AbsTaskRetrieval._evaluate_subset",
        "mteb.abstasks.clustering_legacy:AbsTaskClusteringLegacy._evaluate_subset",
        "mteb.abstasks.abstask:AbsTask._calculate_descriptive_statistics_from_split",
    }
)

_checked: set[str] = set()


def resolve(target: str) -> Any:
    """The object named ``module:attr.attr``."""
    import importlib

    module, _, attr = target.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def check(target: str) -> Any:
    """Resolve ``target`` and verify its parameters against :data:`EXPECTED`.

    Raises:
        RuntimeError: the function is gone or lost a parameter (mteb changed; adapt this module).
    """
    try:
        fn = resolve(target)
    except (ImportError, AttributeError) as exc:
        raise RuntimeError(f"mteb changed: {target} not found ({exc}); adapt mteb_contrastive/compat.py") from exc
    if target not in _checked:
        params = set(inspect.signature(fn).parameters)
        missing = [p for p in EXPECTED[target] if p not in params]
        if missing:
            raise RuntimeError(
                f"mteb changed: {target} has no parameter(s) {missing} "
                f"(has {sorted(params)}); adapt mteb_contrastive/compat.py"
            )
        _checked.add(target)
    return fn


def create_dataloader(dataset: Any, **kwargs: Any) -> Any:
    """mteb's dataloader over ``dataset`` (keyword arguments as mteb's ``create_dataloader``)."""
    return check("mteb._create_dataloaders:create_dataloader")(dataset, **kwargs)


def combine_queries_with_instruction_text(dataset: Any) -> Any:
    """The query dataset with ``text`` = query + " " + instruction, the original in ``query`` (mteb's rule)."""
    return check("mteb._create_dataloaders:_combine_queries_with_instruction_text")(dataset)


def pair_classification_metrics(task: Any, distances: dict[str, list[float]], labels: Any) -> dict[str, float]:
    """mteb's pair-classification scores of ``distances`` (``PairClassificationDistances``) for ``task``."""
    fn = check("mteb.abstasks.pair_classification:AbsTaskPairClassification._compute_metrics")
    return fn(task, distances, labels)


def save_task_predictions(
    task: Any, predictions: Any, model: Any, prediction_folder: Any, *, hf_split: str, hf_subset: str
) -> None:
    """Write ``predictions`` into ``<prediction_folder>/<task>_predictions.json`` under ``[hf_subset][hf_split]``."""
    fn = check("mteb.abstasks.abstask:AbsTask._save_task_predictions")
    fn(task, predictions, model, prediction_folder, hf_split=hf_split, hf_subset=hf_subset)


# --------------------------------------------------------------------------- protocols

EXPECTED["mteb.abstasks.pair_classification:AbsTaskPairClassification._compute_metrics_values"] = (
    "self",
    "scores",
    "labels",
    "high_score_more_similar",
)


def pair_classification_metric_values(
    task: Any, scores: list[float], labels: Any, high_score_more_similar: bool = True
) -> dict[str, float]:
    """mteb's pair-classification scores (``accuracy``, ``f1``, ``ap``, ... unprefixed) of one list of pair
    scores (shape (n_pairs,)) against 0/1 ``labels``; ``high_score_more_similar`` False for distances."""
    fn = check("mteb.abstasks.pair_classification:AbsTaskPairClassification._compute_metrics_values")
    return fn(task, scores, labels, high_score_more_similar)


# ---------------------------------------------------------------------------------------------
# Every other private mteb name the project touches, wrapped here once.
# Functions mteb's code calls by module-global lookup are replaced through :func:`patch`; the
# names below are the only spelling of those private names outside this file's tests.
# ---------------------------------------------------------------------------------------------

#: functions replaced by :func:`patch` (the replacement calls the original)
CHECK_CACHE = "mteb.evaluate:_check_cache"
EVALUATE_TASK = "mteb.evaluate:_evaluate_task"
BUILD_BENCHMARK_REGISTRY = "mteb.benchmarks.get_benchmark:_build_registry"
SAVE_TASK_PREDICTIONS = "mteb.abstasks.abstask:AbsTask._save_task_predictions"
MTEB_CLI_RUN = "mteb.cli.build_cli:run"  # public name, but mteb's CLI looks it up when parsing
#: public methods of mteb's result cache that write and read the result files (``<task>.json``,
#: ``model_meta.json``, ``run_settings.jsonl``); replaced to write them atomically and to read a
#: cut file as missing
SAVE_RESULT = "mteb.cache.result_cache:ResultCache.save_to_cache"
LOAD_RESULT = "mteb.cache.result_cache:ResultCache.load_task_result"
GET_MODEL_META = (
    "mteb.models.get_model_meta:get_model_meta"  # public name, but mteb.get_model looks it up in its module
)
#: how ``mteb.evaluate`` turns its ``model`` argument into (model, meta, name, revision); it imports
#: sentence-transformers first, whatever the model (see :func:`sanitized_without_sentence_transformers`)
SANITIZE_MODEL = "mteb.evaluate:_sanitize_model"

EXPECTED.update(
    {
        CHECK_CACHE: ("task", "meta", "cache", "overwrite_strategy"),
        EVALUATE_TASK: ("model", "task"),
        BUILD_BENCHMARK_REGISTRY: (),
        MTEB_CLI_RUN: ("args",),
        SAVE_RESULT: ("self", "task_result", "model_name", "model_revision", "encode_kwargs"),
        LOAD_RESULT: ("self", "task_name", "model_name", "model_revision", "raise_if_not_found"),
        "mteb.cache.result_cache:ResultCache.get_task_result_path": (
            "self",
            "task_name",
            "model_name",
            "model_revision",
        ),
        GET_MODEL_META: ("model_name", "revision"),
        SANITIZE_MODEL: ("model",),
        "mteb._evaluators.retrieval_metrics:calculate_retrieval_scores": ("results", "qrels", "k_values"),
        "mteb._evaluators.retrieval_metrics:make_score_dict": (
            "ndcg",
            "_map",
            "recall",
            "precision",
            "mrr",
            "naucs",
            "naucs_mrr",
            "hit_rate",
            "task_scores",
        ),
        "mteb.languages.iso_mappings:_hf_lang_to_iso_lang_script": ("hf_lang",),
        "mteb.models.model_implementations.bm25:BM25Search.index": ("self", "corpus", "task_metadata"),
    }
)

#: private attributes of mteb objects read or set here (checked by tests/test_compat.py)
PRIVATE_ATTRIBUTES = {
    "mteb.get_tasks:_TASKS_REGISTRY": "the task name -> class table behind mteb.get_task",
    "mteb.abstasks.abstask:AbsTask._support_cross_encoder": "whether AbsTask.evaluate lets a cross-encoder in",
    "mteb.models.model_implementations.bm25:BM25Search._tokenizer": "the BM25Tokenizer fitted by BM25Search.index",
}


def patch(target: str, make: Any, *, marker: str = "_mteb_contrastive") -> bool:
    """Replace the function ``target`` (``module:attr[.attr]``) by ``make(original)``, once.

    The replacement gets ``marker`` = True (a second call with the same marker does nothing) and
    ``__wrapped__`` = the original, so :func:`check` keeps checking mteb's own signature.

    Returns:
        True when installed now, False when already installed.
    Raises:
        RuntimeError: the function is gone or lost a parameter (see :func:`check`).
    """
    import importlib

    original = check(target)
    if getattr(original, marker, False):
        return False
    new = make(original)
    setattr(new, marker, True)
    new.__wrapped__ = original
    module, _, attr = target.partition(":")
    owner_path, _, name = attr.rpartition(".")
    owner = resolve(f"{module}:{owner_path}") if owner_path else importlib.import_module(module)
    _set(owner, name, new)
    return True


_MISSING = object()
#: (owner, name, value before) of every attribute set inside :func:`all_or_nothing`, else None
_journal: list[tuple[Any, str, Any]] | None = None


def _set(owner: Any, name: str, value: Any) -> None:
    """``setattr(owner, name, value)``, recorded for :func:`all_or_nothing`'s undo."""
    if _journal is not None:
        _journal.append((owner, name, vars(owner).get(name, _MISSING)))
    setattr(owner, name, value)


@contextmanager
def all_or_nothing() -> Any:
    """Every change to mteb made through this module inside the block (:func:`patch`,
    :func:`wrap_get_model_meta`, :func:`allow_cross_encoders`, the task table and ``TASK_LIST``, mteb's
    model registry) is undone when the block raises: mteb is left as it was, never half-patched."""
    global _journal
    import mteb
    from mteb.models.model_implementations import MODEL_REGISTRY

    table, listed = dict(task_table()), listed_tasks()
    models, get_model_meta = dict(MODEL_REGISTRY), mteb.get_model_meta
    outer, _journal = _journal, []
    try:
        yield
    except BaseException:
        for owner, name, before in reversed(_journal):
            if before is _MISSING:
                delattr(owner, name)
            else:
                setattr(owner, name, before)
        task_table().clear()
        task_table().update(table)
        set_listed_tasks(listed)
        MODEL_REGISTRY.clear()
        MODEL_REGISTRY.update(models)
        mteb.get_model_meta = get_model_meta
        raise
    finally:
        _journal = outer


def check_attribute(target: str, obj: Any = None) -> tuple[Any, str]:
    """(owner, attribute name) of an entry of :data:`PRIVATE_ATTRIBUTES`, checked to exist on the
    owner (a module or class), or on ``obj`` when given (an instance attribute).

    Raises:
        RuntimeError: the attribute is gone (mteb changed; adapt this module).
    """
    import importlib

    if target not in PRIVATE_ATTRIBUTES:
        raise KeyError(target)
    module, _, attr = target.partition(":")
    owner_path, _, name = attr.rpartition(".")
    try:
        owner = resolve(f"{module}:{owner_path}") if owner_path else importlib.import_module(module)
    except (ImportError, AttributeError) as exc:
        raise RuntimeError(f"mteb changed: {target} not found ({exc}); adapt mteb_contrastive/compat.py") from exc
    if not hasattr(owner if obj is None else obj, name):
        raise RuntimeError(f"mteb changed: {target} not found; adapt mteb_contrastive/compat.py")
    return owner, name


def task_table() -> dict[str, type]:
    """mteb's task name -> class table (``mteb.get_tasks._TASKS_REGISTRY``; ``mteb.get_task`` reads it). Mutable."""
    owner, name = check_attribute("mteb.get_tasks:_TASKS_REGISTRY")
    return getattr(owner, name)


def listed_tasks() -> tuple[type, ...]:
    """mteb's ``TASK_LIST``: the task classes ``mteb.get_tasks(<filters>)`` sweeps over."""
    import importlib

    return tuple(importlib.import_module("mteb.get_tasks").TASK_LIST)


def set_listed_tasks(classes: Any) -> None:
    """Replace mteb's ``TASK_LIST`` (what ``mteb.get_tasks(<filters>)`` sweeps over) by ``classes``."""
    import importlib

    importlib.import_module("mteb.get_tasks").TASK_LIST = tuple(classes)


def allow_cross_encoders(cls: type) -> None:
    """Let cross-encoders into ``cls``'s ``evaluate`` (mteb's private ``AbsTask._support_cross_encoder`` flag)."""
    _, name = check_attribute("mteb.abstasks.abstask:AbsTask._support_cross_encoder")
    _set(cls, name, True)


def retrieval_scores(
    qrels: dict[str, dict[str, int]], results: dict[str, dict[str, float]], k_values: Any
) -> dict[str, float]:
    """mteb's retrieval metrics (its own ``calculate_retrieval_scores`` / ``make_score_dict``) of a run.

    Args:
        qrels: query id -> {document id: gain}.
        results: query id -> {document id: score}.
        k_values: cut-offs (ints).
    Returns:
        ``ndcg_at_k``, ``map_at_k``, ``recall_at_k``, ``precision_at_k``, ``mrr_at_k``,
        ``hit_rate_at_k`` for each k, as mteb's retrieval task reports them.
    """
    calculate = check("mteb._evaluators.retrieval_metrics:calculate_retrieval_scores")
    make_score_dict = check("mteb._evaluators.retrieval_metrics:make_score_dict")
    _, ndcg, _map, recall, precision, naucs, mrr, naucs_mrr, hit_rate = calculate(results, qrels, list(k_values))
    d = make_score_dict(
        ndcg=ndcg,
        _map=_map,
        recall=recall,
        precision=precision,
        mrr=mrr,
        naucs=naucs,
        naucs_mrr=naucs_mrr,
        hit_rate=hit_rate,
        task_scores={},
    )
    keep = ("ndcg_at_", "map_at_", "recall_at_", "precision_at_", "mrr_at_", "hit_rate_at_")
    return {k: v for k, v in d.items() if k.startswith(keep)}


def hf_lang_to_iso_lang_script(code: str) -> str | None:
    """mteb's ``xxx-Xxxx`` form of an ISO 639-1 / 639-3 code (its private ``_hf_lang_to_iso_lang_script``);
    None when unknown."""
    return check("mteb.languages.iso_mappings:_hf_lang_to_iso_lang_script")(code)


def is_mteb_bm25(model: Any) -> bool:
    """True for mteb's own ``BM25Search`` (``mteb/baseline-bm25s``)."""
    check("mteb.models.model_implementations.bm25:BM25Search.index")
    from mteb.models.model_implementations.bm25 import BM25Search

    return isinstance(model, BM25Search)


def bm25_pool_scores(model: Any, texts: list[str]) -> tuple[dict[str, int], Any]:
    """The score of every indexed document for each query of ``texts`` under mteb's indexed ``BM25Search``.

    Tokenised in one call (one tokenisation pass for all queries, not one per query) with the
    tokenizer ``BM25Search.index`` fitted (private ``_tokenizer``), scored by
    ``bm25s.BM25.get_scores`` (terms outside the index vocabulary dropped, as bm25s' retrieve does).

    Returns:
        (document id -> position, (len(texts), n_docs) float32 scores in index order).
    Raises:
        RuntimeError: mteb changed the private attribute.
    """
    import numpy as np

    _, name = check_attribute("mteb.models.model_implementations.bm25:BM25Search._tokenizer", model)
    pos = {cid: i for i, cid in model.corpus_idx_to_id.items()}
    out = np.zeros((len(texts), len(pos)), dtype=np.float32)
    if not texts:
        return pos, out
    tok = getattr(model, name).transform(list(texts))
    inv = {i: t for t, i in tok.vocab.items()}
    for k, ids in enumerate(tok.ids):
        strings = [t for t in (inv[i] for i in ids) if t in model.retriever.vocab_dict]
        if strings:
            out[k] = model.retriever.get_scores(strings)
    return pos, out


def sanitized_without_sentence_transformers(original: Any) -> Any:
    """The replacement of :data:`SANITIZE_MODEL` (install with :func:`patch`).

    mteb's function (``mteb/evaluate.py``, ``_sanitize_model``) starts with
    ``from sentence_transformers import CrossEncoder, SentenceTransformer`` to test the model against
    them: 4-5 s of imports (transformers, torch) in a run of a model that never uses them (mteb's BM25,
    our baselines). No object is an instance of those classes while ``sentence_transformers`` is not
    imported, so then a ``ModelMeta``, or a model with an ``mteb_model_meta``, is answered as mteb's own
    branches answer it (the meta itself; the model with its meta, an empty meta when that is not a
    ``ModelMeta``); everything else, and everything once sentence-transformers is imported, goes to mteb.
    """
    import sys

    def sanitize_model(model: Any) -> Any:
        if "sentence_transformers" not in sys.modules:
            from mteb.models.model_meta import ModelMeta

            if isinstance(model, ModelMeta):
                return model, model, model.name, model.revision
            if hasattr(model, "mteb_model_meta"):
                meta = model.mteb_model_meta
                meta = meta if isinstance(meta, ModelMeta) else ModelMeta.create_empty()
                return model, meta, meta.name, meta.revision
        return original(model)

    return sanitize_model


def wrap_get_model_meta(make: Any) -> bool:
    """Replace ``mteb.get_model_meta`` (in its module, which ``mteb.get_model`` calls, and in ``mteb``'s
    namespace) by ``make(original)``, once (see :func:`patch`).

    Returns:
        True when installed now, False when already installed.
    """
    import mteb

    installed = patch(GET_MODEL_META, make)
    mteb.get_model_meta = resolve(GET_MODEL_META)
    return installed


class _CacheWithHook:
    """The result cache :data:`EVALUATE_TASK` is given, with ``hook(result)`` run before each of its
    ``save_to_cache`` calls (the intermediate results it saves after every subset)."""

    def __init__(self, cache: Any, hook: Any) -> None:
        self._cache, self._hook = cache, hook

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cache, name)

    def save_to_cache(self, task_result: Any, *args: Any, **kwargs: Any) -> Any:
        self._hook(task_result)
        return self._cache.save_to_cache(task_result, *args, **kwargs)


def wrap_task_evaluation(before: Any, after: Any) -> bool:
    """Call ``before(model, task)`` ahead of and ``after(model, task, result)`` behind every run of
    mteb's private :data:`EVALUATE_TASK` (the one function that runs one task for one model and
    builds its ``TaskResult``), once (see :func:`patch`). ``after`` also runs on each intermediate
    result that function saves to its ``cache`` after a subset: a run killed and resumed then finds
    in the saved file what ``after`` adds (the ``encoding_*`` statistics of the subsets done).

    Returns:
        True when installed now, False when already installed.
    """

    def make(original: Any) -> Any:
        def evaluate_task(*args: Any, **kwargs: Any) -> Any:
            model = kwargs.get("model", args[0] if args else None)
            task = kwargs.get("task", args[1] if len(args) > 1 else None)
            before(model, task)
            if kwargs.get("cache") is not None:
                kwargs["cache"] = _CacheWithHook(kwargs["cache"], lambda result: after(model, task, result))
            result = original(*args, **kwargs)
            after(model, task, result)
            return result

        return evaluate_task

    return patch(EVALUATE_TASK, make)


def task_result_path(cache: Any, task_name: str, model_name: Any, model_revision: str | None = None) -> Any:
    """The path of ``task_name``'s result file in mteb's result ``cache`` (``model_name``: a ``ModelMeta``,
    or a name with ``model_revision``)."""
    fn = check("mteb.cache.result_cache:ResultCache.get_task_result_path")
    if model_revision is None:
        return fn(cache, task_name, model_name)
    return fn(cache, task_name, model_name, model_revision)


# --------------------------------------------------------------------------- embedding cache

CACHE_WRAPPER = "mteb.models.cache_wrappers.cache_wrapper:CachedEmbeddingWrapper"
#: the private method mteb's ``CachedEmbeddingWrapper.encode`` calls for the store of one call (one
#: parameter in mteb 2.20, three since 2.26)
GET_OR_CREATE_CACHE = CACHE_WRAPPER + "._get_or_create_cache"
EXPECTED[GET_OR_CREATE_CACHE] = ("self", "task_name", "prompt_type", "encode_kwargs")
#: the attributes mteb's ``CachedEmbeddingWrapper.__init__`` sets and its ``encode`` reads
#: (``tests/test_compat.py`` compares them with a real instance's)
CACHE_WRAPPER_ATTRIBUTES = ("_model", "cache_path", "cache_backend", "cache_dict")


_namespaced_cache: type | None = None


def __getattr__(name: str) -> Any:
    """``NamespacedEmbeddingCache`` is made on first use (importing this module does not import mteb)."""
    if name == "NamespacedEmbeddingCache":
        return _namespaced_embedding_cache()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _namespaced_embedding_cache() -> type:
    global _namespaced_cache
    if _namespaced_cache is not None:
        return _namespaced_cache
    try:
        base: type = resolve(CACHE_WRAPPER)
    except (ImportError, AttributeError) as exc:
        raise RuntimeError(
            f"mteb changed: {CACHE_WRAPPER} not found ({exc}); adapt mteb_contrastive/compat.py"
        ) from exc

    class NamespacedEmbeddingCache(base):  # type: ignore[misc,valid-type]
        """mteb's ``CachedEmbeddingWrapper`` (its ``encode``: look every item up, encode the misses through
        the wrapped model, add them) whose store is chosen by :meth:`current_store` instead of mteb's
        (task name, prompt type, experiment) key.

        Args:
            model: the object whose ``encode`` computes the misses (and whose ``mteb_model_meta`` is shown).
            cache_path: folder of the store (created); None: no folder (an in-memory ``cache_backend``).
            cache_backend: the store class (mteb's ``CacheBackendProtocol``).
        """

        def __init__(self, model: Any, cache_path: Any, cache_backend: type) -> None:
            from pathlib import Path

            # what mteb's __init__ sets (CACHE_WRAPPER_ATTRIBUTES), without its folder requirement
            self._model = model
            self.cache_path = Path(cache_path) if cache_path is not None else None
            if self.cache_path is not None:
                self.cache_path.mkdir(parents=True, exist_ok=True)
            self.cache_backend = cache_backend
            self.cache_dict: dict[Any, Any] = {}

        @property
        def wrapped(self) -> Any:
            """The model whose ``encode`` computes the misses."""
            return self._model

        def current_store(self) -> Any:
            """The store for the next ``encode`` call (subclasses choose it). Default: one store."""
            if None not in self.cache_dict:
                self.cache_dict[None] = self.cache_backend(self.cache_path)
            return self.cache_dict[None]

        def _get_or_create_cache(
            self, task_name: str, prompt_type: Any, encode_kwargs: dict[str, Any] | None = None
        ) -> Any:
            return self.current_store()

    NamespacedEmbeddingCache.__module__ = __name__
    _namespaced_cache = NamespacedEmbeddingCache
    return NamespacedEmbeddingCache


def check_all() -> None:
    """Check every private mteb name of :data:`EXPECTED` and :data:`PRIVATE_ATTRIBUTES` (class and module
    attributes; instance attributes are checked where used).

    Raises:
        RuntimeError: one line naming the installed mteb version and the first name that moved.
    """
    import importlib.metadata

    instance_only = {"mteb.models.model_implementations.bm25:BM25Search._tokenizer"}
    try:
        for target in EXPECTED:
            check(target)
        for target in PRIVATE_ATTRIBUTES:
            if target not in instance_only:
                check_attribute(target)
    except RuntimeError as exc:
        try:
            version = importlib.metadata.version("mteb")
        except importlib.metadata.PackageNotFoundError:
            version = "?"
        raise RuntimeError(
            f"mteb {version} is not supported by mteb-contrastive (tested with mteb 2.26): {exc}; "
            "install a supported mteb (pip install 'mteb>=2.26,<2.27')"
        ) from None
