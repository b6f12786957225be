"""Sparse baselines: TF-IDF cosine (words, words + word bigrams, character 3-grams) and two BM25s.

TF-IDF (scikit-learn ``TfidfVectorizer``: lower-cased, smooth IDF ``ln((1 + N) / (1 + df)) + 1``,
L2-normalised rows, so the dot product is the cosine), fitted on the texts the protocol gives
(triplet tasks: the split's distinct anchors, positives and negatives; verification: the texts of
every split; retrieval: the split's corpus, at index time). Words are
:func:`~mteb_contrastive.data.text.word_tokens` (scikit-learn's ``\\b\\w\\w+\\b`` on spaced
scripts, jieba on Chinese, character bigrams on other unsegmented scripts):

* ``words`` -- bag of words (unigrams);
* ``bigrams`` -- "bag-of-bigrams" as Le & Mikolov 2014 (section 3.3) use the term: unigrams *and*
  word bigrams (``ngram_range=(1, 2)``);
* ``char3`` -- character 3-grams (``analyzer="char"``), the PAN authorship-verification baseline.

``exclude_mfw=N`` (the topic-only reference ``tfidf-topic``) drops the corpus's N most frequent words
(at most half of its vocabulary, :func:`style_words`) before weighting: the style features of
Burrows' Delta (Burrows 2002: the 150 most frequent words, mostly function words;
:mod:`mteb_contrastive.baselines.stylometry`), counted with the TF-IDF's own tokens on the fitted
texts, most frequent first, ties by the word. Without it two texts that share only function words
score high (they are in every text, but so many of them that their weights dominate
the cosine), and a "topic" reference measures a style cue too.

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
(strict, ties are errors). Kept as the paper-faithful baseline (``bm25-halvest``), with what it
does: its IDF is **0 for a word in exactly half of the background** and negative (then floored)
above that, so on a small background most shared words weigh nothing -- background {"Hello there
good man!", "It is quite windy in London"}, anchor "windy London": both candidates score 0, a tie,
counted as an error. On retrieval tasks it is mteb's own ``mteb/baseline-bm25s`` search (bm25s,
language stopwords and stemmer), unchanged.

:class:`BM25sTripletBaseline` (``bm25s-triplets``) is a correct BM25 on the same background corpus,
computed by ``bm25s``: Lucene's IDF ``ln(1 + (N - df + 0.5) / (df + 0.5))`` (always > 0; bm25s's
default IDF), the Okapi term weight ``tf (k1 + 1) / (tf + k1 (1 - b + b |d| / avgdl))`` (bm25s
``method="atire"``), k1 = 1.5, b = 0.75, no stop words, no stemming, tokens
:func:`~mteb_contrastive.data.text.word_tokens` (``min_len=2``, bm25s's own default pattern on
spaced scripts). bm25s's default ``"lucene"`` scorer drops the constant factor ``k1 + 1``; ranks
and triplet decisions are identical. On the example above it scores 1.27183 vs 0. On retrieval
tasks it indexes the split's corpus the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mteb_contrastive.baselines.base import FittedBaseline, _corpus_text
from mteb_contrastive.data.text import sklearn_word_tokens, unsegmented_language, whitespace_tokens, word_tokens

TFIDF_KINDS: dict[str, dict[str, Any]] = {
    "words": {"analyzer": "word", "ngram_range": (1, 1), "tokenizer": sklearn_word_tokens, "token_pattern": None},
    "bigrams": {"analyzer": "word", "ngram_range": (1, 2), "tokenizer": sklearn_word_tokens, "token_pattern": None},
    "char3": {"analyzer": "char", "ngram_range": (3, 3)},
}


def most_frequent_words(texts: Sequence[str], n: int) -> list[str]:
    """The ``n`` most frequent words of ``texts`` (lower-cased :func:`~mteb_contrastive.data.text.sklearn_word_tokens`,
    the TF-IDF's words), by total count, most frequent first, ties by the word (Burrows' Delta's rule)."""
    from collections import Counter

    counts = Counter(tok for t in texts for tok in sklearn_word_tokens(t.lower()))
    return [w for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]


def style_words(texts: Sequence[str], n: int) -> list[str]:
    """The words the topic-only reference leaves out: the :func:`most_frequent_words` ``n``, at most half
    of the texts' vocabulary (a corpus of fewer than ``2 n`` distinct words keeps its rarer half)."""
    vocabulary = {tok for t in texts for tok in sklearn_word_tokens(t.lower())}
    return most_frequent_words(texts, min(n, len(vocabulary) // 2))


class TfidfBaseline(FittedBaseline):
    """TF-IDF cosine; ``kind`` is one of :data:`TFIDF_KINDS`."""

    sparse = True

    def __init__(
        self,
        model_name: str | None = None,
        revision: str | None = None,
        *,
        kind: str = "words",
        exclude_mfw: int = 0,
        **kwargs: Any,
    ) -> None:
        if kind not in TFIDF_KINDS:
            raise ValueError(f"unknown TF-IDF kind {kind!r}; choose one of {sorted(TFIDF_KINDS)}")
        if exclude_mfw < 0 or (exclude_mfw and kind == "char3"):
            raise ValueError(f"exclude_mfw must be >= 0 and is for word kinds only, got {exclude_mfw} ({kind})")
        super().__init__(model_name, revision, **kwargs)
        self.kind = kind
        self.exclude_mfw = exclude_mfw
        self.excluded: list[str] = []
        self.vectorizer: Any = None

    def _fit(self, texts: list[str], train_texts: list[str] | None, candidate_texts: list[str] | None) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        if not texts:
            raise ValueError("TF-IDF: nothing to fit on (no text)")
        self.excluded = style_words(texts, self.exclude_mfw) if self.exclude_mfw else []
        self.vectorizer = TfidfVectorizer(
            lowercase=True, dtype=np.float64, stop_words=self.excluded or None, **TFIDF_KINDS[self.kind]
        )
        try:
            self.vectorizer.fit(texts)
        except ValueError as exc:  # every word excluded
            raise ValueError(
                f"TF-IDF: no word left after excluding the {len(self.excluded)} most frequent words of "
                f"{len(texts)} texts ({exc})"
            ) from None
        self.fit_summary = {
            "fit_n_texts": len(texts),
            "fit_on_evaluated_texts": 1,
            "fit_on_train_split": 0,
            "vocabulary_size": len(self.vectorizer.vocabulary_),
        }
        if self.exclude_mfw:
            self.fit_summary["n_excluded_mfw"] = len(self.excluded)

    def _represent(self, texts: list[str]) -> Any:
        x = self.vectorizer.transform(texts).tocsr()
        return x, x


class BM25TripletBaseline(FittedBaseline):
    """BM25 with a background corpus (HALvest protocol) for triplets; mteb's bm25s for retrieval."""

    sparse = True

    def __init__(
        self,
        model_name: str | None = None,
        revision: str | None = None,
        *,
        k1: float = 1.5,
        b: float = 0.75,
        epsilon: float = 0.25,
        **kwargs: Any,
    ) -> None:
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
        self.fit_summary = {
            "bm25_background_n_texts": n,
            "bm25_background_is_candidates": int(bool(candidate_texts)),
            "fit_n_texts": len(texts),
            "fit_on_train_split": 0,
            "bm25_avgdl": self.avgdl,
        }

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

    # retrieval: mteb's BM25 search (bm25s), unchanged -- except for languages written without spaces
    def index(self, corpus: Any, **kwargs: Any) -> None:
        """Retrieval: mteb's ``BM25Search`` (bm25s, stop words, stemmer); for a task in a language
        written without word separators (:data:`~mteb_contrastive.data.text.UNSEGMENTED_LANGUAGES`,
        e.g. Chinese), whose clauses mteb's regex tokenizer keeps whole, :class:`BM25sTripletBaseline`'s
        search with :func:`~mteb_contrastive.data.text.word_tokens` (jieba) instead."""
        meta = kwargs.get("task_metadata")
        if unsegmented_language(getattr(meta, "languages", None) or []):
            self._search = BM25sTripletBaseline(self.model_name)
            self._search.index(corpus, **kwargs)
            self.fit_summary = {**self._search.fit_summary, "bm25_word_segmenter": 1}
            return
        from mteb.models.model_implementations.bm25 import BM25Search

        self._search = BM25Search()
        self._search.index(corpus, **kwargs)
        self.fit_summary = {"fit_on_retrieval_corpus": 1, "bm25_word_segmenter": 0}

    def search(self, queries: Any, **kwargs: Any) -> dict[str, dict[str, float]]:
        if self._search is None:
            raise RuntimeError("call index() before search()")
        return self._search.search(queries, **kwargs)


class BM25sTripletBaseline(FittedBaseline):
    """A correct BM25 (bm25s; Lucene IDF, Okapi term weight) over a background corpus; see the module docstring.

    Background: the split's distinct candidates when the protocol gives them (triplet tasks), else
    the fitted texts (retrieval: the corpus). ``score_pairs(queries, docs)`` needs every doc in the
    background (a triplet's candidates always are).
    """

    has_vectors = False  # bm25s scores a query against its background corpus: pair by pair

    def __init__(
        self,
        model_name: str | None = None,
        revision: str | None = None,
        *,
        k1: float = 1.5,
        b: float = 0.75,
        **kwargs: Any,
    ) -> None:
        super().__init__(model_name, revision, **kwargs)
        self.k1, self.b = k1, b
        self.retriever: Any = None
        self._position: dict[str, int] = {}

    @staticmethod
    def tokens(text: str) -> list[str]:
        """Lower-cased :func:`~mteb_contrastive.data.text.word_tokens` of length >= 2 (CJK words any length)."""
        return word_tokens(text, min_len=2)

    def _fit(self, texts: list[str], train_texts: list[str] | None, candidate_texts: list[str] | None) -> None:
        import bm25s

        background = candidate_texts if candidate_texts else texts
        if not background:
            raise ValueError("BM25: empty background corpus")
        self._position = {t: i for i, t in enumerate(background)}
        self.retriever = bm25s.BM25(k1=self.k1, b=self.b, method="atire", idf_method="lucene")
        self.retriever.index([self.tokens(t) for t in background], show_progress=False)
        self.fit_summary = {
            "bm25_background_n_texts": len(background),
            "bm25_background_is_candidates": int(bool(candidate_texts)),
            "fit_n_texts": len(texts),
            "fit_on_train_split": 0,
        }

    def _query_scores(self, text: str) -> np.ndarray:
        """BM25 scores of every background document for ``text`` as the query (float64, background order)."""
        vocab = self.retriever.vocab_dict
        toks = [t for t in self.tokens(text) if t in vocab]
        if not toks:
            return np.zeros(len(self._position), dtype=np.float64)
        return np.asarray(self.retriever.get_scores(toks), dtype=np.float64)

    def score_pairs(self, queries: Sequence[str], docs: Sequence[str]) -> np.ndarray:
        """BM25 score of ``docs[i]`` (a background document) for ``queries[i]``; float64 (n,).

        Raises:
            NotFittedError: not fitted.
            ValueError: lengths differ, or a document is not in the background corpus.
        """
        self._check_fitted()
        if len(queries) != len(docs):
            raise ValueError(f"score_pairs: {len(queries)} queries but {len(docs)} documents")
        missing = next((d for d in docs if d not in self._position), None)
        if missing is not None:
            raise ValueError(f"bm25s-triplets scores background documents only; not in it: {missing[:60]!r}")
        rows = {q: self._query_scores(q) for q in dict.fromkeys(queries)}
        return np.array([rows[q][self._position[d]] for q, d in zip(queries, docs)], dtype=np.float64)

    def index(self, corpus: Any, **kwargs: Any) -> None:
        """Fit on the corpus of the evaluated split (it is the background)."""
        texts = [_corpus_text(r) for r in corpus]
        self._corpus_ids = [str(r["id"]) for r in corpus]
        self.fit(texts)
        self.fit_summary["fit_on_retrieval_corpus"] = 1
        self._corpus_pos = np.array([self._position[t] for t in texts], dtype=np.int64)  # duplicate texts share a row
        self._corpus_vecs = True

    def _top(self, q_text: Any, cand: np.ndarray | None, top_k: int) -> dict[str, float]:
        by_doc = self._query_scores(q_text)[self._corpus_pos]
        s = by_doc if cand is None else by_doc[cand]
        ids = np.arange(s.size) if cand is None else cand
        order = np.lexsort((ids, -s))[: min(top_k, s.size)]
        return {self._corpus_ids[ids[j]]: float(s[j]) for j in order}

    def _sides(self, texts: list[str]) -> tuple[Any, Any]:
        return texts, texts  # queries are scored from their text (see _top)
