"""The handshake era, byte for byte: every answer a 2025-era client gets stays as recorded.

The recordings in ``tests/transcripts/`` were taken before the 2026-07-28 revision was
served beside the handshake era; each exchange of ``transcripts.handshake`` is replayed
here over HTTP (the production app) and over stdio (the real ``mymcp stdio`` command) and
must give the very same status, content type, header names and bytes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.clients.scenario import seed_memory_root
from tests.helpers import McpClient
from tests.processes import StdioPeer, child_environment, mymcp_command
from tests.transcripts import handshake

# Response headers whose values may differ between runs or carry nothing of the protocol.
_UNPINNED_HEADERS = {"date", "server"}


def _check(transport: str, exchanges: list[dict[str, Any]]) -> None:
    if os.environ.get(handshake.WRITE_VARIABLE) == "1":
        handshake.save(transport, exchanges)
        pytest.skip(f"recorded {handshake.recording_path(transport).name}")
    recorded = handshake.load(transport)
    assert [e["label"] for e in exchanges] == [e["label"] for e in recorded]
    for seen, expected in zip(exchanges, recorded, strict=True):
        assert seen == expected, seen["label"]


def _http_exchange(client: McpClient, label: str, headers: dict[str, str], body: bytes) -> Any:
    sent = {"content-type": "application/json", **headers}
    response = client.http.post("/mcp", content=body, headers=sent)
    return {
        "label": label,
        "status": response.status_code,
        "headers": sorted(name for name in response.headers if name not in _UNPINNED_HEADERS),
        "content_type": response.headers.get("content-type"),
        "body": response.content.decode("utf-8"),
    }


def test_the_http_handshake_transcript_is_unchanged(
    mcp: Callable[..., McpClient], memory_root: Path
) -> None:
    seed_memory_root(memory_root)
    client = mcp()
    exchanges = []
    for label, version, message in handshake.SESSION:
        headers = {"mcp-protocol-version": version} if version is not None else {}
        exchanges.append(_http_exchange(client, label, headers, json.dumps(message).encode()))
    for label, headers, body in handshake.HTTP_ONLY:
        exchanges.append(_http_exchange(client, label, headers, body))

    _check("http", exchanges)


def test_the_stdio_handshake_transcript_is_unchanged(tmp_path: Path, hermetic_home: Path) -> None:
    root = tmp_path / "memory"
    seed_memory_root(root)
    env = child_environment(hermetic_home, root)
    peer = StdioPeer(mymcp_command("stdio"), env, tmp_path / "stderr.log")
    exchanges = []
    try:
        for label, _, message in handshake.SESSION:
            peer.send(message)
            if "id" in message:
                answer = peer.raw_line()
            else:  # a notification: nothing comes back, a ping proves the order
                peer.send({"jsonrpc": "2.0", "id": "after", "method": "ping"})
                answer = peer.raw_line()
                assert json.loads(answer)["id"] == "after", label
                answer = b""
            exchanges.append({"label": label, "line": answer.decode("utf-8")})
        peer.close_input()
        code, _ = peer.wait()
    finally:
        peer.stop()

    assert code == 0
    _check("stdio", exchanges)
