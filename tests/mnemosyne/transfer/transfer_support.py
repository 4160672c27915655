"""A sample notebook, and ``mymcp export`` / ``mymcp import`` run through the command line."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mymcp import cli
from tests.helpers import canonical_record, place_canonical, write_record

ACTIVE_ID = "mem_3f0c9b1e5d7a4c2b8e6f1a0d9c8b7a65"
ARCHIVED_ID = "mem_9a41d2c07b3e4f5a8c6d1e2f3a4b5c6d"
EVENT_ID = "mem_00000000000000000000000000000e01"
PERSON_ID = "mem_00000000000000000000000000000a11"


@dataclass(frozen=True)
class Ran:
    code: int | None
    out: str
    err: str


def mymcp(capsys: pytest.CaptureFixture[str], *arguments: str) -> Ran:
    """Run ``mymcp ARGUMENTS`` in this process; its exit code and what it printed."""
    capsys.readouterr()
    code = cli.main(list(arguments))
    captured = capsys.readouterr()
    return Ran(code, captured.out, captured.err)


def sample_notebook(root: Path) -> None:
    """Canonical and legacy records, an archived one, collections, an event, odd text."""
    place_canonical(
        root,
        canonical_record(
            id=ACTIVE_ID,
            namespace={"kind": "project", "id": "mymcp", "label": "MyMCP"},
            title="Records are plain JSON files",
            content="One JSON file per memory,\nreadable with any editor: café ☕.",
        ),
    )
    place_canonical(
        root,
        canonical_record(
            id=ARCHIVED_ID,
            namespace={"kind": "project", "id": "mymcp", "label": "MyMCP"},
            title="Index database",
            content="Keep a SQLite index beside the files.",
            tags=["storage"],
            lifecycle={"state": "archived", "revision": 2},
            updated_at="2026-08-01T10:00:00Z",
        ),
    )
    place_canonical(
        root,
        canonical_record(
            id=EVENT_ID,
            namespace={"kind": "project", "id": "mymcp", "label": "MyMCP"},
            collection=None,
            kind="event",
            title=None,
            content="Version 0.2.0 was released.",
            tags=[],
            occurred_at="2026-07-01T09:30:00Z",
        ),
    )
    place_canonical(
        root,
        canonical_record(
            id=PERSON_ID,
            scope="relationship",
            namespace={"kind": "person", "id": "alice", "label": None},
            collection=None,
            kind="perspective",
            language="und",
            title="Alice",
            content="Alice reviews every design carefully.",
            tags=["Team"],
            provenance={"origin": "user_approved_proposal", "recorded_via": "filesystem"},
        ),
    )
    legacy = {"schema_version": 1, "id": "green-tea", "title": "Morning tea", "tags": ["tea"]}
    write_record(root, {**legacy, "content": "Prefers green tea."}, "preference", "green-tea.json")
    deep = {"tags": ["x"], "schema_version": 1, "content": "  kept verbatim  ", "id": "old"}
    write_record(root, deep, "self", "notes", "2019", "old.json")


def read_json(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def without_time(document: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in document.items() if key != "exported_at"}


def record_files(root: Path) -> dict[str, bytes]:
    """Every file below ``root`` by its root-relative path, with its bytes."""
    if not root.exists():
        return {}
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }
