"""``mteb run`` processes forked from the process started ahead (mteb_contrastive.cli.prestart): each run is the
run a fresh ``mteb run`` gives, also for a folder built after the process started, and ends as one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from synthetic_benchmarks import author_docs

MTEB = str(Path(sys.executable).with_name("mteb"))
MODEL = "mteb-contrastive/tfidf-words"
TASK = "SynthAuthorsAuthorRetrieval"


def _env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "ds").mkdir()
    return {
        **os.environ,
        "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
        "HF_HUB_OFFLINE": "1",
        "MTEB_CONTRASTIVE_DATASETS": str(tmp_path / "ds"),
        "MTEB_CONTRASTIVE_REGISTRY": "off",
        "MTEB_CONTRASTIVE_CACHE": str(tmp_path / "cache"),
    }


def _scores(results: Path) -> list:
    (f,) = results.rglob(f"{TASK}.json")
    return [{k: v for k, v in s.items() if k != "evaluation_time"} for s in json.loads(f.read_text())["scores"]["test"]]


def test_a_folder_it_could_not_see_at_its_start_is_run_as_a_fresh_mteb_run_runs_it(tmp_path):
    from mteb_contrastive.cli.evaluate import run_models
    from mteb_contrastive.cli.prestart import Pool
    from mteb_contrastive.data.halvest_builder import build_halvest_dataset

    start_env = _env(tmp_path)  # its folder variable names an empty folder when it imports mteb
    build_halvest_dataset(
        author_docs(), tmp_path / "later", "SynthAuthors", ks=(2,), n_triplets=1, seed=0, source="synthetic"
    )
    env = {**start_env, "MTEB_CONTRASTIVE_DATASETS": str(tmp_path / "later")}  # the order's environment
    with Pool(MTEB, start_env) as pool:
        pool.start([MODEL])
        cmd = [MTEB, "run", "-m", MODEL, "-t", TASK, "--output-folder", str(tmp_path / "ahead")]
        ((i, got),) = run_models([cmd], env, pool=pool)
        assert pool.forked == 1  # it was forked from the process started ahead
    assert i == 0 and got.rc == 0, got.tail
    fresh = subprocess.run(
        [MTEB, "run", "-m", MODEL, "-t", TASK, "--output-folder", str(tmp_path / "fresh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert fresh.returncode == 0, fresh.stderr[-2000:]
    assert _scores(tmp_path / "ahead") == _scores(tmp_path / "fresh")


def test_the_run_is_the_mteb_command_with_its_one_line_errors_and_held_stdout(tmp_path, capfd):
    from mteb_contrastive.cli.evaluate import run_models
    from mteb_contrastive.cli.prestart import Pool

    env = _env(tmp_path)
    with Pool(MTEB, env) as pool:
        pool.start([MODEL])
        # an unknown task: the `mteb run` data check answers one line and exit 2, as the stock command does
        bad = [MTEB, "run", "-m", MODEL, "-t", "NoSuchTaskAnywhere"]
        # --help writes to stdout: held with the rest (the second run's output, printed whole at its end)
        helped = [MTEB, "run", "--help"]
        got = dict(run_models([bad, helped], env, jobs=2, pool=pool))
        assert pool.forked == 2
    assert got[0].rc == 2 and got[0].tail[-1].startswith("mteb: error: -t NoSuchTaskAnywhere"), got[0].tail
    assert got[1].rc == 0 and any("--prediction-folder PREDICTION_FOLDER" in x for x in got[1].tail), got[1].tail
    out, err = capfd.readouterr()
    assert "usage: mteb run" in err and "usage: mteb run" not in out


def test_a_pool_closed_unused_ends_its_process_having_run_nothing(tmp_path):
    from mteb_contrastive.cli.prestart import Pool

    pool = Pool(MTEB, _env(tmp_path))
    pool.start([MODEL])
    pool.start([MODEL])  # one process per pool
    server = pool.server
    t0 = time.perf_counter()
    pool.close()
    # handed nothing: killed at once, not waited for through its imports (a call ending on an error line)
    assert server.returncode == -signal.SIGKILL and pool.forked == 0
    assert time.perf_counter() - t0 < 5
    pool._log.close()


def test_a_run_ordered_after_the_process_died_starts_afresh_on_the_same_pipes(tmp_path, capfd):
    from mteb_contrastive.cli.evaluate import run_models
    from mteb_contrastive.cli.prestart import Pool

    env = _env(tmp_path)
    with Pool(MTEB, env) as pool:
        pool.start([MODEL])
        pool.server.kill()
        pool.server.wait()
        bad = [MTEB, "run", "-m", MODEL, "-t", "NoSuchTaskAnywhere"]
        ((_, got),) = run_models([bad], env, pool=pool)
        assert pool.forked == 0 and pool.hand(bad, env, merge=True) is None  # dead: the caller starts afresh
    assert got.rc == 2 and got.tail[-1].startswith("mteb: error: -t NoSuchTaskAnywhere"), got.tail


def test_a_forked_run_killed_ends_with_the_signal_as_popen_says_it(tmp_path):
    import signal

    from mteb_contrastive.cli.prestart import Pool

    env = _env(tmp_path)
    with Pool(MTEB, env) as pool:
        pool.start([MODEL])
        slow = [MTEB, "run", "-m", MODEL, "-t", TASK, "--output-folder", str(tmp_path / "o")]
        run = pool.hand(slow, env, merge=True)
        while run.pid is None:
            run._ended.wait(0.05)
        run.kill()
        assert run.wait(timeout=60) == -signal.SIGKILL
        run.stderr.close()


def test_only_models_without_results_are_warmed_up_for(tmp_path):
    from mteb_contrastive.cli.evaluate import started_ahead

    results = tmp_path / "results"
    (results / "results" / "org__done").mkdir(parents=True)  # mteb's layout: <results>/results/<org__name>
    models = ["org/done", "org/a", "org/b"]
    assert started_ahead(models, results) == ["org/a", "org/b"]
    assert started_ahead(models, results, rerun=True) == models
    assert started_ahead(["org/done"], results) == []  # a warm call starts nothing ahead


@given(flags=st.lists(st.booleans(), max_size=6), rerun=st.booleans())
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_started_ahead_is_the_models_without_results_in_order(tmp_path_factory, flags, rerun):
    from mteb_contrastive.cli.evaluate import started_ahead

    results = tmp_path_factory.mktemp("results")
    models = [f"org/m{i}" for i in range(len(flags))]
    for m, has in zip(models, flags):
        if has:
            (results / "results" / m.replace("/", "__")).mkdir(parents=True)
    got = started_ahead(models, results, rerun=rerun)
    assert got == [m for m, has in zip(models, flags) if rerun or not has]


def test_the_server_imports_our_package_without_mteb_and_serves_as_the_mteb_command():
    """Up to :func:`serve`, SERVER_CODE leaves mteb unimported (so :func:`warm_up` imports torch
    first, as its docstring says) and argv[0] is the ``mteb`` command (registration reads it)."""
    from mteb_contrastive.cli import prestart

    call = "serve(int(a[1]), a[2:])"
    assert prestart.SERVER_CODE.count(call) == 1
    code = prestart.SERVER_CODE.replace(call, "print('mteb' in sys.modules, 'torch' in sys.modules, sys.argv)")
    out = subprocess.run(
        [sys.executable, "-c", code, "/bin/mteb", "3", "m"], capture_output=True, text=True, check=True
    ).stdout.split(maxsplit=2)
    assert out == ["False", "False", "['/bin/mteb', 'run']\n"]
