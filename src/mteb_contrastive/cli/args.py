"""The one input-check layer for ``mteb-contrastive`` options.

Every option that takes a number or a name is declared with one of these argparse types; a bad
value is rejected by :class:`OneLineParser` as one line on stderr naming the option, what was
given and what to give, with exit status 2 (argparse's usual multi-line usage dump is left out:
``--help`` has it).
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import NoReturn

_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9]*$")


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line (``prog: error: argument --k: ...``), exit 2."""

    def error(self, message: str) -> NoReturn:
        message = " ".join(message.split())
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the description's layout and shows every option's default in ``--help`` (options
    whose default is None say in their help what they default to)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = (action.help or "").strip()
        if (
            action.option_strings
            and action.default is not None
            and action.default is not argparse.SUPPRESS
            and "%(default)" not in text
            and not isinstance(action, argparse._HelpAction)
        ):
            text = f"{text} (default: %(default)s)".strip()
        return text

    def _format_action(self, action: argparse.Action) -> str:
        if (
            action.help is None
            and action.option_strings
            and action.default is not None
            and action.default is not argparse.SUPPRESS
        ):
            action.help = "(default: %(default)s)"
        return super()._format_action(action)


def _int(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number; give e.g. 2") from None


def positive_int(value: str) -> int:
    """A whole number >= 1."""
    n = _int(value)
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {value}; give a whole number >= 1")
    return n


def non_negative_int(value: str) -> int:
    """A whole number >= 0."""
    n = _int(value)
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return n


def _float(value: str) -> float:
    try:
        x = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number") from None
    if x != x:
        raise argparse.ArgumentTypeError("NaN is not a number here")
    return x


def open_fraction(value: str) -> float:
    """A number strictly between 0 and 1."""
    x = _float(value)
    if not 0 < x < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1 (exclusive), got {value}; give e.g. 0.5")
    return x


def non_negative_float(value: str) -> float:
    """A number >= 0."""
    x = _float(value)
    if x < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return x


def dataset_name(value: str) -> str:
    """Letters and digits starting with a letter (it becomes part of mteb task names)."""
    if not _NAME_RE.match(value):
        suggestion = re.sub(r"[^A-Za-z0-9]+", " ", value).title().replace(" ", "")
        suggestion = suggestion if suggestion[:1].isalpha() else "D" + suggestion
        raise argparse.ArgumentTypeError(
            f"{value!r} must be letters and digits starting with a letter (it becomes the task names); "
            f"give e.g. {suggestion or 'MyCorpus'}"
        )
    return value


def print_error(message: str, prog: str = "mteb-contrastive") -> int:
    """Print one ``prog: error: message`` line on stderr; return exit status 2."""
    print(f"{prog}: error: {' '.join(str(message).split())}", file=sys.stderr)
    return 2
