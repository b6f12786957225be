"""Classic baselines as mteb models (BM25, TF-IDF, char n-grams, word vectors, Doc2Vec).

Registered in mteb's model registry (their metas: :mod:`mteb_contrastive.models.baselines`), so that
``mteb run -m mteb-contrastive/tfidf-words -t <task>`` works in a fresh process:

==========================================  ==========================================================
``mteb-contrastive/bm25-halvest``           BM25 as the HALvest authors ran it (rank_bm25 Okapi IDF,
                                            background corpus) on triplet tasks; mteb's bm25s search
                                            on retrieval tasks
``mteb-contrastive/bm25s-triplets``         a correct BM25 (bm25s, Lucene IDF, k1 1.5, b 0.75) on the
                                            same background corpus; bm25s on retrieval tasks
``mteb-contrastive/tfidf-words``            TF-IDF bag of words, cosine
``mteb-contrastive/tfidf-bigrams``          TF-IDF bag of unigrams + word bigrams, cosine
``mteb-contrastive/tfidf-char3``            TF-IDF character 3-grams, cosine (PAN baseline)
``mteb-contrastive/word2vec-avg``           mean of skip-gram word vectors, cosine
``mteb-contrastive/doc2vec``                Paragraph Vector, PV-DM (concatenation) + PV-DBOW, cosine
``mteb-contrastive/doc2vec-dm-concat``      Paragraph Vector, PV-DM (concatenation) alone, cosine
``mteb-contrastive/doc2vec-dm-mean-dbow``   PV-DM (mean of context) + PV-DBOW, cosine
==========================================  ==========================================================

They are pair scorers and mteb search models, not encoders (:mod:`mteb_contrastive.baselines.base`).
What each is fitted on is in its ``ModelMeta.public_training_data`` and, per result, in the
``fit_*`` entries of the scores. Each baseline's revision is a fingerprint of what it computes
(name, class, parameters, library versions and its outputs on a fixed probe,
:mod:`mteb_contrastive.baselines.revision`): a pure refactor keeps it, a change of a score moves it.
"""

from __future__ import annotations

from typing import Any

_TRIPLET_FIT = "triplet tasks: the split's distinct texts; verification: the texts of all its splits together; retrieval: its corpus"
_TRAINED_FIT = (
    "the task's train split texts when it has one, else unsupervised on the texts given (triplet tasks: the split's texts; "
    "verification: the texts of all its splits together; retrieval: its corpus); evaluated texts inferred"
)

#: name -> (class path, loader kwargs, model type, similarity, what it is fitted on, reference)
BASELINES: dict[str, tuple[str, dict[str, Any], str, str | None, str, str]] = {
    "mteb-contrastive/bm25-halvest": (
        "sparse.BM25TripletBaseline", {}, "sparse", None,
        "triplet tasks: IDF and average length from the split's distinct positives and negatives (no labels); "
        "retrieval: mteb's bm25s index of the split's corpus",
        "https://arxiv.org/abs/2407.20595",
    ),
    "mteb-contrastive/bm25s-triplets": (
        "sparse.BM25sTripletBaseline", {}, "sparse", None,
        "triplet tasks: a bm25s index of the split's distinct positives and negatives (no labels); retrieval: of its corpus",
        "https://github.com/xhluca/bm25s",
    ),
    "mteb-contrastive/tfidf-words": ("sparse.TfidfBaseline", {"kind": "words"}, "sparse", "cosine", _TRIPLET_FIT, "https://scikit-learn.org/"),
    "mteb-contrastive/tfidf-bigrams": ("sparse.TfidfBaseline", {"kind": "bigrams"}, "sparse", "cosine", _TRIPLET_FIT, "https://proceedings.mlr.press/v32/le14.html"),
    "mteb-contrastive/tfidf-char3": ("sparse.TfidfBaseline", {"kind": "char3"}, "sparse", "cosine", _TRIPLET_FIT, "https://pan.webis.de/"),
    "mteb-contrastive/word2vec-avg": ("gensim_models.Word2VecAverage", {}, "dense", "cosine", _TRAINED_FIT, "https://radimrehurek.com/gensim/"),
    "mteb-contrastive/doc2vec": ("gensim_models.Doc2VecBaseline", {"variant": "dm-concat+dbow"}, "dense", "cosine", _TRAINED_FIT, "https://proceedings.mlr.press/v32/le14.html"),
    "mteb-contrastive/doc2vec-dm-concat": ("gensim_models.Doc2VecBaseline", {"variant": "dm-concat"}, "dense", "cosine", _TRAINED_FIT, "https://proceedings.mlr.press/v32/le14.html"),
    "mteb-contrastive/doc2vec-dm-mean-dbow": ("gensim_models.Doc2VecBaseline", {"variant": "dm-mean+dbow"}, "dense", "cosine", _TRAINED_FIT, "https://proceedings.mlr.press/v32/le14.html"),
}


def load_baseline(model_name: str, revision: str | None = None, **kwargs: Any) -> Any:
    """mteb loader of a baseline of :data:`BASELINES` (its class, with the row's keyword arguments)."""
    import importlib

    path = BASELINES[model_name][0]
    module, cls = path.rsplit(".", 1)
    klass = getattr(importlib.import_module(f"mteb_contrastive.baselines.{module}"), cls)
    kwargs.pop("device", None)
    return klass(model_name, revision, **kwargs)


def baseline_revision(name: str) -> str:
    """Revision of baseline ``name``: ``"probe-"`` + fingerprint of its name, class path, loader kwargs,
    the versions of the libraries it computes with and its rounded outputs on a fixed probe, cached on
    disk (the rule: :mod:`mteb_contrastive.baselines.revision`).

    Raises:
        KeyError: ``name`` is not in :data:`BASELINES`.
    """
    from mteb_contrastive.baselines.revision import baseline_revision as probe_revision

    return probe_revision(name)
