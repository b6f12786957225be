"""Compression-based cosine (CBC) with PPMd: the compression baseline of PAN's organisers.

Score of two texts x and y (Sculley & Brodley 2006, "Compression and Machine Learning: A New
Perspective on Feature Space Vectors", DCC'06; Halvani, Winter & Graner 2017, "On the Usefulness of
Compression Models for Authorship Verification", doi:10.1145/3098954.3104050)::

    CBC(x, y) = (C(x) + C(y) - C(xy)) / sqrt(C(x) * C(y))

C = length in bytes of ``pyppmd.compress`` (PPMd variant I, model order 6, 16 MiB of model memory:
pyppmd's defaults) of the text's UTF-8 bytes; xy = the two texts concatenated without a separator.
This is PAN's own baseline: ``clef24/generative-authorship-verification/pan24_llm_baselines/
pan24_llm_baselines/detectors/ppmd.py`` L39-46 (and ``clef25/.../pan25_genai_baselines/ppmd.py``)
in github.com/pan-webis-de/pan-code, which scores the two halves of one text that way. Here x and
y are the two texts of a pair, put in a canonical order (SHA-256 of their UTF-8 bytes, the rule of
:func:`~mteb_contrastive.baselines.base.canonical_order`) before concatenation, so the score is
symmetric. Higher = more alike; CBC(x, x) < 1 (the compressor's constant overhead). A Cyrillic or
Greek letter is 2 bytes in UTF-8, so order 6 spans about 3 letters there, 6 in ASCII text.

Nothing is learnt: ``fit`` only records counts; texts are compressed at scoring time (each
text's C(x) once, cached). Calibration of the scores is the protocols' own (verification: the
validation-fitted threshold, Platt scaling and abstention band); PAN 2020-2023's compression
baselines fitted a logistic regression on two PPM cross-entropies instead, and PAN 2025's a fixed
offset and sigmoid. No vectors: a search compresses the query with every candidate (N
compressions per query), fine for verification and triplets, slow on large retrieval pools.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyppmd

from mteb_contrastive.baselines.base import FittedBaseline


class PPMdCBC(FittedBaseline):
    """Compression-based cosine with ``pyppmd`` (see the module docstring)."""

    has_vectors = False  # each pair is compressed: scored pair by pair

    def __init__(
        self,
        model_name: str | None = None,
        revision: str | None = None,
        *,
        max_order: int = 6,
        mem_size: int = 16 << 20,
        **kwargs: Any,
    ) -> None:
        super().__init__(model_name, revision, **kwargs)
        self.max_order, self.mem_size = max_order, mem_size
        self._sizes: dict[str, int] = {}

    def compressed_size(self, text: str) -> int:
        """C(text): bytes of ``pyppmd.compress`` of the UTF-8 text (variant I, this model's order and memory)."""
        n = self._sizes.get(text)
        if n is None:
            n = len(pyppmd.compress(text.encode("utf-8"), max_order=self.max_order, mem_size=self.mem_size))
            self._sizes[text] = n
        return n

    def cbc(self, x: str, y: str) -> float:
        """CBC(x, y), symmetric: the pair is concatenated in canonical order."""
        a, b = sorted((x, y), key=lambda t: (hashlib.sha256(t.encode("utf-8")).digest(), t))
        cx, cy = self.compressed_size(x), self.compressed_size(y)
        cxy = len(pyppmd.compress((a + b).encode("utf-8"), max_order=self.max_order, mem_size=self.mem_size))
        return (cx + cy - cxy) / math.sqrt(cx * cy)

    def _fit(self, texts: list[str], train_texts: list[str] | None, candidate_texts: list[str] | None) -> None:
        self._sizes = {}
        self.fit_summary = {"fit_n_texts": len(texts), "fit_on_evaluated_texts": 0, "fit_on_train_split": 0}

    def score_pairs(self, queries: Sequence[str], docs: Sequence[str]) -> np.ndarray:
        """CBC of each (``queries[i]``, ``docs[i]``); float64 (n,).

        Raises:
            NotFittedError: :meth:`fit` was not called.
            ValueError: ``queries`` and ``docs`` differ in length.
        """
        self._check_pairs(queries, docs)
        memo: dict[tuple[str, str], float] = {}
        out = np.empty(len(queries), dtype=np.float64)
        for i, (q, d) in enumerate(zip(queries, docs)):
            key = (q, d) if q <= d else (d, q)
            if key not in memo:
                memo[key] = self.cbc(q, d)
            out[i] = memo[key]
        return out

    def _sides(self, texts: list[str]) -> tuple[Any, Any]:
        return list(texts), list(texts)  # texts themselves: scored by compression in _top

    def _top(self, q_text: Any, cand: np.ndarray | None, top_k: int) -> dict[str, float]:
        ids = np.arange(len(self._corpus_vecs)) if cand is None else cand
        s = np.array([self.cbc(q_text, self._corpus_vecs[j]) for j in ids], dtype=np.float64)
        order = np.lexsort((ids, -s))[: min(top_k, s.size)]  # best first, ties by corpus position
        return {self._corpus_ids[ids[j]]: float(s[j]) for j in order}
