"""A fixed, small results folder for the release report (synthetic mteb result files, prediction files
and a run record), and the normalisation that makes the report's files comparable byte for byte.

Every family of the report is present: author retrieval and triplets at two k, verification (a
negative Platt slope, 99.65% of texts truncated), attribution with questioned texts, author
clustering (one model a pair scorer: no clustering), QuoteR (tie bounds), IR triplets (error rate
in percent; one model on another dataset revision), ELTeC names (the per-language table) and the
topic-only reference (the content-independence table). Three models: ``test/model-a``, the
character-level baseline ``mteb-contrastive/ppmd-cbc`` and the topic-only reference ``mteb-contrastive/tfidf-topic``.

Values are drawn from ``numpy.random.default_rng(seed)`` per (model, task); nothing depends on the
clock. ``python tests/report_fixture.py`` rewrites the golden files under ``tests/golden/report/``
from the code of the checkout (run it only when a change of the report is intended, and read the
diff).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

MODELS = ["test/model-a", "mteb-contrastive/ppmd-cbc", "mteb-contrastive/tfidf-topic"]
GOLDEN = Path(__file__).parent / "golden" / "report"
SKIPPED = [("PAN20", "MTEB_CONTRASTIVE_PAN20 unset"), ("HALvest", "the Hub is not reachable")]


def _write(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=1, allow_nan=True), encoding="utf-8")


def _result(task: str, revision: str, entries: list[dict], time: float) -> dict:
    return {
        "dataset_revision": revision,
        "task_name": task,
        "mteb_version": "2.26.24",
        "evaluation_time": time,
        "kg_co2_emissions": None,
        "scores": {"test": entries},
    }


def _entry(subset: str, main: str, scores: dict, lang: str = "eng-Latn") -> dict:
    return {"hf_subset": subset, "languages": [lang], "main_score": scores[main], **scores}


def _r(x: float) -> float:
    return round(float(x), 6)


def build_results(root: Path) -> Path:
    """Write ``root/results`` (mteb layout), ``root/predictions``, ``root/run_info.json``; return the results."""
    from mteb_contrastive.metrics.attribution import pan19_macro_f1

    results, preds = root / "results", root / "predictions"
    for m_i, model in enumerate(MODELS):
        folder = model.replace("/", "__")
        res_dir, pred_dir = results / folder / "1", preds / folder
        _write(res_dir / "model_meta.json", {"name": model, "revision": "1", "n_parameters": 1000 * (m_i + 1)})
        rng = np.random.default_rng(m_i)
        pair_scorer = model == "mteb-contrastive/ppmd-cbc"

        # author retrieval and triplets, k = 2 and 4
        ret_entries, trip_entries, ret_items, trip_items, trip_topic = [], [], {}, {}, {}
        for k in (2, 4):
            sub = f"base-{k}"
            q = rng.random(20) * (0.4 + 0.05 * m_i)
            ret_entries.append(
                _entry(
                    sub,
                    "ndcg_at_10",
                    {
                        "ndcg_at_10": _r(q.mean()),
                        "ndcg_at_10_cross_document": _r(q.mean() / 2),
                        "random_ndcg_at_10": 0.005,
                        "random_ndcg_at_10_cross_document": 0.0042,
                        "recall_at_1": _r(q.mean() / 4),
                        "recall_at_10": _r(q.mean() * 0.8),
                        "recall_at_10_cross_document": _r(q.mean() * 0.4),
                        "recall_at_100": _r(min(1.0, q.mean() * 1.5)),
                        "mrr_at_10": _r(q.mean() * 1.2),
                        "hit_rate_at_10": _r(min(1.0, q.mean() * 1.7)),
                        "pool_size": 300,
                        "pool_candidates_raw": 320,
                        "n_queries": 20,
                        "encoding_truncated_share": 0.0,
                    },
                )
            )
            ret_items[sub] = {"test": {"name": "ndcg_at_10", "ids": [f"q{i}" for i in range(20)], "values": q.tolist()}}
            hits = (rng.random(24) < 0.6 + 0.1 * m_i).astype(float)
            trip_entries.append(
                _entry(
                    sub,
                    "accuracy",
                    {
                        "accuracy": _r(hits.mean()),
                        "accuracy_cross_document": _r(hits.mean()),
                        "accuracy_topic_controlled": _r(hits[:12].mean()),
                        "n_triplets": 24,
                        "n_triplets_cross_document": 24,
                        "n_triplets_topic_controlled": 12,
                        "n_ties": 0,
                    },
                )
            )
            trip_items[sub] = {
                "test": {
                    "name": "accuracy",
                    "ids": [f"t{i}" for i in range(24)],
                    "values": hits.tolist(),
                    "groups": [f"a{i // 3}" for i in range(24)],
                }
            }
            # the topic-controlled triplets' own record (its mean is accuracy_topic_controlled)
            trip_topic[sub] = {
                "test": {
                    "per_item_topic_controlled": {
                        "name": "accuracy_topic_controlled",
                        "ids": [f"tc{i}" for i in range(12)],
                        "values": hits[:12].tolist(),
                        "groups": [f"a{i // 3}" for i in range(12)],
                    }
                }
            }
        _write(res_dir / "SynthAuthorRetrieval.json", _result("SynthAuthorRetrieval", "rev-ret", ret_entries, 1.2))
        _write(pred_dir / "SynthAuthorRetrieval_per_item.json", ret_items)
        _write(
            res_dir / "SynthAuthorTripletClassification.json",
            _result("SynthAuthorTripletClassification", "rev-trip", trip_entries, 0.4),
        )
        _write(pred_dir / "SynthAuthorTripletClassification_per_item.json", trip_items)
        _write(pred_dir / "SynthAuthorTripletClassification_predictions.json", trip_topic)

        # verification (ELTeC name: also in the per-language table)
        labels = [1, 0] * 20
        sim = (0.8 + 0.04 * rng.random(40)).tolist()
        platt = [round(0.5 - (s - 0.82), 6) for s in sim]  # a negative slope: the order reversed
        authors = [[f"w{i % 10}"] if labels[i] else [f"w{i % 10}", f"w{(i + 3) % 10}"] for i in range(40)]
        auc = 0.452 + 0.05 * m_i
        ver = {
            "pan_hard_auc": auc,
            "pan_platt_auc": _r(1 - auc),
            "pan_platt_abstain_auc": _r(1 - auc),
            "auc": auc,
            "auc_topic_controlled": _r(auc - 0.02),
            "pan_platt_abstain_c_at_1": 0.59,
            "pan_platt_abstain_f_05_u": 0.594,
            "pan_platt_abstain_n_unanswered": 0,
            "pan_hard_overall": 0.544,
            "pan_platt_overall": _r(0.6 + 0.01 * m_i),
            "pan_platt_abstain_overall": _r(0.6 + 0.01 * m_i),
            "pan_kirby_platt_abstain_overall": 0.61,
            "pan_kirby_hard_overall": 0.54,
            "pan_hard_accuracy": 0.55,
            "abstain_delta": 0.0,
            "kirby_abstain_delta": 0.01,
            "platt_coef": -0.109,
            "eer": 0.59,
            "pan_year": 2021,
            "n_pairs": 40,
            "n_same_author": 20,
            "n_negative_pairs": 20,
            "n_validation_pairs": 40,
            "n_validation_same_author": 20,
            "n_pairs_topic_controlled": 20,
            "encoding_truncated_share": 0.9965,
        }
        _write(
            res_dir / "ELTeCEngVerification.json",
            _result("ELTeCEngVerification", "rev-ver", [_entry("default", "pan_platt_abstain_overall", ver)], 31.4),
        )
        if m_i < 2:  # the third model without verification predictions: no interval, no comparison
            _write(
                pred_dir / "ELTeCEngVerification_predictions.json",
                {
                    "default": {
                        "test": {
                            "id": [f"p{i}" for i in range(40)],
                            "labels": labels,
                            "similarity": sim,
                            "platt": platt,
                            "platt_abstain": platt,
                            "authors": authors,
                        }
                    }
                },
            )

        # attribution: macro-F1 main, a per-item file of accuracy, two questioned texts
        hits = (rng.random(30) < 0.3 + 0.2 * m_i).astype(float)
        gold = [f"w{i % 10}" for i in range(30)]
        answered = [g if h else f"w{(i + 1) % 10}" for i, (g, h) in enumerate(zip(gold, hits))]
        att = {
            "macro_f1": pan19_macro_f1(gold, answered),
            "accuracy": _r(hits.mean()),
            "accuracy_ci_low": _r(hits.mean() - 0.15),
            "accuracy_ci_high": _r(hits.mean() + 0.15),
            "macro_f1_ci_low": _r(hits.mean() - 0.2),
            "macro_f1_ci_high": _r(hits.mean() + 0.1),
            "mrr_tie_expected": _r(hits.mean() + 0.1),
            "open_set_macro_f1": _r(hits.mean() - 0.05),
            "loo_log_loss": 2.1,
            "random_loo_log_loss": 2.3,
            "random_accuracy": 0.1,
            "random_macro_f1": 0.09,
            "random_macro_f1_method": "exact",
            "n_candidates": 10,
            "n_texts_evaluated": 30,
            "n_known_texts": 30,
            "n_questioned_texts": 2,
        }
        _write(
            res_dir / "ELTeCEngAttribution.json",
            _result("ELTeCEngAttribution", "rev-att", [_entry("default", "macro_f1", att)], 5.0),
        )
        _write(
            pred_dir / "ELTeCEngAttribution_predictions.json",
            {
                "default": {
                    "test": {
                        "candidates": [f"w{i}" for i in range(10)],
                        "loo": {"id": [f"x{i}" for i in range(30)], "gold": gold, "predicted": answered},
                        "questioned": [
                            {
                                "id": f"d{j}",
                                "title": f"Novel {j}",
                                "label_note": "disputed" if j else "",
                                "ranking": [
                                    {"author": f"w{(j + i) % 10}", "probability": round(0.5 / (i + 1), 4), "score": 0.1}
                                    for i in range(4)
                                ],
                                "answer": "<UNK>" if j else "w0",
                            }
                            for j in range(2)
                        ],
                        "per_item": {
                            "name": "accuracy",
                            "ids": [f"x{i}" for i in range(30)],
                            "values": hits.tolist(),
                            "groups": [f"w{i // 3}" for i in range(30)],  # each text's author
                        },
                    }
                }
            },
        )

        # author clustering: a pair scorer gets no clustering
        clu = {
            "v_measure": float("nan") if pair_scorer else _r(0.3 + 0.1 * m_i),
            "v_measure_std": 0.0,
            "random_v_measure": 0.12,
            "random_v_measure_author_sizes": 0.11,
            "n_texts": 30,
            "n_authors": 10,
        }
        if pair_scorer:
            clu["v_measure_withheld"] = "a pair scorer has no embeddings to cluster"
        _write(
            res_dir / "ELTeCEngClustering.json",
            _result("ELTeCEngClustering", "rev-att", [_entry("default", "v_measure", clu)], 0.3),
        )

        # QuoteR: tie-expected MRR with its bounds, a per-query file
        rr = rng.random(29) * 0.2
        quo = {
            "mrr_tie_expected": _r(rr.mean()),
            "mrr_optimistic": _r(rr.mean() + 0.02),
            "mrr_pessimistic": _r(rr.mean() - 0.02),
            "ndcg_at_10": _r(rr.mean() * 1.3),
            "ndcg_at_5": _r(rr.mean() * 1.1),
            "recall_at_1": 0.0,
            "recall_at_10": _r(rr.mean() * 3),
            "recall_at_100": _r(min(1.0, rr.mean() * 8)),
            "mrr_at_10": _r(rr.mean() * 0.9),
            "hit_rate_at_1": 0.0,
            "random_mrr_tie_expected": 0.0227,
            "pool_size": 272,
            "n_queries": 29,
            "n_gold_tied": 3 * m_i,
            "gold_ranks_exact": 1,
        }
        _write(
            res_dir / "SynthQuoteRRetrieval.json",
            _result("SynthQuoteRRetrieval", "rev-quo", [_entry("default", "mrr_tie_expected", quo)], 0.2),
        )
        _write(
            pred_dir / "SynthQuoteRRetrieval_per_item.json",
            {
                "default": {
                    "test": {"name": "mrr_tie_expected", "ids": [f"u{i}" for i in range(29)], "values": rr.tolist()}
                }
            },
        )

        # IR triplets: error rate in percent; the third model on another dataset revision
        hits = (rng.random(30) < 0.85 - 0.05 * m_i).astype(float)
        irt = {
            "accuracy": _r(hits.mean()),
            "accuracy_cross_document": _r(hits.mean()),
            "error_rate": _r(100 * (1 - hits.mean())),
            "n_triplets": 30,
            "n_ir_queries": 6,
            "n_ties": 0,
            "encoding_truncated_share": 0.2453,
        }
        rev = "rev-ir-old" if m_i == 2 else "rev-ir"
        _write(
            res_dir / "SynthIRTriplets.json",
            _result("SynthIRTriplets", rev, [_entry("default", "accuracy", irt)], 0.4),
        )
        _write(
            pred_dir / "SynthIRTriplets_per_item.json",
            {
                "default": {
                    "test": {
                        "name": "accuracy",
                        "ids": [f"i{i}" for i in range(30)],
                        "values": hits.tolist(),
                        "groups": [f"g{i // 5}" for i in range(30)],
                    }
                }
            },
        )
    run = {
        "model": MODELS[0],
        "started": "2026-12-01T18:53:19Z",
        "wall_s": 44.4,
        "device": {"used": "cpu"},
        "machine": {"platform": "Linux", "processor": "x86_64", "cpus": 2, "python": "3.11.7"},
        "libraries": {"mteb": "2.26.24"},
        "tasks": ["SynthAuthorRetrieval", "ELTeCEngVerification"],
    }
    _write(root / "run_info.json", {"runs": [run]})
    return results


def normalise(text: str, root: Path) -> str:
    """The report's text with what varies between calls replaced: the folder, the time, the checkout."""
    text = text.replace(str(root), "<root>")
    text = re.sub(r'"generated_at": "[^"]*"', '"generated_at": "<time>"', text)
    text = re.sub(r'"project_revision": "[^"]*"', '"project_revision": "<revision>"', text)
    text = re.sub(
        r"Generated \S+ by mteb-contrastive at `[^`]*`", "Generated <time> by mteb-contrastive at `<revision>`", text
    )
    return text


def report_files(root: Path) -> dict[str, str]:
    """Build the fixture under ``root``, write the report into ``root/report``; its three files, normalised."""
    from mteb_contrastive.report.write import write_report

    results = build_results(root)
    write_report(results, root / "report", models=MODELS, skipped=SKIPPED, load_references=False, chance_runs=10)
    return {name: normalise((root / "report" / name).read_text(encoding="utf-8"), root) for name in GOLDEN_FILES}


GOLDEN_FILES = ("report.json", "report.csv", "report.md")


if __name__ == "__main__":  # rewrite the golden files from this checkout's code
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["MTEB_CONTRASTIVE_CACHE"] = str(Path(tmp) / "cache")
        files = report_files(Path(tmp) / "fixture")
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (GOLDEN / name).write_text(text, encoding="utf-8")
        print(GOLDEN / name, len(text))
