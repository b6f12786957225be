"""The table of the classic baselines: name -> class, parameters, kind, similarity, what each is fitted on."""

from __future__ import annotations

import importlib
from typing import Any

_TRIPLET_FIT = (
    "triplet tasks: the split's distinct texts; verification: "
    "the texts of all its splits together; retrieval: its corpus"
)
_TRAINED_FIT = (
    "the task's train split texts when it has one, else unsupervised on the texts given "
    "(triplet tasks: the split's texts; "
    "verification: the texts of all its splits together; retrieval: its corpus); evaluated texts inferred"
)

#: name -> (class path, loader kwargs, model type, similarity, what it is fitted on, reference)
BASELINES: dict[str, tuple[str, dict[str, Any], str, str | None, str, str]] = {
    "mteb-contrastive/bm25-halvest": (
        "sparse.BM25TripletBaseline",
        {},
        "sparse",
        None,
        "triplet tasks: IDF and average length from the split's distinct positives and negatives (no labels); "
        "retrieval: mteb's bm25s index of the split's corpus",
        "https://arxiv.org/abs/2407.20595",
    ),
    "mteb-contrastive/bm25s-triplets": (
        "sparse.BM25sTripletBaseline",
        {},
        "sparse",
        None,
        "triplet tasks: a bm25s index of the split's distinct positives and negatives "
        "(no labels); retrieval: of its corpus",
        "https://github.com/xhluca/bm25s",
    ),
    "mteb-contrastive/tfidf-words": (
        "sparse.TfidfBaseline",
        {"kind": "words"},
        "sparse",
        "cosine",
        _TRIPLET_FIT,
        "https://scikit-learn.org/",
    ),
    "mteb-contrastive/tfidf-topic": (
        "sparse.TfidfBaseline",
        {"kind": "words", "exclude_mfw": 150},
        "sparse",
        "cosine",
        _TRIPLET_FIT + "; the 150 most frequent words of those texts (Delta's style features) left out",
        "https://doi.org/10.1093/llc/17.3.267",
    ),
    "mteb-contrastive/tfidf-bigrams": (
        "sparse.TfidfBaseline",
        {"kind": "bigrams"},
        "sparse",
        "cosine",
        _TRIPLET_FIT,
        "https://proceedings.mlr.press/v32/le14.html",
    ),
    "mteb-contrastive/tfidf-char3": (
        "sparse.TfidfBaseline",
        {"kind": "char3"},
        "sparse",
        "cosine",
        _TRIPLET_FIT,
        "https://pan.webis.de/",
    ),
    "mteb-contrastive/word2vec-avg": (
        "gensim_models.Word2VecAverage",
        {},
        "dense",
        "cosine",
        _TRAINED_FIT,
        "https://radimrehurek.com/gensim/",
    ),
    "mteb-contrastive/doc2vec": (
        "gensim_models.Doc2VecBaseline",
        {"variant": "dm-concat+dbow"},
        "dense",
        "cosine",
        _TRAINED_FIT,
        "https://proceedings.mlr.press/v32/le14.html",
    ),
    "mteb-contrastive/doc2vec-dm-concat": (
        "gensim_models.Doc2VecBaseline",
        {"variant": "dm-concat"},
        "dense",
        "cosine",
        _TRAINED_FIT,
        "https://proceedings.mlr.press/v32/le14.html",
    ),
    "mteb-contrastive/doc2vec-dm-mean-dbow": (
        "gensim_models.Doc2VecBaseline",
        {"variant": "dm-mean+dbow"},
        "dense",
        "cosine",
        _TRAINED_FIT,
        "https://proceedings.mlr.press/v32/le14.html",
    ),
    "mteb-contrastive/burrows-delta": (
        "stylometry.BurrowsDelta",
        {"n_mfw": 150},
        "dense",
        None,
        _TRIPLET_FIT,
        "https://doi.org/10.1093/llc/17.3.267",
    ),
    "mteb-contrastive/cosine-delta": (
        "stylometry.CosineDelta",
        {"n_mfw": 150},
        "dense",
        "cosine",
        _TRIPLET_FIT,
        "https://doi.org/10.1093/llc/fqx023",
    ),
    "mteb-contrastive/ppmd-cbc": (
        "compression.PPMdCBC",
        {"max_order": 6, "mem_size": 16 << 20},
        "dense",  # mteb's model types have nothing closer; it has no vectors (texts compressed at scoring time)
        None,
        "nothing learnt: texts compressed at scoring time",
        "https://github.com/pan-webis-de/pan-code",
    ),
}

#: baselines that read characters (or bytes), not words: where one beats every model, the cue may be
#: typographic (edition artefacts), not style (the per-language table flags it)
CHARACTER_LEVEL = frozenset({"mteb-contrastive/tfidf-char3", "mteb-contrastive/ppmd-cbc"})
#: the topic-only reference of the content-independence figure (docs/content-independence.md): TF-IDF words
#: without the corpus's most frequent words (the style features of Delta), so that it reads topic, not style
TOPIC_REFERENCE = "mteb-contrastive/tfidf-topic"


def load_baseline(model_name: str, revision: str | None = None, **kwargs: Any) -> Any:
    """mteb loader of a baseline of :data:`BASELINES` (its class, with the row's keyword arguments)."""
    path = BASELINES[model_name][0]
    module, cls = path.rsplit(".", 1)
    klass = getattr(importlib.import_module(f"mteb_contrastive.baselines.{module}"), cls)
    kwargs.pop("device", None)
    return klass(model_name, revision, **kwargs)
