"""The suite as ``mteb.Benchmark`` objects: ``mteb run -m MODEL -b mteb-contrastive`` with the stock CLI.

Benchmarks (tasks whose data is present here, :func:`mteb_contrastive.availability.missing_data`):

* ``mteb-contrastive`` -- every task of the extension;
* ``mteb-contrastive-authorship`` -- author retrieval and author triplets (HALvest protocol);
* ``mteb-contrastive-verification`` -- PAN-metric authorship verification;
* ``mteb-contrastive-quotes`` -- QuoteR quote recommendation;
* ``mteb-contrastive-ir-triplets`` -- Paragraph Vector IR triplets.

They are built on first use (``mteb.get_benchmark``), from the tasks registered in this
process: built folders named by ``MTEB_CONTRASTIVE_DATASETS`` / ``MTEB_CONTRASTIVE_VERIFICATION``,
official files named by their variables, shared files beside the checkout.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

FAMILY_BENCHMARKS = {
    "authorship": "Author retrieval and author-triplet accuracy, HALvest-Contrastive protocol (Kulumba et al. 2024).",
    "verification": "Authorship verification with the official PAN metrics, validation-fitted threshold, Platt scaling and abstention.",
    "quotes": "Quote recommendation, QuoteR protocol (Qi et al., ACL 2022): MRR over all quotes.",
    "ir-triplets": "Paragraph Vector IR triplets (Le & Mikolov 2014, section 3.3): triplet accuracy and error rate.",
}
SUITE = "mteb-contrastive"


def available_task_classes() -> list[type]:
    """Registered extension task classes whose data is present here, in registration order."""
    from mteb_contrastive.availability import missing_data
    from mteb_contrastive.registry import all_task_classes

    return [c for c in all_task_classes() if missing_data(c) is None]


@lru_cache(maxsize=1)
def benchmarks() -> dict[str, Any]:
    """name -> ``mteb.Benchmark`` (see module docstring)."""
    from mteb.benchmarks.benchmark import Benchmark

    from mteb_contrastive.availability import family
    from mteb_contrastive.registration import registered_task_class

    classes = [registered_task_class(c.metadata.name) or c for c in available_task_classes()]
    out = {SUITE: Benchmark(name=SUITE, tasks=[c() for c in classes], description="Every mteb-contrastive task whose data is present on this machine.",
                            reference="https://arxiv.org/abs/2407.20595")}
    for fam, desc in FAMILY_BENCHMARKS.items():
        name = f"{SUITE}-{fam}"
        out[name] = Benchmark(name=name, tasks=[c() for c in classes if family(c) == fam], description=desc)
    return out


#: how each family breaks ties (a task class may override with a ``tie_rule`` attribute)
TIE_RULES = {
    "authorship-retrieval": "ranking by pytrec_eval (mteb): equal scores ordered by document id",
    "authorship-triplets": "strict >: a tie counts as an error",
    "ir-triplets": "strict >: a tie counts as an error (d(p1,p2) >= d(p1,p3))",
    "verification": "answer 0.5 = non-answer (c@1, F0.5u); Platt band around 0.5",
    "authorship-pairs": "average precision (scikit-learn): tied scores form one threshold; accuracy/F1 at the validation threshold",
    "quotes": "expected value under a random order within ties (exact); optimistic / pessimistic bounds beside it",
}


def _source(cls: type) -> str:
    path = str(cls.metadata.dataset.get("path", ""))
    if path.startswith("almanach/"):
        return f"HuggingFace Hub `{path}`"
    if path.startswith("$"):
        return f"your folder, `{path}`"
    if path.startswith("thunlp/"):
        return f"official file `{path.split(':')[-1]}`, `$MTEB_CONTRASTIVE_QUOTER_OFFICIAL`"
    if path.startswith("shared/"):
        return f"shared data `{path[len('shared/data/'):]}`"
    if path.startswith("local:cranfield"):
        return "shared data `ir/cranfield/` (built on first load)"
    return "a folder you build (`mteb-contrastive build-*`)"


def task_table(classes: list[type] | None = None) -> str:
    """Markdown table of the tasks: task, family, main score, direction, tie rule, data source.

    Printed by ``mteb-contrastive tasks``; the README's table of tasks is its output.
    """
    from mteb_contrastive.availability import family
    from mteb_contrastive.report.reader import higher_is_better
    from mteb_contrastive.registry import all_task_classes

    lines = ["| task | family | main score | direction | tie rule | data source |", "|---|---|---|---|---|---|"]
    for cls in classes if classes is not None else all_task_classes():
        fam = family(cls)
        key = fam
        if fam == "authorship":
            key = "authorship-retrieval" if cls.metadata.type == "Retrieval" else ("authorship-pairs" if cls.metadata.main_score == "average_precision" else "authorship-triplets")
        rule = getattr(cls, "tie_rule", None) or TIE_RULES.get(key, "")
        main = cls.metadata.main_score
        lines.append(f"| {cls.metadata.name} | {fam} | `{main}` | {'higher is better' if higher_is_better(main) else 'lower is better'} | {rule} | {_source(cls)} |")
    return "\n".join(lines)
