"""HALvest-Contrastive data: the two published releases, their schemas, validation, and loading.

Two releases exist (Kulumba et al., arXiv 2407.20595), one schema each (:data:`TRIPLET_RELEASE`,
:data:`PAIR_RELEASE`):

* **triplets** -- ``Madjakul/HALvest-Contrastive``, the dataset the authors' evaluation code loads
  (GitHub Madjakul/HALvesting-Contrastive at 10a6ada: ``halvest_contrastive_datamodule.py`` L141-146
  (``valid``) and L181-186 (``test``), ``bm25_experiments.py`` L79, ``contrastive_experiments.py``
  L26-27, L67-68); no script pins a revision, and ``postprocess.py`` L43-59 pushes it without one
  (the default branch). One row = (``query``, ``positive``, ``negative``) with their HAL ids and
  author-id lists (writer: ``core/contrastive_sampler.py`` L151-170). The configs evaluated are
  ``base-2/4/6/8`` (``bm25_experiments.py`` L18-21, ``contrastive_experiments.py`` L65-69,
  ``configs/test.yml`` L19 ``base-8``); ``ict-k`` configs exist for training only
  (``configs/train.yml`` L8) with other columns (``core/ict_sampler.py`` L106-113) and are not
  subsets here.

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

:func:`load_rows` returns a split in its own schema (detected from the columns,
:func:`detect_schema`); the protocols evaluate each schema natively.
:func:`pairs_to_triplets` joins pair rows that share a query span into triplets, which only the
triplet protocol uses, and only when at least half of the positive rows join
(:data:`MIN_JOIN_SHARE`).

Which release a task reads, and at which revision: :func:`resolve_source` (Python arguments, then
the release's variables, then the release), :func:`resolve_location` (a local copy named by the
release's variable), :func:`hub_commit` (a branch resolved to the commit it points at).
"""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from mteb_contrastive import config
from mteb_contrastive.data.errors import DataError, position
from mteb_contrastive.identity import nfc

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Release:
    """One published HALvest-Contrastive release and the variables that replace or re-pin it.

    Attributes:
        repo: the Hub repository id.
        revision: the pinned commit; None = the default branch, resolved to its commit at load
            (:func:`hub_commit`).
        configs: the configs evaluated (the tasks' subsets).
        schema: ``"triplets"`` or ``"pairs"`` (:func:`detect_schema`).
        path_env: the variable naming a local copy of this release (same layout and schema).
        repo_env, revision_env: the variables choosing another repository / revision for the
            tasks whose default is this release.
        why: why a task reads this release (the task table and ``docs/halvest.md`` say it).
    """

    repo: str
    revision: str | None
    configs: tuple[str, ...]
    schema: str
    path_env: str
    repo_env: str
    revision_env: str
    why: str


#: the triplet release: what the authors' evaluation loads (module docstring); no revision is pinned
#: anywhere in the authors' code, so the default branch is read and recorded as its commit.
TRIPLET_RELEASE = Release(
    repo="Madjakul/HALvest-Contrastive",
    revision=None,
    configs=("base-2", "base-4", "base-6", "base-8"),
    schema="triplets",
    path_env=config.HALVEST_PATH_ENV,
    repo_env=config.HALVEST_REPO_ENV,
    revision_env=config.HALVEST_REVISION_ENV,
    why="what the authors' evaluation loads",
)
#: the pairs release at the commit whose dataset card lists the pairs schema ("Upload dataset", 4c222e5).
PAIR_RELEASE = Release(
    repo="almanach/HALvest-Contrastive",
    revision="4c222e5249d318133cf0cfead7230955d0cf3409",
    configs=(
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
    ),
    schema="pairs",
    path_env=config.HALVEST_PAIRS_PATH_ENV,
    repo_env=config.HALVEST_PAIRS_REPO_ENV,
    revision_env=config.HALVEST_PAIRS_REVISION_ENV,
    why="the only release with pair labels",
)
RELEASES = {r.repo: r for r in (TRIPLET_RELEASE, PAIR_RELEASE)}

TRIPLETS_REPO = TRIPLET_RELEASE.repo
PAIRS_REPO, PAIRS_REVISION, PAIRS_CONFIGS = PAIR_RELEASE.repo, PAIR_RELEASE.revision, PAIR_RELEASE.configs
#: the triplet release's local-copy variable (``MTEB_CONTRASTIVE_HALVEST_PATH``)
LOCAL_COPY_ENV = TRIPLET_RELEASE.path_env
#: a config name of either release (``base-4``, ``base-soft-2``, ``ict-2``): a local folder's subsets
CONFIG_NAME = re.compile(r"^(base|base-soft|ict)-\d+$")
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


def resolve_source(release: Release, path: str | None = None, revision: str | None = None) -> tuple[str, str | None]:
    """The repository and revision a HALvest task whose default is ``release`` loads.

    Precedence: the Python arguments ``path`` / ``revision``, then the release's variables
    (``release.repo_env`` / ``release.revision_env``), then ``release`` itself. A known release
    (:data:`RELEASES`) chosen without a revision gets its own (the pairs release's pinned commit; None
    for the triplet release: its default branch); any other repository its default branch (None).
    """
    env_path, env_rev = config.env(release.repo_env), config.env(release.revision_env)
    chosen = path or env_path or release.repo
    if revision is not None:
        return chosen, revision
    if env_rev is not None and chosen == (env_path or release.repo):
        return chosen, env_rev
    known = RELEASES.get(chosen)
    return chosen, known.revision if known else None


def local_copy(path: str) -> tuple[str, Release] | None:
    """(folder, release) when ``path`` is a known release whose local-copy variable
    (``release.path_env``) is set; else None."""
    known = RELEASES.get(path)
    folder = config.env(known.path_env) if known else None
    return (folder, known) if folder and known else None


def resolve_location(path: str, revision: str | None) -> tuple[str, str | None]:
    """Where to load from: the local copy of a known release (:func:`local_copy`), else ``path`` at
    ``revision`` (a Hub repository id or a local folder; a folder has no revision)."""
    copy = local_copy(path)
    if copy is not None:
        return copy[0], None
    return path, None if Path(path).is_dir() else revision


_COMMIT = re.compile(r"^[0-9a-f]{40}$")


def hub_commit(repo: str, revision: str | None, *, ask_hub: bool = True) -> str | None:
    """The commit a Hub revision points at (identity is content: a branch moves, a commit does not).

    A 40-hex ``revision`` is returned as it is. A branch or tag (None = ``main``) is asked of the
    Hub (``huggingface_hub`` ``dataset_info(repo, revision).sha``) when ``ask_hub`` and not
    ``HF_HUB_OFFLINE=1``; else, or when the Hub does not answer, it is read from the local
    Hugging Face cache (``<HF_HUB_CACHE>/datasets--<org>--<name>/refs/<branch>``, written when the
    branch was downloaded: the commit of the cached files, which is what an offline load reads).

    Returns:
        40 lower-case hex digits, or None when neither the Hub nor the cache knows the branch.
    """
    branch = revision or "main"
    if _COMMIT.match(branch):
        return branch
    if ask_hub and not config.hub_offline():
        try:
            from huggingface_hub import HfApi

            sha = HfApi().dataset_info(repo, revision=branch, timeout=10).sha
            if sha and _COMMIT.match(sha):
                return sha
        except Exception as exc:  # the Hub unreachable: the cache may still know the branch
            logger.warning("%s@%s: the Hub did not give the commit (%s); trying the local cache", repo, branch, exc)
    from huggingface_hub import constants

    ref = Path(constants.HF_HUB_CACHE) / f"datasets--{repo.replace('/', '--')}" / "refs" / branch
    sha = ref.read_text(encoding="utf-8").strip() if ref.is_file() else ""
    return sha if _COMMIT.match(sha) else None


def folder_configs(folder: str | Path) -> tuple[str, ...]:
    """The configs of a local folder in either layout: its sub-folders named like a config
    (:data:`CONFIG_NAME`), ordered ``base-k``, ``base-soft-k``, ``ict-k`` by k. Empty: none."""
    order = {"base": 0, "base-soft": 1, "ict": 2}
    found = []
    for d in Path(folder).iterdir() if Path(folder).is_dir() else ():
        m = CONFIG_NAME.match(d.name)
        if m and d.is_dir():
            found.append((order[m.group(1)], int(d.name.rsplit("-", 1)[1]), d.name))
    return tuple(name for _, _, name in sorted(found))


def local_files(folder: str | Path, config_name: str, split: str) -> list[Path]:
    """The parquet files of one config/split of a local folder, in either layout.

    * the builder's: ``<folder>/<config>/<split>.parquet``;
    * the Hub's: the ``configs`` list of ``README.md``'s YAML header (``config_name``, ``data_files``:
      ``split`` + ``path``, a glob or a list of globs relative to the folder), as ``push_to_hub``
      writes it; without a header, ``<config>/<split>-*.parquet`` and ``<config>/<split>/*.parquet``.

    Raises:
        DataError: no such config, or the config has no such split (naming the folder).
    """
    from huggingface_hub.repocard import metadata_load

    root = Path(folder)
    single = root / config_name / f"{split}.parquet"
    if single.is_file():
        return [single]
    readme = root / "README.md"
    configs = (metadata_load(readme) or {}).get("configs") if readme.is_file() else None
    if configs:
        entry = next((c for c in configs if c.get("config_name") == config_name), None)
        if entry is None:
            names = [c.get("config_name") for c in configs]
            raise DataError(root, f"unknown config {config_name!r}: README.md lists {names}")
        files = entry.get("data_files") or []
        files = [files] if isinstance(files, (str, dict)) else files
        patterns = [f.get("path") for f in files if isinstance(f, dict) and f.get("split") == split]
        patterns = [q for pat in patterns for q in ([pat] if isinstance(pat, str) else pat)]
    elif (root / config_name).is_dir():
        patterns = [f"{config_name}/{split}-*.parquet", f"{config_name}/{split}/*.parquet"]
    else:
        raise DataError(root, f"unknown config {config_name!r}: no folder {config_name}/")
    found = sorted({f for pat in patterns for f in root.glob(pat) if f.is_file()})
    if not found:
        raise DataError(root, f"config {config_name!r} has no split {split!r}")
    return found


def _load_split(location: str, config_name: str, split: str, revision: str | None) -> tuple[Any, str]:
    """One config/split as a ``datasets.Dataset``: a local folder read from its parquet files as they
    are now (:func:`local_files`; ``datasets``' own cache of a local folder keys on the folder's name
    and README, not on the files' content, and would return an older copy's rows), a Hub repository
    through ``datasets.load_dataset`` at ``revision``."""
    import datasets

    source = f"{location} [{config_name}/{split}]"
    if Path(location).is_dir():
        import pyarrow as pa
        import pyarrow.parquet as pq

        tables = [pq.read_table(f) for f in local_files(location, config_name, split)]
        return datasets.Dataset(pa.concat_tables(tables, promote_options="default")), source
    try:
        ds = datasets.load_dataset(location, config_name, split=split, revision=revision)
    except ValueError as exc:
        if "BuilderConfig" in str(exc) or "config" in str(exc).lower():
            raise DataError(location, f"unknown config {config_name!r}: {exc}") from exc
        if "split" in str(exc).lower():
            raise DataError(location, f"config {config_name!r} has no split {split!r}: {exc}") from exc
        raise
    return ds, source


def _check_copy_schema(path: str, config_name: str, info: dict[str, Any]) -> None:
    """A local copy named by a release's variable must have that release's schema (else its results
    would be recorded under the wrong repository)."""
    copy = local_copy(path)
    if copy is None or info["schema"] == copy[1].schema:
        return
    folder, release = copy
    other = next(r for r in RELEASES.values() if r.schema == info["schema"])
    raise DataError(
        folder,
        f"{release.path_env} names a copy of {release.repo} ({release.schema} schema), but config "
        f"{config_name!r} has the {info['schema']} columns: set {other.path_env} for a copy of {other.repo}",
    )


def load_rows(
    path: str, config_name: str, split: str, revision: str | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Load one config/split of a HALvest-format dataset in its own schema (pairs or triplets).

    ``path`` is a Hub repository id (loaded with ``datasets.load_dataset(path, config,
    split=split, revision=revision)``; a known release's local copy when its variable is set,
    :func:`resolve_location`), a local folder in the same layout, or a folder written by
    :mod:`mteb_contrastive.data.halvest_builder` (``<folder>/<config>/<split>.parquet``).

    Returns:
        (rows, info) -- see :func:`rows_from_dataset`.

    Raises:
        DataError: unknown config or split, missing columns, bad labels, empty texts or author sets,
            a local copy whose schema is not its release's.
    """
    location, rev = resolve_location(path, revision)
    ds, source = _load_split(location, config_name, split, rev)
    rows, info = rows_from_dataset(ds, source)
    _check_copy_schema(path, config_name, info)
    return rows, info


def load_triplets(
    path: str, config_name: str, split: str, revision: str | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Like :func:`load_rows`, but a pairs split is joined into triplets (:func:`pairs_to_triplets`).

    Raises:
        DataError: unknown config, missing columns, empty texts or author sets.
    """
    location, rev = resolve_location(path, revision)
    ds, source = _load_split(location, config_name, split, rev)
    return triplets_from_dataset(ds, source)
