"""HALvest-Contrastive data: the two published schemas, validation, and loading.

Two schemas exist (Kulumba et al., arXiv 2407.20595):

* **pairs** -- ``almanach/HALvest-Contrastive``, the release the Hub viewer shows (dataset card at
  revision ``4c222e5``: configs ``base-2/4/6/8``, ``base-soft-2/4/6/8``, ``ict-2/4``; splits
  ``train``/``valid``/``test``). One row = (query span, key span) with 0/1 labels
  ``author_label`` / ``domain_label`` / ``affiliation_label``. Written by the authors' pairs
  sampler, Madjakul/HALvesting-Contrastive ``halvesting_contrastive/core/contrastive_sampler.py``
  at commit 3b17f84 (the last commit that writes ``key_*`` columns):

  - ``base-*`` (``soft_positives=False``): a positive key's document has the query's **first
    author** as its first author (L120-124); a negative key's document shares **no** author with
    the query (L125-130);
  - ``base-soft-*`` (``soft_positives=True``): a positive key's document shares **any** author
    (L114-118); a negative shares none;
  - ``author_label`` = 1 when the two documents share any author (L164-166, L196-198);
  - every pair draws a **new** query span (L136, L170); a document with fewer than ``2k``
    sentences gives its whole text every time (``sample_sentences``, L234-237);
  - ``ict-*`` (``core/ict_sampler.py`` at the same commit): inverse cloze, the key is the ``k``
    sentences before and after the query span **in the same document** (L86-95), every label is
    1 (L44-46), no negatives; a document under ``3k`` sentences gives an empty query and key
    (L88-89).

* **triplets** -- ``Madjakul/HALvest-Contrastive``, the dataset the authors' evaluation code
  loads (``halvest_contrastive_datamodule.py``, ``bm25_experiments.py``): one row =
  (``query``, ``positive``, ``negative``) with their HAL ids and author-id lists.

:func:`load_rows` returns a split in its own schema (detected from the columns,
:func:`detect_schema`); the protocols evaluate each schema natively.
:func:`pairs_to_triplets` joins pair rows that share a query span into triplets, which only the
triplet protocol uses, and only when at least half of the positive rows join
(:data:`MIN_JOIN_SHARE`).
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from mteb_contrastive import config
from mteb_contrastive.data.errors import DataError, position
from mteb_contrastive.identity import nfc

logger = logging.getLogger(__name__)

HUB_REPO = "almanach/HALvest-Contrastive"
#: commit of the Hub release whose card lists the pairs schema ("Upload dataset", 4c222e5).
HUB_REVISION = "4c222e5249d318133cf0cfead7230955d0cf3409"
#: the triplet-schema repository loaded by the authors' evaluation code (no revision pinned there).
TRIPLETS_REPO = "Madjakul/HALvest-Contrastive"
#: every config the pairs release's dataset card lists (revision 4c222e5).
HUB_CONFIGS = (
    "base-2",
    "base-4",
    "base-6",
    "base-8",
    "base-soft-2",
    "base-soft-4",
    "base-soft-6",
    "base-soft-8",
    "ict-2",
    "ict-4",
)
#: environment variable naming a local copy of the Hub repository (same layout and schema).
LOCAL_COPY_ENV = config.HALVEST_PATH_ENV
#: environment variables choosing the repository and revision of the HALvest tasks.
REPO_ENV = config.HALVEST_REPO_ENV
REVISION_ENV = config.HALVEST_REVISION_ENV
#: the validation split's name in the pairs release (dataset card: train / valid / test).
VALIDATION_SPLIT = "valid"
#: below this share of positive pair rows joined into triplets, no triplet score is produced.
MIN_JOIN_SHARE = 0.5

#: positive rules of the pairs release's configs (see the module docstring for the sampler lines).
FIRST_AUTHOR, ANY_AUTHOR, SAME_DOCUMENT = "first_author", "any_author", "same_document"

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
PAIR_TEXT_FIELDS = ("query_text", "key_text")
PAIR_AUTHOR_FIELDS = ("query_authors", "key_authors")
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


def positive_rule(config: str) -> str:
    """The positive rule of a pairs-release config: :data:`FIRST_AUTHOR` (``base-*``),
    :data:`ANY_AUTHOR` (``base-soft-*``) or :data:`SAME_DOCUMENT` (``ict-*``).

    Source: ``contrastive_sampler.py`` L114-124 and ``ict_sampler.py`` L47-62 at commit 3b17f84
    (module docstring).

    Raises:
        DataError: a config name that is none of these three kinds.
    """
    if config.startswith("base-soft-"):
        return ANY_AUTHOR
    if config.startswith("base-"):
        return FIRST_AUTHOR
    if config.startswith("ict-"):
        return SAME_DOCUMENT
    raise DataError(config, "no positive rule for this config: pairs configs are base-<k>, base-soft-<k> or ict-<k>")


def is_positive(rule: str, query_authors: tuple[str, ...], key_authors: tuple[str, ...], same_document: bool) -> bool:
    """Whether a key is a positive of a query under ``rule`` (author lists in author order, NFC).

    * first_author: both lists non-empty and ``key_authors[0] == query_authors[0]``;
    * any_author: the lists share an author;
    * same_document: the key comes from the query's document (ICT).
    """
    if rule == FIRST_AUTHOR:
        return bool(query_authors) and bool(key_authors) and key_authors[0] == query_authors[0]
    if rule == ANY_AUTHOR:
        return bool(set(query_authors) & set(key_authors))
    if rule == SAME_DOCUMENT:
        return same_document
    raise ValueError(f"unknown positive rule {rule!r}")


@dataclass
class JoinStats:
    """Counts from :func:`pairs_to_triplets` (``positive_rows`` = pair rows with ``author_label`` 1)."""

    pair_rows: int = 0
    positive_rows: int = 0
    triplets: int = 0
    unjoined_positive_rows: int = 0
    unjoined_negative_rows: int = 0

    @property
    def join_share(self) -> float:
        """Share of the positive rows that joined a triplet (NaN without positive rows)."""
        return self.triplets / self.positive_rows if self.positive_rows else float("nan")

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

    The authors' sampler draws a new query span for every pair, so two rows share a span only
    when the document is shorter than ``2k`` sentences (module docstring): the joined triplets
    are the short documents only. :func:`join_verdict` decides whether they may be scored.

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
            raise DataError(
                source, f"author_label must be 0 or 1, got {label!r}", **position(rows, i), field="author_label"
            )
        key = (nfc(str(row["query_halid"])), nfc(row["query_text"]))  # one query span, compared in NFC
        pos, neg = groups.setdefault(key, ([], []))
        (pos if label == 1 else neg).append(row)
    stats = JoinStats(pair_rows=len(rows))
    out = []
    for pos, neg in groups.values():
        n = min(len(pos), len(neg))
        stats.positive_rows += len(pos)
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


def join_verdict(stats: JoinStats) -> str | None:
    """None when the joined triplets may be scored, else the reason why not (one sentence).

    Rule: at least :data:`MIN_JOIN_SHARE` of the positive pair rows must join a triplet; below
    that the joined rows are a biased remnant (short documents only), not the release.
    """
    if stats.positive_rows == 0:
        return f"no triplet score: the split has no positive pair rows (author_label 1) among {stats.pair_rows}"
    if stats.triplets == 0:
        return (
            f"no triplet score: no query span repeats with both a positive and a negative key "
            f"(0 of {stats.positive_rows} positive rows joined); the sampler draws a new span per pair"
        )
    if stats.join_share < MIN_JOIN_SHARE:
        return (
            f"no triplet score: only {stats.triplets} of {stats.positive_rows} positive rows "
            f"({stats.join_share:.1%}) share their query span with a negative row, under the "
            f"{MIN_JOIN_SHARE:.0%} needed; the joined rows would be short documents only"
        )
    return None


def validate_pairs(rows: list[dict[str, Any]], source: object) -> tuple[list[dict[str, Any]], int]:
    """Check pair rows; drop the rows whose query or key text is empty.

    Empty spans are written by design by the ICT sampler for documents under ``3k`` sentences
    (``ict_sampler.py`` L88-89), so they are dropped and counted, not an error.

    Returns:
        (kept rows, number of dropped rows with an empty text)

    Raises:
        DataError: naming the row and field of a label that is not 0/1 or an empty author list.
    """
    kept, dropped = [], 0
    for i, row in enumerate(rows):
        if row.get("author_label") not in (0, 1):
            raise DataError(
                source,
                f"author_label must be 0 or 1, got {row.get('author_label')!r}",
                **position(rows, i),
                field="author_label",
            )
        if any(not isinstance(row.get(f), str) or not row[f].strip() for f in PAIR_TEXT_FIELDS):
            dropped += 1
            continue
        for f in PAIR_AUTHOR_FIELDS:
            v = row.get(f)
            if v is None or len(v) == 0:
                raise DataError(source, "empty author list", **position(rows, i), field=f)
        kept.append(row)
    return kept, dropped


def validate_triplets(rows: list[dict[str, Any]], source: object) -> None:
    """Check triplet rows: non-empty texts, non-empty author lists.

    Raises:
        DataError: naming the row and field of the first bad value.
    """
    for i, row in enumerate(rows):
        for f in TEXT_FIELDS:
            v = row.get(f)
            if not isinstance(v, str) or not v.strip():
                raise DataError(source, "empty or whitespace-only text", **position(rows, i), field=f)
        for f in AUTHOR_FIELDS:
            v = row.get(f)
            if v is None or len(v) == 0:
                raise DataError(source, "empty author set", **position(rows, i), field=f)


def _as_rows(ds: Any) -> list[dict[str, Any]]:
    return ds.to_list() if hasattr(ds, "to_list") else list(ds)


def rows_from_dataset(ds: Any, source: object) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Detect the schema of a loaded split and validate it; rows stay in their own schema.

    Returns:
        (rows, info) with ``info["schema"]`` = "pairs" or "triplets"; for pairs also
        ``pair_rows`` and ``pair_rows_empty_text`` (dropped, see :func:`validate_pairs`).
    """
    schema = detect_schema(list(ds.column_names), source)
    rows = _as_rows(ds)
    info: dict[str, Any] = {"schema": schema}
    if schema == "pairs":
        n = len(rows)
        rows, dropped = validate_pairs(rows, source)
        info.update(pair_rows=n, pair_rows_empty_text=dropped)
    else:
        validate_triplets(rows, source)
    return rows, info


def triplets_from_dataset(ds: Any, source: object) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Detect the schema of a loaded split, convert pairs to triplets (:func:`pairs_to_triplets`), validate.

    Returns:
        (triplet rows, info dict with ``schema`` and, for pairs, the join counts)
    """
    rows, info = rows_from_dataset(ds, source)
    if info["schema"] == "pairs":
        rows, stats = pairs_to_triplets(rows, source)
        info.update(stats.as_dict())
        logger.info("%s: joined %d triplets from %d pair rows", source, stats.triplets, stats.pair_rows)
        validate_triplets(rows, source)
    return rows, info


def resolve_source(
    default_path: str, default_revision: str | None, path: str | None = None, revision: str | None = None
) -> tuple[str, str | None]:
    """The repository and revision a HALvest task loads.

    Precedence: the Python arguments ``path`` / ``revision``, then the environment variables
    :data:`REPO_ENV` / :data:`REVISION_ENV`, then the task metadata's defaults. A repository
    chosen without a revision loads its default branch (``revision`` None), never the default
    repository's pinned commit.
    """
    env_path, env_rev = config.env(REPO_ENV), config.env(REVISION_ENV)
    chosen = path or env_path or default_path
    if revision is not None:
        return chosen, revision
    if env_rev is not None and chosen == (env_path or default_path):
        return chosen, env_rev
    return chosen, default_revision if chosen == default_path else None


def resolve_location(path: str, revision: str | None) -> tuple[str, str | None]:
    """Where to load from: a local copy named by ``MTEB_CONTRASTIVE_HALVEST_PATH`` for the Hub
    repository, else ``path`` at ``revision`` (a Hub repository id or a local folder)."""
    local_copy = config.env(LOCAL_COPY_ENV)
    if path == HUB_REPO and local_copy:
        return local_copy, None
    return path, revision


def _load_split(path: str, config: str, split: str, revision: str | None) -> tuple[Any, str]:
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
            if "split" in str(exc).lower():
                raise DataError(path, f"config {config!r} has no split {split!r}: {exc}") from exc
            raise
    return ds, source


def load_rows(
    path: str, config: str, split: str, revision: str | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Load one config/split of a HALvest-format dataset in its own schema (pairs or triplets).

    ``path`` is a Hub repository id (loaded with ``datasets.load_dataset(path, config,
    split=split, revision=revision)``), a local folder in the same layout, or a folder written by
    :mod:`mteb_contrastive.data.halvest_builder` (``<folder>/<config>/<split>.parquet``).

    Returns:
        (rows, info) -- see :func:`rows_from_dataset`.

    Raises:
        DataError: unknown config or split, missing columns, bad labels, empty texts or author sets.
    """
    ds, source = _load_split(path, config, split, revision)
    return rows_from_dataset(ds, source)


def load_triplets(
    path: str, config: str, split: str, revision: str | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Like :func:`load_rows`, but a pairs split is joined into triplets (:func:`pairs_to_triplets`).

    Raises:
        DataError: unknown config, missing columns, empty texts or author sets.
    """
    ds, source = _load_split(path, config, split, revision)
    return triplets_from_dataset(ds, source)
