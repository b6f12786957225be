"""Install the lowest version of every direct dependency that ``pyproject.toml`` admits, then run the fast tests.

Usage: ``python scripts/check_lowest_deps.py [--keep DIR] [--tests FILE ...]``

It makes a throwaway virtual environment, installs ``uv`` into it and runs
``uv pip install --resolution lowest-direct torch==2.13.0 -e '.[test,model]'`` (direct dependencies at their floors,
everything they pull in at its newest allowed version; torch pinned in the same command because the CPU wheel of
2.13.0 is the one this machine has), prints the versions it installed beside the floors, then runs the fast tests
(``FAST_TESTS``) with that environment's Python. Output: a markdown block to paste into ``docs/dependencies.md``;
exit status 0 when the install and the tests pass, 1 otherwise. Slow (minutes: downloads and a test run).
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parents[1]

#: test files that import every layer (compat, plugin, training, encoding, search, report) without a long run
FAST_TESTS = [
    "tests/test_compat.py",
    "tests/test_hook.py",
    "tests/test_architecture.py",
    "tests/test_training.py",
    "tests/test_encoding_cache.py",
    "tests/test_faiss_backend.py",
    "tests/test_search_backend.py",
    "tests/test_baselines.py",
    "tests/test_calibration.py",
    "tests/test_pan_metrics.py",
    "tests/test_ranking_metrics.py",
    "tests/test_report.py",
]

TORCH = "torch==2.13.0"


def floors(pyproject: Path = REPO / "pyproject.toml") -> dict[str, str | None]:
    """Direct dependency name (normalised: lower case, ``-``) -> its ``>=`` floor (``==`` pin), or None when it has
    none; the dependencies and the ``test`` and ``model`` extras (those installed here)."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    extras = project.get("optional-dependencies", {})
    deps = [*project["dependencies"], *extras.get("test", []), *extras.get("model", [])]
    out: dict[str, str | None] = {}
    for spec in deps:
        name = re.split(r"[\s<>=!~;\[]", spec, maxsplit=1)[0]
        m = re.search(r"(?:>=|==)\s*([0-9][^,;\s]*)", spec)
        out[re.sub(r"[-_.]+", "-", name).lower()] = m.group(1) if m else None
    return out


def installed(python: Path) -> dict[str, str]:
    """Normalised name -> version installed in the environment of ``python``."""
    code = (
        "import importlib.metadata as m, json;"
        "print(json.dumps({d.metadata['Name']: d.version for d in m.distributions()}))"
    )
    import json

    raw = json.loads(subprocess.run([str(python), "-c", code], check=True, capture_output=True, text=True).stdout)
    return {re.sub(r"[-_.]+", "-", k).lower(): v for k, v in raw.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", type=Path, help="make the environment here and keep it (default: a temporary folder)")
    ap.add_argument("--tests", nargs="+", default=FAST_TESTS, help="test files to run (default: the fast tests)")
    ap.add_argument(
        "--shared", type=Path, default=REPO.parent / "shared", help="the shared data folder (default: beside the repo)"
    )
    args = ap.parse_args(argv)
    tmp = None
    if args.keep:
        venv = args.keep
    else:
        tmp = tempfile.TemporaryDirectory(prefix="lowest-deps-")
        venv = Path(tmp.name) / "venv"
    # a copy of the working tree (edits made while this runs do not reach the tests), the shared data beside it
    root = Path(tempfile.mkdtemp(prefix="lowest-deps-src-"))
    src = root / "repo"
    shutil.copytree(REPO, src, ignore=shutil.ignore_patterns(".git", ".venv", "build", "__pycache__", "*.egg-info"))
    if args.shared.is_dir():
        (root / "shared").symlink_to(args.shared.resolve())
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "uv"], check=True)
    cmd = [str(venv / "bin" / "uv"), "pip", "install", "--python", str(py), "--resolution", "lowest-direct"]
    if Path("/opt/wheels").is_dir():  # this machine's local wheels (the CPU torch)
        cmd += ["--find-links", "/opt/wheels"]
    torch = TORCH
    local = sorted(Path("/opt/wheels").glob("torch-2.13.0+cpu-*.whl")) if Path("/opt/wheels").is_dir() else []
    if local:
        torch = f"torch @ {local[0].as_uri()}"
    cmd += [torch, "-e", f"{src}[test,model]"]
    print("$", " ".join(cmd), flush=True)
    inst = subprocess.run(cmd, capture_output=True, text=True)
    ok = inst.returncode == 0
    lines = [f"Ran {datetime.date.today().isoformat()} with Python {sys.version.split()[0]}: `{' '.join(cmd[3:])}`", ""]
    if not ok:
        lines += ["Install FAILED:", "", "```", inst.stderr.strip()[-3000:], "```"]
    else:
        have = installed(py)
        lines += ["| dependency | floor in pyproject.toml | installed (lowest-direct) |", "|---|---|---|"]
        for name, floor in floors().items():
            lines.append(f"| {name} | {floor or '(none)'} | {have.get(name, 'MISSING')} |")
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        env["HF_HUB_OFFLINE"] = "1"
        env["PATH"] = f"{venv / 'bin'}:{env.get('PATH', '')}"
        test = subprocess.run(
            [str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider", *args.tests],
            cwd=src,
            env=env,
            capture_output=True,
            text=True,
        )
        ok = test.returncode == 0
        tail = [ln for ln in (test.stdout + test.stderr).strip().splitlines() if ln.strip()][-25:]
        lines += ["", f"Fast tests ({len(args.tests)} files): {'passed' if ok else 'FAILED'}", "", "```", *tail, "```"]
    print("\n".join(lines))
    shutil.rmtree(root, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
