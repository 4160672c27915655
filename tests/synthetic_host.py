"""A synthetic runtime for host tests: a few Tools with known behaviour, no plugin involved.

``MCPDispatcher`` only needs an object whose ``registry`` is a ``ToolRegistry``, so the host is
exercised here without the Mnemosyne plugin. Every handler records the arguments it received.
"""

from __future__ import annotations

import json
import threading
import types
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from starlette.testclient import TestClient

from mymcp.app import create_app
from mymcp.mcp import list_tools
from mymcp.mcp.tool_registry import ToolHandler, ToolRegistration, ToolRegistry
from mymcp.transports.base import Workers
from mymcp.transports.http import HttpSecurity

BASE_URL = "http://127.0.0.1:8000"
# The usage note of the synthetic runtime (a plugin contributes its own).
INSTRUCTIONS = "Synthetic Tools for host tests: call echo to see your arguments."
# A string made only of characters the host could echo, so a leak would be visible verbatim.
MARKER = "planted-marker-7f3a9c"
SLOW_TOOL_WAIT_SECONDS = 2.0


def tool_definition(name: str, input_schema: Mapping[str, Any] | None = None) -> dict[str, Any]:
    schema = dict(input_schema) if input_schema is not None else {"type": "object"}
    return {"name": name, "description": f"Synthetic tool {name}.", "inputSchema": schema}


ECHO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "count": {"type": "integer"},
        "ratio": {"type": "number"},
        "flag": {"type": "boolean"},
        "label": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "ids": {"type": "array", "items": {"type": "integer"}},
        "maybe": {"type": ["integer", "null"]},
        "nested": {"type": "object", "properties": {"k": {"type": "integer"}}},
    },
}

VERBATIM_RESULT: dict[str, Any] = {
    "content": [{"type": "text", "text": "caf\u00e9 \u2713"}],
    "structuredContent": {"n": [1, 2.5, None, True, "x"], "deep": {"a": {"b": []}}},
    "extra": "hosts add nothing",
}


@dataclass
class Calls:
    """What each synthetic handler received, in call order."""

    received: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, name: str, arguments: dict[str, Any]) -> None:
        with self.lock:
            self.received.append((name, arguments))

    def names(self) -> list[str]:
        with self.lock:
            return [name for name, _ in self.received]


class Unserializable:
    """An object JSON cannot encode."""


@dataclass
class SlowGate:
    """Lets a test know when the slow handler started and release it."""

    started: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)


def _recording(calls: Calls, name: str, answer: Callable[[dict[str, Any]], Any]) -> ToolHandler:
    def handler(arguments: dict[str, Any]) -> Any:
        calls.record(name, arguments)
        return answer(arguments)

    return handler


def _explode(arguments: dict[str, Any]) -> Any:
    raise RuntimeError(f"secret failure {MARKER}")


def _slow(gate: SlowGate) -> Callable[[dict[str, Any]], Any]:
    def answer(arguments: dict[str, Any]) -> Any:
        gate.started.set()
        gate.release.wait(SLOW_TOOL_WAIT_SECONDS)
        return {"content": [{"type": "text", "text": "slow done"}]}

    return answer


def _deeply_nested(arguments: dict[str, Any]) -> Any:
    value: Any = []
    for _ in range(100_000):
        value = [value]
    return value


def synthetic_tools(calls: Calls, gate: SlowGate) -> list[tuple[dict[str, Any], ToolHandler]]:
    """The standard set of synthetic Tools, in publication order."""
    answers: list[tuple[str, dict[str, Any] | None, Callable[[dict[str, Any]], Any]]] = [
        ("echo", ECHO_SCHEMA, lambda arguments: {"content": [], "received": arguments}),
        ("verbatim", None, lambda arguments: VERBATIM_RESULT),
        ("tool_error", None, lambda arguments: {"content": [], "isError": True}),
        ("explode", None, _explode),
        ("unserializable", None, lambda arguments: {"value": Unserializable()}),
        ("not_finite", None, lambda arguments: {"value": float("nan")}),
        ("infinite", None, lambda arguments: {"value": float("inf")}),
        ("too_deep", None, _deeply_nested),
        ("leaky_result", None, lambda arguments: {"content": [], "secret": MARKER}),
        ("slow", None, _slow(gate)),
    ]
    return [
        (tool_definition(name, schema), _recording(calls, name, answer))
        for name, schema, answer in answers
    ]


def runtime_for(tools: Sequence[tuple[Mapping[str, Any], ToolHandler]]) -> types.SimpleNamespace:
    """A runtime-like object: ``list_tools`` first, then ``tools`` in order."""
    definitions = [definition for definition, _ in tools]
    registrations = [ToolRegistration(definition, handler) for definition, handler in tools]
    registry = ToolRegistry([list_tools.registration(definitions), *registrations])
    return types.SimpleNamespace(registry=registry, instructions=INSTRUCTIONS)


def synthetic_runtime() -> types.SimpleNamespace:
    """The synthetic Tools over fresh call records, with a slow gate nobody releases."""
    return runtime_for(synthetic_tools(Calls(), SlowGate()))


@dataclass
class SyntheticHost:
    """A TestClient over ``create_app`` serving the synthetic Tools."""

    client: TestClient
    calls: Calls
    gate: SlowGate
    definitions: list[dict[str, Any]]

    def post(self, body: bytes | str, headers: Mapping[str, str] | None = None) -> Any:
        content = body.encode() if isinstance(body, str) else body
        return self.client.post("/mcp", content=content, headers=dict(headers or {}))

    def send(self, message: Any, headers: Mapping[str, str] | None = None) -> Any:
        return self.post(json.dumps(message), headers)

    def rpc(self, message: Any) -> Any:
        response = self.send(message)
        assert response.status_code == 200, response.text
        assert response.headers["content-type"] == "application/json"
        return response.json()

    def call(self, name: Any, arguments: Any = None, request_id: Any = 1) -> Any:
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return self.rpc(
            {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
        )


def build_host(
    security: HttpSecurity | None = None, workers: Workers | None = None
) -> SyntheticHost:
    calls, gate = Calls(), SlowGate()
    tools = synthetic_tools(calls, gate)
    app = create_app(runtime_for(tools), security=security, workers=workers)
    client = TestClient(app, base_url=BASE_URL)
    return SyntheticHost(client, calls, gate, [definition for definition, _ in tools])


def exact_json(payload: Any) -> bytes:
    """The compact UTF-8 JSON the host is expected to produce for ``payload``."""
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()


@pytest.fixture
def host() -> Iterator[SyntheticHost]:
    """The app built by ``create_app`` over the synthetic Tools, behind a TestClient."""
    built = build_host()
    yield built
    built.gate.release.set()
    built.client.close()
