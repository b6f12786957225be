"""PAN-format verification folders: the official PAN 2020/2021 folders named by a variable, and the
checks of a folder's ``mteb_contrastive.json``.

A PAN-format folder holds ``validation/{pairs,truth}.jsonl`` and ``test/{pairs,truth}.jsonl`` (an
optional ``train/`` is used only by fitted baselines). Its revision is its content: a fingerprint
of every ``<split>/pairs.jsonl`` and ``<split>/truth.jsonl`` (:func:`pan_folder_revision`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, ClassVar

from mteb_contrastive import config
from mteb_contrastive.data.errors import DataError
from mteb_contrastive.data.readers import read_json
from mteb_contrastive.data.verification_builder import KIND as VERIFICATION_KIND
from mteb_contrastive.identity import folder_revision
from mteb_contrastive.layout import info_file
from mteb_contrastive.sources.base import DataSource, Missing

#: the variables naming the official PAN folders
PAN20_ENV, PAN21_ENV = config.PAN20_ENV, config.PAN21_ENV

#: what a hand-made PAN-format folder's ``mteb_contrastive.json`` must hold: field -> what to write.
REQUIRED_FIELDS = {
    "kind": f'"kind": "{VERIFICATION_KIND}"',
    "name": '"name": "<letters and digits, starting with a letter; the task is <name>Verification>"',
    "languages": '"languages": ["<mteb language-script code of the texts, e.g. eng-Latn>"]',
}


def pan_folder_revision(folder: Path) -> str:
    """Content revision of a PAN-format folder: ``content-`` + fingerprint of every
    ``<split>/pairs.jsonl`` and ``<split>/truth.jsonl``."""
    return "content-" + folder_revision(folder, patterns=("*/pairs.jsonl", "*/truth.jsonl"))


def pan_env_folder(env: str, task: str, value: str | os.PathLike | None = None) -> Path:
    """The PAN folder of ``task``: ``value``, else environment variable ``env``.

    Raises:
        FileNotFoundError: unset, or no ``test/pairs.jsonl`` there (one line: what to set).
    """
    value = value or config.env(env)
    if not value:
        raise FileNotFoundError(
            f"{task}: the PAN texts are not on the Hub; "
            f"set {env} to a folder with validation/ and test/ (pairs.jsonl + truth.jsonl each)"
        )
    folder = Path(value).expanduser()
    if not (folder / "test" / "pairs.jsonl").is_file():
        raise FileNotFoundError(
            f"{task}: {value} has no test/pairs.jsonl (expected validation/ and test/ with pairs.jsonl + truth.jsonl)"
        )
    return folder


class PANFolderFromEnv(DataSource):
    """Mixin (before ``AbsTaskVerification``): the PAN folder is the ``folder`` argument, else ``$<folder_env>``.

    The instance's dataset revision is the content of that folder's pairs and truth files
    (:func:`pan_folder_revision`), not the declared ``"local"``.
    """

    folder_env: ClassVar[str] = ""

    def __init__(self, folder: str | os.PathLike | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.folder = folder
        value = folder or config.env(self.folder_env)
        if value and (Path(value).expanduser() / "test" / "pairs.jsonl").is_file():
            rev = pan_folder_revision(Path(value).expanduser())
            self.metadata = self.metadata.model_copy(update={"dataset": {**self.metadata.dataset, "revision": rev}})

    def pan_folder(self) -> Path:
        return pan_env_folder(self.folder_env, self.metadata.name, self.folder)

    @classmethod
    def missing(cls, *, hub_reachable: bool | None = None) -> Missing | None:
        try:
            pan_env_folder(cls.folder_env, cls.metadata.name)
        except FileNotFoundError as exc:
            value = config.env(cls.folder_env)
            year = cls.metadata.name[3:5]
            reason = (
                f"{cls.folder_env}={value} has no test/pairs.jsonl"
                if value
                else f"{cls.folder_env} unset (the PAN {year} texts are on Zenodo on request, not on the Hub)"
            )
            return Missing(reason, str(exc))
        return None

    @classmethod
    def source_kind(cls) -> str:
        return f"your folder, `${cls.folder_env}`"

    @classmethod
    def source_location(cls) -> str:
        return f"${cls.folder_env}"


def folder_info(folder: Path) -> dict:
    """The checked ``mteb_contrastive.json`` of a verification folder.

    Raises:
        DataError: one line naming the file, the missing or bad field and what to write.
    """
    f = info_file(folder)
    info = read_json(f)
    if not isinstance(info, dict):
        raise DataError(f, f"not a JSON object; write {{{', '.join(REQUIRED_FIELDS.values())}}}")
    for field, what in REQUIRED_FIELDS.items():
        if field not in info:
            raise DataError(f, f"missing; write {what}", field=field)
    if info["kind"] != VERIFICATION_KIND:
        raise DataError(
            f, f"{info['kind']!r} is not a verification dataset; write {REQUIRED_FIELDS['kind']}", field="kind"
        )
    if not isinstance(info["name"], str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", info["name"]):
        raise DataError(
            f,
            f"{info['name']!r} is not letters and digits starting with a letter; write {REQUIRED_FIELDS['name']}",
            field="name",
        )
    langs = info["languages"]
    if (
        not isinstance(langs, list)
        or not langs
        or not all(isinstance(x, str) and re.fullmatch(r"[a-z]{3}-[A-Z][a-z]{3}", x) for x in langs)
    ):
        raise DataError(
            f,
            f"{langs!r} is not a list of mteb language-script codes; write {REQUIRED_FIELDS['languages']}",
            field="languages",
        )
    return info
