"""BM25 with per-language tokens (characters for Chinese), as an mteb search model.

mteb's ``mteb/baseline-bm25s`` picks its tokenizer from the task language and has a character
rule for ``zho``/``cmn`` but none for ``lzh`` (classical Chinese): there a clause without
punctuation is one token, almost no query shares a token with its gold, every such gold scores 0
and ties with the whole pool. This model, ``mteb-contrastive/bm25s-lang``, is the same ``bm25s``
BM25 (method ``lucene``, ``k1 = 1.5``, ``b = 0.75``: mteb's defaults) over the tokens of
:func:`mteb_contrastive.data.tokenize.tokenize` for the task's language (characters for
``lzh``/``cmn``/``zho``, lower-cased words otherwise); no stopword list and no stemmer.

Scores: the BM25 score of each candidate (``title`` + newline + ``text``) for the query's tokens;
a query without any token of the index scores 0 everywhere. :meth:`LanguageBM25Search.pool_scores`
gives the score of every candidate (the full pool), which the QuoteR protocol uses for exact tie
ranges (:mod:`mteb_contrastive.search.full_rank`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mteb_contrastive.baselines.revision import model_revision
from mteb_contrastive.data.tokenize import language_code, tokenize

MODEL_NAME = "mteb-contrastive/bm25s-lang"
K1, B, METHOD = 1.5, 0.75, "lucene"


def task_language(task_metadata: Any, hf_subset: str | None = None) -> str | None:
    """The single ISO 639 code of a task (subset), or None when it has several (then the word rule applies)."""
    langs = task_metadata.eval_langs
    langs = langs.get(hf_subset, []) if isinstance(langs, dict) else langs
    codes = {language_code(x) for x in langs}
    return next(iter(codes)) if len(codes) == 1 else None


class LanguageBM25Search:
    """mteb search model: ``bm25s`` BM25 over :func:`~mteb_contrastive.data.tokenize.tokenize` tokens.

    Args:
        language: force a language (ISO 639 code); default: the task's ``eval_langs`` at ``index``.
        k1, b: BM25 parameters (``bm25s`` method ``lucene``).
    """

    def __init__(
        self,
        model_name: str | None = None,
        revision: str | None = None,
        *,
        language: str | None = None,
        k1: float = K1,
        b: float = B,
        **kwargs: Any,
    ) -> None:
        self.language_cfg, self.k1, self.b = language, k1, b
        self.language: str = "und"
        self.retriever: Any = None
        self.corpus_ids: list[str] = []

    def _tokens(self, text: str) -> list[str]:
        return tokenize(text, self.language)

    def index(self, corpus: Any, *, task_metadata: Any = None, hf_subset: str | None = None, **kwargs: Any) -> None:
        """Index the candidates (rows ``{"id", "text"[, "title"]}``)."""
        import bm25s

        self.language = (
            self.language_cfg
            or (task_language(task_metadata, hf_subset) if task_metadata is not None else None)
            or "und"
        )
        self.corpus_ids = [row["id"] for row in corpus]
        texts = ["\n".join([row.get("title") or "", row["text"]]) for row in corpus]
        self.retriever = bm25s.BM25(k1=self.k1, b=self.b, method=METHOD)
        self.retriever.index([self._tokens(t) for t in texts], show_progress=False)

    def _scores(self, text: str) -> np.ndarray:
        toks = [t for t in self._tokens(text) if t in self.retriever.vocab_dict]
        return self.retriever.get_scores(toks) if toks else np.zeros(len(self.corpus_ids), dtype=np.float32)

    def pool_scores(self, queries: Any, only: set[str] | None = None) -> dict[str, np.ndarray]:
        """Query id -> (n_pool,) float32 scores in :attr:`corpus_ids` order (for the ids in ``only``, default all)."""
        if self.retriever is None:
            raise ValueError("call index() before pool_scores()")
        return {q: self._scores(t) for q, t in zip(queries["id"], queries["text"]) if only is None or q in only}

    def search(
        self, queries: Any, *, top_k: int, top_ranked: dict[str, list[str]] | None = None, **kwargs: Any
    ) -> dict[str, dict[str, float]]:
        """Each query's ``top_k`` candidates by BM25 score (ties in index order), as mteb expects."""
        out = {}
        for qid, scores in self.pool_scores(queries).items():
            allowed = None if not top_ranked or qid not in top_ranked else set(top_ranked[qid])
            order = np.argsort(-scores, kind="stable")
            res = {}
            for i in order:
                cid = self.corpus_ids[i]
                if allowed is None or cid in allowed:
                    res[cid] = float(scores[i])
                    if len(res) >= top_k:
                        break
            out[qid] = res
        return out


def revision() -> str:
    """The model's revision: ``"probe-"`` + fingerprint of its name, class, the versions of bm25s, numpy,
    scipy and jieba and its rounded search scores on a fixed English, French and Chinese probe,
    cached on disk (the rule: :mod:`mteb_contrastive.baselines.revision`)."""
    return model_revision(MODEL_NAME, "bm25_lang.LanguageBM25Search", {}, package="mteb_contrastive.baselines")


def load(model_name: str, revision: str | None = None, **kwargs: Any) -> LanguageBM25Search:
    """mteb loader of ``mteb-contrastive/bm25s-lang``."""
    return LanguageBM25Search(model_name, revision, **kwargs)
