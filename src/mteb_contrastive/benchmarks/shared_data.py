"""The benchmarks built from the shared data folder (``../shared/data``): one recipe each.

* ``TALNAbstractEn`` / ``TALNFullTextFr``: author triplets of the TALN/RECITAL papers
  (:func:`mteb_contrastive.data.taln.taln_corpus` views ``abstract-en`` / ``fulltext-fr``), built
  by :func:`mteb_contrastive.data.halvest_builder.build_halvest_dataset` (n_triplets 2, seed 0);
* ``PAN14Known`` and ``ELTeCEng``, ``ELTeCDeu``, ``ELTeCSpa``, ``ELTeCHun``, ``ELTeCSrp``:
  verification pairs of the PAN 2014 known documents and of the ELTeC novels in five languages
  (English, German, Spanish, Hungarian, Serbian: Latin and Cyrillic scripts), built by
  :func:`mteb_contrastive.data.verification_builder.build_verification_dataset` with the options of
  :data:`VERIFICATION_RECIPES`; the five ELTeC ones share one set of options (:data:`ELTEC_OPTIONS`);
* the same five ELTeC collections as attribution benchmarks (:data:`ATTRIBUTION_RECIPES`), built by
  the attribution builder (:func:`build_attribution_benchmark`).
  PAN14Known uses the documented collapse rule (``duplicates="collapse"``,
  :mod:`mteb_contrastive.data.content`): PAN problems that share a text (or a near-duplicate of one)
  are one author, each text is kept once, and only then are authors shared out over
  train/validation/test, so no text is in two splits and no "different-author" pair joins two copies
  of one writer's text.

Used by ``mteb-contrastive build-taln`` / ``build-pan-benchmarks``, ``evaluate`` and the scripts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mteb_contrastive.data.attribution_builder import build_attribution_dataset
from mteb_contrastive.data.documents import load_documents
from mteb_contrastive.data.halvest_builder import build_halvest_dataset
from mteb_contrastive.data.taln import VIEW_KEYWORDS, taln_corpus
from mteb_contrastive.data.verification_builder import build_verification_dataset

#: the TALN source file under the shared data folder
TALN_FILE = "taln/articles.jsonl.gz"


@dataclass(frozen=True)
class TALNRecipe:
    """An author-triplet benchmark of the TALN papers: view, ks, splitter language, mteb language."""

    name: str
    view: str
    ks: tuple[int, ...]
    language: str
    mteb_language: str


#: the TALN benchmarks, full texts first
TALN_RECIPES = (
    TALNRecipe("TALNFullTextFr", "fulltext-fr", (2, 4, 8), "fr", "fra-Latn"),
    TALNRecipe("TALNAbstractEn", "abstract-en", (2,), "en", "eng-Latn"),
)

#: the options every ELTeC verification benchmark is built with. ELTeC has 10 (eng) to 23 (spa) authors
#: with more than one novel: all go to validation and test (half each), no train split.
ELTEC_OPTIONS: dict[str, Any] = dict(
    chunk_words=1000, pairs_per_author=30, split_ratios=(0.0, 0.5, 0.5), positive_ratio=0.5, seed=0
)

#: the ELTeC collections: benchmark stem -> (file under the shared data, mteb codes, what it is)
ELTEC_COLLECTIONS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "ELTeCEng": ("eltec/eng_novels.jsonl.gz", ("eng-Latn",), "ELTeC English novels 1840-1920"),
    "ELTeCDeu": ("eltec/deu_novels.jsonl.gz", ("deu-Latn",), "ELTeC German novels 1840-1920"),
    "ELTeCSpa": ("eltec/spa_novels.jsonl.gz", ("spa-Latn",), "ELTeC Spanish novels 1840-1919"),
    "ELTeCHun": ("eltec/hun_novels.jsonl.gz", ("hun-Latn",), "ELTeC Hungarian novels 1842-1920"),
    # 98 novels in Cyrillic, 2 in Latin script (data README 2e): both scripts, per novel
    "ELTeCSrp": ("eltec/srp_novels.jsonl.gz", ("srp-Cyrl", "srp-Latn"), "ELTeC Serbian novels 1852-1920"),
}

#: the verification benchmarks: name -> (document source kind, path under the shared data, builder options)
VERIFICATION_RECIPES: dict[str, tuple[str, str, dict[str, Any]]] = {
    **{
        name: (
            "eltec",
            rel,
            dict(
                ELTEC_OPTIONS,
                languages=langs,
                description=f"{what}: 1000-word chunks, same-author pairs from two different novels",
            ),
        )
        for name, (rel, langs, what) in ELTEC_COLLECTIONS.items()
    },
    "PAN14Known": (
        "pan14",
        "pan/pan14_known.jsonl.gz",
        dict(
            chunk_words=400,
            pairs_per_author=2,
            split_ratios=(0.4, 0.3, 0.3),
            positive_ratio=0.5,
            seed=0,
            languages=("eng-Latn", "spa-Latn"),
            # PAN 2014 files one text under several problems (218 texts, one under 11): problems sharing a
            # text are one author (mteb_contrastive.data.content, the collapse rule), before the author split
            duplicates="collapse",
            description="PAN 2014 known documents (English essays and novels, Spanish articles): 400-word chunks, "
            "author = PAN problems merged when they share a text (the collapse rule: 1,129 rows -> 783 texts of "
            "230 authors), same-author pairs from two different documents, negatives within a genre",
        ),
    ),
}


#: the attribution benchmarks: name -> (document source kind, path under the shared data, builder options);
#: a folder ``<out>/datasets/<name>`` whose task is ``<name>Attribution`` (the verification folder of the same
#: collection lives in ``<out>/verification/<name>``, its task ``<name>Verification``)
ATTRIBUTION_RECIPES: dict[str, tuple[str, str, dict[str, Any]]] = {
    name: (
        "eltec",
        rel,
        dict(chunk_words=1000, chunks_per_text=10, languages=langs, description=f"{what}: authorship attribution"),
    )
    for name, (rel, langs, what) in ELTEC_COLLECTIONS.items()
}


def build_taln_benchmark(
    shared: Path,
    out: Path,
    recipe: TALNRecipe,
    *,
    seed: int = 0,
    n_triplets: int = 2,
    topic_field: str | None = None,
) -> Path:
    """Build one TALN author-triplet folder ``<out>/<recipe.name>``; returns it.

    ``topic_field`` (``keywords``: the view's own keywords, or any field of the papers) adds the
    topic-controlled triplets (:mod:`mteb_contrastive.data.halvest_builder`); it changes the dataset,
    so its revision, and is off by default.
    """
    src = shared / TALN_FILE
    rows, counts = taln_corpus(src, recipe.view, topic_field=topic_field)
    desc = f"TALN/RECITAL papers 1997-2015, view {recipe.view} ({counts['kept']} of {counts['papers']} papers kept)"
    return build_halvest_dataset(
        rows,
        out,
        recipe.name,
        ks=recipe.ks,
        language=recipe.language,
        mteb_language=recipe.mteb_language,
        n_triplets=n_triplets,
        seed=seed,
        source=f"{src} [{recipe.view}]",
        description=desc,
        topic_field=VIEW_KEYWORDS[recipe.view] if topic_field == "keywords" else topic_field,
    )


def build_verification_benchmark(shared: Path, out: Path, name: str) -> Path:
    """Build one verification folder ``<out>/<name>`` of :data:`VERIFICATION_RECIPES`; returns it."""
    kind, rel, opts = VERIFICATION_RECIPES[name]
    return build_verification_dataset(load_documents(kind, shared / rel), out, name, source=rel, **opts)


def build_attribution_benchmark(shared: Path, out: Path, name: str) -> Path:
    """Build one attribution folder ``<out>/<name>`` of :data:`ATTRIBUTION_RECIPES` with the attribution
    builder (:func:`mteb_contrastive.data.attribution_builder.build_attribution_dataset`); returns it."""
    kind, rel, opts = ATTRIBUTION_RECIPES[name]
    return build_attribution_dataset(load_documents(kind, shared / rel), out, name, source=rel, **opts)
