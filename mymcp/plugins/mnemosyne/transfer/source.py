"""The file an import reads: its size bound, strict UTF-8, strict JSON, and where it breaks.

A file that cannot be read as a whole raises :class:`SourceRefused` before anything is
imported. Its problem names the line (and the column, where the JSON parser knows it);
the rejected text itself is never repeated.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from mymcp import jsonvalue

__all__ = ["MAX_SOURCE_BYTES", "SourceRefused", "field_problem", "json_of", "shown", "text_of"]

MAX_SOURCE_BYTES = 64 * 1024 * 1024


class SourceRefused(Exception):
    """The whole file is refused: ``problem`` says where and what, ``hint`` what to do."""

    def __init__(self, problem: str, hint: str | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.hint = hint


def text_of(data: bytes) -> str:
    """The file as text: strict UTF-8 without a byte order mark, at most the bound."""
    if len(data) > MAX_SOURCE_BYTES:
        raise SourceRefused(
            f"larger than {MAX_SOURCE_BYTES // (1024 * 1024)} MiB, the most an import reads",
            "export the notebook in parts with mymcp export --scope, and import each part",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        problem = f"line {line}: not UTF-8 (byte {error.start + 1} of the file)"
        raise SourceRefused(problem) from None
    if text.startswith("\ufeff"):
        raise SourceRefused("line 1: starts with a byte order mark", "save it as UTF-8 without one")
    return text


def json_of(text: str, *, line: int | None = None) -> object:
    """The strict JSON value of ``text``: the file, or its line ``line`` (JSON Lines).

    Duplicate keys, ``NaN`` and ``Infinity`` are refused like a syntax error; where the
    parser cannot tell their place, the problem names the line only for JSON Lines.
    """
    try:
        return jsonvalue.decode(text, unique_keys=True)
    except jsonvalue.DuplicateKey:
        raise SourceRefused(_at(line, "not strict JSON: an object names one key twice")) from None
    except jsonvalue.JsonError:
        raise SourceRefused(_syntax_problem(text, line)) from None


def _syntax_problem(text: str, line: int | None) -> str:
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        where = f"line {(line or 1) + error.lineno - 1}, column {error.colno}"
        return f"{where}: not JSON ({error.msg})"
    except (ValueError, RecursionError):
        pass
    return _at(line, "not strict JSON (NaN, Infinity, a number too large or nesting too deep)")


def _at(line: int | None, problem: str) -> str:
    return problem if line is None else f"line {line}: {problem}"


def field_problem(value: Mapping[str, object], fields: Sequence[str]) -> str | None:
    """Which key of an object is unknown (the first) or missing, or None when it has ``fields``."""
    unknown = [key for key in value if key not in fields]
    if unknown:
        return f"unknown field {shown(unknown[0])}"
    missing = [key for key in fields if key not in value]
    if missing:
        return f"the field {missing[0]!r} is missing"
    return None


def shown(name: object) -> str:
    """A name from the file, quoted and cut short: a field name is shown, never a long text."""
    text = repr(name)
    return text if len(text) <= 40 else text[:36] + "...'"
