"""The HTTP request path: what never waits is answered on the event loop, Tool calls are not.

A Tool call reads and writes files and runs on a worker thread; everything else
(``initialize``, ``ping``, ``tools/list``, ``server/discover``, notifications and every
protocol error) is answered without one. ``tests/transports/test_stdio.py`` checks the same
over stdio.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from mymcp.app import create_app
from mymcp.transports.base import Workers
from tests import modern
from tests.synthetic_host import (
    BASE_URL,
    SyntheticHost,
    build_host,
    runtime_for,
    tool_definition,
)

HANDSHAKE_ONLY = {"mcp-protocol-version": "2025-11-25"}
# Requests that never wait, with the headers they are sent with.
NEVER_WAITING: list[tuple[str, bytes, dict[str, str]]] = [
    ("ping", b'{"jsonrpc":"2.0","id":1,"method":"ping"}', {}),
    ("initialize", b'{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}}', {}),
    ("tools/list", b'{"jsonrpc":"2.0","id":3,"method":"tools/list"}', HANDSHAKE_ONLY),
    ("notification", b'{"jsonrpc":"2.0","method":"notifications/initialized"}', {}),
    ("parse error", b'{"jsonrpc":', {}),
    ("not an object", b"[1]", {}),
    ("unknown method", b'{"jsonrpc":"2.0","id":4,"method":"nope"}', {}),
    ("unknown tool", b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x"}}', {}),
    (
        "bad arguments",
        b'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":1}}',
        {},
    ),
    ("refused header", b'{"jsonrpc":"2.0","id":7,"method":"ping"}', {"mcp-protocol-version": "x"}),
]


def _modern(message: dict[str, Any]) -> tuple[bytes, dict[str, str]]:
    return json.dumps(message).encode(), modern.headers(message)


NEVER_WAITING_MODERN = [
    ("server/discover", *_modern(modern.request("server/discover"))),
    ("tools/list", *_modern(modern.request("tools/list"))),
    ("removed method", *_modern(modern.request("ping"))),
    ("unknown tool", *_modern(modern.call("nope"))),
    ("unsupported revision", *_modern(modern.request("tools/list", version="2099-01-01"))),
]


class CountingWorkers(Workers):
    """Worker threads that count the calls handed to them."""

    def __init__(self) -> None:
        super().__init__(2)
        self.submitted = 0

    def run(self, loop: asyncio.AbstractEventLoop, call: Callable[[], Any]) -> asyncio.Future[Any]:
        self.submitted += 1
        return super().run(loop, call)


@pytest.fixture
def counted() -> Iterator[tuple[SyntheticHost, CountingWorkers]]:
    workers = CountingWorkers()
    built = build_host(workers=workers)
    yield built, workers
    built.gate.release.set()
    built.client.close()


@pytest.mark.parametrize(
    ("label", "body", "headers"),
    NEVER_WAITING + NEVER_WAITING_MODERN,
    ids=[row[0] for row in NEVER_WAITING] + [f"2026 {row[0]}" for row in NEVER_WAITING_MODERN],
)
def test_what_never_waits_is_answered_without_a_worker_thread(
    counted: tuple[SyntheticHost, CountingWorkers],
    label: str,
    body: bytes,
    headers: dict[str, str],
) -> None:
    host, workers = counted
    response = host.post(body, headers)

    assert response.status_code < 500
    assert workers.submitted == 0


def test_a_tool_call_runs_on_a_worker_thread_in_both_eras(
    counted: tuple[SyntheticHost, CountingWorkers],
) -> None:
    host, workers = counted
    reply = host.call("echo", {"count": 1})
    body, headers = _modern(modern.call("echo", {"count": 2}))
    modern_reply = host.post(body, headers).json()

    assert reply["result"]["received"] == {"count": 1}
    assert modern_reply["result"]["received"] == {"count": 2}
    assert workers.submitted == 2


def test_a_request_through_the_full_stack_gets_the_same_answer(host: SyntheticHost) -> None:
    # A root_path deployment is routed by Starlette rather than served from the front.
    messages = [
        b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":"t","method":"tools/list"}',
        b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"verbatim"}}',
        b'{"jsonrpc":"2.0","id":3,"method":"nope"}',
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
        b"{",
    ]
    with TestClient(host.client.app, base_url=BASE_URL, root_path="/base") as routed:
        for body in messages:
            front = host.post(body)
            full = routed.post("/base/mcp", content=body)
            assert (full.status_code, full.content) == (front.status_code, front.content)
            assert sorted(full.headers.items()) == sorted(front.headers.items())


@pytest.mark.skipif(not hasattr(os, "SCHED_BATCH"), reason="Linux scheduling policies")
def test_tool_calls_run_on_threads_that_never_preempt_the_loop() -> None:
    def policy(arguments: dict[str, Any]) -> Any:
        return {"content": [], "policy": os.sched_getscheduler(0)}

    app = create_app(runtime_for([(tool_definition("policy"), policy)]))
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "policy"}}
    with TestClient(app, base_url=BASE_URL) as client:
        answer = client.post("/mcp", json=message).json()

    assert answer["result"]["policy"] == os.SCHED_BATCH
    assert os.sched_getscheduler(0) != os.SCHED_BATCH  # the caller's thread keeps its own
