"""The report's figures drawn by two processes (report/plots.make_and_save): the same files and list as one
process draws, whatever figures make none, whichever fails or dies in the other process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mteb_contrastive.report import plots


def _figure(seed: int):
    """A small figure that depends on ``seed`` (a line, bars, a title)."""
    plt = plots.pyplot()
    fig, ax = plt.subplots(figsize=(2.5, 1.8))
    ax.plot([0, 1, 2], [seed % 3, (seed * 7) % 5, 1])
    ax.bar([0, 1], [seed % 4 + 1, 2])
    ax.set_title(f"figure {seed}")
    return fig


def _makers(folder: Path, seeds: list[int | None]):
    """One maker per seed (None: a maker that makes no figure), each writing ``<i>.png``."""
    return [((lambda s=s: None if s is None else _figure(s)), folder / f"{i}.png") for i, s in enumerate(seeds)]


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*"))}


def test_two_processes_write_the_files_one_writes(tmp_path):
    seeds = [3, None, 5, 8, None, 13]
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    open_before = plots.pyplot().get_fignums()
    got_one = plots.make_and_save(_makers(one, seeds), jobs=1)
    got_two = plots.make_and_save(_makers(two, seeds), jobs=2)
    assert [p.name for p in got_one] == [p.name for p in got_two] == ["0.png", "2.png", "3.png", "5.png"]
    assert _files(one) == _files(two) and len(_files(one)) == 4
    assert all(b.startswith(b"\x89PNG") for b in _files(two).values())
    assert plots.pyplot().get_fignums() == open_before, "every figure made here closed"


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seeds=st.lists(st.none() | st.integers(0, 50), min_size=0, max_size=7),
    jobs=st.integers(1, 4),
)
def test_any_figures_any_jobs_give_the_one_process_files(tmp_path_factory, seeds, jobs):
    root = tmp_path_factory.mktemp("figs")
    one, many = root / "one", root / "many"
    one.mkdir(), many.mkdir()
    got_one = plots.make_and_save(_makers(one, seeds), jobs=1)
    got_many = plots.make_and_save(_makers(many, seeds), jobs=jobs)
    assert (
        [p.name for p in got_many]
        == [p.name for p in got_one]
        == [f"{i}.png" for i, s in enumerate(seeds) if s is not None]
    )
    assert _files(many) == _files(one)


def test_a_figure_failing_or_the_process_dying_over_there_is_made_here(tmp_path):
    parent = os.getpid()

    def only_here(seed: int, die: bool):
        def make():
            if os.getpid() != parent:
                if die:
                    os._exit(3)  # the other process dies without a word
                raise RuntimeError("fails in the other process only")
            return _figure(seed)

        return make

    for die in (False, True):
        folder = tmp_path / f"die-{die}"
        folder.mkdir()
        makers = [(only_here(i, die), folder / f"{i}.png") for i in range(4)]
        got = plots.make_and_save(makers, jobs=2)
        assert [p.name for p in got] == ["0.png", "1.png", "2.png", "3.png"]
        assert not [p for p in folder.iterdir() if p.name.startswith(".")], "no temporary left"


def test_a_figure_failing_everywhere_fails_as_with_one_process(tmp_path):
    def broken():
        raise ValueError("no such column")

    makers = [
        ((lambda: _figure(1)), tmp_path / "a.png"),
        (broken, tmp_path / "b.png"),
        ((lambda: _figure(2)), tmp_path / "c.png"),
    ]
    with pytest.raises(ValueError, match="no such column"):
        plots.make_and_save(makers, jobs=1)
    with pytest.raises(ValueError, match="no such column"):
        plots.make_and_save(makers, jobs=2)
