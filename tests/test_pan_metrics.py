"""PAN metrics: hand-computed values on tiny inputs, both F0.5u rules, and the PAN20 leaderboard."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mteb_contrastive.data.pan import align_answers, read_answers, read_truth
from mteb_contrastive.metrics.pan import (
    PAN20_LEADERBOARD,
    RULE_2020,
    RULE_2021,
    auc,
    brier,
    c_at_1,
    evaluate_all,
    f1,
    f_05_u,
)

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"

# 3 same-author, 3 different-author pairs; two non-answers (0.5), one per class.
Y = [1, 1, 1, 0, 0, 0]
P = [0.9, 0.5, 0.3, 0.2, 0.5, 0.7]


def test_auc_counts_ties_as_half():
    # positives {0.9, 0.5, 0.3} vs negatives {0.2, 0.5, 0.7}: 0.9 beats 3; 0.5 beats 1 and ties 1; 0.3 beats 1
    assert auc(Y, P) == pytest.approx(5.5 / 9)


def test_auc_single_class_is_undefined_with_a_warning_and_zero_only_on_request():
    from mteb_contrastive.metrics.pan import UndefinedMetricWarning

    with pytest.warns(UndefinedMetricWarning, match="only same-author"):
        assert auc([1, 1], [0.2, 0.9]) is None
    assert auc([1, 1], [0.2, 0.9], single_class="pan") == 0.0  # the PAN evaluator's try/except
    with pytest.raises(ValueError, match="single_class"):
        auc([1, 0], [0.2, 0.9], single_class="zero")


def test_single_class_overall_is_the_mean_of_the_defined_metrics():
    from mteb_contrastive.metrics.pan import UndefinedMetricWarning

    # perfect answers on truth [1, 1, 1]: c@1 = F1 = F0.5u = Brier = 1, AUC undefined
    with pytest.warns(UndefinedMetricWarning):
        r = evaluate_all([1, 1, 1], [1.0, 1.0, 1.0])
    assert r["auc"] is None and r["overall"] == 1.0 and r["n_overall_metrics"] == 4
    with pytest.warns(UndefinedMetricWarning):
        r20 = evaluate_all([0, 0, 0], [0.0, 0.0, 0.0], year=2020)
    # 2020: c@1 1, F1 0 (no positive, sklearn's zero division), F0.5u 0 (zero denominator) -> 1/3
    assert r20["auc"] is None and r20["overall"] == pytest.approx(1 / 3) and r20["n_overall_metrics"] == 3
    # the PAN evaluator's rule, for leaderboard comparisons: AUC 0.0 averaged in
    pan = evaluate_all([1, 1, 1], [1.0, 1.0, 1.0], single_class_auc="pan")
    assert pan["auc"] == 0.0 and pan["overall"] == pytest.approx(0.8) and pan["n_overall_metrics"] == 5


def test_c_at_1_rewards_non_answers():
    # answered: 0.9 ok, 0.3 wrong, 0.2 ok, 0.7 wrong -> nc = 2, nu = 2, n = 6: (2 + 2 * 2 / 6) / 6
    assert c_at_1(Y, P) == pytest.approx(4 / 9)
    assert c_at_1([1, 0], [0.5, 0.5]) == 0.0
    assert c_at_1([1, 0], [0.8, 0.1]) == 1.0


def test_f1_on_answered_pairs_only():
    # answered truth [1, 1, 0, 0], predicted [1, 0, 0, 1]: tp 1, fp 1, fn 1
    assert f1(Y, P) == pytest.approx(0.5)
    # the only answered pair is right
    assert f1([1, 0, 1], [0.5, 0.5, 0.8]) == 1.0
    assert f1([1, 0], [0.5, 0.5]) == 0.0


def test_f05u_2021_rule_counts_half_as_non_answer():
    # tp 1 (0.9), fp 1 (0.7), fn 1 (0.3), nu 2 -> 1.25 / (1.25 + 0.25 * 3 + 1)
    assert f_05_u(Y, P) == pytest.approx(5 / 12)
    assert f_05_u(Y, P, rule=RULE_2021) == pytest.approx(5 / 12)


def test_f05u_2020_rule_binarises_half_to_same_first():
    # 0.5 -> same: tp 2 (0.9, 0.5), fp 2 (0.5, 0.7), fn 1 (0.3), nu 0 -> 2.5 / (2.5 + 0.25 + 2)
    assert f_05_u(Y, P, rule=RULE_2020) == pytest.approx(10 / 19)


def test_f05u_binarisation_rule_on_all_non_answers():
    assert f_05_u([1, 0], [0.5, 0.5], rule=RULE_2021) == 0.0  # tp 0, nu 2
    assert f_05_u([1, 0], [0.5, 0.5], rule=RULE_2020) == pytest.approx(1.25 / 2.25)  # tp 1, fp 1
    # values just above / below 0.5 are answers under both rules
    assert f_05_u([1, 0], [0.5000001, 0.4999999], rule=RULE_2021) == 1.0
    assert f_05_u([1, 0], [0.5000001, 0.4999999], rule=RULE_2020) == 1.0


def test_brier_complement():
    # squared errors 0.01, 0.25, 0.49, 0.04, 0.25, 0.49 -> mean 0.255
    assert brier(Y, P) == pytest.approx(0.745)


def test_overall_2021_mean_of_five_and_2020_mean_of_four():
    r21 = evaluate_all(Y, P)
    assert r21["overall"] == pytest.approx((5.5 / 9 + 4 / 9 + 0.5 + 5 / 12 + 0.745) / 5)
    assert r21["n_unanswered"] == 2 and r21["n"] == 6
    r20 = evaluate_all(Y, P, year=2020)
    assert r20["f_05_u"] == pytest.approx(10 / 19)
    assert r20["overall"] == pytest.approx((5.5 / 9 + 4 / 9 + 0.5 + 10 / 19) / 4)
    # the 2020 overall with the 2021 F0.5u rule, when asked for explicitly
    assert evaluate_all(Y, P, year=2020, rule=RULE_2021)["f_05_u"] == pytest.approx(5 / 12)


def test_values_are_not_rounded():
    assert evaluate_all(Y, P)["c@1"] == pytest.approx(4 / 9, abs=1e-15)


@pytest.mark.parametrize(
    ("y", "p", "match"),
    [
        ([1, 0], [0.2, float("nan")], "NaN or outside"),
        ([1, 0], [0.2, 1.5], "NaN or outside"),
        ([1, 0], [-0.1, 0.5], "NaN or outside"),
        ([1, 0, 1], [0.2, 0.3], "differ in length"),
        ([], [], "no pairs"),
        ([2, 0], [0.2, 0.3], "0/1"),
    ],
)
def test_bad_inputs(y, p, match):
    with pytest.raises(ValueError, match=match):
        evaluate_all(y, p)


def test_bad_rule_and_year():
    with pytest.raises(ValueError, match="rule"):
        f_05_u(Y, P, rule="2019")
    with pytest.raises(ValueError, match="year"):
        evaluate_all(Y, P, year=2019)


def test_every_team_file_has_a_leaderboard_entry():
    files = sorted(p.stem for p in (SHARED / "pan" / "pan20_answers").glob("*.jsonl"))
    assert files == sorted(PAN20_LEADERBOARD)


@pytest.fixture(scope="module")
def pan20_truth():
    return read_truth(SHARED / "pan" / "pan20_test_truth.jsonl")


@pytest.mark.parametrize("team", sorted(PAN20_LEADERBOARD))
def test_pan20_leaderboard_reproduced(team, pan20_truth):
    truth = pan20_truth
    answers = read_answers(SHARED / "pan" / "pan20_answers" / f"{team}.jsonl")
    labels, values = align_answers(truth, answers)  # a missing id counts as 0.5
    assert len(labels) == 14311
    r = evaluate_all(labels, values, year=2020)  # 2020 rule: 0.5 -> same in F0.5u
    got = tuple(round(r[k], 3) for k in ("auc", "c@1", "f1", "f_05_u", "overall"))
    assert got == PAN20_LEADERBOARD[team]


def test_pan_score_command():
    import json
    import subprocess
    import sys

    out = subprocess.run(
        [
            str(Path(sys.executable).parent / "mteb-contrastive"),
            "pan-score",
            str(SHARED / "pan" / "pan20_test_truth.jsonl"),
            str(SHARED / "pan" / "pan20_answers" / "halvani20-small.jsonl"),
            "--year",
            "2020",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    r = json.loads(out)
    assert (r["auc"], r["c@1"], r["f1"], r["f_05_u"], r["overall"]) == PAN20_LEADERBOARD["halvani20-small"]


def test_rules_differ_on_real_submission_with_non_answers(pan20_truth):
    # boenninghoff20-large left 648 pairs unanswered: the 2021 rule scores its F0.5u differently
    labels, values = align_answers(
        pan20_truth, read_answers(SHARED / "pan" / "pan20_answers" / "boenninghoff20-large.jsonl")
    )
    assert int(np.sum(np.asarray(values) == 0.5)) == 648
    assert round(f_05_u(labels, values, rule=RULE_2020), 3) == 0.907
    assert round(f_05_u(labels, values, rule=RULE_2021), 3) == 0.918
