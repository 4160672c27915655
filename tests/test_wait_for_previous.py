"""Gemini CLI's ``wait_for_previous`` beside valid arguments, over HTTP and over stdio.

With every gate on, all nine Tools are called in one session (the read calls, then one
memory through every change Tool); each call carries ``wait_for_previous`` true, false or
not at all, and every answer is the one the call gets without it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.clients.flow import Flow
from tests.clients.scenario import MUTATION_CALLS, MUTATION_OUTCOMES, READ_CALLS, seed_memory_root
from tests.helpers import McpClient
from tests.processes import INITIALIZE, StdioPeer, child_environment, mymcp_command
from tests.surface import GATES_ON

ALL_TOOLS_TEXT = (
    "Server: mymcp 0.2.0. Available tools: list_tools, memory_recall, memory_list, "
    "memory_inspect, memory_archive, memory_restore, memory_remember, memory_revise, "
    "memory_forget"
)
# What each call answers without a control argument: list_tools its line, the rest a status.
EXPECTED = [
    ALL_TOOLS_TEXT,
    *["ok"] * (len(READ_CALLS) - 1),
    *[status for status, _ in MUTATION_OUTCOMES],
]
VARIANTS = [pytest.param(None, id="absent"), True, False]

# Takes a Tool name and its arguments, answers the Tool result.
Call = Callable[[str, dict[str, Any]], dict[str, Any]]


def _session(call: Call, wait_for_previous: bool | None) -> list[str]:
    """Every call of the scenario in order; list_tools' line and each other Tool's status."""
    flow = Flow()
    outcomes = []
    for _, tool, template in [*READ_CALLS, *MUTATION_CALLS]:
        arguments = flow.arguments(template)
        if wait_for_previous is not None:
            arguments["wait_for_previous"] = wait_for_previous
        result = call(tool, arguments)
        text = result["content"][0]["text"]
        if tool == "list_tools":
            outcomes.append(text)
            continue
        assert not result.get("isError"), (tool, text)
        flow.saw(result.get("structuredContent"), text)
        outcomes.append(json.loads(text)["status"])
    return outcomes


@pytest.mark.parametrize("wait_for_previous", VARIANTS)
def test_every_tool_over_http_answers_as_without_wait_for_previous(
    mcp: Callable[..., McpClient], memory_root: Path, wait_for_previous: bool | None
) -> None:
    seed_memory_root(memory_root)
    client = mcp(remember=True, revise=True, archive_restore=True, forget=True)

    def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        response = client.rpc("tools/call", {"name": tool, "arguments": arguments})
        result: dict[str, Any] = response["result"]
        return result

    assert _session(call, wait_for_previous) == EXPECTED


@pytest.fixture
def stdio_peer(tmp_path: Path, hermetic_home: Path) -> Iterator[StdioPeer]:
    root = tmp_path / "memory"
    seed_memory_root(root)
    env = child_environment(hermetic_home, root, GATES_ON)
    peer = StdioPeer(mymcp_command("stdio"), env, tmp_path / "stderr.log")
    yield peer
    peer.stop()


@pytest.mark.slow  # a server process
@pytest.mark.parametrize("wait_for_previous", VARIANTS)
def test_every_tool_over_stdio_answers_as_without_wait_for_previous(
    stdio_peer: StdioPeer, wait_for_previous: bool | None
) -> None:
    stdio_peer.request("initialize", INITIALIZE)
    ids = iter(range(2, 100))

    def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        params = {"name": tool, "arguments": arguments}
        result: dict[str, Any] = stdio_peer.request("tools/call", params, next(ids))["result"]
        return result

    assert _session(call, wait_for_previous) == EXPECTED
