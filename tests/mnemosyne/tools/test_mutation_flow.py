"""A memory's whole life through POST /mcp with every gate on.

remember -> inspect -> revise -> archive -> restore -> archive -> forget, checking after each
step what inspect, recall and the file on disk show.
"""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mymcp.plugins.mnemosyne.memory.model.records import CanonicalRecord, parse_record_bytes
from tests.helpers import McpClient, remember_arguments

DRAFT = remember_arguments(
    title="Storage format",
    content="Records are stored as one JSON file per memory below the memory root.",
    tags=["storage", "format"],
)


def file_of(root: Path, reference: dict[str, Any]) -> Path:
    return root.joinpath(
        reference["scope"],
        reference["namespace_id"],
        reference["collection_id"],
        f"{reference['id']}.json",
    )


def stored(root: Path, reference: dict[str, Any]) -> CanonicalRecord:
    path = file_of(root, reference)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    record = parse_record_bytes(path.read_bytes())
    assert isinstance(record, CanonicalRecord)
    return record


def test_remember_inspect_revise_archive_restore_archive_forget(
    mcp: Callable[..., McpClient], memory_root: Path
) -> None:
    client = mcp(remember=True, revise=True, archive_restore=True, forget=True)

    def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        payload: dict[str, Any] = client.call(tool, arguments).payload
        return payload

    def recall_ids() -> list[str]:
        payload = call("memory_recall", {"query": "json file memory root", "scope": "project"})
        return [item["reference"]["id"] for item in payload["memories"]]

    # remember: the result's reference has no schema_version; the lifecycle Tools need one.
    remembered = call("memory_remember", DRAFT)
    assert remembered["status"] == "remembered"
    assert remembered["lifecycle"] == {"state": "active", "revision": 1}
    reference = {"schema_version": 2, **remembered["reference"]}
    memory_id = reference["id"]
    created = stored(memory_root, reference)

    # inspect shows the record at revision 1, and recall finds it.
    inspected = call("memory_inspect", {"reference": reference})
    assert inspected["status"] == "ok"
    assert inspected["memory"]["reference"] == reference
    assert inspected["memory"]["lifecycle"] == {"state": "active", "revision": 1}
    assert inspected["memory"]["content"] == DRAFT["content"]
    assert recall_ids() == [memory_id]

    # revise at the inspected revision.
    revision = inspected["memory"]["lifecycle"]["revision"]
    new_text = {
        "namespace_label": "Mnemosyne memory",
        "collection_label": "Storage decisions",
        "title": "Storage format (revised)",
        "content": "Each memory is one JSON file below the memory root, written atomically.",
        "tags": ["storage", "atomic"],
    }
    revised = call(
        "memory_revise", {"reference": reference, "expected_revision": revision, **new_text}
    )
    assert revised == {
        "status": "revised",
        "reference": reference,
        "lifecycle": {"state": "active", "revision": 2},
    }
    after_revise = call("memory_inspect", {"reference": reference})["memory"]
    assert after_revise["content"] == new_text["content"]
    assert after_revise["tags"] == new_text["tags"]
    assert after_revise["namespace"]["label"] == "Mnemosyne memory"
    assert after_revise["collection"]["label"] == "Storage decisions"
    assert after_revise["created_at"] == created.created_at
    assert after_revise["provenance"] == {
        "origin": "explicit_user_statement",
        "recorded_via": "memory_remember",
    }
    again = call("memory_revise", {"reference": reference, "expected_revision": 2, **new_text})
    assert again["status"] == "already_current"
    stale = call("memory_revise", {"reference": reference, "expected_revision": 1, **new_text})
    assert stale["code"] == "revision_conflict"

    # archive hides it from recall.
    archived = call("memory_archive", {"reference": reference, "expected_revision": 2})
    assert archived["lifecycle"] == {"state": "archived", "revision": 3}
    assert recall_ids() == []
    assert stored(memory_root, reference).state.value == "archived"
    assert call("memory_remember", DRAFT)["status"] == "remembered"  # changed text: no duplicate

    # restore brings it back; archive again.
    restored = call("memory_restore", {"reference": reference, "expected_revision": 3})
    assert restored["lifecycle"] == {"state": "active", "revision": 4}
    assert memory_id in recall_ids()
    not_yet = call("memory_forget", {"reference": reference, "expected_revision": 4})
    assert not_yet["code"] == "not_archived"
    archived = call("memory_archive", {"reference": reference, "expected_revision": 4})
    assert archived["lifecycle"] == {"state": "archived", "revision": 5}
    final = stored(memory_root, reference)
    assert (final.content, final.revision, final.created_at) == (
        new_text["content"],
        5,
        created.created_at,
    )

    # forget removes the file and nothing else; a second forget finds nothing.
    assert call("memory_forget", {"reference": reference, "expected_revision": 4})["code"] == (
        "revision_conflict"
    )
    forgotten = call("memory_forget", {"reference": reference, "expected_revision": 5})
    assert forgotten == {"status": "forgotten", "reference": reference}
    assert not file_of(memory_root, reference).exists()
    assert file_of(memory_root, reference).parent.is_dir()
    assert call("memory_inspect", {"reference": reference})["status"] == "not_found"
    assert call("memory_forget", {"reference": reference, "expected_revision": 5})["status"] == (
        "not_found"
    )
    assert memory_id not in recall_ids()
