"""What the recall tier tests share: memories of the project scope by number, and one recall."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers import McpClient, ToolReply, canonical_record, place_canonical, write_record

TOOL = "memory_recall"


def mem_id(number: int) -> str:
    return f"mem_{number:032x}"


def canonical(root: Path, number: int, content: str, **overrides: Any) -> None:
    """A canonical project memory numbered ``number``: no title, tags or collection unless given."""
    overrides.setdefault("title", None)
    overrides.setdefault("tags", [])
    overrides.setdefault("collection", None)
    place_canonical(root, canonical_record(id=mem_id(number), content=content, **overrides))


def legacy(root: Path, name: str, content: str, **fields: Any) -> None:
    """A version 1 project memory with the ID ``name``, in a file of that name."""
    write_record(
        root, {"schema_version": 1, "id": name, "content": content, **fields}, "project", name
    )


def recall(client: McpClient, query: str, **extra: Any) -> ToolReply:
    return client.call(TOOL, {"query": query, "scope": "project", **extra})


def found(reply: ToolReply) -> list[tuple[str, dict[str, Any]]]:
    """Each memory recalled: its ID and its ``match``."""
    return [(memory["id"], memory["match"]) for memory in reply.payload["memories"]]
