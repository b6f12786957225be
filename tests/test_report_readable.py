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
        "per_item": {
            "name": "accuracy",
            "ids": ids,
            "values": [float(g == p) for g, p in zip(gold, predicted)],
            "groups": gold,  # each text's author: the unit attribution resamples
        },
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
    # mteb stores scores rounded to 6 decimals (ELTeC English, tfidf-char3: 0.14666... stored 0.146667):
    # the same score, the interval shown
    ra.scores["macro_f1"] = round(37 / 45, 6)
    assert main_interval(ra, items[id(ra)]).reason is None
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


# ----------------------------------------------------------------------------- readable


def _row(**kw):
    from test_report_statistics import report_row

    return report_row(**kw)


def _cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def test_pan14known_example_notes_the_inverted_calibration_and_the_truncation():
    from mteb_contrastive.report.render import family_section

    scores = {
        "pan_platt_abstain_overall": 0.6169,
        "auc": 0.452,
        "pan_platt_auc": 0.548,
        "pan_platt_abstain_c_at_1": 0.5938,
        "platt_coef": -0.109,
        "encoding_truncated_share": 0.9965,
    }
    main = "pan_platt_abstain_overall"
    bad = _row(family="verification", task="PAN14KnownVerification", model="m", main_score_name=main)
    bad.main_score, bad.scores = 0.6169, scores
    good = _row(family="verification", task="PAN14KnownVerification", model="n", main_score_name=main)
    good.main_score = 0.7
    good.scores = {**scores, "auc": 0.7, "pan_platt_auc": 0.7, "platt_coef": 3.0, "encoding_truncated_share": 0.1}
    text = "\n".join(family_section("verification", [bad, good]))
    notes = [line for line in text.splitlines() if line.startswith("(!)")]
    assert notes == [
        "(!) PAN14KnownVerification, m: the Platt fit on validation has a negative slope (platt_coef -0.109): the "
        "calibrated answers reverse the model's order of the pairs (AUC 0.452 of the similarities, 0.548 after the "
        "fit); a calibrated score above chance here comes from the inversion, not from the similarities.",
        "(!) PAN14KnownVerification, m: 99.65% of the texts were truncated to the model's maximum sequence length: "
        "the score reads only their beginnings.",
    ]
    head = text.splitlines()[0]
    assert _cells(head) == [
        "task",
        "model",
        "main score (0-1)",
        "95% CI",
        "chance",
        "AUC of the similarities",
        "c@1 (Platt + abstention)",
        "resampled",
    ]


def test_headline_tables_have_at_most_8_columns_units_and_the_quoter_bounds():
    from mteb_contrastive.families import FAMILIES
    from mteb_contrastive.report.render import family_section

    every = {
        "ndcg_at_10": 0.5,
        "ndcg_at_10_cross_document": 0.2,
        "accuracy": 0.8,
        "auc": 0.5,
        "pan_platt_abstain_c_at_1": 0.5,
        "open_set_macro_f1": 0.4,
        "mrr_pessimistic": 0.1,
        "mrr_optimistic": 0.2,
        "recall_at_10": 0.3,
        "mrr_at_10": 0.2,
        "error_rate": 11.7143,
        **{f"extra_{i}": 0.1 * i for i in range(20)},
    }
    for fam in FAMILIES:
        r = _row(family=fam, main_score_name="mrr_tie_expected" if fam == "quotes" else "accuracy", scores=every)
        r.secondary = dict(every)
        lines = family_section(fam, [r])
        assert len(_cells(lines[0])) <= 8, fam
    # Cranfield: the error rate is in percent and says so, beside fractions
    cran_row = _row(family="ir-triplets", scores=every, secondary={"error_rate": 11.7143})
    cran = "\n".join(family_section("ir-triplets", [cran_row]))
    assert "| error rate (%) |" in cran.splitlines()[0] and "| 11.7143 |" in cran
    details = next(line for line in cran.splitlines() if line.startswith("| task | subset |"))
    assert "error_rate (%)" in _cells(details) and "error_rate" not in _cells(details)
    # QuoteR: the optimistic and pessimistic bounds of the tie-expected MRR in the headline
    quo = family_section("quotes", [_row(family="quotes", main_score_name="mrr_tie_expected", scores=every)])
    assert _cells(quo[0])[5] == "ties: pessimistic / optimistic" and _cells(quo[2])[5] == "0.1000 / 0.2000"


def test_pair_scorer_clustering_is_one_line_not_a_row_of_na_and_not_run_comes_after_the_results():
    from mteb_contrastive.report.reader import guess_main_score
    from mteb_contrastive.report.render import family_section, render_markdown
    from mteb_contrastive.report.rows import Report

    withheld = {"v_measure": float("nan"), "v_measure_withheld": "a pair scorer has no embeddings to cluster"}
    assert guess_main_score(withheld, float("nan")) == "v_measure"  # NaN is the stored main score, by name
    pair = _row(family="attribution", task="C", model="ppmd", main_score_name="v_measure", scores=withheld)
    pair.main_score = None
    emb = _row(family="attribution", task="C", model="minilm", main_score_name="v_measure", scores={"v_measure": 0.3})
    emb.main_score = 0.3
    lines = family_section("attribution", [emb, pair])
    headline = lines[: lines.index("")]
    assert headline[2:] == ["| C | minilm | 0.3000 v_measure | n/a (no per-item data) | n/a | by item |"]
    assert not any("ppmd" in line for line in lines if line.startswith("|"))  # no row of n/a, nor in the details
    assert "Not scored: C, ppmd (a pair scorer has no embeddings to cluster)." in lines
    rep = Report("t", "r", "2", "d", [], [], [{"benchmark": b, "reason": "data not present"} for b in "XYZ"], [emb], [])
    md = render_markdown(rep)
    assert md.index("## Authorship attribution") < md.index("## Not run")
    assert "- X, Y, Z: data not present" in md.splitlines()  # compact: one line per reason


# ----------------------------------------------------------------------------- colours


def test_eighteen_models_get_eighteen_colours_in_the_main_scores_figure():
    from matplotlib.colors import to_hex

    from mteb_contrastive.report import plots

    models = [f"org/model-{i}" for i in range(18)]
    colors = plots.model_colors(models)
    assert len(set(colors.values())) == 18  # tab10 alone repeated from the 11th model on
    rows = []
    for i, m in enumerate(models):
        r = _row(task="T", model=m, main_score_name="ndcg_at_10")
        r.main_score = 0.02 * i
        rows.append(r)
    fig = plots.main_scores(rows, colors)
    drawn = {c.get_label(): to_hex(c.lines[0].get_color()) for c in fig.axes[0].containers}
    assert drawn == colors and len(set(drawn.values())) == 18


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 150))
def test_model_colours_are_unique_for_any_number_of_models(n):
    from mteb_contrastive.report import plots

    models = [f"m{i}" for i in range(n)]
    colors = plots.model_colors(models)
    assert list(colors) == models and len(set(colors.values())) == n
    assert list(colors.values())[: min(n, 10)] == list(plots.model_colors(models[:10]).values())[: min(n, 10)]
