"""``mteb run`` processes started ahead (mteb_contrastive.cli.prestart): the run they are handed is the
run a fresh ``mteb run`` gives, also for a folder built after they started."""

from __future__ import annotations

import json
import os
import subprocess
import sys
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
        ((i, got),) = run_models([cmd], env, pool=pool, models=[MODEL])
        assert not pool.waiting  # it took the process started ahead
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
        pool.start([MODEL, MODEL])
        # an unknown task: the `mteb run` data check answers one line and exit 2, as the stock command does
        bad = [MTEB, "run", "-m", MODEL, "-t", "NoSuchTaskAnywhere"]
        # --help writes to stdout: held with the rest (the second run's output, printed whole at its end)
        helped = [MTEB, "run", "--help"]
        got = dict(run_models([bad, helped], env, jobs=2, pool=pool, models=[MODEL, MODEL]))
    assert got[0].rc == 2 and got[0].tail[-1].startswith("mteb: error: -t NoSuchTaskAnywhere"), got[0].tail
    assert got[1].rc == 0 and any("--prediction-folder PREDICTION_FOLDER" in x for x in got[1].tail), got[1].tail
    out, err = capfd.readouterr()
    assert "usage: mteb run" in err and "usage: mteb run" not in out


def test_processes_not_handed_a_run_are_killed_and_one_without_an_order_ends_having_run_nothing(tmp_path):
    from mteb_contrastive.cli.prestart import Pool

    env = _env(tmp_path)
    pool = Pool(MTEB, env)
    pool.start([MODEL, MODEL])
    first, second = pool.waiting
    pool.close()
    assert first.proc.returncode is not None and second.proc.returncode is not None and not pool.waiting
    # the end of stdin without an order (its parent gone): exit 0, nothing written
    pool.start([MODEL])
    (alone,) = pool.waiting
    alone.proc.stdin.close()
    assert alone.proc.wait(timeout=120) == 0
    assert alone.proc.stderr.read() == b""
    pool.waiting.clear()


def test_only_models_without_results_start_ahead(tmp_path):
    from mteb_contrastive.cli.evaluate import started_ahead

    results = tmp_path / "results"
    (results / "results" / "org__done").mkdir(parents=True)  # mteb's layout: <results>/results/<org__name>
    models = ["org/done", "org/a", "org/b"]
    assert started_ahead(models, results, jobs=2) == ["org/a", "org/b"]
    assert started_ahead(models, results, jobs=1) == ["org/a"]
    assert started_ahead(models, results, jobs=0) == ["org/a"]  # at least one
    assert started_ahead(models, results, jobs=2, rerun=True) == ["org/done", "org/a"]
    assert started_ahead(["org/done"], results, jobs=2) == []  # a warm call starts nothing ahead


@given(
    flags=st.lists(st.booleans(), max_size=6),
    jobs=st.integers(min_value=0, max_value=4),
    rerun=st.booleans(),
)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_started_ahead_is_the_first_jobs_models_without_results(tmp_path_factory, flags, jobs, rerun):
    from mteb_contrastive.cli.evaluate import started_ahead

    results = tmp_path_factory.mktemp("results")
    models = [f"org/m{i}" for i in range(len(flags))]
    for m, has in zip(models, flags):
        if has:
            (results / "results" / m.replace("/", "__")).mkdir(parents=True)
    got = started_ahead(models, results, jobs=jobs, rerun=rerun)
    eligible = [m for m, has in zip(models, flags) if rerun or not has]
    assert got == eligible[: max(1, jobs)]
