"""QuoteR quote recommendation tasks (Qi et al., ACL 2022). Declarative: metadata + protocol + data location.

* Official files (``english.txt``, ``modern_chinese.txt``, ``ancient_chinese.txt`` of thunlp/QuoteR,
  not on the Hub): put them in one folder and set ``MTEB_CONTRASTIVE_QUOTER_OFFICIAL`` to it.
* Shared files in the same line format (``zh_idiom.txt``, ``en_kjv_in_novels.txt``,
  ``en_gcide.txt``): read from ``MTEB_CONTRASTIVE_QUOTER_DATA`` when set, else from
  ``<shared>/quoter`` where ``<shared>`` is the project's shared data folder
  (``MTEB_CONTRASTIVE_SHARED``, else ``../shared/data`` beside the checkout).
* Your own QuoteR-format file: ``mteb-contrastive build-quoter`` makes a folder that becomes
  ``<name>QuoteRRetrieval`` (:func:`quoter_task_for_folder`, through ``MTEB_CONTRASTIVE_DATASETS``).
"""

from __future__ import annotations

from pathlib import Path

from mteb.abstasks.task_metadata import TaskMetadata

from mteb_contrastive.data.quoter import OFFICIAL_FILES
from mteb_contrastive.protocols.quote_retrieval import AbsTaskQuoteRetrieval, env_dir

OFFICIAL_ENV = "MTEB_CONTRASTIVE_QUOTER_OFFICIAL"
SHARED_ENV = "MTEB_CONTRASTIVE_QUOTER_DATA"

_CITATION = r"""
@inproceedings{qi2022quoter,
  author = {Qi, Fanchao and Yang, Yanhui and Yi, Jing and Cheng, Zhili and Liu, Zhiyuan and Sun, Maosong},
  booktitle = {Proceedings of the 60th Annual Meeting of the Association for Computational Linguistics},
  title = {QuoteR: A Benchmark of Quote Recommendation for Writing},
  year = {2022},
}
"""

_COMMON = dict(
    category="t2t",
    modalities=["text"],
    eval_splits=["test"],
    domains=["Written", "Fiction"],
    annotations_creators="derived",
    dialect=[],
    sample_creation="found",
    type="Retrieval",
    main_score="mrr_tie_expected",
)

_DESC = " Candidates: every distinct quote of the file; query: left context + [MASK] + right context (nothing added between). Main score: MRR over the full ranking, expected under a random order within ties."
#: the query rule, part of every revision (it changes the queries' text): left + "[MASK]" + right, no added spaces
_QUERY_RULE = "query-mask-nospace"


class _Official(AbsTaskQuoteRetrieval):
    @classmethod
    def data_dir(cls) -> Path:
        d = env_dir(OFFICIAL_ENV)
        return d if d is not None else Path(f"${OFFICIAL_ENV}")

    @classmethod
    def missing_data_message(cls, path: Path) -> str:
        if env_dir(OFFICIAL_ENV) is None:
            return (
                f"{cls.metadata.name}: the official QuoteR files are not on the HuggingFace Hub; clone "
                f"https://github.com/thunlp/QuoteR (or download {cls.quoter_file}) and set {OFFICIAL_ENV} "
                f"to the folder holding {cls.quoter_file}"
            )
        return f"{cls.metadata.name}: {path} not found ({OFFICIAL_ENV}={env_dir(OFFICIAL_ENV)}); it should hold {cls.quoter_file}"


def _official_meta(name: str, key: str, lang: str, desc: str) -> TaskMetadata:
    f, a, b, _ = OFFICIAL_FILES[key]
    return TaskMetadata(
        name=name,
        description=desc + f" Official file {f}, test = lines [{b}:]." + _DESC,
        dataset={"path": f"thunlp/QuoteR:{f}", "revision": f"lines-{a}-{b}-{_QUERY_RULE}"},
        reference="https://arxiv.org/abs/2202.13145",
        eval_langs=[lang],
        date=("2022-01-01", "2022-05-31"),
        license="not specified",
        bibtex_citation=_CITATION,
        **_COMMON,
    )


class QuoteREnglishRetrieval(_Official):
    quoter_file, language, boundaries = "english.txt", "en", OFFICIAL_FILES["english"][1:3]
    metadata = _official_meta("QuoteREnglishRetrieval", "english", "eng-Latn", "QuoteR English quote recommendation.")


class QuoteRModernChineseRetrieval(_Official):
    quoter_file, language, boundaries = "modern_chinese.txt", "zh", OFFICIAL_FILES["modern_chinese"][1:3]
    metadata = _official_meta("QuoteRModernChineseRetrieval", "modern_chinese", "cmn-Hans", "QuoteR modern Chinese quote recommendation.")


class QuoteRClassicalChineseRetrieval(_Official):
    quoter_file, language, boundaries = "ancient_chinese.txt", "zh", OFFICIAL_FILES["ancient_chinese"][1:3]
    metadata = _official_meta("QuoteRClassicalChineseRetrieval", "ancient_chinese", "lzh-Hans", "QuoteR classical Chinese quote recommendation.")


class _Shared(AbsTaskQuoteRetrieval):
    @classmethod
    def data_dir(cls) -> Path:
        d = env_dir(SHARED_ENV)
        if d is not None:
            return d
        from mteb_contrastive.paths import shared_data_dir

        return shared_data_dir() / "quoter"

    @classmethod
    def missing_data_message(cls, path: Path) -> str:
        return f"{cls.metadata.name}: {path} not found; set {SHARED_ENV} to the folder holding {cls.quoter_file} (or MTEB_CONTRASTIVE_SHARED to the shared data folder)"


def _shared_meta(name: str, f: str, lang: str, desc: str, domains: list[str], license: str) -> TaskMetadata:
    common = dict(_COMMON, domains=domains)
    return TaskMetadata(
        name=name,
        description=desc + f" File {f} (QuoteR line format), split 80/10/10 after random.Random(20240611).shuffle; test split evaluated." + _DESC,
        dataset={"path": f"shared/data/quoter/{f}", "revision": f"shuffle-20240611-80-10-10-{_QUERY_RULE}"},
        reference=None,
        eval_langs=[lang],
        date=("1611-01-01", "2024-06-11"),
        license=license,
        bibtex_citation="",
        **common,
    )


class QuoteRGcideEnglishRetrieval(_Shared):
    quoter_file, language = "en_gcide.txt", "en"
    metadata = _shared_meta("QuoteRGcideEnglishRetrieval", "en_gcide.txt", "eng-Latn", "GCIDE dictionary senses (headword: definition) as left context, the illustrative literary quotation as the quote.", ["Written", "Fiction"], "https://www.gnu.org/licenses/old-licenses/gpl-2.0.html")


class QuoteRKJVNovelsEnglishRetrieval(_Shared):
    quoter_file, language = "en_kjv_in_novels.txt", "en"
    metadata = _shared_meta("QuoteRKJVNovelsEnglishRetrieval", "en_kjv_in_novels.txt", "eng-Latn", "19th-century novels quoting the King James Bible or Shakespeare: 60 words of novel text on each side of the quoted span.", ["Written", "Fiction"], "not specified")


class QuoteRIdiomChineseRetrieval(_Shared):
    quoter_file, language = "zh_idiom.txt", "zh"
    metadata = _shared_meta("QuoteRIdiomChineseRetrieval", "zh_idiom.txt", "cmn-Hans", "Chinese usage sentences with a chengyu (idiom) masked out; the idiom is the quote.", ["Written", "Fiction"], "mit")


QUOTER_TASKS = [
    QuoteREnglishRetrieval,
    QuoteRModernChineseRetrieval,
    QuoteRClassicalChineseRetrieval,
    QuoteRGcideEnglishRetrieval,
    QuoteRKJVNovelsEnglishRetrieval,
    QuoteRIdiomChineseRetrieval,
]


def quoter_task_for_folder(folder: Path) -> type:
    """The ``<name>QuoteRRetrieval`` task of a folder built by ``mteb-contrastive build-quoter``
    (:func:`mteb_contrastive.data.quoter.build_quoter_folder`): its file, language and split rule as built."""
    import json

    from mteb_contrastive.data.quoter import QUOTER_KIND

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
        description=f"Quote recommendation (QuoteR format) from your file {info['source']} ({info['n_lines']} lines), {rule}; test split evaluated." + _DESC,
        dataset={"path": str(folder), "revision": info["build_id"]},
        reference=None,
        eval_langs=[info["language"]],
        date=None,
        license="not specified",
        bibtex_citation="",
        **dict(_COMMON, domains=None),
    )
    attrs = {
        "metadata": metadata,
        "quoter_file": info["file"],
        "language": info["query_language"],
        "boundaries": tuple(info["boundaries"]) if info.get("boundaries") else None,
        "shuffle": info["split"] == "shuffled",
        "data_dir": classmethod(lambda cls: folder),
        "revision_is_content": True,  # build_id fingerprints the copied file and its split rule
        "__module__": __name__,
    }
    if info.get("proportions"):
        attrs["proportions"] = tuple(info["proportions"])
    if info.get("seed") is not None:
        attrs["shuffle_seed"] = int(info["seed"])
    return type(name, (AbsTaskQuoteRetrieval,), attrs)
