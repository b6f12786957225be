"""How the results were computed: device, machine, library versions and wall time of each run.

``mteb-contrastive evaluate`` records one entry per ``mteb run`` in ``<out>/run_info.json``
(:func:`record_run`, written atomically); the report (:mod:`.write`) shows them beside the wall time
mteb stores per task (``evaluation_time`` of each result file). A (model, task) cached from an
earlier call keeps the entry of the run that computed it.
"""

from __future__ import annotations

import importlib.metadata
import json
import logging
import os
import platform
import sys
from pathlib import Path
from typing import Any

from mteb_contrastive.data.atomic import write_text_atomic

logger = logging.getLogger(__name__)

#: the file beside ``results/`` in an ``evaluate`` output folder
RUN_INFO = "run_info.json"

#: the libraries whose versions are recorded (distribution names)
LIBRARIES = (
    "mteb-contrastive",
    "mteb",
    "torch",
    "sentence-transformers",
    "transformers",
    "scikit-learn",
    "numpy",
    "scipy",
    "faiss-cpu",
    "bm25s",
    "pytrec-eval-terrier",
)


def libraries() -> dict[str, str]:
    """Installed version of each of :data:`LIBRARIES` (absent ones left out)."""
    out = {}
    for name in LIBRARIES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return out


#: files through which torch can reach a GPU on Linux: the NVIDIA driver, WSL's GPU bridge, AMD's ROCm
#: (a HIP build of torch answers ``torch.cuda``); with none of them ``torch.cuda.is_available()`` is False
GPU_DEVICE_FILES = ("/proc/driver/nvidia", "/dev/nvidiactl", "/dev/dxg", "/dev/kfd")


def gpu_possible() -> bool:
    """Whether torch could see a GPU here: False on Linux without any of :data:`GPU_DEVICE_FILES` and on
    macOS (no CUDA), True elsewhere (ask torch). Where it is False, :func:`resolve_device` answers
    without importing torch (2-3 s of a cold ``evaluate``)."""
    if sys.platform.startswith("linux"):
        return any(Path(p).exists() for p in GPU_DEVICE_FILES)
    return sys.platform != "darwin"


def resolve_device(device: str | None) -> dict[str, Any]:
    """The device a ``mteb run`` uses: ``cpu``, or ``cuda:N`` for ``cuda`` / ``cuda:N`` / ``N``; unset:
    mteb's default (``cuda`` when torch sees a GPU, else ``cpu``, ``mteb/cli/build_cli.py``); with
    the GPU's name. torch is imported only where a GPU is possible (:func:`gpu_possible`)."""
    d = (device or "").strip().lower()
    cuda = False
    if d != "cpu" and gpu_possible():
        import torch

        cuda = torch.cuda.is_available()
    if d == "cpu" or (not d and not cuda):
        used = "cpu"
    else:
        index = d.removeprefix("cuda").lstrip(":") if d else ""
        used = f"cuda:{int(index) if index.isdigit() else (torch.cuda.current_device() if cuda else 0)}"
    out: dict[str, Any] = {"requested": device, "used": used}
    if used.startswith("cuda") and cuda:
        out["gpu"] = torch.cuda.get_device_name(torch.device(used))
    return out


def machine() -> dict[str, Any]:
    """The machine: platform, processor, CPU count, Python version."""
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
    }


def read_run_info(path: Path) -> dict[str, Any] | None:
    """``{"runs": [...]}`` from ``path``; None when absent or unreadable (logged)."""
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        logger.warning("%s: unreadable (%s); the report says nothing of how the results were run", path, exc)
        return None
    return data if isinstance(data, dict) and isinstance(data.get("runs"), list) else None


def record_run(path: Path, entry: dict[str, Any]) -> None:
    """Add one run's entry to ``path`` (created when absent); the entries of earlier runs of the
    same (model, task) stay, marked by their date."""
    data = read_run_info(path) or {"runs": []}
    data["runs"].append(entry)
    write_text_atomic(path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")


def task_runs(run_info: dict[str, Any] | None) -> dict[tuple[str, str], int]:
    """(model, task) -> index in ``run_info["runs"]`` of the latest run that computed it."""
    out: dict[tuple[str, str], int] = {}
    for i, run in enumerate((run_info or {}).get("runs", [])):
        for t in run.get("tasks", []):
            out[(run.get("model"), t)] = i
    return out
