"""The last tracebacks of issue 20, each now one line naming the file, row or option and the fix,
exit status 2 -- through ``mteb-contrastive`` and the stock ``mteb run`` (whose one-line errors are
:func:`mteb_contrastive.plugin.registration.is_input_error`'s: every ``InputError``)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import run

from mteb_contrastive.cli.main import main
from mteb_contrastive.data.errors import DataError, InputError
from mteb_contrastive.metrics.calibration import Calibrator, fit_platt
from mteb_contrastive.plugin.registration import is_input_error


def mteb_run(args: list[str], env: dict[str, str] | None = None) -> tuple[int, list[str]]:
    """``mteb run ... -v 1`` in a fresh process: (exit status, stderr lines that are not progress bars)."""
    res = run(["mteb", "run", *args, "-v", "1"], env_extra=env)
    lines = [x for x in res.stderr.replace("\r", "\n").splitlines() if x.strip() and "%|" not in x]
    assert "Traceback" not in res.stderr, res.stderr[-3000:]
    return res.returncode, lines


def mteb_run_here(args: list[str], capsys, monkeypatch, env: dict[str, str] | None = None) -> tuple[int, list[str]]:
    """The ``run`` of the stock ``mteb`` command in this process, wrapped as the start-up hook wraps it
    under ``mteb`` (tasks checked first, input errors as one line): (exit status, stderr lines)."""
    from mteb.cli.build_cli import build_cli
    from mteb.cli.build_cli import run as mteb_cli_run

    from mteb_contrastive.plugin.registration import _one_line_errors, _tasks_checked_first

    for k, v in (env or {}).items():
        monkeypatch.setenv(k, v)
    capsys.readouterr()
    try:
        _tasks_checked_first(_one_line_errors(mteb_cli_run))(build_cli().parse_args(["run", *args, "-v", "1"]))
        rc = 0
    except SystemExit as exc:
        rc = exc.code
    err = capsys.readouterr().err.replace("\r", "\n")
    err = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", err)  # tqdm.write's cursor moves while a bar is open
    return rc, [x for x in err.splitlines() if x.strip() and "%|" not in x]


def cli(argv, capsys) -> tuple[int, list[str]]:
    try:
        rc = main(argv)
    except SystemExit as exc:
        rc = exc.code
    return rc, [x for x in capsys.readouterr().err.splitlines() if x.strip()]


# --- build-quoter -----------------------------------------------------------------------------------


def test_an_empty_quoter_file_is_refused_by_build_quoter(tmp_path, capsys):
    # issue 20: accepted, then `mteb run` failed with "ValueError: Column 'id' doesn't exist"
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    rc, err = cli(
        ["build-quoter", str(empty), "--name", "Mine", "--language", "eng-Latn", "--out", str(tmp_path)], capsys
    )
    assert (rc, err) == (
        2,
        [
            f"mteb-contrastive: error: {empty}: the file holds no example; "
            "a QuoteR file has one left<TAB>quote<TAB>right line per example"
        ],
    )
    assert not (tmp_path / "Mine").exists()


def test_a_split_that_leaves_no_test_line_is_refused_by_build_quoter(tmp_path, capsys):
    f = tmp_path / "two.txt"
    f.write_text("a\tq1\tb\nc\tq2\td\n")
    argv = ["build-quoter", str(f), "--name", "Two", "--language", "eng-Latn", "--out", str(tmp_path)]
    rc, err = cli([*argv, "--split", "line-order", "--boundaries", "1", "2"], capsys)
    assert (rc, err) == (
        2,
        [
            f"mteb-contrastive: error: {f}: the test split is empty (2 lines: 1 train, 1 valid); --boundaries must "
            "leave lines for test (the evaluated split): add lines or lower the valid end"
        ],
    )


# --- mteb run -m / -t -------------------------------------------------------------------------------


def test_mteb_run_with_an_unknown_model_offline_is_one_line():
    # issue 20: a 67-line OfflineModeIsEnabled traceback
    rc, err = mteb_run(["-m", "nonexistent-org/unknown-model", "-t", "CranfieldIRTriplets"])
    assert (rc, err) == (
        2,
        [
            "mteb: error: model 'nonexistent-org/unknown-model': not a model mteb knows, and the HuggingFace Hub, "
            "where it would be looked up, is switched off here (HF_HUB_OFFLINE=1); give a registered name "
            "(mteb.get_model_metas()), the folder of a local model (-m ./path), or a Hub model with the Hub on"
        ],
    )


def test_mteb_run_with_a_model_path_that_does_not_exist_is_one_line(capsys, monkeypatch):
    # issue 20: "NotImplementedError: No model implementation is available for this model."
    rc, err = mteb_run_here(["-m", "./path/that/does/not/exist", "-t", "CranfieldIRTriplets"], capsys, monkeypatch)
    assert (rc, err) == (
        2,
        [
            "mteb: error: model './path/that/does/not/exist': no such folder; give the folder of a "
            "sentence-transformers model (with modules.json or config.json) or a model name"
        ],
    )


def test_mteb_run_of_a_built_task_names_the_variable_that_finds_it(tmp_path, capsys, monkeypatch):
    # issue 20: "KeyError ... Did you mean: 'CranfieldIRTriplets'?", silent about the variable
    rc, err = mteb_run_here(
        ["-m", "mteb/baseline-bm25s", "-t", "MyCorpusIRTriplets"],
        capsys,
        monkeypatch,
        {"MTEB_CONTRASTIVE_DATASETS": ""},
    )
    assert (rc, err) == (
        2,
        [
            "mteb: error: -t MyCorpusIRTriplets: no such task: a task made by mteb-contrastive build-ir-triplets "
            "is found through MTEB_CONTRASTIVE_DATASETS, which is unset; set MTEB_CONTRASTIVE_DATASETS to the "
            "--out folder of the build"
        ],
    )
    # set, but to a folder without it; and a name that is no built task at all
    empty = tmp_path / "built"
    empty.mkdir()
    rc, err = mteb_run_here(
        ["-m", "mteb/baseline-bm25s", "-t", "MineAuthorRetrieval", "NoSuchTaskAtAll"],
        capsys,
        monkeypatch,
        {"MTEB_CONTRASTIVE_DATASETS": str(empty)},
    )
    assert (rc, err) == (
        2,
        [
            "mteb: error: -t MineAuthorRetrieval: no such task: a task made by mteb-contrastive build-triplets is "
            f"found through MTEB_CONTRASTIVE_DATASETS, and no folder of MTEB_CONTRASTIVE_DATASETS={empty} makes it; "
            "add the --out folder of its build to MTEB_CONTRASTIVE_DATASETS",
            "mteb: error: -t NoSuchTaskAtAll: no such task (mteb-contrastive tasks lists this extension's tasks)",
        ],
    )


# --- a PAN-format benchmark with one pair per class on validation -----------------------------------


def _pan_folder(root: Path, name: str, validation: list[bool]) -> Path:
    """A hand-made PAN-format folder: ``validation`` gives the labels of its validation pairs; 4 test pairs."""
    folder = root / name
    words = {a: [f"w{a}{i}" for i in range(6)] for a in "abcd"}

    def text(a, k):
        return " ".join(words[a][(k + i) % 6] for i in range(5))

    for split, labels in (("validation", validation), ("test", [True, False, True, False])):
        (folder / split).mkdir(parents=True)
        pairs, truth = [], []
        for i, same in enumerate(labels):
            a, b = ("a", "a") if same else ("a", "b")
            if split == "test":
                a, b = ("c", "c") if same else ("c", "d")
            pid = f"{split}{i}"
            pairs.append(json.dumps({"id": pid, "fandoms": ["f", "f"], "pair": [text(a, i), text(b, i + 1)]}))
            truth.append(json.dumps({"id": pid, "same": same, "authors": [a, b]}))
        (folder / split / "pairs.jsonl").write_text("\n".join(pairs) + "\n")
        (folder / split / "truth.jsonl").write_text("\n".join(truth) + "\n")
    (folder / "mteb_contrastive.json").write_text(
        json.dumps({"kind": "pan-verification", "name": name, "languages": ["eng-Latn"]})
    )
    return folder


def test_platt_scaling_fits_one_pair_per_class():
    # issue 20: scikit-learn's "Requesting 2-fold cross-validation but provided less than 2 examples" traceback;
    # Platt's smoothed targets need one pair of each class: standardised scores -1, 1 give p = 1/3, 2/3
    p = fit_platt([0.2, 0.8], [0, 1])
    assert p.predict([0.2, 0.8]) == pytest.approx([1 / 3, 2 / 3], abs=1e-6)
    assert p.coef == pytest.approx(np.log(2) / 0.3, rel=1e-5)
    cal = Calibrator().fit([0.2, 0.8], [0, 1])
    assert (cal.threshold, cal.delta) == (0.5, 0.0)


@pytest.fixture
def task_table_restored():
    """mteb's task table and task list as they were before the test (it registers folders of tmp_path)."""
    from mteb_contrastive import compat

    table, listed = compat.task_table(), compat.listed_tasks()
    before = dict(table)
    yield
    table.clear()
    table.update(before)
    compat.set_listed_tasks(listed)


def test_a_pan_benchmark_with_one_pair_per_class_runs_and_a_one_class_validation_is_one_line(
    tmp_path, capsys, monkeypatch, task_table_restored
):
    from mteb_contrastive import catalog
    from mteb_contrastive.plugin.registration import register_tasks

    _pan_folder(tmp_path / "v", "TwoPairs", [True, False])
    _pan_folder(tmp_path / "v", "OneClass", [True, True, True])
    env = {"MTEB_CONTRASTIVE_VERIFICATION": str(tmp_path / "v"), "MTEB_CONTRASTIVE_CACHE": str(tmp_path / "c")}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    register_tasks(catalog.verification_task_classes())  # what the start-up hook does in a new process
    out = tmp_path / "results"
    args = ["-m", "mteb-contrastive/tfidf-words", "--output-folder", str(out)]
    rc, err = mteb_run_here([*args, "-t", "TwoPairsVerification"], capsys, monkeypatch)
    assert rc == 0 and err == [], err
    (result,) = out.rglob("TwoPairsVerification.json")
    scores = json.loads(result.read_text())["scores"]["test"][0]
    assert scores["n_validation_pairs"] == 2 and 0 < scores["platt_coef"]
    # the other example: the same result file cut by a kill is evaluated again, with one warning line
    result.write_text("")
    rc, err = mteb_run_here([*args, "-t", "TwoPairsVerification"], capsys, monkeypatch)
    assert rc == 0 and err == [
        f"warning: {result}: unreadable result file (Expecting value: line 1 column 1 (char 0)); "
        "treated as missing: evaluated again"
    ]
    assert json.loads(result.read_text())["scores"]["test"][0]["platt_coef"] == scores["platt_coef"]
    rc, err = mteb_run_here([*args, "-t", "OneClassVerification"], capsys, monkeypatch)
    truth = tmp_path / "v" / "OneClass" / "validation" / "truth.jsonl"
    assert (rc, err) == (
        2,
        [
            f"mteb: error: {truth}: only same-author pairs (3): the threshold, Platt scaling and abstention band are "
            'fitted on this split and need both classes; add pairs with "same": false'
        ],
    )


def test_input_errors_are_one_line_wherever_they_are_raised():
    """The mechanism: every ``InputError`` is an input error for ``mteb run``, also when raised outside the
    package (a library calling back into ours); other exceptions keep their traceback."""
    assert is_input_error(DataError("f.jsonl", "bad", line=3)) and issubclass(DataError, InputError)
    from mteb_contrastive.encoding.settings import EncodingSettingsError

    assert is_input_error(EncodingSettingsError("encoding option stride=5: ..."))
    assert not is_input_error(KeyError("x")) and not is_input_error(RuntimeError("bug"))
    assert os.sep  # (the frame rule for ValueError raised inside mteb_contrastive is tested in test_bad_input_cli)
