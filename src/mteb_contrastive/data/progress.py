"""Progress a person can read, on a terminal and in a log file: the one way the project opens a progress bar.

:func:`bar` is a ``tqdm`` bar whose total is known when it opens (it never grows, so its percentage never
jumps back). On a terminal it redraws in place; when the stream is not a terminal (``make run > log``, a
CI log) it prints plain lines instead -- ``<desc>: <n>/<total> <unit>s (<pct>%), <elapsed> elapsed`` -- one
when it opens, one when its description changes (mteb's ``Evaluating task <name>``), otherwise at most one
every :data:`LOG_PERIOD_S` seconds, and one when it closes -- rather than
tqdm's carriage-return frames, which a log file shows as hundreds of fragments.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from tqdm.std import tqdm

#: seconds between two plain progress lines when the output is not a terminal
LOG_PERIOD_S = 30.0


def is_terminal(stream: Any = None) -> bool:
    """Whether ``stream`` (default ``sys.stderr``) is a terminal."""
    stream = sys.stderr if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class PlainLines(tqdm):
    """A ``tqdm`` that writes whole lines (no ``\\r``): at its start, when its description changes, every
    :data:`LOG_PERIOD_S` seconds, at its end."""

    def __init__(self, *args: Any, period: float = LOG_PERIOD_S, **kwargs: Any) -> None:
        self._period = period
        self._last_line = -float("inf")
        self._last_text = ""
        self._last_desc: str | None = None
        self._done_written = False
        kwargs.setdefault("mininterval", 0.0)
        super().__init__(*args, **kwargs)

    def line(self) -> str:
        """The current plain line: description, count of total, percentage, elapsed time."""
        d = self.format_dict
        n, total, unit = d["n"], d["total"], d["unit"] or "it"
        pct = f" ({100 * n / total:.0f}%)" if total else ""
        of = f"/{total}" if total else ""
        prefix = d["prefix"] or "progress"
        prefix = prefix[:-2] if prefix.endswith(": ") else prefix  # set_description adds ": "
        return f"{prefix}: {n}{of} {unit}s{pct}, {self.format_interval(d['elapsed'])} elapsed"

    def display(self, msg: str | None = None, pos: int | None = None) -> bool:
        now = time.monotonic()
        done = self.total is not None and self.n >= self.total
        renamed = self.desc != self._last_desc  # mteb names the task it starts in the description
        if done and not renamed and self._done_written:
            return True  # the final count once, however often tqdm refreshes after it
        if not (done or renamed or now - self._last_line >= self._period):
            return True
        self._last_desc = self.desc
        self._done_written = done
        text = self.line()
        if text != self._last_text:
            self.fp.write(text + "\n")
            self.fp.flush()
            self._last_text, self._last_line = text, now
        return True

    def clear(self, nolock: bool = False) -> None:
        """Nothing to clear: the lines written stay (``tqdm.write`` calls this around a message)."""

    def moveto(self, n: int) -> None:
        """No cursor moves in a log."""

    def close(self) -> None:
        if not self.disable and not getattr(self, "_closed_line", False):
            self._closed_line = True
            self._last_line = -float("inf")
            self.display()
            self.sp = None  # tqdm's own close would add a blank line or a carriage return
        super().close()


def bar(total: int, desc: str, unit: str = "text", *, disable: bool = False, file: Any = None, **kwargs: Any) -> Any:
    """A progress bar over ``total`` items (known now): ``tqdm`` on a terminal, :class:`PlainLines` otherwise.

    Args:
        total: how many items the bar counts (>= 0; it is never raised afterwards).
        desc: what is counted, e.g. ``"CranfieldIRTriplets: texts encoded"``.
        unit: the item's name (singular).
        disable: no output at all.
        file: the stream (default ``sys.stderr``).
    """
    stream = sys.stderr if file is None else file
    if is_terminal(stream):
        return tqdm(total=total, desc=desc, unit=unit, disable=disable, file=stream, **kwargs)
    return PlainLines(total=total, desc=desc, unit=unit, disable=disable, file=stream, **kwargs)
