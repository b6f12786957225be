"""HALvest-Contrastive data: the two published schemas, validation, and loading.

Two schemas exist for ``almanach/HALvest-Contrastive`` (Kulumba et al., arXiv 2407.20595):

* **pairs** -- the release the Hub viewer shows (configs ``base-2/4/6/8``, ``base-soft-*``,
  ``ict-*``; splits train/valid/test). One row = (query span, key span) with 0/1 labels
  ``author_label`` / ``domain_label`` / ``affiliation_label`` (1 = the two documents share at
  least one author / domain / affiliation).
* **triplets** -- the paper's current code (``halvesting_contrastive/utils/data/sampler.py``,
  configs ``base-{2,4,6,8,10}``): one row = (``query``, ``positive``, ``negative``) with their
  HAL ids and author-id lists.

Everything downstream uses the triplet schema; :func:`pairs_to_triplets` converts the pairs
release. The schema is detected from the columns (:func:`detect_schema`).
"""

from __future__ import annotations

import logging
import os
from collections import OrderedDict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from mteb_contrastive.data.errors import DataError
from mteb_contrastive.identity import nfc

logger = logging.getLogger(__name__)

HUB_REPO = "almanach/HALvest-Contrastive"
#: commit of the Hub release whose card lists the pairs schema ("Upload dataset", 4c222e5).
HUB_REVISION = "4c222e5249d318133cf0cfead7230955d0cf3409"
HUB_CONFIGS = ("base-2", "base-4", "base-6", "base-8")
#: environment variable naming a local copy of the Hub repository (same layout and schema).
LOCAL_COPY_ENV = "MTEB_CONTRASTIVE_HALVEST_PATH"

TRIPLET_COLUMNS = (
    "query",
    "positive",
    "negative",
    "query_halid",
    "pos_halid",
    "neg_halids",
    "query_authorids",
    "pos_authorids",
    "neg_authorids",
)
PAIR_COLUMNS = (
    "query_halid",
    "query_text",
    "query_authors",
    "key_halid",
    "key_text",
    "key_authors",
    "author_label",
)
TEXT_FIELDS = ("query", "positive", "negative")
AUTHOR_FIELDS = ("query_authorids", "pos_authorids", "neg_authorids")


def detect_schema(columns: list[str] | tuple[str, ...], source: object) -> str:
    """Return ``"triplets"`` or ``"pairs"`` from a dataset's column names.

    Raises:
        DataError: the columns match neither schema; the message lists what each one lacks.
    """
    cols = set(columns)
    if cols >= set(TRIPLET_COLUMNS):
        return "triplets"
    if cols >= set(PAIR_COLUMNS):
        return "pairs"
    miss_t = [c for c in TRIPLET_COLUMNS if c not in cols]
    miss_p = [c for c in PAIR_COLUMNS if c not in cols]
    raise DataError(
        source,
        "not a HALvest-Contrastive dataset: the triplet schema lacks columns "
        f"{miss_t}; the pair schema lacks columns {miss_p}",
    )


@dataclass
class JoinStats:
    """Counts from :func:`pairs_to_triplets`."""

    pair_rows: int = 0
    triplets: int = 0
    unjoined_positive_rows: int = 0
    unjoined_negative_rows: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def pairs_to_triplets(rows: list[dict[str, Any]], source: object = "pairs") -> tuple[list[dict[str, Any]], JoinStats]:
    """Join the pairs release into triplets.

    Rule: rows are grouped by their query span, i.e. the exact pair
    (``query_halid``, ``query_text``). Within a group, the i-th positive pair
    (``author_label == 1``) and the i-th negative pair (``author_label == 0``), in row order,
    form one triplet (anchor = ``query_text``, positive / negative = their ``key_text``). Pairs
    left over on either side (a span with more positives than negatives, or the reverse) are
    not used and are counted in :class:`JoinStats`.

    Args:
        rows: dicts with at least :data:`PAIR_COLUMNS`.

    Returns:
        (triplet rows in the triplet schema, join counts)

    Raises:
        DataError: an ``author_label`` that is not 0 or 1.
    """
    groups: OrderedDict[tuple[str, str], tuple[list[dict], list[dict]]] = OrderedDict()
    for i, row in enumerate(rows):
        label = row["author_label"]
        if label not in (0, 1):
            raise DataError(source, f"author_label must be 0 or 1, got {label!r}", row=i, field="author_label")
        key = (nfc(str(row["query_halid"])), nfc(row["query_text"]))  # one query span, compared in NFC
        pos, neg = groups.setdefault(key, ([], []))
        (pos if label == 1 else neg).append(row)
    stats = JoinStats(pair_rows=len(rows))
    out = []
    for pos, neg in groups.values():
        n = min(len(pos), len(neg))
        stats.unjoined_positive_rows += len(pos) - n
        stats.unjoined_negative_rows += len(neg) - n
        for p, q in zip(pos[:n], neg[:n]):
            out.append(
                {
                    "query": p["query_text"],
                    "positive": p["key_text"],
                    "negative": q["key_text"],
                    "query_halid": str(p["query_halid"]),
                    "pos_halid": str(p["key_halid"]),
                    "neg_halids": str(q["key_halid"]),
                    "query_authorids": list(p["query_authors"]),
                    "pos_authorids": list(p["key_authors"]),
                    "neg_authorids": list(q["key_authors"]),
                }
            )
    stats.triplets = len(out)
    return out, stats


def validate_triplets(rows: list[dict[str, Any]], source: object) -> None:
    """Check triplet rows: non-empty texts, non-empty author lists.

    Raises:
        DataError: naming the row and field of the first bad value.
    """
    for i, row in enumerate(rows):
        for f in TEXT_FIELDS:
            v = row.get(f)
            if not isinstance(v, str) or not v.strip():
                raise DataError(source, "empty or whitespace-only text", row=i, field=f)
        for f in AUTHOR_FIELDS:
            v = row.get(f)
            if v is None or len(v) == 0:
                raise DataError(source, "empty author set", row=i, field=f)


def _as_rows(ds: Any) -> list[dict[str, Any]]:
    return ds.to_list() if hasattr(ds, "to_list") else list(ds)


def triplets_from_dataset(ds: Any, source: object) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Detect the schema of a loaded split, convert pairs to triplets, validate.

    Returns:
        (triplet rows, info dict with ``schema`` and, for pairs, the join counts)
    """
    schema = detect_schema(list(ds.column_names), source)
    rows = _as_rows(ds)
    info: dict[str, Any] = {"schema": schema}
    if schema == "pairs":
        rows, stats = pairs_to_triplets(rows, source)
        info.update(stats.as_dict())
        logger.info("%s: joined %d triplets from %d pair rows", source, stats.triplets, stats.pair_rows)
    validate_triplets(rows, source)
    return rows, info


def resolve_location(path: str, revision: str | None) -> tuple[str, str | None]:
    """Where to load from: a local copy named by ``MTEB_CONTRASTIVE_HALVEST_PATH`` for the Hub
    repository, else ``path`` at ``revision`` (a Hub repository id or a local folder)."""
    if path == HUB_REPO and os.environ.get(LOCAL_COPY_ENV):
        return os.environ[LOCAL_COPY_ENV], None
    return path, revision


def load_triplets(path: str, config: str, split: str, revision: str | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Load one config/split of a HALvest-format dataset as validated triplet rows.

    ``path`` is a Hub repository id (loaded with ``datasets.load_dataset(path, config,
    split=split, revision=revision)``, the pinned revision for the Hub release) or a local folder
    in the same layout, or a folder written by :mod:`mteb_contrastive.data.halvest_builder`
    (``<folder>/<config>/<split>.parquet``).

    Raises:
        DataError: unknown config, missing columns, empty texts or author sets.
    """
    import datasets

    path, revision = resolve_location(path, revision)
    local_parquet = Path(path) / config / f"{split}.parquet"
    source = f"{path} [{config}/{split}]"
    if Path(path).is_dir() and not (Path(path) / config).exists() and not (Path(path) / "README.md").exists():
        raise DataError(path, f"unknown config {config!r}: no folder {config}/")
    if local_parquet.is_file():
        ds = datasets.load_dataset("parquet", data_files={split: str(local_parquet)}, split=split)
    else:
        try:
            ds = datasets.load_dataset(path, config, split=split, revision=revision)
        except ValueError as exc:
            if "BuilderConfig" in str(exc) or "config" in str(exc).lower():
                raise DataError(path, f"unknown config {config!r}: {exc}") from exc
            raise
    return triplets_from_dataset(ds, source)
