"""Machine description printed at the top of every encoding benchmark (CPU, cores, BLAS kernels, load)."""

from __future__ import annotations

import os
import platform


def cpu_model() -> str:
    """The CPU's ``model name`` from ``/proc/cpuinfo`` (``platform.processor()`` elsewhere)."""
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "?"


def machine_lines() -> list[str]:
    """Markdown bullet lines: CPU model, cores, torch threads, bf16 support, BLAS/OpenMP pools, the cores
    this process is pinned to and the thread environment variables, load average."""
    import torch

    from mteb_contrastive.encoding.loading import backend_available, cpu_has_bf16

    cpu = cpu_model()
    lines = [
        f"- CPU: {cpu}; {os.cpu_count()} logical cores; "
        f"torch {torch.__version__} with {torch.get_num_threads()} threads, "
        f"capability {torch.backends.cpu.get_cpu_capability()}; native bf16: {'yes' if cpu_has_bf16() else 'no'}; "
        f"ONNX backend installed: {'yes' if backend_available('onnx') else 'no'}; "
        f"OpenVINO backend installed: {'yes' if backend_available('openvino') else 'no'}",
    ]
    try:
        from threadpoolctl import threadpool_info

        pools = sorted(
            {
                f"{p.get('internal_api')} {p.get('version') or ''} "
                f"({p.get('num_threads')} threads, {p.get('architecture') or '-'})"
                for p in threadpool_info()
            }
        )
        lines.append("- thread pools (threadpoolctl): " + "; ".join(pools))
    except Exception as exc:  # threadpoolctl missing
        lines.append(f"- thread pools: unavailable ({exc})")
    from importlib.metadata import PackageNotFoundError, version

    def v(pkg: str) -> str:
        try:
            return version(pkg)
        except PackageNotFoundError:
            return "-"

    lines.append(
        "- versions: "
        + ", ".join(
            f"{p} {v(p)}"
            for p in (
                "mteb",
                "sentence-transformers",
                "transformers",
                "onnxruntime",
                "optimum",
                "optimum-onnx",
                "openvino",
                "optimum-intel",
                "nncf",
                "faiss-cpu",
                "numpy",
            )
        )
    )
    try:
        cores = sorted(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = []
    env = ", ".join(
        f"{k}={os.environ.get(k, '(unset)')}" for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
    )
    lines.append(f"- this process may run on CPU core(s) {cores} (taskset); {env}")
    lines.append("- load average at start (1/5/15 min): " + " / ".join(f"{x:.1f}" for x in os.getloadavg()))
    return lines
