"""The HALvest-Contrastive release a task loads: the user's choice of repository and revision.

Precedence (:func:`mteb_contrastive.data.halvest.resolve_source`): the Python arguments
``path`` / ``revision`` of the task's constructor, then the environment variables
``MTEB_CONTRASTIVE_HALVEST_REPO`` / ``MTEB_CONTRASTIVE_HALVEST_REVISION``, then the task
metadata's default (``almanach/HALvest-Contrastive`` at the pinned revision 4c222e5). The chosen
repository and revision replace the instance's ``metadata.dataset``, so mteb records them in the
result (``dataset_revision``), and the protocols add ``dataset_path`` / ``dataset_revision`` to
every split's scores. A Hub repository chosen without a revision is recorded as ``main`` (the
branch ``datasets`` loads); a local folder is recorded by its content fingerprint
(``content-`` + :func:`mteb_contrastive.identity.folder_revision`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mteb_contrastive import config
from mteb_contrastive.data.halvest import (
    HUB_CONFIGS,
    HUB_REPO,
    HUB_REVISION,
    load_rows,
    resolve_location,
    resolve_source,
)
from mteb_contrastive.identity import folder_revision
from mteb_contrastive.sources.base import DataSource, Missing

__all__ = ["HUB_CONFIGS", "HUB_REPO", "HUB_REVISION", "HALvestHubSource"]


class HALvestHubSource(DataSource):
    """Mixin for the HALvest tasks: chooses the source at construction, loads each split natively.

    Args:
        path: a Hub repository id or a local folder in the Hub layout (overrides the environment).
        revision: a Hub commit, tag or branch.
    """

    def __init__(self, *args: Any, path: str | None = None, revision: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        default = self.metadata.dataset
        p, r = resolve_source(default["path"], default["revision"], path, revision)
        local, _ = resolve_location(p, r)
        if local != p or r is None:
            # a local folder (or the local copy named by MTEB_CONTRASTIVE_HALVEST_PATH) is recorded by its content
            r = "content-" + folder_revision(local) if Path(local).is_dir() else "main"
        self.halvest_source = (p, r)
        self._apply_source()

    @classmethod
    def missing(cls, *, hub_reachable: bool | None = None) -> Missing | None:
        """Missing only without a local copy (``MTEB_CONTRASTIVE_HALVEST_PATH``) when the Hub is not
        reachable (``hub_reachable`` False, or ``HF_HUB_OFFLINE=1``)."""
        if config.env(config.HALVEST_PATH_ENV):
            return None
        offline = config.hub_offline()
        if not (offline or hub_reachable is False):
            return None
        return Missing(
            "HuggingFace Hub not reachable" + (" (HF_HUB_OFFLINE=1)" if offline else ""),
            f"{cls.metadata.name}: on the HuggingFace Hub ({cls.metadata.dataset['path']}) and "
            + ("HF_HUB_OFFLINE=1" if offline else "the Hub is not reachable"),
        )

    @classmethod
    def source_kind(cls) -> str:
        return f"HuggingFace Hub `{cls.metadata.dataset['path']}`"

    @classmethod
    def source_location(cls) -> str:
        local = config.env(config.HALVEST_PATH_ENV)
        return f"local copy {local}" if local else f"HuggingFace Hub {cls.metadata.dataset['path']}"

    def _apply_source(self) -> None:
        """Put the chosen source in the instance's metadata (mteb's ``unload_data`` drops it)."""
        p, r = self.halvest_source
        if (p, r) != (self.metadata.dataset["path"], self.metadata.dataset["revision"]):
            self.metadata = self.metadata.model_copy(
                update={"dataset": {**self.metadata.dataset, "path": p, "revision": r}}
            )

    def load_data(self, *args: Any, **kwargs: Any) -> None:
        self._apply_source()
        super().load_data(*args, **kwargs)

    def load_triplets(self, hf_subset: str, split: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """One config/split in its own schema (:func:`~mteb_contrastive.data.halvest.load_rows`);
        info names the config."""
        path, revision = self.halvest_source
        rows, info = load_rows(path, hf_subset, split, None if Path(path).is_dir() else revision)
        info["config"] = hf_subset
        return rows, info
