"""The encoding layer every model of the project goes through: encode once, cache, record.

:class:`EncodingModel` is an mteb encoder (``EncoderProtocol``) around a core
(:mod:`mteb_contrastive.encoding.core`). Per ``encode`` call it

1. keeps each distinct text once (a text both a query and a candidate, or repeated in a call);
2. looks the texts up in :class:`SharedEmbeddingCache` -- mteb's ``CachedEmbeddingWrapper`` with
   its key extended from (task, prompt type) to :func:`cache_namespace` = (model identity,
   effective ``max_seq_length``, long-document mode and stride, precision, backend, prompt, and
   every encode argument that may change a vector: :func:`output_arguments`) + text, so one
   vector serves every task of a run and every later run; the store is
   :class:`~mteb_contrastive.encoding.store.SqliteEmbeddingStore` (disk, shared, concurrency-
   and kill-safe) or, with the cache off, :class:`~mteb_contrastive.encoding.store.MemoryEmbeddingStore`;
3. encodes only the misses (the model's truncating path, or the mean of windows);
4. records per (task, split, subset) the distinct texts, their token lengths and how many were
   truncated (:meth:`EncodingModel.encoding_scores`); our ``_evaluate_task`` hook
   (:mod:`mteb_contrastive.plugin.registration`) adds them to every subset's scores.

Model identity (the namespace's first part): the SHA-256 fingerprint of a local folder's
weight, tokenizer and config files; for a Hub model its name and revision. A model with
neither (no folder, no revision) is not cached on disk (warning), only in memory.
"""

from __future__ import annotations

import logging
import warnings
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from mteb_contrastive.compat import NamespacedEmbeddingCache, create_dataloader
from mteb_contrastive.data.progress import bar
from mteb_contrastive.encoding.core import mean_of_windows, window_spans
from mteb_contrastive.encoding.settings import (
    KEYS,
    EncodingSettings,
    EncodingSettingsError,
    check_cache_dir,
    default_cache_dir,
)
from mteb_contrastive.encoding.store import MemoryEmbeddingStore, SqliteEmbeddingStore, text_key
from mteb_contrastive.identity import MODEL_FILE_PATTERNS, fingerprint, folder_fingerprint

logger = logging.getLogger(__name__)


def folder_identity(folder: str | Path, backend: str = "torch") -> dict[str, str]:
    """``{"folder_sha256": ...}``: fingerprint of the folder's weights, tokenizer and config files
    (:data:`mteb_contrastive.identity.MODEL_FILE_PATTERNS`, the rule of every model folder's identity;
    the backend is part of the settings in the cache key)."""
    return {"folder_sha256": folder_fingerprint(folder, patterns=MODEL_FILE_PATTERNS, length=32)}


#: encode arguments that never change a vector, only how it is computed (how many at once, shown
#: how, on which device or workers): left out of the cache key. Every other argument is in it.
OUTPUT_NEUTRAL_ARGUMENTS = frozenset({"batch_size", "show_progress_bar", "device", "num_workers", "pool", "chunk_size"})

#: encode arguments the long-document path applies itself (to the weighted mean of the windows)
LONG_DOCUMENT_ARGUMENTS = frozenset({"normalize_embeddings"})


def output_arguments(encode_kwargs: dict[str, Any]) -> dict[str, Any]:
    """The encode arguments that may change a vector: all of ``encode_kwargs`` but
    :data:`OUTPUT_NEUTRAL_ARGUMENTS` -- derived from the arguments given, so an argument this
    module has never heard of (``normalize_embeddings``, ``truncate_dim``, ``precision``, a model's
    own keyword) is in the cache key. Example: ``{"batch_size": 8, "normalize_embeddings": True}`` ->
    ``{"normalize_embeddings": True}``."""
    return {k: v for k, v in sorted(encode_kwargs.items()) if k not in OUTPUT_NEUTRAL_ARGUMENTS}


def cache_namespace(
    identity: dict[str, Any],
    settings: dict[str, Any],
    prompt: str | None,
    route: str | None,
    arguments: dict[str, Any] | None = None,
) -> tuple[str, dict[str, Any]]:
    """(fingerprint, description) of everything but the text that decides a vector.

    Args:
        identity: model identity (:func:`folder_identity` or ``{"name", "revision"}``).
        settings: :meth:`EncodingSettings.identity` (effective max_seq_length etc.).
        prompt: the prompt text prepended to the texts (None: none).
        route: the prompt type when the model encodes queries and documents differently, else None.
        arguments: :func:`output_arguments` of the encode call; none (the usual case) leaves the
            key as it was before arguments were part of it, so earlier caches stay valid.
    """
    desc: dict[str, Any] = {"model": identity, "settings": settings, "prompt": prompt, "route": route}
    if arguments:
        desc["encode_arguments"] = dict(arguments)
    return fingerprint(desc, length=32), desc


class SharedEmbeddingCache(NamespacedEmbeddingCache):
    """mteb's ``CachedEmbeddingWrapper`` keyed by namespace instead of task name (the override of its
    private store lookup lives in :class:`mteb_contrastive.compat.NamespacedEmbeddingCache`).

    The wrapped model is a callable-bearing object with mteb's ``encode``;
    :meth:`use_namespace` selects the namespace for the next ``encode`` call.

    Args:
        model: the encoder whose misses are computed.
        cache_path: folder of the SQLite store; None: in-memory only.
    """

    def __init__(self, model: Any, cache_path: str | Path | None) -> None:
        super().__init__(model, cache_path, SqliteEmbeddingStore if cache_path is not None else MemoryEmbeddingStore)
        self._namespace: tuple[str, dict[str, Any]] | None = None

    @property
    def mteb_model_meta(self) -> Any:
        return getattr(self.wrapped, "mteb_model_meta", None)

    def use_namespace(self, namespace: str, description: dict[str, Any]) -> None:
        self._namespace = (namespace, description)

    def current_store(self) -> Any:
        """The store of the namespace set by :meth:`use_namespace`.

        Raises:
            RuntimeError: no namespace was set.
        """
        if self._namespace is None:
            raise RuntimeError("SharedEmbeddingCache.use_namespace() must be called before encode()")
        ns, desc = self._namespace
        if ns not in self.cache_dict:
            self.cache_dict[ns] = self.cache_backend(self.cache_path, namespace=ns, description=desc)
        return self.cache_dict[ns]

    def store(self) -> Any:
        """The store of the current namespace."""
        return self.current_store()


#: texts encoded per call of the model: the ``<task>: texts encoded`` bar moves after each such chunk
PROGRESS_CHUNK = 256


class _Misses:
    """The object ``SharedEmbeddingCache`` calls for cache misses: truncating path or windows."""

    def __init__(self, owner: EncodingModel) -> None:
        self.owner = owner

    @property
    def mteb_model_meta(self) -> Any:
        return self.owner.mteb_model_meta

    def encode(self, inputs: Any, **kwargs: Any) -> np.ndarray:
        """Embeddings of the misses, :data:`PROGRESS_CHUNK` texts at a time (the ``texts encoded`` bar
        moves after each chunk)."""
        o = self.owner
        texts = [t for batch in inputs for t in batch["text"]]
        o._last_encoded += len(texts)
        o.n_encoded += len(texts)
        meta = kwargs.get("task_metadata")
        bar = o._progress_bar(
            len(texts),
            getattr(meta, "name", None),
            show=kwargs.get("show_progress_bar", True) is not False,
        )
        parts = []
        for a in range(0, len(texts), PROGRESS_CHUNK):
            chunk = texts[a : a + PROGRESS_CHUNK]
            if o.settings.long_document == "mean":
                emb, _ = mean_of_windows(
                    o.core.token_ids(chunk), o.window, o.stride, o.core.encode_windows, cuts=o._cuts(chunk)
                )
                if kwargs.get("normalize_embeddings"):
                    norms = np.linalg.norm(emb, axis=1, keepdims=True)
                    emb = emb / np.where(norms > 0, norms, 1.0)
            else:
                loader = inputs
                if len(texts) > PROGRESS_CHUNK:  # the same loader mteb made, over this chunk's rows
                    loader = create_dataloader(
                        inputs.dataset.select(range(a, a + len(chunk))),
                        task_metadata=kwargs.get("task_metadata"),
                        prompt_type=kwargs.get("prompt_type"),
                        batch_size=getattr(inputs, "batch_size", None) or kwargs.get("batch_size", 32),
                    )
                emb = o.core.encode(loader, **kwargs)
                if hasattr(emb, "detach"):
                    emb = emb.detach().float().cpu().numpy()
                emb = np.asarray(emb, dtype=np.float32)
            parts.append(emb)
            if bar is not None:
                bar.update(len(chunk))
        if bar is not None:
            bar.close()
        return np.concatenate(parts, axis=0) if parts else np.zeros((0, 0), np.float32)


class EncodingModel:
    """mteb encoder with encode-once, the shared cache, ``max_seq_length``, long-document mode and
    truncation statistics (see the module docstring).

    Args:
        core: a core (:class:`~mteb_contrastive.encoding.core.SentenceTransformerCore` or a test fake).
        settings: the encoding settings; ``settings.max_seq_length`` is applied to the core.
        identity: the model identity for the cache key; None: disk cache off (memory only).
        meta: the mteb ``ModelMeta`` (stamped with the settings, see :attr:`mteb_model_meta`).
        cache_dir: the disk cache folder (default :func:`default_cache_dir`).
        similarity_model: object providing ``similarity``/``similarity_pairwise`` (default: the core's wrapper).

    Attributes:
        n_encoded: texts actually encoded by the model over this object's life (cache misses).

    Raises:
        EncodingSettingsError: ``max_seq_length`` above the model's position limit, a window of
            under one token, or (long-document mode) a stride larger than the window.
    """

    def __init__(
        self,
        core: Any,
        settings: EncodingSettings,
        *,
        identity: dict[str, Any] | None,
        meta: Any = None,
        cache_dir: str | Path | None = None,
        similarity_model: Any = None,
    ) -> None:
        self.core = core
        self.settings = settings
        self.model_max_seq_length = int(core.max_seq_length)
        if settings.max_seq_length is not None:
            limit = _position_limit(core)
            if limit is not None and settings.max_seq_length > limit:
                raise EncodingSettingsError(
                    f"encoding option max_seq_length={settings.max_seq_length}: this model has {limit} positions; "
                    "use long_document=mean to read longer texts"
                )
            core.max_seq_length = settings.max_seq_length
        self.window = int(core.max_seq_length) - int(core.n_special)
        self.stride = settings.stride or self.window
        if self.window < 1:
            raise EncodingSettingsError(
                f"encoding option max_seq_length={core.max_seq_length} leaves no token for text"
            )
        if settings.long_document == "mean" and self.stride > self.window:
            raise EncodingSettingsError(
                f"encoding option stride={self.stride} is larger than the window of {self.window} tokens "
                f"(max_seq_length {core.max_seq_length} minus {core.n_special} special tokens): the tokens between "
                f"two windows would never be read; give stride={self.window} or less"
            )
        self.identity = identity
        on_disk = settings.cache and identity is not None
        if settings.cache and identity is None:
            warnings.warn(
                "embedding cache: this model has no revision or folder to identify it; caching in memory only",
                stacklevel=2,
            )
        self.cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        if on_disk:
            check_cache_dir(self.cache_dir)
        self._similarity_model = similarity_model if similarity_model is not None else getattr(core, "wrapper", None)
        self._cache = SharedEmbeddingCache(_Misses(self), self.cache_dir if on_disk else None)
        self.n_encoded = 0
        self._last_encoded = 0
        self._stats: dict[tuple[str, str, str], dict[str, Any]] = defaultdict(
            lambda: {"lengths": {}, "encoded": 0, "requested": 0}
        )
        self._meta = None
        self._progress: Any = None
        if meta is not None:
            self.mteb_model_meta = meta

    # -- identity -------------------------------------------------------------------------
    @property
    def model(self) -> Any:
        """The underlying sentence-transformers model (as on mteb's wrapper), if any."""
        return getattr(self.core, "st", None)

    @property
    def mteb_model_meta(self) -> Any:
        return self._meta

    @mteb_model_meta.setter
    def mteb_model_meta(self, meta: Any) -> None:
        """Store ``meta`` with the settings stamped in: revision ``<revision>+<tag>`` for
        non-default settings (:meth:`EncodingSettings.revision_tag`) and ``experiment_kwargs``
        holding exactly the non-default settings."""
        if meta is None:
            self._meta = None
            return
        tag = self.settings.revision_tag(self.model_max_seq_length)
        rev = meta.revision
        if tag and not (rev or "").endswith("+" + tag) and rev != tag:
            rev = f"{rev}+{tag}" if rev else tag
        exp = {k: v for k, v in (meta.experiment_kwargs or {}).items() if k not in KEYS}
        exp.update(self.settings.experiment_kwargs(self.model_max_seq_length))
        self._meta = meta.model_copy(update={"revision": rev, "experiment_kwargs": exp or None})

    def namespace(
        self, task_metadata: Any, prompt_type: Any, encode_kwargs: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Cache namespace (fingerprint, description) for this task's prompt and prompt type and the
        call's encode arguments (:func:`output_arguments`)."""
        prompt = self.core.prompt(task_metadata, prompt_type)
        route = None if self.core.symmetric else getattr(prompt_type, "value", prompt_type)
        ident = self.identity if self.identity is not None else {"object": id(self)}
        return cache_namespace(
            ident,
            self.settings.identity(self.model_max_seq_length),
            prompt,
            route,
            output_arguments(encode_kwargs or {}),
        )

    def _progress_bar(self, n: int, task: str | None, *, show: bool) -> Any:
        """A ``<task>: texts encoded`` bar over the ``n`` misses of one encode call (its total known before
        encoding starts, :func:`mteb_contrastive.data.progress.bar`: plain periodic lines when stderr is not a
        terminal); None when there is nothing to encode. Kept as ``_progress`` until the next one."""
        if n <= 0:
            return None
        desc = f"{task}: texts encoded" if task else "texts encoded"
        self._progress = bar(n, desc, unit="text", disable=not show)
        return self._progress

    def _cuts(self, texts: list[str]) -> list[list[bool]] | None:
        """Per text, where a window may start (the core's ``window_cuts``; None: at every token)."""
        cuts = getattr(self.core, "window_cuts", None)
        return cuts(texts) if cuts is not None else None

    # -- encoding -------------------------------------------------------------------------
    def encode(
        self, inputs: Any, *, task_metadata: Any, hf_split: str, hf_subset: str, prompt_type: Any = None, **kwargs: Any
    ) -> np.ndarray:
        """Embeddings (len(inputs.dataset), dim) float32; each distinct text encoded at most once.

        Args: as mteb's ``EncoderProtocol.encode`` (an mteb dataloader of ``{"text": ...}`` rows).

        Raises:
            EncodingSettingsError: in long-document mode, an encode argument that may change a vector
                (:func:`output_arguments`) other than ``normalize_embeddings``, which the window path
                cannot apply.
        """
        from datasets import Dataset

        if self.settings.long_document == "mean":
            unapplied = sorted(set(output_arguments(kwargs)) - LONG_DOCUMENT_ARGUMENTS)
            if unapplied:
                raise EncodingSettingsError(
                    f"encode argument(s) {', '.join(unapplied)}: long_document=mean encodes token windows itself "
                    "and cannot apply them; drop them or use long_document=off"
                )
        texts = [t for batch in inputs for t in batch["text"]]
        distinct = list(dict.fromkeys(texts))
        self._record(task_metadata.name, hf_split, hf_subset, distinct, len(texts), task_metadata, prompt_type)
        self._cache.use_namespace(*self.namespace(task_metadata, prompt_type, kwargs))
        # CachedEmbeddingWrapper only reads ``inputs.dataset`` and builds the misses' loader itself
        dl = SimpleNamespace(
            dataset=Dataset.from_dict({"id": [str(i) for i in range(len(distinct))], "text": distinct})
        )
        self._last_encoded = 0
        emb = np.asarray(
            self._cache.encode(
                dl,
                task_metadata=task_metadata,
                hf_split=hf_split,
                hf_subset=hf_subset,
                prompt_type=prompt_type,
                **kwargs,
            ),
            dtype=np.float32,
        )
        self._stats[(task_metadata.name, hf_split, hf_subset)]["encoded"] += self._last_encoded
        if len(distinct) == len(texts):
            return emb
        pos = {t: i for i, t in enumerate(distinct)}
        return emb[[pos[t] for t in texts]]

    def _record(
        self,
        task: str,
        split: str,
        subset: str,
        distinct: list[str],
        requested: int,
        task_metadata: Any,
        prompt_type: Any,
    ) -> None:
        st = self._stats[(task, split, subset)]
        st["requested"] += requested
        prompt = self.core.prompt(task_metadata, prompt_type)
        extra = len(self.core.token_ids([prompt])[0]) if prompt else 0
        new = [t for t in distinct if (text_key(t), extra) not in st["lengths"]]
        long_mode = self.settings.long_document == "mean"
        cuts = self._cuts(new) if long_mode and new else None
        counts = getattr(self.core, "token_counts", None)
        ns = counts(new) if counts is not None else [len(ids) for ids in self.core.token_ids(new)]
        for i, (t, n) in enumerate(zip(new, ns)):
            windows = (
                len(window_spans(n, self.window, self.stride, cuts[i] if cuts is not None else None))
                if long_mode
                else 1
            )
            st["lengths"][(text_key(t), extra)] = (n + int(self.core.n_special), windows)

    def encoding_scores(self, task: str, split: str, subset: str) -> dict[str, Any]:
        """Statistics and settings of one (task, split, subset), as flat score entries.

        Keys: ``encoding_n_texts`` (distinct texts encoded or read for it), ``encoding_tokens_mean``
        / ``encoding_tokens_max`` (tokens per text, special tokens included, prompt excluded),
        ``encoding_truncated_share`` (share of texts whose tokens (prompt included) exceed
        ``max_seq_length`` and were cut; 0 in long-document mode), ``encoding_over_limit_share``
        (the same share whatever the mode), ``encoding_windows_mean`` (windows per text as encoded:
        :func:`~mteb_contrastive.encoding.core.window_spans` of the text alone, the window path
        adds no prompt; 1 when truncating), ``encoding_texts_encoded`` (cache misses computed for it),
        ``encoding_cache_hits``, and the settings ``encoding_max_seq_length``,
        ``encoding_long_document``, ``encoding_stride`` (0 when off), ``encoding_precision``,
        ``encoding_backend``. Empty dict when nothing was encoded for it.
        """
        st = self._stats.get((task, split, subset))
        if not st or not st["lengths"]:
            return {}
        msl = int(self.core.max_seq_length)
        lens = np.asarray([n for n, _ in st["lengths"].values()], dtype=np.int64)
        windows = [w for _, w in st["lengths"].values()]
        extras = np.asarray([e for (_, e) in st["lengths"]], dtype=np.int64)
        over = (lens + extras) > msl
        long_mode = self.settings.long_document == "mean"
        n = len(lens)
        return {
            "encoding_n_texts": n,
            "encoding_tokens_mean": float(lens.mean()),
            "encoding_tokens_max": int(lens.max()),
            "encoding_truncated_share": 0.0 if long_mode else float(over.mean()),
            "encoding_over_limit_share": float(over.mean()),
            "encoding_windows_mean": float(np.mean(windows)),
            "encoding_texts_encoded": int(st["encoded"]),
            "encoding_cache_hits": int(max(n - st["encoded"], 0)),
            "encoding_max_seq_length": msl,
            "encoding_long_document": self.settings.long_document,
            "encoding_stride": int(self.stride) if long_mode else 0,
            "encoding_precision": self.settings.precision,
            "encoding_backend": self.settings.backend,
        }

    def reset_stats(self, task: str | None = None) -> None:
        """Forget the statistics (of one task, or all)."""
        for key in [k for k in self._stats if task is None or k[0] == task]:
            del self._stats[key]

    # -- similarity (delegated) -----------------------------------------------------------
    def similarity(self, embeddings1: Any, embeddings2: Any) -> Any:
        return self._similarity_model.similarity(embeddings1, embeddings2)

    def similarity_pairwise(self, embeddings1: Any, embeddings2: Any) -> Any:
        return self._similarity_model.similarity_pairwise(embeddings1, embeddings2)

    def close(self) -> None:
        self._cache.close()


def _position_limit(core: Any) -> int | None:
    """The model's position-embedding limit (``max_position_embeddings``), None if unknown."""
    st = getattr(core, "st", None)
    if st is None:
        return getattr(core, "position_limit", None)
    try:
        cfg = st[0].auto_model.config
        return int(cfg.max_position_embeddings)
    except Exception:
        return None
