"""Burrows' Delta and Cosine Delta: the most-frequent-word stylometry baselines, over scikit-learn.

Burrows' Delta (Burrows 2002, "'Delta': a Measure of Stylistic Difference and a Guide to Likely
Authorship", LLC 17(3):267-287, doi:10.1093/llc/17.3.267; formalised by Argamon 2008, LLC
23(2):131-147, as the Manhattan distance of z-scores divided by n):

1. words: :func:`~mteb_contrastive.data.text.word_tokens` (lower-cased Unicode ``\\w`` runs; jieba
   words for Han), so every script works; no stop-word or pronoun list;
2. vocabulary: the ``n_mfw`` most frequent words of the fitted texts (Burrows: 150), counted by
   scikit-learn's ``CountVectorizer``; ties of frequency broken by the word (code-point order), not
   by ``max_features`` (whose tie order is not specified);
3. each text D: relative frequency f_i(D) = count of word i / number of words of D (all words, not
   only the n; a text without words is a zero row);
4. z_i(D) = (f_i(D) - mu_i) / sigma_i, mean and standard deviation over the fitted texts
   (scikit-learn ``StandardScaler``: population standard deviation, ddof 0; a word of constant
   frequency gets sigma 1, so z = 0). Burrows, stylo and faststylometry use ddof 1: that multiplies
   every Delta by the same constant sqrt(n / (n - 1)), so rankings, AUC and calibrated answers are
   unchanged;
5. Delta(D, D') = (1/n) * sum_i |z_i(D) - z_i(D')|; smaller = more alike. The pair score is
   **-Delta** (higher = more similar, as every pair scorer here).

Cosine Delta (Smith & Aldridge 2011; the best Delta variant in Evert et al. 2017, "Understanding and
explaining Delta measures for authorship attribution", DSH 32(suppl. 2), doi:10.1093/llc/fqx023):
the cosine of the same z-vectors.

Fitted, without labels, on the texts the protocol gives (triplets: the split's texts;
verification: the texts of every split; retrieval: the corpus). ``faststylometry`` was not used:
it scores questioned texts against *author profiles* (z-scores need >= 2 training authors), has no
text-pair score and keeps only ASCII words by default.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mteb_contrastive.baselines.base import FittedBaseline
from mteb_contrastive.data.text import word_tokens

#: Burrows (2002): the 150 most frequent words
DEFAULT_MFW = 150


def _tokens(text: str) -> list[str]:
    return word_tokens(text)


class _ZScores(FittedBaseline):
    """The z-scored relative frequencies of the most frequent words (steps 1-4 of the module docstring)."""

    def __init__(
        self, model_name: str | None = None, revision: str | None = None, *, n_mfw: int = DEFAULT_MFW, **kwargs: Any
    ) -> None:
        if n_mfw < 1:
            raise ValueError(f"n_mfw must be >= 1, got {n_mfw}")
        super().__init__(model_name, revision, **kwargs)
        self.n_mfw = n_mfw
        self.vectorizer: Any = None
        self.columns: np.ndarray | None = None
        self.scaler: Any = None

    def _fit(self, texts: list[str], train_texts: list[str] | None, candidate_texts: list[str] | None) -> None:
        from sklearn.feature_extraction.text import CountVectorizer
        from sklearn.preprocessing import StandardScaler

        if not texts:
            raise ValueError("Delta: nothing to fit on (no text)")
        self.vectorizer = CountVectorizer(tokenizer=_tokens, lowercase=False, token_pattern=None, dtype=np.int64)
        counts = self.vectorizer.fit_transform(texts)
        totals = np.asarray(counts.sum(axis=0)).ravel()
        # most frequent first, ties by the word: the vocabulary's columns are in sorted word order
        self.columns = np.lexsort((np.arange(totals.size), -totals))[: self.n_mfw]
        self.scaler = StandardScaler().fit(self._frequencies(counts))
        self.fit_summary = {
            "fit_n_texts": len(texts),
            "fit_on_evaluated_texts": 1,
            "fit_on_train_split": 0,
            "vocabulary_size": int(totals.size),
            "n_mfw": int(self.columns.size),
        }

    def _frequencies(self, counts: Any) -> np.ndarray:
        lengths = np.asarray(counts.sum(axis=1), dtype=np.float64).ravel()
        picked = np.asarray(counts[:, self.columns].todense(), dtype=np.float64)
        return picked / np.where(lengths == 0, 1.0, lengths)[:, None]

    def z_scores(self, texts: Sequence[str]) -> np.ndarray:
        """z-scores of ``texts``, float64 (len(texts), n_mfw)."""
        self._check_fitted()
        return self.scaler.transform(self._frequencies(self.vectorizer.transform(list(texts))))

    def _represent(self, texts: list[str]) -> np.ndarray:
        return self.z_scores(texts)


class CosineDelta(_ZScores):
    """Cosine Delta: cosine of the z-vectors (the base class's dense path)."""


class BurrowsDelta(_ZScores):
    """Burrows' Delta; pair score and search score = -Delta (see the module docstring)."""

    def _sides(self, texts: list[str]) -> tuple[Any, Any]:
        z = self.z_scores(texts)
        return z, z  # raw z-scores: Delta is not a cosine

    def _row_scores(self, q: np.ndarray, d: np.ndarray) -> np.ndarray:
        """-Delta of each row pair: minus the mean absolute difference of the z-scores, float64 (n,),
        <= 0, 0 for identical profiles."""
        return -np.abs(q - d).mean(axis=1)

    def block_scores(self, q: np.ndarray, d: np.ndarray) -> np.ndarray:
        """-Delta of every (query row, document row), float64 (len(q), len(d)) (``scipy.spatial.distance.cdist``,
        Manhattan, divided by the number of words)."""
        from scipy.spatial.distance import cdist

        return -cdist(q, d, metric="cityblock") / max(1, q.shape[1])

    def _top(self, q_row: Any, cand: np.ndarray | None, top_k: int) -> dict[str, float]:
        d = self._corpus_vecs if cand is None else self._corpus_vecs[cand]
        s = -np.abs(d - q_row[None, :]).mean(axis=1)
        ids = np.arange(s.size) if cand is None else cand
        order = np.lexsort((ids, -s))[: min(top_k, s.size)]  # best first, ties by corpus position
        return {self._corpus_ids[ids[j]]: float(s[j]) for j in order}
