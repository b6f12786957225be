"""The table of tasks: ``mteb-contrastive tasks`` prints it; the README's table of tasks is its output."""

from __future__ import annotations

from mteb_contrastive import catalog
from mteb_contrastive.families import family_label, family_of, higher_is_better, protocol_of
from mteb_contrastive.sources.base import DataSource


def task_table(classes: list[type] | None = None) -> str:
    """Markdown table of the tasks: task, family, main score, direction, tie rule, data source.

    Args:
        classes: the task classes (default: :func:`mteb_contrastive.catalog.all_task_classes`).
    """
    lines = ["| task | family | main score | direction | tie rule | data source |", "|---|---|---|---|---|---|"]
    for cls in classes if classes is not None else catalog.all_task_classes():
        protocol = protocol_of(cls)
        rule = protocol.tie_rule if protocol is not None else ""
        source = cls.source_kind() if issubclass(cls, DataSource) else ""
        main = cls.metadata.main_score
        direction = "higher is better" if higher_is_better(main) else "lower is better"
        lines.append(
            f"| {cls.metadata.name} | {family_label(family_of(cls))} | `{main}` | {direction} | {rule} | {source} |"
        )
    return "\n".join(lines)
