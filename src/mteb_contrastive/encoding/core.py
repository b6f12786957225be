"""What actually turns texts into vectors: truncating (the model's own path) or long-document windows.

A *core* is the small interface :class:`~mteb_contrastive.encoding.wrapper.EncodingModel` needs from
a model (a sentence-transformers model through mteb's ``SentenceTransformerEncoderWrapper`` here;
a counting fake in the tests):

* ``max_seq_length`` -- tokens per forward pass, special tokens included;
* ``n_special`` -- special tokens the tokenizer adds to one sequence (2 for BERT: [CLS] [SEP]);
* ``token_ids(texts)`` -- each text's token ids, no special tokens, no truncation;
* ``encode(inputs, ...)`` -- the model's own (truncating) encoding of an mteb dataloader;
* ``encode_windows(windows)`` -- one embedding per token-id window (special tokens added here);
* ``prompt(task_metadata, prompt_type)`` and ``symmetric`` -- see :meth:`SentenceTransformerCore.prompt_key`.

Long-document mode (issue 8): a text of ``n`` content tokens is cut into windows of
``W = max_seq_length - n_special`` tokens starting at ``0, S, 2S, ...`` (``S`` = stride, default
``W``), stopping at the first window that reaches the end, so the windows cover every token and
their number is ``1 + ceil(max(n - W, 0) / S)``; the text's embedding is the unweighted mean of
its window embeddings (each window encoded exactly as the model encodes a short text: special
tokens added, the model's pooling and normalisation applied). A text that fits (``n <= W``) has
one window and the same embedding as without the mode.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def window_starts(n_tokens: int, window: int, stride: int) -> list[int]:
    """Start offsets of the windows over ``n_tokens`` content tokens (see the module docstring).

    Returns ``[0]`` for an empty or short text. Example: ``n_tokens=10, window=4, stride=4`` ->
    ``[0, 4, 8]``; ``stride=2`` -> ``[0, 2, 4, 6]``.

    Raises:
        ValueError: ``window`` or ``stride`` < 1.
    """
    if window < 1 or stride < 1:
        raise ValueError(f"window ({window}) and stride ({stride}) must be >= 1")
    starts = [0]
    while starts[-1] + window < n_tokens:
        starts.append(starts[-1] + stride)
    return starts


def n_windows(n_tokens: int, window: int, stride: int) -> int:
    """``1 + ceil(max(n_tokens - window, 0) / stride)`` = ``len(window_starts(...))``."""
    return 1 + math.ceil(max(n_tokens - window, 0) / stride)


def mean_of_windows(
    ids: list[list[int]], window: int, stride: int, encode_windows: Any, batch_windows: int = 4096
) -> tuple[np.ndarray, list[int]]:
    """Embed each token-id list as the mean of its windows' embeddings.

    Args:
        ids: per text, its content token ids (no special tokens).
        window: content tokens per window (>= 1). ``stride``: tokens between window starts.
        encode_windows: callable list[list[int]] -> array (n_windows, dim).

    Returns:
        (float32 array (len(ids), dim), number of windows per text).
    """
    spans: list[list[int]] = []
    owner: list[int] = []
    counts = []
    for i, t in enumerate(ids):
        starts = window_starts(len(t), window, stride)
        counts.append(len(starts))
        for s in starts:
            spans.append(list(t[s : s + window]))
            owner.append(i)
    parts = []
    for b in range(0, len(spans), batch_windows):
        parts.append(np.asarray(encode_windows(spans[b : b + batch_windows]), dtype=np.float32))
    emb = np.concatenate(parts, axis=0) if parts else np.zeros((0, 0), np.float32)
    out = np.zeros((len(ids), emb.shape[1]), dtype=np.float64)
    np.add.at(out, np.asarray(owner, dtype=np.int64), emb.astype(np.float64))
    out /= np.asarray(counts, dtype=np.float64)[:, None]
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
