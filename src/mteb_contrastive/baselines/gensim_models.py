"""Trained dense baselines (gensim): word-vector averaging and Paragraph Vector (Doc2Vec).

Training data: the texts of the evaluated collection's ``train`` split when the task has one
(CranfieldIRTriplets: the train queries' triplets), else -- tasks without a train part, such as
the TALN author tasks or a retrieval corpus -- unsupervised on the evaluated texts themselves (no
labels are used either way). ``fit_summary`` says which: ``fit_on_train_split`` = 1 or
``fit_unsupervised_on_evaluated_texts`` = 1, with ``fit_n_texts``.

Tokens: lower-cased ``\\w+`` runs (Unicode, so French accents stay in words).

* **word2vec-avg**: skip-gram Word2Vec (100 dims, window 5, min count 2, 20 epochs), a text's
  vector = mean of its in-vocabulary word vectors (zero when none); cosine.
* **doc2vec**: Paragraph Vector as Le & Mikolov 2014: PV-DM (``dm=1``, mean of context, 100 dims,
  window 5) and PV-DBOW (``dm=0``, 100 dims), each trained 20 epochs (min count 2; inference also 20 epochs); every
  evaluated text's vector is *inferred* (``infer_vector``) by both and the two are concatenated
  (200 dims); cosine.

Determinism: ``workers=1``, ``seed``; gensim seeds its vectors with Python's ``hash`` (salted per
process) unless given ``hashfxn``, and ``infer_vector`` always uses ``hash`` for its starting
vector: both are replaced by a CRC32 of the text here, and the model's random state is reset to
the seed before each inference, so a text's vector does not depend on the process or on the
order of inference.
"""

from __future__ import annotations

import contextlib
import re
import threading
import zlib
from typing import Any

import numpy as np

from mteb_contrastive.baselines.base import FittedBaseline

_TOKEN = re.compile(r"\w+", re.UNICODE)
_patch_lock = threading.Lock()


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def stable_hash(s: str) -> int:
    """Process-independent replacement for ``hash`` in gensim's seeding."""
    return zlib.crc32(s.encode("utf-8"))


def _summary(texts: list[str], train_texts: list[str] | None) -> tuple[list[str], dict[str, float]]:
    if train_texts:
        return train_texts, {"fit_n_texts": len(train_texts), "fit_on_train_split": 1, "fit_unsupervised_on_evaluated_texts": 0}
    return texts, {"fit_n_texts": len(texts), "fit_on_train_split": 0, "fit_unsupervised_on_evaluated_texts": 1}


class Word2VecAverage(FittedBaseline):
    def __init__(self, model_name: str | None = None, revision: str | None = None, *, vector_size: int = 100, window: int = 5, min_count: int = 2, epochs: int = 20, **kwargs: Any) -> None:
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
    def __init__(self, model_name: str | None = None, revision: str | None = None, *, vector_size: int = 100, window: int = 5, min_count: int = 2, epochs: int = 20, **kwargs: Any) -> None:
        super().__init__(model_name, revision, **kwargs)
        self.params = dict(vector_size=vector_size, window=window, min_count=min_count, epochs=epochs)
        self.models: list[Any] = []

    def _fit(self, texts: list[str], train_texts: list[str] | None, candidate_texts: list[str] | None) -> None:
        from gensim.models.doc2vec import Doc2Vec, TaggedDocument

        corpus, self.fit_summary = _summary(texts, train_texts)
        docs = [TaggedDocument(tokens(t), [i]) for i, t in enumerate(corpus)]
        if not any(d.words for d in docs):
            raise ValueError("doc2vec: no token to train on")
        self.models = [
            Doc2Vec(documents=docs, dm=1, dm_mean=1, workers=1, seed=self.seed, hashfxn=stable_hash, **self.params),
            Doc2Vec(documents=docs, dm=0, workers=1, seed=self.seed, hashfxn=stable_hash, **self.params),
        ]
        self.fit_summary["vocabulary_size"] = len(self.models[0].wv)

    def _represent(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), sum(m.vector_size for m in self.models)), dtype=np.float32)
        with _stable_inference():
            for i, t in enumerate(texts):
                words = tokens(t)
                parts = []
                for m in self.models:
                    m.random = np.random.RandomState(self.seed)
                    parts.append(m.infer_vector(words))
                out[i] = np.concatenate(parts)
        return out
