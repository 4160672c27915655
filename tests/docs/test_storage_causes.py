"""README Troubleshooting: the table of storage causes and its two log lines are the code's."""

from __future__ import annotations

import errno
import logging
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mymcp.plugins.mnemosyne.memory.model import faults
from tests.docs.markdown import ROOT
from tests.helpers import McpClient, canonical_record, log_events, place_canonical

README = ROOT / "README.md"
_ROW = re.compile(r"^\| `(\w+)` \| (.+?) \| .+ \|$")


def _section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("**`storage_error` or `uncertain` from a change or a read.**")
    return text[start : text.index("**What the log shows.**", start)]


def _documented_rows() -> dict[str, set[str]]:
    rows: dict[str, set[str]] = {}
    for line in _section().splitlines():
        match = _ROW.match(line)
        if match and match.group(1) != "cause":
            rows[match.group(1)] = set(re.findall(r"`(E[A-Z]+)`", match.group(2)))
    return rows


def _example(prefix: str) -> str:
    [line] = re.findall(rf"`({re.escape(prefix)}[^`]*)`", _section())
    return line


def test_the_table_names_every_cause_with_exactly_its_errnos() -> None:
    table: dict[str, set[str]] = {faults.OTHER: set()}
    for number, cause in faults.CAUSES.items():
        table.setdefault(cause, set()).add(errno.errorcode[number])

    assert _documented_rows() == table


def _failing(number: int) -> Callable[..., int]:
    real = os.open

    def guarded(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & os.O_CREAT:
            raise OSError(number, os.strerror(number))
        return real(path, flags, *args, **kwargs)

    return guarded


def test_the_remember_line_is_the_one_a_full_disk_logs(
    mcp: Callable[..., McpClient],
    memory_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = mcp(remember=True)
    (memory_root / "project" / "mnemosyne" / "decisions").mkdir(parents=True)
    record = canonical_record()
    arguments = {key: record[key] for key in ("scope", "namespace", "collection", "kind")}
    arguments.update(language="en", title="A note", content="Some text.", tags=[])
    arguments["origin"] = "explicit_user_statement"
    monkeypatch.setattr(os, "open", _failing(errno.ENOSPC))
    caplog.set_level(logging.INFO)

    client.call("memory_remember", arguments)

    [(_, line)] = log_events(caplog, "mcp.memory_remember")
    assert line == _example("event=memory_remember ")


def test_the_skip_line_is_the_one_an_unreadable_record_logs(
    mcp: Callable[..., McpClient],
    memory_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = mcp()
    place_canonical(memory_root, canonical_record(collection=None))

    def failing_read(fd: int, size: int) -> bytes:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "read", failing_read)
    caplog.set_level(logging.INFO)

    client.call("memory_list", {"scope": "project"})

    [(_, line)] = log_events(caplog, "mymcp.memory.store")
    assert line == _example("skipped ")
