"""A memory root that is a symlink: reads and changes follow it; creation and listing refuse it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import (
    McpClient,
    canonical_record,
    place_canonical,
    snapshot_tree,
    tea_preference,
)

REFERENCE = {
    "schema_version": 2,
    "scope": "project",
    "namespace_id": "mnemosyne",
    "collection_id": "decisions",
    "id": canonical_record()["id"],
}


@pytest.fixture
def linked_root(memory_root: Path, tmp_path: Path) -> Path:
    """``memory_root`` is a symlink to a real directory holding one active record."""
    target = tmp_path / "real-memory"
    target.mkdir()
    place_canonical(target, canonical_record())
    memory_root.symlink_to(target, target_is_directory=True)
    return target


def all_gates(mcp: Callable[..., McpClient]) -> McpClient:
    return mcp(remember=True, revise=True, archive_restore=True, forget=True)


def test_recall_and_inspect_follow_a_symlinked_root(
    linked_root: Path, mcp: Callable[..., McpClient]
) -> None:
    client = all_gates(mcp)
    recall = client.call("memory_recall", {"query": "memory ownership", "scope": "project"})
    assert recall.payload["status"] == "ok"
    inspect = client.call("memory_inspect", {"reference": REFERENCE})
    assert inspect.payload["status"] == "ok"


def test_archive_and_revise_change_the_record_through_a_symlinked_root(
    linked_root: Path, mcp: Callable[..., McpClient]
) -> None:
    client = all_gates(mcp)
    archived = client.call("memory_archive", {"reference": REFERENCE, "expected_revision": 1})
    assert archived.payload["status"] == "archived"
    revised = client.call(
        "memory_revise",
        {
            "reference": REFERENCE,
            "expected_revision": 2,
            "namespace_label": "Mnemosyne",
            "collection_label": "Decisions",
            "title": "Shared memory ownership",
            "content": "Memory concepts belong to the domain package.",
            "tags": ["architecture"],
        },
    )
    assert revised.payload["lifecycle"] == {"state": "archived", "revision": 3}
    assert not linked_root.joinpath("project", "mnemosyne", "decisions").is_symlink()


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("memory_list", {"scope": "project"}),
        ("memory_remember", tea_preference("Prefers green tea.")),
    ],
)
def test_listing_and_remembering_refuse_a_symlinked_root(
    linked_root: Path, mcp: Callable[..., McpClient], tool: str, arguments: dict[str, Any]
) -> None:
    client = all_gates(mcp)
    before = snapshot_tree(linked_root)
    reply = client.call(tool, arguments)
    assert reply.is_error
    assert (reply.payload["status"], reply.payload["code"]) == (
        "storage_error",
        "memory_source_unavailable",
    )
    assert snapshot_tree(linked_root) == before
