"""Every model the extension adds to mteb: ``ModelMeta`` objects and how a model name becomes one.

* :mod:`.local` -- a local sentence-transformers (or cross-encoder) folder, ``-m ./my-model``;
* :mod:`.bundled` -- the bundled all-MiniLM-L6-v2 seeded into the HuggingFace cache;
* :mod:`.baselines` -- the classic baselines (BM25 variants, TF-IDF, word vectors, Doc2Vec);
* :mod:`.rerank` -- the two-stage models ``rerank/<first stage>+<reranker>@<k>``.
"""

from __future__ import annotations

from typing import Any

from mteb_contrastive.models import baselines, rerank


def registered_model_metas() -> list[Any]:
    """The ``ModelMeta`` objects the extension adds to mteb's model registry (baselines, rerankers, ``bm25s-lang``)."""
    return [*baselines.registered_model_metas(), *rerank.registered_model_metas(), baselines.bm25_lang_meta()]
