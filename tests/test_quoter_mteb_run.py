"""End to end through the stock ``mteb run``: a QuoteR-format task with BM25 and a two-stage model."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
TASK = "QuoteRKJVNovelsEnglishRetrieval"


def _mteb(model, out, *extra):
    exe = Path(sys.executable).with_name("mteb")
    env = dict(os.environ, HF_HUB_OFFLINE="1", MTEB_CONTRASTIVE_QUOTER_DATA=str(SHARED / "quoter"))
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "") if env.get("PYTHONPATH") else src
    cmd = [
        str(exe),
        "run",
        "-m",
        model,
        "-t",
        TASK,
        "--output-folder",
        str(out),
        "--overwrite-strategy",
        "always",
        "-v",
        "1",
        "--batch-size",
        "32",
        *extra,
    ]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    files = [f for f in out.rglob(f"{TASK}.json")]
    assert len(files) == 1, files
    return files[0], json.loads(files[0].read_text())["scores"]["test"][0]


def test_mteb_run_bm25_and_reranked(tmp_path):
    f_bm25, bm25 = _mteb("mteb/baseline-bm25s", tmp_path / "bm25", "--prediction-folder", str(tmp_path / "pred"))
    f_two, two = _mteb("rerank/bm25+bi@10", tmp_path / "two")
    for s in (bm25, two):
        assert s["main_score"] == s["mrr_tie_expected"] and 0 < s["mrr_tie_expected"] <= 1
        assert s["mrr_pessimistic"] <= s["mrr_tie_expected"] <= s["mrr_optimistic"]
        assert s["n_queries"] == 29 and s["pool_size"] == 272 and s["gold_ranks_exact"] == 1
        for rule in ("tie_expected", "optimistic", "pessimistic"):
            assert s[f"recall_at_1_{rule}"] <= s[f"recall_at_10_{rule}"] <= s[f"recall_at_100_{rule}"] <= 1
        assert 1 <= s["median_rank_optimistic"] <= s["median_rank_tie_expected"] <= s["median_rank_pessimistic"]
        assert (s["quoter_split"], s["quoter_shuffle_seed"], s["quoter_train_end"], s["quoter_valid_end"]) == (
            "shuffled",
            20240611,
            224,
            252,
        )
    # reranking the top 10 never changes which candidates are in it (nor the golds' ranges below it)
    assert two["recall_at_10_tie_expected"] == pytest.approx(bm25["recall_at_10_tie_expected"])
    assert two["recall_at_100_tie_expected"] == pytest.approx(bm25["recall_at_100_tie_expected"])
    assert two["rerank_k"] == 10 and two["rerank_pairs"] == 290
    # the result folder records the stages and k
    assert f_two.parent.parent.name == "rerank__bm25+bi@10"
    meta = json.loads((f_two.parent / "model_meta.json").read_text())
    assert meta["loader_kwargs"]["first_stage"] == "mteb/baseline-bm25s"
    assert meta["loader_kwargs"]["reranker"] == "bi" and meta["loader_kwargs"]["k"] == 10
    # scripts/quoter_table.py reads the same file through report.reader.read_results
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "quoter_table", Path(__file__).resolve().parents[1] / "scripts" / "quoter_table.py"
    )
    qt = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(qt)
    (line,) = [x for x in qt.quoter_table(tmp_path / "bm25").splitlines() if x.startswith("| mteb/")]
    m = bm25
    assert line.startswith(
        f"| mteb/baseline-bm25s | {TASK} | 272 | 29 | {m['mrr_tie_expected']:.4f} "
        f"({m['mrr_optimistic']:.4f} / {m['mrr_pessimistic']:.4f}) | "
    )
    assert (
        f"| {m['median_rank_tie_expected']:g} "
        f"({m['median_rank_optimistic']:g} / {m['median_rank_pessimistic']:g}) | {m['n_gold_tied_at_zero']} | " in line
    )

    # per-query scores of the main score beside mteb's rankings (the release report compares on them)
    from mteb_contrastive.report.reader import per_item_scores, read_results

    (pred_dir,) = [d for d in (tmp_path / "pred").iterdir() if d.is_dir()]
    rankings = json.loads(next(pred_dir.rglob(f"{TASK}_predictions.json")).read_text())["default"]["test"]
    assert len(rankings) == 29 and all(
        isinstance(v, dict) and all(isinstance(x, float) for x in v.values()) for v in rankings.values()
    )
    (row,) = [r for r in read_results(tmp_path / "bm25") if r.task == TASK]
    items = per_item_scores(row, pred_dir)
    assert items.statistic_name == "mrr_tie_expected" and sorted(items.ids) == sorted(rankings)
    assert sum(items.values) / len(items.values) == pytest.approx(
        m["mrr_tie_expected"], abs=5e-7
    )  # mteb keeps 6 decimals
