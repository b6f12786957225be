"""Everything behind the task declarations: where data is, checking it, building it, making classes.

The files of ``tasks/`` declare tasks the way mteb's own task files do (``TaskMetadata`` + a
protocol base class + where the data is). This module does the rest, for every family:

* **environment variables** (:data:`DATASETS_ENV`, :data:`VERIFICATION_ENV`, :data:`PAN20_ENV`,
  :data:`PAN21_ENV`, :data:`CRANFIELD_ENV`, :data:`CACHE_ENV`, :data:`QUOTER_OFFICIAL_ENV`,
  :data:`QUOTER_SHARED_ENV`; see ``docs/environment.md``) and the folders they name
  (:func:`dataset_folders`, :func:`verification_folders`, :func:`cranfield_source`);
* **file validation**: :func:`folder_info` (a verification folder's ``mteb_contrastive.json``,
  one line naming file, field and fix);
* **building on first load**: :func:`built_folder` (Paragraph Vector IR triplets of a BEIR folder,
  into a cache keyed by content, :func:`source_key`);
* **class generation**: one task class per built folder (:func:`tasks_for_folder`,
  :func:`verification_task_for_folder`, :func:`ir_task_for_folder`, :func:`quoter_task_for_folder`),
  and the whole list (:func:`all_task_classes`);
* **mixins** a declaration puts before its protocol class to say where its data is:
  :class:`PANFolderFromEnv`, :class:`IRTripletsBuiltOnFirstLoad`, :class:`QuoteROfficialFiles`,
  :class:`QuoteRSharedFiles`.

A folder that cannot be read is skipped with a warning; it never stops mteb from starting.
The module itself imports neither mteb nor a task module (each function imports what it uses).
"""

from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path
from typing import Any

from mteb_contrastive.data.verification_builder import KIND as VERIFICATION_KIND

logger = logging.getLogger(__name__)

DATASETS_ENV = "MTEB_CONTRASTIVE_DATASETS"
VERIFICATION_ENV = "MTEB_CONTRASTIVE_VERIFICATION"
PAN20_ENV = "MTEB_CONTRASTIVE_PAN20"
PAN21_ENV = "MTEB_CONTRASTIVE_PAN21"
CRANFIELD_ENV = "MTEB_CONTRASTIVE_CRANFIELD"
CACHE_ENV = "MTEB_CONTRASTIVE_CACHE"
QUOTER_OFFICIAL_ENV = "MTEB_CONTRASTIVE_QUOTER_OFFICIAL"
QUOTER_SHARED_ENV = "MTEB_CONTRASTIVE_QUOTER_DATA"

#: version of the IR-triplet build on first load; part of every CranfieldIRTriplets revision
BUILDER_VERSION = "2"

#: what a hand-made PAN-format folder's ``mteb_contrastive.json`` must hold: field -> what to write.
REQUIRED_FIELDS = {
    "kind": f'"kind": "{VERIFICATION_KIND}"',
    "name": '"name": "<letters and digits, starting with a letter; the task is <name>Verification>"',
    "languages": '"languages": ["<mteb language-script code of the texts, e.g. eng-Latn>"]',
}


def all_task_classes() -> list[type]:
    """Every task class of the extension: the declared ones and those made from the configured folders."""
    from mteb_contrastive.tasks.halvest import HALvestPairClassification, HALvestRetrieval, HALvestTripletClassification
    from mteb_contrastive.tasks.pan import PAN20Verification, PAN21Verification
    from mteb_contrastive.tasks.paragraph_vector import CranfieldIRTriplets
    from mteb_contrastive.tasks.quoter import QUOTER_TASKS

    return [
        HALvestTripletClassification,
        HALvestRetrieval,
        HALvestPairClassification,
        *local_task_classes(),
        PAN20Verification,
        PAN21Verification,
        *verification_task_classes(),
        *QUOTER_TASKS,
        CranfieldIRTriplets,
    ]


# ---------------------------------------------------------------- folders named by the environment


def dataset_folders(value: str | None = None, env: str = DATASETS_ENV) -> list[Path]:
    """Built dataset folders named by the environment variable ``env`` (or ``value``), sorted by path.

    Each ``os.pathsep``-separated entry is a folder holding ``mteb_contrastive.json`` or a folder of
    such folders; an entry that is not a folder is skipped with a warning.
    """
    value = os.environ.get(env, "") if value is None else value
    found = []
    for part in filter(None, value.split(os.pathsep)):
        p = Path(part).expanduser()
        if (p / "mteb_contrastive.json").is_file():
            found.append(p)
        elif p.is_dir():
            found.extend(sorted(c for c in p.iterdir() if (c / "mteb_contrastive.json").is_file()))
        else:
            logger.warning("%s=%s: %s is not a folder", env, value, p)
    return found


def verification_folders(value: str | None = None) -> list[Path]:
    """Built verification folders named by :data:`VERIFICATION_ENV` (or ``value``).

    A PAN-format folder (``<split>/pairs.jsonl``) without ``mteb_contrastive.json`` is skipped
    with one warning that says what to write there.
    """
    value = os.environ.get(VERIFICATION_ENV, "") if value is None else value
    for part in filter(None, value.split(os.pathsep)):
        p = Path(part).expanduser()
        for c in ([p] + (sorted(x for x in p.iterdir() if x.is_dir()) if p.is_dir() else [])):
            if any(c.glob("*/pairs.jsonl")) and not (c / "mteb_contrastive.json").is_file():
                logger.warning("skipping verification folder %s: no mteb_contrastive.json; write one with {%s}", c, ", ".join(REQUIRED_FIELDS.values()))
    return dataset_folders(value, env=VERIFICATION_ENV)


def _content_revision(folder: Path, patterns: tuple[str, ...]) -> str:
    from mteb_contrastive.identity import folder_revision

    return "content-" + folder_revision(folder, patterns=patterns)


def _revision(folder: Path, info: dict) -> str:
    """The builder's content fingerprint ``build_id``; for a folder without one, a fingerprint of its files."""
    return info.get("build_id") or _content_revision(folder, ("**/*.parquet",))


# ---------------------------------------------------------------- author triplets (build-triplets)


def _load_triplets(self: Any, hf_subset: str, split: str) -> Any:
    from mteb_contrastive.data.halvest import load_triplets

    return load_triplets(self.metadata.dataset["path"], hf_subset, split)


def tasks_for_folder(folder: Path) -> list[type]:
    """The task classes of one built dataset folder, by its ``mteb_contrastive.json`` ``kind``.

    Author triplets (``build-triplets``): ``<name>AuthorRetrieval`` and
    ``<name>AuthorTripletClassification`` (one subset per config); IR triplets
    (``build-ir-triplets``): ``<name>IRTriplets``; QuoteR (``build-quoter``): ``<name>QuoteRRetrieval``.

    Raises:
        ValueError: an unknown kind.
        DataError: an unreadable ``mteb_contrastive.json``.
    """
    from mteb_contrastive.data.errors import read_json
    from mteb_contrastive.data.halvest_builder import KIND
    from mteb_contrastive.tasks import local

    info = read_json(folder / "mteb_contrastive.json")
    if info.get("kind") == "ir-triplets":  # built by `mteb-contrastive build-ir-triplets`
        return [ir_task_for_folder(folder)]
    if info.get("kind") == "quoter":  # built by `mteb-contrastive build-quoter`
        return [quoter_task_for_folder(folder)]
    if info.get("kind") != KIND:
        raise ValueError(f"{folder}: unknown dataset kind {info.get('kind')!r}")
    from mteb.abstasks.task_metadata import TaskMetadata

    name = info["name"]
    common = dict(
        dataset={"path": str(folder.resolve()), "revision": _revision(folder, info)},
        eval_splits=info.get("splits", ["test"]),
        eval_langs={cfg: list(info.get("languages") or [info["language"]]) for cfg in info["configs"]},
        **local.METADATA,
    )
    desc = info.get("description") or f"Author triplets built from {info.get('source', folder)}"
    out = []
    for suffix, (protocol, task_type, main_score, what) in local.TASKS.items():
        metadata = TaskMetadata(name=f"{name}{suffix}", description=f"{desc} -- {what}", type=task_type, main_score=main_score, **common)
        out.append(type(f"{name}{suffix}", (protocol,), {"metadata": metadata, "load_triplets": _load_triplets, "__module__": local.__name__}))
    return out


def _classes_of(folders: list[Path], make: Any, what: str) -> list[type]:
    """``make(folder)`` (a list of classes) for each folder; a folder that fails is skipped with a warning."""
    out = []
    for folder in folders:
        try:
            out.extend(make(folder))
        except Exception as exc:  # a broken folder must not stop mteb
            logger.warning("skipping %s folder %s: %s", what, folder, exc)
    return out


def local_task_classes() -> list[type]:
    """Task classes for every folder in :data:`DATASETS_ENV` (a broken folder is skipped with a warning)."""
    return _classes_of(dataset_folders(), tasks_for_folder, "dataset")


# ---------------------------------------------------------------- PAN verification


def pan_folder_revision(folder: Path) -> str:
    """Content revision of a PAN-format folder: fingerprint of every ``<split>/pairs.jsonl`` and ``<split>/truth.jsonl``."""
    return _content_revision(folder, ("*/pairs.jsonl", "*/truth.jsonl"))


def pan_env_folder(env: str, task: str, value: str | os.PathLike | None = None) -> Path:
    """The PAN folder of ``task``: ``value``, else environment variable ``env``.

    Raises:
        FileNotFoundError: unset, or no ``test/pairs.jsonl`` there (one line: what to set).
    """
    value = value or os.environ.get(env)
    if not value:
        raise FileNotFoundError(
            f"{task}: the PAN texts are not on the Hub; set {env} to a folder with validation/ and test/ (pairs.jsonl + truth.jsonl each)"
        )
    folder = Path(value).expanduser()
    if not (folder / "test" / "pairs.jsonl").is_file():
        raise FileNotFoundError(f"{task}: {value} has no test/pairs.jsonl (expected validation/ and test/ with pairs.jsonl + truth.jsonl)")
    return folder


class PANFolderFromEnv:
    """Mixin (before ``AbsTaskVerification``): the PAN folder is the ``folder`` argument, else ``$<folder_env>``.

    The instance's dataset revision is the content of that folder's pairs and truth files
    (:func:`pan_folder_revision`), not the declared ``"local"``.
    """

    folder_env: str = ""

    def __init__(self, folder: str | os.PathLike | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.folder = folder
        value = folder or os.environ.get(self.folder_env)
        if value and (Path(value).expanduser() / "test" / "pairs.jsonl").is_file():
            rev = pan_folder_revision(Path(value).expanduser())
            self.metadata = self.metadata.model_copy(update={"dataset": {**self.metadata.dataset, "revision": rev}})

    def pan_folder(self) -> Path:
        return pan_env_folder(self.folder_env, self.metadata.name, self.folder)


def folder_info(folder: Path) -> dict:
    """The checked ``mteb_contrastive.json`` of a verification folder.

    Raises:
        DataError: one line naming the file, the missing or bad field and what to write.
    """
    from mteb_contrastive.data.errors import DataError, read_json

    f = folder / "mteb_contrastive.json"
    info = read_json(f)
    if not isinstance(info, dict):
        raise DataError(f, f"not a JSON object; write {{{', '.join(REQUIRED_FIELDS.values())}}}")
    for field, what in REQUIRED_FIELDS.items():
        if field not in info:
            raise DataError(f, f"missing; write {what}", field=field)
    if info["kind"] != VERIFICATION_KIND:
        raise DataError(f, f"{info['kind']!r} is not a verification dataset; write {REQUIRED_FIELDS['kind']}", field="kind")
    if not isinstance(info["name"], str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", info["name"]):
        raise DataError(f, f"{info['name']!r} is not letters and digits starting with a letter; write {REQUIRED_FIELDS['name']}", field="name")
    langs = info["languages"]
    if not isinstance(langs, list) or not langs or not all(isinstance(x, str) and re.fullmatch(r"[a-z]{3}-[A-Z][a-z]{3}", x) for x in langs):
        raise DataError(f, f"{langs!r} is not a list of mteb language-script codes; write {REQUIRED_FIELDS['languages']}", field="languages")
    return info


def _pan_folder_of(self: Any) -> Path:
    return Path(self.metadata.dataset["path"])


def verification_task_for_folder(folder: Path) -> type:
    """The ``<name>Verification`` task class of one built or hand-made folder (see :func:`folder_info`).

    Revision: the builder's ``build_id`` (a fingerprint of the pairs) when present, else the
    content fingerprint of the folder's pairs and truth files (:func:`pan_folder_revision`).

    Raises:
        DataError: a missing or bad ``mteb_contrastive.json`` field.
    """
    from mteb.abstasks.task_metadata import TaskMetadata

    from mteb_contrastive.protocols.verification import AbsTaskVerification
    from mteb_contrastive.tasks import pan

    info = folder_info(folder)
    name = f"{info['name']}Verification"
    desc = info.get("description") or f"Authorship verification pairs built from {info.get('source', folder)}"
    metadata = TaskMetadata(
        name=name,
        description=f"{desc} -- {pan.PROTOCOL}",
        reference=None,
        dataset={"path": str(folder.resolve()), "revision": info.get("build_id") or pan_folder_revision(folder)},
        eval_langs=list(info["languages"]),
        bibtex_citation="",
        **{**pan.METADATA, "domains": ["Written"]},
    )
    return type(name, (AbsTaskVerification,), {"metadata": metadata, "pan_folder": _pan_folder_of, "__module__": pan.__name__})


def verification_task_classes() -> list[type]:
    """Task classes for every folder in :data:`VERIFICATION_ENV` (a broken folder is skipped with a warning)."""
    return _classes_of(verification_folders(), lambda f: [verification_task_for_folder(f)], "verification")


# ---------------------------------------------------------------- Paragraph Vector IR triplets


def cranfield_source() -> Path:
    """The Cranfield BEIR folder: ``$MTEB_CONTRASTIVE_CRANFIELD``, else ``<shared>/ir/cranfield``
    (``<shared>``: :func:`mteb_contrastive.paths.shared_data_dir`)."""
    env = os.environ.get(CRANFIELD_ENV)
    if env:
        return Path(env).expanduser()
    from mteb_contrastive.paths import shared_data_dir

    return shared_data_dir() / "ir" / "cranfield"


def cache_root() -> Path:
    """``$MTEB_CONTRASTIVE_CACHE`` (default ``~/.cache/mteb_contrastive``) ``/ir_triplets``."""
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "mteb_contrastive").expanduser() / "ir_triplets"


def source_key(source: Path, params: dict[str, Any]) -> str:
    """Content key of a build: :data:`BUILDER_VERSION`, the parameters and the bytes of the source files."""
    from mteb_contrastive.identity import file_digest, fingerprint

    files = [(rel, file_digest(source / rel)) for rel in ("corpus.jsonl", "queries.jsonl", "qrels/test_gain.tsv", "qrels/test.tsv") if (source / rel).is_file()]
    return fingerprint(BUILDER_VERSION, params, files, length=12)


def built_folder(name: str, source: Path, params: dict[str, Any]) -> Path:
    """The built IR-triplet folder ``<cache_root>/<name>-<source_key>`` for ``source``; built (atomically) when absent."""
    from mteb_contrastive.data.ir_triplets import build_ir_triplets, read_beir_folder

    folder = cache_root() / f"{name}-{source_key(source, params)}"
    if not (folder / "mteb_contrastive.json").is_file():
        corpus, queries, qrels = read_beir_folder(source)
        logger.info("building %s from %s into %s", name, source, folder)
        build_ir_triplets(corpus, qrels, folder.parent, folder.name, queries=queries, source=str(source),
                          description=f"{name}: Paragraph Vector IR triplets from {source}", **params)
    return folder


class IRTripletsBuiltOnFirstLoad:
    """Mixin (before ``AbsTaskIRTriplets``): triplets built from :func:`cranfield_source` with
    ``build_params`` on first load (:func:`built_folder`), read from the cache afterwards.

    The instance's dataset revision is ``builder-<BUILDER_VERSION>-<source_key>`` when the source
    is present (the content, not a constant).
    """

    build_params: dict[str, Any] = {}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        source = cranfield_source()
        if (source / "corpus.jsonl").is_file():
            rev = f"builder-{BUILDER_VERSION}-{source_key(source, self.build_params)}"
            self.metadata = self.metadata.model_copy(update={"dataset": {**self.metadata.dataset, "revision": rev}})

    @classmethod
    def missing_source(cls) -> str | None:
        """None when the source has ``corpus.jsonl``; else one line saying what to set."""
        src = cranfield_source()
        if (src / "corpus.jsonl").is_file():
            return None
        return f"{cls.metadata.name}: {src} has no corpus.jsonl (set {CRANFIELD_ENV} to a BEIR-layout Cranfield folder, or MTEB_CONTRASTIVE_SHARED to the shared data folder)"

    def _folder(self) -> Path:
        if getattr(self, "_built", None) is None:
            self._built = built_folder(self.metadata.name, cranfield_source(), self.build_params)
        return self._built

    def load_triplets(self, hf_subset: str, split: str) -> Any:
        from mteb_contrastive.data.ir_triplets import load_ir_triplets

        return load_ir_triplets(self._folder(), hf_subset, split)

    def load_train_rows(self, hf_subset: str) -> Any:
        from mteb_contrastive.data.ir_triplets import load_ir_triplets

        return load_ir_triplets(self._folder(), hf_subset, "train")[0]


def ir_task_for_folder(folder: Path) -> type:
    """The ``<name>IRTriplets`` task class of a folder built by ``mteb-contrastive build-ir-triplets``
    (``CranfieldIRTriplets``'s metadata with the folder's name, path, ``build_id`` and language)."""
    from mteb_contrastive.data.errors import read_json
    from mteb_contrastive.data.ir_triplets import load_ir_triplets
    from mteb_contrastive.protocols.ir_triplets import AbsTaskIRTriplets
    from mteb_contrastive.tasks import paragraph_vector

    info = read_json(Path(folder) / "mteb_contrastive.json")
    name = f"{info['name']}IRTriplets"
    path = str(Path(folder).resolve())
    metadata = paragraph_vector.CranfieldIRTriplets.metadata.model_copy(update=dict(
        name=name,
        description=f"Paragraph Vector IR triplets (Le & Mikolov 2014, 3.3) built from {info.get('source') or folder}; "
                    "accuracy (main score) and error_rate = 100 * (1 - accuracy); test split evaluated.",
        dataset={"path": path, "revision": info["build_id"]},
        eval_langs=[info.get("language", "eng-Latn")],
        date=None,
        domains=None,
        annotations_creators="derived",
    ))
    return type(name, (AbsTaskIRTriplets,), {
        "metadata": metadata,
        "load_triplets": lambda self, hf_subset, split: load_ir_triplets(path, hf_subset, split),
        "load_train_rows": lambda self, hf_subset: load_ir_triplets(path, hf_subset, "train")[0],
        "__module__": paragraph_vector.__name__,
    })


# ---------------------------------------------------------------- QuoteR


class QuoteROfficialFiles:
    """Mixin (before ``AbsTaskQuoteRetrieval``): the official thunlp/QuoteR file ``quoter_file``
    from ``$MTEB_CONTRASTIVE_QUOTER_OFFICIAL`` (not on the Hub)."""

    @classmethod
    def data_dir(cls) -> Path:
        from mteb_contrastive.protocols.quote_retrieval import env_dir

        d = env_dir(QUOTER_OFFICIAL_ENV)
        return d if d is not None else Path(f"${QUOTER_OFFICIAL_ENV}")

    @classmethod
    def missing_data_message(cls, path: Path) -> str:
        from mteb_contrastive.protocols.quote_retrieval import env_dir

        if env_dir(QUOTER_OFFICIAL_ENV) is None:
            return (
                f"{cls.metadata.name}: the official QuoteR files are not on the HuggingFace Hub; clone "
                f"https://github.com/thunlp/QuoteR (or download {cls.quoter_file}) and set {QUOTER_OFFICIAL_ENV} "
                f"to the folder holding {cls.quoter_file}"
            )
        return f"{cls.metadata.name}: {path} not found ({QUOTER_OFFICIAL_ENV}={env_dir(QUOTER_OFFICIAL_ENV)}); it should hold {cls.quoter_file}"


class QuoteRSharedFiles:
    """Mixin (before ``AbsTaskQuoteRetrieval``): the shared file ``quoter_file`` from
    ``$MTEB_CONTRASTIVE_QUOTER_DATA``, else ``<shared>/quoter``."""

    @classmethod
    def data_dir(cls) -> Path:
        from mteb_contrastive.protocols.quote_retrieval import env_dir

        d = env_dir(QUOTER_SHARED_ENV)
        if d is not None:
            return d
        from mteb_contrastive.paths import shared_data_dir

        return shared_data_dir() / "quoter"

    @classmethod
    def missing_data_message(cls, path: Path) -> str:
        return f"{cls.metadata.name}: {path} not found; set {QUOTER_SHARED_ENV} to the folder holding {cls.quoter_file} (or MTEB_CONTRASTIVE_SHARED to the shared data folder)"


def quoter_task_for_folder(folder: Path) -> type:
    """The ``<name>QuoteRRetrieval`` task of a folder built by ``mteb-contrastive build-quoter``
    (:func:`mteb_contrastive.data.quoter.build_quoter_folder`): its file, language and split rule as built.

    Raises:
        ValueError: the folder is not of kind ``quoter``.
    """
    from mteb.abstasks.task_metadata import TaskMetadata

    from mteb_contrastive.data.quoter import QUOTER_KIND
    from mteb_contrastive.protocols.quote_retrieval import AbsTaskQuoteRetrieval
    from mteb_contrastive.tasks import quoter

    folder = Path(folder).resolve()
    info = json.loads((folder / "mteb_contrastive.json").read_text(encoding="utf-8"))
    if info.get("kind") != QUOTER_KIND:
        raise ValueError(f"{folder}: not a QuoteR task folder (kind {info.get('kind')!r})")
    name = f"{info['name']}QuoteRRetrieval"
    if info["split"] == "shuffled":
        rule = f"split {info['proportions'][0]:g}/{info['proportions'][1]:g} cut after random.Random({info['seed']}).shuffle"
    elif info.get("boundaries"):
        rule = f"split in line order at lines {info['boundaries'][0]} and {info['boundaries'][1]}"
    else:
        rule = f"split in line order at {info['proportions'][0]:g}/{info['proportions'][1]:g} of the lines"
    metadata = TaskMetadata(
        name=name,
        description=f"Quote recommendation (QuoteR format) from your file {info['source']} ({info['n_lines']} lines), {rule}; test split evaluated." + quoter.PROTOCOL,
        dataset={"path": str(folder), "revision": info["build_id"]},
        reference=None,
        eval_langs=[info["language"]],
        date=None,
        license="not specified",
        bibtex_citation="",
        **dict(quoter.METADATA, domains=None),
    )
    attrs = {
        "metadata": metadata,
        "quoter_file": info["file"],
        "language": info["query_language"],
        "boundaries": tuple(info["boundaries"]) if info.get("boundaries") else None,
        "shuffle": info["split"] == "shuffled",
        "data_dir": classmethod(lambda cls: folder),
        "revision_is_content": True,  # build_id fingerprints the copied file and its split rule
        "__module__": quoter.__name__,
    }
    if info.get("proportions"):
        attrs["proportions"] = tuple(info["proportions"])
    if info.get("seed") is not None:
        attrs["shuffle_seed"] = int(info["seed"])
    return type(name, (AbsTaskQuoteRetrieval,), attrs)
