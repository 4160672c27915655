"""What the real-client tests store, ask and expect: shared by every client under test."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.clients.flow import REFERENCE, REVISION
from tests.helpers import CANONICAL_ID, canonical_record, place_canonical, write_record
from tests.processes import LiveServer, running_server
from tests.surface import READ_LISTED

LEGACY_ID = "tea-morning"
LEGACY_RECORD: dict[str, Any] = {
    "schema_version": 1,
    "id": LEGACY_ID,
    "title": "Morning tea",
    "content": "Prefers green tea in the morning.",
    "tags": ["tea"],
}
CANONICAL_REFERENCE: dict[str, Any] = {
    "schema_version": 2,
    "scope": "project",
    "namespace_id": "mnemosyne",
    "collection_id": "decisions",
    "id": CANONICAL_ID,
}
LEGACY_REFERENCE: dict[str, Any] = {"schema_version": 1, "scope": "preference", "id": LEGACY_ID}

READ_TOOLS = READ_LISTED
LIST_TOOLS_TEXT = (
    "Server: mymcp 0.2.0. Available tools: list_tools, memory_recall, memory_list, memory_inspect"
)

# (label, tool, arguments): every read Tool, over both record versions.
READ_CALLS: list[tuple[str, str, dict[str, Any]]] = [
    ("list_tools", "list_tools", {}),
    ("recall_v2", "memory_recall", {"query": "memory ownership", "scope": "project"}),
    ("recall_v1", "memory_recall", {"query": "green tea", "scope": "preference"}),
    ("list_v2", "memory_list", {"scope": "project"}),
    ("list_v1", "memory_list", {"scope": "preference", "page_size": 10}),
    ("inspect_v2", "memory_inspect", {"reference": CANONICAL_REFERENCE}),
    ("inspect_v1", "memory_inspect", {"reference": LEGACY_REFERENCE}),
]


def seed_memory_root(root: Path) -> None:
    """One canonical (v2) project record and one legacy (v1) preference record."""
    place_canonical(root, canonical_record())
    write_record(root, LEGACY_RECORD, "preference", "drinks", f"{LEGACY_ID}.json")


@contextmanager
def seeded_server(base: Path, gates: Mapping[str, str] | None = None) -> Iterator[LiveServer]:
    """``uvicorn --factory mymcp.app:create_production_app`` over a seeded root below ``base``."""
    seed_memory_root(base / "memory")
    with running_server(base, gates) as server:
        yield server


def check_report(report: dict[str, Any]) -> None:
    """Assert what a client saw: the handshake, the Tool list and every read call.

    ``report`` has ``protocolVersion``, ``serverName``, ``tools`` (names in order) and
    ``calls`` (label -> ``{"isError", "text", "structured"}``).
    """
    assert report["serverName"] == "mymcp"
    assert report["tools"] == list(READ_TOOLS)
    calls = report["calls"]
    assert sorted(calls) == sorted(label for label, _, _ in READ_CALLS)

    listing = calls["list_tools"]
    assert listing["isError"] is False
    assert listing["text"] == LIST_TOOLS_TEXT

    for label, tool, _ in READ_CALLS:
        if tool == "list_tools":
            continue
        call = calls[label]
        assert call["isError"] is False, (label, call["text"])
        assert call["structured"] == json.loads(call["text"]), label

    _check_payloads({label: calls[label]["structured"] for label in calls if label != "list_tools"})


def _check_payloads(payloads: dict[str, Any]) -> None:
    recall_v2 = payloads["recall_v2"]
    assert recall_v2["status"] == "ok"
    assert recall_v2["memories"][0]["reference"] == CANONICAL_REFERENCE
    assert recall_v2["memories"][0]["content"] == canonical_record()["content"]

    recall_v1 = payloads["recall_v1"]
    assert recall_v1["status"] == "ok"
    assert recall_v1["memories"][0]["reference"] == LEGACY_REFERENCE
    assert recall_v1["memories"][0]["content"] == LEGACY_RECORD["content"]

    list_v2 = payloads["list_v2"]
    assert list_v2["status"] == "ok"
    assert [item["reference"] for item in list_v2["memories"]] == [CANONICAL_REFERENCE]
    assert list_v2["page"]["total_count"] == 1

    list_v1 = payloads["list_v1"]
    assert list_v1["status"] == "ok"
    assert [item["reference"] for item in list_v1["memories"]] == [LEGACY_REFERENCE]

    inspect_v2 = payloads["inspect_v2"]
    assert inspect_v2["status"] == "ok"
    assert inspect_v2["memory"]["reference"] == CANONICAL_REFERENCE
    assert inspect_v2["memory"]["content"] == canonical_record()["content"]

    inspect_v1 = payloads["inspect_v1"]
    assert inspect_v1["status"] == "ok"
    assert inspect_v1["memory"]["reference"] == LEGACY_REFERENCE
    assert inspect_v1["memory"]["title"] == LEGACY_RECORD["title"]


# (label, tool, arguments) with the placeholders of ``flow.py``: with every gate on, one new
# memory goes through every change Tool and is gone at the end.
MUTATION_CALLS: list[tuple[str, str, dict[str, Any]]] = [
    (
        "remember",
        "memory_remember",
        {
            "scope": "preference",
            "namespace": {"kind": "domain", "id": "coffee", "label": "Coffee"},
            "collection": None,
            "kind": "preference",
            "language": "en",
            "title": "Brewing method",
            "content": "Prefers pour-over coffee.",
            "tags": ["coffee"],
            "origin": "explicit_user_statement",
        },
    ),
    ("inspect", "memory_inspect", {"reference": REFERENCE}),
    (
        "revise",
        "memory_revise",
        {
            "reference": REFERENCE,
            "expected_revision": REVISION,
            "namespace_label": "Coffee",
            "title": "Brewing method",
            "content": "Prefers pour-over coffee, never espresso after noon.",
            "tags": ["coffee"],
        },
    ),
    ("archive", "memory_archive", {"reference": REFERENCE, "expected_revision": REVISION}),
    ("restore", "memory_restore", {"reference": REFERENCE, "expected_revision": REVISION}),
    ("archive_again", "memory_archive", {"reference": REFERENCE, "expected_revision": REVISION}),
    ("forget", "memory_forget", {"reference": REFERENCE, "expected_revision": REVISION}),
]
# (status, revision afterwards) of each step, in order; forget reports no lifecycle.
MUTATION_OUTCOMES = [
    ("remembered", 1),
    ("ok", 1),
    ("revised", 2),
    ("archived", 3),
    ("restored", 4),
    ("archived", 5),
    ("forgotten", None),
]


def check_mutation_report(report: dict[str, Any], memory_root: Path) -> None:
    """Every step of ``MUTATION_CALLS`` succeeded in order, and no record file is left."""
    calls = report["calls"]
    for (label, _, _), (status, revision) in zip(MUTATION_CALLS, MUTATION_OUTCOMES, strict=True):
        call = calls[label]
        assert call["isError"] is False, (label, call["text"])
        payload = json.loads(call["text"])
        assert payload["status"] == status, (label, payload)
        lifecycle = payload.get("lifecycle") or payload.get("memory", {}).get("lifecycle")
        assert (lifecycle or {}).get("revision") == revision, (label, payload)
    assert not list((memory_root / "preference" / "coffee").glob("*.json"))
