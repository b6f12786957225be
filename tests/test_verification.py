"""The verification protocol and the PAN tasks: in-process with a tiny encoder, and end to end
through the stock ``mteb run`` command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import mteb_contrastive  # noqa: F401  (registers the tasks)
from mteb_contrastive.data.pan import read_answers, read_truth, write_pairs_and_truth
from mteb_contrastive.metrics.calibration import Calibrator
from mteb_contrastive.metrics.pan import evaluate_all

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
BIN = Path(sys.executable).parent


class LetterEncoder:
    """A tiny encoder (letter frequencies) with the fit hook, standing in for a fitted baseline."""

    def __init__(self):
        self.mteb_model_meta = SimpleNamespace(name="test/letters", revision="1")
        self.fitted = None
        self.encoded: list[str] = []

    def fit(self, texts, *, train_texts=None):
        self.fitted = (list(texts), train_texts)
        self.fit_summary = {"fit_n_texts": len(texts), "fit_flag": True}

    def encode(self, inputs, **kwargs):
        out = []
        for batch in inputs:
            for t in batch["text"]:
                self.encoded.append(t)
                v = np.zeros(26)
                for ch in t.lower():
                    if "a" <= ch <= "z":
                        v[ord(ch) - 97] += 1
                out.append(v / max(v.sum(), 1))
        return np.asarray(out)

    def similarity(self, a, b):
        raise NotImplementedError

    def similarity_pairwise(self, a, b):
        a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        return np.sum(a * b, 1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)


def _style_text(rng, letters: str, n: int = 60) -> str:
    alphabet = "abcdefghijklmnopqrstuvwxyz"
    p = np.full(26, 1.0)
    for ch in letters:
        p[alphabet.index(ch)] += 12
    p /= p.sum()
    return " ".join("".join(rng.choice(list(alphabet), size=5, p=p)) for _ in range(n))


def _pan_folder(root: Path, seed: int = 0, *, one_class_validation: bool = False) -> Path:
    """A PAN-format folder (validation + test + train) of synthetic 'styles' (letter preferences)."""
    rng = np.random.default_rng(seed)
    styles = ["abc", "def", "ghi", "jkl", "mno", "pqr", "stu", "vwx"]
    for split, n in (("train", 6), ("validation", 24), ("test", 30)):
        rows = []
        for i in range(n):
            same = (i % 2 == 0) or (one_class_validation and split == "validation")
            s1 = styles[rng.integers(len(styles))]
            s2 = s1 if same else styles[(styles.index(s1) + 1 + rng.integers(len(styles) - 1)) % len(styles)]
            rows.append(
                {
                    "id": f"{split}-{i}",
                    "fandoms": ["f1", "f2"],
                    "pair": [_style_text(rng, s1), _style_text(rng, s2)],
                    "same": same,
                    "authors": [s1, s2],
                }
            )
        write_pairs_and_truth(root / split, rows)
    return root


def _task(name):
    import mteb

    return mteb.get_task(name)


def test_pan21_task_in_process(tmp_path, monkeypatch):
    folder = _pan_folder(tmp_path / "pan21")
    monkeypatch.setenv("MTEB_CONTRASTIVE_PAN21", str(folder))
    monkeypatch.setenv("MTEB_CONTRASTIVE_ANSWERS_DIR", str(tmp_path / "answers"))
    model = LetterEncoder()
    task = _task("PAN21Verification")
    scores = task.evaluate(model, "test", encode_kwargs={"batch_size": 8})["default"]

    # the fit hook saw the test texts (once each) and the train split's texts, never labels
    test_truth = read_truth(folder / "test" / "truth.jsonl")
    test_pairs = [json.loads(line) for line in (folder / "test" / "pairs.jsonl").read_text().splitlines()]
    test_texts = {t for r in test_pairs for t in r["pair"]}
    assert set(model.fitted[0]) == test_texts and len(model.fitted[0]) == len(test_texts)
    assert len(model.fitted[1]) == 12
    assert scores["fit_n_texts"] == len(test_texts) and "fit_flag" not in scores  # numeric fit summary copied
    # each distinct validation and test text embedded once
    assert len(model.encoded) == len(set(model.encoded))

    assert scores["main_score"] == scores["pan_platt_abstain_overall"]
    assert scores["pan_year"] == 2021 and scores["n_pairs"] == 30 and scores["n_validation_pairs"] == 24
    for key in ("cosine_accuracy", "cosine_ap", "max_f1", "dot_ap"):  # mteb's own metrics stay
        assert 0 <= scores[key] <= 1
    assert 0 <= scores["abstain_delta"] <= 0.2

    # the scores follow from calibration fitted on validation only, re-done by hand here
    def cosines(split):
        rows = [json.loads(line) for line in (folder / split / "pairs.jsonl").read_text().splitlines()]
        e = LetterEncoder()
        a = e.encode([{"text": [r["pair"][0] for r in rows]}])
        b = e.encode([{"text": [r["pair"][1] for r in rows]}])
        return np.sum(a * b, 1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)

    val_y = [int(r["same"]) for r in read_truth(folder / "validation" / "truth.jsonl")]
    test_y = [int(r["same"]) for r in test_truth]
    cal = Calibrator().fit(cosines("validation"), val_y)
    assert scores["threshold"] == pytest.approx(cal.threshold)
    assert scores["abstain_delta"] == pytest.approx(cal.delta)
    answers = cal.answers(cosines("test"))
    for variant in ("hard", "platt", "platt_abstain"):
        ref = evaluate_all(test_y, answers[variant])
        assert scores[f"pan_{variant}_overall"] == pytest.approx(ref["overall"])
        assert scores[f"pan_{variant}_f_05_u"] == pytest.approx(ref["f_05_u"])
        assert scores[f"pan_{variant}_c_at_1"] == pytest.approx(ref["c@1"])
    # the style signal is real: the letter encoder separates the pairs
    assert scores["pan_platt_auc"] > 0.9

    # the PAN answers file of the test pairs, scored by the PAN rules, gives the reported numbers
    path = tmp_path / "answers" / "test__letters" / "PAN21Verification" / "default" / "answers.jsonl"
    written = read_answers(path)
    assert set(written) == {r["id"] for r in test_truth}
    r = evaluate_all(test_y, [written[t["id"]] for t in test_truth])
    assert r["overall"] == pytest.approx(scores["pan_platt_abstain_overall"])


def test_protocol_steps_one_by_one(tmp_path, monkeypatch):
    """Each named step of AbsTaskVerification._evaluate_subset alone, against values computed here."""
    from mteb_contrastive.baselines.sparse import TfidfBaseline
    from mteb_contrastive.layout import prediction_subfolder

    monkeypatch.setenv("MTEB_CONTRASTIVE_PAN21", str(_pan_folder(tmp_path / "pan21")))
    task = _task("PAN21Verification")
    task.load_data()
    data = task.dataset["default"]
    val, test = data["validation"], data["test"]
    model = LetterEncoder()
    assert (task._scorer_kind(model), task._scorer_kind(TfidfBaseline(kind="words"))) == ("encoder", "pair_scorer")
    with pytest.raises(TypeError, match="needs an encoder, a cross-encoder or a fitted baseline, got object"):
        task._scorer_kind(object())

    # fit: the encoder's hook gets the distinct test texts, the train split's texts as train_texts
    assert task._fit_baseline(model, "encoder", data, test) is True
    assert model.fitted[0] == list(dict.fromkeys(list(test["sentence1"]) + list(test["sentence2"])))
    assert len(model.fitted[1]) == 12

    # validation similarities = cosine of the letter-frequency vectors, pair by pair
    def cos(a, b):
        va, vb = (LetterEncoder().encode([{"text": [t]}])[0] for t in (a, b))
        return float(va @ vb / np.linalg.norm(va) / np.linalg.norm(vb))

    enc = dict(hf_subset="default", encode_kwargs={"batch_size": 8}, num_proc=None)
    val_sim = task._validation_similarities(model, "encoder", val, **enc)
    assert val_sim.shape == (24,) and val_sim == pytest.approx(
        [cos(a, b) for a, b in zip(val["sentence1"], val["sentence2"])]
    )

    # calibration on validation only = the calibrator fitted by hand on those cosines
    cal = task._fit_calibrator(val_sim, val["labels"])
    ref = Calibrator(year=2021).fit(val_sim, np.asarray(val["labels"]))
    assert (cal.threshold, cal.delta) == (ref.threshold, ref.delta)

    distances = task._test_similarities(model, "encoder", test, hf_split="test", **enc)
    assert set(distances) == {
        "similarity_scores",
        "cosine_scores",
        "euclidean_distances",
        "manhattan_distances",
        "dot_scores",
    }
    answers = task._test_answers(cal, distances)
    hard = (np.asarray(distances["similarity_scores"]) >= cal.threshold).astype(float)
    assert answers["hard"].tolist() == hard.tolist()

    labels = np.asarray(test["labels"])
    scores = task._scores(model, "encoder", distances, labels, answers, cal, n_validation_pairs=24)
    assert scores["pan_hard_accuracy"] == pytest.approx(np.mean(hard == labels))
    assert scores["pan_platt_abstain_overall"] == pytest.approx(
        evaluate_all(labels, answers["platt_abstain"])["overall"]
    )
    assert (scores["n_pairs"], scores["n_same_author"], scores["n_validation_pairs"], scores["threshold"]) == (
        30,
        15,
        24,
        cal.threshold,
    )
    assert "cosine_accuracy" in scores.get("test_fitted_metrics", "") and "cosine_ap" not in scores[
        "test_fitted_metrics"
    ].split(",")
    # scores without vectors (pair scorer, cross-encoder): mteb's metrics of the similarity only
    only_sim = task._scores(
        model,
        "pair_scorer",
        {"similarity_scores": distances["similarity_scores"]},
        labels,
        answers,
        cal,
        n_validation_pairs=24,
    )
    assert only_sim["similarity_ap"] == scores["similarity_ap"] and "cosine_ap" not in only_sim

    # the two files: answers.jsonl and mteb's predictions with the labels
    ids = list(test["id"])
    task._write_outputs(
        model,
        ids,
        distances,
        answers,
        labels,
        hf_split="test",
        hf_subset="default",
        prediction_folder=tmp_path / "pred",
    )
    written = read_answers(
        tmp_path / "pred" / "pan_answers" / "test__letters" / "PAN21Verification" / "default" / "answers.jsonl"
    )
    assert written == pytest.approx(dict(zip(ids, answers["platt_abstain"].tolist())))
    pred = json.loads(
        (
            prediction_subfolder(tmp_path / "pred", "test/letters", "1") / "PAN21Verification_predictions.json"
        ).read_text()
    )["default"]["test"]
    assert (
        pred["labels"] == labels.tolist() and pred["id"] == ids and pred["similarity"] == distances["similarity_scores"]
    )


def test_pan20_task_uses_the_2020_rules(tmp_path, monkeypatch):
    folder = _pan_folder(tmp_path / "pan20", seed=1)
    monkeypatch.setenv("MTEB_CONTRASTIVE_PAN20", str(folder))
    monkeypatch.delenv("MTEB_CONTRASTIVE_ANSWERS_DIR", raising=False)
    scores = _task("PAN20Verification").evaluate(
        LetterEncoder(), "test", encode_kwargs={"batch_size": 8}, prediction_folder=tmp_path / "pred"
    )["default"]
    assert scores["pan_year"] == 2020
    keys = ("auc", "c_at_1", "f1", "f_05_u")
    assert scores["pan_platt_overall"] == pytest.approx(sum(scores[f"pan_platt_{k}"] for k in keys) / 4)
    assert (
        tmp_path / "pred" / "pan_answers" / "test__letters" / "PAN20Verification" / "default" / "answers.jsonl"
    ).is_file()
    (pred_file,) = (tmp_path / "pred" / "test__letters").glob(
        "*/PAN20Verification_predictions.json"
    )  # per model: <model>/<revision>/
    preds = json.loads(pred_file.read_text())
    assert len(preds["default"]["test"]["platt_abstain"]) == 30


@pytest.mark.parametrize(
    ("name", "env"), [("PAN20Verification", "MTEB_CONTRASTIVE_PAN20"), ("PAN21Verification", "MTEB_CONTRASTIVE_PAN21")]
)
def test_missing_pan_folder_is_a_one_line_message(monkeypatch, tmp_path, name, env):
    monkeypatch.delenv(env, raising=False)
    with pytest.raises(FileNotFoundError, match=f"{name}: the PAN texts are not on the Hub; set {env}") as e:
        _task(name).load_data()
    assert "\n" not in str(e.value)
    monkeypatch.setenv(env, str(tmp_path))
    with pytest.raises(FileNotFoundError, match="has no test/pairs.jsonl"):
        _task(name).load_data()


def test_pan_folder_as_argument(tmp_path, monkeypatch):
    from mteb_contrastive.tasks.pan import PAN21Verification

    monkeypatch.delenv("MTEB_CONTRASTIVE_PAN21", raising=False)
    task = PAN21Verification(folder=_pan_folder(tmp_path / "arg"))
    task.load_data()
    assert len(task.dataset["default"]["test"]) == 30 and len(task.dataset["default"]["validation"]) == 24


def test_single_class_validation_stops_the_task(tmp_path, monkeypatch):
    folder = _pan_folder(tmp_path / "one", one_class_validation=True)
    monkeypatch.setenv("MTEB_CONTRASTIVE_PAN21", str(folder))
    from mteb_contrastive.data.errors import DataError

    encoder = LetterEncoder()
    with pytest.raises(DataError) as e:  # found when the data is loaded, before anything is encoded
        _task("PAN21Verification").evaluate(encoder, "test", encode_kwargs={"batch_size": 8})
    assert str(e.value).startswith(f"{folder / 'validation' / 'truth.jsonl'}: only same-author pairs (")


def test_bad_pan_file_stops_the_task(tmp_path, monkeypatch):
    folder = _pan_folder(tmp_path / "bad")
    lines = (folder / "test" / "truth.jsonl").read_text().splitlines()
    (folder / "test" / "truth.jsonl").write_text("\n".join(lines[:-1]) + "\n")
    monkeypatch.setenv("MTEB_CONTRASTIVE_PAN21", str(folder))
    from mteb_contrastive.data.errors import DataError

    with pytest.raises(DataError, match="29 truth rows but 30 pairs"):
        _task("PAN21Verification").load_data()


def test_stock_mteb_run_end_to_end(tmp_path):
    """Build a small benchmark from ELTeC with the CLI, evaluate it with the stock ``mteb run``."""
    env = dict(os.environ, HF_HUB_OFFLINE="1", MTEB_CONTRASTIVE_VERIFICATION=str(tmp_path / "datasets"))
    env.pop("MTEB_CONTRASTIVE_ANSWERS_DIR", None)
    subprocess.run(
        [
            str(BIN / "mteb-contrastive"),
            "build-verification",
            "eltec",
            str(SHARED / "eltec" / "eng_novels.jsonl.gz"),
            "--name",
            "TinyEltec",
            "--out",
            str(tmp_path / "datasets"),
            "--chunk-words",
            "40",
            "--pairs-per-author",
            "2",
            "--split-ratios",
            "0",
            "0.5",
            "0.5",
        ],
        check=True,
        env=env,
        capture_output=True,
        text=True,
    )
    folder = tmp_path / "datasets" / "TinyEltec"
    info = json.loads((folder / "mteb_contrastive.json").read_text())
    assert info["counts"]["test"]["same_author"] == 10 and info["counts"]["test"]["different_author"] == 10
    proc = subprocess.run(
        [
            str(BIN / "mteb"),
            "run",
            "-m",
            "sentence-transformers/all-MiniLM-L6-v2",
            "-t",
            "TinyEltecVerification",
            "--output-folder",
            str(tmp_path / "results"),
            "--prediction-folder",
            str(tmp_path / "pred"),
            "--overwrite-strategy",
            "always",
            "-v",
            "1",
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    [result] = list((tmp_path / "results").rglob("TinyEltecVerification.json"))
    scores = json.loads(result.read_text())["scores"]["test"][0]
    assert scores["n_pairs"] == 20 and scores["pan_year"] == 2021
    assert scores["main_score"] == scores["pan_platt_abstain_overall"]
    for k in ("auc", "c_at_1", "f1", "f_05_u", "brier", "overall"):
        for v in ("hard", "platt", "platt_abstain"):
            assert 0 <= scores[f"pan_{v}_{k}"] <= 1
    assert 0 <= scores["cosine_ap"] <= 1
    # the answers file re-scored with the PAN rules gives the reported Platt+abstain numbers
    [answers_file] = list((tmp_path / "pred" / "pan_answers").rglob("answers.jsonl"))
    assert answers_file.parts[-4:] == (
        "sentence-transformers__all-MiniLM-L6-v2",
        "TinyEltecVerification",
        "default",
        "answers.jsonl",
    )
    truth = read_truth(folder / "test" / "truth.jsonl")
    answers = read_answers(answers_file)
    r = evaluate_all([int(t["same"]) for t in truth], [answers[t["id"]] for t in truth])
    assert r["overall"] == pytest.approx(scores["pan_platt_abstain_overall"], abs=1e-6)
    assert r["n_unanswered"] == scores["pan_platt_abstain_n_unanswered"]
    # the README table command reads the same result
    from mteb_contrastive.report.tables import pan_table

    table = pan_table(tmp_path / "results").splitlines()
    assert len(table) == 8 and all("TinyEltecVerification" in line for line in table[2:])
    assert (
        f"| {scores['pan_platt_abstain_overall']:.3f} | {scores['pan_platt_abstain_n_unanswered']} | 20 |" in table[4]
    )
    kirby_overall = scores["pan_kirby_platt_abstain_overall"]
    kirby = f"| {kirby_overall:.3f} | {scores['pan_kirby_platt_abstain_n_unanswered']} | 20 |"
    assert "Kirby Platt+abstain" in table[7] and kirby in table[7]
