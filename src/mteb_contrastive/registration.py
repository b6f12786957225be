"""The only module that changes mteb's registries and hooks (its private names through :mod:`mteb_contrastive.compat`).

mteb 2.26 builds its task table (:func:`mteb_contrastive.compat.task_table` / ``TASK_LIST``) from its own
package and has no plugin entry point, and ``mteb.get_model`` refuses a local folder. This
module:

* adds every task class of :mod:`mteb_contrastive.tasks` (and the tasks made from local dataset
  folders, see :mod:`mteb_contrastive.registry`) to mteb's task table, so that
  ``mteb run -t HALvestRetrieval`` and ``mteb.get_task("HALvestRetrieval")`` find them;
* lets ``mteb.get_model`` / ``mteb run -m ./path/to/model`` load a local sentence-transformers
  folder (a checkpoint before release), recorded as ``local/<folder name>`` with a revision
  that fingerprints the folder's weights, configs and tokenizer files (:func:`local_model_revision`):
  it changes when a weight changes, not when the folder moves;
* makes mteb re-evaluate our tasks when a cached result is of another dataset revision
  (:func:`_patch_stale_result_check`), writes ``--prediction-folder`` files per model
  (:func:`prediction_subfolder`), accepts ``rerank/...@<any k>`` and, under the ``mteb`` command,
  prints our bad-input errors as one line with exit status 2 (:func:`is_input_error`).

:func:`register` is idempotent; it is called by the start-up hook when mteb is imported and by
``import mteb_contrastive``.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

_registered = False


def register() -> None:
    """Register the extension's tasks and the local-model loader with mteb (idempotent)."""
    global _registered
    if _registered:
        return
    _registered = True
    from mteb_contrastive.quiet import quiet_if_asked

    quiet_if_asked()  # set by `mteb-contrastive evaluate` for its `mteb run`s
    from mteb_contrastive.registry import all_task_classes

    register_tasks(all_task_classes())
    _enable_cross_encoders()
    _enable_local_model_folders()
    from mteb_contrastive.baselines import registered_model_metas

    register_models(registered_model_metas())
    from mteb_contrastive.search.rerank import registered_model_metas as rerank_model_metas

    register_models(rerank_model_metas())
    from mteb_contrastive.search.bm25_lang import registered_model_metas as bm25_lang_metas

    register_models(bm25_lang_metas())
    _patch_predictions_path()
    _patch_stale_result_check()
    if os.path.basename(sys.argv[0] if sys.argv else "") == "mteb":
        _one_line_errors_in_mteb_cli()
    _record_encoding_statistics()
    _list_only_configured_tasks()
    _register_benchmarks()
    _check_data_before_model_in_mteb_cli()


def is_input_error(exc: BaseException) -> bool:
    """True for bad input that our code reports: a ``DataError``, or a ``ValueError`` /
    ``FileNotFoundError`` raised inside ``mteb_contrastive`` (a bad model name, a missing data
    folder). Other exceptions keep their traceback."""
    from mteb_contrastive.data.errors import DataError

    if isinstance(exc, DataError):
        return True
    if not isinstance(exc, (ValueError, FileNotFoundError)):
        return False
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    return last is not None and f"{os.sep}mteb_contrastive{os.sep}" in last.tb_frame.f_code.co_filename


def _one_line_errors_in_mteb_cli() -> None:
    """Under the ``mteb`` command, our bad-input errors print one line and exit 2 (not a traceback)."""
    from mteb_contrastive import compat

    def make(original: Any) -> Any:
        def run(args: Any) -> None:
            try:
                return original(args)
            except Exception as exc:
                if not is_input_error(exc):
                    raise
                print(f"mteb: error: {' '.join(str(exc).split())}", file=sys.stderr)
                raise SystemExit(2) from None

        return run

    compat.patch(compat.MTEB_CLI_RUN, make)


def _patch_stale_result_check() -> None:
    """mteb 2.26 (:data:`mteb_contrastive.compat.CHECK_CACHE`) returns a cached result that covers every split and
    subset without comparing its ``dataset_revision`` with the task's: after a dataset is rebuilt
    with other content, ``mteb run`` would return the old scores. For our tasks, a cached result of
    another dataset revision is evaluated again (strategy ``only-missing``; ``never`` /
    ``only-cache`` keep mteb's behaviour)."""
    from mteb_contrastive import compat

    def make(original: Any) -> Any:
        def check_cache(task: Any, meta: Any, cache: Any, overwrite_strategy: Any) -> Any:
            existing, missing = original(task, meta, cache, overwrite_strategy)
            strategy = getattr(overwrite_strategy, "value", overwrite_strategy)
            if (existing is not None and strategy == "only-missing" and type(task).__module__.startswith("mteb_contrastive.")
                    and existing.dataset_revision != task.metadata.revision):
                logger.warning("%s: the cached result is of dataset revision %s, the data is now %s: evaluating again", task.metadata.name, existing.dataset_revision, task.metadata.revision)
                return None, dict.fromkeys(task.eval_splits, task.hf_subsets)
            return existing, missing

        return check_cache

    compat.patch(compat.CHECK_CACHE, make)


def prediction_subfolder(prediction_folder: str | os.PathLike, model_name: str, revision: str | None) -> Path:
    """``<prediction_folder>/<model name, / -> __>/<revision>``: where one model's predictions go
    (the layout of mteb's results folder), so several models can share one ``--prediction-folder``."""
    return Path(prediction_folder) / str(model_name).replace("/", "__") / str(revision or "no_revision_available")


def _patch_predictions_path() -> None:
    """mteb writes ``<folder>/<task>_predictions.json`` for every model, merging into the file the
    previous model wrote (first model's name, last model's values); write per model instead."""
    from mteb_contrastive import compat

    def make(original: Any) -> Any:
        def save_task_predictions(self: Any, predictions: Any, model: Any, prediction_folder: Path, hf_split: str, hf_subset: str) -> None:
            meta = model.mteb_model_meta
            return original(self, predictions, model, prediction_subfolder(prediction_folder, meta.name, meta.revision), hf_split, hf_subset)

        return save_task_predictions

    compat.patch(compat.SAVE_TASK_PREDICTIONS, make)


def register_tasks(task_classes: list[type]) -> None:
    """Add task classes to mteb's task table.

    Raises:
        ValueError: a class's name is already taken by a different mteb task.
    """
    from mteb_contrastive import compat

    table = compat.task_table()
    new = []
    for cls in task_classes:
        name = cls.metadata.name
        existing = table.get(name)
        if existing is cls:
            continue
        if existing is not None and existing.__module__.startswith("mteb."):
            raise ValueError(f"task name {name!r} is already an mteb task ({existing.__module__})")
        table[name] = cls
        new.append(cls)
    if new:
        names = {c.metadata.name for c in new}
        compat.set_listed_tasks(tuple(t for t in compat.listed_tasks() if t.metadata.name not in names) + tuple(new))


def _enable_cross_encoders() -> None:
    """Let cross-encoders into the verification and triplet protocols (:func:`mteb_contrastive.compat.allow_cross_encoders`).

    Those protocols score a cross-encoder's pairs directly (:mod:`mteb_contrastive.protocols.cross_encoder_scoring`).
    """
    from mteb_contrastive import compat
    from mteb_contrastive.protocols.triplet_classification import AbsTaskTripletClassification
    from mteb_contrastive.protocols.verification import AbsTaskVerification

    for cls in (AbsTaskVerification, AbsTaskTripletClassification):
        compat.allow_cross_encoders(cls)


def register_models(metas: list[Any]) -> None:
    """Add ``ModelMeta`` objects (our baselines) to mteb's model registry."""
    from mteb.models.model_implementations import MODEL_REGISTRY

    for meta in metas:
        MODEL_REGISTRY.setdefault(meta.name, meta)


def local_model_revision(folder: str | os.PathLike) -> str:
    """``local-<fingerprint>`` of a model folder's weights, configs and tokenizer files.

    Files: :data:`mteb_contrastive.identity.MODEL_FILE_PATTERNS` (``*.json``, ``*.safetensors``,
    ``*.bin``, ``*.pt``, ``*.txt``, ...), at any depth, hidden files excluded; a README does not
    count. Equal for two copies of the same model in different places.
    """
    from mteb_contrastive.identity import MODEL_FILE_PATTERNS, folder_revision

    return "local-" + folder_revision(folder, patterns=MODEL_FILE_PATTERNS)


def local_model_meta(path: str | os.PathLike) -> Any:
    """A ``ModelMeta`` for a local sentence-transformers folder.

    The similarity function comes from the folder's ``config_sentence_transformers.json``
    (``similarity_fn_name``), cosine when absent, as sentence-transformers does.

    Raises:
        FileNotFoundError: ``path`` is not a folder with a ``modules.json`` or ``config.json``.
    """
    from mteb.models.model_meta import ModelMeta, ScoringFunction
    from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper

    folder = Path(path).expanduser().resolve()
    if not ((folder / "modules.json").is_file() or (folder / "config.json").is_file()):
        raise FileNotFoundError(
            f"{folder}: not a sentence-transformers model folder (no modules.json or config.json)"
        )
    sim = ScoringFunction.COSINE
    cfg_file = folder / "config_sentence_transformers.json"
    cross_encoder = False
    if cfg_file.is_file():
        st_cfg = json.loads(cfg_file.read_text())
        name = st_cfg.get("similarity_fn_name")
        if name:
            sim = ScoringFunction.from_str(name)
        cross_encoder = st_cfg.get("model_type") == "CrossEncoder"  # e.g. from `mteb-contrastive train-cross-encoder`
    max_tokens = None
    sbert = folder / "sentence_bert_config.json"
    if sbert.is_file():
        max_tokens = json.loads(sbert.read_text()).get("max_seq_length")

    def loader(name: str, revision: str | None = None, **kwargs: Any) -> Any:
        if cross_encoder:
            from mteb.models.sentence_transformer_wrapper import CrossEncoderWrapper

            return CrossEncoderWrapper(str(folder), **kwargs)
        return SentenceTransformerEncoderWrapper(str(folder), **kwargs)

    loader._st_folder = folder  # type: ignore[attr-defined]  (a sentence-transformers loader: see encoding.loading)

    return ModelMeta.create_empty(
        overwrites=dict(
            loader=loader,
            name=f"local/{folder.name}",
            revision=local_model_revision(folder),
            reference=folder.as_uri(),
            similarity_fn_name=sim,
            max_tokens=max_tokens,
            framework=["Sentence Transformers", "PyTorch"],
            modalities=["text"],
            model_type=["cross-encoder"] if cross_encoder else ["dense"],
            open_weights=True,
        )
    )


def _enable_local_model_folders() -> None:
    """Make ``mteb.get_model_meta`` accept an existing local folder."""
    import importlib

    gmm = importlib.import_module("mteb.models.get_model_meta")

    original = gmm.get_model_meta
    if getattr(original, "_mteb_contrastive", False):
        return

    def get_model_meta(model_name: str, revision: str | None = None, *args: Any, **kwargs: Any):
        from mteb_contrastive.encoding.loading import apply_to_meta
        from mteb_contrastive.encoding.settings import split_model_name

        options: dict[str, Any] = {}
        if isinstance(model_name, (str, os.PathLike)):
            model_name, options = split_model_name(str(model_name))  # "<model>::max_seq_length=512,..."
        if isinstance(model_name, str) and Path(model_name).expanduser().is_dir():
            return apply_to_meta(local_model_meta(model_name), options, folder=model_name)
        if isinstance(model_name, str) and model_name.startswith("rerank/"):
            from mteb.models.model_implementations import MODEL_REGISTRY

            if model_name not in MODEL_REGISTRY:  # any k, or one line naming the valid names
                from mteb_contrastive.search.rerank import model_meta_for_name

                return model_meta_for_name(model_name)
        return apply_to_meta(original(model_name, revision, *args, **kwargs), options)

    get_model_meta._mteb_contrastive = True  # type: ignore[attr-defined]
    get_model_meta.__doc__ = original.__doc__
    gmm.get_model_meta = get_model_meta
    import mteb

    mteb.get_model_meta = get_model_meta


def _record_encoding_statistics() -> None:
    """Add an ``EncodingModel``'s per-subset statistics and settings to every result it produces.

    Wraps mteb's private :data:`mteb_contrastive.compat.EVALUATE_TASK` (the one function that runs one task for
    one model and builds its ``TaskResult``): after it returns, each evaluated subset's scores get
    :meth:`~mteb_contrastive.encoding.wrapper.EncodingModel.encoding_scores` (``encoding_*`` keys).
    Models that are not an ``EncodingModel`` (or wrap none under ``.model``/``._model``) are untouched.
    """
    from mteb_contrastive import compat

    compat.patch(compat.EVALUATE_TASK, _with_encoding_statistics)


def _with_encoding_statistics(original: Any) -> Any:
    def evaluate_task(*args: Any, **kwargs: Any):
        from mteb_contrastive.encoding.wrapper import EncodingModel

        model = kwargs.get("model", args[0] if args else None)
        task = kwargs.get("task", args[1] if len(args) > 1 else None)
        enc = model
        for _ in range(3):  # an EncodingModel may sit inside a search wrapper or a two-stage model
            if isinstance(enc, EncodingModel) or enc is None:
                break
            enc = getattr(enc, "model", None) or getattr(enc, "_model", None)
        if isinstance(enc, EncodingModel) and task is not None:
            enc.reset_stats(task.metadata.name)
        result = original(*args, **kwargs)
        if isinstance(enc, EncodingModel) and task is not None and hasattr(result, "scores"):
            for split, entries in result.scores.items():
                for entry in entries:
                    entry.update(enc.encoding_scores(task.metadata.name, split, entry.get("hf_subset", "default")))
        return result

    return evaluate_task


def registered_task_class(name: str) -> type | None:
    """The task class mteb's task table holds under ``name`` (None when unknown)."""
    from mteb_contrastive import compat

    return compat.task_table().get(name)


def _list_only_configured_tasks() -> None:
    """Keep tasks whose data is not configured here out of ``mteb.get_tasks(<filters>)`` sweeps.

    They stay in mteb's name table (``mteb.get_task("PAN20Verification")`` still finds them and
    fails in ``load_data`` with the message saying what to set); only the filtered listing
    (``TASK_LIST``) leaves them out, so ``mteb.get_tasks(task_types=["Retrieval"])`` followed by
    ``mteb.evaluate`` does not stop on a missing folder. Decided once, at registration.
    """
    from mteb_contrastive import compat
    from mteb_contrastive.availability import missing_data

    table = compat.task_table()
    ours = {c.metadata.name for c in _our_classes()}
    missing = set()
    for name in ours:
        cls = table.get(name)
        if cls is not None and missing_data(cls) is not None:
            missing.add(name)
    if missing:
        logger.debug("not listed until their data is configured: %s", sorted(missing))
        compat.set_listed_tasks(t for t in compat.listed_tasks() if t.metadata.name not in missing)


def _our_classes() -> list[type]:
    from mteb_contrastive.registry import all_task_classes

    return all_task_classes()


def _register_benchmarks() -> None:
    """Add :mod:`mteb_contrastive.benchmarks` to ``mteb.get_benchmark(s)`` (built on first lookup)."""
    from mteb_contrastive import compat

    def make(original: Any) -> Any:
        def build_registry():
            from mteb_contrastive.benchmarks import benchmarks

            return {**original(), **benchmarks()}

        return build_registry

    compat.patch(compat.BUILD_BENCHMARK_REGISTRY, make)


def _check_data_before_model_in_mteb_cli() -> None:
    """In the stock ``mteb run`` command: stop with our message before any model is loaded.

    ``mteb run`` loads the model first and the task data last, so a missing folder ended in a
    traceback after minutes of model loading. When this process is the ``mteb`` command, its
    ``run`` is wrapped: each requested task of ours whose data is missing
    (:func:`mteb_contrastive.availability.missing_data`) is reported on stderr as
    ``mteb: error: <message>`` (the format of every one-line error of the ``mteb`` command) and the command exits with status 2.
    """
    import sys

    argv0 = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    if argv0 not in ("mteb", "__main__.py", "-m") or "run" not in sys.argv[1:2]:
        return
    from mteb_contrastive import compat

    def make(original: Any) -> Any:
        def run(args):
            from mteb_contrastive.availability import missing_data

            ours = {c.metadata.name for c in _our_classes()}
            reasons = []
            for name in getattr(args, "tasks", None) or []:
                cls = registered_task_class(name)
                if name in ours and cls is not None:
                    why = missing_data(cls)
                    if why:
                        reasons.append(why)
            if reasons:
                for why in reasons:
                    print(f"mteb: error: {why}", file=sys.stderr)
                raise SystemExit(2)
            return original(args)

        return run

    compat.patch(compat.MTEB_CLI_RUN, make, marker="_mteb_contrastive_data_check")
