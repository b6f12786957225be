"""The only module that changes mteb's registries and hooks (mteb's private names through
:mod:`mteb_contrastive.compat`).

mteb 2.26 builds its task table (:func:`mteb_contrastive.compat.task_table`) from its own package and
has no plugin entry point, and ``mteb.get_model`` refuses a local folder. :func:`register`:

* adds every task class of the catalog (:func:`mteb_contrastive.catalog.all_task_classes`: the
  declared tasks and those made from the configured folders) to mteb's task table, so that
  ``mteb run -t HALvestRetrieval`` and ``mteb.get_task("HALvestRetrieval")`` find them, and keeps
  those whose data is not here out of ``mteb.get_tasks(<filters>)`` sweeps;
* adds the extension's models (:mod:`mteb_contrastive.models`) to mteb's model registry and lets
  ``mteb.get_model_meta`` / ``mteb run -m`` take a local folder, any ``rerank/...@<k>`` and encoding
  options after ``::`` (:func:`get_model_meta`);
* adds the benchmarks (:mod:`mteb_contrastive.benchmarks.suites`) to ``mteb.get_benchmark(s)``;
* makes mteb re-evaluate our tasks when a cached result is of another dataset revision, writes
  ``--prediction-folder`` files per model (:func:`mteb_contrastive.layout.prediction_subfolder`),
  writes result and prediction files whole (a kill never leaves a cut file) and reads a cut one
  as missing (evaluated again, one warning line), adds the encoding statistics to every result
  (also to the intermediate results mteb saves, so a resumed run keeps them), and, under the
  ``mteb`` command, stops before any model is loaded when a requested task's data is missing and
  prints our bad-input errors as one line with exit status 2 (:func:`is_input_error`) and ends the
  process without the interpreter's last collections (:mod:`mteb_contrastive.process_exit`).

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

from mteb.models.model_implementations import MODEL_REGISTRY

from mteb_contrastive import catalog, compat, config
from mteb_contrastive.benchmarks.suites import benchmarks
from mteb_contrastive.data.atomic import staged_writes
from mteb_contrastive.data.errors import InputError
from mteb_contrastive.encoding.loading import apply_to_meta
from mteb_contrastive.encoding.settings import split_model_name
from mteb_contrastive.encoding.wrapper import EncodingModel
from mteb_contrastive.layout import prediction_subfolder, predictions_file
from mteb_contrastive.models import baselines as baseline_models
from mteb_contrastive.models import rerank as rerank_models
from mteb_contrastive.models.local import is_model_folder, local_model_meta
from mteb_contrastive.models.rerank import model_meta_for_name
from mteb_contrastive.plugin.quiet import quiet_if_asked
from mteb_contrastive.process_exit import skip_final_collection
from mteb_contrastive.protocols.triplet_classification import AbsTaskTripletClassification
from mteb_contrastive.protocols.verification import AbsTaskVerification
from mteb_contrastive.report.reader import SHAPE_ERRORS, UnreadableResult, result_problem, unreadable_result, warn

logger = logging.getLogger(__name__)

_registered = False


def register() -> None:
    """Register the extension's tasks, models and benchmarks with mteb (idempotent).

    Every private mteb name is checked first (:func:`mteb_contrastive.compat.check_all`), then mteb is
    changed all or nothing (:func:`mteb_contrastive.compat.all_or_nothing`): a failure on the way
    leaves mteb as shipped, and a later call tries again.

    Raises:
        RuntimeError: the installed mteb moved a private name (one line naming its version).
    """
    global _registered
    if _registered:
        return
    quiet_if_asked()  # set by `mteb-contrastive evaluate` for its `mteb run`s
    compat.check_all()
    with compat.all_or_nothing():
        _register()
    _registered = True


def _register() -> None:
    register_tasks(catalog.all_task_classes())
    for cls in (AbsTaskVerification, AbsTaskTripletClassification):
        compat.allow_cross_encoders(cls)  # these protocols score a cross-encoder's pairs directly
    compat.wrap_get_model_meta(_with_local_folders)
    register_models(
        [
            *baseline_models.registered_model_metas(),
            *rerank_models.registered_model_metas(),
            baseline_models.bm25_lang_meta(),
        ]
    )
    compat.patch(compat.SAVE_TASK_PREDICTIONS, _per_model_predictions)
    compat.patch(compat.CHECK_CACHE, _stale_results_evaluated_again)
    compat.patch(compat.SAVE_RESULT, _result_files_written_whole)
    compat.patch(compat.LOAD_RESULT, _unreadable_result_is_missing)
    compat.patch(compat.SANITIZE_MODEL, compat.sanitized_without_sentence_transformers)
    if os.path.basename(sys.argv[0] if sys.argv else "") == "mteb":
        compat.patch(compat.MTEB_CLI_RUN, _one_line_errors)
        skip_final_collection()  # the `mteb` command ends 2 s sooner
    compat.wrap_task_evaluation(_reset_encoding_statistics, _add_encoding_statistics)
    _list_only_configured_tasks()
    compat.patch(compat.BUILD_BENCHMARK_REGISTRY, _with_benchmarks)
    _check_data_before_model_in_mteb_cli()


def register_tasks(task_classes: list[type]) -> None:
    """Add task classes to mteb's task table.

    Raises:
        ValueError: a class's name is already taken by a different mteb task.
    """
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


def register_models(metas: list[Any]) -> None:
    """Add ``ModelMeta`` objects (our baselines, the two-stage models) to mteb's model registry."""
    for meta in metas:
        MODEL_REGISTRY.setdefault(meta.name, meta)


def is_input_error(exc: BaseException) -> bool:
    """True for bad input that our code reports: an :class:`~mteb_contrastive.data.errors.InputError`
    (a ``DataError``, a bad encoding option, a model name that is neither registered, nor a folder,
    nor reachable on the Hub; wherever it is raised), or a ``ValueError`` / ``FileNotFoundError``
    raised inside ``mteb_contrastive`` (a missing data folder). Other exceptions keep their traceback."""
    if isinstance(exc, InputError):
        return True
    if not isinstance(exc, (ValueError, FileNotFoundError)):
        return False
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    return last is not None and f"{os.sep}mteb_contrastive{os.sep}" in last.tb_frame.f_code.co_filename


# ---------------------------------------------------------------- the replacements (each calls mteb's original)


#: how a model name that is meant as a path starts (a Hub name ``org/name`` does not)
PATH_PREFIXES = ("./", "../", "/", "~", ".\\", "..\\")


class ModelNameError(InputError):
    """A model name that is neither registered with mteb, nor a local folder, nor found on the Hub."""


def _with_local_folders(original: Any) -> Any:
    """``mteb.get_model_meta`` that also takes a local folder, any ``rerank/...@<k>`` and ``::`` options,
    and says in one line (:class:`ModelNameError`) why a name is no model: a path that is not a folder,
    or a name mteb does not know that the Hub cannot be asked about (offline) or does not have."""

    def get_model_meta(model_name: str, revision: str | None = None, *args: Any, **kwargs: Any) -> Any:
        options: dict[str, Any] = {}
        if isinstance(model_name, (str, os.PathLike)):
            model_name, options = split_model_name(str(model_name))  # "<model>::max_seq_length=512,..."
        if isinstance(model_name, str) and is_model_folder(model_name):
            return apply_to_meta(local_model_meta(model_name), options, folder=model_name)
        if isinstance(model_name, str) and (model_name.startswith(PATH_PREFIXES) or model_name in (".", "..")):
            raise ModelNameError(
                f"model {model_name!r}: no such folder; give the folder of a sentence-transformers model "
                "(with modules.json or config.json) or a model name"
            )
        if isinstance(model_name, str) and model_name.startswith("rerank/") and model_name not in MODEL_REGISTRY:
            return model_meta_for_name(model_name)  # any k, or one line naming the valid names
        if not isinstance(model_name, str) or model_name in MODEL_REGISTRY:
            return apply_to_meta(original(model_name, revision, *args, **kwargs), options)
        try:
            meta = original(model_name, revision, *args, **kwargs)
        except (KeyError, InputError):
            raise  # not looked up on the Hub: mteb's own "not found ... did you mean"
        except Exception as exc:  # looking the name up on the Hub failed: offline, unreachable
            if config.hub_offline():
                why = "the HuggingFace Hub, where it would be looked up, is switched off here (HF_HUB_OFFLINE=1)"
            else:
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                why = f"looking it up on the HuggingFace Hub failed ({type(exc).__name__}: {first})"
            raise ModelNameError(
                f"model {model_name!r}: not a model mteb knows, and {why}; give a registered name "
                "(mteb.get_model_metas()), the folder of a local model (-m ./path), or a Hub model with the Hub on"
            ) from None
        if meta.loader is None and kwargs.get("fetch_from_hf"):  # mteb.get_model: it has no way to load it
            raise ModelNameError(
                f"model {model_name!r}: neither registered with mteb nor a sentence-transformers model on the "
                "HuggingFace Hub, so mteb cannot load it; check the name, or give a local folder (-m ./path)"
            )
        return apply_to_meta(meta, options)

    get_model_meta.__doc__ = original.__doc__
    return get_model_meta


def _per_model_predictions(original: Any) -> Any:
    """mteb writes ``<folder>/<task>_predictions.json`` for every model, merging into the file the
    previous model wrote (first model's name, last model's values); write per model instead. And
    mteb writes it in place, after reading the existing file back: a kill while writing left a cut
    file that stopped every later run with a ``JSONDecodeError``. The file is written whole here
    (:func:`~mteb_contrastive.data.atomic.staged_writes`), and a cut one is treated as missing (one
    warning line; the subsets it held are written anew)."""

    def save_task_predictions(
        self: Any, predictions: Any, model: Any, prediction_folder: Path, hf_split: str, hf_subset: str
    ) -> None:
        meta = model.mteb_model_meta
        folder = prediction_subfolder(prediction_folder, meta.name, meta.revision)
        existing = folder / predictions_file(folder, self.metadata.name, meta.revision).name
        carry = []
        if existing.is_file():
            try:
                json.loads(existing.read_text(encoding="utf-8"))
                carry.append(existing)
            except ValueError as exc:
                warn(unreadable_result(existing, exc, "treated as missing: written anew"))
        with staged_writes(folder, carry) as stage:
            original(self, predictions, model, stage, hf_split, hf_subset)

    return save_task_predictions


#: files of a result folder that mteb's ``save_to_cache`` reads back and merges into
MERGED_RESULT_FILES = ("run_settings.jsonl",)


def _result_files_written_whole(original: Any) -> Any:
    """mteb's ``ResultCache.save_to_cache`` writes ``<task>.json``, ``model_meta.json`` and
    ``run_settings.jsonl`` in place: killed just then, it left an empty ``<task>.json`` and every later
    ``mteb run`` of that model and task stopped with a ``JSONDecodeError``. It writes into a staging
    folder here, whose files then replace the real ones one ``os.replace`` each
    (:func:`~mteb_contrastive.data.atomic.staged_writes`): a result file is the new one or the old
    one, never a cut one."""

    def save_to_cache(self: Any, task_result: Any, model_name: Any, model_revision: Any = None, **kwargs: Any) -> Any:
        root = Path(self.cache_path)
        dest = compat.task_result_path(self, task_result.task_name, model_name, model_revision)
        with staged_writes(root, [dest.parent / name for name in MERGED_RESULT_FILES]) as stage:
            staged = type(self).__new__(type(self))
            staged.__dict__.update(self.__dict__)
            staged.cache_path = stage
            return original(staged, task_result, model_name, model_revision, **kwargs)

    return save_to_cache


def _unreadable_result_is_missing(original: Any) -> Any:
    """mteb's ``ResultCache.load_task_result`` raised on a result file it cannot parse (one cut by a
    kill before results were written whole, or hand-edited into JSON of another shape, e.g. ``[]``), so
    every later run stopped until the file was deleted by hand: such a file is treated as missing here
    (:func:`mteb_contrastive.report.reader.load_result`'s rule) -- evaluated again, with one warning line."""

    def load_task_result(
        self: Any,
        task_name: str,
        model_name: Any,
        model_revision: str | None = None,
        raise_if_not_found: bool = False,
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        try:
            return original(self, task_name, model_name, model_revision, raise_if_not_found, *args, **kwargs)
        except SHAPE_ERRORS as exc:  # JSON, validation, decoding errors; JSON of another shape (`[]`, `{}`)
            path = compat.task_result_path(self, task_name, model_name, model_revision)
            problem = result_problem(path)
            if not isinstance(exc, ValueError) and problem is None:
                raise  # not the file's fault
            exc = UnreadableResult(problem) if problem else exc
            if raise_if_not_found:
                raise FileNotFoundError(f"{path}: unreadable result file ({exc})") from exc
            warn(unreadable_result(path, exc, "treated as missing: evaluated again"))
            return None

    return load_task_result


def _stale_results_evaluated_again(original: Any) -> Any:
    """mteb 2.26 (:data:`mteb_contrastive.compat.CHECK_CACHE`) returns a cached result that covers every
    split and subset without comparing its ``dataset_revision`` with the task's: after a dataset is
    rebuilt with other content, ``mteb run`` would return the old scores. For our tasks, a cached
    result of another dataset revision is evaluated again (strategy ``only-missing``; ``never`` /
    ``only-cache`` keep mteb's behaviour)."""

    def check_cache(task: Any, meta: Any, cache: Any, overwrite_strategy: Any) -> Any:
        existing, missing = original(task, meta, cache, overwrite_strategy)
        strategy = getattr(overwrite_strategy, "value", overwrite_strategy)
        if (
            existing is not None
            and strategy == "only-missing"
            and type(task).__module__.startswith("mteb_contrastive.")
            and existing.dataset_revision != task.metadata.revision
        ):
            logger.warning(
                "%s: the cached result is of dataset revision %s, the data is now %s: evaluating again",
                task.metadata.name,
                existing.dataset_revision,
                task.metadata.revision,
            )
            return None, dict.fromkeys(task.eval_splits, task.hf_subsets)
        return existing, missing

    return check_cache


def _one_line_errors(original: Any) -> Any:
    """Under the ``mteb`` command, our bad-input errors print one line and exit 2 (not a traceback)."""

    def run(args: Any) -> None:
        try:
            return original(args)
        except Exception as exc:
            if not is_input_error(exc):
                raise
            print(f"mteb: error: {' '.join(str(exc).split())}", file=sys.stderr)
            raise SystemExit(2) from None

    return run


def _with_benchmarks(original: Any) -> Any:
    """``mteb.get_benchmark(s)``'s registry with :func:`mteb_contrastive.benchmarks.suites.benchmarks` added."""

    def build_registry() -> Any:
        return {**original(), **benchmarks()}

    return build_registry


def _encoding_model(model: Any) -> EncodingModel | None:
    """The ``EncodingModel`` of ``model``: itself, or one inside a search wrapper or a two-stage model
    (its first stage: the ``encoding_*`` statistics of a two-stage model are its first stage's)."""
    enc = model
    for _ in range(3):
        if isinstance(enc, EncodingModel) or enc is None:
            break
        enc = getattr(enc, "model", None) or getattr(enc, "_model", None) or getattr(enc, "first_model", None)
    return enc if isinstance(enc, EncodingModel) else None


def _reset_encoding_statistics(model: Any, task: Any) -> None:
    enc = _encoding_model(model)
    if enc is not None and task is not None:
        enc.reset_stats(task.metadata.name)


def _add_encoding_statistics(model: Any, task: Any, result: Any) -> None:
    """Each evaluated subset's scores get the model's ``encoding_*`` statistics and settings
    (:meth:`~mteb_contrastive.encoding.wrapper.EncodingModel.encoding_scores`) and, for a two-stage
    model, the work and seconds of each stage (:meth:`~mteb_contrastive.search.rerank.TwoStageSearch.stage_scores_for`,
    keys :data:`~mteb_contrastive.search.rerank.STAGE_SCORES`), on every retrieval task, ours or mteb's."""
    enc = _encoding_model(model)
    stages = getattr(model, "stage_scores_for", None)
    if (enc is None and stages is None) or task is None or not hasattr(result, "scores"):
        return
    for split, entries in result.scores.items():
        for entry in entries:
            subset = entry.get("hf_subset", "default")
            if enc is not None:
                entry.update(enc.encoding_scores(task.metadata.name, split, subset))
            if stages is not None:
                entry.update(stages(task.metadata.name, split, subset))


# ---------------------------------------------------------------- tasks whose data is not here


def _list_only_configured_tasks() -> None:
    """Keep tasks whose data is not configured here out of ``mteb.get_tasks(<filters>)`` sweeps.

    They stay in mteb's name table (``mteb.get_task("PAN20Verification")`` still finds them and
    fails in ``load_data`` with the message saying what to set); only the filtered listing
    (``TASK_LIST``) leaves them out, so ``mteb.get_tasks(task_types=["Retrieval"])`` followed by
    ``mteb.evaluate`` does not stop on a missing folder. Decided once, at registration.
    """
    table = compat.task_table()
    missing = set()
    for cls in catalog.all_task_classes():
        registered = table.get(cls.metadata.name)
        if registered is not None and catalog.missing_data(registered) is not None:
            missing.add(cls.metadata.name)
    if missing:
        logger.debug("not listed until their data is configured: %s", sorted(missing))
        compat.set_listed_tasks(t for t in compat.listed_tasks() if t.metadata.name not in missing)


def _check_data_before_model_in_mteb_cli() -> None:
    """In the stock ``mteb run`` command: stop with our message before any model is loaded
    (:func:`_tasks_checked_first`), when this process is the ``mteb`` command."""
    argv0 = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    if argv0 not in ("mteb", "__main__.py", "-m") or "run" not in sys.argv[1:2]:
        return
    compat.patch(compat.MTEB_CLI_RUN, _tasks_checked_first, marker="_mteb_contrastive_data_check")


def _tasks_checked_first(original: Any) -> Any:
    """``mteb run`` loads the model first and the task data last, so a missing folder ended in a
    traceback after minutes of model loading, and an unknown task name in mteb's ``KeyError``. The
    run checks ``--batch-size`` (>= 1; 0 was a traceback inside encoding) and every requested task
    first: a name mteb does not know
    (:func:`mteb_contrastive.catalog.unknown_task`: a built folder's task name names the variable that
    finds it) and a task of ours whose data is missing (:func:`mteb_contrastive.catalog.missing_data`)
    are each reported on stderr as ``mteb: error: <message>`` (the format of every one-line error of
    the ``mteb`` command) and the command exits with status 2."""

    def run(args: Any) -> Any:
        ours = {c.metadata.name for c in catalog.all_task_classes()}
        reasons = []
        batch_size = getattr(args, "batch_size", None)
        if batch_size is not None and batch_size < 1:  # mteb passes it on to encode: range() with step 0
            reasons.append(f"argument --batch-size: must be 1 or more, got {batch_size}; give a whole number >= 1")
        for name in getattr(args, "tasks", None) or []:
            cls = catalog.registered_task_class(name)
            if cls is None and not _mteb_knows_task(name):
                reasons.append(f"-t {name}: {catalog.unknown_task(name)}")
            elif name in ours and cls is not None:
                why = catalog.missing_data(cls)
                if why:
                    reasons.append(why)
        if reasons:
            for why in reasons:
                print(f"mteb: error: {why}", file=sys.stderr)
            raise SystemExit(2)
        return original(args)

    return run


def _mteb_knows_task(name: str) -> bool:
    """Whether ``mteb.get_task`` finds ``name`` (mteb also knows names that are not in its table, e.g.
    tasks renamed since)."""
    import mteb

    try:
        mteb.get_task(name)
    except KeyError:
        return False
    return True
