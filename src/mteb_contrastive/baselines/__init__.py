"""Classic baselines exposed as mteb models (BM25, TF-IDF, char n-grams, word vectors, Doc2Vec).

Registered in mteb's model registry (see :mod:`mteb_contrastive.registration`), so that
``mteb run -m mteb-contrastive/tfidf-words -t <task>`` works in a fresh process:

========================================  ==========================================================
``mteb-contrastive/bm25-halvest``         BM25, HALvest background-corpus protocol on triplet tasks;
                                          mteb's bm25s search on retrieval tasks
``mteb-contrastive/tfidf-words``          TF-IDF bag of words, cosine
``mteb-contrastive/tfidf-bigrams``        TF-IDF bag of word bigrams, cosine
``mteb-contrastive/tfidf-char3``          TF-IDF character 3-grams, cosine (PAN baseline)
``mteb-contrastive/word2vec-avg``         mean of skip-gram word vectors, cosine
``mteb-contrastive/doc2vec``              Paragraph Vector, PV-DM + PV-DBOW concatenated, cosine
========================================  ==========================================================

What each is fitted on is in its ``ModelMeta.public_training_data`` and, per result, in the
``fit_*`` entries of the scores (see :mod:`mteb_contrastive.baselines.base`).
"""

from __future__ import annotations

from typing import Any

REVISION = "0.1.0"  # kept for reference; the registered revision is baseline_revision(name)
RELEASE_DATE = "2026-11-29"

#: name -> (class path, loader kwargs, model type, similarity, what it is fitted on, reference, description)
BASELINES: dict[str, tuple[str, dict[str, Any], str, str | None, str, str]] = {
    "mteb-contrastive/bm25-halvest": (
        "sparse.BM25TripletBaseline", {}, "sparse", None,
        "triplet tasks: IDF and average length from the split's distinct positives and negatives (no labels); "
        "retrieval: mteb's bm25s index of the split's corpus",
        "https://arxiv.org/abs/2407.20595",
    ),
    "mteb-contrastive/tfidf-words": (
        "sparse.TfidfBaseline", {"kind": "words"}, "sparse", "cosine",
        "the evaluated split's distinct texts only (retrieval: its corpus)", "https://scikit-learn.org/",
    ),
    "mteb-contrastive/tfidf-bigrams": (
        "sparse.TfidfBaseline", {"kind": "bigrams"}, "sparse", "cosine",
        "the evaluated split's distinct texts only (retrieval: its corpus)", "https://scikit-learn.org/",
    ),
    "mteb-contrastive/tfidf-char3": (
        "sparse.TfidfBaseline", {"kind": "char3"}, "sparse", "cosine",
        "the evaluated split's distinct texts only (retrieval: its corpus)", "https://pan.webis.de/",
    ),
    "mteb-contrastive/word2vec-avg": (
        "gensim_models.Word2VecAverage", {}, "dense", "cosine",
        "the task's train split texts when it has one, else unsupervised on the evaluated texts (retrieval: its corpus)",
        "https://radimrehurek.com/gensim/",
    ),
    "mteb-contrastive/doc2vec": (
        "gensim_models.Doc2VecBaseline", {}, "dense", "cosine",
        "the task's train split texts when it has one, else unsupervised on the evaluated texts (retrieval: its corpus); "
        "evaluated texts inferred",
        "https://proceedings.mlr.press/v32/le14.html",
    ),
}


def _loader(model_name: str, revision: str | None = None, **kwargs: Any) -> Any:
    import importlib

    path = BASELINES[model_name][0]
    module, cls = path.rsplit(".", 1)
    klass = getattr(importlib.import_module(f"mteb_contrastive.baselines.{module}"), cls)
    kwargs.pop("device", None)
    return klass(model_name, revision, **kwargs)


def baseline_revision(name: str) -> str:
    """Content revision of a baseline: fingerprint of its class, loader parameters and the bytes of
    its code (``baselines/base.py`` and the class's module), so it changes exactly when the
    parameters or the code change."""
    from pathlib import Path

    from mteb_contrastive.identity import file_digest, fingerprint

    path, kwargs = BASELINES[name][0], BASELINES[name][1]
    here = Path(__file__).resolve().parent
    code = [(f, file_digest(here / f)) for f in sorted({"base.py", path.rsplit(".", 1)[0] + ".py"})]
    return fingerprint(name, path, kwargs, code, length=12)


def registered_model_metas() -> list:
    """ModelMeta objects of the baselines this extension adds to mteb's model registry."""
    from mteb.models.model_meta import ModelMeta, ScoringFunction

    metas = []
    for name, (_, kwargs, mtype, sim, fitted_on, ref) in BASELINES.items():
        metas.append(ModelMeta(
            loader=_loader,
            loader_kwargs=dict(kwargs),
            name=name,
            revision=baseline_revision(name),
            release_date=RELEASE_DATE,
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
            reference=ref,
            similarity_fn_name=ScoringFunction.COSINE if sim == "cosine" else None,
            use_instructions=False,
            training_datasets=None,
            model_type=[mtype],
        ))
    return metas
