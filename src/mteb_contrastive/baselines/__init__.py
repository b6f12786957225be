"""Classic baselines exposed as mteb models (BM25, TF-IDF, char n-grams, Doc2Vec)."""

from __future__ import annotations


def registered_model_metas() -> list:
    """ModelMeta objects of the baselines this extension adds to mteb's model registry."""
    return []
