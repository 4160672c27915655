"""What a plugin tells the operator about their setup: the errors that stop a start, and
the findings of ``mymcp doctor``.

A mistake the operator can fix (a settings file, a gate variable, the memory root) stops
the start with a :class:`SetupError`: its text is a fixed sentence and its notes say where
the problem is and what to do, which the commands print without a traceback
(:func:`setup_lines`). A ``ValueError`` that must keep its type, because Uvicorn's factory
traceback has always named it, carries the same in its ``setup_hint``. Any other exception
is a bug and keeps its traceback.

A plugin may also bring commands of its own (:data:`AddCommands`).

A doctor finding is ``(level, text)`` with level :data:`OK`, :data:`WARN` or :data:`FAIL`;
the host prints the host's and the plugin's findings alike (:func:`print_findings`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol, TextIO

__all__ = [
    "FAIL",
    "OK",
    "WARN",
    "AddCommands",
    "CommandHost",
    "Finding",
    "SetupError",
    "print_findings",
    "setup_lines",
]

OK, WARN, FAIL = "ok", "warn", "fail"
Finding = tuple[str, str]


class CommandHost(Protocol):
    """What the host lends a plugin's commands."""

    def add_serve_options(self, parser: Any) -> None:
        """The options of every command that serves HTTP: ``--host`` (loopback addresses
        only), ``--port`` and ``--require-token``."""
        ...

    def serve(self, options: Any, run: Callable[[Callable[[], Any]], None]) -> int | None:
        """Serve HTTP as ``mymcp serve`` does: ``run`` gets the factory of the production app
        and serves it until stopped. A port in use or a setup mistake is told in plain
        lines (the exit status 1); ``None`` once the server stopped."""
        ...


# A plugin's own commands of ``mymcp``: it adds them to argparse's sub-parsers, each with
# ``run`` (a function of the parsed options that returns the exit status) as a default, and
# the host runs the one named.
AddCommands = Callable[[Any, CommandHost], None]


class SetupError(Exception):
    """The operator's setup stops the start: a fixed sentence, with notes saying where."""


def setup_lines(error: BaseException) -> list[str] | None:
    """The lines to show for a startup failure the operator can fix, or None for a bug."""
    if isinstance(error, SetupError):
        return [str(error), *getattr(error, "__notes__", ())]
    hint = getattr(error, "setup_hint", None)
    return [str(error), hint] if isinstance(hint, str) else None


def print_findings(found: Iterable[Finding], out: TextIO) -> int:
    """Print one line per finding and a summary; 1 when anything failed, else 0."""
    levels = []
    for level, text in found:
        print(f"{level:<4}  {text}", file=out)
        levels.append(level)
    warnings = levels.count(WARN)
    summary = f"{levels.count(FAIL)} failed, {warnings} warning{'' if warnings == 1 else 's'}"
    print(f"doctor: {summary}", file=out)
    return 1 if FAIL in levels else 0
