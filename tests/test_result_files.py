"""Result files cut by a kill (issue 20): mteb's result and prediction files are written whole, an
unreadable one is treated as missing (evaluated again, one warning line) by ``mteb run``,
``evaluate`` and ``report``, and a resumed run keeps the ``encoding_*`` statistics of the part it resumes."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import mteb
import pytest
from encoding_fakes import counting_model
from mteb.abstasks.task_metadata import TaskMetadata
from mteb.cache import ResultCache
from test_author_retrieval import row

from mteb_contrastive import compat
from mteb_contrastive.data.atomic import staged_writes
from mteb_contrastive.protocols.triplet_classification import AbsTaskTripletClassification

ROWS = [row("alpha beta", "gamma delta", "eps zeta"), row("gamma delta", "alpha beta", "eps zeta", qh="h2", ph="h1")]


def stderr_lines(capsys) -> list[str]:
    """Captured stderr lines, without the cursor moves tqdm.write adds while a progress bar is open."""
    return [re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", x) for x in capsys.readouterr().err.splitlines() if x.strip()]


def two_subset_task(name: str, fail_on: str | None = None):
    """A triplet task with subsets ``a`` and ``b``; evaluating ``fail_on`` raises (a run killed there)."""
    meta = TaskMetadata(
        name=name,
        description="test",
        dataset={"path": "local", "revision": "1"},
        type="PairClassification",
        category="t2t",
        modalities=["text"],
        eval_splits=["test"],
        eval_langs={"a": ["eng-Latn"], "b": ["eng-Latn"]},
        main_score="accuracy",
        reference=None,
        date=None,
        domains=None,
        license=None,
        annotations_creators=None,
        dialect=None,
        sample_creation=None,
        bibtex_citation="",
    )

    def load_triplets(self, subset, split):
        if subset == "b":  # other texts in b, so each subset encodes its own
            return [{**r, "query": r["query"] + " b", "positive": r["positive"] + " b"} for r in ROWS], {}
        return ROWS, {}

    def evaluate_subset(self, model, data_split, *, hf_split, hf_subset, **kwargs):
        if hf_subset == fail_on:
            raise KeyboardInterrupt("killed")
        return AbsTaskTripletClassification._evaluate_subset(
            self, model, data_split, hf_split=hf_split, hf_subset=hf_subset, **kwargs
        )

    cls = type(
        name,
        (AbsTaskTripletClassification,),
        {"metadata": meta, "load_triplets": load_triplets, "_evaluate_subset": evaluate_subset},
    )
    return cls()


def _evaluate(model, task, folder):
    return mteb.evaluate(
        model, task, cache=ResultCache(folder), overwrite_strategy="only-missing", show_progress_bar=False
    )


def _result_path(folder, task_name):
    meta = counting_model(None).mteb_model_meta
    return compat.task_result_path(ResultCache(folder), task_name, meta)


def test_a_cut_result_file_is_evaluated_again_with_one_warning_line(tmp_path, capsys):
    # issue 20: killed as the result was written, mteb left an empty <Task>.json; every later run then
    # stopped with a JSONDecodeError traceback until the file was deleted by hand
    task = two_subset_task("CutResultTask")
    path = _result_path(tmp_path, "CutResultTask")
    path.parent.mkdir(parents=True)
    path.write_text("")
    capsys.readouterr()
    res = _evaluate(counting_model(None), task, tmp_path)
    err = [line for line in stderr_lines(capsys) if "unreadable" in line]
    assert err == [
        f"warning: {path}: unreadable result file (Expecting value: line 1 column 1 (char 0)); "
        "treated as missing: evaluated again"
    ]
    assert [s["hf_subset"] for s in res.task_results[0].scores["test"]] == ["a", "b"]
    stored = json.loads(path.read_text())
    assert {s["hf_subset"] for s in stored["scores"]["test"]} == {"a", "b"}


def test_a_resumed_run_keeps_the_encoding_statistics_of_the_part_it_resumes(tmp_path):
    # the first run is killed in subset b; subset a was saved (mteb's intermediate result) and is resumed
    with pytest.raises(KeyboardInterrupt):
        _evaluate(counting_model(None), two_subset_task("ResumedTask", fail_on="b"), tmp_path)
    path = _result_path(tmp_path, "ResumedTask")
    saved = json.loads(path.read_text())["scores"]["test"]
    assert [s["hf_subset"] for s in saved] == ["a"] and saved[0]["encoding_n_texts"] == 3
    second = counting_model(None)
    res = _evaluate(second, two_subset_task("ResumedTask"), tmp_path)
    assert second.n_encoded == 3  # only subset b's three texts
    by_subset = {s["hf_subset"]: s for s in res.task_results[0].scores["test"]}
    assert (by_subset["a"]["encoding_n_texts"], by_subset["a"]["encoding_texts_encoded"]) == (3, 3)
    assert (by_subset["b"]["encoding_n_texts"], by_subset["b"]["encoding_texts_encoded"]) == (3, 3)
    on_disk = {s["hf_subset"]: s for s in json.loads(path.read_text())["scores"]["test"]}
    assert (on_disk["a"]["encoding_tokens_max"], on_disk["b"]["encoding_tokens_max"]) == (4, 5)  # "alpha beta b"


def test_staged_writes_replace_whole_files_or_none(tmp_path):
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "keep.json").write_text('{"old": 1}')
    (tmp_path / "r" / "run_settings.jsonl").write_text('{"a": 1}\n')
    with staged_writes(tmp_path, [tmp_path / "r" / "run_settings.jsonl"]) as stage:
        assert (stage / "r" / "run_settings.jsonl").read_text() == '{"a": 1}\n'  # carried in to be merged
        (stage / "r" / "run_settings.jsonl").write_text('{"a": 1}\n{"b": 2}\n')
        (stage / "r" / "new.json").write_text('{"new": 1}')
    assert (tmp_path / "r" / "run_settings.jsonl").read_text() == '{"a": 1}\n{"b": 2}\n'
    assert json.loads((tmp_path / "r" / "new.json").read_text()) == {"new": 1}
    with pytest.raises(RuntimeError), staged_writes(tmp_path) as stage:
        (stage / "r").mkdir()
        (stage / "r" / "keep.json").write_text('{"half')
        raise RuntimeError("killed")
    assert json.loads((tmp_path / "r" / "keep.json").read_text()) == {"old": 1}  # the old file, whole
    dead = tmp_path / ".staged.999999999.x.tmp"  # left by a killed process (no such pid)
    dead.mkdir()
    with staged_writes(tmp_path):
        pass
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]


KILLED_SAVER = r"""
import sys, mteb
from mteb.cache import ResultCache
from mteb.results import TaskResult
from mteb.models.model_meta import ModelMeta
cache = ResultCache(sys.argv[1])
meta = ModelMeta.create_empty(overwrites=dict(name="test/saver", revision="1"))
scores = {"test": [{"hf_subset": "default", "main_score": 0.5, "languages": ["eng-Latn"],
                    **{f"k{i}": i / 7 for i in range(20000)}}]}
result = TaskResult(dataset_revision="1", task_name="BigTask", mteb_version="2", scores=scores, evaluation_time=1.0)
cache.save_to_cache(result, meta)
print("ready", flush=True)
while True:
    cache.save_to_cache(result, meta)
"""


def test_a_process_killed_while_saving_leaves_a_whole_result_file(tmp_path):
    p = subprocess.Popen([sys.executable, "-c", KILLED_SAVER, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    time.sleep(1.5)
    os.kill(p.pid, signal.SIGKILL)
    p.wait(30)
    files = sorted(f for f in tmp_path.rglob("*") if f.is_file() and ".staged." not in str(f))
    assert {f.name for f in files} == {"BigTask.json", "model_meta.json", "run_settings.jsonl"}
    for f in files:
        text = f.read_text()
        for line in text.splitlines() if f.suffix == ".jsonl" else [text]:
            json.loads(line)  # every file whole
    assert (
        len(json.loads((tmp_path / "results").rglob("BigTask.json").__next__().read_text())["scores"]["test"][0])
        > 20000
    )


def test_evaluate_and_report_treat_an_unreadable_result_as_missing(tmp_path, capsys):
    from mteb_contrastive.cli.evaluate import cached_result
    from mteb_contrastive.report.reader import read_results

    _evaluate(counting_model(None), two_subset_task("ReadBackTask"), tmp_path)
    path = _result_path(tmp_path, "ReadBackTask")
    assert len(read_results(tmp_path)) == 2
    assert cached_result(tmp_path, "test/counting", "1", "ReadBackTask", "1") == path
    path.write_text('{"dataset_revision": "1", "task_name": "ReadBa')  # cut in the middle
    capsys.readouterr()
    assert read_results(tmp_path) == []
    assert cached_result(tmp_path, "test/counting", "1", "ReadBackTask", "1") is None
    err = stderr_lines(capsys)
    assert err == [
        f"warning: {path}: unreadable result file (Unterminated string starting at: line 1 column 40 (char 39)); "
        "left out of the report as missing (rerun the model to recompute it)",
        f"warning: {path}: unreadable result file (Unterminated string starting at: line 1 column 40 (char 39)); "
        "treated as missing: evaluated again",
    ]


def test_the_report_reads_a_cut_prediction_file_as_missing(tmp_path, capsys):
    from mteb_contrastive.report.reader import read_predictions

    f = tmp_path / "1" / "T_predictions.json"
    f.parent.mkdir()
    f.write_text('{"default": {"test": {"per_item": {"values": [1, 0]}}}}')
    assert read_predictions(tmp_path, "T", "default", "test", "1") == {"per_item": {"values": [1, 0]}}
    f.write_text('{"default": {"te')
    capsys.readouterr()
    assert read_predictions(tmp_path, "T", "default", "test", "1") is None
    assert stderr_lines(capsys)[0].startswith(f"warning: {f}: unreadable result file (Unterminated string")


def test_a_cut_prediction_file_is_written_anew_whole(tmp_path, capsys):
    from mteb_contrastive.layout import prediction_subfolder

    task = two_subset_task("PredTask")
    model = counting_model(None)
    folder = prediction_subfolder(tmp_path, "test/counting", "1")
    compat.save_task_predictions(task, {"v": [1]}, model, tmp_path, hf_split="test", hf_subset="a")
    f = folder / "PredTask_predictions.json"
    assert json.loads(f.read_text())["a"]["test"] == {"v": [1]}
    compat.save_task_predictions(task, {"v": [2]}, model, tmp_path, hf_split="test", hf_subset="b")
    assert set(json.loads(f.read_text())) >= {"a", "b"}  # merged into the whole file
    f.write_text('{"a": {"te')  # cut by a kill before files were written whole
    capsys.readouterr()
    compat.save_task_predictions(task, {"v": [3]}, model, tmp_path, hf_split="test", hf_subset="b")
    assert stderr_lines(capsys)[0].startswith(f"warning: {f}: unreadable result file (")
    data = json.loads(f.read_text())
    assert data["b"]["test"] == {"v": [3]} and "a" not in data  # the cut part is missing, the rest whole
    assert sorted(p.name for p in folder.iterdir()) == ["PredTask_predictions.json"]  # no staging folder left
