"""The report's typed records: what :mod:`.build` assembles, :mod:`.statistics` fills, :mod:`.figures`
draws and :mod:`.render` prints.

Each record's :meth:`to_json` is its entry in ``report.json`` (keys in a fixed order);
:meth:`Report.from_json` reads such a dict back (missing parts empty), so a ``report.json`` can be
rendered again.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from mteb_contrastive.report.compare import Comparison, Interval


def _plain(obj: Any) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in fields(obj)}


@dataclass
class RowInterval:
    """The 95% interval shown beside a row's main score: ``interval`` (the bootstrap's
    :class:`~.compare.Interval`) or None, ``reason`` why it is not shown (no per-item data, an
    interval of another statistic), ``unit`` resampled."""

    unit: str
    interval: Interval | None = None
    reason: str | None = None

    @property
    def ci_low(self) -> float | None:
        return None if self.interval is None else self.interval.ci_low

    @property
    def ci_high(self) -> float | None:
        return None if self.interval is None else self.interval.ci_high

    @property
    def n_units(self) -> int | None:
        return None if self.interval is None else self.interval.n_units

    @property
    def shown(self) -> bool:
        """An interval of the main score, to print."""
        return self.interval is not None and self.interval.ci_low is not None and not self.reason

    def to_json(self) -> dict[str, Any]:
        if self.interval is None:
            return {"reason": self.reason, "unit": self.unit}
        out = self.interval.as_dict()
        if self.reason is not None:
            out["reason"] = self.reason
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> RowInterval:
        if "ci_low" not in d:
            return cls(unit=d.get("unit", ""), reason=d.get("reason"))
        names = {f.name for f in fields(Interval)}
        iv = Interval(**{k: v for k, v in d.items() if k in names})
        return cls(unit=iv.unit, interval=iv, reason=d.get("reason"))


@dataclass
class ReportRow:
    """One (model, task, split, subset): main score, chance level (exact, stored or simulated, with
    the range of 95% of the random runs), interval, the stored scores and counts."""

    family: str
    task: str
    split: str
    subset: str
    languages: list[str]
    model: str
    model_revision: str
    dataset_revision: str | None
    main_score_name: str
    main_score: float | None
    higher_is_better: bool
    chance: float | None
    chance_text: str
    chance_range: list[float] | None
    chance_method: str
    chance_levels: dict[str, float]
    chance_simulated: dict[str, dict[str, float]]
    cross_document: Any
    cross_document_chance: Any
    interval: RowInterval
    resampling_unit: str
    counts: dict[str, Any]
    secondary: dict[str, Any]
    scores: dict[str, Any]
    evaluation_time_s: float | None
    mteb_version: str | None
    result_file: str

    def to_json(self) -> dict[str, Any]:
        out = _plain(self)
        out["interval"] = self.interval.to_json()
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ReportRow:
        return cls(**{**d, "interval": RowInterval.from_json(d["interval"])})


#: the keys of a comparison entry before the test's own (``report.json`` order)
_ENTRY = (
    "task",
    "split",
    "subset",
    "reference",
    "candidate",
    "main_score_name",
    "reference_main",
    "candidate_main",
    "reference_dataset_revision",
    "candidate_dataset_revision",
    "unit",
    "item",
)


@dataclass
class ComparisonRow:
    """Two models' results on one (task, split, subset): ``result`` (the paired bootstrap and test,
    candidate - reference) when they could be compared, else ``verdict`` says why not (``"not
    comparable"`` with the ``reason`` for another dataset revision or other items)."""

    task: str
    split: str
    subset: str
    reference: str
    candidate: str
    main_score_name: str
    reference_main: float | None
    candidate_main: float | None
    reference_dataset_revision: str | None
    candidate_dataset_revision: str | None
    unit: str
    item: str
    verdict: str = ""
    reason: str | None = None
    result: Comparison | None = None
    source: str = ""
    higher_is_better: bool = True

    @property
    def statistic(self) -> str | None:
        return None if self.result is None else self.result.statistic

    @property
    def comparable(self) -> bool:
        return self.verdict != "not comparable"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {k: getattr(self, k) for k in _ENTRY}
        out["statistic"] = None
        if self.result is None:
            out["verdict"] = self.verdict
            if self.reason is not None:
                out["reason"] = self.reason
            return out
        return {**out, **self.result.as_dict(), "source": self.source, "higher_is_better": self.higher_is_better}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ComparisonRow:
        result = None
        if d.get("statistic") is not None:
            names = {f.name for f in fields(Comparison)}
            result = Comparison(**{k: v for k, v in d.items() if k in names})
        return cls(
            **{k: d.get(k) for k in _ENTRY},
            verdict=d.get("verdict", ""),
            reason=d.get("reason"),
            result=result,
            source=d.get("source", ""),
            higher_is_better=d.get("higher_is_better", True),
        )


@dataclass
class Separability:
    """Per (task, split, subset): the models by main score (best first) and which pairs the
    intervals separate (``"A > B"``), which not (``"A ~ B"``), which were not compared (``"A, B: why"``)."""

    task: str
    split: str
    subset: str
    separable: list[str] = field(default_factory=list)
    not_separable: list[str] = field(default_factory=list)
    not_compared: list[str] = field(default_factory=list)
    ranking: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return _plain(self)


@dataclass
class ModelInfo:
    """A model of the report: its name, revision, size, reference and prediction folder."""

    model: str
    revision: str
    n_parameters: Any
    reference: Any
    loader: Any
    prediction_folder: str

    def to_json(self) -> dict[str, Any]:
        return _plain(self)


@dataclass
class QuestionedText:
    """One questioned text of an attribution result: the three most probable candidates with their
    calibrated probabilities and the answer (``<UNK>``: none of the candidates)."""

    task: str
    model: str
    id: str
    title: str
    label_note: str
    top: list[tuple[str, float]]
    answer: str

    def to_json(self) -> dict[str, Any]:
        return _plain(self)


@dataclass
class RerankingRow:
    """A two-stage model's result on one (task, split, subset) beside its own first stage's
    (:mod:`.reranking`): ``comparison`` has reference = the first stage and candidate = the reranked
    model, so its difference is ``orientation`` ("reranked minus first stage"); None with ``reason``
    when the first stage was not evaluated there. ``cost``: the work and seconds of each stage
    (:func:`.reranking.stage_cost`)."""

    task: str
    split: str
    subset: str
    model: str
    first_stage: str
    reranker: str
    reranker_model: str | None
    k: int
    main_score_name: str
    main_score: float | None
    first_stage_main: float | None
    chance: float | None
    interval: RowInterval | None
    first_stage_interval: RowInterval | None
    orientation: str
    comparison: ComparisonRow | None = None
    reason: str | None = None
    cost: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out = _plain(self)
        for k in ("interval", "first_stage_interval", "comparison"):
            out[k] = None if out[k] is None else out[k].to_json()
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> RerankingRow:
        keys = ("interval", "first_stage_interval")
        iv = {k: None if d.get(k) is None else RowInterval.from_json(d[k]) for k in keys}
        comp = None if d.get("comparison") is None else ComparisonRow.from_json(d["comparison"])
        return cls(**{**d, **iv, "comparison": comp})


@dataclass
class Report:
    """Everything the report shows (``report.json`` is :meth:`to_json`)."""

    generated_at: str
    project_revision: str
    mteb_version: str | None
    results_dir: str
    models: list[ModelInfo]
    datasets: list[dict[str, Any]]
    skipped: list[dict[str, str]]
    rows: list[ReportRow]
    comparisons: list[ComparisonRow]
    questioned: list[QuestionedText] = field(default_factory=list)
    #: the same pairs of models on the topic-controlled items only (author triplets built with a topic
    #: field; statistic ``accuracy_topic_controlled``), in the report's one Holm family; not in the
    #: separability table (which ranks main scores)
    topic_comparisons: list[ComparisonRow] = field(default_factory=list)
    separability: list[Separability] = field(default_factory=list)
    run_info: dict[str, Any] | None = None
    task_times: list[dict[str, Any]] = field(default_factory=list)
    plots: list[str] = field(default_factory=list)
    content_independence: list[dict[str, Any]] = field(default_factory=list)
    #: the per-language table with JSON keys (``"model|language|kind"``, ``"language|kind"``)
    languages: dict[str, Any] = field(default_factory=dict)
    #: models whose evaluation failed: ``{"model", "reason"}`` (one line each)
    failed: list[dict[str, str]] = field(default_factory=list)
    #: each two-stage model against its own first stage (:mod:`.reranking`), and its figures
    reranking: list[RerankingRow] = field(default_factory=list)
    reranking_plots: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out = _plain(self)
        for k in ("models", "rows", "comparisons", "topic_comparisons", "questioned", "separability", "reranking"):
            out[k] = [x.to_json() for x in out[k]]
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Report:
        return cls(
            generated_at=d.get("generated_at", ""),
            project_revision=d.get("project_revision", ""),
            mteb_version=d.get("mteb_version"),
            results_dir=d.get("results_dir", ""),
            models=[ModelInfo(**m) for m in d.get("models", [])],
            datasets=d.get("datasets", []),
            skipped=d.get("skipped", []),
            rows=[ReportRow.from_json(r) for r in d.get("rows", [])],
            comparisons=[ComparisonRow.from_json(c) for c in d.get("comparisons", [])],
            topic_comparisons=[ComparisonRow.from_json(c) for c in d.get("topic_comparisons", [])],
            questioned=[QuestionedText(**q) for q in d.get("questioned", [])],
            separability=[Separability(**s) for s in d.get("separability", [])],
            run_info=d.get("run_info"),
            task_times=d.get("task_times", []),
            plots=d.get("plots", []),
            content_independence=d.get("content_independence", []),
            languages=d.get("languages", {}),
            failed=d.get("failed", []),
            reranking=[RerankingRow.from_json(x) for x in d.get("reranking", [])],
            reranking_plots=d.get("reranking_plots", []),
        )
