"""``--help`` explains every option (issue 28, item 4): a description, the default once, the commands grouped by job."""

from __future__ import annotations

import argparse
import re

import pytest

from mteb_contrastive.cli.main import COMMAND_GROUPS, build_parser, main


def _subparsers(ap: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (sub,) = [a for a in ap._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def _actions():
    for name, p in _subparsers(build_parser()).items():
        for a in p._actions:
            if not isinstance(a, (argparse._HelpAction, argparse._VersionAction)):
                yield name, p, a


def _rendered(p: argparse.ArgumentParser, a: argparse.Action) -> str:
    """The help text of one action as ``--help`` prints it (defaults expanded), without the option's name."""
    return " ".join(p._get_formatter()._expand_help(a).split())


ACTIONS = list(_actions())


@pytest.mark.parametrize(("cmd", "parser", "action"), ACTIONS, ids=[f"{c} {a.dest}" for c, _, a in ACTIONS])
def test_every_option_and_argument_is_described_with_its_default_once(cmd, parser, action):
    name = "/".join(action.option_strings) or action.dest
    assert action.help and action.help is not argparse.SUPPRESS and len(action.help.strip()) > 10, (
        f"{cmd} {name} has no description"
    )
    text = _rendered(parser, action)
    assert len(re.findall(r"\(default[: ]|default:", text)) <= 1, f"{cmd} {name} prints its default twice: {text}"
    flag = isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction, argparse._AppendAction))
    if action.option_strings and not action.required and not flag:
        # an option left out does something: its help says what (the default, or what happens without it)
        assert "default" in text, f"{cmd} {name} does not say its default: {text}"


def test_the_check_fails_on_an_option_without_a_description():
    p = argparse.ArgumentParser()
    a = p.add_argument("--undocumented", type=int, default=3)
    with pytest.raises(AssertionError, match="has no description"):
        test_every_option_and_argument_is_described_with_its_default_once("x", p, a)


def test_top_level_help_groups_the_commands_by_job_without_markup(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "``" not in out
    jobs = [job for job, _ in COMMAND_GROUPS]
    assert jobs == ["evaluate and report", "build", "score", "train"]
    positions = [out.index(f"{job}:") for job in jobs]
    assert positions == sorted(positions)
    grouped = [c for _, cmds in COMMAND_GROUPS for c in cmds]
    assert sorted(grouped) == sorted(_subparsers(build_parser())), "every command in exactly one group"
    for job, cmds in COMMAND_GROUPS:
        block = out[out.index(f"{job}:") :]
        for c in cmds:
            assert re.search(rf"^\s+{re.escape(c)}\s+\S", block, re.M), (job, c)


def test_version(capsys):
    import mteb_contrastive

    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == f"mteb-contrastive {mteb_contrastive.__version__}"
