"""Classic baselines as mteb models (BM25, TF-IDF, char n-grams, word vectors, Doc2Vec).

Registered in mteb's model registry (see :mod:`mteb_contrastive.registration`), so that
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

RELEASE_DATE = "2026-11-29"

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


def _loader(model_name: str, revision: str | None = None, **kwargs: Any) -> Any:
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


def fitted_model_meta(*, loader: Any, name: str, revision: str, fitted_on: str, reference: str, model_type: str, similarity_fn_name: Any = None, loader_kwargs: dict[str, Any] | None = None, release_date: str = RELEASE_DATE) -> Any:
    """mteb ``ModelMeta`` of a model fitted at evaluation time (no weights, no parameters):
    the project's baselines and ``bm25s-lang``."""
    from mteb.models.model_meta import ModelMeta

    return ModelMeta(
        loader=loader,
        loader_kwargs=dict(loader_kwargs or {}),
        name=name,
        revision=revision,
        release_date=release_date,
        languages=None,
        n_parameters=0,
        n_embedding_parameters=0,
        memory_usage_mb=None,
        max_tokens=None,
        embed_dim=None,
        license=None,
        open_weights=True,
        public_training_code=None,
        public_training_data=f"fitted at evaluation time on {fitted_on}",
        framework=["NumPy"],
        reference=reference,
        similarity_fn_name=similarity_fn_name,
        use_instructions=False,
        training_datasets=None,
        model_type=[model_type],
    )


def registered_model_metas() -> list:
    """ModelMeta objects of the baselines this extension adds to mteb's model registry."""
    from mteb.models.model_meta import ScoringFunction

    return [
        fitted_model_meta(loader=_loader, loader_kwargs=kwargs, name=name, revision=baseline_revision(name), fitted_on=fitted_on,
                          reference=ref, model_type=mtype, similarity_fn_name=ScoringFunction.COSINE if sim == "cosine" else None)
        for name, (_, kwargs, mtype, sim, fitted_on, ref) in BASELINES.items()
    ]
