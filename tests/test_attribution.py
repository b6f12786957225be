"""Closed-set authorship attribution: the builder, the command, the protocol on a hand-computed 3-author toy,
the PAN 2019 macro-F1 rule, chance levels, calibration and the open-set threshold."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from conftest import TableEncoder, run

from mteb_contrastive.cli.main import main
from mteb_contrastive.data.attribution_builder import (
    build_attribution_dataset,
    classify_rows,
    load_texts,
    sample_indices,
)
from mteb_contrastive.data.errors import DataError
from mteb_contrastive.metrics import attribution as am

# --- a 3-author toy: one chunk per text, its vector given by a table --------------------------------------------
# cosines (unit vectors): a1.a2 .8, a1.b2 .6, a2.b1 .6, a2.b2 .96, a2.c2 .48, b1.b2 .8, b1.c2 .8, b2.c2 .64,
# c1.c2 .6, every other known pair 0; q: a1 .6, a2 .48, b2 .36, c1 .8, c2 .48
VECTORS = {
    "alpha one": [1, 0, 0],
    "alpha two": [0.8, 0.6, 0],
    "beta one": [0, 1, 0],
    "beta two": [0.6, 0.8, 0],
    "gamma one": [0, 0, 1],
    "gamma two": [0, 0.8, 0.6],
    "who wrote this": [0.6, 0, 0.8],
}
ROWS = [
    {"id": "a1", "author": "A", "text": "alpha one"},
    {"id": "a2", "author": "A", "text": "alpha two"},
    {"id": "b1", "author": "B", "text": "beta one"},
    {"id": "b2", "author": "B", "text": "beta two"},
    {"id": "c1", "author": "C", "text": "gamma one"},
    {"id": "c2", "author": "C", "text": "gamma two"},
    {"id": "q", "author": None, "text": "who wrote this", "title": "The Letter"},
]
# leave-one-text-out candidate scores (A, B, C), each the mean cosine to the author's other known texts
LOO = {
    "a1": (0.8, 0.3, 0.0),
    "a2": (0.8, 0.78, 0.24),
    "b1": (0.3, 0.8, 0.4),
    "b2": (0.78, 0.8, 0.32),
    "c1": (0.0, 0.0, 0.6),
    "c2": (0.24, 0.72, 0.6),  # C's other text is further than B's two: attributed to B
}


def _toy(tmp_path: Path, **kwargs) -> Path:
    return build_attribution_dataset(
        ROWS, tmp_path / "ds", "Toy", chunk_words=5, min_words=1, languages=["eng-Latn"], **kwargs
    )


def _tasks(folder: Path) -> dict[str, object]:
    from mteb_contrastive.catalog import folder_task_classes

    return {c.metadata.name: c() for c in folder_task_classes(folder)}


@pytest.fixture
def toy_result(tmp_path):
    folder = _toy(tmp_path, open_set=True)
    task = _tasks(folder)["ToyAttribution"]
    scores = task.evaluate(TableEncoder(VECTORS), "test", encode_kwargs={"batch_size": 4}, prediction_folder=tmp_path)
    (pred_file,) = tmp_path.rglob("ToyAttribution_predictions.json")
    return scores["default"], json.loads(pred_file.read_text())["default"]["test"]


def test_leave_one_text_out_on_the_toy_by_hand(toy_result):
    scores, pred = toy_result
    assert pred["candidates"] == ["A", "B", "C"]
    assert pred["loo"]["id"] == ["a1", "a2", "b1", "b2", "c1", "c2"]
    assert pred["loo"]["predicted"] == ["A", "A", "B", "B", "C", "B"]
    assert scores["accuracy"] == pytest.approx(5 / 6)
    # macro-F1: A 2 TP / (2 answered + 2 gold) = 1; B 2*2/(3+2) = 0.8; C 2*1/(1+2) = 2/3
    assert scores["macro_f1"] == pytest.approx((1 + 0.8 + 2 / 3) / 3)
    assert scores["main_score"] == scores["macro_f1"]
    assert scores["mrr_tie_expected"] == pytest.approx((5 + 1 / 2) / 6)  # c2's author is second
    assert scores["n_candidates"] == 3 and scores["n_texts_evaluated"] == 6 and scores["n_questioned_texts"] == 1
    assert scores["n_top_ties"] == 0
    # bias: B answered for 3 of 6 texts (gold: at most 2 of 6 per author)
    assert pred["answer_counts"] == {"A": 2, "B": 3, "C": 1}
    assert scores["max_answer_share"] == 0.5 and scores["most_answered_candidate"] == "B"
    assert scores["n_candidates_answered"] == 3 == scores["n_candidates_gold"]
    assert scores["max_answer_share"] > scores["majority_class_accuracy"] == pytest.approx(1 / 3)
    assert pred["per_item"] == {
        "name": "accuracy",
        "ids": pred["loo"]["id"],
        "values": [1, 1, 1, 1, 1, 0],
        "groups": ["A", "A", "B", "B", "C", "C"],  # each text's author: the unit the intervals resample
    }
    assert scores["accuracy_ci_low"] <= scores["accuracy"] <= scores["accuracy_ci_high"] == 1.0
    assert scores["macro_f1_ci_low"] <= scores["macro_f1"] <= scores["macro_f1_ci_high"]


def test_chance_levels_on_the_toy(toy_result):
    from sklearn.metrics import f1_score

    scores, _ = toy_result
    gold = ["A", "A", "B", "B", "C", "C"]
    # every one of the 3^6 answer vectors, scored by scikit-learn with PAN's labels
    every = [
        f1_score(gold, list(p), labels=["A", "B", "C"], average="macro", zero_division=0)
        for p in itertools.product("ABC", repeat=6)
    ]
    assert scores["random_macro_f1"] == pytest.approx(np.mean(every)) and scores["random_macro_f1_method"] == "exact"
    assert scores["random_accuracy"] == pytest.approx(1 / 3)
    assert scores["random_mrr_tie_expected"] == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)
    assert scores["majority_class_accuracy"] == pytest.approx(1 / 3)
    assert scores["majority_class_macro_f1"] == pytest.approx((2 * (1 / 3) / (1 + 1 / 3)) / 3)  # 1/6
    assert scores["random_loo_log_loss"] == pytest.approx(math.log(3))
    # prior: the gold author's share of the other 5 known texts, 1/5 for every item
    assert scores["prior_loo_log_loss"] == pytest.approx(math.log(5))
    assert scores["random_loo_brier"] == pytest.approx(2 / 3)


def test_a_questioned_text_gets_a_calibrated_ranking(toy_result):
    scores, pred = toy_result
    (q,) = pred["questioned"]
    assert (q["id"], q["title"], q["label_note"]) == ("q", "The Letter", "")
    # candidate scores: A (.6 + .48) / 2 = .54, B (0 + .36) / 2 = .18, C (.8 + .48) / 2 = .64
    assert [c["author"] for c in q["ranking"]] == ["C", "A", "B"]
    assert [c["score"] for c in q["ranking"]] == pytest.approx([0.64, 0.54, 0.18], abs=1e-6)
    t = scores["temperature"]
    e = np.exp(np.array([0.64, 0.54, 0.18]) / t)
    assert [c["probability"] for c in q["ranking"]] == pytest.approx(list(e / e.sum()), abs=1e-6)
    # margin P1 - P2 against the open-set threshold fitted on every item
    assert q["answer"] == ("C" if e[0] / e.sum() - e[1] / e.sum() >= scores["open_set_threshold"] else "<UNK>")


def test_the_temperature_minimises_the_smoothed_cross_entropy(toy_result):
    scores, _ = toy_result
    rows = np.array(list(LOO.values()))
    gold = np.array([0, 0, 1, 1, 2, 2])
    n = len(gold)
    target = np.full(rows.shape, 1 / (n + 2) / 2)
    target[np.arange(n), gold] = (n + 1) / (n + 2)  # Platt's targets, 6 items

    def loss(t):
        z = rows / t
        log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        return -(target * log_p).sum() / n

    t = scores["temperature"]
    assert loss(t) <= min(loss(0.98 * t), loss(1.02 * t))
    assert 0.05 < t < 1.0


def test_open_set_scores_on_the_toy(toy_result):
    scores, _ = toy_result
    assert scores["n_open_set_items"] == 12  # each evaluated text, then scored with its author left out
    for k in ("open_set_macro_f1", "open_set_unk_recall", "open_set_known_accuracy", "random_open_set_macro_f1"):
        assert 0 <= scores[k] <= 1
    assert scores["random_open_set_macro_f1_method"].startswith("monte carlo")  # 4^6 x 3^6 combinations


def test_pan19_rule_unknown_gold_and_absent_candidates():
    # a <UNK> text answered B lowers B's precision; <UNK> itself is not averaged
    assert am.pan19_macro_f1(["A", "A", "B", am.UNKNOWN], ["A", "B", "B", "B"]) == pytest.approx(
        (2 / 3 + 2 * 1 / (3 + 1)) / 2
    )
    assert am.pan19_macro_f1(["A", "A", "B"], ["A", "B", "B"]) == pytest.approx((2 / 3 + 2 / 3) / 2)
    # C, answered but never the gold author, is not averaged (scikit-learn's plain macro would give 5/9)
    assert am.pan19_macro_f1(["A", "A", "B"], ["A", "C", "B"]) == pytest.approx((2 / 3 + 1) / 2)
    rng = np.random.default_rng(0)
    for _ in range(20):
        gold, pred = rng.integers(0, 5, 15), rng.integers(0, 5, 15)  # code 4 = <UNK>
        names = ["A", "B", "C", "D", am.UNKNOWN]
        assert am.macro_f1_codes(gold, pred, 4) == pytest.approx(
            am.pan19_macro_f1([names[g] for g in gold], [names[p] for p in pred])
        )


def test_ties_count_one_over_t():
    scores = np.array([[0.5, 0.5, 0.1], [0.2, 0.9, 0.9], [0.3, 0.1, 0.2]])
    gold = np.array([1, 0, 0])
    assert am.tie_aware_hits(scores, gold).tolist() == [0.5, 0.0, 1.0]
    top, n_top = am.top_answers(scores)
    assert top.tolist() == [0, 1, 0] and n_top.tolist() == [2, 2, 1]  # a tie goes to the first name


def test_the_unknown_threshold_maximises_macro_f1_by_hand():
    # two known items (gold A, B) and two unknown items; candidates A=0, B=1, <UNK>=2
    top, margin, gold = np.array([0, 1, 0, 1]), np.array([0.8, 0.3, 0.2, 0.5]), np.array([0, 1, 2, 2])
    # grid 0, midpoints .25 / .4 / .65, just above .8 -- 0: (2/3 + 2/3)/2; .25: (1 + 2/3)/2 (the .2 unknown
    # answered <UNK>); .4: (1 + 0)/2 (B's item lost); .65 and above: (1 + 0)/2 or less; same with PAN's labels
    assert am.fit_margin_threshold(top, margin, gold, 2) == pytest.approx(0.25)
    assert am.fit_margin_threshold(top, margin, gold, 2, labels="gold") == pytest.approx(0.25)
    assert am.open_set_answers(top, margin, 0.3, 2).tolist() == [0, 1, 2, 1]
    assert am.open_set_answers(top, margin, 0.25, 2).tolist() == [0, 1, 2, 1]


def test_random_and_majority_macro_f1_by_hand():
    value, method = am.random_macro_f1(np.array([0, 1]), [[0, 1], [0, 1]], -1)
    # answers (0,0): (2/3 + 0)/2, (0,1): 1, (1,0): 0, (1,1): (0 + 2/3)/2
    assert method == "exact" and value == pytest.approx((1 / 3 + 1 + 0 + 1 / 3) / 4)
    assert am.majority_class_macro_f1(["A", "A", "A", "B"]) == pytest.approx(2 * 0.75 / 1.75 / 2)


# --- the builder ------------------------------------------------------------------------------------------------


def test_builder_writes_known_and_questioned_texts(tmp_path):
    folder = _toy(tmp_path)
    info = json.loads((folder / "mteb_contrastive.json").read_text())
    assert info["kind"] == "attribution" and info["languages"] == ["eng-Latn"]
    assert info["counts"] == {
        "candidates": 3,
        "known_texts": 6,
        "evaluable_authors": 3,
        "evaluable_texts": 6,
        "questioned_texts": 1,
        "chunks": 7,
    }
    texts = load_texts(folder)
    assert [(t["id"], t["author"], t["role"]) for t in texts][-2:] == [("c2", "C", "known"), ("q", None, "questioned")]
    assert texts[0]["chunks"] == ["alpha one"] and texts[0]["sample"] == [0]
    assert (
        _toy(tmp_path / "again")
        and json.loads((tmp_path / "again" / "ds" / "Toy" / "mteb_contrastive.json").read_text())["build_id"]
        == info["build_id"]
    )  # identity is content


def test_chunks_are_sampled_evenly_without_randomness():
    assert sample_indices(25, 10) == [0, 3, 5, 8, 11, 13, 16, 19, 21, 24]
    assert sample_indices(4, 10) == [0, 1, 2, 3] and sample_indices(7, 1) == [0]
    assert sample_indices(3, 2) == [0, 2]


def test_questioned_by_field_and_composite_labels():
    rows = [
        {"id": "1", "author": "Hamilton", "text": "t"},
        {"id": "2", "author": "Hamilton", "text": "t"},
        {"id": "3", "author": "Madison", "text": "t"},
        {"id": "4", "author": "Hamilton", "status": "Disputed", "text": "t"},
        {"id": "5", "author": "Hamilton or Madison", "text": "t"},
        {"id": "6", "authors": ["Hamilton", "Jay"], "text": "t"},
        {"id": "7", "author": "Erckmann & Chatrian", "text": "t"},  # no part writes alone: one author
        {"id": "8", "author": "", "text": "t"},
    ]
    texts = classify_rows(
        rows, "c.jsonl", questioned_field="status", questioned_values=["disputed"], composite="questioned"
    )
    roles = {t["id"]: (t["role"], t["author"], t["label_note"]) for t in texts}
    assert roles["4"] == ("questioned", None, "Hamilton; status=Disputed")
    assert roles["5"] == ("questioned", None, "Hamilton or Madison")
    assert roles["6"] == ("questioned", None, "Hamilton and Jay")
    assert roles["7"] == ("known", "Erckmann & Chatrian", "")
    assert roles["8"] == ("questioned", None, "")
    with pytest.raises(DataError) as err:
        classify_rows(rows[:5], "c.jsonl")
    assert str(err.value) == (
        "c.jsonl, record 5, field 'author': 'Hamilton or Madison' names 2 authors (Hamilton, Madison; candidates among "
        "them: Hamilton, Madison); a joint or disputed label is not a new author: pass --composite questioned to "
        "hold it out as a questioned text, or fix the label"
    )
    with pytest.raises(DataError, match=r"record 4, field 'authors': 'Hamilton and Jay' names 2 authors"):
        classify_rows(rows[:3] + rows[5:6], "c.jsonl")


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _cli_error(argv: list[str], capsys) -> str:
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse rejects options by exiting
        rc = exc.code
    assert rc == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_command_refuses_bad_input_in_one_line(tmp_path, capsys):
    corpus = _write(tmp_path / "c.jsonl", [*ROWS[:6], {"id": "j", "author": "A or B", "text": "alpha beta"}])
    base = ["build-attribution", str(corpus), "--name", "Toy", "--out", str(tmp_path / "o"), "--min-words", "1"]
    line = _cli_error([*base, "--language", "en"], capsys)
    assert line.startswith(f"mteb-contrastive: error: {corpus}, line 7, field 'author': 'A or B' names 2 authors")
    assert not (tmp_path / "o" / "Toy").exists()  # nothing half-written
    assert "no row has a 'language' field; pass --language" in _cli_error(base, capsys)
    assert "--questioned-value needs --questioned-field" in _cli_error(
        [*base, "--language", "en", "--questioned-value", "x"], capsys
    )
    _write(corpus, [*ROWS[:6], {"id": "a1", "author": "A", "text": "again"}])
    assert "line 7, field 'id': duplicate id 'a1' (first at line 1)" in _cli_error([*base, "--language", "en"], capsys)
    _write(corpus, [{"id": "x", "author": "A", "text": "a b"}, {"id": "y", "author": "B", "text": "c d"}])
    assert "no candidate author has two known texts" in _cli_error([*base, "--language", "en"], capsys)
    assert "argument --name" in _cli_error([*base[:3], "my corpus", *base[4:], "--language", "en"], capsys)


def test_command_holds_a_composite_label_out_as_questioned(tmp_path, capsys):
    corpus = _write(tmp_path / "c.jsonl", [*ROWS, {"id": "j", "author": "A and B", "text": "alpha beta"}])
    argv = ["build-attribution", str(corpus), "--name", "Toy", "--out", str(tmp_path / "o"), "--language", "en"]
    assert main([*argv, "--min-words", "1", "--composite", "questioned"]) == 0
    folder = Path(capsys.readouterr().out.strip())
    texts = {t["id"]: t for t in load_texts(folder)}
    assert texts["j"]["role"] == "questioned" and texts["j"]["label_note"] == "A and B"
    assert json.loads((folder / "mteb_contrastive.json").read_text())["params"]["composite"] == "questioned"


def test_mteb_run_and_the_report_show_the_questioned_texts(tmp_path):
    """The stock ``mteb run`` finds the folder's two tasks; the report has one line per questioned text."""
    folder = _toy(tmp_path)
    env = {"MTEB_CONTRASTIVE_DATASETS": str(folder.parent)}
    r = run(
        [
            "mteb",
            "run",
            "-m",
            "mteb-contrastive/tfidf-words",
            "-t",
            "ToyAttribution",
            "ToyAuthorClustering",
            "--output-folder",
            str(tmp_path / "results"),
            "--prediction-folder",
            str(tmp_path / "predictions"),
        ],
        env,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    (res,) = (tmp_path / "results").rglob("ToyAttribution.json")
    scores = json.loads(res.read_text())["scores"]["test"][0]
    assert scores["n_candidates"] == 3 and 0 <= scores["macro_f1"] <= 1
    (clu,) = (tmp_path / "results").rglob("ToyAuthorClustering.json")
    c = json.loads(clu.read_text())["scores"]["test"][0]
    assert c["v_measure_withheld"].startswith("TfidfBaseline scores text pairs")  # a pair scorer has no vectors
    (pred,) = (tmp_path / "predictions").rglob("ToyAttribution_predictions.json")
    r = run(
        [
            "mteb-contrastive",
            "report",
            str(tmp_path / "results"),
            "--predictions",
            f"mteb-contrastive/tfidf-words={pred.parent.parent}",
        ],
        env,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    (line,) = [x for x in r.stdout.splitlines() if x.startswith("- ToyAttribution, mteb-contrastive/tfidf-words: q")]
    assert line.startswith("- ToyAttribution, mteb-contrastive/tfidf-words: q (The Letter): ") and " -> " in line


def test_one_evaluated_author_withholds_the_nested_scores(tmp_path):
    rows = [r for r in ROWS if r["id"] in ("a1", "a2", "b1", "c1")]  # only A has two known texts
    folder = build_attribution_dataset(
        rows, tmp_path / "ds", "One", chunk_words=5, min_words=1, languages=["eng-Latn"], open_set=True
    )
    s = _tasks(folder)["OneAttribution"].evaluate(TableEncoder(VECTORS), "test", encode_kwargs={})["default"]
    # a1: A .8, B 0, C 0 and a2: A .8, B .6, C 0 -> both right
    assert s["accuracy"] == 1.0 and s["macro_f1"] == 1.0 and s["n_authors_evaluated"] == 1
    assert math.isnan(s["loo_log_loss"]) and s["loo_calibration_withheld"].startswith("one evaluated author")
    assert math.isnan(s["open_set_macro_f1"]) and "open_set_withheld" in s


# --- open set: the label set is every candidate (a candidate with one known text is never gold) -----------------
# A, A, B, B, C, C and D (one text): same author cosine .98, other authors 0, D .3 to every other text (perfectly
# separated); with its author removed, every text's best remaining candidate is D
_S = np.sqrt(1 - 0.98**2)
ONE_TEXT_CANDIDATE = {
    "a one": [1, 0, 0, 0, 0, 0, 0],
    "a two": [0.98, 0, 0, _S, 0, 0, 0],
    "b one": [0, 1, 0, 0, 0, 0, 0],
    "b two": [0, 0.98, 0, 0, _S, 0, 0],
    "c one": [0, 0, 1, 0, 0, 0, 0],
    "c two": [0, 0, 0.98, 0, 0, _S, 0],
}


def _one_text_candidate_vectors() -> dict[str, list[float]]:
    vectors = {k: np.asarray(v, dtype=np.float64) for k, v in ONE_TEXT_CANDIDATE.items()}
    m = np.stack(list(vectors.values()))
    d = np.linalg.lstsq(m, np.full(6, 0.3), rcond=None)[0]  # d . x = .3 for every other text
    d[6] = np.sqrt(max(0.0, 1 - d @ d))
    return {**{k: v.tolist() for k, v in vectors.items()}, "d one": d.tolist()}


def test_open_set_false_attribution_to_a_one_text_candidate_counts():
    # metric level: 6 closed items right; 6 unknown items (gold <UNK> = 4) all answered D (code 3)
    gold = np.array([0, 0, 1, 1, 2, 2, 4, 4, 4, 4, 4, 4])
    answers = np.array([0, 0, 1, 1, 2, 2, 3, 3, 3, 3, 3, 3])
    assert am.macro_f1_codes(gold, answers, 4) == 1.0  # PAN 2019: D is never gold, the answers cost nothing
    # every candidate: A, B, C F1 1, D F1 2*0/(6+0) = 0
    assert am.macro_f1_codes(gold, answers, 4, labels="candidates") == pytest.approx(0.75)
    rejected = np.where(gold == 4, 4, answers)
    assert am.macro_f1_codes(gold, rejected, 4, labels="candidates") == 1.0
    # a candidate neither gold nor answered is not averaged; the chance level uses the same rule
    assert am.macro_f1_codes(gold[:6], answers[:6], 4, labels="candidates") == 1.0
    value, method = am.random_macro_f1(np.array([0, 2]), [[0, 1, 2], [0, 1, 2]], 2, labels="candidates")
    # every answer pair, by scikit-learn over the gold and answered labels minus <UNK>
    from sklearn.metrics import f1_score

    names = ["A", "B", "<UNK>"]
    every = []
    for p in itertools.product(range(3), repeat=2):
        labels = sorted({"A"} | {names[x] for x in p} - {"<UNK>"})
        every.append(f1_score(["A", "<UNK>"], [names[x] for x in p], labels=labels, average="macro", zero_division=0))
    assert method == "exact" and value == pytest.approx(np.mean(every))


def test_open_set_protocol_rejects_answers_to_a_one_text_candidate(tmp_path):
    rows = [
        {"id": k.replace(" ", ""), "author": k.split()[0].upper(), "text": k} for k in _one_text_candidate_vectors()
    ]
    folder = build_attribution_dataset(
        rows, tmp_path / "ds", "Solo", chunk_words=5, min_words=1, languages=["eng-Latn"], open_set=True
    )
    task = _tasks(folder)["SoloAttribution"]
    s = task.evaluate(TableEncoder(_one_text_candidate_vectors()), "test", encode_kwargs={})["default"]
    assert s["n_candidates"] == 4 and s["n_texts_evaluated"] == 6 and s["accuracy"] == 1.0
    # answering D for the unknown items now costs D's F1, so the fitted threshold rejects them
    assert s["open_set_unk_recall"] == 1.0 and s["open_set_macro_f1"] == 1.0 and s["open_set_known_accuracy"] == 1.0
    assert s["random_open_set_unk_recall"] == pytest.approx(1 / 4)  # 3 candidates + <UNK>
    assert 0 < s["random_open_set_macro_f1"] < 1


def test_a_model_answering_one_candidate_looks_biased(tmp_path):
    folder = _toy(tmp_path)
    same = {k: [1.0, 0.0, 0.0] for k in VECTORS}  # every text alike: every answer the first name, A
    s = _tasks(folder)["ToyAttribution"].evaluate(TableEncoder(same), "test", encode_kwargs={})["default"]
    assert s["max_answer_share"] == 1.0 and s["most_answered_candidate"] == "A" and s["n_candidates_answered"] == 1
    assert s["accuracy"] == pytest.approx(s["random_accuracy"])  # all tied: the tie rule gives chance
