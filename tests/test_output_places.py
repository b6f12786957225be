"""Output places and the own-folder rule of every builder (issue 26, "Data loss" and kind 1).

A builder replaces only a folder it built itself; anything else at OUT/NAME is refused in one line naming
the path (exit 2), nothing touched; a bad --out (a file, a path inside a file, unwritable) is one line
before any work; files and folders get the umask's modes; no temporary survives the next run.
The generated test draws the output-place situations for every builder.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mteb_contrastive.cli.main import main
from mteb_contrastive.data.atomic import atomic_folder, staged_writes, sweep_stale, write_text_atomic
from mteb_contrastive.data.built_folder import BuiltFolder, NotOwnFolder
from mteb_contrastive.data.places import OutputPlaceError, check_folder_parent, check_output_folder
from mteb_contrastive.layout import INFO_FILE

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"

TEXT = "Sentence one is here. Sentence two is here. Sentence three is here."


def _jsonl(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def _inputs(d: Path) -> dict[str, list[str]]:
    """builder -> its argv before --name/--out, on tiny inputs written under ``d``."""
    d.mkdir(parents=True, exist_ok=True)
    triplets = _jsonl(
        d / "triplets.jsonl",
        [
            {"id": f"d{i}", "authors": [a], "text": f"{TEXT} Row {i} ends.", "language": "en"}
            for i, a in enumerate("AABB")
        ],
    )
    verification = _jsonl(
        d / "verification.jsonl",
        [
            {"id": f"w{i}", "author": f"Author {i % 4}", "text": " ".join(f"word{i}x{j}" for j in range(60))}
            for i in range(16)
        ],
    )
    quoter = d / "quoter.txt"
    quoter.write_text("".join(f"left {i} words\tquote number {i}\tright {i} words\n" for i in range(30)))
    beir = d / "beir"
    (beir / "qrels").mkdir(parents=True, exist_ok=True)
    _jsonl(beir / "corpus.jsonl", [{"_id": f"d{i}", "text": f"topic{i // 3} word{i}"} for i in range(30)])
    _jsonl(beir / "queries.jsonl", [{"_id": f"q{k}", "text": f"query {k}"} for k in range(10)])
    (beir / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"q{k}\td{3 * k + j}\t1\n" for k in range(10) for j in range(3))
    )
    attribution = _jsonl(
        d / "attribution.jsonl",
        [
            {"id": f"t{i}", "author": "AB"[i % 2], "text": " ".join(f"w{i}y{j}" for j in range(40)), "language": "en"}
            for i in range(6)
        ],
    )
    return {
        "build-triplets": ["build-triplets", str(triplets), "--k", "1"],
        "build-verification": [
            "build-verification",
            "corpus",
            str(verification),
            "--languages",
            "eng-Latn",
            "--chunk-words",
            "20",
            "--pairs-per-author",
            "2",
            "--split-ratios",
            "0",
            "0.5",
            "0.5",
        ],
        "build-quoter": ["build-quoter", str(quoter), "--language", "eng-Latn"],
        "build-ir-triplets": ["build-ir-triplets", str(beir), "--language", "eng-Latn"],
        "build-attribution": ["build-attribution", str(attribution), "--chunk-words", "20"],
    }


BUILDERS = list(_inputs(Path(tempfile.mkdtemp())).keys())


def _run(argv: list[str], capsys) -> tuple[int, list[str], str]:
    try:
        rc = main(argv)
    except SystemExit as exc:
        rc = exc.code
    cap = capsys.readouterr()
    return rc, [x for x in cap.err.splitlines() if x.strip()], cap.err


def _build(cmd: str, inputs: dict, out: Path, name: str, capsys, *extra: str) -> tuple[int, list[str], str]:
    return _run([*inputs[cmd], "--name", name, "--out", str(out), *extra], capsys)


def _snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (or ``root`` itself) -> its bytes."""
    if root.is_file():
        return {str(root): root.read_bytes()}
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()} if root.is_dir() else {}


def _hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) if folder.is_dir() else []


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    return _inputs(tmp_path_factory.mktemp("inputs"))


# --- the issue's example and one test per builder --------------------------------------------------------


def test_issue_example_user_folder_is_refused_and_kept(tmp_path, capsys, monkeypatch):
    """``mkdir -p o/Kjv && echo notes > o/Kjv/notes.txt && mteb-contrastive build-quoter ... --name Kjv --out o``."""
    (tmp_path / "o" / "Kjv").mkdir(parents=True)
    (tmp_path / "o" / "Kjv" / "notes.txt").write_text("notes\n")
    args = [str(SHARED / "quoter" / "en_kjv_in_novels.txt"), "--name", "Kjv", "--language", "eng-Latn", "--out", "o"]
    cmd = [sys.executable, "-m", "mteb_contrastive.cli.main", "build-quoter", *args]
    p = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    lines = [x for x in p.stderr.splitlines() if x.strip()]
    assert p.returncode == 2, p.stderr
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    assert "o/Kjv" in lines[0] and "notes.txt" in lines[0] and "--name" in lines[0] and "--force" in lines[0]
    assert (tmp_path / "o" / "Kjv" / "notes.txt").read_text() == "notes\n"
    assert sorted(os.listdir(tmp_path / "o" / "Kjv")) == ["notes.txt"]
    assert _hidden(tmp_path / "o") == []
    # a second try leaves it too (the old code renamed it to .Kjv.old-<pid> and deleted it on the next build)
    monkeypatch.chdir(tmp_path)
    rc, lines, _ = _run(["build-quoter", *args], capsys)
    assert rc == 2 and len(lines) == 1 and (tmp_path / "o" / "Kjv" / "notes.txt").read_text() == "notes\n"
    assert _hidden(tmp_path / "o") == []
    # the way out: --force replaces it, and the build is then its own (rebuilt without --force)
    rc, _, err = _run(["build-quoter", *args, "--force"], capsys)
    assert rc == 0, err
    assert not (tmp_path / "o" / "Kjv" / "notes.txt").exists()
    rc, _, err = _run(["build-quoter", *args], capsys)
    assert rc == 0, err
    assert sorted(os.listdir(tmp_path / "o" / "Kjv")) == [INFO_FILE, "quoter.txt"]
    assert _hidden(tmp_path / "o") == []


@pytest.mark.parametrize("cmd", BUILDERS)
def test_builder_refuses_a_folder_it_did_not_build(cmd, inputs, tmp_path, capsys):
    out = tmp_path / "o"
    (out / "Mine").mkdir(parents=True)
    (out / "Mine" / "notes.txt").write_text("my notes\n")
    rc, lines, err = _build(cmd, inputs, out, "Mine", capsys)
    assert rc == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert str(out / "Mine") in lines[0] and "--force" in lines[0] and "--name" in lines[0]
    assert (out / "Mine" / "notes.txt").read_text() == "my notes\n"
    assert _hidden(out) == []
    # its own build is replaced; a note dropped into it makes it the user's again
    rc, lines, err = _build(cmd, inputs, out, "Built", capsys)
    assert rc == 0, err
    info = json.loads((out / "Built" / INFO_FILE).read_text())
    assert info["built_by"] == cmd and info["name"] == "Built"
    assert _build(cmd, inputs, out, "Built", capsys)[0] == 0
    (out / "Built" / "notes.txt").write_text("mine\n")
    rc, lines, _ = _build(cmd, inputs, out, "Built", capsys)
    assert rc == 2 and "notes.txt" in lines[0]
    assert (out / "Built" / "notes.txt").read_text() == "mine\n"
    # another builder's folder under the same name is not this builder's
    other = next(c for c in BUILDERS if c != cmd)
    assert _build(other, inputs, out, "Other", capsys)[0] == 0
    before = _snapshot(out / "Other")
    rc, lines, _ = _build(cmd, inputs, out, "Other", capsys)
    assert rc == 2 and len(lines) == 1 and str(out / "Other") in lines[0]
    assert _snapshot(out / "Other") == before
    # a file where the folder goes
    (out / "Plain").write_text("a file\n")
    rc, lines, _ = _build(cmd, inputs, out, "Plain", capsys)
    assert rc == 2 and len(lines) == 1 and str(out / "Plain") in lines[0]
    assert (out / "Plain").read_text() == "a file\n"
    assert _hidden(out) == []


@pytest.mark.parametrize("cmd", BUILDERS)
def test_bad_out_is_one_line_before_any_work(cmd, inputs, tmp_path, capsys):
    f = tmp_path / "afile"
    f.write_text("x\n")
    for out, what in ((f, "is a file"), (f / "sub", "inside a file")):
        rc, lines, err = _build(cmd, inputs, out, "Name", capsys)
        assert rc == 2 and len(lines) == 1 and "Traceback" not in err, err
        assert str(out) in lines[0] and what in lines[0] and "--out" in lines[0]
        assert "Errno" not in lines[0]
    assert f.read_text() == "x\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["report", "{results}", "--out", "{out}"],
        ["evaluate", "-m", "some/model", "--out", "{out}"],
        ["train", "--docs", "corpus={results}/x.jsonl", "--out", "{out}"],
        ["build-taln", "--out", "{out}"],
        ["build-pan-benchmarks", "--out", "{out}"],
    ],
)
def test_every_writing_command_checks_its_out(argv, tmp_path, capsys):
    (tmp_path / "results").mkdir()
    f = tmp_path / "afile"
    f.write_text("x\n")
    for out in (f, f / "sub"):
        a = [x.format(results=tmp_path / "results", out=out) for x in argv]
        rc, lines, err = _run(a, capsys)
        assert rc == 2 and len(lines) == 1 and "Traceback" not in err, err
        assert str(out) in lines[0] and "--out" in lines[0]
    assert f.read_text() == "x\n"


def test_unwritable_out_is_named(tmp_path, monkeypatch):
    ro = tmp_path / "ro"
    ro.mkdir()
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == ro else real(p, mode))
    with pytest.raises(OutputPlaceError, match=r"ro/new: --out cannot be made: .*ro is not writable"):
        check_output_folder(ro / "new")
    with pytest.raises(OutputPlaceError, match=r"ro: --out is not writable"):
        check_output_folder(ro)
    with pytest.raises(OutputPlaceError, match="not writable"):
        BuiltFolder(ro, "Name", "quoter", "build-quoter").check()
    assert list(ro.iterdir()) == []
    check_folder_parent(tmp_path / "fine" / "Name")  # a folder that can be made: no error, nothing made
    assert not (tmp_path / "fine").exists()


def test_an_empty_folder_is_taken_and_a_foreign_info_file_is_not(tmp_path):
    (tmp_path / "E").mkdir()
    BuiltFolder(tmp_path, "E", "quoter", "build-quoter", ("quoter.txt",)).check()
    (tmp_path / "H").mkdir()
    # a hand-made folder: kind and name right, but not built (no built_by, no build_id)
    (tmp_path / "H" / INFO_FILE).write_text(json.dumps({"kind": "quoter", "name": "H"}))
    with pytest.raises(NotOwnFolder, match="was not built by build-quoter"):
        BuiltFolder(tmp_path, "H", "quoter", "build-quoter", ("quoter.txt",)).check()
    BuiltFolder(tmp_path, "H", "quoter", "build-quoter", ("quoter.txt",), force=True).check()


# --- modes and temporaries -------------------------------------------------------------------------------


@contextlib.contextmanager
def _umask(mask: int):
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.parametrize("mask", [0o022, 0o002, 0o077])
def test_built_folders_and_written_files_get_the_umask_modes(mask, inputs, tmp_path, capsys):
    with _umask(mask):
        rc, _, err = _build("build-quoter", inputs, tmp_path / "o", "Q", capsys)
        assert rc == 0, err
        write_text_atomic(tmp_path / "r" / "report.md", "x\n")
    mode = lambda p: stat.S_IMODE(p.stat().st_mode)  # noqa: E731
    assert mode(tmp_path / "o" / "Q") == 0o777 & ~mask
    for f in (tmp_path / "o" / "Q").iterdir():
        assert mode(f) == 0o666 & ~mask, f
    assert mode(tmp_path / "r" / "report.md") == 0o666 & ~mask


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_no_temporary_of_a_killed_run_survives_the_next_run(tmp_path):
    pid = _dead_pid()
    plots = tmp_path / "plots"
    plots.mkdir()
    left = [
        plots / f".recall_at_k.png.{pid}.tmp.png",  # the old plot temporary
        plots / f".other.png.{pid}.ab12cd_3.tmp",
        tmp_path / f".run_info.json.{pid}.x1y2z3w4.tmp",
        tmp_path / f".staged.{pid}.k9k9k9k9.tmp",
        tmp_path / f".Kjv.old-{pid}",
    ]
    for p in left:
        if p.name.startswith(".staged") or ".old-" in p.name:
            p.mkdir()
            (p / "f.json").write_text("{}")
        else:
            p.write_text("cut")
    mine = tmp_path / ".notes.txt"
    mine.write_text("a user's hidden file")
    live = tmp_path / f".x.json.{os.getppid()}.abcdefgh.tmp"  # a live process's temporary is left alone
    live.write_text("in progress")
    removed = sweep_stale(tmp_path) + sweep_stale(plots)
    assert sorted(map(str, removed)) == sorted(map(str, left))
    assert mine.exists() and live.exists()


def test_write_report_sweeps_plots_left_by_a_killed_run(tmp_path):
    from mteb_contrastive.report.write import write_report

    pid = _dead_pid()
    (tmp_path / "out" / "plots").mkdir(parents=True)
    stale = tmp_path / "out" / "plots" / f".recall_at_k.png.{pid}.tmp.png"
    stale.write_text("cut")
    (tmp_path / "results").mkdir()
    write_report(tmp_path / "results", tmp_path / "out")
    assert not stale.exists()
    assert _hidden(tmp_path / "out") == [] and _hidden(tmp_path / "out" / "plots") == []


def test_plot_save_leaves_no_temporary_and_takes_the_umask(tmp_path):
    from mteb_contrastive.report import plots

    plt = plots.pyplot()
    fig = plt.figure()
    with _umask(0o022):
        out = plots.save(fig, tmp_path / "p" / "a.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert stat.S_IMODE(out.stat().st_mode) == 0o644
    assert os.listdir(tmp_path / "p") == ["a.png"]


def test_atomic_folder_failure_moves_nothing(tmp_path):
    (tmp_path / "T").mkdir()
    (tmp_path / "T" / "keep").write_text("k")
    with pytest.raises(RuntimeError), atomic_folder(tmp_path / "T") as tmp:
        (tmp / "new").write_text("n")
        raise RuntimeError
    assert os.listdir(tmp_path) == ["T"] and os.listdir(tmp_path / "T") == ["keep"]


def test_result_lister_never_walks_into_a_staging_folder(tmp_path, monkeypatch):
    from mteb_contrastive.report import reader

    model = tmp_path / "results" / "org__m" / "rev"
    model.mkdir(parents=True)
    (model / "model_meta.json").write_text("{}")
    (model / "T.json").write_text("{}")
    stage = tmp_path / "results" / ".staged.1.abcdefgh.tmp" / "org__m" / "rev"
    stage.mkdir(parents=True)
    (stage / "model_meta.json").write_text("{}")
    (stage / "T.json").write_text("{}")
    entered = []
    real_scandir = os.scandir

    def scandir(path="."):
        entered.append(str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    assert reader.result_files(tmp_path / "results") == [model / "T.json"]
    assert not any(".staged." in p for p in entered)
    # a folder that vanishes while it is walked (a stage finishing) is no error
    with staged_writes(tmp_path / "results") as s:
        (s / "x.json").write_text("{}")
        assert reader.result_files(tmp_path / "results") == [model / "T.json"]


def test_a_cut_prediction_file_is_recomputed_like_a_cut_result_file(tmp_path, capsys):
    from mteb_contrastive.cli.evaluate import cached_result
    from mteb_contrastive.layout import prediction_subfolder, result_file

    results, preds = tmp_path / "results", tmp_path / "predictions"
    f = result_file(results, "org/m", "rev", "T")
    f.parent.mkdir(parents=True)
    result = {  # a task result as mteb writes it (one of another shape counts as missing)
        "dataset_revision": "d1",
        "task_name": "T",
        "mteb_version": "2.26.24",
        "scores": {"test": [{"hf_subset": "default", "languages": ["eng-Latn"], "main_score": 0.5}]},
        "evaluation_time": 1.0,
    }
    f.write_text(json.dumps(result))
    p = prediction_subfolder(preds, "org/m", "rev") / "T_predictions.json"
    p.parent.mkdir(parents=True)
    p.write_text(json.dumps({"default": {"test": {"q1": {"d1": 0.5}}}}))
    assert cached_result(results, "org/m", "rev", "T", "d1", preds) == f
    p.write_text('{"default": {"test": {"q1": {"d1": 0.')  # cut by a kill
    assert cached_result(results, "org/m", "rev", "T", "d1", preds) is None
    err = capsys.readouterr().err
    assert "T_predictions.json" in err and "evaluated again" in err


# --- generated: every builder, every output-place situation ------------------------------------------------

SITUATIONS = (
    "absent",
    "empty_dir",
    "user_dir",
    "user_file_at_name",
    "out_is_file",
    "out_inside_file",
    "own_build",
    "own_build_with_note",
    "other_builder",
    "read_only_out",
)


@pytest.mark.parametrize("cmd", BUILDERS)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(situation=st.sampled_from(SITUATIONS), force=st.booleans(), nested=st.booleans())
def test_generated_output_places(cmd, situation, force, nested, inputs, capsys):
    with tempfile.TemporaryDirectory() as d:
        base = Path(d) / ("a/b" if nested else "a")
        base.mkdir(parents=True)
        out, name = base / "out", "Ds"
        target = out / name
        if situation in ("empty_dir", "user_dir", "own_build", "own_build_with_note", "other_builder"):
            out.mkdir()
        if situation == "empty_dir":
            target.mkdir()
        elif situation == "user_dir":
            (target / "sub").mkdir(parents=True)
            (target / "sub" / "data.csv").write_text("a,b\n")
        elif situation == "user_file_at_name":
            out.mkdir()
            target.write_text("mine\n")
        elif situation == "out_is_file":
            out.write_text("mine\n")
        elif situation == "out_inside_file":
            (base / "f").write_text("mine\n")
            out, target = base / "f" / "out", base / "f" / "out" / name
        elif situation in ("own_build", "own_build_with_note"):
            assert _build(cmd, inputs, out, name, capsys)[0] == 0
            if situation == "own_build_with_note":
                (target / "NOTES.md").write_text("mine\n")
        elif situation == "other_builder":
            other = BUILDERS[(BUILDERS.index(cmd) + 1) % len(BUILDERS)]
            assert _build(other, inputs, out, name, capsys)[0] == 0
        elif situation == "read_only_out":
            out.mkdir()
            out.chmod(0o555)
        user = _snapshot(base)
        try:
            rc, lines, err = _build(cmd, inputs, out, name, capsys, *(["--force"] if force else []))
        finally:
            if out.is_dir():
                out.chmod(0o755)
        assert "Traceback" not in err, err
        assert rc in (0, 2), err
        refused = {"out_is_file", "out_inside_file"} | (
            set() if force else {"user_dir", "user_file_at_name", "own_build_with_note", "other_builder"}
        )
        if situation in refused:
            assert rc == 2, err
        elif situation != "read_only_out":  # writable anyway for a process that may write anywhere (root)
            assert rc == 0, err
        if rc == 2:
            assert len(lines) == 1, err
            assert str(target) in lines[0] or str(out) in lines[0], lines[0]
            assert _snapshot(base) == user  # nothing touched
        else:
            info = json.loads((target / INFO_FILE).read_text())
            assert info["built_by"] == cmd and info["name"] == name
            # nothing the user had is gone, except at OUT/NAME when --force asked for it
            gone = [p for p in user if not Path(p).exists() and not (force and Path(p).is_relative_to(target))]
            assert gone == [] or situation == "own_build", gone
        if out.is_dir():
            assert _hidden(out) == [], _hidden(out)


def test_train_never_replaces_a_folder_that_is_not_a_model_it_trained(tmp_path, capsys):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("years of work\n")
    docs = _jsonl(tmp_path / "d.jsonl", [{"id": "a", "author": "A", "text": "t"}])
    for cmd in ("train", "train-cross-encoder"):
        rc, lines, err = _run([cmd, "--docs", f"corpus={docs}", "--out", str(mine)], capsys)
        assert rc == 2 and len(lines) == 1 and "Traceback" not in err, err
        assert str(mine) in lines[0] and "training_config.json" in lines[0]
    assert os.listdir(mine) == ["thesis.tex"]
    from mteb_contrastive.cli.outputs import MODEL_CONFIG_FILE
    from mteb_contrastive.training.contrastive import CONFIG_FILE

    assert MODEL_CONFIG_FILE == CONFIG_FILE


WRITERS = {
    "report": ["report", "{results}"],
    "evaluate": ["evaluate", "-m", "some/model"],
    "train": ["train", "--docs", "corpus={results}/x.jsonl"],
    "train-cross-encoder": ["train-cross-encoder", "--docs", "corpus={results}/x.jsonl"],
    "train-reranker": ["train-reranker", "{results}/q.txt"],
    "build-taln": ["build-taln"],
    "build-pan-benchmarks": ["build-pan-benchmarks"],
    "main": ["main"],
}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    cmd=st.sampled_from(sorted(WRITERS)),
    depth=st.integers(0, 3),
    place=st.sampled_from(["file", "inside_file", "report_ok"]),
)
def test_generated_out_of_every_writing_command(cmd, depth, place, capsys):
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        (root / "results").mkdir()
        f = root / "afile"
        f.write_text("x\n")
        if place == "report_ok":
            if cmd != "report":
                return
            out = root.joinpath(*["n"] * depth, "rep")
        else:
            out = f if place == "file" and depth == 0 else f.joinpath(*["sub"] * max(depth, 1))
        argv = [x.format(results=root / "results") for x in WRITERS[cmd]] + ["--out", str(out)]
        before = _snapshot(root)
        rc, lines, err = _run(argv, capsys)
        assert "Traceback" not in err, err
        if place == "report_ok":
            assert rc == 0 and (out / "report.md").is_file(), err
            return
        assert rc == 2 and len(lines) == 1, err
        assert str(out) in lines[0] and "--out" in lines[0] and "Errno" not in lines[0]
        assert _snapshot(root) == before and sorted(os.listdir(root)) == ["afile", "results"]
