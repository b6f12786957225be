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
* :data:`SORT_FULL_CORPUS_RESULTS_KWARGS` -- the keyword arguments of
  ``SearchEncoderWrapper._sort_full_corpus_results``, which the full-ranking search overrides.
"""

from __future__ import annotations

import inspect
from typing import Any

#: keyword arguments of SearchEncoderWrapper._sort_full_corpus_results (mteb 2.26)
SORT_FULL_CORPUS_RESULTS_KWARGS = ("result_heaps", "query_idx_to_id", "query_embeddings", "cos_scores_top_k_idx", "cos_scores_top_k_values", "sub_corpus_ids")

#: private function -> parameters the project relies on
EXPECTED = {
    "mteb._create_dataloaders:create_dataloader": ("dataset", "task_metadata", "prompt_type", "input_column", "batch_size", "num_proc"),
    "mteb._create_dataloaders:_combine_queries_with_instruction_text": ("dataset",),
    "mteb.abstasks.pair_classification:AbsTaskPairClassification._compute_metrics": ("self", "similarity_scores", "labels"),
    "mteb.abstasks.abstask:AbsTask._save_task_predictions": ("self", "predictions", "model", "prediction_folder", "hf_split", "hf_subset"),
    "mteb.models.search_wrappers:SearchEncoderWrapper._sort_full_corpus_results": ("self", *SORT_FULL_CORPUS_RESULTS_KWARGS),
}

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
            raise RuntimeError(f"mteb changed: {target} has no parameter(s) {missing} (has {sorted(params)}); adapt mteb_contrastive/compat.py")
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


def save_task_predictions(task: Any, predictions: Any, model: Any, prediction_folder: Any, *, hf_split: str, hf_subset: str) -> None:
    """Write ``predictions`` into ``<prediction_folder>/<task>_predictions.json`` under ``[hf_subset][hf_split]``."""
    fn = check("mteb.abstasks.abstask:AbsTask._save_task_predictions")
    fn(task, predictions, model, prediction_folder, hf_split=hf_split, hf_subset=hf_subset)


# --------------------------------------------------------------------------- protocols (branch peritem)

EXPECTED["mteb.abstasks.pair_classification:AbsTaskPairClassification._compute_metrics_values"] = ("self", "scores", "labels", "high_score_more_similar")


def pair_classification_metric_values(task: Any, scores: list[float], labels: Any, high_score_more_similar: bool = True) -> dict[str, float]:
    """mteb's pair-classification scores (``accuracy``, ``f1``, ``ap``, ... unprefixed) of one list of pair
    scores (shape (n_pairs,)) against 0/1 ``labels``; ``high_score_more_similar`` False for distances."""
    fn = check("mteb.abstasks.pair_classification:AbsTaskPairClassification._compute_metrics_values")
    return fn(task, scores, labels, high_score_more_similar)
