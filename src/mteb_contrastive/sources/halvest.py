"""The HALvest-Contrastive release a task loads: its default release, or the user's choice.

Each HALvest task names its default release (:class:`~mteb_contrastive.data.halvest.Release`):
``HALvestTripletClassification`` and ``HALvestRetrieval`` the triplet release
``Madjakul/HALvest-Contrastive`` (what the authors' evaluation loads), ``HALvestPairClassification``
the pairs release ``almanach/HALvest-Contrastive`` at the pinned commit 4c222e5.

Precedence (:func:`mteb_contrastive.data.halvest.resolve_source`): the Python arguments ``path`` /
``revision`` of the task's constructor, then the default release's variables
(``MTEB_CONTRASTIVE_HALVEST_REPO`` / ``_REVISION`` for the triplet release,
``MTEB_CONTRASTIVE_HALVEST_PAIRS_REPO`` / ``_PAIRS_REVISION`` for the pairs release), then the
release. A chosen known release brings its own configs as the task's subsets; a local folder its
config folders. The chosen repository and revision replace the instance's ``metadata.dataset``, so
mteb records them in the result (``dataset_revision``), and the protocols add ``dataset_path`` /
``dataset_revision`` to every split's scores.

Recorded revision (identity is content): a commit as it is; a branch (the triplet release pins
none) as the commit it points at (:func:`~mteb_contrastive.data.halvest.hub_commit`: from the local
Hugging Face cache at construction, asked of the Hub at load, and the data is then loaded at that
commit), or the branch name when neither knows it (a warning says so); a local folder or a release's
local copy (``MTEB_CONTRASTIVE_HALVEST_PATH`` / ``MTEB_CONTRASTIVE_HALVEST_PAIRS_PATH``) as its
content fingerprint (``content-`` + :func:`mteb_contrastive.identity.folder_revision`), with
``dataset_path`` the repository it is a copy of.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, ClassVar

from mteb_contrastive import config
from mteb_contrastive.data.halvest import (
    PAIR_RELEASE,
    TRIPLET_RELEASE,
    Release,
    folder_configs,
    hub_commit,
    load_rows,
    local_copy,
    resolve_source,
)
from mteb_contrastive.identity import folder_revision
from mteb_contrastive.sources.base import DataSource, Missing

__all__ = ["PAIR_RELEASE", "TRIPLET_RELEASE", "HALvestHubSource", "Release"]

logger = logging.getLogger(__name__)


class HALvestHubSource(DataSource):
    """Mixin for the HALvest tasks: chooses the source at construction, loads each split natively.

    Class attribute :attr:`release`: the task's default release.

    Args:
        path: a Hub repository id or a local folder in the Hub layout (overrides the environment).
        revision: a Hub commit, tag or branch.
    """

    release: ClassVar[Release] = TRIPLET_RELEASE

    def __init__(self, *args: Any, path: str | None = None, revision: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        p, r = resolve_source(self.release, path, revision)
        self.halvest_source = (p, self._recorded_revision(p, r, ask_hub=False))
        self._halvest_branch = r  # what the user asked for; resolved again at load
        self._apply_source(reset_subsets=True)

    @staticmethod
    def _recorded_revision(path: str, revision: str | None, *, ask_hub: bool) -> str:
        """The revision recorded for (path, revision): see the module docstring."""
        copy = local_copy(path)
        folder = copy[0] if copy is not None else path
        if Path(folder).is_dir():
            return "content-" + folder_revision(folder)
        return hub_commit(path, revision, ask_hub=ask_hub) or revision or "main"

    @classmethod
    def _chosen(cls) -> str:
        """The repository or folder the environment chooses for this task (no Python arguments)."""
        return resolve_source(cls.release)[0]

    @classmethod
    def missing(cls, *, hub_reachable: bool | None = None) -> Missing | None:
        """Missing only when the chosen source is on the Hub (no local copy, not a folder) and the
        Hub is not reachable (``hub_reachable`` False, or ``HF_HUB_OFFLINE=1``)."""
        chosen = cls._chosen()
        if local_copy(chosen) is not None or Path(chosen).is_dir():
            return None
        offline = config.hub_offline()
        if not (offline or hub_reachable is False):
            return None
        var = cls.release.path_env if chosen == cls.release.repo else cls.release.repo_env
        return Missing(
            "HuggingFace Hub not reachable" + (" (HF_HUB_OFFLINE=1)" if offline else ""),
            f"{cls.metadata.name}: on the HuggingFace Hub ({chosen}) and "
            + ("HF_HUB_OFFLINE=1" if offline else "the Hub is not reachable")
            + f"; set {var} to a local copy",
        )

    @classmethod
    def source_kind(cls) -> str:
        r = cls.release
        kind = "triplet" if r.schema == "triplets" else "pairs"
        at = f" @ `{r.revision[:7]}` ({kind} release)" if r.revision else f" ({kind} release, default branch"
        at += "" if r.revision else " recorded as its commit)"
        return f"HuggingFace Hub `{r.repo}`{at}: {r.why}"

    @classmethod
    def source_location(cls) -> str:
        chosen = cls._chosen()
        copy = local_copy(chosen)
        if copy is not None:
            return f"local copy {copy[0]} of {chosen}"
        return f"local folder {chosen}" if Path(chosen).is_dir() else f"HuggingFace Hub {chosen}"

    def _apply_source(self, *, reset_subsets: bool = False) -> None:
        """Put the chosen source in the instance's metadata (mteb's ``unload_data`` drops it); a
        chosen known release or folder also brings its configs as the subsets (``hf_subsets`` set to
        them at construction, ``reset_subsets``; later the user's choice of subsets stays)."""
        p, r = self.halvest_source
        update: dict[str, Any] = {}
        if (p, r) != (self.metadata.dataset["path"], self.metadata.dataset["revision"]):
            update["dataset"] = {**self.metadata.dataset, "path": p, "revision": r}
        known = {rel.repo: rel for rel in (TRIPLET_RELEASE, PAIR_RELEASE)}.get(p)
        configs = known.configs if known else folder_configs(p)
        if configs and tuple(self.metadata.eval_langs) != configs:
            langs = next(iter(self.metadata.eval_langs.values()))
            update["eval_langs"] = {c: list(langs) for c in configs}
        if update:
            self.metadata = self.metadata.model_copy(update=update)
            if "eval_langs" in update and reset_subsets:
                self.hf_subsets = list(self.metadata.hf_subsets)

    def unload_data(self) -> None:
        """mteb's unload (it restores the class metadata), then the chosen source again, so the
        instance keeps saying what it reads (mteb's result cache checks the revision before loading)."""
        super().unload_data()
        self._apply_source()

    def load_data(self, *args: Any, **kwargs: Any) -> None:
        if not getattr(self, "data_loaded", False):
            p, r = self.halvest_source
            if not r.startswith("content-") and local_copy(p) is None:
                # a branch is pinned to the commit it points at now, and the data loaded at that commit
                commit = hub_commit(p, self._halvest_branch, ask_hub=True)
                if commit is None:
                    logger.warning(
                        "%s: %s@%s could not be resolved to a commit; recorded as %r",
                        self.metadata.name,
                        p,
                        r,
                        r,
                    )
                self.halvest_source = (p, commit or r)
        self._apply_source()
        super().load_data(*args, **kwargs)

    def load_triplets(self, hf_subset: str, split: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """One config/split in its own schema (:func:`~mteb_contrastive.data.halvest.load_rows`);
        info names the config."""
        path, revision = self.halvest_source
        rows, info = load_rows(path, hf_subset, split, None if revision.startswith("content-") else revision)
        info["config"] = hf_subset
        return rows, info
