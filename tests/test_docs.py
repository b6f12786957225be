"""The user documentation stays true to the code: variables, commands, README length."""

from __future__ import annotations

import re

from conftest import REPO, run


def test_every_environment_variable_is_documented():
    used = set()
    for folder in ("src", "tasks"):
        for f in (REPO / folder).rglob("*.py"):
            used |= set(re.findall(r"MTEB_CONTRASTIVE_[A-Z0-9_]+", f.read_text(encoding="utf-8")))
    documented = set(
        re.findall(r"MTEB_CONTRASTIVE_[A-Z0-9_]+", (REPO / "docs" / "environment.md").read_text(encoding="utf-8"))
    )
    assert used and used <= documented, sorted(used - documented)


def _cli_commands() -> set[str]:
    """The commands ``mteb-contrastive --help`` lists (its "commands:" section, by job)."""
    r = run(["mteb-contrastive", "--help"])
    listing = r.stdout[r.stdout.index("\ncommands:") :]
    return set(re.findall(r"^    ([a-z][a-z-]*)  ", listing, re.M))


def test_readme_is_short_and_its_commands_exist():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) < 250
    mentioned = {
        name
        for name, star in re.findall(r"mteb-contrastive ([a-z][a-z-]*)(\*?)", text)
        if not star and not name.endswith("-")
    }
    commands = _cli_commands()
    assert {"evaluate", "report", "tasks", "build-triplets"} <= commands
    assert mentioned and mentioned <= commands, sorted(mentioned - commands)
    assert "mteb-contrastive evaluate" in text and "make run" in text
