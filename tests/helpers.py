"""Helpers for tests: an MCP client wrapper and record-writing utilities."""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient


@dataclass(frozen=True)
class ToolReply:
    payload: dict[str, Any]
    is_error: bool
    raw: dict[str, Any]


def tool_names(registry: Any) -> tuple[str, ...]:
    """The names of the Tools ``registry`` serves, in their order."""
    return tuple(tool["name"] for tool in registry.tools)


# The six scopes, in the order the contract lists them.
SCOPES = ["self", "relationship", "preference", "practice", "project", "knowledge"]
MODERN_PROTOCOL = "2025-11-25"


class McpClient:
    """A small MCP client over the in-process app.

    Like a current client it announces its protocol revision on every request
    (``MCP-Protocol-Version``); ``protocol_version=None`` behaves like a 0.2.0-era client.
    """

    def __init__(self, client: TestClient, protocol_version: str | None = MODERN_PROTOCOL) -> None:
        self.http = client
        self.protocol_version = protocol_version
        self._next_id = 0

    def post(self, body: bytes | str, headers: dict[str, str] | None = None) -> Any:
        content = body.encode() if isinstance(body, str) else body
        merged = {"content-type": "application/json"}
        if self.protocol_version is not None:
            merged["mcp-protocol-version"] = self.protocol_version
        merged.update({key.lower(): value for key, value in (headers or {}).items()})
        return self.http.post("/mcp", content=content, headers=merged)

    def rpc(self, method: Any, params: Any = None, id: Any = 1) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            message["params"] = params
        response = self.post(json.dumps(message))
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    def call(self, tool: str, arguments: Any) -> ToolReply:
        response = self.rpc("tools/call", {"name": tool, "arguments": arguments})
        assert "result" in response, response
        result = response["result"]
        text = result["content"][0]["text"]
        payload = json.loads(text)
        return ToolReply(payload=payload, is_error=result.get("isError", False), raw=result)

    def tool_names(self) -> list[str]:
        return [tool["name"] for tool in self.rpc("tools/list")["result"]["tools"]]

    def declaration(self, name: str) -> dict[str, Any]:
        """The one published ``tools/list`` entry named ``name``."""
        [entry] = [t for t in self.rpc("tools/list")["result"]["tools"] if t["name"] == name]
        found: dict[str, Any] = entry
        return found


def unexpected_argument(code: str, name: str) -> dict[str, Any]:
    """A Tool's answer to an argument it does not take, with ``code`` as its contract says."""
    return {
        "status": "invalid_request",
        "code": code,
        "field": name,
        "message": f"unexpected argument: {name}",
    }


def log_events(caplog: pytest.LogCaptureFixture, logger: str) -> list[tuple[int, str]]:
    """(level, message) of every captured record of exactly ``logger``."""
    return [(r.levelno, r.getMessage()) for r in caplog.records if r.name == logger]


# A version 2 record file's keys, in the order the contract writes them.
V2_KEY_ORDER = [
    "schema_version",
    "id",
    "scope",
    "namespace",
    "collection",
    "kind",
    "language",
    "title",
    "content",
    "tags",
    "provenance",
    "lifecycle",
    "created_at",
    "updated_at",
]


def log_messages(caplog: pytest.LogCaptureFixture, logger: str) -> list[str]:
    """The messages of the records ``logger`` wrote, in order."""
    return [message for _, message in log_events(caplog, logger)]


def settled_clock() -> int:
    """A clock a minute ahead, so every file looks settled and cached reads are trusted."""
    return time.time_ns() + 60 * 10**9


def touch(path: Path, data: bytes = b"{}") -> Path:
    """Write ``data`` at ``path``, making its folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def write_record(root: Path, record: dict[str, Any] | str | bytes, *parts: str) -> Path:
    """Write a record file at ``root/parts...`` (dicts as indented JSON), creating dirs."""
    path = root.joinpath(*parts)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(record, dict):
        data = (json.dumps(record, indent=2, ensure_ascii=False) + "\n").encode()
    elif isinstance(record, str):
        data = record.encode()
    else:
        data = record
    path.write_bytes(data)
    return path


def snapshot_tree(path: Path) -> dict[str, tuple[int, str]]:
    """Every entry below ``path`` (inclusive) with its mode and content digest."""
    snapshot: dict[str, tuple[int, str]] = {}
    if not os.path.lexists(path):
        return snapshot
    for current, dirs, files in os.walk(path):
        for name in [*dirs, *files, ""]:
            entry = Path(current, name) if name else Path(current)
            stat = entry.lstat()
            digest = ""
            if entry.is_file() and not entry.is_symlink():
                digest = hashlib.sha256(entry.read_bytes()).hexdigest()
            snapshot[str(entry.relative_to(path.parent))] = (stat.st_mode, digest)
    return snapshot


CANONICAL_ID = "mem_0123456789abcdef0123456789abcdef"


def remember_arguments(**overrides: Any) -> dict[str, Any]:
    """Valid ``memory_remember`` arguments (project/mnemosyne/decisions, a decision)."""
    arguments: dict[str, Any] = {
        "scope": "project",
        "namespace": {"kind": "project", "id": "mnemosyne", "label": "Mnemosyne"},
        "collection": {"id": "decisions", "label": "Decisions"},
        "kind": "decision",
        "language": "en",
        "title": "Shared memory ownership",
        "content": "Canonical memory concepts belong to the shared memory domain.",
        "tags": ["architecture", "memory-domain"],
        "origin": "explicit_user_statement",
    }
    arguments.update(overrides)
    return arguments


def tea_preference(content: str) -> dict[str, Any]:
    """``memory_remember`` arguments of an untitled preference about tea, saying ``content``."""
    return remember_arguments(
        scope="preference",
        namespace={"kind": "domain", "id": "tea", "label": None},
        collection=None,
        kind="preference",
        language=None,
        title=None,
        content=content,
        tags=[],
    )


def canonical_record(**overrides: Any) -> dict[str, Any]:
    """The record :func:`remember_arguments` make, as a valid version 2 record dict."""
    arguments = remember_arguments()
    origin = arguments.pop("origin")
    record: dict[str, Any] = {"schema_version": 2, "id": CANONICAL_ID, **arguments}
    record["provenance"] = {"origin": origin, "recorded_via": "memory_remember"}
    record["lifecycle"] = {"state": "active", "revision": 1}
    record["created_at"] = record["updated_at"] = "2026-07-18T12:00:00Z"
    record.update(overrides)
    return record


def place_canonical(root: Path, record: dict[str, Any]) -> Path:
    """Write a v2 record dict at its canonical path below ``root``."""
    parts = [record["scope"], record["namespace"]["id"]]
    if record.get("collection"):
        parts.append(record["collection"]["id"])
    parts.append(f"{record['id']}.json")
    return write_record(root, record, *parts)
