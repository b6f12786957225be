"""The release report's one main score, its flags on intervals, its readable tables and its colours
(issue 27 c, h and "Readable"; issue 31 item 7), each from its example."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mteb_contrastive.metrics.attribution import UNKNOWN, pan19_macro_f1
from mteb_contrastive.report.reader import ScoreRow, macro_f1_statistic, per_item_scores
from mteb_contrastive.report.statistics import compare_rows, main_interval


def _attribution(tmp_path, model, gold, predicted, macro_f1):
    """An attribution row whose prediction file holds the per-text accuracy and the leave-one-text-out answers."""
    folder = tmp_path / model.replace("/", "__")
    folder.mkdir()
    ids = [f"t{i}" for i in range(len(gold))]
    pred = {
        "candidates": sorted(set(gold)),
        "loo": {"id": ids, "gold": gold, "predicted": predicted},
        "per_item": {"name": "accuracy", "ids": ids, "values": [float(g == p) for g, p in zip(gold, predicted)]},
    }
    (folder / "A_predictions.json").write_text(json.dumps({"default": {"test": pred}}))
    scores = {
        "macro_f1": macro_f1,
        "accuracy": float(np.mean([g == p for g, p in zip(gold, predicted)])),
        "macro_f1_ci_low": 0.1,
        "macro_f1_ci_high": 0.9,
        "n_candidates": len(set(gold)),
    }
    row = ScoreRow(model, "1", "A", "test", "default", "attribution", "macro_f1", scores, dataset_revision="r")
    return row, folder


def test_attribution_interval_and_comparison_are_of_the_main_score_macro_f1(tmp_path):
    # 6 texts of 3 authors; model a answers one text of A as B, model b is always right
    gold = ["A", "A", "B", "B", "C", "C"]
    pa = ["A", "B", "B", "B", "C", "C"]
    # macro-F1 of a: F1(A) = 2*1/(1+2) = 2/3, F1(B) = 2*2/(3+2) = 4/5, F1(C) = 1 -> 0.8222; accuracy 5/6
    ra, fa = _attribution(tmp_path, "m/a", gold, pa, 0.8222222222222223)
    rb, fb = _attribution(tmp_path, "m/b", gold, gold, 1.0)
    items = {id(ra): per_item_scores(ra, fa), id(rb): per_item_scores(rb, fb)}
    iv = main_interval(ra, items[id(ra)])
    # the row's interval is the macro-F1's (never "n/a (interval of accuracy ...)")
    assert iv.shown and iv.interval.statistic == "macro_f1" and iv.reason is None
    assert iv.interval.value == pytest.approx(37 / 45) and iv.ci_low <= 37 / 45 <= iv.ci_high
    c = compare_rows(ra, rb, lambda r: items[id(r)])
    # the comparison uses the main score, as the ranking does: +0.1778 macro-F1, not +0.1667 accuracy
    assert c.statistic == "macro_f1" and c.result.diff == pytest.approx(1 - 37 / 45)
    assert (c.result.reference_value, c.result.candidate_value) == (pytest.approx(37 / 45), 1.0)
    # a stored main score the answers do not reproduce: the interval is not shown, with the reason
    ra.scores["macro_f1"] = 0.5
    assert main_interval(ra, items[id(ra)]).reason == (
        "macro_f1 recomputed from the answers is 0.8222, the result stores 0.5000"
    )


names = st.sampled_from(["A", "B", "C", "D", UNKNOWN])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(names, names), min_size=1, max_size=30), st.data())
def test_macro_f1_statistic_is_pan19_macro_f1_on_any_resample(pairs, data):
    gold, answered = [g for g, _ in pairs], [a for _, a in pairs]
    code = {n: i for i, n in enumerate(["A", "B", "C", "D"])}
    code[UNKNOWN] = 4
    d = {"labels": np.array([code[g] for g in gold]), "answers": np.array([code[a] for a in answered]), "unknown": 4}
    idx = np.array(data.draw(st.lists(st.integers(0, len(pairs) - 1), min_size=1, max_size=40)))
    want = pan19_macro_f1([gold[i] for i in idx], [answered[i] for i in idx])
    got = macro_f1_statistic(d, idx)
    assert (np.isnan(want) and np.isnan(got)) or got == pytest.approx(want)


def _subcommand_options(name):
    """{option string: choices} of one subcommand of the real ``mteb-contrastive`` parser."""
    import argparse

    from mteb_contrastive.cli.main import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return {o: act.choices for act in sub.choices[name]._actions for o in act.option_strings}


def test_a_flag_never_advises_an_option_its_command_rejects():
    from mteb_contrastive.report.content import EDITION_ADVICE, edition_advice

    assert "--normalise" not in _subcommand_options("build-attribution")  # the command that rejects it
    for kind, (cmd, opt, value) in EDITION_ADVICE.items():
        options = _subcommand_options(cmd)
        assert opt in options and value in options[opt], (kind, cmd)
        text = edition_advice(kind)
        assert f"`{cmd} {opt} {value}`" in text and "build-attribution --normalise" not in text
    assert "`build-attribution` has no `--normalise` option" in edition_advice("attribution")
