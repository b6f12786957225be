"""The release report's three files from a fixed results folder (:mod:`report_fixture`), byte for byte
against the golden files under ``tests/golden/report/`` (written by ``python tests/report_fixture.py``
from the code before the report was split by job; a change of the report rewrites them on purpose)."""

from __future__ import annotations

import pytest
from report_fixture import GOLDEN, GOLDEN_FILES, report_files


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    root = tmp_path_factory.mktemp("golden")
    mp = pytest.MonkeyPatch()
    mp.setenv("MTEB_CONTRASTIVE_CACHE", str(root / "cache"))
    try:
        yield report_files(root / "fixture")
    finally:
        mp.undo()


@pytest.mark.parametrize("name", GOLDEN_FILES)
def test_report_file_is_the_golden_one(written, name):
    want = (GOLDEN / name).read_text(encoding="utf-8")
    got = written[name]
    if got != want:  # the first differing line, not a 100 kB diff
        for i, (a, b) in enumerate(zip(got.splitlines(), want.splitlines()), 1):
            assert a == b, f"{name} line {i}"
    assert got == want
