"""scripts/reproduction_table.py: one row per number of the papers' summaries, each value found on its cited
summary line, the computed values exact, and docs/reproduction.md what the script writes."""

from __future__ import annotations

import importlib.util
import re
import sys

import numpy as np
import pytest
from conftest import REPO, SHARED

PAPERS = SHARED.parent / "papers"


@pytest.fixture(scope="module")
def rt():
    spec = importlib.util.spec_from_file_location("reproduction_table", REPO / "scripts" / "reproduction_table.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses resolve their annotations through sys.modules
    spec.loader.exec_module(mod)
    return mod


def test_one_row_per_summary_number_each_found_on_its_line(rt):
    rows = rt.summary_rows()
    per_paper = {p: sum(r.paper == p for r in rows) for p in (rt.HALVEST, rt.KIRBY, rt.LEMIKOLOV, rt.QUOTER)}
    assert per_paper == {rt.HALVEST: 5, rt.KIRBY: 77, rt.LEMIKOLOV: 1, rt.QUOTER: 0}
    assert rt.check_rows(rows, PAPERS) == []
    assert {r.status for r in rows} <= set(rt.STATUSES)
    by_id = {r.id: r for r in rows}
    assert by_id["K1"].value == "98.4 %" and by_id["K44"].value == "0.861" and by_id["K77"].value == "10,000 / 10,000"
    assert by_id["K41"].quantity.endswith("DistilBERT-cased contrastive")  # the half-length F1s in model order
    # a value the summary line does not hold is caught
    bad = [rt.Row("X1", rt.HALVEST, "Evidence", 66, "19.85%", "q", "19.85 %", "hub", "")]
    assert rt.check_rows(bad, PAPERS) == ["X1: halvest-contrastive.md line 66 does not contain '19.85%'"]


def test_chance_value_and_pan_overall_checks(rt):
    # one relevant in 14,300: E[hit@10] = 10/14300 = 0.069930 %; E[nDCG@10] = sum_{i=1..10} 1/log2(i+1) / 14300
    want = sum(1 / np.log2(i + 1) for i in range(1, 11)) / 14300
    assert f"{100 * want:.4f}" == "0.0318"
    assert rt.chance_value() == "hit rate@10 = recall@10 = 0.0699 %; nDCG@10 = 0.0318 %"
    by_id = {r.id: r for r in rt.summary_rows()}
    assert by_id["K3"].why.endswith("is 0.9786")  # (0.995 + 0.982 + 0.984 + 0.960 + 0.972) / 5
    assert by_id["K13"].why.endswith("is 0.9596") and by_id["K19"].why.endswith("is 0.9544")


def test_group_bootstrap_resamples_whole_groups(rt):
    rng = np.random.default_rng(0)
    means = rt._group_means([1.0, 1.0, 1.0, 0.0], ["a", "a", "a", "b"], rng)
    # a resample holds group a (3 items of 1) and/or b (1 item of 0): aa -> 1, ab/ba -> 3/4, bb -> 0
    assert set(np.round(means, 6)) <= {1.0, 0.75, 0.0} and len(means) == rt.N_RESAMPLES
    assert abs(means.mean() - 0.625) < 0.03  # E = 1/4 * 1 + 1/2 * 3/4 + 1/4 * 0


def test_docs_page_has_every_row_as_the_script_writes_it(rt):
    page = (REPO / "docs" / "reproduction.md").read_text(encoding="utf-8")
    cells = {}
    for line in page.splitlines():
        m = re.match(r"^\| ([HKL]\d+) \| (.*) \|$", line)
        if m:
            cells[m.group(1)] = m.group(2).split(" | ")
    rows = rt.summary_rows()
    assert list(cells) == [r.id for r in rows]
    for r in rows:
        where, quantity, value, ours, status, why = cells[r.id]
        assert (value, status) == (r.value, f"`{r.status}`") and why == r.why
    assert cells["H2"][3] == rt.chance_value()
    counts = {s: sum(r.status == s for r in rows) for s in rt.STATUSES}
    for s, n in counts.items():
        assert f"| `{s}` | {rt.STATUSES[s]} | {n} |" in page
