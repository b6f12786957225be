"""PAN authorship-verification tasks. Declarative: metadata + protocol + where the folder is.

* ``PAN20Verification`` / ``PAN21Verification`` -- the PAN 2020 / 2021 cross-domain verification
  data (fanfiction pairs; texts on Zenodo on request only, not on the Hub). Set
  ``MTEB_CONTRASTIVE_PAN20`` / ``MTEB_CONTRASTIVE_PAN21`` (or pass ``folder=`` when making the task
  in Python: ``PAN21Verification(folder="...")``) to a folder holding
  ``validation/{pairs,truth}.jsonl`` and ``test/{pairs,truth}.jsonl`` (PAN publishes no validation
  split: hold out part of the training pairs; an optional ``train/`` is used only by fitted
  baselines). PAN20 is scored with the 2020 evaluator's rules (F0.5u with 0.5 -> "same", overall =
  mean of four), PAN21 with the 2021 rules (0.5 = non-answer, overall = mean of five).
* ``<name>Verification`` -- one task per folder built by ``mteb-contrastive build-verification``
  (``mteb_contrastive.json`` of kind ``pan-verification``), found through
  ``MTEB_CONTRASTIVE_VERIFICATION``: folders separated by ``os.pathsep``, each a dataset folder or
  a folder of them. A folder that cannot be read is skipped with a warning.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from mteb.abstasks.task_metadata import TaskMetadata

from mteb_contrastive.data.verification_builder import KIND
from mteb_contrastive.protocols.verification import AbsTaskVerification

logger = logging.getLogger(__name__)

PAN20_ENV = "MTEB_CONTRASTIVE_PAN20"
PAN21_ENV = "MTEB_CONTRASTIVE_PAN21"
VERIFICATION_ENV = "MTEB_CONTRASTIVE_VERIFICATION"
MAIN_SCORE = "pan_platt_abstain_overall"

_PAN20_CITATION = r"""
@inproceedings{kestemont2020overview,
  author = {Kestemont, Mike and Manjavacas, Enrique and Markov, Ilia and Bevendorff, Janek and Wiegmann, Matti and Stamatatos, Efstathios and Potthast, Martin and Stein, Benno},
  booktitle = {CLEF 2020 Working Notes},
  series = {CEUR Workshop Proceedings},
  volume = {2696},
  title = {Overview of the Cross-Domain Authorship Verification Task at {PAN} 2020},
  year = {2020},
}
"""

_PAN21_CITATION = r"""
@inproceedings{kestemont2021overview,
  author = {Kestemont, Mike and Manjavacas, Enrique and Markov, Ilia and Bevendorff, Janek and Wiegmann, Matti and Stamatatos, Efstathios and Stein, Benno and Potthast, Martin},
  booktitle = {CLEF 2021 Working Notes},
  series = {CEUR Workshop Proceedings},
  volume = {2936},
  title = {Overview of the Cross-Domain Authorship Verification Task at {PAN} 2021},
  year = {2021},
}
"""

_COMMON = dict(
    category="t2t",
    modalities=["text"],
    eval_splits=["test"],
    domains=["Fiction", "Written"],
    license="not specified",
    annotations_creators="derived",
    dialect=[],
    sample_creation="found",
    type="PairClassification",
    main_score=MAIN_SCORE,
)

_PROTOCOL = (
    "Cosine similarity of two embeddings per pair; threshold, Platt scaling and abstention band fitted on "
    "validation, applied to test; official PAN metrics (AUC, c@1, F1, F0.5u, Brier, overall) for hard / Platt / "
    "Platt+abstain answers, plus mteb's pair-classification metrics."
)


class _OfficialPANTask(AbsTaskVerification):
    """PAN20/PAN21: the folder comes from the ``folder`` argument, else from the environment variable."""

    folder_env: str = ""

    def __init__(self, folder: str | os.PathLike | None = None, **kwargs):
        super().__init__(**kwargs)
        self.folder = folder
        # the revision is the content of the folder's pairs and truth files (not "local")
        value = folder or os.environ.get(self.folder_env)
        if value and (Path(value).expanduser() / "test" / "pairs.jsonl").is_file():
            rev = pan_folder_revision(Path(value).expanduser())
            self.metadata = self.metadata.model_copy(update={"dataset": {**self.metadata.dataset, "revision": rev}})

    def pan_folder(self) -> Path:
        return _env_folder(self.folder_env, self.metadata.name, self.folder)


def pan_folder_revision(folder: Path) -> str:
    """Content revision of a PAN-format folder: fingerprint of every ``<split>/pairs.jsonl`` and ``<split>/truth.jsonl``."""
    from mteb_contrastive.identity import folder_revision

    return "content-" + folder_revision(folder, patterns=("*/pairs.jsonl", "*/truth.jsonl"))


def _env_folder(env: str, task: str, value: str | os.PathLike | None = None) -> Path:
    value = value or os.environ.get(env)
    if not value:
        raise FileNotFoundError(
            f"{task}: the PAN texts are not on the Hub; set {env} to a folder with validation/ and test/ (pairs.jsonl + truth.jsonl each)"
        )
    folder = Path(value).expanduser()
    if not (folder / "test" / "pairs.jsonl").is_file():
        raise FileNotFoundError(f"{task}: {value} has no test/pairs.jsonl (expected validation/ and test/ with pairs.jsonl + truth.jsonl)")
    return folder


class PAN20Verification(_OfficialPANTask):
    pan_year = 2020
    folder_env = PAN20_ENV
    metadata = TaskMetadata(
        name="PAN20Verification",
        description=f"PAN 2020 cross-domain authorship verification (fanfiction pairs, closed set), local folder from ${PAN20_ENV}. {_PROTOCOL} PAN 2020 rules: F0.5u turns 0.5 into 'same', overall = mean of four.",
        reference="https://pan.webis.de/clef20/pan20-web/author-identification.html",
        dataset={"path": f"${PAN20_ENV}", "revision": "local"},
        eval_langs=["eng-Latn"],
        date=("2019-01-01", "2020-06-30"),
        bibtex_citation=_PAN20_CITATION,
        **_COMMON,
    )


class PAN21Verification(_OfficialPANTask):
    pan_year = 2021
    folder_env = PAN21_ENV
    metadata = TaskMetadata(
        name="PAN21Verification",
        description=f"PAN 2021 cross-domain authorship verification (fanfiction pairs, unseen authors and fandoms), local folder from ${PAN21_ENV}. {_PROTOCOL} PAN 2021 rules: 0.5 is a non-answer, overall = mean of five.",
        reference="https://pan.webis.de/clef21/pan21-web/author-identification.html",
        dataset={"path": f"${PAN21_ENV}", "revision": "local"},
        eval_langs=["eng-Latn"],
        date=("2019-01-01", "2021-06-30"),
        bibtex_citation=_PAN21_CITATION,
        **_COMMON,
    )


def verification_folders(value: str | None = None) -> list[Path]:
    """Built verification folders named by ``MTEB_CONTRASTIVE_VERIFICATION`` (or ``value``).

    A PAN-format folder (``<split>/pairs.jsonl``) without ``mteb_contrastive.json`` is skipped
    with one warning that says what to write there.
    """
    from mteb_contrastive.tasks.local import dataset_folders

    value = os.environ.get(VERIFICATION_ENV, "") if value is None else value
    for part in filter(None, value.split(os.pathsep)):
        p = Path(part).expanduser()
        for c in ([p] + (sorted(x for x in p.iterdir() if x.is_dir()) if p.is_dir() else [])):
            if any(c.glob("*/pairs.jsonl")) and not (c / "mteb_contrastive.json").is_file():
                logger.warning("skipping verification folder %s: no mteb_contrastive.json; write one with {%s}", c, ", ".join(REQUIRED_FIELDS.values()))
    return dataset_folders(value, env=VERIFICATION_ENV)


def _folder_of(self) -> Path:
    return Path(self.metadata.dataset["path"])


#: what a hand-made PAN-format folder's ``mteb_contrastive.json`` must hold: field -> what to write.
REQUIRED_FIELDS = {
    "kind": f'"kind": "{KIND}"',
    "name": '"name": "<letters and digits, starting with a letter; the task is <name>Verification>"',
    "languages": '"languages": ["<mteb language-script code of the texts, e.g. eng-Latn>"]',
}


def folder_info(folder: Path) -> dict:
    """The checked ``mteb_contrastive.json`` of a verification folder.

    Raises:
        ValueError: one line naming the file, the missing or bad field and what to write.
    """
    import re

    from mteb_contrastive.data.errors import DataError, read_json

    f = folder / "mteb_contrastive.json"
    info = read_json(f)
    if not isinstance(info, dict):
        raise DataError(f, f"not a JSON object; write {{{', '.join(REQUIRED_FIELDS.values())}}}")
    for field, what in REQUIRED_FIELDS.items():
        if field not in info:
            raise DataError(f, f"missing; write {what}", field=field)
    if info["kind"] != KIND:
        raise DataError(f, f"{info['kind']!r} is not a verification dataset; write {REQUIRED_FIELDS['kind']}", field="kind")
    if not isinstance(info["name"], str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", info["name"]):
        raise DataError(f, f"{info['name']!r} is not letters and digits starting with a letter; write {REQUIRED_FIELDS['name']}", field="name")
    langs = info["languages"]
    if not isinstance(langs, list) or not langs or not all(isinstance(x, str) and re.fullmatch(r"[a-z]{3}-[A-Z][a-z]{3}", x) for x in langs):
        raise DataError(f, f"{langs!r} is not a list of mteb language-script codes; write {REQUIRED_FIELDS['languages']}", field="languages")
    return info


def task_for_folder(folder: Path) -> type:
    """The ``<name>Verification`` task class of one built or hand-made folder (see :func:`folder_info`).

    Revision: the builder's ``build_id`` (a fingerprint of the pairs) when present, else the
    content fingerprint of the folder's pairs and truth files (:func:`pan_folder_revision`).
    """
    info = folder_info(folder)
    name = f"{info['name']}Verification"
    desc = info.get("description") or f"Authorship verification pairs built from {info.get('source', folder)}"
    metadata = TaskMetadata(
        name=name,
        description=f"{desc} -- {_PROTOCOL}",
        reference=None,
        dataset={"path": str(folder.resolve()), "revision": info.get("build_id") or pan_folder_revision(folder)},
        eval_langs=list(info["languages"]),
        bibtex_citation="",
        **{**_COMMON, "domains": ["Written"]},
    )
    return type(name, (AbsTaskVerification,), {"metadata": metadata, "pan_folder": _folder_of, "__module__": __name__})


def verification_task_classes() -> list[type]:
    """Task classes for every folder in ``MTEB_CONTRASTIVE_VERIFICATION``."""
    out = []
    for folder in verification_folders():
        try:
            out.append(task_for_folder(folder))
        except Exception as exc:  # a broken folder must not stop mteb
            logger.warning("skipping verification folder %s: %s", folder, exc)
    return out
