"""Trained dense baselines (gensim): word-vector averaging and Paragraph Vector (Doc2Vec).

Training data: the texts of the evaluated collection's ``train`` split when the task has one
(CranfieldIRTriplets: the train queries' triplets), else -- tasks without a train part, such as
the TALN author tasks, a retrieval corpus, or a verification task (texts of all its splits) --
unsupervised on the texts given to ``fit`` (no labels are used either way), in canonical order
(sorted by content hash, :func:`~mteb_contrastive.baselines.base.canonical_order`), so the
model depends on the set of texts only. ``fit_summary`` says which: ``fit_on_train_split`` = 1
or ``fit_unsupervised_on_evaluated_texts`` = 1, with ``fit_n_texts``.

Tokens: :func:`~mteb_contrastive.data.text.word_tokens` (lower-cased ``\\w+`` runs on spaced
scripts, so French accents stay in words; jieba on Chinese; character bigrams on other
unsegmented scripts).

* **word2vec-avg**: skip-gram Word2Vec (100 dims, window 5, min count 2, 20 epochs), a text's
  vector = mean of its in-vocabulary word vectors (zero when none); cosine.
* **doc2vec** (:data:`DOC2VEC_VARIANTS`): Paragraph Vector (Le & Mikolov 2014, section 2), 100
  dims per model, window 5, 20 epochs (min count 2; inference also 20 epochs); every evaluated
  text's vector is *inferred* (``infer_vector``) and, for a combination, the models' vectors are
  concatenated; cosine.

  * ``"dm-concat+dbow"`` (``mteb-contrastive/doc2vec``, the paper's combination, section 3.1:
    "the combination of PV-DBOW and PV-DM"): PV-DM with the paragraph and context word vectors
    *concatenated* (gensim ``dm=1, dm_concat=1``) + PV-DBOW (``dm=0``), 200 dims;
  * ``"dm-concat"`` (``mteb-contrastive/doc2vec-dm-concat``): the paper's PV-DM alone, 100 dims;
  * ``"dm-mean+dbow"`` (``mteb-contrastive/doc2vec-dm-mean-dbow``): PV-DM *averaging* the context
    (gensim ``dm_mean=1``, the common shortcut) + PV-DBOW, 200 dims.

Determinism: ``workers=1``, ``seed``; gensim seeds its vectors with Python's ``hash`` (salted per
process) unless given ``hashfxn``, and ``infer_vector`` always uses ``hash`` for its starting
vector: both are replaced by a CRC32 of the text here, and the model's random state is reset to
the seed before each inference, so a text's vector does not depend on the process or on the
order of inference.
"""

from __future__ import annotations

import contextlib
import threading
import zlib
from typing import Any

import numpy as np

from mteb_contrastive.baselines.base import FittedBaseline
from mteb_contrastive.data.text import word_tokens

_patch_lock = threading.Lock()

#: Doc2Vec variant -> the gensim models trained (their vectors concatenated), see the module docstring
DOC2VEC_VARIANTS: dict[str, tuple[dict[str, int], ...]] = {
    "dm-concat+dbow": ({"dm": 1, "dm_concat": 1}, {"dm": 0}),
    "dm-concat": ({"dm": 1, "dm_concat": 1},),
    "dm-mean+dbow": ({"dm": 1, "dm_mean": 1}, {"dm": 0}),
}


def tokens(text: str) -> list[str]:
    """Lower-cased words of ``text`` (:func:`~mteb_contrastive.data.text.word_tokens`, ``min_len=1``)."""
    return word_tokens(text, min_len=1)


def stable_hash(s: str) -> int:
    """Process-independent replacement for ``hash`` in gensim's seeding."""
    return zlib.crc32(s.encode("utf-8"))


def _summary(texts: list[str], train_texts: list[str] | None) -> tuple[list[str], dict[str, float]]:
    if train_texts:
        return train_texts, {
            "fit_n_texts": len(train_texts),
            "fit_on_train_split": 1,
            "fit_unsupervised_on_evaluated_texts": 0,
        }
    return texts, {"fit_n_texts": len(texts), "fit_on_train_split": 0, "fit_unsupervised_on_evaluated_texts": 1}


class Word2VecAverage(FittedBaseline):
    def __init__(
        self,
        model_name: str | None = None,
        revision: str | None = None,
        *,
        vector_size: int = 100,
        window: int = 5,
        min_count: int = 2,
        epochs: int = 20,
        **kwargs: Any,
    ) -> None:
        super().__init__(model_name, revision, **kwargs)
        self.params = dict(vector_size=vector_size, window=window, min_count=min_count, epochs=epochs)
        self.model: Any = None

    def _fit(self, texts: list[str], train_texts: list[str] | None, candidate_texts: list[str] | None) -> None:
        from gensim.models import Word2Vec

        corpus, self.fit_summary = _summary(texts, train_texts)
        sentences = [tokens(t) for t in corpus]
        if not any(sentences):
            raise ValueError("word2vec: no token to train on")
        self.model = Word2Vec(sentences=sentences, sg=1, workers=1, seed=self.seed, hashfxn=stable_hash, **self.params)
        self.fit_summary["vocabulary_size"] = len(self.model.wv)

    def _represent(self, texts: list[str]) -> np.ndarray:
        wv = self.model.wv
        out = np.zeros((len(texts), wv.vector_size), dtype=np.float32)
        for i, t in enumerate(texts):
            vecs = [wv[w] for w in tokens(t) if w in wv.key_to_index]
            if vecs:
                out[i] = np.mean(vecs, axis=0)
        return out


@contextlib.contextmanager
def _stable_inference():
    """Make ``Doc2Vec.infer_vector``'s starting vector independent of Python's hash salt."""
    import functools

    import gensim.models.doc2vec as d2v

    with _patch_lock:
        original = d2v.pseudorandom_weak_vector
        d2v.pseudorandom_weak_vector = functools.partial(original, hashfxn=stable_hash)
        try:
            yield
        finally:
            d2v.pseudorandom_weak_vector = original


class Doc2VecBaseline(FittedBaseline):
    """Paragraph Vector; ``variant`` is one of :data:`DOC2VEC_VARIANTS`
    (default: the paper's PV-DM concat + PV-DBOW)."""

    def __init__(
        self,
        model_name: str | None = None,
        revision: str | None = None,
        *,
        variant: str = "dm-concat+dbow",
        vector_size: int = 100,
        window: int = 5,
        min_count: int = 2,
        epochs: int = 20,
        **kwargs: Any,
    ) -> None:
        if variant not in DOC2VEC_VARIANTS:
            raise ValueError(f"unknown Doc2Vec variant {variant!r}; choose one of {sorted(DOC2VEC_VARIANTS)}")
        super().__init__(model_name, revision, **kwargs)
        self.variant = variant
        self.params = dict(vector_size=vector_size, window=window, min_count=min_count, epochs=epochs)
        self.models: list[Any] = []

    def _fit(self, texts: list[str], train_texts: list[str] | None, candidate_texts: list[str] | None) -> None:
        from gensim.models.doc2vec import Doc2Vec, TaggedDocument

        corpus, self.fit_summary = _summary(texts, train_texts)
        docs = [TaggedDocument(tokens(t), [i]) for i, t in enumerate(corpus)]
        if not any(d.words for d in docs):
            raise ValueError("doc2vec: no token to train on")
        self.models = [
            Doc2Vec(documents=docs, workers=1, seed=self.seed, hashfxn=stable_hash, **mode, **self.params)
            for mode in DOC2VEC_VARIANTS[self.variant]
        ]
        self.fit_summary["vocabulary_size"] = len(self.models[0].wv)

    def _represent(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), sum(m.dv.vector_size for m in self.models)), dtype=np.float32)
        with _stable_inference():
            for i, t in enumerate(texts):
                words = tokens(t)
                parts = []
                for m in self.models:
                    m.random = np.random.RandomState(self.seed)
                    parts.append(m.infer_vector(words))
                out[i] = np.concatenate(parts)
        return out
