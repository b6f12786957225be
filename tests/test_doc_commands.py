"""Every `mteb-contrastive ...` and `mteb run ...` command line that README.md and docs/*.md show names a
subcommand and options that exist: the lines are parsed here, in-process, against the two commands' own argparse
parsers (nothing is run), so a renamed or removed option fails the suite."""

from __future__ import annotations

import argparse
import re
import shlex
from functools import lru_cache

import pytest
from conftest import REPO
from hypothesis import given, settings
from hypothesis import strategies as st

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
#: where a shown command starts: the program name at the start of a line or of a code span, or after a shell word
START = re.compile(r"(?:^|[\s`;|&(]|\$ )(mteb-contrastive|mteb)\s+(?=[a-z\-])")


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


@lru_cache(maxsize=1)
def parsers() -> dict[str, dict[str, argparse.ArgumentParser]]:
    """program -> subcommand -> its parser (mteb-contrastive's own; mteb's from ``mteb.cli.build_cli``)."""
    from mteb.cli.build_cli import build_cli

    from mteb_contrastive.cli.main import build_parser

    return {"mteb-contrastive": _subparsers(build_parser()), "mteb": _subparsers(build_cli())}


def options(parser: argparse.ArgumentParser) -> set[str]:
    return {o for a in parser._actions for o in a.option_strings}


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """(1-based line, text) with backslash continuations joined; code spans kept as they are."""
    out, buf, start = [], "", 0
    for i, line in enumerate(text.splitlines(), 1):
        if not buf:
            start = i
        if line.rstrip().endswith("\\"):
            buf += line.rstrip()[:-1] + " "
            continue
        out.append((start, buf + line))
        buf = ""
    if buf:
        out.append((start, buf))
    return out


def shown_commands(text: str) -> list[tuple[int, list[str]]]:
    """(line, [program, subcommand, args...]) of every command line shown in a markdown ``text``: in code
    blocks each line (prompt, variable assignments, ``nice`` and the like before it), in prose each code
    span. The command ends at a shell operator, a comment or the end of the span."""
    found = []
    in_block = False
    for n, line in _logical_lines(text):
        if line.lstrip().startswith("```"):
            in_block = not in_block
            continue
        pieces = [line] if in_block else re.findall(r"`([^`]+)`", line)
        for piece in pieces:
            for m in START.finditer(piece):
                rest = piece[m.start(1) :]
                rest = re.split(r"\s(?:#|\||&&|;|>|2>|<)\s?|\)|\s--\s", rest + " ", maxsplit=1)[0]
                try:
                    words = shlex.split(rest, comments=False)
                except ValueError:  # an unclosed quote: prose, not a command
                    continue
                if words[0] == "mteb" and (len(words) < 2 or words[1] != "run"):
                    continue  # other mteb subcommands are mteb's business
                found.append((n, words))
    return found


def problems(words: list[str]) -> list[str]:
    """What is wrong with one shown command: an unknown subcommand or an option its parser does not have.
    Placeholders (``<out>``, ``MODEL``, ``...``, ``[...]``, ``build-*``) are let through."""
    prog, sub, args = words[0], words[1], words[2:]
    if "*" in sub or sub.startswith("<") or sub.isupper() or sub.endswith(":"):
        return []  # a placeholder, or the `mteb-contrastive build-x: error: ...` prefix of a message
    subs = parsers()[prog]
    if sub not in subs:
        return [f"{prog} {sub}: no such subcommand"]
    known = options(subs[sub])
    bad = []
    for a in args:
        a = a.strip("[]")
        if not a.startswith("-") or a in ("-", "--") or re.fullmatch(r"-\d+(\.\d+)?", a):
            continue
        name = a.split("=", 1)[0]
        if name.endswith(("...", "…")) or not re.fullmatch(r"--?[A-Za-z][\w-]*", name):
            continue
        if name not in known:
            bad.append(f"{prog} {sub}: no option {name}")
    return bad


def test_every_shown_command_parses():
    shown = [(f.name, n, w) for f in DOCS for n, w in shown_commands(f.read_text(encoding="utf-8"))]
    assert len(shown) > 40, "the docs show commands: the extractor finds them"
    assert {w[0] for _, _, w in shown} == {"mteb-contrastive", "mteb"}
    wrong = [f"{f}:{n}: {p}" for f, n, w in shown for p in problems(w)]
    assert not wrong, "\n".join(wrong)


def test_a_renamed_option_is_caught():
    """The check fails on what it is for: an option the parser lacks, a subcommand that does not exist."""
    text = (
        "```bash\nmteb-contrastive evaluate -m m --outdir x\nmteb run -m m --output-dir o\n```\n"
        "`mteb-contrastive evalute`"
    )
    cmds = shown_commands(text)
    assert [w[:2] for _, w in cmds] == [
        ["mteb-contrastive", "evaluate"],
        ["mteb", "run"],
        ["mteb-contrastive", "evalute"],
    ]
    assert [p for _, w in cmds for p in problems(w)] == [
        "mteb-contrastive evaluate: no option --outdir",
        "mteb run: no option --output-dir",
        "mteb-contrastive evalute: no such subcommand",
    ]


@settings(max_examples=40, deadline=None)
@given(
    data=st.data(),
    prefix=st.sampled_from(["", "$ ", "nice -n 10 ", "HF_HUB_OFFLINE=1 ", "PATH=/x:$PATH "]),
    tail=st.sampled_from(["", "  # a comment", " | head", " && echo done", " > out.txt"]),
    continued=st.booleans(),
)
def test_generated_command_lines_are_read_as_written(data, prefix, tail, continued):
    """Generated lines of a real subcommand with some of its real options (values included), written with a
    prompt, variables, a continuation, a trailing comment or pipe: extracted as exactly those words, no problem."""
    prog = data.draw(st.sampled_from(["mteb-contrastive", "mteb"]))
    subs = parsers()[prog]
    sub = "run" if prog == "mteb" else data.draw(st.sampled_from(sorted(subs)))
    opts = sorted(o for o in options(subs[sub]) if o.startswith("--"))
    chosen = data.draw(st.lists(st.sampled_from(opts), max_size=4, unique=True)) if opts else []
    words = [prog, sub]
    for o in chosen:
        words += [o, "v1"]
    sep = " \\\n    " if continued else " "
    text = "```bash\n" + prefix + sep.join(words) + tail + "\n```\n"
    assert [w for _, w in shown_commands(text)] == [words]
    assert problems(words) == []


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_each_doc_is_readable_markdown(doc):
    """Code fences are closed (an unclosed one would hide the commands after it from the check)."""
    fences = [ln for ln in doc.read_text(encoding="utf-8").splitlines() if ln.lstrip().startswith("```")]
    assert len(fences) % 2 == 0, doc
