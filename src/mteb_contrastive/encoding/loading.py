"""Applying encoding settings where models are created: mteb model metas and loaders.

:func:`apply_to_meta` is called by our ``get_model_meta`` hook (:mod:`mteb_contrastive.plugin.registration`)
for every model name, with the options of a ``<model>::k=v,...`` suffix. For a
sentence-transformers model (mteb loader ``SentenceTransformerEncoderWrapper``, the deprecated
``sentence_transformers_loader``, or our local-folder loader) it returns a copy of the meta whose
loader

* takes the encoding options also as keyword arguments (``mteb.get_model(name, max_seq_length=512)``),
* loads the model with the backend (``backend="onnx"``) and precision (``bf16``: weights cast to
  ``torch.bfloat16``; ``int8``: :func:`quantize_int8`), and
* wraps it in :class:`~mteb_contrastive.encoding.wrapper.EncodingModel` (cache, statistics).

Other models (baselines, rerankers, API models) are returned unchanged; options given for them
raise :class:`~mteb_contrastive.encoding.settings.EncodingSettingsError`.
"""

from __future__ import annotations

import importlib.util
import logging
import warnings
from pathlib import Path
from typing import Any

from mteb_contrastive.encoding.core import SentenceTransformerCore
from mteb_contrastive.encoding.settings import EncodingSettings, EncodingSettingsError, pop_options, settings_from
from mteb_contrastive.encoding.wrapper import EncodingModel, folder_identity

logger = logging.getLogger(__name__)


def cpu_has_bf16() -> bool:
    """True when the CPU has native bfloat16 instructions (``avx512_bf16`` or ``amx_bf16`` in
    ``/proc/cpuinfo``, else torch's oneDNN check)."""
    try:
        flags = Path("/proc/cpuinfo").read_text().split()
        if "avx512_bf16" in flags or "amx_bf16" in flags:
            return True
    except OSError:
        pass
    try:
        import torch

        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except Exception:
        return False


#: per non-torch backend of sentence-transformers: the modules its loader imports (``backend/load.py``:
#: ``load_onnx_model`` / ``load_openvino_model``) and the pip extra that installs them. The encoding
#: option ``backend`` offers ``onnx`` (:data:`~mteb_contrastive.encoding.settings.BACKENDS`);
#: ``openvino`` is measured by ``scripts/bench_encoding.py backends`` only (no gain on the benchmark
#: CPU: ``docs/benchmarks-encoding.md``, benchmark 4)
BACKEND_REQUIREMENTS: dict[str, tuple[tuple[str, ...], str]] = {
    "onnx": (("onnxruntime", "optimum.onnxruntime"), "sentence-transformers[onnx]"),
    "openvino": (("openvino", "optimum.intel"), "sentence-transformers[openvino]"),
}


def _module_installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # a parent package (e.g. ``optimum`` of ``optimum.intel``) is missing
        return False


def backend_available(backend: str) -> bool:
    """True when sentence-transformers can load ``backend`` here (``torch``: always; ``onnx``:
    ``onnxruntime`` and ``optimum.onnxruntime``; ``openvino``: ``openvino`` and ``optimum.intel``)."""
    modules, _ = BACKEND_REQUIREMENTS.get(backend, ((), ""))
    return all(_module_installed(m) for m in modules)


def is_sentence_transformers_loader(loader: Any) -> bool:
    """Whether an mteb ``ModelMeta.loader`` builds a ``SentenceTransformerEncoderWrapper`` (mteb's own
    loaders; a local folder's loader is recognised by :func:`apply_to_meta`'s ``folder`` argument)."""
    from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper, sentence_transformers_loader

    return loader is SentenceTransformerEncoderWrapper or loader is sentence_transformers_loader


def _check_backend(settings: EncodingSettings) -> None:
    if not backend_available(settings.backend):
        modules, extra = BACKEND_REQUIREMENTS[settings.backend]
        raise EncodingSettingsError(
            f"encoding option backend={settings.backend}: {' and '.join(modules)} are not installed "
            f"(pip install '{extra}' in a separate environment: it may pin other transformers versions)"
        )
    if settings.precision == "bf16" and not cpu_has_bf16():
        warnings.warn(
            "precision=bf16: this CPU has no bfloat16 instructions (no avx512_bf16/amx_bf16); "
            "bf16 runs emulated and is usually slower than fp32 here",
            stacklevel=3,
        )


def quantize_int8(model: Any) -> Any:
    """Dynamically quantise every ``torch.nn.Linear`` of ``model`` to int8, in place; returns ``model``.

    Weights are stored as int8 with one scale per output channel
    (``torch.ao.quantization.per_channel_dynamic_qconfig``); activations are quantised per batch
    at run time (dynamic quantisation, PyTorch's ``quantize_dynamic``; kernels: fbgemm/x86 on
    AVX2/AVX-512 CPUs). Embeddings, layer norms and attention products stay float32, so the
    output is float32. Per-channel weights: on all-MiniLM-L6-v2 the mean cosine between fp32 and
    int8 embeddings of 300 TALN abstracts is 0.976 (``docs/benchmarks-encoding.md``, benchmark 4);
    per-tensor weights lost more (0.93 in a one-off check, not in the benchmark). CPU only: quantised Linear layers do
    not run on CUDA.
    """
    import torch
    from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.ao's deprecation notice (eager-mode quantisation moves to torchao)
        quantize_dynamic(model, {torch.nn.Linear: per_channel_dynamic_qconfig}, dtype=torch.qint8, inplace=True)
    return model


def wrap_sentence_transformer(
    inner: Any,
    settings: EncodingSettings,
    *,
    identity: dict[str, Any] | None,
    meta: Any = None,
    cache_dir: str | Path | None = None,
) -> Any:
    """Wrap a loaded mteb ``SentenceTransformerEncoderWrapper`` in an ``EncodingModel``.

    Applies ``precision`` (``bf16``: ``model.to(torch.bfloat16)``; ``int8``: :func:`quantize_int8`,
    CPU only); the backend must already be
    the one the model was loaded with.
    """
    if settings.precision == "bf16":
        import torch

        inner.model.to(torch.bfloat16)
    elif settings.precision == "int8":
        inner.model.to("cpu")
        quantize_int8(inner.model)
    core = SentenceTransformerCore(inner)
    return EncodingModel(
        core,
        settings,
        identity=identity,
        meta=meta if meta is not None else getattr(inner, "mteb_model_meta", None),
        cache_dir=cache_dir,
    )


def _identity(name: str, revision: str | None, folder: Path | None, backend: str) -> dict[str, Any] | None:
    if folder is not None:
        return folder_identity(folder, backend)
    if revision:
        return {"name": name, "revision": revision, "backend_files": backend}
    return None


def make_loader(original: Any, base_options: dict[str, Any], base_revision: str | None, folder: Path | None) -> Any:
    """A meta loader: options from the name suffix, overridden by keyword arguments; see the module docstring."""

    def loader(model_name: str, revision: str | None = None, **kwargs: Any) -> Any:
        from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper

        opts = {**base_options, **pop_options(kwargs)}
        settings = settings_from(opts, where=f"model {model_name!r}")
        _check_backend(settings)
        if settings.backend != "torch":
            kwargs["backend"] = settings.backend
        inner = original(model_name, revision=base_revision, **kwargs)
        if not isinstance(inner, SentenceTransformerEncoderWrapper):
            return inner
        return wrap_sentence_transformer(
            inner, settings, identity=_identity(model_name, base_revision, folder, settings.backend)
        )

    loader._encoding_wrapped = True  # type: ignore[attr-defined]
    return loader


def apply_to_meta(meta: Any, options: dict[str, Any], folder: str | Path | None = None) -> Any:
    """The meta with an encoding-aware loader and, for non-default options, the stamped revision.

    ``folder``: the local sentence-transformers folder the meta was made from
    (:func:`mteb_contrastive.models.local.local_model_meta`); its loader is then wrapped too.

    Raises:
        EncodingSettingsError: options given for a model that is not a sentence-transformers model,
            or a bad option.
    """
    loader = meta.loader
    if getattr(loader, "_encoding_wrapped", False):
        return meta
    if folder is None and not is_sentence_transformers_loader(loader):
        if options:
            raise EncodingSettingsError(
                f"model {meta.name!r}: encoding options ({', '.join(options)}) "
                "apply to sentence-transformers models only"
            )
        return meta
    settings = settings_from(options, where=f"model {meta.name!r}")
    folder_path = Path(folder).expanduser().resolve() if folder is not None else None
    new_loader = make_loader(loader, options, meta.revision, folder_path)
    update: dict[str, Any] = {"loader": new_loader}
    model_msl = int(meta.max_tokens) if meta.max_tokens else None
    tag = settings.revision_tag(model_msl)
    if tag:
        update["revision"] = f"{meta.revision}+{tag}" if meta.revision else tag
        update["experiment_kwargs"] = {**(meta.experiment_kwargs or {}), **settings.experiment_kwargs(model_msl)}
    return meta.model_copy(update=update)


def load_encoder(name: str, *, revision: str | None = None, device: str | None = None, **options: Any) -> Any:
    """``mteb.get_model`` with encoding options, e.g. ``load_encoder(path, max_seq_length=512, long_document="mean")``.

    Equivalent to ``mteb.get_model(name, revision, device, **options)``; the options are the keys of
    :mod:`mteb_contrastive.encoding.settings`. Importing this module imported the package, whose
    start-up hook registers the extension when mteb is imported.
    """
    import mteb

    return mteb.get_model(name, revision, device=device, **options)
