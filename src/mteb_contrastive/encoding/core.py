"""What actually turns texts into vectors: truncating (the model's own path) or long-document windows.

A *core* is the small interface :class:`~mteb_contrastive.encoding.wrapper.EncodingModel` needs from
a model (a sentence-transformers model through mteb's ``SentenceTransformerEncoderWrapper`` here;
a counting fake in the tests):

* ``max_seq_length`` -- tokens per forward pass, special tokens included;
* ``n_special`` -- special tokens the tokenizer adds to one sequence (2 for BERT: [CLS] [SEP]);
* ``token_ids(texts)`` -- each text's token ids, no special tokens, no truncation;
* ``token_counts(texts)`` (optional) -- ``len`` of each of those, as the statistics need them (without it,
  the lengths of ``token_ids``);
* ``window_cuts(texts)`` (optional) -- per text, one flag per token: True where a window may start,
  i.e. the token starts a grapheme cluster of the text (:func:`token_cuts`); without it every
  token boundary is a cut;
* ``encode(inputs, ...)`` -- the model's own (truncating) encoding of an mteb dataloader;
* ``encode_windows(windows)`` -- one embedding per token-id window (special tokens added here);
* ``prompt(task_metadata, prompt_type)`` and ``symmetric`` -- see :meth:`SentenceTransformerCore.prompt_key`.

Long-document mode (issue 8, issue 20): a text of ``n`` content tokens is cut into windows of at
most ``W = max_seq_length - n_special`` tokens (:func:`window_spans`): the first starts at 0, each
next one ``S`` tokens (stride, default ``W``) after the previous start, until a window reaches the
end. ``S > W`` is refused (the tokens between two windows would never be read), so the windows
cover every token; there are ``1 + ceil(max(n - W, 0) / S)`` of them when every token boundary
is a cut. A window never starts or ends inside a grapheme cluster (a base character and its
combining marks: NFD accents, Thai vowels, Devanagari matras; :func:`token_cuts`): a cut that
would fall inside one moves back to the cluster's first token (Unicode UAX #29 via
:func:`mteb_contrastive.data.text.grapheme_starts`), unless the cluster alone is longer than the
step. Each window is encoded exactly as the model encodes a short text (special tokens added,
the model's pooling and normalisation applied), and the text's embedding is the mean of its
window embeddings **weighted by each window's number of content tokens**, so every token weighs
the same whatever window it falls in: a text of one full window plus one token is
``(W e1 + 1 e2) / (W + 1)``, not ``(e1 + e2) / 2``, which let a one-token window weigh as much
as ``W`` tokens (tokens read twice by overlapping windows count twice). A text that fits
(``n <= W``) has one window and the same embedding as without the mode.
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from mteb_contrastive.data.text import grapheme_starts

#: most threads :meth:`SentenceTransformerCore.token_counts` counts in, and fewest texts per thread
COUNT_THREADS = 4
COUNT_MIN_SLICE = 32


def _cores() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _refuse_gaps(window: int, stride: int) -> None:
    if window < 1 or stride < 1:
        raise ValueError(f"window ({window}) and stride ({stride}) must be >= 1")
    if stride > window:
        raise ValueError(
            f"stride ({stride}) is larger than the window ({window} tokens): the tokens between two windows "
            f"would never be read; give a stride of at most {window}"
        )


def window_spans(n_tokens: int, window: int, stride: int, cuts: list[bool] | None = None) -> list[tuple[int, int]]:
    """``(start, end)`` token offsets of the windows over ``n_tokens`` content tokens (module docstring).

    Args:
        n_tokens: content tokens of the text.
        window: most tokens per window (>= 1).
        stride: tokens from one window start to the next (1..window).
        cuts: per token, whether a window may start there (None: everywhere). A window end or a next
            start that falls on a token that may not start a window moves back to the nearest one
            that may, as long as that keeps it after the current start.

    Returns:
        consecutive windows covering ``0..n_tokens`` (each start <= the previous end); ``[(0, 0)]``
        for an empty text. Example: ``n_tokens=10, window=4, stride=4`` -> ``[(0, 4), (4, 8), (8, 10)]``.

    Raises:
        ValueError: ``window`` or ``stride`` < 1, or ``stride > window``.
    """
    _refuse_gaps(window, stride)

    def back(j: int, start: int) -> int:
        if cuts is None:
            return j
        k = j
        while k > start and not cuts[k]:
            k -= 1
        return k if k > start else j  # a cluster longer than the step: cut inside it rather than stall

    spans = []
    start = 0
    while True:
        end = min(start + window, n_tokens)
        if end < n_tokens:
            end = back(end, start)
        spans.append((start, end))
        if end >= n_tokens:
            return spans
        start = back(min(start + stride, end), start)


def window_starts(n_tokens: int, window: int, stride: int) -> list[int]:
    """Start offsets of the windows when every token boundary is a cut (:func:`window_spans`).

    Example: ``n_tokens=10, window=4, stride=4`` -> ``[0, 4, 8]``; ``stride=2`` -> ``[0, 2, 4, 6]``.

    Raises:
        ValueError: ``window`` or ``stride`` < 1, or ``stride > window``.
    """
    return [s for s, _ in window_spans(n_tokens, window, stride)]


def n_windows(n_tokens: int, window: int, stride: int) -> int:
    """``1 + ceil(max(n_tokens - window, 0) / stride)`` = ``len(window_starts(...))``.

    Raises:
        ValueError: ``window`` or ``stride`` < 1, or ``stride > window``.
    """
    _refuse_gaps(window, stride)
    return 1 + math.ceil(max(n_tokens - window, 0) / stride)


def token_cuts(text: str, offsets: list[tuple[int, int]]) -> list[bool]:
    """Per token, whether it starts a grapheme cluster of ``text`` (a window may start there).

    Args:
        text: the text the tokenizer read.
        offsets: per token, its ``(start, end)`` character offsets in ``text`` (a fast tokenizer's
            ``offset_mapping``).

    Example: Devanagari ``"किताब"`` in MiniLM's word pieces ``क ##ि ##त ##ा ##ब`` -> ``[True, False,
    True, False, True]`` (``ि`` and ``ा`` are vowel signs of the consonant before them).
    """
    starts = set(grapheme_starts(text))
    return [int(a) in starts for a, _ in offsets]


def mean_of_windows(
    ids: list[list[int]],
    window: int,
    stride: int,
    encode_windows: Any,
    batch_windows: int = 4096,
    cuts: list[list[bool]] | None = None,
) -> tuple[np.ndarray, list[int]]:
    """Embed each token-id list as the token-weighted mean of its windows' embeddings.

    Args:
        ids: per text, its content token ids (no special tokens).
        window: most content tokens per window (>= 1). ``stride``: tokens between window starts (1..window).
        encode_windows: callable list[list[int]] -> array (n_windows, dim).
        cuts: per text, :func:`window_spans`' ``cuts`` (None: every token boundary).

    Returns:
        (float32 array (len(ids), dim): per text ``sum_w n_w e_w / sum_w n_w`` with ``n_w`` the
        content tokens of window ``w`` (an empty text: its one window's embedding), number of
        windows per text).

    Raises:
        ValueError: ``stride > window`` (see :func:`window_spans`).
    """
    spans: list[list[int]] = []
    owner: list[int] = []
    weight: list[float] = []
    counts = []
    for i, t in enumerate(ids):
        ws = window_spans(len(t), window, stride, cuts[i] if cuts is not None else None)
        counts.append(len(ws))
        for a, b in ws:
            spans.append(list(t[a:b]))
            owner.append(i)
            weight.append(float(max(b - a, 1)))  # the empty text's single window weighs 1
    parts = []
    for b in range(0, len(spans), batch_windows):
        parts.append(np.asarray(encode_windows(spans[b : b + batch_windows]), dtype=np.float32))
    emb = np.concatenate(parts, axis=0) if parts else np.zeros((0, 0), np.float32)
    w = np.asarray(weight, dtype=np.float64)
    own = np.asarray(owner, dtype=np.int64)
    out = np.zeros((len(ids), emb.shape[1]), dtype=np.float64)
    np.add.at(out, own, emb.astype(np.float64) * w[:, None])
    total = np.zeros(len(ids), dtype=np.float64)
    np.add.at(total, own, w)
    out /= total[:, None]
    return out.astype(np.float32), counts


def special_token_template(tokenizer: Any) -> tuple[list[int], list[int]]:
    """(prefix, suffix) special-token ids the tokenizer puts around one sequence ([CLS], [SEP] for BERT).

    Found by tokenizing a probe word with and without special tokens.

    Raises:
        ValueError: the content ids do not appear contiguously in the full sequence.
    """
    probe = "hello"
    bare = tokenizer(probe, add_special_tokens=False)["input_ids"]
    full = tokenizer(probe, add_special_tokens=True)["input_ids"]
    for i in range(len(full) - len(bare) + 1):
        if full[i : i + len(bare)] == bare:
            return list(full[:i]), list(full[i + len(bare) :])
    raise ValueError("cannot find the special-token template of this tokenizer")


class SentenceTransformerCore:
    """Core over mteb's ``SentenceTransformerEncoderWrapper`` (its ``.model`` is the ``SentenceTransformer``).

    Args:
        wrapper: the mteb wrapper (kept: its ``encode`` is the truncating path, unchanged).
        batch_size: windows per forward pass in long-document mode.
    """

    def __init__(self, wrapper: Any, batch_size: int = 32) -> None:
        self.wrapper = wrapper
        self.st = wrapper.model
        self.batch_size = batch_size
        self.tokenizer = self.st.tokenizer
        self._token_counter: Any = None  # token_counts' own tokenizer (False: a slow tokenizer)
        self.prefix_ids, self.suffix_ids = special_token_template(self.tokenizer)
        self.n_special = len(self.prefix_ids) + len(self.suffix_ids)

    @property
    def max_seq_length(self) -> int:
        return int(self.st.max_seq_length)

    @max_seq_length.setter
    def max_seq_length(self, value: int) -> None:
        self.st.max_seq_length = int(value)

    @property
    def symmetric(self) -> bool:
        """True when query and document inputs are encoded alike: no non-empty prompt and no
        ``Router`` module (sentence-transformers routes ``encode_query``/``encode_document`` only there)."""
        has_router = any(type(m).__name__ == "Router" for m in self.st.modules())
        prompts = getattr(self.wrapper, "model_prompts", None) or {}
        return not any(prompts.values()) and not has_router

    def prompt(self, task_metadata: Any, prompt_type: Any) -> str | None:
        """The prompt text mteb's wrapper uses for this task and prompt type (None: no prompt)."""
        from mteb.models.abs_encoder import get_prompt_name

        prompts = getattr(self.wrapper, "model_prompts", None)
        if not prompts:
            return None
        name = get_prompt_name(prompts, task_metadata, prompt_type)
        return (prompts.get(name) or None) if name else None

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        """Content token ids of each text (no special tokens, no truncation)."""
        if not texts:
            return []
        return self.tokenizer(list(texts), add_special_tokens=False, truncation=False, verbose=False)["input_ids"]

    def token_counts(self, texts: list[str]) -> list[int]:
        """``len`` of each text's :meth:`token_ids`, the same numbers (a test), sooner: a fast (Rust)
        tokenizer counts through its own copy without truncation or padding (the model's tokenizer keeps
        its settings), ``encode_batch_fast`` (no character offsets), in up to :data:`COUNT_THREADS`
        threads on consecutive slices (the tokenizer releases the GIL; the statistics run between two
        encodes, with the cores otherwise idle); a slow tokenizer counts :meth:`token_ids`."""
        if not texts:
            return []
        counter = self._counter()
        if counter is None:
            return [len(ids) for ids in self.token_ids(texts)]
        texts = list(texts)
        n_threads = min(COUNT_THREADS, _cores(), max(1, len(texts) // COUNT_MIN_SLICE))

        def count(chunk: list[str]) -> list[int]:
            return [len(e.ids) for e in counter.encode_batch_fast(chunk, add_special_tokens=False)]

        if n_threads == 1:
            return count(texts)
        from concurrent.futures import ThreadPoolExecutor

        step = math.ceil(len(texts) / n_threads)
        with ThreadPoolExecutor(n_threads) as pool:
            parts = list(pool.map(count, [texts[i : i + step] for i in range(0, len(texts), step)]))
        return [n for part in parts for n in part]

    def _counter(self) -> Any:
        """The fast tokenizer's copy for :meth:`token_counts` (made once), None for a slow tokenizer."""
        if self._token_counter is None:
            backend = (
                getattr(self.tokenizer, "backend_tokenizer", None)
                if getattr(self.tokenizer, "is_fast", False)
                else None
            )
            if backend is None or not hasattr(backend, "encode_batch_fast"):
                self._token_counter = False
            else:
                from tokenizers import Tokenizer

                counter = Tokenizer.from_str(backend.to_str())
                counter.no_truncation()
                counter.no_padding()
                if hasattr(counter, "encode_special_tokens"):  # as transformers sets it on each call
                    counter.encode_special_tokens = bool(getattr(self.tokenizer, "split_special_tokens", False))
                self._token_counter = counter
        return self._token_counter or None

    def window_cuts(self, texts: list[str]) -> list[list[bool]] | None:
        """Per text, per content token: may a window start there (:func:`token_cuts`)? None for a
        tokenizer without character offsets (a slow tokenizer): every token boundary is then a cut."""
        if not texts or not getattr(self.tokenizer, "is_fast", False):
            return None
        enc = self.tokenizer(
            list(texts), add_special_tokens=False, truncation=False, verbose=False, return_offsets_mapping=True
        )
        return [token_cuts(t, off) for t, off in zip(texts, enc["offset_mapping"])]

    def encode(self, inputs: Any, **kwargs: Any) -> np.ndarray:
        """The model's own (truncating) path: mteb's wrapper ``encode``."""
        return self.wrapper.encode(inputs, **kwargs)

    def encode_windows(self, windows: list[list[int]]) -> np.ndarray:
        """Embeddings (n, dim) of token-id windows, special tokens added, longest first in batches."""
        import torch

        tok = self.tokenizer
        pad = tok.pad_token_id if tok.pad_token_id is not None else 0
        with_types = "token_type_ids" in getattr(tok, "model_input_names", ())
        order = sorted(range(len(windows)), key=lambda i: -len(windows[i]))
        out: list[Any] = [None] * len(windows)
        device = self.st.device
        for b in range(0, len(order), self.batch_size):
            idx = order[b : b + self.batch_size]
            seqs = [self.prefix_ids + list(windows[i]) + self.suffix_ids for i in idx]
            width = max(len(s) for s in seqs)
            ids = torch.tensor([s + [pad] * (width - len(s)) for s in seqs], dtype=torch.long)
            mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in seqs], dtype=torch.long)
            batch = {"input_ids": ids, "attention_mask": mask}
            if with_types:
                batch["token_type_ids"] = torch.zeros_like(ids)
            batch = {k: v.to(device) for k, v in batch.items()}
            with torch.inference_mode():
                emb = self.st.forward(batch)["sentence_embedding"].float().cpu().numpy()
            for j, i in enumerate(idx):
                out[i] = emb[j]
        return np.stack(out) if out else np.zeros((0, self.st.get_sentence_embedding_dimension() or 0), np.float32)
