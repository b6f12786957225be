"""A counting encoder core for the encoding-layer tests (hand-checkable vectors, no model)."""

from __future__ import annotations

import numpy as np


def word_id(word: str) -> int:
    """Token id of a word: the integer itself for digits, else the sum of its code points."""
    return int(word) if word.isdigit() else sum(map(ord, word))


class CountingCore:
    """Whitespace tokenizer (one token per word), 2 special tokens, vector of a window of ids =
    ``[len(ids), sum(ids), 1, h1, h2]`` with h a hash of the ids (so distinct texts differ).

    ``encoded_texts`` lists every text the truncating path encoded; ``windows`` every window. The
    truncating path applies ``normalize_embeddings`` and ``truncate_dim`` as sentence-transformers
    does (unit vectors; the first dimensions) and takes any other keyword.
    """

    n_special = 2
    symmetric = True
    position_limit = 64

    def __init__(self, max_seq_length: int = 16) -> None:
        self.max_seq_length = max_seq_length
        self.encoded_texts: list[str] = []
        self.windows: list[list[int]] = []

    def token_ids(self, texts):
        return [[word_id(w) for w in t.split()] for t in texts]

    def prompt(self, task_metadata, prompt_type):
        return None

    @staticmethod
    def vec(ids) -> np.ndarray:
        h = np.random.default_rng(abs(hash(tuple(ids))) % (2**32)).standard_normal(2)
        return np.asarray([len(ids), sum(ids), 1.0, *h], dtype=np.float32)

    def encode(self, inputs, *, normalize_embeddings=False, truncate_dim=None, **kwargs):
        texts = [t for b in inputs for t in b["text"]]
        self.encoded_texts.extend(texts)
        keep = self.max_seq_length - self.n_special
        emb = (
            np.stack([self.vec(ids[:keep]) for ids in self.token_ids(texts)]) if texts else np.zeros((0, 5), np.float32)
        )
        if truncate_dim is not None:
            emb = emb[:, :truncate_dim]
        if normalize_embeddings:
            emb = emb / np.linalg.norm(emb, axis=1, keepdims=True)
        return emb

    def encode_windows(self, windows):
        self.windows.extend(list(w) for w in windows)
        return np.stack([self.vec(w) for w in windows])


class Similarity:
    """Cosine similarity, as mteb's sentence-transformers wrapper computes it."""

    def similarity(self, a, b):
        from mteb.similarity_functions import cos_sim

        return cos_sim(a, b)

    def similarity_pairwise(self, a, b):
        from mteb.similarity_functions import pairwise_cos_sim

        return pairwise_cos_sim(a, b)


def counting_model(cache_dir, *, identity=("counting", "1"), max_seq_length=16, **settings):
    """An EncodingModel over a fresh CountingCore; ``cache_dir=None`` turns the disk cache off."""
    from mteb.models.model_meta import ModelMeta, ScoringFunction

    from mteb_contrastive.encoding import EncodingModel, EncodingSettings

    core = CountingCore(max_seq_length)
    meta = ModelMeta.create_empty(
        overwrites=dict(
            name="test/counting", revision="1", similarity_fn_name=ScoringFunction.COSINE, modalities=["text"]
        )
    )
    s = EncodingSettings(cache=cache_dir is not None, **settings)
    return EncodingModel(
        core,
        s,
        identity={"name": identity[0], "revision": identity[1]},
        meta=meta,
        cache_dir=cache_dir,
        similarity_model=Similarity(),
    )
