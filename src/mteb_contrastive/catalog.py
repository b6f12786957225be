"""The catalog: every task class of the extension, declared or made from a user's folder.

* :func:`declared_task_classes` -- the classes of ``tasks/`` (found in its modules, not listed);
* :func:`folder_task_classes` -- the classes of one built folder, by its ``kind``
  (:data:`FOLDER_KINDS`): the metadata templates of ``tasks/`` with the folder's name, path,
  revision (its ``build_id``: a content fingerprint), splits and languages, and a folder source of
  :mod:`mteb_contrastive.sources.folders`;
* :func:`dataset_task_classes` / :func:`verification_task_classes` -- those of every folder named
  by ``MTEB_CONTRASTIVE_DATASETS`` / ``MTEB_CONTRASTIVE_VERIFICATION`` (a folder that cannot be
  read is skipped with a warning and listed by :func:`scan_folders`: it never stops mteb from
  starting);
* :func:`all_task_classes` -- both, in registration order;
* :func:`missing_data` -- whether a task's data is here (its source's answer; path and
  environment checks only);
* :func:`unknown_task` -- why a task name is not known here, in one line (a built folder's task
  name names the variable that finds built folders).
"""

from __future__ import annotations

import importlib
import inspect
import logging
import pkgutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mteb.abstasks.abstask import AbsTask
from mteb.abstasks.task_metadata import TaskMetadata

from mteb_contrastive import compat, config, tasks
from mteb_contrastive.data.attribution_builder import KIND as ATTRIBUTION_KIND
from mteb_contrastive.data.halvest_builder import KIND as AUTHOR_TRIPLETS_KIND
from mteb_contrastive.data.ir_triplets import KIND as IR_TRIPLETS_KIND
from mteb_contrastive.data.quoter import QUOTER_KIND
from mteb_contrastive.families import FAMILIES, family_of
from mteb_contrastive.identity import folder_revision
from mteb_contrastive.layout import info_file
from mteb_contrastive.protocols.ir_triplets import AbsTaskIRTriplets
from mteb_contrastive.protocols.quote_retrieval import AbsTaskQuoteRetrieval
from mteb_contrastive.protocols.verification import AbsTaskVerification
from mteb_contrastive.sources.base import DataSource
from mteb_contrastive.sources.folders import (
    AttributionFolder,
    AuthorTripletsFolder,
    IRTripletsFolder,
    QuoteRFolder,
    VerificationFolder,
    dataset_folders,
    read_info,
    verification_folders,
)
from mteb_contrastive.sources.pan import folder_info, pan_folder_revision
from mteb_contrastive.tasks import attribution, local, pan, paragraph_vector, quoter

logger = logging.getLogger(__name__)

#: the task name of a built folder: ``<name>`` + the suffix of its kind (author triplets: :data:`local.TASKS`)
IR_SUFFIX, QUOTER_SUFFIX, VERIFICATION_SUFFIX = "IRTriplets", "QuoteRRetrieval", "Verification"


def declared_task_classes() -> list[type]:
    """Every concrete task class declared in a module of ``tasks/`` (found, not listed), by family
    (:data:`mteb_contrastive.families.FAMILIES` order), then module, then order of declaration."""
    found = []
    for info in pkgutil.iter_modules(tasks.__path__):
        module = importlib.import_module(f"{tasks.__name__}.{info.name}")
        found += [
            c
            for c in vars(module).values()
            if isinstance(c, type)
            and c.__module__ == module.__name__
            and issubclass(c, AbsTask)
            and not inspect.isabstract(c)
        ]
    return sorted(found, key=_family_rank)


def all_task_classes() -> list[type]:
    """Every task class of the extension: the declared ones and those of the configured folders, by
    family (a family's declared tasks before the folders' ones)."""
    return sorted([*declared_task_classes(), *dataset_task_classes(), *verification_task_classes()], key=_family_rank)


def _family_rank(cls: type) -> int:
    order = list(FAMILIES)
    return order.index(family_of(cls))


def dataset_task_classes() -> list[type]:
    """The task classes of every folder named by ``MTEB_CONTRASTIVE_DATASETS``
    (a broken folder is skipped with a warning)."""
    return scan_folders(config.DATASETS_ENV)[0]


def verification_task_classes() -> list[type]:
    """The task classes of every folder named by ``MTEB_CONTRASTIVE_VERIFICATION``
    (a broken folder is skipped with a warning)."""
    return scan_folders(config.VERIFICATION_ENV)[0]


def missing_data(cls: type) -> str | None:
    """None when ``cls``'s data can be loaded here; else one line saying what is missing and what to set.

    Answered by the task's data source (:mod:`mteb_contrastive.sources`) without reading data or
    calling the network; tasks without one (not ours) are taken as present.
    """
    if isinstance(cls, type) and issubclass(cls, DataSource):
        return cls.data_missing()
    return None


def registered_task_class(name: str) -> type | None:
    """The class mteb's task table holds under ``name`` (None when unknown)."""
    return compat.task_table().get(name)


def unknown_task(name: str) -> str:
    """One line saying why ``name`` is not a task here and what to do (to follow ``-t <name>: ``).

    A name that ends like the tasks of a built folder (:data:`BUILT_TASK_SUFFIXES`, e.g.
    ``MyCorpusAuthorRetrieval``) names the variable that finds built folders, whether it is unset
    or names folders that do not hold it (and the folders that could not be read); any other name
    gets the closest known names.
    """
    import difflib

    close = difflib.get_close_matches(name, list(compat.task_table()), n=2)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    suffix = next((s for s in BUILT_TASK_SUFFIXES if name.endswith(s) and len(name) > len(s)), None)
    if suffix is None:
        return f"no such task{hint} (mteb-contrastive tasks lists this extension's tasks)"
    env, command = BUILT_TASK_SUFFIXES[suffix]
    listed = config.registry_file()
    base = f"no such task: a task made by mteb-contrastive {command} is found through {env}"
    value = config.env(env)
    if not value and listed is not None:
        return (
            f"{base} or the list of built folders {listed}; {env} is unset and no listed folder makes it: "
            f"build it again (a build lists its --out folder) or set {env} to the --out folder of the build"
        )
    if not value:
        return f"{base}, which is unset; set {env} to the --out folder of the build"
    _, problems = scan_folders(env)
    unreadable = "; unreadable: " + "; ".join(f"{f} ({why})" for f, why in problems) if problems else ""
    return f"{base}, and no folder of {env}={value} makes it{unreadable}; add the --out folder of its build to {env}"


# ---------------------------------------------------------------- folders


#: (folder, verification?) -> (stamp of its mteb_contrastive.json, classes or the error): each folder read once
_FOLDER_CACHE: dict[tuple[Path, bool], tuple[tuple[int, int], list[type] | Exception]] = {}


def scan_folders(env: str) -> tuple[list[type], list[tuple[Path, str]]]:
    """(task classes, problems) of the folders named by ``env`` (``MTEB_CONTRASTIVE_DATASETS`` or
    ``MTEB_CONTRASTIVE_VERIFICATION``). A folder that fails is skipped with a warning and listed
    in the problems as (folder, one-line reason)."""
    verification = env == config.VERIFICATION_ENV
    folders = verification_folders() if verification else dataset_folders(env=env)
    classes, problems = [], []
    for folder in folders:
        try:
            classes.extend(_cached_folder_classes(folder, verification))
        except Exception as exc:  # a broken folder must not stop mteb
            logger.warning("skipping %s folder %s: %s", "verification" if verification else "dataset", folder, exc)
            problems.append((folder, f"{info_file(folder)} unreadable: {exc}"))
    return classes, problems


def _cached_folder_classes(folder: Path, verification: bool) -> list[type]:
    folder = folder.resolve()
    st = info_file(folder).stat()
    stamp = (st.st_mtime_ns, st.st_size)
    hit = _FOLDER_CACHE.get((folder, verification))
    if hit is None or hit[0] != stamp:
        try:
            made: list[type] | Exception = folder_task_classes(folder, verification=verification)
        except Exception as exc:
            made = exc
        hit = _FOLDER_CACHE[(folder, verification)] = (stamp, made)
    if isinstance(hit[1], Exception):
        raise hit[1]
    return list(hit[1])


def folder_task_classes(folder: str | Path, *, verification: bool = False) -> list[type]:
    """The task classes of one built folder.

    ``verification``: a PAN-format folder (``build-verification`` or hand-made; its
    ``mteb_contrastive.json`` checked by :func:`~mteb_contrastive.sources.pan.folder_info`):
    ``<name>Verification``. Otherwise by the folder's ``kind`` (:data:`FOLDER_KINDS`): author
    triplets (``build-triplets``): ``<name>AuthorRetrieval`` and ``<name>AuthorTripletClassification``
    (one subset per config); IR triplets (``build-ir-triplets``): ``<name>IRTriplets``; QuoteR
    (``build-quoter``): ``<name>QuoteRRetrieval``; attribution (``build-attribution``):
    ``<name>Attribution`` and ``<name>AuthorClustering``.

    Raises:
        ValueError: an unknown kind.
        DataError: an unreadable ``mteb_contrastive.json``, or a verification folder's bad field.
    """
    folder = Path(folder).resolve()
    if verification:
        return _verification_tasks(folder, folder_info(folder))
    info = read_info(folder)
    kind = info.get("kind") if isinstance(info, dict) else None
    if kind not in FOLDER_KINDS:
        raise ValueError(f"{folder}: unknown dataset kind {kind!r}")
    return FOLDER_KINDS[kind](folder, info)


def _author_tasks(folder: Path, info: dict[str, Any]) -> list[type]:
    name = info["name"]
    revision = info.get("build_id") or "content-" + folder_revision(folder, patterns=("**/*.parquet",))
    common = dict(
        dataset={"path": str(folder), "revision": revision},
        eval_splits=info.get("splits", ["test"]),
        eval_langs={cfg: list(info.get("languages") or [info["language"]]) for cfg in info["configs"]},
        **local.METADATA,
    )
    desc = info.get("description") or f"Author triplets built from {info.get('source', folder)}"
    out = []
    for suffix, (protocol, task_type, main_score, what) in local.TASKS.items():
        metadata = TaskMetadata(
            name=f"{name}{suffix}", description=f"{desc} -- {what}", type=task_type, main_score=main_score, **common
        )
        out.append(_make(f"{name}{suffix}", AuthorTripletsFolder, protocol, folder, info, metadata, local.__name__))
    return out


def _verification_tasks(folder: Path, info: dict[str, Any]) -> list[type]:
    name = f"{info['name']}{VERIFICATION_SUFFIX}"
    desc = info.get("description") or f"Authorship verification pairs built from {info.get('source', folder)}"
    metadata = TaskMetadata(
        name=name,
        description=f"{desc} -- {pan.PROTOCOL}",
        reference=None,
        dataset={"path": str(folder), "revision": info.get("build_id") or pan_folder_revision(folder)},
        eval_langs=list(info["languages"]),
        bibtex_citation="",
        **{**pan.METADATA, "domains": ["Written"]},
    )
    return [_make(name, VerificationFolder, AbsTaskVerification, folder, info, metadata, pan.__name__)]


def _ir_tasks(folder: Path, info: dict[str, Any]) -> list[type]:
    name = f"{info['name']}{IR_SUFFIX}"
    metadata = paragraph_vector.CranfieldIRTriplets.metadata.model_copy(
        update=dict(
            name=name,
            description="Paragraph Vector IR triplets (Le & Mikolov 2014, 3.3) built from "
            f"{info.get('source') or folder}; "
            "accuracy (main score) and error_rate = 100 * (1 - accuracy); test split evaluated.",
            dataset={"path": str(folder), "revision": info["build_id"]},
            eval_langs=[info.get("language", "eng-Latn")],
            date=None,
            domains=None,
            annotations_creators="derived",
        )
    )
    return [_make(name, IRTripletsFolder, AbsTaskIRTriplets, folder, info, metadata, paragraph_vector.__name__)]


def _quoter_tasks(folder: Path, info: dict[str, Any]) -> list[type]:
    name = f"{info['name']}{QUOTER_SUFFIX}"
    if info["split"] == "shuffled":
        rule = (
            f"split {info['proportions'][0]:g}/{info['proportions'][1]:g} cut after "
            f"random.Random({info['seed']}).shuffle"
        )
    elif info.get("boundaries"):
        rule = f"split in line order at lines {info['boundaries'][0]} and {info['boundaries'][1]}"
    else:
        rule = f"split in line order at {info['proportions'][0]:g}/{info['proportions'][1]:g} of the lines"
    metadata = TaskMetadata(
        name=name,
        description=f"Quote recommendation (QuoteR format) from your file {info['source']} ({info['n_lines']} lines), "
        f"{rule}; test split evaluated." + quoter.PROTOCOL,
        dataset={"path": str(folder), "revision": info["build_id"]},
        reference=None,
        eval_langs=[info["language"]],
        date=None,
        license="not specified",
        bibtex_citation="",
        **dict(quoter.METADATA, domains=None),
    )
    attrs: dict[str, Any] = {
        "quoter_file": info["file"],
        "language": info["query_language"],
        "boundaries": tuple(info["boundaries"]) if info.get("boundaries") else None,
        "shuffle": info["split"] == "shuffled",
        "revision_is_content": True,  # build_id fingerprints the copied file and its split rule
    }
    if info.get("proportions"):
        attrs["proportions"] = tuple(info["proportions"])
    if info.get("seed") is not None:
        attrs["shuffle_seed"] = int(info["seed"])
    return [_make(name, QuoteRFolder, AbsTaskQuoteRetrieval, folder, info, metadata, quoter.__name__, **attrs)]


def _attribution_tasks(folder: Path, info: dict[str, Any]) -> list[type]:
    desc = info.get("description") or f"Authorship attribution texts built from {info.get('source') or folder}"
    out = []
    for suffix, (protocol, task_type, main_score, what) in attribution.TASKS.items():
        metadata = TaskMetadata(
            name=f"{info['name']}{suffix}",
            description=f"{desc} -- {what}",
            type=task_type,
            main_score=main_score,
            dataset={"path": str(folder), "revision": info["build_id"]},
            eval_langs=list(info["languages"]),
            date=None,
            **attribution.METADATA,
        )
        attrs = {"open_set": bool(info.get("params", {}).get("open_set"))} if suffix == "Attribution" else {}
        out.append(
            _make(metadata.name, AttributionFolder, protocol, folder, info, metadata, attribution.__name__, **attrs)
        )
    return out


def _make(
    name: str,
    source: type,
    protocol: type,
    folder: Path,
    info: dict[str, Any],
    metadata: TaskMetadata,
    module: str,
    **attrs: Any,
) -> type:
    """A task class ``name`` = ``source`` (a built-folder mixin) + ``protocol``, for ``folder``."""
    return type(
        name, (source, protocol), {"metadata": metadata, "folder": folder, "info": info, "__module__": module, **attrs}
    )


#: the end of the task names of a built folder, by the variable that finds such folders and the command that builds one
BUILT_TASK_SUFFIXES: dict[str, tuple[str, str]] = {
    **{suffix: (config.DATASETS_ENV, "build-triplets") for suffix in local.TASKS},
    IR_SUFFIX: (config.DATASETS_ENV, "build-ir-triplets"),
    QUOTER_SUFFIX: (config.DATASETS_ENV, "build-quoter"),
    VERIFICATION_SUFFIX: (config.VERIFICATION_ENV, "build-verification"),
}

#: ``kind`` of a dataset folder's ``mteb_contrastive.json`` -> the factory of its task classes
#: (verification folders, named by their own variable, always make ``<name>Verification``)
FOLDER_KINDS: dict[str, Callable[[Path, dict[str, Any]], list[type]]] = {
    AUTHOR_TRIPLETS_KIND: _author_tasks,
    IR_TRIPLETS_KIND: _ir_tasks,
    QUOTER_KIND: _quoter_tasks,
    ATTRIBUTION_KIND: _attribution_tasks,
}
