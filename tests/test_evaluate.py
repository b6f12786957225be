"""`mteb-contrastive evaluate` end to end on tiny synthetic benchmarks; benchmarks and sweeps in fresh processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run
from synthetic_benchmarks import build_all

MODELS = ["mteb-contrastive/tfidf-words", "mteb-contrastive/tfidf-char3"]


@pytest.fixture(scope="module")
def synth(tmp_path_factory):
    root = tmp_path_factory.mktemp("synth")
    folders = build_all(root)
    env = {
        "MTEB_CONTRASTIVE_DATASETS": str(folders["datasets"]),
        "MTEB_CONTRASTIVE_VERIFICATION": str(folders["verification"]),
        "MTEB_CONTRASTIVE_SHARED": str(root / "no-shared-data"),
        "MTEB_CONTRASTIVE_CACHE": str(root / "cache"),
        "MTEB_CONTRASTIVE_CHANCE_RUNS": "30",  # a simulated chance level from 30 random runs: enough to test the wiring
    }
    return root, env


@pytest.fixture(scope="module")
def evaluated(synth):
    root, env = synth
    out = root / "release"
    cmd = [
        "mteb-contrastive",
        "evaluate",
        *[a for m in MODELS for a in ("-m", m)],
        "--out",
        str(out),
        "--device",
        "cpu",
    ]
    first = run(cmd, env)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    return out, first, cmd, env


def _file_scores(out: Path, model: str, task: str) -> dict:
    (f,) = (out / "results").rglob(f"{model.replace('/', '__')}/*/{task}.json")
    return {s["hf_subset"]: s for s in json.loads(f.read_text())["scores"]["test"]}


def test_plan_lines_and_report_path(evaluated):
    out, first, _, _ = evaluated
    lines = first.stdout.splitlines()
    assert (
        "  skip PAN20Verification: MTEB_CONTRASTIVE_PAN20 unset "
        "(the PAN 20 texts are on Zenodo on request, not on the Hub)" in lines
    )
    assert any(
        line.startswith("  skip CranfieldIRTriplets: ") and "no-shared-data/ir/cranfield/corpus.jsonl not found" in line
        for line in lines
    )
    runs = sorted(line.split()[1] for line in lines if line.startswith("  run  "))
    assert runs == ["SynthAuthors", "SynthIR", "SynthPairs"]
    assert lines[-1] == f"report: {out / 'report.md'}"
    assert "Traceback" not in first.stderr


def test_report_numbers_are_the_result_files(evaluated):
    out, _, _, _ = evaluated
    rep = json.loads((out / "report.json").read_text())
    assert {r["model"] for r in rep["rows"]} == set(MODELS)
    assert {r["family"] for r in rep["rows"]} == {"author", "verification", "ir-triplets"}
    for r in rep["rows"]:
        stored = _file_scores(out, r["model"], r["task"])[r["subset"]]
        assert r["main_score"] == stored[r["main_score_name"]] == stored["main_score"]
        (f,) = (out / "results").rglob(f"{r['model'].replace('/', '__')}/*/{r['task']}.json")
        assert r["dataset_revision"] == json.loads(f.read_text())["dataset_revision"] and r["dataset_revision"]
    main = {r["task"]: r["main_score_name"] for r in rep["rows"]}
    assert main == {
        "SynthAuthorsAuthorRetrieval": "ndcg_at_10",
        "SynthAuthorsAuthorTripletClassification": "accuracy",
        "SynthIRIRTriplets": "accuracy",
        "SynthPairsVerification": "pan_platt_abstain_overall",
    }
    triplet = next(r for r in rep["rows"] if r["task"] == "SynthIRIRTriplets")
    assert (
        triplet["chance"] == 0.5
        and triplet["counts"]["n_triplets"]
        == _file_scores(out, triplet["model"], "SynthIRIRTriplets")["default"]["n_triplets"]
    )
    ret = next(r for r in rep["rows"] if r["task"] == "SynthAuthorsAuthorRetrieval")
    assert 0 < ret["chance"] < ret["main_score"]  # random-ranking nDCG@10 from the qrels and the pool size
    md = (out / "report.md").read_text()
    for png in ("author_score_vs_k.png", "recall_at_k.png", "SynthPairsVerification_roc_reliability.png"):
        assert (out / "plots" / png).stat().st_size > 1000 and f"(plots/{png})" in md
    csv_lines = (out / "report.csv").read_text().splitlines()
    assert csv_lines[0] == (
        "family,task,split,subset,model,model_revision,dataset_revision,score,value,is_main,chance,"
        "chance_low,chance_high,ci_low,ci_high,resampled"
    )
    assert sum(1 for line in csv_lines if ",1," in line and line.split(",")[9] == "1") == len(rep["rows"])


def test_comparisons_from_per_item_data(evaluated):
    out, _, _, _ = evaluated
    rep = json.loads((out / "report.json").read_text())
    comps = {(c["task"], c["subset"], c["candidate"]): c for c in rep["comparisons"]}
    assert {c["reference"] for c in rep["comparisons"]} == {MODELS[0]}
    for subset in ("base-2", "base-3"):
        c = comps[("SynthAuthorsAuthorRetrieval", subset, MODELS[1])]
        # per-query nDCG@10 recomputed from mteb's predictions + qrels averages to mteb's own number
        assert c["reference_value"] == pytest.approx(
            _file_scores(out, MODELS[0], "SynthAuthorsAuthorRetrieval")[subset]["ndcg_at_10"], abs=1e-4
        )
        assert c["candidate_value"] == pytest.approx(
            _file_scores(out, MODELS[1], "SynthAuthorsAuthorRetrieval")[subset]["ndcg_at_10"], abs=1e-4
        )
        assert c["ci_low"] <= c["diff"] <= c["ci_high"] and c["n_items"] == 18
        assert c["verdict"] in ("better", "worse", "within noise")
    v = comps[("SynthPairsVerification", "default", MODELS[1])]
    assert v["statistic"] == "pan_platt_abstain_overall"
    assert v["reference_value"] == pytest.approx(
        v["reference_main"], abs=1e-6
    )  # mteb stores 6 decimals; PAN overall recomputed from answers + labels
    # the synthetic IR test split holds one query: its triplets are one unit, no interval can be drawn from it
    assert comps[("SynthIRIRTriplets", "default", MODELS[1])]["verdict"] == "6 items in 1 IR query: no interval"
    task = "SynthAuthorsAuthorTripletClassification"
    for subset in ("base-2", "base-3"):
        c = comps[(task, subset, MODELS[1])]
        ref, cand = (_file_scores(out, m, task)[subset] for m in MODELS)
        # one 0/1 per triplet from each model's prediction file: the means are the stored accuracies
        assert (c["statistic"], c["reference_value"], c["candidate_value"]) == (
            "accuracy",
            pytest.approx(ref["accuracy"], abs=1e-6),
            pytest.approx(cand["accuracy"], abs=1e-6),
        )
        assert c["n_items"] == ref["n_triplets"] == cand["n_triplets"]
        (f,) = (out / "predictions").rglob(f"{MODELS[0].replace('/', '__')}/*/{task}_predictions.json")
        per_item = json.loads(f.read_text())[subset]["test"]["per_item"]
        assert c["n_groups"] == len(set(per_item["groups"])) and 2 <= c["n_groups"] < c["n_items"]  # anchor authors
        assert c["ci_low"] <= c["diff"] <= c["ci_high"] and "cluster bootstrap" in c["source"]
        assert c["diff"] == pytest.approx(c["candidate_value"] - c["reference_value"])
    md = (out / "report.md").read_text()
    assert (
        f"| {task} | base-2 | {MODELS[0]} | {MODELS[1]} | accuracy |" in md
        and f"| anchor author | {c['n_items']} ({c['n_groups']}) |" in md
    )
    # verification pairs are resampled by author: the protocol wrote each pair's authors beside its answers
    (f,) = (out / "predictions").rglob(f"{MODELS[0].replace('/', '__')}/*/SynthPairsVerification_predictions.json")
    pred = json.loads(f.read_text())["default"]["test"]
    truth = out.parent / "verification" / "SynthPairs" / "test" / "truth.jsonl"
    authors = {r["id"]: r["authors"] for r in map(json.loads, truth.read_text().splitlines())}
    assert pred["authors"] == [authors[i] for i in pred["id"]]
    assert (v["unit"], v["n_groups"]) == ("author", len({a for pair in pred["authors"] for a in pair}))


def test_baselines_table_reads_the_result_files(evaluated):
    """scripts/baselines_table.py reads through report.reader.read_results: one cell per subset,
    'not run' when absent."""
    import importlib.util

    out, _, _, _ = evaluated
    spec = importlib.util.spec_from_file_location(
        "baselines_table", Path(__file__).resolve().parents[1] / "scripts" / "baselines_table.py"
    )
    bt = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bt)
    tasks = ["SynthAuthorsAuthorTripletClassification", "SynthAuthorsAuthorRetrieval"]
    lines = bt.table(out / "results", [MODELS[1], "nope/model"], tasks).splitlines()
    trip, ret = (_file_scores(out, MODELS[1], t) for t in tasks)
    assert lines[2] == (
        f"| {MODELS[1]} | {trip['base-2']['accuracy']:.4f} / {trip['base-3']['accuracy']:.4f} "
        f"| {ret['base-2']['ndcg_at_10']:.4f} / {ret['base-3']['ndcg_at_10']:.4f} |"
    )
    assert lines[3] == "| nope/model | not run | not run |"


def test_report_command_covers_every_family(evaluated):
    out, _, _, env = evaluated
    r = run(["mteb-contrastive", "report", str(out / "results")], env)
    assert r.returncode == 0, r.stderr[-2000:]
    for title in ("## Author tasks", "## Authorship verification", "## Paragraph Vector IR triplets", "## Comparison"):
        assert title in r.stdout
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in r.stdout.splitlines()]
    # the family's headline rows (task, model, main score, 95% CI, chance, ...), not the details or comparison
    ir = [c for c in rows if c[0] == "SynthIRIRTriplets" and c[1] in MODELS]
    assert len(ir) == 2
    for cells in ir:
        stored = _file_scores(out, cells[1], "SynthIRIRTriplets")["default"]["accuracy"]
        assert cells[2:5] == [f"{stored:.4f} accuracy", "n/a (6 items in 1 IR query: no interval)", "0.5000"]
    r = run(["mteb-contrastive", "report", str(out / "no-such-folder")], env)
    assert (
        r.returncode == 2
        and r.stderr.strip() == f"error: {out / 'no-such-folder'}: not a folder (give an mteb --output-folder)"
    )


def test_second_call_recomputes_nothing(evaluated):
    out, _, cmd, env = evaluated
    files = {p: p.stat().st_mtime_ns for p in (out / "results").rglob("*.json")}
    # what a run killed while writing left: none of it survives a rerun that recomputes nothing
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = [
        out / f".run_info.json.{dead.pid}.ab12cd34.tmp",
        out / "results" / f".staged.{dead.pid}.ef56gh78.tmp",
        out / "plots" / f".recall_at_k.png.{dead.pid}.tmp.png",
    ]
    stale[0].write_text("{")
    (stale[1] / "org__m" / "rev").mkdir(parents=True)
    (stale[1] / "org__m" / "rev" / "T.json").write_text("{")
    stale[2].parent.mkdir(exist_ok=True)
    stale[2].write_text("cut")
    second = run(cmd, env)
    assert second.returncode == 0, second.stderr[-2000:]
    assert "$ " not in second.stdout  # no mteb run at all
    for m in MODELS:
        assert f"{m}: every result is already there, nothing to run" in second.stdout
    assert {p: p.stat().st_mtime_ns for p in (out / "results").rglob("*.json")} == files
    assert [p for p in stale if p.exists()] == []


def test_user_errors_are_one_line_exit_2(synth, tmp_path):
    _, env = synth
    r = run(["mteb-contrastive", "evaluate", "-m", "no-such-org/no-such-model", "--out", str(tmp_path / "o")], env)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith("error: -m no-such-org/no-such-model: ")
    r = run(
        ["mteb-contrastive", "evaluate", "-m", MODELS[0], "--out", str(tmp_path / "o")],
        {"MTEB_CONTRASTIVE_SHARED": str(tmp_path / "none")},
    )
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "error: no benchmark has its data here; see the skip lines above (docs/environment.md lists the variables)"
    ]


def test_mteb_run_stops_before_loading_the_model(tmp_path):
    r = run(
        [
            "mteb",
            "run",
            "-m",
            "sentence-transformers/all-MiniLM-L6-v2",
            "-t",
            "PAN21Verification",
            "--output-folder",
            str(tmp_path),
        ],
        {"MTEB_CONTRASTIVE_PAN21": ""},
    )
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "mteb: error: PAN21Verification: the PAN texts are not on the Hub; "
        "set MTEB_CONTRASTIVE_PAN21 to a folder with validation/ and test/ (pairs.jsonl + truth.jsonl each)"
    ]
    assert "Loading weights" not in r.stderr + r.stdout


def test_generic_sweep_lists_only_configured_tasks_and_benchmarks_resolve(synth, tmp_path):
    _, env = synth
    official = tmp_path / "quoter"
    official.mkdir()
    (official / "english.txt").write_text("")
    # PAN21 and the official QuoteR modern/classical Chinese files are not configured; QuoteR English is
    # (its file exists)
    code = (
        "import mteb; ours = lambda ts: sorted(t.metadata.name for t in ts if "
        "type(t).__module__.startswith('mteb_contrastive')); "
        "print(ours(mteb.get_tasks(task_types=['Retrieval']))); "
        "print(ours(mteb.get_tasks(task_types=['PairClassification']))); "
        "print(ours(mteb.get_benchmark('mteb-contrastive').tasks)); "
        "print(ours(mteb.get_benchmark('mteb-contrastive-ir-triplets').tasks))"
    )
    r = run([sys.executable, "-c", code], {**env, "MTEB_CONTRASTIVE_QUOTER_OFFICIAL": str(official)})
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.splitlines() == [
        "['QuoteREnglishRetrieval', 'SynthAuthorsAuthorRetrieval']",
        "['SynthAuthorsAuthorTripletClassification', 'SynthIRIRTriplets', 'SynthPairsVerification']",
        "['QuoteREnglishRetrieval', 'SynthAuthorsAuthorRetrieval', 'SynthAuthorsAuthorTripletClassification', "
        "'SynthIRIRTriplets', 'SynthPairsVerification']",
        "['SynthIRIRTriplets']",
    ]


def test_stock_mteb_run_of_a_benchmark(synth, tmp_path):
    _, env = synth
    r = run(
        [
            "mteb",
            "run",
            "-m",
            "mteb-contrastive/tfidf-words",
            "-b",
            "mteb-contrastive-ir-triplets",
            "--output-folder",
            str(tmp_path),
            "-v",
            "0",
        ],
        env,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    (f,) = tmp_path.rglob("SynthIRIRTriplets.json")
    s = json.loads(f.read_text())["scores"]["test"][0]
    assert s["error_rate"] == pytest.approx(100 * (1 - s["accuracy"]))


def test_help_loads_no_model_library_and_shows_defaults():
    # --help stays fast by what it imports (no torch, no sentence-transformers), not by a clock
    code = (
        "import sys\nfrom mteb_contrastive.cli.main import main\n"
        "try:\n    main(['evaluate', '--help'])\nexcept SystemExit:\n    pass\n"
        "print('torch' in sys.modules, 'sentence_transformers' in sys.modules)"
    )
    r = run([sys.executable, "-c", code])
    assert r.returncode == 0 and r.stdout.splitlines()[-1] == "False False"
    assert "(default: build/release)" in r.stdout and "(default: default)" in r.stdout
    r = run(["mteb-contrastive", "report", "--help"])
    assert r.returncode == 0 and "(default: print)" in r.stdout


def test_search_only_models_get_retrieval_tasks_only():
    import mteb

    from mteb_contrastive.cli.evaluate import is_search_only

    assert is_search_only(mteb.get_model_meta("mteb/baseline-bm25s"))
    assert not is_search_only(mteb.get_model_meta("mteb-contrastive/tfidf-words"))
    assert not is_search_only(mteb.get_model_meta("sentence-transformers/all-MiniLM-L6-v2"))


def test_cached_result_is_keyed_by_the_dataset_revision(tmp_path):
    from mteb_contrastive.cli.evaluate import cached_result

    folder = tmp_path / "results" / "org__m" / "rev1"
    folder.mkdir(parents=True)
    result = {  # a task result as mteb writes it (one of another shape is missing: test_ecosystem.py)
        "dataset_revision": "abc",
        "task_name": "T",
        "mteb_version": "2.26.24",
        "scores": {"test": [{"hf_subset": "default", "languages": ["eng-Latn"], "main_score": 0.5}]},
        "evaluation_time": 1.0,
    }
    (folder / "T.json").write_text(json.dumps(result))
    assert cached_result(tmp_path, "org/m", "rev1", "T", "abc") == folder / "T.json"
    assert cached_result(tmp_path, "org/m", "rev1", "T", "abd") is None  # content changed: rerun
    assert cached_result(tmp_path, "org/m", "rev2", "T", "abc") is None  # another model revision
    assert cached_result(tmp_path, "org/m", "rev1", "U", "abc") is None


def test_device_is_passed_to_every_mteb_run_and_recorded(evaluated):
    out, first, _, _ = evaluated
    # mteb run's --device is a GPU index: cpu is given to every run by hiding the GPUs from it
    runs = [line for line in first.stdout.splitlines() if line.startswith("$ ")]
    assert len(runs) == 2 and all(line.startswith("$ CUDA_VISIBLE_DEVICES= ") for line in runs)
    info = json.loads((out / "run_info.json").read_text())
    assert [r["model"] for r in info["runs"]] == MODELS
    for r in info["runs"]:
        assert r["device"] == {"requested": "cpu", "used": "cpu"} and r["exit_status"] == 0
        assert r["libraries"]["mteb"] and r["libraries"]["scikit-learn"] and r["machine"]["cpus"] >= 1
        assert "--device" not in r["command"] and r["wall_s"] > 0
    md = (out / "report.md").read_text()
    assert "## How the results were computed" in md
    assert "(`--device cpu`), `mteb run` wall time" in md and "Every run: " in md
    for m in MODELS:  # the wall time of each task is mteb's evaluation_time of its result file
        (f,) = (out / "results").rglob(f"{m.replace('/', '__')}/*/SynthIRIRTriplets.json")
        t = json.loads(f.read_text())["evaluation_time"]
        run_no = 1 + MODELS.index(m)
        assert f"| {m} | SynthIRIRTriplets | `cpu` | {run_no} | {t:.1f} |" in md


def test_report_tables_show_simulated_chance_units_and_cross_document_columns(evaluated):
    out, _, _, _ = evaluated
    rep = json.loads((out / "report.json").read_text())
    md = (out / "report.md").read_text()
    ver = [r for r in rep["rows"] if r["task"] == "SynthPairsVerification"]
    for r in ver:  # the chance of the calibrated main score is simulated, with its range, never "AUC 0.5"
        sim = r["chance_simulated"]["pan_platt_abstain_overall"]
        assert r["chance"] == sim["mean"] and sim["runs"] == 30 and r["chance_range"] == [sim["low"], sim["high"]]
        assert r["chance_text"].startswith(f"{sim['mean']:.4f} (simulated: 95% of 30 random runs in ")
        assert (
            r["interval"]["unit"] == "author" and r["interval"]["ci_low"] <= r["main_score"] <= r["interval"]["ci_high"]
        )
    assert "AUC 0.5; majority" not in md
    # the chance level is simulated by the protocol at the model's own scale and stored in its result
    for r in ver:
        assert r["scores"]["simulated_chance_runs"] == 30 and "own scale" in r["chance_method"]
    # the author-retrieval table: the cross-document main score and its chance beside the paper's
    # (the headline table beside its interval and chance; the details table the score and its chance)
    lines = md.splitlines()
    head = next(line for line in lines if line.startswith("| task | model |") and "cross-document" in line)
    assert "| main score (0-1) | 95% CI | chance | cross-document (own document excluded) | resampled |" in head
    detail = next(line for line in lines if line.startswith("| task |") and "ndcg_at_10_cross_document" in line)
    assert "| main score | ndcg_at_10_cross_document | chance (cross-document) |" in detail
    ret = next(r for r in rep["rows"] if r["task"] == "SynthAuthorsAuthorRetrieval")
    assert ret["cross_document"] == ret["scores"]["ndcg_at_10_cross_document"]
    assert ret["cross_document_chance"] == ret["scores"]["random_ndcg_at_10_cross_document"]
    # every comparison table says what it resampled
    assert "| p | p (Holm) | blocks (min p) | resampled | items (units) | verdict |" in md


def test_third_model_and_another_revision(evaluated, tmp_path, monkeypatch):
    """Three models: every pair compared and the separable pairs listed; a result of another dataset
    revision is listed as not comparable with both revisions."""
    import shutil

    from mteb_contrastive.report.write import build_report, render_markdown

    out, _, _, _ = evaluated
    monkeypatch.setenv("MTEB_CONTRASTIVE_CACHE", str(tmp_path / "cache"))
    shutil.copytree(out / "results", tmp_path / "results")
    shutil.copytree(out / "predictions", tmp_path / "predictions")
    src = MODELS[1].replace("/", "__")
    for kind in ("results/results", "predictions"):  # mteb's result cache keeps a results/ level of its own
        shutil.copytree(tmp_path / kind / src, tmp_path / kind / "test__third")
    third = tmp_path / "results" / "results" / "test__third"
    (meta,) = third.rglob("model_meta.json")
    meta.write_text(json.dumps({**json.loads(meta.read_text()), "name": "test/third"}))
    (moved,) = third.rglob("SynthIRIRTriplets.json")
    moved.write_text(json.dumps({**json.loads(moved.read_text()), "dataset_revision": "older-revision"}))
    rep = build_report(tmp_path / "results", models=[*MODELS, "test/third"], load_references=False, chance_runs=10)
    pairs = {(c["task"], c["subset"], c["reference"], c["candidate"]): c for c in rep["comparisons"]}
    task = "SynthAuthorsAuthorTripletClassification"
    assert {(a, b) for (t, s, a, b) in pairs if t == task and s == "base-2"} == {
        (MODELS[0], MODELS[1]),
        (MODELS[0], "test/third"),
        (MODELS[1], "test/third"),
    }
    # test/third is a copy of MODELS[1]: identical answers, difference 0, not separable
    same = pairs[(task, "base-2", MODELS[1], "test/third")]
    assert (same["diff"], same["ci_low"], same["ci_high"], same["verdict"]) == (0.0, 0.0, 0.0, "within noise")
    sep = next(e for e in rep["separability"] if e["task"] == task and e["subset"] == "base-2")
    assert f"{MODELS[1]} ~ test/third" in sep["not_separable"]
    ir = pairs[("SynthIRIRTriplets", "default", MODELS[0], "test/third")]
    rev = ir["reference_dataset_revision"]
    assert (ir["verdict"], ir["reason"]) == ("not comparable", f"dataset revision {rev} vs older-revision")
    md = render_markdown(rep)
    assert "## Which models are separable" in md and "## Not comparable" in md
    assert f"| SynthIRIRTriplets | default | {MODELS[0]} | test/third | `{rev}` | `older-revision` |" in md


def test_device_reaches_mteb_run_as_its_gpu_index():
    from mteb_contrastive.cli.evaluate import mteb_run_device

    assert mteb_run_device(None) == ([], {})
    assert mteb_run_device("cpu") == ([], {"CUDA_VISIBLE_DEVICES": ""})
    assert mteb_run_device("cuda") == (["--device", "0"], {})
    assert mteb_run_device("cuda:1") == mteb_run_device("1") == (["--device", "1"], {})
    with pytest.raises(ValueError, match=r"^--device mps: expected cpu, cuda, cuda:N or a GPU index N"):
        mteb_run_device("mps")


def test_bad_chance_runs_is_one_line(evaluated):
    out, _, _, env = evaluated
    r = run(["mteb-contrastive", "report", str(out / "results")], {**env, "MTEB_CONTRASTIVE_CHANCE_RUNS": "many"})
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip() == (
        "mteb-contrastive: error: MTEB_CONTRASTIVE_CHANCE_RUNS=many: expected a whole number > 0 "
        "(unset it for the default, 1000)"
    )


def test_device_resolved_without_torch_where_no_gpu_driver_exists(monkeypatch, tmp_path):
    import types

    from mteb_contrastive.report import environment

    # no GPU device file: the answer needs no torch (a fake torch that would answer otherwise is not asked)
    monkeypatch.setattr(environment.sys, "platform", "linux")
    monkeypatch.setattr(environment, "GPU_DEVICE_FILES", (str(tmp_path / "absent"),))
    asked = []
    fake = types.SimpleNamespace(
        cuda=types.SimpleNamespace(
            is_available=lambda: asked.append("is_available") or True,
            current_device=lambda: 3,
            get_device_name=lambda d: f"FakeGPU {d}",
        ),
        device=lambda s: s,
    )
    monkeypatch.setitem(sys.modules, "torch", fake)
    assert environment.gpu_possible() is False
    assert environment.resolve_device(None) == {"requested": None, "used": "cpu"}
    assert environment.resolve_device("cuda:1") == {"requested": "cuda:1", "used": "cuda:1"}
    assert environment.resolve_device("cpu") == {"requested": "cpu", "used": "cpu"} and asked == []
    # a driver file: torch is asked, and mteb's default is the GPU it names
    (tmp_path / "nvidia").mkdir()
    monkeypatch.setattr(environment, "GPU_DEVICE_FILES", (str(tmp_path / "nvidia"),))
    assert environment.resolve_device(None) == {"requested": None, "used": "cuda:3", "gpu": "FakeGPU cuda:3"}
    assert environment.resolve_device("1") == {"requested": "1", "used": "cuda:1", "gpu": "FakeGPU cuda:1"}
    assert asked == ["is_available", "is_available"]
    monkeypatch.setattr(environment.sys, "platform", "darwin")
    assert environment.gpu_possible() is False


def _child(tmp_path, name, *, wait_for=None, rc=0, lines=("one", "two"), wait=20):
    """A command that says it started (a file), waits up to ``wait`` s for another's start file, prints
    ``lines`` to stderr (with a progress-bar redraw on the first), and exits ``rc``."""
    code = (
        "import pathlib, sys, time\n"
        f"pathlib.Path({str(tmp_path / name)!r}).touch()\n"
        f"other = {str(tmp_path / wait_for) if wait_for else None!r}\n"
        "t = time.monotonic()\n"
        f"while other and not pathlib.Path(other).exists() and time.monotonic() - t < {wait}: time.sleep(0.05)\n"
        "seen = bool(other) and pathlib.Path(other).exists()\n"
        f"sys.stderr.write('{name}: 0%\\r{name}: 100%\\n')\n"
        f"for x in {list(lines)!r}: sys.stderr.write(f'{name} {{x}} saw-other={{seen}}\\n')\n"
        f"sys.exit({rc})\n"
    )
    return [sys.executable, "-c", code]


def test_runs_side_by_side_overlap_and_hold_all_but_one_output(tmp_path, capfd):
    from mteb_contrastive.cli.evaluate import run_models

    # a waits for b's start: with two at once it sees it; b fails with a one-line error
    cmds = [_child(tmp_path, "a", wait_for="b"), _child(tmp_path, "b", rc=3, lines=("error: boom",))]
    got = dict(run_models(cmds, dict(__import__("os").environ), jobs=2))
    assert got[0].rc == 0 and got[1].rc == 3
    assert got[0].tail[-2:] == ["a one saw-other=True", "a two saw-other=True"]
    assert got[1].tail == ["b: 100%", "b error: boom saw-other=False"]
    out, err = capfd.readouterr()
    assert out.count(f"$ {sys.executable} -c import pathlib") == 2  # both announced
    assert "b: 100%\nb error: boom saw-other=False\n" in err  # held, printed whole, the redraw dropped
    assert "b: 0%" not in err and "a: 0%\ra: 100%" in err  # a streamed live, as it came
    # one at a time: the first never sees the second started, and the order is the list's
    for f in ("a", "b"):
        (tmp_path / f).unlink()
    cmds = [_child(tmp_path, "a", wait_for="b", wait=1), _child(tmp_path, "b")]
    got = list(run_models(cmds, dict(__import__("os").environ), jobs=1))
    assert [i for i, _ in got] == [0, 1] and got[0][1].tail[-1] == "a two saw-other=False"


def test_evaluate_with_two_jobs_gives_the_same_results(evaluated, tmp_path):
    out, first, cmd, env = evaluated
    out2 = tmp_path / "release-jobs"
    second = run([*[str(out2) if x == str(out) else x for x in cmd], "--jobs", "2"], env)
    assert second.returncode == 0, second.stderr[-3000:]
    assert sum(line.startswith("$ ") for line in second.stdout.splitlines()) == 2
    for m in MODELS:
        for f in (out / "results").rglob(f"{m.replace('/', '__')}/*/*.json"):
            if f.name == "model_meta.json":
                continue
            g = out2 / f.relative_to(out)
            a, b = json.loads(f.read_text()), json.loads(g.read_text())
            assert a["dataset_revision"] == b["dataset_revision"]
            strip = {"evaluation_time", "encoding_seconds", "encoding_texts_per_second"}
            for split in a["scores"]:
                sa = [{k: v for k, v in e.items() if k not in strip} for e in a["scores"][split]]
                sb = [{k: v for k, v in e.items() if k not in strip} for e in b["scores"][split]]
                assert sa == sb, (m, f.name)
    info = json.loads((out2 / "run_info.json").read_text())
    assert sorted(r["model"] for r in info["runs"]) == sorted(MODELS) and all(
        r["exit_status"] == 0 for r in info["runs"]
    )
    rep1, rep2 = json.loads((out / "report.json").read_text()), json.loads((out2 / "report.json").read_text())
    assert [(r["task"], r["model"], r["main_score"]) for r in rep1["rows"]] == [
        (r["task"], r["model"], r["main_score"]) for r in rep2["rows"]
    ]
