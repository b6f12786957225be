"""The suite as ``mteb.Benchmark`` objects: ``mteb run -m MODEL -b mteb-contrastive`` with the stock CLI.

Benchmarks (tasks whose data is present here, :func:`mteb_contrastive.catalog.missing_data`):

* ``mteb-contrastive`` -- every task of the extension;
* ``mteb-contrastive-<family label>`` for each family with a benchmark of its own
  (:data:`mteb_contrastive.families.FAMILIES`): ``-authorship`` (author retrieval and author
  triplets, HALvest protocol), ``-verification`` (PAN metrics), ``-quotes`` (QuoteR),
  ``-ir-triplets`` (Paragraph Vector IR triplets).

They are built on first use (``mteb.get_benchmark``), from the tasks registered in this process:
built folders named by ``MTEB_CONTRASTIVE_DATASETS`` / ``MTEB_CONTRASTIVE_VERIFICATION``, official
files named by their variables, shared files beside the checkout.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from mteb.benchmarks.benchmark import Benchmark

from mteb_contrastive import catalog
from mteb_contrastive.families import FAMILIES, family_of

SUITE = "mteb-contrastive"


def available_task_classes() -> list[type]:
    """Extension task classes whose data is present here (the registered class when mteb holds one),
    in registration order."""
    classes = [c for c in catalog.all_task_classes() if catalog.missing_data(c) is None]
    return [catalog.registered_task_class(c.metadata.name) or c for c in classes]


@lru_cache(maxsize=1)
def benchmarks() -> dict[str, Any]:
    """name -> ``mteb.Benchmark`` (see module docstring)."""
    classes = available_task_classes()
    out = {
        SUITE: Benchmark(
            name=SUITE,
            tasks=[c() for c in classes],
            description="Every mteb-contrastive task whose data is present on this machine.",
            reference="https://arxiv.org/abs/2407.20595",
        )
    }
    for fam in FAMILIES.values():
        if fam.description is None:
            continue
        name = f"{SUITE}-{fam.label}"
        out[name] = Benchmark(
            name=name, tasks=[c() for c in classes if family_of(c) == fam.name], description=fam.description
        )
    return out
