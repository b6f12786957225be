"""Exact top-k search at the matrix-product limit, and the input checks every backend path runs.

:func:`exact_top_k` scores queries against a pool with torch's matrix product (the fastest BLAS in
the process: faiss-cpu's bundled OpenBLAS may not recognise the CPU and fall back to a generic
kernel, 5-8x slower; see ``docs/benchmarks.md`` section 1), a block of query rows at a time, and
keeps only each block's top-k (``torch.topk``): the queries x pool matrix is never formed. Memory:
the caller's arrays (never copied when already float32 and C-contiguous, never written) + one
``rows x pool`` float32 block (``block_bytes``, 256 MiB by default) + the (n, k) results.

cosine: ``(q / |q|) . x / |x|``, the pool's norms applied to the block's columns, so the pool is
not copied to be normalised. dot: ``q . x``. euclidean: ``-sqrt(|q|^2 - 2 q.x + |x|^2)`` (clamped
at 0), higher = nearer, as sentence-transformers' sign convention.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

#: float32 bytes of one block of scores (query rows x pool) held at a time
BLOCK_BYTES = 256 * 2**20


class EmbeddingError(ValueError):
    """Embeddings that cannot be searched: wrong shape or dtype, NaN/inf, zero vector under cosine."""


def as_matrix(x: Any, what: str, *, similarity: str, dim: int | None = None) -> np.ndarray:
    """``x`` as a read-only-safe float32 (n, d) array, checked; never a copy when it already is one.

    Args:
        x: numpy array, memory map or torch tensor of shape (n, d) (a 1-D vector is rejected).
        what: name used in errors ("documents", "queries").
        similarity: "cosine" also rejects zero vectors (no direction).
        dim: the dimension the other side has (error when different).

    Raises:
        EmbeddingError: not 2-D, not numeric, d == 0, ``dim`` mismatch, a NaN/inf value, or a zero
            vector under cosine; the message names the first bad row.
    """
    if hasattr(x, "detach"):
        x = x.detach().cpu().numpy()
    arr = np.asarray(x)
    if arr.ndim != 2:
        raise EmbeddingError(f"{what}: expected a 2-D array (n, dim), got shape {arr.shape}")
    if not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)):
        raise EmbeddingError(f"{what}: expected numbers, got dtype {arr.dtype}")
    if arr.shape[1] == 0:
        raise EmbeddingError(f"{what}: vectors have dimension 0")
    if dim is not None and arr.shape[1] != dim:
        raise EmbeddingError(f"{what}: dimension {arr.shape[1]} does not match the index's {dim}; encode both sides with the same model")
    if arr.dtype != np.float32 or not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr, dtype=np.float32)
    _check_values(arr, what, similarity)
    return arr


def _check_values(arr: np.ndarray, what: str, similarity: str, rows: int = 65536) -> None:
    for s in range(0, arr.shape[0], rows):  # bounded temporaries on memory-mapped pools
        block = arr[s : s + rows]
        finite = np.isfinite(block).all(1)
        if not finite.all():
            i = s + int(np.argmin(finite))
            raise EmbeddingError(f"{what}: row {i} contains NaN or inf; fix the encoder output (or drop that text) before searching")
        if similarity == "cosine":
            norms = np.einsum("ij,ij->i", block, block)
            if not (norms > 0).all():
                i = s + int(np.argmin(norms > 0))
                raise EmbeddingError(f"{what}: row {i} is a zero vector, which has no cosine similarity; drop that text or use dot product")


def _tensor(a: np.ndarray) -> Any:
    import torch

    with warnings.catch_warnings():  # a read-only memory map: torch warns, we never write to it
        warnings.simplefilter("ignore", UserWarning)
        return torch.from_numpy(a)


def pool_norms(x: np.ndarray, similarity: str) -> Any:
    """Per-candidate factor each path needs: 1/|x| (cosine), |x|^2 (euclidean), None (dot); (m,) float32."""
    import torch

    if similarity == "dot":
        return None
    sq = torch.from_numpy(np.einsum("ij,ij->i", x, x).astype(np.float32))
    return sq.rsqrt() if similarity == "cosine" else sq


def exact_top_k(
    q: np.ndarray,
    x: np.ndarray,
    k: int,
    *,
    similarity: str,
    norms: Any = None,
    block_bytes: int = BLOCK_BYTES,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-``k`` of each query over the pool, best first.

    Args:
        q: (n, d) float32 queries (checked by :func:`as_matrix`).
        x: (m, d) float32 pool (idem); only read.
        k: hits per query; ``min(k, m)`` are returned.
        similarity: "cosine", "dot" or "euclidean".
        norms: :func:`pool_norms` of ``x`` when already computed.
        block_bytes: bound on one block of scores (rows x m float32).

    Returns:
        (scores (n, k') float32, positions (n, k') int64 into ``x``); ties broken by torch.topk.
    """
    import torch

    n, m = q.shape[0], x.shape[0]
    k = min(int(k), m)
    scores = np.empty((n, k), dtype=np.float32)
    pos = np.empty((n, k), dtype=np.int64)
    if n == 0 or k == 0:
        return scores, pos
    xt = _tensor(x)
    if norms is None:
        norms = pool_norms(x, similarity)
    rows = max(1, min(n, block_bytes // (4 * m)))
    qt_all = _tensor(q)
    with torch.inference_mode():
        for s in range(0, n, rows):
            qt = qt_all[s : s + rows]
            if similarity == "cosine":
                qt = torch.nn.functional.normalize(qt, dim=1)
            block = qt @ xt.T
            if similarity == "cosine":
                block.mul_(norms)
                v, i = torch.topk(block, k, dim=1)
            elif similarity == "dot":
                v, i = torch.topk(block, k, dim=1)
            else:  # squared distance, smallest first
                block.mul_(-2).add_(norms).add_((qt * qt).sum(1, keepdim=True)).clamp_(min=0)
                v, i = torch.topk(block, k, dim=1, largest=False)
                v = v.sqrt_().neg_()
            scores[s : s + rows] = v.numpy()
            pos[s : s + rows] = i.numpy()
            del block
    return scores, pos


def merge_top_k(parts: list[tuple[np.ndarray, np.ndarray]], k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top-``k`` over several pools' results (each (scores, global positions)), best first."""
    import torch

    if len(parts) == 1:
        return parts[0]
    s = torch.from_numpy(np.concatenate([p[0] for p in parts], axis=1))
    i = np.concatenate([p[1] for p in parts], axis=1)
    k = min(k, s.shape[1])
    v, j = torch.topk(s, k, dim=1)
    return v.numpy(), np.take_along_axis(i, j.numpy(), axis=1)
