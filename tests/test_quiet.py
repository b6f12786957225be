"""`mteb-contrastive evaluate` keeps library DEBUG/INFO lines out of its output (not with --verbose)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mteb_contrastive.plugin import quiet

BIN = Path(sys.executable).parent


@pytest.fixture
def restore_loggers(monkeypatch):
    import tqdm.std

    monkeypatch.setattr(tqdm.std.tqdm, "__init__", tqdm.std.tqdm.__init__)  # quiet() also quiets the bars
    saved = {n: (logging.getLogger(n).level, list(logging.getLogger(n).filters)) for n in quiet.LIBRARY_LOGGERS}
    yield
    for n, (level, filters) in saved.items():
        lg = logging.getLogger(n)
        lg.setLevel(level)
        lg.filters[:] = filters


def test_quiet_libraries_drops_debug_and_info_even_after_a_library_resets_its_level(restore_loggers, caplog):
    caplog.set_level(logging.DEBUG)
    quiet.quiet_libraries()
    quiet.quiet_libraries()  # idempotent: one filter
    lg = logging.getLogger("bm25s")
    assert lg.filters.count(quiet._at_least_warning) == 1
    lg.setLevel(logging.DEBUG)  # what bm25s does when it is imported
    lg.debug("Building index from IDs objects")
    logging.getLogger("sentence_transformers").info("Load pretrained SentenceTransformer")
    lg.warning("a real problem")
    logging.getLogger("mteb_contrastive.x").info("ours")  # not a library: untouched
    got = [(r.name, r.getMessage()) for r in caplog.records]
    assert got == [("bm25s", "a real problem"), ("mteb_contrastive.x", "ours")]


def test_quiet_if_asked_reads_the_environment(restore_loggers, monkeypatch):
    monkeypatch.setenv(quiet.QUIET_ENV, "0")
    logging.getLogger("jieba").setLevel(logging.DEBUG)
    quiet.quiet_if_asked()
    assert logging.getLogger("jieba").level == logging.DEBUG
    monkeypatch.setenv(quiet.QUIET_ENV, "1")
    quiet.quiet_if_asked()
    assert logging.getLogger("jieba").level == logging.WARNING


def _mteb_run_bm25(tmp_path, quiet_env):
    """`mteb run` of mteb's BM25 on a tiny English retrieval task from a built author-triplet folder."""
    from synthetic_benchmarks import build_all

    folders = build_all(tmp_path / "synth")
    env = {
        **os.environ,
        "MTEB_CONTRASTIVE_DATASETS": str(folders["datasets"]),
        "HF_HUB_OFFLINE": "1",
        "MTEB_CONTRASTIVE_SHARED": str(tmp_path / "none"),
        "MTEB_CONTRASTIVE_CACHE": str(tmp_path / "cache"),
    }
    env.pop(quiet.QUIET_ENV, None)
    if quiet_env:
        env[quiet.QUIET_ENV] = "1"
    cmd = [
        str(BIN / "mteb"),
        "run",
        "-m",
        "mteb/baseline-bm25s",
        "-t",
        "SynthAuthorsAuthorRetrieval",
        "--output-folder",
        str(tmp_path / "res"),
        "-v",
        "1",
    ]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)


def test_mteb_run_under_evaluate_prints_no_bm25s_debug_lines(tmp_path):
    loud = _mteb_run_bm25(tmp_path / "loud", quiet_env=False)
    assert loud.returncode == 0, loud.stderr[-2000:]
    assert "Building index from IDs" in loud.stdout + loud.stderr  # what bm25s prints by itself
    calm = _mteb_run_bm25(tmp_path / "calm", quiet_env=True)
    assert calm.returncode == 0, calm.stderr[-2000:]
    assert "Building index from IDs" not in calm.stdout + calm.stderr
    assert "DEBUG" not in calm.stdout + calm.stderr
    assert "Evaluating task SynthAuthorsAuthorRetrieval" in calm.stderr  # the progress bar stays
    # bm25s' own bars (issue 20: 33 nested "Split strings" / "Stem Tokens" pairs in one `make run`)
    assert "Split strings" in loud.stderr and "Stem Tokens" in loud.stderr
    assert "Split strings" not in calm.stderr and "Stem Tokens" not in calm.stderr and "BM25S" not in calm.stderr


def test_evaluate_environment_turns_datasets_bars_off_in_this_process(monkeypatch, tmp_path, capsys):
    import datasets

    datasets.enable_progress_bars()  # whatever the test environment set
    assert (
        datasets.is_progress_bar_enabled()
    )  # datasets read the variable at import: setting it later does nothing by itself
    monkeypatch.setenv("HF_DATASETS_DISABLE_PROGRESS_BARS", "0")
    try:
        quiet.apply_environment({"HF_DATASETS_DISABLE_PROGRESS_BARS": "1"})
        assert not datasets.is_progress_bar_enabled() and os.environ["HF_DATASETS_DISABLE_PROGRESS_BARS"] == "1"
        datasets.Dataset.from_dict({"a": [1, 2]}).to_parquet(str(tmp_path / "x.parquet"))
        assert "Creating parquet" not in capsys.readouterr().err
    finally:
        datasets.enable_progress_bars()


def _bar_from(module: str):
    """A tqdm bar opened by code of ``module`` that asks for it explicitly (as bm25s does)."""
    namespace = {"__name__": module}
    exec("from tqdm.auto import tqdm\ndef open_bar():\n    return tqdm(range(3), desc='x', disable=False)", namespace)
    return namespace["open_bar"]()


def test_quiet_progress_bars_keeps_the_phase_bars_only(monkeypatch):
    import tqdm.std

    monkeypatch.setattr(tqdm.std.tqdm, "__init__", tqdm.std.tqdm.__init__)  # restored after the test
    assert not _bar_from("bm25s.tokenization").disable  # before: a library's bar shows
    assert quiet.quiet_progress_bars() and not quiet.quiet_progress_bars()  # idempotent
    for module, disabled in [
        ("bm25s.tokenization", True),  # "Split strings", "Stem Tokens", although bm25s passes disable=False
        ("transformers.utils.logging", True),  # "Loading weights"
        ("mteb.evaluate", False),  # "Evaluating task <name>": the tasks phase
        ("mteb_contrastive.encoding.wrapper", False),  # "texts encoded"
        ("mteb_contrastive_hook", True),  # a prefix is not a package
    ]:
        bar = _bar_from(module)
        assert bar.disable is disabled, module
        bar.close()
