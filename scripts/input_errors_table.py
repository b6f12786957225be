"""Print the tables of docs/input-and-identity.md: what the commands answer to each kind of bad input.

    # bad inputs and their one-line answers (a few minutes: the `mteb run` rows start mteb)
    PYTHONPATH=src HF_HUB_OFFLINE=1 python scripts/input_errors_table.py
    # the kinds the tests generate, and the commands they are drawn for
    PYTHONPATH=src python scripts/input_errors_table.py --generated
    # mteb_contrastive.json fields of hand-made PAN folders
    PYTHONPATH=src python scripts/input_errors_table.py --fields

The cases are the registry ``tests/input_kinds.py`` (``CASES``, ``FILE_KINDS``, ``FILE_COMMANDS``), which
``tests/test_input_kinds.py`` runs: the table is what the tests cover. Each row runs a command on a small
bad input made in a temporary folder (shown as ``$TMP``) and shows its exit status and what it printed
on stderr (progress bars left out): ``mteb-contrastive`` in this process, the stock ``mteb run`` in a
fresh process (``-v 1``; the Hub switched off).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import input_kinds as K  # noqa: E402  (the registry lives beside the tests that run it)


def main_table() -> str:
    lines = ["| kind | bad input | command | exit | stderr (one line) |", "|---|---|---|---|---|"]
    for case in K.CASES:
        with tempfile.TemporaryDirectory() as d:
            tmp = Path(d).resolve()
            command, rc, _, err = case.run(tmp)
        err = " ".join(err.split()) or "(nothing)"
        err = err.replace(str(tmp), "$TMP").replace("|", "\\|")
        lines.append(f"| {case.kind} | {case.label} | `{command}` | {rc} | `{err}` |")
    return "\n".join(lines)


def generated_table() -> str:
    """The kinds of file the tests draw (and combine) for every command that reads a user file."""
    lines = ["| kind of file | expected (combined: refuse wins) | drawn for |", "|---|---|---|"]
    kinds = [(k, e) for k, (_, e) in K.FILE_KINDS.items()] + list(K.GZIP_KINDS.items())
    for kind, expected in kinds:
        cmds = [
            c.name
            for c in K.FILE_COMMANDS
            if (c.row_kinds or not kind.startswith("a JSON"))
            and (c.gzip or kind not in K.GZIP_KINDS)
            and (not c.refuse_only or c.outcome(kind) == "refuse")
        ]
        other = [f"`{c.name}`: {c.outcome(kind)}" for c in K.FILE_COMMANDS if c.outcome(kind) != expected]
        shown = {"either": "accept or refuse (one line)"}.get(expected, expected)
        shown += f" ({'; '.join(other)})" if other else ""
        lines.append(f"| {kind} | {shown} | {', '.join(f'`{c}`' for c in cmds)} |")
    return "\n".join(lines)


def fields_table() -> str:
    """The fields a hand-made PAN-format folder's mteb_contrastive.json must hold."""
    from mteb_contrastive.sources.pan import REQUIRED_FIELDS

    return "\n".join(
        ["| field | what to write |", "|---|---|"] + [f"| `{k}` | `{v}` |" for k, v in REQUIRED_FIELDS.items()]
    )


if __name__ == "__main__":
    arg = sys.argv[1:2]
    print(fields_table() if arg == ["--fields"] else generated_table() if arg == ["--generated"] else main_table())
