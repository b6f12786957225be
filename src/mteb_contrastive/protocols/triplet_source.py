"""Mixin for tasks whose data are triplet rows (HALvest triplet schema), per subset and split."""

from __future__ import annotations

import abc
import logging
from typing import Any

logger = logging.getLogger(__name__)


class TripletSource(abc.ABC):
    """Loads ``self.dataset[hf_subset][split]`` from :meth:`load_triplets`.

    Each task implements :meth:`load_triplets`; each protocol may turn the rows into its own
    structure in :meth:`prepare_split`. Numeric load/preparation counts are kept in
    ``self.load_info["<subset>/<split>"]`` and reported with the scores.
    """

    @abc.abstractmethod
    def load_triplets(self, hf_subset: str, split: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Return (triplet rows, load info) for one subset/split; implemented by each task."""

    def prepare_split(self, rows: list[dict[str, Any]], info: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """(what ``self.dataset`` holds for the split, counts to report); rows as they are by default."""
        return rows, {}

    def load_data(self, num_proc: int | None = None, *, timer: Any = None, **kwargs: Any) -> None:
        if self.data_loaded:
            return
        self.dataset = {}
        self.load_info: dict[str, dict[str, Any]] = {}
        for hf_subset in self.hf_subsets:
            for split in self.eval_splits:
                rows, info = self.load_triplets(hf_subset, split)
                data, stats = self.prepare_split(rows, info)
                stats = {
                    **stats,
                    **{k: v for k, v in info.items() if isinstance(v, (int, float)) and not isinstance(v, bool)},
                }
                self.load_info[f"{hf_subset}/{split}"] = stats
                logger.info("%s %s/%s: %s", self.metadata.name, hf_subset, split, stats)
                self.dataset.setdefault(hf_subset, {})[split] = data
        self.data_loaded = True

    def split_counts(self, hf_subset: str, split: str) -> dict[str, Any]:
        """The counts recorded for one subset/split when it was loaded."""
        return dict(getattr(self, "load_info", {}).get(f"{hf_subset}/{split}", {}))
