"""The real ``mymcp stdio`` command: stdout purity, ending, signals, logs and no writes."""

from __future__ import annotations

import json
import os
import signal
import sys
import textwrap
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.clients.scenario import READ_CALLS, READ_TOOLS, seed_memory_root
from tests.helpers import snapshot_tree
from tests.processes import (
    INITIALIZE,
    REPO_ROOT,
    StdioPeer,
    child_environment,
    finished,
    mymcp_command,
)
from tests.surface import GATES_ON

pytestmark = pytest.mark.slow  # server processes

CONTENT_MARKER = "Stdio-Content-Marker-5b1e"
StartPeer = Callable[..., StdioPeer]


@pytest.fixture
def memory_root(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    seed_memory_root(root)
    return root


@pytest.fixture
def start_peer(tmp_path: Path, hermetic_home: Path, memory_root: Path) -> Iterator[StartPeer]:
    peers: list[StdioPeer] = []

    def start(extra: Mapping[str, str] | None = None, root: Path | None = None) -> StdioPeer:
        env = child_environment(hermetic_home, root or memory_root, extra)
        peer = StdioPeer(mymcp_command("stdio"), env, tmp_path / f"stderr-{len(peers)}.log")
        peers.append(peer)
        return peer

    yield start
    for peer in peers:
        peer.stop()


def _call(tool: str, arguments: Any, request_id: Any) -> dict[str, Any]:
    params = {"name": tool, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def _is_one_answer(line: bytes) -> bool:
    """One line, one JSON-RPC response: never a request, a notification or anything else."""
    if not line.endswith(b"\n") or line.count(b"\n") != 1:
        return False
    message = json.loads(line)
    return (
        isinstance(message, dict)
        and message.get("jsonrpc") == "2.0"
        and "id" in message
        and "method" not in message
        and ("result" in message) != ("error" in message)
    )


def test_a_session_initializes_lists_the_tools_and_calls_each_read_tool(
    start_peer: StartPeer,
) -> None:
    peer = start_peer()
    initialized = peer.request("initialize", INITIALIZE)
    assert initialized["result"]["protocolVersion"] == "2025-11-25"
    assert initialized["result"]["serverInfo"] == {"name": "mymcp", "version": "0.2.0"}

    listed = peer.request("tools/list", request_id=2)
    assert [tool["name"] for tool in listed["result"]["tools"]] == list(READ_TOOLS)
    for number, (_, tool, arguments) in enumerate(READ_CALLS, 3):
        peer.send(_call(tool, arguments, number))
        result = peer.receive()["result"]
        assert result.get("isError") is not True, result
        if tool != "list_tools":
            assert result["structuredContent"] == json.loads(result["content"][0]["text"])


def test_every_stdout_line_of_a_busy_session_is_one_json_rpc_message(
    start_peer: StartPeer, memory_root: Path
) -> None:
    peer = start_peer(GATES_ON)
    remember = {
        "scope": "preference",
        "namespace": {"kind": "domain", "id": "drinks", "label": "Drinks"},
        "collection": None,
        "kind": "preference",
        "language": "en",
        "title": "Evening drink",
        "content": f"Prefers rooibos in the evening {CONTENT_MARKER}",
        "tags": ["tea"],
        "origin": "explicit_user_statement",
    }
    messages: list[Any] = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INITIALIZE},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": "list", "method": "tools/list"},
        *(_call(tool, arguments, f"read-{n}") for n, (_, tool, arguments) in enumerate(READ_CALLS)),
        _call("memory_remember", remember, "remember"),
        _call("memory_recall", {"query": "rooibos evening", "scope": "preference"}, "recall"),
        _call("memory_recall", {"query": "", "scope": "nowhere"}, "invalid"),
        _call("no_such_tool", {}, "unknown-tool"),
        {"jsonrpc": "2.0", "id": "method", "method": "no/such/method"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 12345}},
        {"jsonrpc": "2.0", "id": 99, "method": "ping"},
    ]
    answers_expected = sum(1 for message in messages if "id" in message) + 2
    split = 4 + len(READ_CALLS)  # up to and including remember; recall must come after it
    peer.send(*messages[:6])
    peer.write(b"this line is not JSON\n")
    peer.send(*messages[6:split])
    while peer.receive()["id"] != "remember":  # answers may come in any order
        pass
    peer.send(*messages[split:])
    peer.write(b"[1, 2]\n")
    peer.close_input()

    code, _ = peer.wait()
    assert code == 0, peer.log()
    assert len(peer.raw_lines) == answers_expected
    assert all(_is_one_answer(line) for line in peer.raw_lines), peer.raw_lines
    answers = {json.loads(line)["id"]: json.loads(line) for line in peer.raw_lines}
    assert answers["remember"]["result"].get("isError") is not True
    recalled = answers["recall"]["result"]["structuredContent"]
    assert recalled["memories"][0]["content"] == remember["content"]
    log = peer.log()
    assert "INFO:mcp:request id=remember method=tools/call" in log
    assert "INFO:mcp.memory_remember:event=memory_remember outcome=remembered" in log
    assert CONTENT_MARKER not in log
    assert str(memory_root) not in log


STRAY_WRITES = textwrap.dedent(
    """
    import os, sys
    from mymcp import cli, startup

    built = startup.production_runtime

    def noisy():
        print("a stray print")
        sys.stdout.flush()
        os.write(1, b"a stray write to fd 1\\n")
        return built()

    startup.production_runtime = noisy
    sys.argv = ["mymcp", "stdio"]
    sys.exit(cli.main())
    """
)


def test_anything_else_written_to_stdout_lands_in_the_log(
    hermetic_home: Path, memory_root: Path, tmp_path: Path
) -> None:
    env = child_environment(hermetic_home, memory_root)
    peer = StdioPeer([sys.executable, "-c", STRAY_WRITES], env, tmp_path / "stderr.log")
    try:
        assert peer.request("ping")["result"] == {}
        peer.close_input()
        assert peer.wait()[0] == 0
    finally:
        peer.stop()

    assert all(_is_one_answer(line) for line in peer.raw_lines)
    assert "a stray print" in peer.log() and "a stray write to fd 1" in peer.log()


def test_the_sdk_discover_probe_is_answered_and_initialize_still_works_after_it(
    start_peer: StartPeer,
) -> None:
    # Since issue 14 the probe gets a DiscoverResult (it got -32601 before); the era is
    # decided per request, so a client that falls back anyway still gets its handshake.
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "mcp", "version": "0.1.0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    peer = start_peer()

    probe = peer.request("server/discover", {"_meta": meta})
    assert "2026-07-28" in probe["result"]["supportedVersions"]
    initialized = peer.request("initialize", INITIALIZE, request_id=2)
    assert initialized["result"]["protocolVersion"] == "2025-11-25"


def test_end_of_input_ends_the_process_with_0_within_a_second(start_peer: StartPeer) -> None:
    peer = start_peer()
    peer.request("ping")

    peer.close_input()
    code, seconds = peer.wait()

    assert code == 0
    assert seconds < 1.0
    assert "Traceback" not in peer.log()


def test_requests_read_before_the_end_of_input_are_all_answered(start_peer: StartPeer) -> None:
    peer = start_peer()
    peer.send(*(_call("memory_list", {"scope": "project"}, number) for number in range(30)))
    peer.close_input()

    assert peer.wait()[0] == 0
    assert sorted(json.loads(line)["id"] for line in peer.raw_lines) == list(range(30))


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_stops_the_server_cleanly(start_peer: StartPeer, signum: int) -> None:
    peer = start_peer()
    peer.request("ping")

    peer.process.send_signal(signum)
    code, seconds = peer.wait()

    assert code == 0
    assert seconds < 2.0
    assert "Traceback" not in peer.log()


def test_a_read_only_session_writes_nothing_below_the_root(
    start_peer: StartPeer, memory_root: Path, tmp_path: Path
) -> None:
    before = snapshot_tree(memory_root)
    missing = tmp_path / "not-yet"
    for root in (memory_root, missing):
        peer = start_peer(root=root)
        peer.request("initialize", INITIALIZE)
        for number, (_, tool, arguments) in enumerate(READ_CALLS, 2):
            peer.send(_call(tool, arguments, number))
            peer.receive()
        peer.close_input()
        assert peer.wait()[0] == 0

    assert snapshot_tree(memory_root) == before
    assert not missing.exists()


def test_the_command_is_the_one_clients_are_told_to_start() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = finished([*mymcp_command("stdio"), "--help"], env, timeout=60)

    assert done.returncode == 0
    assert done.stdout.startswith("usage: mymcp stdio")


def test_startup_takes_well_under_a_second_of_work(start_peer: StartPeer) -> None:
    started = time.monotonic()
    peer = start_peer()
    peer.request("ping")

    assert time.monotonic() - started < 5.0  # generous: CI machines are slow and shared


@pytest.mark.slow
def test_every_log_line_is_written_before_the_command_ends_at_end_of_input(
    start_peer: StartPeer,
) -> None:
    peer = start_peer()
    pings = [{"jsonrpc": "2.0", "id": n, "method": "ping"} for n in range(200)]
    calls = [_call("list_tools", {}, f"call-{n}") for n in range(50)]
    peer.send(*pings, *calls)
    peer.close_input()

    code, _ = peer.wait()

    assert code == 0, peer.log()
    lines = peer.log().splitlines()
    for request_id in [*range(200), *(f"call-{n}" for n in range(50))]:
        assert any(line.startswith(f"INFO:mcp:request id={request_id} method=") for line in lines)
        assert any(line.startswith(f"INFO:mcp:response id={request_id} ") for line in lines)
    assert len([line for line in lines if line.startswith("INFO:mcp:response ")]) == 250
