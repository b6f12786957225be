"""Reranker ablations as a workflow: `evaluate` runs two-stage models, the stock `mteb run` refuses what cannot
run in one line, the cross-encoder is scored at its trained length, every stage's cost is recorded."""

from __future__ import annotations

import json
import os
from pathlib import Path

import mteb
import numpy as np
import pytest
from conftest import SHARED, run
from hypothesis import given, settings
from hypothesis import strategies as st
from synthetic_benchmarks import build_all

from mteb_contrastive.cli.evaluate import failure_reason, search_only_reason
from mteb_contrastive.config import MINILM, RERANKER_ENV, bundled_minilm
from mteb_contrastive.models.rerank import FIRST_STAGES, model_meta_for_name
from mteb_contrastive.search.rerank import (
    UNSET,
    BiEncoderReranker,
    CrossEncoderReranker,
    TwoStageSearch,
    is_two_stage,
    same_model,
    trained_length,
    two_stage_meta,
)

RERANK_ENVS = tuple(RERANKER_ENV.values())


@pytest.fixture(scope="module")
def synth(tmp_path_factory):
    root = tmp_path_factory.mktemp("synth-rerank")
    folders = build_all(root)
    env = {
        "MTEB_CONTRASTIVE_DATASETS": str(folders["datasets"]),
        "MTEB_CONTRASTIVE_VERIFICATION": str(folders["verification"]),
        "MTEB_CONTRASTIVE_SHARED": str(root / "no-shared-data"),
        "MTEB_CONTRASTIVE_CACHE": str(root / "cache"),
        "MTEB_CONTRASTIVE_CHANCE_RUNS": "30",
    }
    return root, env


@pytest.fixture(scope="module")
def evaluated(synth):
    """The issue's example plus a model that fails (ce without a cross-encoder) and a second k."""
    root, env = synth
    out = root / "eval"
    models = ["rerank/bm25+li@10", "rerank/bm25+ce@10", "rerank/bm25+li@3", "mteb/baseline-bm25s"]
    cmd = ["mteb-contrastive", "evaluate", *[a for m in models for a in ("-m", m)], "--out", str(out)]
    saved = {k: os.environ.pop(k) for k in RERANK_ENVS if k in os.environ}
    try:
        res = run([*cmd, "--device", "cpu"], env, timeout=1800)
    finally:
        os.environ.update(saved)
    return out, res


def _result(out: Path, model: str, task: str) -> dict:
    (f,) = (out / "results").rglob(f"{model.replace('/', '__')}/*/{task}.json")
    return json.loads(f.read_text())


def test_evaluate_plans_two_stage_models_for_retrieval_and_goes_on_past_a_failure(evaluated):
    out, res = evaluated
    lines = res.stdout.splitlines()
    assert "Traceback" not in res.stderr and "needs an encoder" not in res.stderr
    not_run = "SynthAuthorsAuthorTripletClassification, SynthIRIRTriplets, SynthPairsVerification"
    assert (
        f"rerank/bm25+li@10: a two-stage search model (first stage + reranker, no embeddings): retrieval tasks "
        f"only; not run: {not_run}" in lines
    )
    assert f"mteb/baseline-bm25s: a search model (no embeddings): retrieval tasks only; not run: {not_run}" in lines
    # the failing model: one error line naming it and why; the models after it still ran, the report was written
    errors = [x for x in res.stderr.splitlines() if x.startswith("error: ")]
    assert errors == [
        "error: mteb run of rerank/bm25+ce@10 failed (exit 2): rerank/bm25+ce@10: the ce reranker needs a trained "
        "cross-encoder: set MTEB_CONTRASTIVE_CROSS_ENCODER (or pass the model) to a cross-encoder folder, e.g. one "
        "made by `mteb-contrastive train-reranker` (docs/training.md); MiniLM with a random classification head is "
        "not used as a default; the results already written are kept, the other models go on"
    ]
    assert res.returncode == 2 and lines[-1] == f"report: {out / 'report.md'}"
    rep = json.loads((out / "report.json").read_text())
    assert [f["model"] for f in rep["failed"]] == ["rerank/bm25+ce@10"]
    assert rep["failed"][0]["reason"].startswith("mteb run failed (exit 2): rerank/bm25+ce@10: the ce reranker")
    assert {r["model"] for r in rep["rows"]} == {"rerank/bm25+li@10", "rerank/bm25+li@3", "mteb/baseline-bm25s"}
    assert {r["task"] for r in rep["rows"]} == {"SynthAuthorsAuthorRetrieval"}
    md = (out / "report.md").read_text()
    assert "## Models that failed" in md and "- rerank/bm25+ce@10: mteb run failed (exit 2)" in md


def test_each_stage_records_its_work_and_seconds_on_author_retrieval(evaluated):
    out, _ = evaluated
    for k in (3, 10):
        stored = _result(out, f"rerank/bm25+li@{k}", "SynthAuthorsAuthorRetrieval")["scores"]["test"]
        assert {s["hf_subset"] for s in stored} == {"base-2", "base-3"}
        for s in stored:
            n_docs, n_queries = s["pool_size"], s["n_queries"]  # the protocol's own counts of this subset
            assert s["rerank_k"] == k and s["first_stage_texts"] == n_docs + n_queries
            # every query's top-k rescored once (BM25 returns every candidate here: they share words)
            assert s["rerank_pairs"] == n_queries * min(k, n_docs)
            assert 0 < s["rerank_texts_encoded"] <= n_queries + min(n_docs, n_queries * k)
            for key in ("first_stage_index_seconds", "first_stage_search_seconds", "rerank_seconds"):
                assert s[key] >= 0
            assert s["first_stage_seconds"] == pytest.approx(
                s["first_stage_index_seconds"] + s["first_stage_search_seconds"], abs=2e-3
            )
            assert s["rerank_max_length"] == 256  # MiniLM's max_seq_length, the length the MaxSim reranker reads


def test_mteb_run_with_the_cross_encoder_unset_is_one_line(tmp_path):
    """The issue's example through the stock command: the meta's loader arguments reach the loader."""
    env = {"MTEB_CONTRASTIVE_SHARED": str(SHARED)}
    saved = {k: os.environ.pop(k) for k in RERANK_ENVS if k in os.environ}
    try:
        res = run(
            [
                "mteb",
                "run",
                "-m",
                "rerank/minilm+ce@10",
                "-t",
                "QuoteRKJVNovelsEnglishRetrieval",
                "--output-folder",
                str(tmp_path / "r"),
            ],
            env,
        )
        bi = run(["mteb", "run", "-m", "rerank/minilm+bi@50", "-t", "QuoteRKJVNovelsEnglishRetrieval"], env)
    finally:
        os.environ.update(saved)
    assert res.returncode == 2 and "Traceback" not in res.stderr and "OSError" not in res.stderr
    assert res.stderr.strip().splitlines() == [
        "mteb: error: rerank/minilm+ce@10: the ce reranker needs a trained cross-encoder: set "
        "MTEB_CONTRASTIVE_CROSS_ENCODER (or pass the model) to a cross-encoder folder, e.g. one made by "
        "`mteb-contrastive train-reranker` (docs/training.md); MiniLM with a random classification head is not "
        "used as a default"
    ]
    assert bi.returncode == 2 and bi.stderr.strip().splitlines() == [
        "mteb: error: rerank/minilm+bi@50: the bi reranker's model (all-MiniLM-L6-v2 (bundled)) is the first "
        "stage's (sentence-transformers/all-MiniLM-L6-v2); rescoring its top-k by the same embeddings changes "
        "nothing. Set MTEB_CONTRASTIVE_BI_ENCODER to another bi-encoder, or use the li reranker (MaxSim over its "
        "tokens)"
    ]


def test_unset_reranker_is_none_in_the_loader_arguments(monkeypatch):
    monkeypatch.delenv(RERANKER_ENV["ce"], raising=False)
    meta = model_meta_for_name("rerank/bm25+ce@7")
    assert meta.loader_kwargs["reranker_model"] is None and meta.revision.startswith(f"ce-{UNSET}-")
    with pytest.raises(ValueError, match=r"^rerank/bm25\+ce@7: the ce reranker needs a trained cross-encoder"):
        meta.load_model()  # as mteb calls it: the loader with the meta's own loader_kwargs
    assert is_two_stage(meta) and search_only_reason(meta).startswith("a two-stage search model")
    assert search_only_reason(mteb.get_model_meta(MINILM)) is None


@settings(max_examples=40, deadline=None)
@given(
    first=st.sampled_from(sorted(FIRST_STAGES)),
    kind=st.sampled_from(["ce", "li", "bi"]),
    k=st.integers(1, 10_000),
    bi_model=st.sampled_from([None, MINILM, "bundled", "org/another-bi-encoder"]),
)
def test_every_rerank_name_is_two_stage_and_same_model_bi_is_refused(first, kind, k, bi_model):
    saved = {key: os.environ.pop(key) for key in RERANK_ENVS if key in os.environ}
    try:
        if bi_model is not None:
            os.environ[RERANKER_ENV["bi"]] = bundled_minilm() if bi_model == "bundled" else bi_model
        name = f"rerank/{first}+{kind}@{k}"
        refused = first == "minilm" and kind == "bi" and bi_model in (None, MINILM, "bundled")
        if refused:
            with pytest.raises(ValueError, match="changes nothing"):
                model_meta_for_name(name)
            return
        meta = model_meta_for_name(name)
        assert is_two_stage(meta) and search_only_reason(meta) is not None
        assert meta.loader_kwargs["k"] == k and meta.revision.endswith(f"-k{k}")
    finally:
        for key in RERANK_ENVS:
            os.environ.pop(key, None)
        os.environ.update(saved)


def test_same_model_names_the_bundled_folder_and_its_hub_name_alike(tmp_path):
    assert same_model(bundled_minilm(), MINILM) and same_model(MINILM, MINILM)
    assert not same_model(MINILM, "org/other") and not same_model(None, MINILM)
    assert not same_model(str(tmp_path), MINILM)
    first = mteb.get_model("mteb/baseline-bm25s")
    TwoStageSearch(first, BiEncoderReranker(bundled_minilm()), k=5)  # BM25 + a bi-encoder: a real second stage

    class MiniLMFirst:
        mteb_model_meta = mteb.get_model_meta(MINILM)

    with pytest.raises(ValueError, match="changes nothing"):
        TwoStageSearch(MiniLMFirst(), BiEncoderReranker(bundled_minilm()), k=5)


@settings(max_examples=60, deadline=None)
@given(
    record=st.one_of(
        st.none(),
        st.integers(-5, 4096),
        st.text(max_size=5),
        st.floats(allow_nan=False, allow_infinity=False),
        st.booleans(),
    ),
    shape=st.sampled_from(["config", "top", "no-config", "not-json"]),
)
def test_trained_length_reads_only_a_recorded_positive_context_length(tmp_path_factory, record, shape):
    folder = tmp_path_factory.mktemp("model")
    f = folder / "training_config.json"
    if shape == "config":
        f.write_text(json.dumps({"recipe": "r", "config": {"context_length": record}}))
    elif shape == "top":
        f.write_text(json.dumps({"context_length": record}))
    elif shape == "not-json":
        f.write_text("{cut")
    want = record if shape == "config" and type(record) is int and record > 0 else None
    assert trained_length(str(folder)) == want
    assert trained_length(MINILM) is None  # a Hub name: nothing recorded


def test_cross_encoder_is_scored_at_the_length_it_was_trained_for(tmp_path):
    from sentence_transformers import CrossEncoder

    from mteb_contrastive.search.rerank import make_reranker

    folder = tmp_path / "ce"
    CrossEncoder(bundled_minilm(), num_labels=1, max_length=300).save(str(folder))
    assert CrossEncoderReranker(str(folder)).max_length == 300  # nothing recorded: the model's own saved length
    (folder / "training_config.json").write_text(json.dumps({"config": {"context_length": 96}}))
    ce = make_reranker("ce", str(folder))
    assert ce.max_length == 96 and ce.model.max_seq_length == 96  # as train-reranker recorded it
    assert CrossEncoderReranker(str(folder), max_length=128).max_length == 128  # asked for: as asked
    # identity is content: the revision of a ce model says the length it is scored at
    untrained = tmp_path / "ce-untrained"
    CrossEncoder(bundled_minilm(), num_labels=1, max_length=300).save(str(untrained))
    assert two_stage_meta("rerank/bm25+ce@10", "mteb/baseline-bm25s", ce, 10).revision.endswith("-k10-len96")
    assert two_stage_meta("x", "y", None, 10, reranker_kind="ce", reranker_model=str(untrained)).revision.endswith(
        "-k10"
    )
    # what the model reads is cut at 96 tokens: a long pair scores as its first 96 tokens
    long = " ".join(["word"] * 400)
    tok = ce.model.tokenizer([("q", long)], truncation=True, max_length=ce.max_length)
    assert len(tok["input_ids"][0]) == 96
    s = ce.score(["q"], [[long, long + " tail words past the cut"]])[0]
    assert np.isclose(s[0], s[1])


def test_train_reranker_help_speaks_of_pairs_not_authors():
    res = run(["mteb-contrastive", "train-reranker", "--help"])
    assert res.returncode == 0
    text = " ".join(res.stdout.split())
    assert "per author" not in text
    assert "--batch-size BATCH_SIZE (query, candidate) pairs per batch" in text
    train = " ".join(run(["mteb-contrastive", "train", "--help"]).stdout.split())
    assert "two per author" in train


@settings(max_examples=60, deadline=None)
@given(
    noise=st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30), max_size=8),
    kind=st.sampled_from(["ours", "traceback", "none"]),
    message=st.text(alphabet="abcdefgh xyz:@+/", min_size=1, max_size=40).filter(lambda s: s.strip()),
)
def test_failure_reason_is_the_runs_error_line(noise, kind, message):
    noise = [x for x in noise if "error: " not in x and "Error" not in x and "Exception" not in x]
    if kind == "ours":
        tail = [*noise, f"mteb: error: {message}", "Evaluating tasks: 0%"]
        assert failure_reason(tail, 2) == " ".join(message.split())
    elif kind == "traceback":
        tail = ["Traceback (most recent call last):", '  File "x.py", line 1', f"TypeError: {message}", *noise]
        assert failure_reason(tail, 1) == " ".join(f"TypeError: {message}".split())
    else:
        lines = [" ".join(x.split()) for x in noise if x.strip()]
        assert failure_reason(noise, 3) == (lines[-1] if lines else "exit 3")


# ----------------------------------------------------------------------------- the report's reranking section


def test_report_reranking_section_compares_each_model_with_its_own_first_stage(evaluated):
    out, _ = evaluated
    rep = json.loads((out / "report.json").read_text())
    entries = rep["reranking"]
    assert sorted((e["model"], e["subset"]) for e in entries) == [
        (m, s) for m in ("rerank/bm25+li@10", "rerank/bm25+li@3") for s in ("base-2", "base-3")
    ]
    assert [e["k"] for e in entries if e["subset"] == "base-2"] == [3, 10]  # by k within (first stage, reranker)
    for e in entries:
        c = e["comparison"]
        assert e["first_stage"] == "mteb/baseline-bm25s" and e["orientation"] == "reranked minus first stage"
        assert (c["reference"], c["candidate"]) == ("mteb/baseline-bm25s", e["model"])
        first = _result(out, "mteb/baseline-bm25s", "SynthAuthorsAuthorRetrieval")["scores"]["test"]
        mine = _result(out, e["model"], "SynthAuthorsAuthorRetrieval")["scores"]["test"]
        (f,) = [s for s in first if s["hf_subset"] == e["subset"]]
        (m,) = [s for s in mine if s["hf_subset"] == e["subset"]]
        assert e["first_stage_main"] == f["ndcg_at_10"] and e["main_score"] == m["ndcg_at_10"]
        # per-query nDCG@10 from the prediction files averages to the stored scores; the difference is reranked - first
        assert c["reference_value"] == pytest.approx(f["ndcg_at_10"], abs=1e-4)
        assert c["candidate_value"] == pytest.approx(m["ndcg_at_10"], abs=1e-4)
        assert c["diff"] == pytest.approx(c["candidate_value"] - c["reference_value"], abs=1e-12)
        assert c["ci_low"] <= c["diff"] <= c["ci_high"] and c["unit"] == "query"
        # the report's rule: the interval excludes 0 and the Holm-adjusted p (one family with every comparison) < 0.05
        assert c["p_holm"] >= c["p_value"]
        apart = c["p_holm"] < 0.05
        assert c["verdict"] == (
            "better" if c["ci_low"] > 0 and apart else "worse" if c["ci_high"] < 0 and apart else "within noise"
        )
        assert (
            e["cost"]["rerank_pairs"] == m["rerank_pairs"] and e["cost"]["first_stage_texts"] == m["first_stage_texts"]
        )
    md = (out / "report.md").read_text()
    section = md[md.index("## Reranking") :]
    assert "difference (reranked − first stage)" in section
    row = next(
        x for x in section.splitlines() if x.startswith("| SynthAuthorsAuthorRetrieval | base-2 |") and "| 3 |" in x
    )
    e = next(x for x in entries if x["subset"] == "base-2" and x["k"] == 3)
    assert f"| {e['comparison']['diff']:+.4f} |" in row and f"{int(e['cost']['rerank_pairs'])} pairs" in row
    png = out / "plots" / "SynthAuthorsAuthorRetrieval_rerank_score_vs_k.png"
    assert png.stat().st_size > 1000 and "(plots/SynthAuthorsAuthorRetrieval_rerank_score_vs_k.png)" in section


def _row(model, task="T", subset="default", main=0.5, meta=None, **scores):
    from mteb_contrastive.report.reader import ScoreRow

    return ScoreRow(
        model=model,
        model_revision="r",
        task=task,
        split="test",
        subset=subset,
        family="author",
        main_score_name="ndcg_at_10",
        scores={"ndcg_at_10": main, **scores},
        model_meta=meta or {},
    )


def _two_stage_meta(first, kind, k):
    return {"loader_kwargs": {"first_stage": first, "reranker": kind, "reranker_model": "m", "k": k}}


@settings(max_examples=50, deadline=None)
@given(
    firsts=st.lists(st.sampled_from(["a/first", "z/first", "m/bm25"]), min_size=1, max_size=3, unique=True),
    ks=st.lists(st.integers(1, 500), min_size=1, max_size=4, unique=True),
    kinds=st.lists(st.sampled_from(["ce", "li", "bi"]), min_size=1, max_size=3, unique=True),
    scores=st.lists(st.floats(0, 1), min_size=40, max_size=40),
    drop_first=st.booleans(),
)
def test_each_two_stage_row_is_compared_with_its_own_first_stage_only(firsts, ks, kinds, scores, drop_first):
    """Whatever the names' order, the reference of every entry is the model's own first stage, and the
    difference is reranked minus first stage; a first stage not evaluated gives no comparison."""
    from mteb_contrastive.report.reranking import reranking_rows

    it = iter(scores)
    rows = [] if drop_first else [_row(f, main=next(it)) for f in firsts]
    two = [
        _row(f"rerank/{i}-{kind}@{k}", main=next(it), meta=_two_stage_meta(f, kind, k))
        for i, f in enumerate(firsts)
        for kind in kinds
        for k in ks
    ]  # at most 3 x 3 x 4 two-stage rows + 3 first stages: 40 scores suffice
    rows += two
    calls = []

    def compare(a, b):
        calls.append((a.model, b.model))
        return _comparison(a, b, diff=b.main - a.main)

    entries = reranking_rows(rows[::-1], compare)  # any order of the rows
    assert len(entries) == len(two)
    for e in entries:
        if drop_first:
            assert e.comparison is None and e.first_stage in e.reason
        else:
            assert (e.comparison.reference, e.comparison.candidate) == (e.first_stage, e.model)
            assert e.comparison.result.diff == pytest.approx(e.main_score - e.first_stage_main)
    assert all(b.startswith("rerank/") and not a.startswith("rerank/") for a, b in calls)
    keys = [(e.first_stage, e.reranker, e.k) for e in entries]
    assert keys == sorted(keys)


def _comparison(a, b, diff, ci=(0.0, 0.0), p=None, verdict="within noise"):
    from mteb_contrastive.report.compare import Comparison
    from mteb_contrastive.report.rows import ComparisonRow

    result = Comparison(
        statistic="ndcg_at_10",
        n_items=10,
        reference_value=a.main,
        candidate_value=b.main,
        diff=diff,
        ci_low=ci[0],
        ci_high=ci[1],
        p_value=p,
        verdict=verdict,
        n_resamples=100,
        exact=False,
        unit="query",
        p_holm=None if p is None else min(1.0, 3 * p),
    )
    return ComparisonRow(
        a.task,
        a.split,
        a.subset,
        a.model,
        b.model,
        "ndcg_at_10",
        a.main,
        b.main,
        "1",
        "1",
        "query",
        "query",
        verdict=verdict,
        result=result,
    )


def test_reranking_table_by_hand():
    from mteb_contrastive.report.reranking import render_reranking, reranking_rows
    from mteb_contrastive.report.rows import Report, RerankingRow, RowInterval

    rows = [
        _row("sentence-transformers/all-MiniLM-L6-v2", main=0.40, encoding_texts_encoded=1200),
        _row(
            "rerank/minilm+li@10",
            main=0.45,
            meta=_two_stage_meta("sentence-transformers/all-MiniLM-L6-v2", "li", 10),
            first_stage_texts=1300,
            first_stage_seconds=2.3,
            encoding_texts_encoded=0,
            rerank_pairs=1000,
            rerank_texts_encoded=900,
            rerank_seconds=31.5,
        ),
    ]

    def compare(a, b):
        return _comparison(a, b, 0.05, (0.01, 0.09), 0.004, "better")

    class Info:
        chance, interval = 0.01, RowInterval("query", reason="no per-item data")

    (e,) = reranking_rows(rows, compare, lambda r: Info)
    assert RerankingRow.from_json(e.to_json()) == e  # report.json reads back
    assert Report.from_json({"reranking": [e.to_json()]}).reranking == [e]
    lines = render_reranking([e])
    assert lines[-2] == (
        "| T | default | sentence-transformers/all-MiniLM-L6-v2 | li (m) | 10 | 0.4500 | 0.4000 | 0.0100 | +0.0500 "
        "| [+0.0100, +0.0900] | 0.004 | 0.012 | better | 1,300 texts (0 encoded), 2.3 s "
        "| 1,000 pairs, 900 texts encoded, 31.5 s |"
    )
