"""The benchmarks built from the shared data folder (``../shared/data``): one recipe each.

* ``TALNAbstractEn`` / ``TALNFullTextFr``: author triplets of the TALN/RECITAL papers
  (:func:`mteb_contrastive.data.taln.taln_corpus` views ``abstract-en`` / ``fulltext-fr``), built
  by :func:`mteb_contrastive.data.halvest_builder.build_halvest_dataset` (n_triplets 2, seed 0);
* ``PAN14Known`` / ``ELTeCEng``: verification pairs of the PAN 2014 known documents / the ELTeC
  English novels, built by :func:`mteb_contrastive.data.verification_builder.build_verification_dataset`
  with the options of :data:`VERIFICATION_RECIPES`. PAN14Known uses the documented collapse rule
  (``duplicates="collapse"``, :mod:`mteb_contrastive.data.content`): PAN problems that share a text
  (or a near-duplicate of one) are one author, each text is kept once, and only then are authors
  shared out over train/validation/test, so no text is in two splits and no "different-author"
  pair joins two copies of one writer's text.

Used by ``mteb-contrastive build-taln`` / ``build-pan-benchmarks``, ``evaluate`` and the scripts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mteb_contrastive.data.documents import load_documents
from mteb_contrastive.data.halvest_builder import build_halvest_dataset
from mteb_contrastive.data.taln import taln_corpus
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

#: the verification benchmarks: name -> (document source kind, path under the shared data, builder options)
VERIFICATION_RECIPES: dict[str, tuple[str, str, dict[str, Any]]] = {
    # ELTeC has only 10 authors with more than one novel: all go to validation and test (5 + 5), no train split.
    "ELTeCEng": (
        "eltec",
        "eltec/eng_novels.jsonl.gz",
        dict(
            chunk_words=1000,
            pairs_per_author=30,
            split_ratios=(0.0, 0.5, 0.5),
            positive_ratio=0.5,
            seed=0,
            languages=("eng-Latn",),
            description="ELTeC English novels 1840-1920: 1000-word chunks, same-author pairs from two different novels",
        ),
    ),
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


def build_taln_benchmark(shared: Path, out: Path, recipe: TALNRecipe, *, seed: int = 0, n_triplets: int = 2) -> Path:
    """Build one TALN author-triplet folder ``<out>/<recipe.name>``; returns it."""
    src = shared / TALN_FILE
    rows, counts = taln_corpus(src, recipe.view)
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
    )


def build_verification_benchmark(shared: Path, out: Path, name: str) -> Path:
    """Build one verification folder ``<out>/<name>`` of :data:`VERIFICATION_RECIPES`; returns it."""
    kind, rel, opts = VERIFICATION_RECIPES[name]
    return build_verification_dataset(load_documents(kind, shared / rel), out, name, source=rel, **opts)
