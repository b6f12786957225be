"""Encoding settings: one value object, one parser for the three ways they arrive.

A setting reaches a model in exactly one of these forms (all three give the same
:class:`EncodingSettings`):

* **Model-name suffix** (the only way through the stock ``mteb run``, which has no model-kwargs
  option): ``<model>::key=value,key=value``, e.g.
  ``mteb run -m 'sentence-transformers/all-MiniLM-L6-v2::max_seq_length=512,long_document=mean,stride=256'``.
  Parsed by our ``get_model_meta`` hook (:mod:`mteb_contrastive.plugin.registration`).
* **Python keyword arguments**: ``mteb.get_model(name, max_seq_length=512, precision="bf16")``,
  or :func:`mteb_contrastive.encoding.load_encoder`.
* **Environment** (the cache only): ``MTEB_CONTRASTIVE_EMBEDDING_CACHE=off`` turns the disk cache
  off, ``MTEB_CONTRASTIVE_EMBEDDING_CACHE_DIR`` moves it.

Keys (all optional):

=================  ======================================  =========================================
key                values                                  effect
=================  ======================================  =========================================
max_seq_length     int >= 8                                token limit of one forward pass (the
                                                           model's own limit when unset)
long_document      ``off`` (default) | ``mean``             ``mean``: a text longer than the limit is
                                                           embedded as the mean of its windows
stride             int >= 1 (default: the window size)     tokens between window starts
precision          ``fp32`` (default) | ``bf16`` | ``int8``  weights and activations dtype (CPU);
                                                           ``int8``: torch dynamic quantisation of
                                                           every Linear layer (torch backend only)
backend            ``torch`` (default) | ``onnx``           sentence-transformers backend
cache              ``on`` (default) | ``off``               the shared disk cache of embeddings
=================  ======================================  =========================================

Every setting but ``cache`` changes the embeddings, so it is part of the model's identity: it is
in the cache key and, when it differs from the default, in the model revision recorded in the
result (:meth:`EncodingSettings.revision_tag`).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from mteb_contrastive.data.errors import InputError

SUFFIX_SEP = "::"
KEYS = ("max_seq_length", "long_document", "stride", "precision", "backend", "cache")
PRECISIONS = ("fp32", "bf16", "int8")
BACKENDS = ("torch", "onnx")
LONG_MODES = ("off", "mean")
_ALIASES = {"float32": "fp32", "bfloat16": "bf16", "true": "on", "false": "off", "1": "on", "0": "off", "none": "off"}

CACHE_ENV = "MTEB_CONTRASTIVE_EMBEDDING_CACHE"
CACHE_DIR_ENV = "MTEB_CONTRASTIVE_EMBEDDING_CACHE_DIR"


class EncodingSettingsError(InputError):
    """A bad encoding option; the message names the option, the value and the accepted values."""


@dataclass(frozen=True)
class EncodingSettings:
    """How a text becomes a vector, beyond the model weights.

    Attributes:
        max_seq_length: tokens per forward pass, special tokens included; None = the model's own.
        long_document: ``"off"`` (truncate: the model keeps its first ``max_seq_length`` tokens)
            or ``"mean"`` (mean of window embeddings, see :mod:`mteb_contrastive.encoding.core`).
        stride: tokens between consecutive window starts (``"mean"`` only); None = window size
            (windows do not overlap).
        precision: ``"fp32"``, ``"bf16"`` or ``"int8"`` (torch dynamic quantisation, torch backend only).
        backend: ``"torch"`` or ``"onnx"``.
        cache: use the shared disk cache.
    """

    max_seq_length: int | None = None
    long_document: str = "off"
    stride: int | None = None
    precision: str = "fp32"
    backend: str = "torch"
    cache: bool = True

    def __post_init__(self) -> None:
        if self.max_seq_length is not None and (not isinstance(self.max_seq_length, int) or self.max_seq_length < 8):
            raise EncodingSettingsError(f"encoding option max_seq_length={self.max_seq_length!r}: give an integer >= 8")
        if self.long_document not in LONG_MODES:
            raise EncodingSettingsError(
                f"encoding option long_document={self.long_document!r}: choose one of {', '.join(LONG_MODES)}"
            )
        if self.stride is not None and (not isinstance(self.stride, int) or self.stride < 1):
            raise EncodingSettingsError(f"encoding option stride={self.stride!r}: give an integer >= 1")
        if self.stride is not None and self.long_document == "off":
            raise EncodingSettingsError(
                "encoding option stride is only used with long_document=mean: add long_document=mean or drop stride"
            )
        if self.precision not in PRECISIONS:
            raise EncodingSettingsError(
                f"encoding option precision={self.precision!r}: choose one of {', '.join(PRECISIONS)}"
            )
        if self.backend not in BACKENDS:
            raise EncodingSettingsError(
                f"encoding option backend={self.backend!r}: choose one of {', '.join(BACKENDS)}"
            )
        if self.precision == "int8" and self.backend != "torch":
            raise EncodingSettingsError(
                "encoding option precision=int8 is torch dynamic quantisation: use it with backend=torch "
                "(for an int8 ONNX model, export it with sentence-transformers' "
                "export_dynamic_quantized_onnx_model and load that folder)"
            )

    def identity(self, model_max_seq_length: int | None) -> dict[str, Any]:
        """The settings that change embeddings, with the effective sequence length filled in."""
        return {
            "max_seq_length": self.max_seq_length or model_max_seq_length,
            "long_document": self.long_document,
            "stride": self.stride if self.long_document != "off" else None,
            "precision": self.precision,
            "backend": self.backend,
        }

    def revision_tag(self, model_max_seq_length: int | None = None) -> str:
        """Short tag of the non-default settings (``""`` when all are default).

        ``max_seq_length`` equal to the model's own limit is the default (same embeddings).
        Examples: ``msl512``, ``msl512-long-s128-bf16-onnx``.
        """
        parts = []
        if self.max_seq_length is not None and self.max_seq_length != model_max_seq_length:
            parts.append(f"msl{self.max_seq_length}")
        if self.long_document != "off":
            parts.append("long" + (f"-s{self.stride}" if self.stride else ""))
        if self.precision != "fp32":
            parts.append(self.precision)
        if self.backend != "torch":
            parts.append(self.backend)
        return "-".join(parts)

    def experiment_kwargs(self, model_max_seq_length: int | None = None) -> dict[str, Any]:
        """The non-default embedding-changing settings, as mteb ``experiment_kwargs``."""
        out = {}
        defaults = EncodingSettings()
        for k, v in asdict(self).items():
            if k == "cache" or v == getattr(defaults, k):
                continue
            if k == "max_seq_length" and v == model_max_seq_length:
                continue
            out[k] = v
        return out

    def merged(self, **overrides: Any) -> EncodingSettings:
        """A copy with ``overrides`` (already parsed values) applied."""
        return replace(self, **overrides)


def _coerce(key: str, value: Any, where: str) -> Any:
    if key not in KEYS:
        raise EncodingSettingsError(f"{where}: unknown encoding option {key!r}; known options: {', '.join(KEYS)}")
    if isinstance(value, str):
        v = _ALIASES.get(value.strip().lower(), value.strip().lower())
    else:
        v = value
    if key in ("max_seq_length", "stride"):
        if v is None or v == "":
            return None
        try:
            iv = int(v)
        except (TypeError, ValueError):
            raise EncodingSettingsError(f"{where}: encoding option {key}={value!r}: give an integer") from None
        if isinstance(v, float) and v != iv:
            raise EncodingSettingsError(f"{where}: encoding option {key}={value!r}: give an integer")
        return iv
    if key == "cache":
        if isinstance(v, bool):
            return v
        if v not in ("on", "off"):
            raise EncodingSettingsError(f"{where}: encoding option cache={value!r}: choose on or off")
        return v == "on"
    if key == "long_document" and v is True:
        return "mean"
    if key == "long_document" and v is False:
        return "off"
    return v


def split_model_name(name: str) -> tuple[str, dict[str, Any]]:
    """Split ``<model>::k=v,k=v`` into the model name and the raw options.

    Raises:
        EncodingSettingsError: an option is not ``key=value`` or the key is unknown.
    """
    if SUFFIX_SEP not in str(name):
        return str(name), {}
    base, _, suffix = str(name).partition(SUFFIX_SEP)
    opts: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in suffix.split(","))):
        key, eq, value = part.partition("=")
        if not eq:
            raise EncodingSettingsError(
                f"model name {name!r}: option {part!r} is not key=value (e.g. max_seq_length=512)"
            )
        opts[key.strip()] = _coerce(key.strip(), value, f"model name {name!r}")
    return base, opts


def settings_from(
    options: dict[str, Any] | None = None, *, where: str = "encoding options", env: dict[str, str] | None = None
) -> EncodingSettings:
    """Settings from options (name suffix or keyword arguments); the cache default comes from the env.

    Raises:
        EncodingSettingsError: an unknown option or a bad value (the message names it).
    """
    env = os.environ if env is None else env
    values = {k: _coerce(k, v, where) for k, v in (options or {}).items()}
    if "cache" not in values:
        values["cache"] = _coerce("cache", env.get(CACHE_ENV, "on") or "on", f"environment variable {CACHE_ENV}")
    return EncodingSettings(**values)


def pop_options(kwargs: dict[str, Any]) -> dict[str, Any]:
    """Remove and return the encoding options from a loader's keyword arguments."""
    return {k: kwargs.pop(k) for k in KEYS if k in kwargs}


def check_cache_dir(folder: Path, env: dict[str, str] | None = None) -> Path:
    """``folder`` when it is a folder or can be made one (no part of it is a file).

    Raises:
        EncodingSettingsError: ``folder`` or one of its parents is a file (one line naming
            ``MTEB_CONTRASTIVE_EMBEDDING_CACHE_DIR`` when the folder came from it, and the fix).
    """
    env = os.environ if env is None else env
    blocker = next((p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()), None)
    if blocker is None:
        return folder
    given = env.get(CACHE_DIR_ENV)
    where = f"{CACHE_DIR_ENV}={given}" if given and Path(given).expanduser() == folder else f"embedding cache {folder}"
    raise EncodingSettingsError(
        f"{where}: {blocker} is a file, not a folder; name a folder for the embedding cache "
        f"(or unset {CACHE_DIR_ENV} for the default, ~/.cache/mteb_contrastive/embeddings)"
    )


def default_cache_dir(env: dict[str, str] | None = None) -> Path:
    """``$MTEB_CONTRASTIVE_EMBEDDING_CACHE_DIR``, else ``$XDG_CACHE_HOME/mteb_contrastive/embeddings``
    (``~/.cache/mteb_contrastive/embeddings``)."""
    env = os.environ if env is None else env
    if env.get(CACHE_DIR_ENV):
        return Path(env[CACHE_DIR_ENV]).expanduser()
    base = Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "mteb_contrastive" / "embeddings"
