"""Sparse baselines: TF-IDF cosine (words, word bigrams, character 3-grams) and BM25.

TF-IDF (scikit-learn ``TfidfVectorizer``: lower-cased, smooth IDF, L2-normalised rows, so the dot
product is the cosine): fitted on the evaluated split's distinct texts only (triplet tasks: all
anchors, positives and negatives of the split; retrieval: the split's corpus, at index time).

* ``words`` -- scikit-learn's default word tokens (``\\b\\w\\w+\\b``), unigrams;
* ``bigrams`` -- word bigrams only (``ngram_range=(2, 2)``);
* ``char3`` -- character 3-grams (``analyzer="char"``), the PAN authorship-verification baseline.

BM25 on triplet tasks follows the HALvest-Contrastive BM25 protocol (Kulumba et al., arXiv
2407.20595; the authors' ``bm25_experiments.py``, which scores each triplet with
``rank_bm25.BM25Okapi`` over the two candidates after injecting ``idf`` and ``avgdl`` from a
"master" BM25Okapi fitted on the background corpus): tokens are the lower-cased
whitespace-separated words; document frequencies and the average document length come from a
*background corpus* = all distinct positives and negatives of the split; the anchor is the query
and each of its two candidates is scored as a document:

    score(a, c) = sum over tokens t of a (with multiplicity)
                  idf(t) * tf(t, c) * (k1 + 1) / (tf(t, c) + k1 * (1 - b + b * |c| / avgdl))
    idf(t)      = ln((N - df(t) + 0.5) / (df(t) + 0.5))                 (N = background size)

with BM25Okapi's defaults k1 = 1.5, b = 0.75 and its floor for negative IDFs: a word whose idf is
negative gets ``epsilon * mean idf`` (epsilon = 0.25, mean over the background vocabulary); a word
absent from the background scores 0. The triplet is right when ``score(a, p) > score(a, n)``
(strict, ties are errors). On retrieval tasks the BM25 baseline is mteb's own
``mteb/baseline-bm25s`` search (bm25s, language stopwords and stemmer), unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mteb_contrastive.baselines.base import FittedBaseline

TFIDF_KINDS: dict[str, dict[str, Any]] = {
    "words": {"analyzer": "word", "ngram_range": (1, 1)},
    "bigrams": {"analyzer": "word", "ngram_range": (2, 2)},
    "char3": {"analyzer": "char", "ngram_range": (3, 3)},
}


class TfidfBaseline(FittedBaseline):
    """TF-IDF cosine; ``kind`` is one of :data:`TFIDF_KINDS`."""

    sparse = True

    def __init__(self, model_name: str | None = None, revision: str | None = None, *, kind: str = "words", **kwargs: Any) -> None:
        if kind not in TFIDF_KINDS:
            raise ValueError(f"unknown TF-IDF kind {kind!r}; choose one of {sorted(TFIDF_KINDS)}")
        super().__init__(model_name, revision, **kwargs)
        self.kind = kind
        self.vectorizer: Any = None

    def _fit(self, texts: list[str], train_texts: list[str] | None, candidate_texts: list[str] | None) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        if not texts:
            raise ValueError("TF-IDF: nothing to fit on (no text)")
        self.vectorizer = TfidfVectorizer(lowercase=True, dtype=np.float64, **TFIDF_KINDS[self.kind])
        self.vectorizer.fit(texts)
        self.fit_summary = {"fit_n_texts": len(texts), "fit_on_evaluated_texts": 1, "fit_on_train_split": 0, "vocabulary_size": len(self.vectorizer.vocabulary_)}

    def _represent(self, texts: list[str]) -> Any:
        x = self.vectorizer.transform(texts).tocsr()
        return x, x


def whitespace_tokens(text: str) -> list[str]:
    """Lower-cased whitespace tokens (the HALvest BM25 protocol)."""
    return text.lower().split()


class BM25TripletBaseline(FittedBaseline):
    """BM25 with a background corpus (HALvest protocol) for triplets; mteb's bm25s for retrieval."""

    sparse = True

    def __init__(self, model_name: str | None = None, revision: str | None = None, *, k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25, **kwargs: Any) -> None:
        super().__init__(model_name, revision, **kwargs)
        self.k1, self.b, self.epsilon = k1, b, epsilon
        self.vocab: dict[str, int] = {}
        self.idf: np.ndarray | None = None
        self.avgdl = 0.0
        self._search: Any = None

    def _fit(self, texts: list[str], train_texts: list[str] | None, candidate_texts: list[str] | None) -> None:
        background = candidate_texts if candidate_texts else texts
        if not background:
            raise ValueError("BM25: empty background corpus")
        self.vocab = {}
        for t in texts + background:
            for tok in whitespace_tokens(t):
                self.vocab.setdefault(tok, len(self.vocab))
        df = np.zeros(len(self.vocab), dtype=np.float64)
        lengths = []
        for t in background:
            toks = whitespace_tokens(t)
            lengths.append(len(toks))
            for tok in set(toks):
                df[self.vocab[tok]] += 1
        n = len(background)
        idf = np.log((n - df + 0.5) / (df + 0.5))
        in_background = df > 0
        idf[in_background & (idf < 0)] = self.epsilon * idf[in_background].mean()  # BM25Okapi floor
        idf[~in_background] = 0.0
        self.idf = idf
        self.avgdl = float(np.mean(lengths)) if lengths else 0.0
        self.fit_summary = {"bm25_background_n_texts": n, "bm25_background_is_candidates": int(bool(candidate_texts)), "fit_n_texts": len(texts), "fit_on_train_split": 0, "bm25_avgdl": self.avgdl}

    def _counts(self, texts: list[str]) -> Any:
        import scipy.sparse as sp

        rows, cols, vals = [], [], []
        for i, t in enumerate(texts):
            c: dict[int, int] = {}
            for tok in whitespace_tokens(t):
                j = self.vocab.get(tok)
                if j is not None:
                    c[j] = c.get(j, 0) + 1
            rows.extend([i] * len(c))
            cols.extend(c)
            vals.extend(c.values())
        return sp.csr_matrix((np.asarray(vals, dtype=np.float64), (rows, cols)), shape=(len(texts), len(self.vocab)))

    def _represent(self, texts: list[str]) -> Any:
        counts = self._counts(texts)
        lengths = np.array([len(whitespace_tokens(t)) for t in texts], dtype=np.float64)
        w = counts.copy().tocoo()
        denom = w.data + self.k1 * (1.0 - self.b + self.b * lengths[w.row] / max(self.avgdl, 1e-12))
        w.data = self.idf[w.col] * w.data * (self.k1 + 1.0) / denom
        return counts, w.tocsr()

    # retrieval: mteb's BM25 search (bm25s), unchanged
    def index(self, corpus: Any, **kwargs: Any) -> None:
        from mteb.models.model_implementations.bm25 import BM25Search

        self._search = BM25Search()
        self._search.index(corpus, **kwargs)
        self.fit_summary = {"fit_on_retrieval_corpus": 1}

    def search(self, queries: Any, **kwargs: Any) -> dict[str, dict[str, float]]:
        if self._search is None:
            raise RuntimeError("call index() before search()")
        return self._search.search(queries, **kwargs)
