"""Machine description printed at the top of every encoding benchmark (CPU, cores, BLAS kernels, load)."""

from __future__ import annotations

import os
import platform


def machine_lines() -> list[str]:
    """Markdown bullet lines: CPU model, cores, torch threads, bf16 support, BLAS/OpenMP pools, load average."""
    import torch

    from mteb_contrastive.encoding.loading import cpu_has_bf16, onnx_available

    cpu = platform.processor() or "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    lines = [
        f"- CPU: {cpu}; {os.cpu_count()} logical cores; torch {torch.__version__} with {torch.get_num_threads()} threads, "
        f"capability {torch.backends.cpu.get_cpu_capability()}; native bf16: {'yes' if cpu_has_bf16() else 'no'}; "
        f"ONNX backend installed: {'yes' if onnx_available() else 'no'}",
    ]
    try:
        from threadpoolctl import threadpool_info

        pools = sorted({f"{p.get('internal_api')} {p.get('version') or ''} ({p.get('num_threads')} threads, {p.get('architecture') or '-'})" for p in threadpool_info()})
        lines.append("- thread pools (threadpoolctl): " + "; ".join(pools))
    except Exception as exc:  # threadpoolctl missing
        lines.append(f"- thread pools: unavailable ({exc})")
    lines.append("- load average at start (1/5/15 min): " + " / ".join(f"{x:.1f}" for x in os.getloadavg()) + " (shared machine: figures taken under load)")
    return lines
