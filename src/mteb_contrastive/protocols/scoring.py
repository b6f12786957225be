"""The one scoring path of the protocols: which kind of model this is, and its scores of text pairs or of
every row against every column, whatever the model.

Three kinds of model score texts (:func:`scorer_kind`):

* ``"encoder"`` -- an mteb encoder: texts are embedded (mteb's dataloader and ``encode``), a pair's
  score is the model's ``similarity_pairwise`` (cosine for sentence-transformers);
* ``"pair_scorer"`` -- a fitted baseline (:class:`~mteb_contrastive.protocols.fitting.PairScorer`);
  a baseline that also has **vectors** (:class:`~mteb_contrastive.protocols.fitting.VectorScorer`:
  TF-IDF, BM25, word vectors, Doc2Vec, Delta) scores a block of rows against every column at once
  (``block_scores``: a matrix product for inner-product scores); one without (PPMd compression,
  bm25s) scores pair by pair;
* ``"cross_encoder"`` -- an mteb cross-encoder (``predict`` on pairs,
  :mod:`mteb_contrastive.protocols.cross_encoder_scoring`).

Two questions cover every protocol:

* :func:`pair_scores` -- the score of each ``(texts1[i], texts2[i])`` (triplets, verification, pair
  classification): each distinct text encoded or represented once;
* :func:`similarity_blocks` -- every row against every column (attribution), as consecutive blocks of
  rows: ``(first row, (block rows, n_cols) float64)``. Memory: the representations plus one block of
  at most :data:`BLOCK_BYTES` (never the n x n matrix, never a list of n^2 text pairs); a pair scorer
  without vectors scores the block's pairs in chunks of :data:`PAIR_CHUNK`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from mteb_contrastive.compat import create_dataloader
from mteb_contrastive.protocols import cross_encoder_scoring as ces
from mteb_contrastive.protocols.fitting import has_vectors, is_pair_scorer, score_pairs

ENCODER, PAIR_SCORER, CROSS_ENCODER = "encoder", "pair_scorer", "cross_encoder"
KINDS = (ENCODER, CROSS_ENCODER, PAIR_SCORER)
#: the largest block of scores held at once (bytes of float64)
BLOCK_BYTES = 64 << 20
#: pairs per ``score_pairs`` call of a pair scorer without vectors
PAIR_CHUNK = 4096

_WHAT = {ENCODER: "an encoder", PAIR_SCORER: "a fitted baseline", CROSS_ENCODER: "a cross-encoder"}


def scorer_kind(model: Any, task_name: str, accepts: Sequence[str] = KINDS) -> str:
    """``"pair_scorer"``, ``"cross_encoder"`` or ``"encoder"`` (tested in this order).

    Raises:
        TypeError: the model is none of ``accepts``.
    """
    from mteb.models.models_protocols import EncoderProtocol

    if is_pair_scorer(model):
        kind = PAIR_SCORER
    elif ces.is_cross_encoder(model):
        kind = CROSS_ENCODER
    elif isinstance(model, EncoderProtocol):
        kind = ENCODER
    else:
        kind = None
    if kind not in accepts:
        names = [_WHAT[k] for k in KINDS if k in accepts]
        wanted = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
        raise TypeError(f"{task_name} scores embeddings or text pairs: it needs {wanted}, got {type(model).__name__}")
    return kind


def pair_scores(
    model: Any,
    kind: str,
    texts1: Sequence[str],
    texts2: Sequence[str],
    task: Any,
    *,
    hf_split: str,
    hf_subset: str,
    encode_kwargs: dict,
    num_proc: int | None = None,
    prompt_types: tuple[Any, Any] | None = None,
) -> np.ndarray:
    """The model's score of each pair ``(texts1[i], texts2[i])``, float64 (n,), higher = more alike.

    ``prompt_types``: the mteb ``PromptType`` of each side for an encoder (default: query, document).
    An encoder embeds each distinct text of a side once; a pair scorer represents each distinct text once.

    Raises:
        ValueError: the two lists differ in length, or the model returns another number of scores / NaN.
    """
    if len(texts1) != len(texts2):
        raise ValueError(f"{len(texts1)} first texts but {len(texts2)} second texts")
    if kind == PAIR_SCORER:
        return score_pairs(model, list(texts1), list(texts2))
    if kind == CROSS_ENCODER:
        return ces.cross_encoder_scores(
            model,
            list(texts1),
            list(texts2),
            task,
            hf_split=hf_split,
            hf_subset=hf_subset,
            encode_kwargs=encode_kwargs,
            num_proc=num_proc,
        )
    import torch
    from mteb.types import PromptType

    if not len(texts1):
        return np.zeros(0, dtype=np.float64)
    p1, p2 = prompt_types or (PromptType.query, PromptType.document)
    enc = dict(hf_split=hf_split, hf_subset=hf_subset, encode_kwargs=encode_kwargs, num_proc=num_proc)
    sides = []
    for texts, prompt in ((texts1, p1), (texts2, p2)):
        distinct = list(dict.fromkeys(texts))
        at = {t: i for i, t in enumerate(distinct)}
        emb = torch.as_tensor(encode_texts(model, distinct, task, prompt_type=prompt, **enc), dtype=torch.float32)
        sides.append(emb[[at[t] for t in texts]])
    sim = model.similarity_pairwise(sides[0], sides[1])
    return np.asarray(sim.detach().cpu() if hasattr(sim, "detach") else sim, dtype=np.float64).ravel()


def encode_texts(
    model: Any,
    texts: list[str],
    task: Any,
    *,
    hf_split: str,
    hf_subset: str,
    encode_kwargs: dict,
    num_proc: int | None = None,
    prompt_type: Any = None,
) -> np.ndarray:
    """Encode ``texts`` once with an mteb encoder through mteb's own dataloader.

    Args:
        prompt_type: mteb ``PromptType`` passed to ``model.encode`` (``query`` / ``document``;
            None = no role, the model's default prompt).

    Returns:
        float array of shape (len(texts), dim).
    """
    from datasets import Dataset

    loader = create_dataloader(
        Dataset.from_dict({"text": texts}),
        task_metadata=task.metadata,
        input_column="text",
        num_proc=num_proc,
        **encode_kwargs,
    )
    emb = model.encode(
        loader,
        task_metadata=task.metadata,
        hf_split=hf_split,
        hf_subset=hf_subset,
        prompt_type=prompt_type,
        **encode_kwargs,
    )
    return np.asarray(emb.detach().cpu() if hasattr(emb, "detach") else emb)


def block_rows(n_cols: int) -> int:
    """Rows per block so that one block of ``n_cols`` float64 scores stays within :data:`BLOCK_BYTES`."""
    return max(1, BLOCK_BYTES // (8 * max(1, n_cols)))


def similarity_blocks(
    model: Any, kind: str, rows: Any, cols: Any, *, rows_per_block: int | None = None
) -> Iterator[tuple[int, np.ndarray]]:
    """Every row's score against every column, by blocks of rows: ``(first row, scores)``, scores float64
    of shape (block rows, len(cols)).

    ``rows`` / ``cols``: for ``"encoder"`` float arrays (n, dim) of L2-normalised vectors (the score is
    their inner product, the cosine); for ``"pair_scorer"`` texts (a fitted model): with vectors,
    ``model.pair_vectors`` once on the distinct texts and ``model.block_scores`` per block (row = query side,
    column = document side); without, ``score_pairs(row text, column text)`` in chunks of
    :data:`PAIR_CHUNK` pairs. Cross-encoders have no all-pairs path here.

    Raises:
        TypeError: a cross-encoder (or another kind).
        ValueError: a pair scorer returned another number of scores, or NaN.
    """
    n_rows, n_cols = len(rows), len(cols)
    step = rows_per_block or block_rows(n_cols)
    if kind == ENCODER:
        r, c = np.asarray(rows, dtype=np.float64), np.asarray(cols, dtype=np.float64)
        for start in range(0, n_rows, step):
            yield start, r[start : start + step] @ c.T
        return
    if kind != PAIR_SCORER:
        raise TypeError(f"no all-pairs scores for a {kind}: score its pairs with pair_scores")
    if has_vectors(model):
        distinct = list(dict.fromkeys([*rows, *cols]))  # each distinct text represented once
        at = {t: i for i, t in enumerate(distinct)}
        q_all, d_all = model.pair_vectors(distinct)
        q = q_all[np.array([at[t] for t in rows], dtype=np.int64)]
        d = d_all[np.array([at[t] for t in cols], dtype=np.int64)]
        for start in range(0, n_rows, step):
            block = np.asarray(model.block_scores(q[start : start + step], d), dtype=np.float64)
            if block.shape != (min(step, n_rows - start), n_cols) or np.isnan(block).any():
                raise ValueError(f"{type(model).__name__}.block_scores returned {block.shape} scores or NaN")
            yield start, block
        return
    rows, cols = list(rows), list(cols)
    for start in range(0, n_rows, step):
        stop = min(start + step, n_rows)
        block = np.empty((stop - start) * n_cols, dtype=np.float64)
        for p in range(0, block.size, PAIR_CHUNK):
            idx = np.arange(p, min(p + PAIR_CHUNK, block.size))
            block[idx] = score_pairs(model, [rows[start + i] for i in idx // n_cols], [cols[j] for j in idx % n_cols])
        yield start, block.reshape(stop - start, n_cols)
