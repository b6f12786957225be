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
    """Keeps the description's layout and shows every option's default in ``--help``, once: an option
    whose help already says its default (the word "default") gets no second one; options whose
    default is None say in their help what happens without them. A flag (``store_true``) says
    ``(default: off)``."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = (action.help or "").strip()
        if (
            action.option_strings
            and action.default is not None
            and action.default is not argparse.SUPPRESS
            and not re.search(r"\bdefault\b", text)
            and not isinstance(action, (argparse._HelpAction, argparse._VersionAction))
        ):
            shown = "off" if action.default is False else "%(default)s"
            text = f"{text} (default: {shown})".strip()
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


def positive_float(value: str) -> float:
    """A number > 0 (a learning rate, a temperature)."""
    x = _float(value)
    if not x > 0 or x == float("inf"):
        raise argparse.ArgumentTypeError(f"must be more than 0, got {value}; give e.g. 2e-5")
    return x


def closed_fraction(value: str) -> float:
    """A number from 0 to 1 (both included): a share, a ratio."""
    x = _float(value)
    if not 0 <= x <= 1:
        raise argparse.ArgumentTypeError(f"must be from 0 to 1, got {value}; give e.g. 0.1")
    return x


def seed(value: str) -> int:
    """A random seed: a whole number from 0 to 2**32 - 1 (what numpy and torch accept)."""
    n = _int(value)
    if not 0 <= n < 2**32:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to {2**32 - 1}, got {value}")
    return n


def steps(value: str) -> int:
    """A number of optimiser steps: a whole number >= 1, or -1 for no limit."""
    n = _int(value)
    if n < 1 and n != -1:
        raise argparse.ArgumentTypeError(f"must be 1 or more (or -1: no limit), got {value}")
    return n


class Shares(argparse.Action):
    """``nargs`` numbers >= 0 that sum to 1 (e.g. ``--split-ratios 0.4 0.3 0.3``), the last one > 0."""

    def __call__(self, parser, namespace, values, option_string=None):  # noqa: ANN001
        total = sum(values)
        if abs(total - 1) > 1e-6:
            parser.error(
                f"argument {option_string}: {' '.join(f'{v:g}' for v in values)} sum to {total:g}, "
                f"not 1; give shares that sum to 1, e.g. {' '.join(f'{v:g}' for v in self.default)}"
            )
        if not values[-1] > 0:
            parser.error(f"argument {option_string}: the last share (test) must be more than 0")
        setattr(namespace, self.dest, list(values))


class Increasing(argparse.Action):
    """``nargs`` numbers in increasing order (cut points: ``--proportions 0.8 0.9``, ``--boundaries 100 120``)."""

    def __call__(self, parser, namespace, values, option_string=None):  # noqa: ANN001
        if any(b <= a for a, b in zip(values, values[1:])):
            parser.error(
                f"argument {option_string}: {' '.join(f'{v:g}' for v in values)} are not in increasing order; "
                "give the train end first, then the larger validation end"
            )
        setattr(namespace, self.dest, list(values))


def add_field_options(p: argparse.ArgumentParser) -> None:
    """``--text-field``, ``--author-field``, ``--id-field``: the columns of the user's rows
    (:class:`mteb_contrastive.data.fields.FieldMap`); a field no row has is refused."""
    p.add_argument(
        "--text-field",
        default=None,
        metavar="FIELD",
        help="the field holding each row's text, e.g. abstract (default: text); a field no row has is refused",
    )
    p.add_argument(
        "--author-field",
        default=None,
        metavar="FIELD",
        help="the field holding each row's author: a name or a list of names (default: author / authors)",
    )
    p.add_argument(
        "--id-field",
        default=None,
        metavar="FIELD",
        help="the field holding each row's id: a string or a whole number (default: id)",
    )


def field_map(args: argparse.Namespace):  # noqa: ANN201  (FieldMap; imported here to keep --help fast)
    """The :class:`~mteb_contrastive.data.fields.FieldMap` of a command's field options."""
    from mteb_contrastive.data.fields import FieldMap

    return FieldMap(
        text=getattr(args, "text_field", None),
        author=getattr(args, "author_field", None),
        id=getattr(args, "id_field", None),
        topic=getattr(args, "topic_field", None),
        questioned=getattr(args, "questioned_field", None),
    )


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
