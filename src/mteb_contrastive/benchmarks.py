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
    from mteb_contrastive.tasks import all_task_classes

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
