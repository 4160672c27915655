"""Shared helpers of the revise / archive / restore / forget tests."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from mymcp.plugins.mnemosyne.memory import lifecycle as lifecycle_service
from tests.helpers import canonical_record, place_canonical

REFUSAL_MESSAGE = (
    "memory field resembles content that Mnemosyne does not store; review the named field "
    "and retry only if the user confirms that the formatting is benign"
)
FIXED_NOW = datetime(2026, 7, 21, 8, 30, 15, 999_000, tzinfo=UTC)
FIXED_STAMP = "2026-07-21T08:30:15Z"
OTHER_ID = "mem_fedcba9876543210fedcba9876543210"
ALL_TOOLS = [
    "list_tools",
    "memory_recall",
    "memory_list",
    "memory_inspect",
    "memory_archive",
    "memory_restore",
    "memory_remember",
    "memory_revise",
    "memory_forget",
]
READ_TOOLS = ["list_tools", "memory_recall", "memory_list", "memory_inspect"]


def reference_of(record: dict[str, Any]) -> dict[str, Any]:
    """The version 2 reference of a record dict."""
    collection = record["collection"]
    return {
        "schema_version": 2,
        "scope": record["scope"],
        "namespace_id": record["namespace"]["id"],
        "collection_id": None if collection is None else collection["id"],
        "id": record["id"],
    }


def existing(root: Path, **overrides: Any) -> dict[str, Any]:
    """Place a valid record (helpers.canonical_record with overrides) and return its dict."""
    record = canonical_record(**overrides)
    place_canonical(root, record)
    return record


def record_path(root: Path, record: dict[str, Any]) -> Path:
    parts = [record["scope"], record["namespace"]["id"]]
    if record["collection"] is not None:
        parts.append(record["collection"]["id"])
    return root.joinpath(*parts, f"{record['id']}.json")


def on_disk(root: Path, record: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(record_path(root, record).read_bytes())
    return data


def fix_clock(monkeypatch: pytest.MonkeyPatch, now: datetime = FIXED_NOW) -> None:
    monkeypatch.setattr(lifecycle_service, "_utc_now", lambda: now)


def forbid_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_clock() -> datetime:
        raise AssertionError("the clock must not be read")

    monkeypatch.setattr(lifecycle_service, "_utc_now", no_clock)


def tool_events(caplog: pytest.LogCaptureFixture, tool: str) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.name == f"mcp.{tool}"]
