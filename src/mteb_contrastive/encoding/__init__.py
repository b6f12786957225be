"""The encoding layer: shared embedding cache, encode-once, max_seq_length, long-document mode,
truncation statistics, precision and backend (issues 8 and 11). See ``docs/encoding.md``."""

from mteb_contrastive.encoding.core import mean_of_windows, n_windows, window_spans, window_starts
from mteb_contrastive.encoding.settings import (
    EncodingSettings,
    EncodingSettingsError,
    default_cache_dir,
    settings_from,
    split_model_name,
)
from mteb_contrastive.encoding.store import MemoryEmbeddingStore, SqliteEmbeddingStore
from mteb_contrastive.encoding.wrapper import EncodingModel, SharedEmbeddingCache, cache_namespace, output_arguments

__all__ = [
    "EncodingModel",
    "EncodingSettings",
    "EncodingSettingsError",
    "MemoryEmbeddingStore",
    "SharedEmbeddingCache",
    "SqliteEmbeddingStore",
    "cache_namespace",
    "default_cache_dir",
    "mean_of_windows",
    "n_windows",
    "output_arguments",
    "settings_from",
    "split_model_name",
    "window_spans",
    "window_starts",
]
