"""What ``mteb-contrastive evaluate`` runs: its benchmarks, each with a run/skip decision (no data is read).

Built from what the catalog and the sources know, so a new task or folder kind needs nothing here:

* the declared tasks (:func:`mteb_contrastive.catalog.declared_task_classes`), grouped by their
  source's benchmark name (HALvest's retrieval and triplet tasks are one benchmark);
* the benchmarks built from the shared data (:mod:`mteb_contrastive.benchmarks.shared_data`);
* every folder named by ``MTEB_CONTRASTIVE_DATASETS`` / ``MTEB_CONTRASTIVE_VERIFICATION``
  (author triplets, IR triplets, QuoteR, verification), by the classes the catalog makes of it;
  a folder it cannot read is listed as skipped with the reason.

The ``default`` suite (:data:`DEFAULT_SUITE`, what ``make run`` evaluates) has one benchmark per
family plus the user's folders; ``full`` has every benchmark whose data is here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mteb_contrastive import catalog, config
from mteb_contrastive.benchmarks.shared_data import (
    ATTRIBUTION_RECIPES,
    TALN_FILE,
    TALN_RECIPES,
    VERIFICATION_RECIPES,
    build_attribution_benchmark,
    build_taln_benchmark,
    build_verification_benchmark,
)
from mteb_contrastive.families import FAMILIES, family_of

#: the benchmarks of the default suite, one per family (the user's folders are always in it)
DEFAULT_SUITE = frozenset({"TALNAbstractEn", "PAN14Known", "QuoteRKJVNovelsEnglishRetrieval", "CranfieldIRTriplets"})


#: the skip reason of a benchmark that is not in the default suite
NOT_IN_SUITE = "not in the default suite (--suite full runs it)"


@dataclass
class Bench:
    """One benchmark of the suite: its tasks, family, where its data comes from, how to build it."""

    name: str
    family: str
    tasks: list[str]
    default: bool
    source: str = ""
    missing: str | None = None  # one-line reason when the data is not here (or not in the suite)
    build: Callable[[], Path] | None = None
    built_folder: Path | None = None
    retrieval_tasks: list[str] = field(default_factory=list)


def plan(out: Path, shared: Path, suite: str, *, hub: bool | None = None) -> list[Bench]:
    """The benchmarks of ``suite`` ("default" or "full") with their run/skip decision.

    Args:
        out: the evaluation's output folder (shared-data benchmarks are built into
            ``<out>/datasets`` and ``<out>/verification``).
        shared: the shared data folder.
        suite: "default" or "full".
        hub: whether the HuggingFace Hub answered (None: not asked; only ``HF_HUB_OFFLINE=1`` counts).
    """
    benches = _declared(hub) + _shared_data(out, shared)
    order = list(FAMILIES)
    benches.sort(
        key=lambda b: order.index(b.family) if b.family in order else len(order)
    )  # stable: declared before built
    benches += user_folders()
    for b in benches:
        if not b.default and suite == "default" and b.missing is None:
            b.missing = NOT_IN_SUITE
    return benches


def _bench_of(classes: list[type], name: str, *, default: bool, hub: bool | None = None) -> Bench:
    missing = next((m for m in (c.missing(hub_reachable=hub) for c in classes) if m is not None), None)
    return Bench(
        name,
        family_of(classes[0]),
        [c.metadata.name for c in classes],
        default=default,
        source=classes[0].source_location(),
        missing=None if missing is None else missing.reason,
        retrieval_tasks=[c.metadata.name for c in classes if c.metadata.type == "Retrieval"],
    )


def _groups(classes: list[type]) -> dict[str, list[type]]:
    groups: dict[str, list[type]] = {}
    for cls in classes:
        groups.setdefault(cls.benchmark_name(), []).append(cls)
    return groups


def _declared(hub: bool | None) -> list[Bench]:
    return [
        _bench_of(classes, name, default=name in DEFAULT_SUITE, hub=hub)
        for name, classes in _groups(catalog.declared_task_classes()).items()
    ]


def _shared_data(out: Path, shared: Path) -> list[Bench]:
    """The benchmarks of :mod:`~mteb_contrastive.benchmarks.shared_data` (abstracts, the small one, first)."""
    benches = []
    taln = shared / TALN_FILE
    for recipe in reversed(TALN_RECIPES):
        b = Bench(
            recipe.name,
            "author",
            [f"{recipe.name}AuthorRetrieval", f"{recipe.name}AuthorTripletClassification"],
            default=recipe.name in DEFAULT_SUITE,
            source=f"built from {taln} [{recipe.view}]",
            built_folder=out / "datasets" / recipe.name,
            retrieval_tasks=[f"{recipe.name}AuthorRetrieval"],
        )
        if taln.is_file():
            b.build = lambda r=recipe: build_taln_benchmark(shared, out / "datasets", r)
        else:
            b.missing = f"{taln} not found (set {config.SHARED_ENV} or --shared to the shared data folder)"
        benches.append(b)
    # every verification recipe, the default suite's first
    for name in sorted(VERIFICATION_RECIPES, key=lambda n: n not in DEFAULT_SUITE):
        src = shared / VERIFICATION_RECIPES[name][1]
        b = Bench(
            name,
            "verification",
            [f"{name}Verification"],
            default=name in DEFAULT_SUITE,
            source=f"built from {src}",
            built_folder=out / "verification" / name,
        )
        if src.is_file():
            b.build = lambda n=name: build_verification_benchmark(shared, out / "verification", n)
        else:
            b.missing = f"{src} not found (set {config.SHARED_ENV} or --shared to the shared data folder)"
        benches.append(b)
    for name in ATTRIBUTION_RECIPES:  # built into <out>/datasets, dispatched by the folder's kind
        src = shared / ATTRIBUTION_RECIPES[name][1]
        b = Bench(
            f"{name}Attribution",
            "attribution",
            [f"{name}Attribution", f"{name}AuthorClustering"],
            default=False,
            source=f"built from {src}",
            built_folder=out / "datasets" / name,
        )
        if src.is_file():
            b.build = lambda n=name: build_attribution_benchmark(shared, out / "datasets", n)
        else:
            b.missing = f"{src} not found (set {config.SHARED_ENV} or --shared to the shared data folder)"
        benches.append(b)
    return benches


def user_folders() -> list[Bench]:
    """Benchmarks from the folders named by ``MTEB_CONTRASTIVE_DATASETS`` and ``MTEB_CONTRASTIVE_VERIFICATION``."""
    out = []
    for env in (config.DATASETS_ENV, config.VERIFICATION_ENV):
        classes, problems = catalog.scan_folders(env)
        for name, group in _groups(classes).items():
            b = _bench_of(group, name, default=True)
            b.source = f"{b.source} (${env})"
            out.append(b)
        out += [
            Bench(folder.name, "other", [], default=True, source=f"user folder {folder}", missing=reason)
            for folder, reason in problems
        ]
    return out
