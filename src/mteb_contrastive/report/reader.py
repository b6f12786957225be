"""The one results reader: mteb result folders and prediction folders -> flat records.

Result layout (mteb 2.26 ``ResultCache``): ``<output-folder>[/results]/<org__name>/<revision>/<task>.json``
beside ``model_meta.json``. Each file is read with mteb's own :class:`mteb.TaskResult`; one
:class:`ScoreRow` per (model, task, split, subset). Keys are read generically:

* the main score is the task's ``metadata.main_score`` (from the registered task; else the key
  whose value equals the stored ``main_score``);
* secondary scores are listed by their exact names (:func:`secondary_keys`);
* chance levels are the keys starting with ``random_`` or ``chance_`` (:mod:`.chance` adds the
  expectations it can compute when a protocol stores none);
* counts are ``n_*``, ``pool_*`` and ``*truncat*`` keys.

Per-item scores (for the bootstrap of :mod:`.compare`) come from a prediction folder
(``mteb run --prediction-folder DIR``; ``mteb-contrastive evaluate`` gives each model its own
``<out>/predictions/<org__name>/``), see :func:`per_item_scores`.
"""

from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from mteb_contrastive import compat, families
from mteb_contrastive.layout import model_folder_name, model_name_of_folder, predictions_file
from mteb_contrastive.metrics.attribution import UNKNOWN, macro_f1_codes
from mteb_contrastive.report.compare import NotComparable

logger = logging.getLogger(__name__)

_SECONDARY = [
    re.compile(p)
    for p in (
        r"^accuracy$",
        r"^accuracy_ci_low$",
        r"^accuracy_ci_high$",
        r"^accuracy(_.*)?$",
        r"^error_rate$",
        r"^ndcg_at_(5|10|100)$",
        r"^recall_at_(1|10|100)$",
        r"^mrr(_at_10)?$",
        r"^hit_rate_at_(1|10)$",
        r"^median_rank$",
        r"^pan_platt_abstain_(auc|c_at_1|f_05_u|n_unanswered)$",
        r"^pan_(hard|platt)_overall$",
        r"^abstain_delta$",
        r".*_tie_.*",
        r"^mrr_tie_expected$",
        r"^eer$",
        r"^pauc_at_fpr_0_(01|05|10)$",
        r"^macro_f1_ci_low$",
        r"^macro_f1_ci_high$",
        r"^loo_log_loss$",
        r"^open_set_macro_f1$",
    )
]
_COUNT = re.compile(r"^(n_.*|pool_size|pool_duplicates_removed|.*truncat.*)$")
_CHANCE = re.compile(r"^(random|chance)_")


@dataclass
class ScoreRow:
    """The scores of one (model, task, split, subset), as stored by mteb.

    ``scores`` holds every numeric key of the stored score dict (``hf_subset``, ``languages`` and
    ``main_score`` removed). ``main_score_name`` is the task's main score; ``main`` its value.
    """

    model: str
    model_revision: str
    task: str
    split: str
    subset: str
    family: str
    main_score_name: str
    scores: dict[str, Any]
    languages: list[str] = field(default_factory=list)
    dataset_revision: str | None = None
    mteb_version: str | None = None
    evaluation_time: float | None = None
    path: Path | None = None
    model_meta: dict[str, Any] = field(default_factory=dict)
    #: mteb's timed phases of the whole result file (dicts with ``subset``, ``start``, ``end``, ...)
    evaluation_phases: list[dict[str, Any]] = field(default_factory=list)

    @property
    def main(self) -> float | None:
        v = self.scores.get(self.main_score_name)
        return float(v) if isinstance(v, (int, float)) else None

    @property
    def model_dir(self) -> str:
        return model_folder_name(self.model)

    def chance(self) -> dict[str, float]:
        """Chance-level keys stored by the protocol (``random_*`` / ``chance_*``)."""
        return {k: v for k, v in self.scores.items() if _CHANCE.match(k) and isinstance(v, (int, float))}

    def counts(self) -> dict[str, Any]:
        return {k: v for k, v in self.scores.items() if _COUNT.match(k) and not _CHANCE.match(k)}

    def secondary(self) -> dict[str, Any]:
        return {k: self.scores[k] for k in secondary_keys(self.scores) if k != self.main_score_name}


def secondary_keys(scores: dict[str, Any]) -> list[str]:
    """Keys worth a column, by exact name, in a stable order (pattern order, then name)."""
    out: list[str] = []
    ranking = any(k.startswith("ndcg_at_") for k in scores)  # mteb's retrieval scores hold an unrelated ``accuracy``
    for pat in _SECONDARY:
        if ranking and pat.pattern.startswith("^accuracy"):
            continue
        out.extend(sorted(k for k in scores if pat.match(k) and k not in out and not _CHANCE.match(k)))
    return out


def family_of(task: str, task_type: str | None, scores: dict[str, Any]) -> str:
    """The family of a stored result: its registered task class's (:func:`mteb_contrastive.families.family_of`),
    else from its score keys (:func:`mteb_contrastive.families.family_of_scores`)."""
    cls = task_class(task)
    return (
        families.family_of(cls)
        if cls is not None and families.protocol_of(cls) is not None
        else families.family_of_scores(task, task_type, scores)
    )


def task_class(task: str) -> type | None:
    """The registered mteb task class of ``task`` (None when mteb does not know it here)."""
    return compat.task_table().get(task)


def result_files(results_dir: str | Path) -> list[Path]:
    """Every task result file under an mteb output folder, sorted by path (hidden folders -- a save's
    staging folder, :func:`mteb_contrastive.data.atomic.staged_writes` -- left out)."""
    root = Path(results_dir)
    found = []
    # os.walk, pruned: a hidden folder (a save in progress) is never entered, and a folder removed while
    # it is walked (a stage finishing) is skipped instead of raising
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        if "model_meta.json" not in files:
            continue
        here = Path(folder)
        found += [here / f for f in files if f.endswith(".json") and f != "model_meta.json" and not f.startswith(".")]
    return sorted(found)


def unreadable_result(path: str | Path, exc: BaseException, then: str) -> str:
    """The one warning line for a result file that cannot be read (cut by a kill, hand-edited):
    ``warning: <path>: unreadable result file (<first line of the error>); <then>``."""
    text = str(exc).strip()
    why = text.splitlines()[0] if text else type(exc).__name__
    return f"warning: {path}: unreadable result file ({why}); {then}"


class UnreadableResult(ValueError):
    """A result file that is not an mteb ``TaskResult``: cut, not JSON, or JSON of another shape."""


#: what mteb's ``TaskResult.from_disk`` raises on JSON of the wrong shape (``[]``: AttributeError; ``{}``: KeyError)
SHAPE_ERRORS = (ValueError, KeyError, TypeError, AttributeError, IndexError)


def load_result(path: str | Path) -> Any:
    """mteb's ``TaskResult`` of the result file ``path`` -- the one reader of result files (``report``,
    ``evaluate``'s cache check, ``mteb run``'s through registration).

    Raises:
        UnreadableResult: the file is not UTF-8 JSON, or its JSON is not a task result (a list, a number,
            an object without mteb's fields...): the message says which, in one line.
        OSError: the file cannot be read.
    """
    from mteb import TaskResult

    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:  # JSON and decoding errors
        raise UnreadableResult(str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__) from None
    if not isinstance(data, dict):
        raise UnreadableResult(f"JSON {type(data).__name__}, not an object with mteb's task result fields")
    try:
        return TaskResult.from_disk(path)
    except SHAPE_ERRORS as exc:
        what = f"missing field {exc}" if isinstance(exc, KeyError) else (str(exc).strip().splitlines() or [""])[0]
        raise UnreadableResult(f"not an mteb task result ({type(exc).__name__}: {what})") from None


def result_problem(path: str | Path) -> str | None:
    """Why the result file ``path`` cannot be read (:func:`load_result`), None when it can or is absent."""
    try:
        load_result(path)
    except FileNotFoundError:
        return None
    except (UnreadableResult, OSError) as exc:
        return str(exc)
    return None


def warn(line: str) -> None:
    """Print one warning line on stderr, above any progress bar (``tqdm.write``)."""
    import sys

    from tqdm import tqdm

    tqdm.write(line, file=sys.stderr)


def read_results(
    results_dir: str | Path, *, models: list[str] | None = None, tasks: list[str] | None = None
) -> list[ScoreRow]:
    """Every score of an mteb output folder as :class:`ScoreRow` records.

    Args:
        results_dir: mteb ``--output-folder``.
        models: keep only these model names (mteb names, e.g. ``sentence-transformers/all-MiniLM-L6-v2``).
        tasks: keep only these task names.

    Returns:
        rows sorted by (family, task, subset, model); a result file (or its ``model_meta.json``) that
        cannot be read -- e.g. cut by a kill -- is treated as missing, with one warning line
        (:func:`unreadable_result`).
    """
    rows: list[ScoreRow] = []
    for f in result_files(results_dir):
        try:
            r = load_result(f)
            meta = json.loads((f.parent / "model_meta.json").read_text(encoding="utf-8"))
            if not isinstance(meta, dict):
                raise UnreadableResult(f"{f.parent / 'model_meta.json'}: JSON {type(meta).__name__}, not an object")
        except (ValueError, OSError) as exc:  # JSON, shape and decoding errors are ValueErrors
            warn(unreadable_result(f, exc, "left out of the report as missing (rerun the model to recompute it)"))
            continue
        model = meta.get("name") or model_name_of_folder(f.parent.parent.name)
        if models is not None and model not in models:
            continue
        if tasks is not None and r.task_name not in tasks:
            continue
        cls = task_class(r.task_name)
        task_type = cls.metadata.type if cls is not None else None
        phases = [
            dict(p) if isinstance(p, dict) else dict(vars(p)) for p in (getattr(r, "evaluation_phases", None) or [])
        ]
        main_name = cls.metadata.main_score if cls is not None else None
        for split, entries in r.scores.items():
            for s in entries:
                scores = {
                    k: v
                    for k, v in s.items()
                    if k not in ("hf_subset", "languages", "main_score")
                    and isinstance(v, (int, float, str))
                    and not isinstance(v, bool)
                }
                name = main_name or guess_main_score(scores, s.get("main_score"))
                if name not in scores and "main_score" in s:
                    scores[name] = s["main_score"]
                rows.append(
                    ScoreRow(
                        model=model,
                        model_revision=str(meta.get("revision") or f.parent.name),
                        task=r.task_name,
                        split=split,
                        subset=s.get("hf_subset", "default"),
                        family=family_of(r.task_name, task_type, scores),
                        main_score_name=name,
                        scores=scores,
                        languages=list(s.get("languages") or []),
                        dataset_revision=r.dataset_revision,
                        mteb_version=r.mteb_version,
                        evaluation_time=r.evaluation_time,
                        path=f,
                        model_meta=meta,
                        evaluation_phases=phases,
                    )
                )
    order = {f: i for i, f in enumerate(families.FAMILIES)}
    rows.sort(key=lambda x: (order.get(x.family, 99), x.task, x.split, subset_sort_key(x.subset), x.model))
    return rows


#: when the task is not registered here: the usual main scores, tried first among keys equal to ``main_score``
MAIN_SCORE_PREFERENCE = ("ndcg_at_10", "accuracy", "pan_platt_abstain_overall", "mrr", "map_at_1000", "main_score")


def guess_main_score(scores: dict[str, Any], value: Any) -> str:
    """The name of the stored ``main_score`` when the task's metadata is not available here."""
    nan = isinstance(value, float) and value != value  # a withheld score: NaN equals no value, itself included
    equal = [k for k, v in scores.items() if v == value or (nan and isinstance(v, float) and v != v)]
    return next((k for k in MAIN_SCORE_PREFERENCE if k in equal), equal[0] if equal else "main_score")


def subset_sort_key(subset: str) -> tuple:
    """``base-2`` < ``base-4`` < ``base-10`` (numeric k), other names alphabetically."""
    k = span_k(subset)
    return (0, k, subset) if k is not None else (1, 0, subset)


def span_k(subset: str) -> int | None:
    """k (sentences per span) of an author-task subset named ``<config>-<k>``; None otherwise."""
    m = re.search(r"-(\d+)$", subset)
    return int(m.group(1)) if m else None


# --------------------------------------------------------------------------- per-item scores


@dataclass
class PerItem:
    """Per-item data of one (model, task, split, subset) for intervals and paired comparisons.

    ``ids``: item ids (query ids, triplet or pair ids), aligned with ``values`` (one float per
    item whose mean is ``statistic_name``) or, for verification, with ``labels`` / ``answers``
    (the statistic is recomputed from them: PAN overall). ``groups``: optional unit id(s) per item
    (aligned with ``ids``: one id -- the IR query of a triplet, the anchor author -- or a list of
    ids -- the authors of a pair); intervals then resample units (:mod:`.compare`). ``note`` says
    where they came from.
    """

    statistic_name: str
    ids: list[str]
    values: list[float] | None = None
    labels: list[int] | None = None
    answers: list[float] | None = None
    year: int = 2021
    note: str = ""
    groups: list[str | list[str]] | None = None
    #: verification only: the test similarities, aligned with ``ids`` (for the ROC figure)
    similarity: list[float] | None = None
    #: the statistic of a labelled record when it is not the PAN overall score: ``f({"labels", "answers",
    #: ...}, idx) -> float`` (attribution: macro-F1 of the answered author codes, :func:`macro_f1_statistic`)
    statistic: Any = None
    #: extra entries of the statistic's data (attribution: ``{"unknown": <code of "<UNK>">}``)
    extra: dict[str, Any] = field(default_factory=dict)


def macro_f1_statistic(data: dict[str, Any], idx: Any) -> float:
    """PAN 2019 macro-F1 (:func:`mteb_contrastive.metrics.attribution.macro_f1_codes`) of the items ``idx``:
    ``data["labels"]`` gold author codes, ``data["answers"]`` answered codes, ``data["unknown"]`` the
    code of ``<UNK>``; NaN when no gold label is a candidate."""
    if len(idx) == 0:
        return float("nan")
    return float(macro_f1_codes(data["labels"][idx], data["answers"][idx], data["unknown"]))


def _attribution_macro_f1(row: ScoreRow, pred: Any, groups_by_id: dict[str, Any] | None) -> PerItem | None:
    """The leave-one-text-out answers of an attribution result as a labelled record whose statistic is
    the macro-F1 (the main score): ``pred["loo"]`` = ``{"id", "gold", "predicted"}``; None without them."""
    loo = pred.get("loo") if isinstance(pred, dict) else None
    if not isinstance(loo, dict) or not all(isinstance(loo.get(k), list) for k in ("id", "gold", "predicted")):
        return None
    ids, gold, answered = [str(i) for i in loo["id"]], loo["gold"], loo["predicted"]
    if not (len(ids) == len(gold) == len(answered)):
        return None
    names = sorted({str(x) for x in [*(pred.get("candidates") or []), *gold, *answered]} - {UNKNOWN})
    code = {n: i for i, n in enumerate(names)}
    code[UNKNOWN] = len(names)
    groups = None
    if groups_by_id is not None and all(i in groups_by_id for i in ids):
        groups = [groups_by_id[i] for i in ids]
    return PerItem(
        statistic_name=row.main_score_name,
        ids=ids,
        labels=[code[str(g)] for g in gold],
        answers=[code[str(a)] for a in answered],
        note="macro-F1 recomputed per resample from the leave-one-text-out answers",
        groups=groups,
        statistic=macro_f1_statistic,
        extra={"unknown": len(names)},
    )


def _group_ids(groups: list[Any]) -> list[str | list[str]]:
    """One id (str) or a list of ids per item, as the per-item file gives them."""
    return [[str(x) for x in g] if isinstance(g, list) else str(g) for g in groups]


def read_predictions(
    prediction_dir: str | Path | None,
    task: str,
    subset: str,
    split: str,
    revision: str | None = None,
    kind: str = "predictions",
) -> Any:
    """The predictions mteb (or a protocol) stored for one subset/split (``kind``: see
    :func:`predictions_file`); None when absent, or unreadable (cut by a kill: one warning line)."""
    if prediction_dir is None:
        return None
    f = predictions_file(prediction_dir, task, revision, kind)
    if not f.is_file():
        return None
    try:
        data = json.loads(f.read_text(encoding="utf-8"))
    except ValueError as exc:
        warn(unreadable_result(f, exc, "left out of the report as missing (rerun the model to recompute it)"))
        return None
    return data.get(subset, {}).get(split)


def topic_controlled_items(row: ScoreRow, prediction_dir: str | Path | None) -> PerItem | None:
    """The topic-controlled items of ``row`` (author triplets built with a topic field: same author on
    another topic vs another author on the same topic), from ``[subset][split]["per_item_topic_controlled"]``
    of its predictions file (the :func:`per_item_scores` contract, statistic ``accuracy_topic_controlled``);
    None when the file has none (a folder without topics, or a result written before they were recorded)."""
    pred = read_predictions(prediction_dir, row.task, row.subset, row.split, row.model_revision)
    p = pred.get("per_item_topic_controlled") if isinstance(pred, dict) else None
    return _protocol_items(row, prediction_dir, p) if isinstance(p, dict) else None


def _protocol_items(row: ScoreRow, prediction_dir: str | Path | None, p: dict[str, Any]) -> PerItem | None:
    """A protocol's per-item record (``name``, ``ids``, ``values``, optional ``groups``) as a PerItem;
    None (with a warning) when its lists differ in length."""
    groups = p.get("groups")
    if len(p["values"]) != len(p["ids"]) or (groups is not None and len(groups) != len(p["ids"])):
        logger.warning(
            "%s: [%s][%s]: ids, values and groups need one entry per item; not used",
            predictions_file(prediction_dir, row.task, row.model_revision),
            row.subset,
            row.split,
        )
        return None
    return PerItem(
        statistic_name=p["name"],
        ids=[str(i) for i in p["ids"]],
        values=[float(v) for v in p["values"]],
        groups=None if groups is None else _group_ids(groups),
        note="protocol per-item file" + ("; cluster bootstrap over groups" if groups is not None else ""),
    )


def per_item_scores(row: ScoreRow, prediction_dir: str | Path | None, reference: Any = None) -> PerItem | None:
    """Per-item scores of ``row`` from its prediction folder; None when there are none.

    The contract, per family, of ``<prediction_dir>/<task>_predictions.json`` -> ``[subset][split]``:

    * any family: ``{"per_item": {"name": <statistic>, "ids": [...], "values": [...]}}`` -- the
      mean of ``values`` is the score ``name`` (e.g. a triplet protocol writes ``name="accuracy"``
      and one 0/1 per triplet); optional ``"groups": [...]`` (one group id per item: the IR query,
      the anchor author) makes comparisons resample whole groups. Read first when present, from
      ``<task>_per_item.json`` -> ``[subset][split]`` (the same dict without the ``"per_item"``
      level; QuoteR writes its per-query ``mrr_tie_expected`` there, beside mteb's rankings, which
      mteb's reranking conversion reads) or else from the predictions file.
    * retrieval (written by mteb itself): ``{query id: {doc id: score}}``; per-query nDCG@10 is
      recomputed with pytrec_eval (as mteb does) against the task's qrels (``reference``:
      ``{qid: {doc id: gain}}``, from :func:`task_reference`), identical query/doc ids removed when
      the task sets ``ignore_identical_ids``.

    ``reference`` may be a zero-argument callable returning it: called only when the file needs it
    (a per-item file or verification labels in the file need no task load).
    * verification (written by the protocol): ``{"id": [...], "platt_abstain": [...]}`` plus the
      test labels -- ``"labels"`` in the file, else ``reference`` (``{"labels": {pair id: 0/1}}``);
      the statistic is the PAN overall score of the Platt+abstain answers; ``"authors"`` (one
      list of author ids per pair) become the items' groups.

    Like with like: a ``reference`` loaded from the task carries the task's ``dataset_revision``;
    when it is not the revision of ``row``'s result, the result's items cannot be scored against
    today's qrels or labels.

    Raises:
        NotComparable: the reference is of another dataset revision than the result.
    """
    beside = read_predictions(prediction_dir, row.task, row.subset, row.split, row.model_revision, kind="per_item")
    pred = (
        {"per_item": beside}
        if isinstance(beside, dict)
        else read_predictions(prediction_dir, row.task, row.subset, row.split, row.model_revision)
    )
    if pred is None:
        return None

    # a callable reference is resolved only when the file does not say it all (a task load is slow)
    def reference_now() -> Any:
        ref = reference() if callable(reference) else reference
        rev = ref.get("dataset_revision") if isinstance(ref, dict) else None
        if rev is not None and row.dataset_revision is not None and str(rev) != str(row.dataset_revision):
            raise NotComparable(
                f"{row.model}'s result is of dataset revision {row.dataset_revision}, the task's data here is "
                f"revision {rev}: its items cannot be scored against today's qrels or labels",
                "other_revision",
            )
        return ref

    if row.family == "attribution" and row.main_score_name == "macro_f1":
        # the main score is macro-F1: its record is the answers, not the per-text accuracy of "per_item"
        answers = read_predictions(prediction_dir, row.task, row.subset, row.split, row.model_revision)
        p = pred.get("per_item") if isinstance(pred, dict) else None
        by_id = None
        if isinstance(p, dict) and p.get("groups") is not None and len(p["groups"]) == len(p.get("ids", [])):
            by_id = dict(zip((str(i) for i in p["ids"]), _group_ids(p["groups"])))
        rec = _attribution_macro_f1(row, answers, by_id)
        if rec is not None:
            return rec
    if isinstance(pred, dict) and isinstance(pred.get("per_item"), dict):
        return _protocol_items(row, prediction_dir, pred["per_item"])
    if row.family == "verification" and isinstance(pred, dict) and "platt_abstain" in pred:
        ids = [str(i) for i in pred["id"]]
        labels = pred.get("labels")
        if labels is None and (ref := reference_now()) is not None:
            labels = [int(ref["labels"][i]) for i in ids]
        if labels is None:
            return None
        authors = pred.get("authors")
        groups = None
        if isinstance(authors, list) and len(authors) == len(ids) and all(isinstance(a, list) and a for a in authors):
            groups = _group_ids(authors)
        return PerItem(
            statistic_name="pan_platt_abstain_overall",
            ids=ids,
            labels=[int(v) for v in labels],
            answers=[float(v) for v in pred["platt_abstain"]],
            year=int(row.scores.get("pan_year", 2021)),
            note="PAN overall recomputed per resample",
            groups=groups,
            similarity=[float(v) for v in pred["similarity"]] if "similarity" in pred else None,
        )
    if (
        row.family in ("author", "quotes", "retrieval")
        and isinstance(pred, dict)
        and (ref := reference_now()) is not None
    ):
        return PerItem(
            statistic_name="ndcg_at_10",
            **_per_query_ndcg(pred, ref["qrels"], 10, ref.get("ignore_identical_ids", False)),
            note="per-query nDCG@10 recomputed from predictions + qrels (pytrec_eval)",
        )
    return None


def _per_query_ndcg(
    results: dict[str, dict[str, float]], qrels: dict[str, dict[str, int]], k: int, ignore_identical_ids: bool
) -> dict[str, list]:
    """Per-query nDCG@k of mteb's retrieval predictions (pytrec_eval ``ndcg_cut``, as mteb)."""
    ids, values = per_query_metric(results, qrels, f"ndcg_cut_{k}", ignore_identical_ids)
    return {"ids": ids, "values": values}


def per_query_metric(
    results: dict[str, dict[str, float]], qrels: dict[str, dict[str, int]], measure: str, ignore_identical_ids: bool
) -> tuple[list[str], list[float]]:
    """(query ids, per-query values) of a pytrec_eval measure (``ndcg_cut_10``, ``recall_100``, ...) of
    mteb's retrieval predictions, identical query/document ids removed when ``ignore_identical_ids``;
    queries without a relevant document are not scored (as mteb)."""
    import pytrec_eval

    results = {
        q: {d: float(s) for d, s in docs.items() if not (ignore_identical_ids and d == q)}
        for q, docs in results.items()
    }
    qrels = {q: {d: int(g) for d, g in rel.items()} for q, rel in qrels.items()}
    family, _, k = measure.rpartition("_")
    scores = pytrec_eval.RelevanceEvaluator(qrels, {f"{family}.{k}"}).evaluate(results)
    ids = sorted(scores)
    return ids, [scores[q][measure] for q in ids]


@lru_cache(maxsize=4)
def _loaded_task(task: str) -> Any:
    """The task, its data loaded once (every subset) for all the reference look-ups of a report."""
    import mteb

    t = mteb.get_task(task)
    t.load_data()
    return t


def task_reference(task: str, subset: str, split: str) -> dict[str, Any] | None:
    """What the task knows about each item (qrels or test labels), loaded through mteb; None if unavailable.

    Every reference holds ``dataset_revision`` (the task's revision here, for the like-with-like
    check of :func:`per_item_scores`). Retrieval: ``{"qrels": {qid: {doc: gain}},
    "ignore_identical_ids": bool, "query_in_pool": {qid}}``; verification: ``{"labels": {pair id:
    label}, "validation_labels": [0/1, ...]}`` (the calibration split's labels when the task has one).
    """
    try:
        t = _loaded_task(task)
        data = t.dataset[subset][split]
    except Exception as exc:
        logger.info("no reference data for %s %s/%s: %s", task, subset, split, exc)
        return None
    rev = t.metadata.dataset.get("revision")
    if isinstance(data, dict) and "relevant_docs" in data:
        qids = set(data["queries"]["id"])
        return {
            "dataset_revision": rev,
            "qrels": {q: dict(v) for q, v in data["relevant_docs"].items()},
            "ignore_identical_ids": bool(getattr(t, "ignore_identical_ids", False)),
            "query_in_pool": {c for c in data["corpus"]["id"] if c in qids},
        }
    try:
        cols = data.column_names
    except AttributeError:
        return None
    if "labels" in cols and "id" in cols:
        out: dict[str, Any] = {
            "dataset_revision": rev,
            "labels": {str(i): int(v) for i, v in zip(data["id"], data["labels"])},
        }
        cal = getattr(t, "calibration_split", None)
        if cal is not None and cal in t.dataset[subset]:
            out["validation_labels"] = [int(v) for v in t.dataset[subset][cal]["labels"]]
        return out
    return None
