"""QuoteR quote recommendation tasks (Qi et al., ACL 2022). Declarative: metadata + protocol + data location.

* Official files (``english.txt``, ``modern_chinese.txt``, ``ancient_chinese.txt`` of thunlp/QuoteR,
  not on the Hub): put them in one folder and set ``MTEB_CONTRASTIVE_QUOTER_OFFICIAL`` to it.
* Shared files in the same line format (``zh_idiom.txt``, ``en_kjv_in_novels.txt``,
  ``en_gcide.txt``): read from ``MTEB_CONTRASTIVE_QUOTER_DATA`` when set, else from
  ``<shared>/quoter`` where ``<shared>`` is the project's shared data folder
  (``MTEB_CONTRASTIVE_SHARED``, else ``../shared/data`` beside the checkout).
* Your own QuoteR-format file: ``mteb-contrastive build-quoter`` makes a folder that becomes
  ``<name>QuoteRRetrieval`` (:func:`mteb_contrastive.catalog.folder_task_classes`, through
  ``MTEB_CONTRASTIVE_DATASETS``).

Where the files are read from: :class:`mteb_contrastive.sources.quoter.QuoteROfficialFiles` /
:class:`~mteb_contrastive.sources.quoter.QuoteRSharedFiles`.
"""

from __future__ import annotations

from mteb.abstasks.task_metadata import TaskMetadata

from mteb_contrastive.protocols.quote_retrieval import AbsTaskQuoteRetrieval
from mteb_contrastive.sources.quoter import OFFICIAL_FILES, QuoteROfficialFiles, QuoteRSharedFiles

_CITATION = r"""
@inproceedings{qi2022quoter,
  author = {Qi, Fanchao and Yang, Yanhui and Yi, Jing and Cheng, Zhili and Liu, Zhiyuan and Sun, Maosong},
  booktitle = {Proceedings of the 60th Annual Meeting of the Association for Computational Linguistics},
  title = {QuoteR: A Benchmark of Quote Recommendation for Writing},
  year = {2022},
}
"""

#: TaskMetadata fields shared by every QuoteR task (also those made from folders)
METADATA = dict(
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

#: the protocol, part of every QuoteR task's description
PROTOCOL = (
    " Candidates: every distinct quote of the file; query: left context + [MASK] + right context "
    "(nothing added between). Main score: MRR over the full ranking, expected under a random order within ties."
)
#: the query rule, part of every revision (it changes the queries' text): left + "[MASK]" + right, no added spaces
_QUERY_RULE = "query-mask-nospace"


def _official_meta(name: str, key: str, lang: str, desc: str) -> TaskMetadata:
    f, a, b, _ = OFFICIAL_FILES[key]
    return TaskMetadata(
        name=name,
        description=desc + f" Official file {f}, test = lines [{b}:]." + PROTOCOL,
        dataset={"path": f"thunlp/QuoteR:{f}", "revision": f"lines-{a}-{b}-{_QUERY_RULE}"},
        reference="https://arxiv.org/abs/2202.13145",
        eval_langs=[lang],
        date=("2022-01-01", "2022-05-31"),
        license="not specified",
        bibtex_citation=_CITATION,
        **METADATA,
    )


class QuoteREnglishRetrieval(QuoteROfficialFiles, AbsTaskQuoteRetrieval):
    quoter_file, language, boundaries = "english.txt", "en", OFFICIAL_FILES["english"][1:3]
    metadata = _official_meta("QuoteREnglishRetrieval", "english", "eng-Latn", "QuoteR English quote recommendation.")


class QuoteRModernChineseRetrieval(QuoteROfficialFiles, AbsTaskQuoteRetrieval):
    quoter_file, language, boundaries = "modern_chinese.txt", "zh", OFFICIAL_FILES["modern_chinese"][1:3]
    metadata = _official_meta(
        "QuoteRModernChineseRetrieval", "modern_chinese", "cmn-Hans", "QuoteR modern Chinese quote recommendation."
    )


class QuoteRClassicalChineseRetrieval(QuoteROfficialFiles, AbsTaskQuoteRetrieval):
    quoter_file, language, boundaries = "ancient_chinese.txt", "zh", OFFICIAL_FILES["ancient_chinese"][1:3]
    metadata = _official_meta(
        "QuoteRClassicalChineseRetrieval",
        "ancient_chinese",
        "lzh-Hans",
        "QuoteR classical Chinese quote recommendation.",
    )


def _shared_meta(name: str, f: str, lang: str, desc: str, domains: list[str], license: str) -> TaskMetadata:
    common = dict(METADATA, domains=domains)
    return TaskMetadata(
        name=name,
        description=desc
        + f" File {f} (QuoteR line format), split 80/10/10 after random.Random(20240611).shuffle; test split evaluated."
        + PROTOCOL,
        dataset={"path": f"shared/data/quoter/{f}", "revision": f"shuffle-20240611-80-10-10-{_QUERY_RULE}"},
        reference=None,
        eval_langs=[lang],
        date=("1611-01-01", "2024-06-11"),
        license=license,
        bibtex_citation="",
        **common,
    )


class QuoteRGcideEnglishRetrieval(QuoteRSharedFiles, AbsTaskQuoteRetrieval):
    quoter_file, language = "en_gcide.txt", "en"
    metadata = _shared_meta(
        "QuoteRGcideEnglishRetrieval",
        "en_gcide.txt",
        "eng-Latn",
        "GCIDE dictionary senses (headword: definition) as left context, "
        "the illustrative literary quotation as the quote.",
        ["Written", "Fiction"],
        "https://www.gnu.org/licenses/old-licenses/gpl-2.0.html",
    )


class QuoteRKJVNovelsEnglishRetrieval(QuoteRSharedFiles, AbsTaskQuoteRetrieval):
    quoter_file, language = "en_kjv_in_novels.txt", "en"
    metadata = _shared_meta(
        "QuoteRKJVNovelsEnglishRetrieval",
        "en_kjv_in_novels.txt",
        "eng-Latn",
        "19th-century novels quoting the King James Bible or Shakespeare: "
        "60 words of novel text on each side of the quoted span.",
        ["Written", "Fiction"],
        "not specified",
    )


class QuoteRIdiomChineseRetrieval(QuoteRSharedFiles, AbsTaskQuoteRetrieval):
    quoter_file, language = "zh_idiom.txt", "zh"
    metadata = _shared_meta(
        "QuoteRIdiomChineseRetrieval",
        "zh_idiom.txt",
        "cmn-Hans",
        "Chinese usage sentences with a chengyu (idiom) masked out; the idiom is the quote.",
        ["Written", "Fiction"],
        "mit",
    )
