"""Exact top-k search at the matrix-product limit, and the input checks every backend path runs.

:func:`exact_top_k` scores queries against a pool with torch's matrix product (the fastest BLAS in
the process: faiss-cpu's bundled OpenBLAS may not recognise the CPU and fall back to a generic
kernel, 5-8x slower; see ``docs/benchmarks.md`` section 1), one block of query rows x pool columns
at a time into one reused buffer, and offers each block's scores to one binary heap per query row
(faiss's ``float_minheap_array_t``, :func:`_row_heaps`; for a k near the block's width the grouped
top-k of :func:`top_k_of_rows` instead): the queries x pool matrix is never formed.
Memory: the caller's arrays (never copied when already float32 and C-contiguous, never written) + one
block (``block_bytes``, 64 MiB by default, :data:`BLOCK_BYTES`; at most :data:`QUERY_ROWS` rows) + the (n, k) results.

cosine: ``(q / |q|) . x / |x|``, the pool's norms applied to the block's columns, so the pool is
not copied to be normalised. dot: ``q . x``. euclidean: ``-sqrt(|q|^2 - 2 q.x + |x|^2)`` (clamped
at 0), higher = nearer, as sentence-transformers' sign convention.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

#: float32 bytes of one block of scores (query rows x pool columns) held at a time
BLOCK_BYTES = 64 * 2**20


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
        raise EmbeddingError(
            f"{what}: dimension {arr.shape[1]} does not match the index's {dim}; encode both sides with the same model"
        )
    if arr.dtype != np.float32 or not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr, dtype=np.float32)
    _check_values(arr, what, similarity)
    return arr


#: rows checked at a time by :func:`as_matrix` (its temporaries: rows x dim booleans, ~1.5 MiB at dim 384)
CHECK_ROWS = 4096


def _check_values(arr: np.ndarray, what: str, similarity: str, rows: int = CHECK_ROWS) -> None:
    for s in range(0, arr.shape[0], rows):  # bounded temporaries, also on memory-mapped pools
        block = arr[s : s + rows]
        finite = np.isfinite(block).all(1)
        if not finite.all():
            i = s + int(np.argmin(finite))
            raise EmbeddingError(
                f"{what}: row {i} contains NaN or inf; fix the encoder output (or drop that text) before searching"
            )
        if similarity == "cosine":
            norms = np.einsum("ij,ij->i", block, block)
            if not (norms > 0).all():
                i = s + int(np.argmin(norms > 0))
                raise EmbeddingError(
                    f"{what}: row {i} is a zero vector, "
                    "which has no cosine similarity; drop that text or use dot product"
                )


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


#: query rows per block at most: enough for MKL's full speed, and below the 448 rows from which MKL's
#: sgemm keeps a packed copy of its own (~18 MiB beside the block; 3 MiB at 384 rows, measured on one
#: core of an AVX-512 Xeon with torch 2.13's MKL; 3% slower per flop than 585 rows, medians of 15)
QUERY_ROWS = 384

#: the widest group of :func:`top_k_of_rows` (16 was the fastest of widths 2-32 on 28,672-wide
#: blocks at k=100, one core of an AVX2 EPYC, in a sweep of widths the benchmark once ran)
GROUP = 16


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

    Scores are computed a block at a time into one reused buffer of at most ``block_bytes``
    (query rows x pool columns; a pool too wide for :data:`QUERY_ROWS` rows is split in column
    chunks). Each query row keeps its k best in a binary heap (:func:`_row_heaps`) that every
    block's scores are offered to (one comparison per score, most rejected against the heap's k-th
    best) where a block is at least :data:`HEAP_WIDTH_PER_K` times wider than k (k=100 over 28,672
    candidates: the whole search 1.10-1.25x the bare blocked product against 1.28-1.33x before, one
    core, AVX-512 EPYC, docs/benchmarks.md section 1); else each block keeps its grouped top-k
    (:func:`top_k_of_rows`, mteb's default k=1000), merged across column chunks.

    Args:
        q: (n, d) float32 queries (checked by :func:`as_matrix`).
        x: (m, d) float32 pool (idem); only read.
        k: hits per query; ``min(k, m)`` are returned.
        similarity: "cosine", "dot" or "euclidean".
        norms: :func:`pool_norms` of ``x`` when already computed.
        block_bytes: bound on one block of scores (rows x columns float32).

    Returns:
        (scores (n, k') float32, positions (n, k') int64 into ``x``). The scores are exactly the k'
        largest of each query's scores as computed (block by block: the last bit of a score may
        differ from a product of another shape); among exactly equal scores the order of positions,
        and which of them are kept at the k-th place, is unspecified (as with ``torch.topk``).

    Raises:
        EmbeddingError: on the heaps' path, a query with fewer than k' scores above -FLT_MAX (scores
            that overflow float32 to -inf, or NaN): embeddings too large for float32 products.
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
    rows, cols = block_shape(n, m, k, block_bytes)
    use_heaps = cols >= HEAP_WIDTH_PER_K * k
    qt_all = _tensor(q)
    with torch.inference_mode():
        # one buffer for the whole search, never a fresh result per block: benchmark 1
        # (docs/benchmarks.md) shows one fresh (n, m) result ("torch matmul") 1.2x slower than the
        # same product into one reused block ("torch blocks"), the difference being first-touch page faults
        buf = torch.empty(rows * cols, dtype=torch.float32)
        for s in range(0, n, rows):
            qt = qt_all[s : s + rows]
            if similarity == "cosine":
                qt = torch.nn.functional.normalize(qt, dim=1)
            qsq = (qt * qt).sum(1, keepdim=True) if similarity == "euclidean" else None
            r = qt.shape[0]
            # heaps: each row's k best so far in faiss's binary heaps written straight into the results (a
            # block's scores offered once, one comparison each, most rejected; column chunks included);
            # else the grouped top-k of each block and a running merge (at most r x 2k hits held)
            heaps = _row_heaps(scores[s : s + r], pos[s : s + r]) if use_heaps else None
            best = None
            for c in range(0, m, cols):
                xc = xt[c : c + cols]
                block = torch.matmul(qt, xc.T, out=buf[: r * xc.shape[0]].view(r, xc.shape[0]))
                if similarity == "cosine":
                    block.mul_(norms[c : c + cols])
                elif similarity == "euclidean":  # minus the squared distance, so that larger = nearer
                    block.mul_(2).sub_(norms[c : c + cols]).sub_(qsq).clamp_(max=0)
                if heaps is not None:
                    heaps.addn(xc.shape[0], _faiss().swig_ptr(block.numpy()), c, 0, r)
                else:
                    v, i = _top_k_by_slices(block, min(k, xc.shape[0]))
                    best = (v, i + c) if best is None else _merge([best, (v, i + c)], k)
            if heaps is not None:
                heaps.reorder()
                if pos[s : s + r].min() < 0:  # a heap keeps only scores above -FLT_MAX: -inf or NaN scores
                    raise EmbeddingError(
                        f"{similarity} scores overflow float32 (-inf or NaN) for queries {s}-{s + r - 1}: the "
                        "embeddings' values are too large for float32 products; scale or normalise them"
                    )
            else:
                scores[s : s + r], pos[s : s + r] = best[0].numpy(), best[1].numpy()
            if similarity == "euclidean":
                np.negative(np.sqrt(np.negative(scores[s : s + r])), out=scores[s : s + r])
        del block, buf
    return scores, pos


#: a block's top-k is kept in per-row binary heaps (:func:`_row_heaps`) when the block is at least this
#: many times wider than k, else by the grouped top-k (:func:`top_k_of_rows`): on one 585 x 28,672
#: block the heaps cost 0.30 / 0.53 / 0.78 / 1.32 of ``torch.topk`` at k = 10 / 100 / 300 / 1000, the
#: grouped top-k 0.69 / 0.99 / 0.79 / 0.67 (``scripts/bench_faiss_search.py --top-k-sweep``, one core,
#: AVX-512 EPYC; docs/benchmarks.md section 1): they cross near width / k = 100
HEAP_WIDTH_PER_K = 100


def _faiss() -> Any:
    import faiss

    return faiss


def _row_heaps(values: np.ndarray, ids: np.ndarray) -> Any:
    """faiss's ``float_minheap_array_t`` over ``values`` / ``ids`` ((r, k) C-contiguous float32 / int64,
    filled here): each row keeps its ``k`` largest scores offered by ``addn`` (columns numbered from the
    ``j0`` given there); ``reorder()`` leaves them best first."""
    faiss = _faiss()
    heaps = faiss.float_minheap_array_t()
    heaps.nh, heaps.k = values.shape
    heaps.val, heaps.ids = faiss.swig_ptr(values), faiss.swig_ptr(ids)
    heaps.heapify()
    return heaps


#: rows of a block ranked at a time (:func:`_top_k_by_slices`): the grouped top-k's temporaries
#: (group maxima, candidate columns and their gathered scores) are for this many rows, not the block's
TOP_K_ROWS = 128


def _top_k_by_slices(block: Any, k: int) -> tuple[Any, Any]:
    """:func:`top_k_of_rows` of ``block`` by slices of :data:`TOP_K_ROWS` rows (same result, the
    temporaries of one slice at a time)."""
    import torch

    r = block.shape[0]
    if r <= TOP_K_ROWS:
        return top_k_of_rows(block, k)
    v = torch.empty((r, k), dtype=block.dtype)
    i = torch.empty((r, k), dtype=torch.int64)
    for s in range(0, r, TOP_K_ROWS):
        v[s : s + TOP_K_ROWS], i[s : s + TOP_K_ROWS] = top_k_of_rows(block[s : s + TOP_K_ROWS], k)
    return v, i


def block_shape(n: int, m: int, k: int, block_bytes: int = BLOCK_BYTES) -> tuple[int, int]:
    """(query rows, pool columns) of one block of scores for ``n`` queries over ``m`` candidates.

    At most :data:`QUERY_ROWS` rows. The whole pool in one block when :data:`QUERY_ROWS` rows of it fit
    in ``block_bytes`` (else as many rows as fit); else the pool in as few column chunks of equal width as
    hold at most ``block_bytes / (4 QUERY_ROWS)`` columns each, and never fewer than ``128 k`` (mteb's
    default top_k is 1,000): a chunk's top-k is cheap only when the chunk is much wider than k
    (``torch.topk``'s partial sort needs ``64 k`` <= width, and so does :func:`top_k_of_rows`' grouping),
    so a large k gets fewer, wider chunks and fewer rows. (128 rather than 64 or 256: k=1000 over 300k x
    384 took 2.53 s against 2.66 / 2.68 s, and over 1M x 8 2.35 s against 3.64 / 1.82 s, 512 queries on
    one core.) 14,336 queries x 28,672 candidates, k=100: blocks of 384 x 28,672 (42 MiB).
    """
    cols = min(m, max(128 * k, block_bytes // (4 * min(n, QUERY_ROWS))))
    chunks = -(-m // cols)
    cols = -(-m // chunks)  # equal chunks (1M columns, k=100: 23 of 43,479, not 22 of 43,690 + 38,820)
    return max(1, min(n, QUERY_ROWS, block_bytes // (4 * cols))), cols


def top_k_of_rows(block: Any, k: int, group: int | None = None) -> tuple[Any, Any]:
    """The ``k`` largest values of each row of ``block`` (r, w) and their columns, best first.

    Equal to ``torch.topk(block, k, dim=1)`` in values, and faster on rows much wider than k
    (one core, 14,336 rows of 28,672: 0.89 s against 1.15 s at k=100, 2.9 s against 4.7 s at
    k=1000; docs/benchmarks.md section 1): the columns are cut into ``G = w // group`` interleaved
    groups (column ``j + G t`` is in group ``j``), each group's maximum is taken with ``group - 1``
    vectorised maxima, and only the members of the ``k`` groups with the largest maxima (plus the
    ``w - G group`` tail columns) are ranked. Exact: if one of a row's top-i values lies in a group
    that was not kept, the k kept groups' maxima are k candidates at least as large, so the
    candidates' i-th largest value is the row's.

    Args:
        block: (r, w) float scores.
        k: values per row, ``k <= w``.
        group: columns per group; default ``min(GROUP, w // (6 k))`` (16 at k=100 and 4 at k=1000
            on 28,672 columns, the fastest in a sweep of widths on one core).
            Plain ``torch.topk`` when the group would have fewer than 2 columns or there would be
            fewer than k groups.

    Returns:
        (values (r, k), columns (r, k) int64); among equal values the column order is unspecified.
    """
    import torch

    r, w = block.shape
    if group is None:
        group = min(GROUP, w // (6 * k))
    n_groups = w // group if group >= 2 else 0
    if n_groups < k:
        return torch.topk(block, k, dim=1)
    maxima = block[:, :n_groups].clone()
    for t in range(1, group):
        torch.maximum(maxima, block[:, t * n_groups : (t + 1) * n_groups], out=maxima)
    kept = torch.topk(maxima, k, dim=1, sorted=False).indices  # (r, k) groups
    cand = (kept.unsqueeze(1) + n_groups * torch.arange(group).view(1, group, 1)).view(r, group * k)
    v, j = torch.topk(block.gather(1, cand), k, dim=1)
    best = (v, cand.gather(1, j))
    if n_groups * group == w:
        return best
    tail = block[:, n_groups * group :]
    return _merge([best, (tail, torch.arange(n_groups * group, w).expand(r, -1))], k)


def _merge(parts: list[tuple[Any, Any]], k: int) -> tuple[Any, Any]:
    """Top-``k`` over several (values, columns) tensors of the same rows, best first."""
    import torch

    v = torch.cat([p[0] for p in parts], dim=1)
    i = torch.cat([p[1] for p in parts], dim=1)
    v, j = torch.topk(v, min(k, v.shape[1]), dim=1)
    return v, i.gather(1, j)


def merge_top_k(parts: list[tuple[np.ndarray, np.ndarray]], k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top-``k`` over several pools' results (each (scores, global positions)), best first."""
    import torch

    if len(parts) == 1:
        return parts[0]
    v, i = _merge([(torch.from_numpy(s), torch.from_numpy(p)) for s, p in parts], k)
    return v.numpy(), i.numpy()
