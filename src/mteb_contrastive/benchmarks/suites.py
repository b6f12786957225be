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

#: family -> the GitHub accounts to contact about its data or protocol (mteb's ``Benchmark.contacts``): the
#: owners of the repositories the docs cite for it (HALvest-Contrastive: Madjakul, the dataset's owner on the
#: Hub; PAN: pan-webis-de/pan-code; QuoteR: thunlp/QuoteR; Kirby's contrastive verification: petekirby/contrastive-av)
CONTACTS: dict[str, tuple[str, ...]] = {
    "author": ("Madjakul",),
    "verification": ("pan-webis-de", "petekirby"),
    "attribution": ("pan-webis-de",),
    "quotes": ("thunlp",),
}


def citation(classes: list[type]) -> str | None:
    """The BibTeX entries of ``classes``' tasks (``metadata.bibtex_citation``), each once, in task order;
    None when no task has one."""
    seen: list[str] = []
    for c in classes:
        bib = (c.metadata.bibtex_citation or "").strip()
        if bib and bib not in seen:
            seen.append(bib)
    return "\n\n".join(seen) or None


def contacts(families: list[str]) -> list[str] | None:
    """The :data:`CONTACTS` of ``families``, each once; None when none."""
    out = list(dict.fromkeys(c for f in families for c in CONTACTS.get(f, ())))
    return out or None


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
            citation=citation(classes),
            contacts=contacts(list(FAMILIES)),
        )
    }
    for fam in FAMILIES.values():
        if fam.description is None:
            continue
        name = f"{SUITE}-{fam.label}"
        members = [c for c in classes if family_of(c) == fam.name]
        out[name] = Benchmark(
            name=name,
            tasks=[c() for c in members],
            description=fam.description,
            citation=citation(members),
            contacts=contacts([fam.name]),
        )
    return out
