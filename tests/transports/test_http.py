"""The HTTP surface: routes, statuses, response format, body limit and concurrency."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import json
import logging
import sys
import threading
import time
import types
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from starlette.testclient import TestClient

from mymcp import settings
from mymcp.app import create_app
from mymcp.mcp import list_tools
from mymcp.mcp.tool_registry import ToolRegistry
from mymcp.transports.base import Workers
from mymcp.transports.http import HttpSecurity
from tests.synthetic_host import BASE_URL, SyntheticHost, build_host, runtime_for, tool_definition

MIB = 1024 * 1024
PING = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'


# --- operational routes ---------------------------------------------------------------------


def test_health_says_ok(host: SyntheticHost) -> None:
    response = host.client.get("/health")

    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.content == b'{"status":"ok"}'


def test_head_health_is_allowed(host: SyntheticHost) -> None:
    response = host.client.head("/health")

    assert response.status_code == 200
    assert response.content == b""


def test_version_names_server_and_protocol_revisions(host: SyntheticHost) -> None:
    response = host.client.get("/version")

    assert response.status_code == 200
    body = response.json()
    assert list(body)[:3] == ["name", "version", "protocolVersion"]
    assert body["name"] == "mymcp"
    assert body["version"] == "0.2.0" == settings.SERVER_VERSION
    assert body["protocolVersion"] == "2024-11-05"
    assert body["supportedProtocolVersions"] == list(settings.SUPPORTED_PROTOCOL_VERSIONS)


@pytest.mark.parametrize("method", ["GET", "DELETE", "PUT", "PATCH", "OPTIONS"])
def test_mcp_only_accepts_post(host: SyntheticHost, method: str) -> None:
    response = host.client.request(method, "/mcp")

    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    assert response.json() == {"detail": "Method Not Allowed"}


def test_get_mcp_does_not_open_a_stream(host: SyntheticHost) -> None:
    response = host.client.get("/mcp", headers={"accept": "text/event-stream"})

    assert response.status_code == 405
    assert not response.headers.get("content-type", "").startswith("text/event-stream")


def test_post_health_is_not_allowed(host: SyntheticHost) -> None:
    response = host.client.post("/health")

    assert response.status_code == 405
    assert "GET" in response.headers["allow"]


@pytest.mark.parametrize(
    "path", ["/nowhere", "/docs", "/redoc", "/openapi.json", "/docs/oauth2-redirect", "/mcp/x"]
)
def test_unknown_paths_and_framework_defaults_are_not_found(host: SyntheticHost, path: str) -> None:
    response = host.client.get(path)

    assert response.status_code == 404
    assert response.json() == {"detail": "Not Found"}


def test_trailing_slash_redirects_to_mcp(host: SyntheticHost) -> None:
    response = host.client.post("/mcp/", content=PING, follow_redirects=False)

    assert response.status_code == 307
    assert response.headers["location"].endswith("/mcp")


# --- MCP-Protocol-Version header --------------------------------------------------------------


@pytest.mark.parametrize("version", settings.SUPPORTED_PROTOCOL_VERSIONS)
def test_a_supported_protocol_version_header_is_accepted(host: SyntheticHost, version: str) -> None:
    response = host.post(PING, headers={"MCP-Protocol-Version": version})

    assert response.status_code == 200
    assert response.json() == {"jsonrpc": "2.0", "id": 1, "result": {}}


# 2026-07-28 is served since issue 14: tests/transports/test_http_modern.py.
@pytest.mark.parametrize("version", ["2024-01-01", "garbage", "", " 2025-06-18", "1"])
def test_an_unsupported_protocol_version_header_is_a_bad_request(
    host: SyntheticHost, version: str
) -> None:
    call = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}'

    response = host.post(call, headers={"MCP-Protocol-Version": version})

    assert response.status_code == 400
    body = response.json()
    assert body["jsonrpc"] == "2.0"
    assert body["id"] is None
    assert isinstance(body["error"]["code"], int)
    assert host.calls.received == []


# --- response format ------------------------------------------------------------------------


def test_responses_are_compact_json_without_charset(host: SyntheticHost) -> None:
    response = host.send(
        {"jsonrpc": "2.0", "id": [1, 2], "method": "tools/call", "params": {"name": "verbatim"}}
    )

    assert response.headers["content-type"] == "application/json"
    assert b", " not in response.content.replace(b"caf\xc3\xa9 \xe2\x9c\x93", b"")
    assert b": " not in response.content
    assert response.content.startswith(b'{"jsonrpc":"2.0","id":[1,2],"result":{')


def test_non_ascii_is_sent_as_raw_utf8(host: SyntheticHost) -> None:
    response = host.send({"jsonrpc": "2.0", "id": "caf\u00e9 \u2713 \U0001f600", "method": "ping"})

    assert response.content == (
        b'{"jsonrpc":"2.0","id":"caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80","result":{}}'
    )


@pytest.mark.parametrize("raw_id", ['"\\ud800"', '"a\\udfffb"', '["\\ud83d"]'])
def test_lone_surrogates_in_an_id_do_not_crash(host: SyntheticHost, raw_id: str) -> None:
    response = host.post(f'{{"jsonrpc":"2.0","id":{raw_id},"method":"ping"}}')

    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert json.loads(response.content)["id"] == json.loads(raw_id)


def _nested_id_ping(depth: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":' + b"[" * depth + b"]" * depth + b',"method":"ping"}'


def test_an_id_nested_as_deep_as_the_decoder_allows_never_crashes(host: SyntheticHost) -> None:
    # The decoder and the encoder give up at slightly different depths, so an id just inside
    # the decoder's limit cannot always be written back: the answer must still be JSON-RPC.
    with TestClient(host.client.app, base_url=BASE_URL, raise_server_exceptions=False) as client:
        deepest = _deepest_parsed_id(client)
        for depth in range(max(1, deepest - 20), deepest + 1):
            response = client.post("/mcp", content=_nested_id_ping(depth))

            assert response.status_code == 200, depth
            assert response.headers["content-type"] == "application/json"
            body = _loads_deeply_nested(response.content)
            assert body.get("result") == {} or body == {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32603, "message": "Internal error"},
            }


def _loads_deeply_nested(content: bytes) -> Any:
    # The server may parse and echo an id nested deeper than this (deeper) test stack can
    # decode under the default recursion limit, so the check lifts the limit for its own read.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(limit + 10_000)
    try:
        return json.loads(content)
    finally:
        sys.setrecursionlimit(limit)


def _deepest_parsed_id(client: TestClient) -> int:
    parses, fails = 1, 5000
    while fails - parses > 1:
        middle = (parses + fails) // 2
        status = client.post("/mcp", content=_nested_id_ping(middle)).status_code
        parses, fails = (middle, fails) if status != 400 else (parses, middle)
    return parses


def test_a_client_hanging_up_mid_body_is_not_a_server_error(host: SyntheticHost) -> None:
    incoming: list[dict[str, Any]] = [
        {"type": "http.request", "body": b'{"jsonrpc":"2.0","id":1', "more_body": True},
        {"type": "http.disconnect"},
    ]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/mcp",
        "raw_path": b"/mcp",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1:8000"), (b"content-length", b"1000")],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    app: Any = host.client.app
    asyncio.run(app(scope, receive, send))

    assert sent[0]["type"] == "http.response.start"
    assert sent[0]["status"] < 500
    assert host.calls.names() == []


def test_notification_response_has_no_body_or_content_type(host: SyntheticHost) -> None:
    response = host.post(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')

    assert response.status_code == 202
    assert response.content == b""
    assert response.headers["content-length"] == "0"
    assert "content-type" not in response.headers


# --- D4: body size limit --------------------------------------------------------------------


def padded(body: bytes, size: int) -> bytes:
    return body + b" " * (size - len(body))


def test_a_body_of_exactly_one_mebibyte_is_accepted(host: SyntheticHost) -> None:
    response = host.post(padded(PING, MIB))

    assert response.status_code == 200
    assert response.json()["result"] == {}


@pytest.mark.parametrize("size", [MIB + 1, 2 * MIB])
def test_a_larger_body_is_refused_with_413(host: SyntheticHost, size: int) -> None:
    call = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}'

    response = host.post(padded(call, size))

    assert response.status_code == 413
    assert host.calls.received == []


def test_an_oversized_body_is_refused_before_it_is_parsed(host: SyntheticHost) -> None:
    response = host.post(b"{" * (MIB + 1))

    assert response.status_code == 413


def test_a_chunked_body_without_length_is_limited_too(host: SyntheticHost) -> None:
    call = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}'
    chunks = [call, *([b" " * 65536] * 17)]

    def stream() -> Iterator[bytes]:
        yield from chunks

    response = host.client.post("/mcp", content=stream())

    assert response.request.headers.get("transfer-encoding") == "chunked"
    assert "content-length" not in response.request.headers
    assert response.status_code == 413
    assert host.calls.received == []


def test_a_small_chunked_body_is_answered(host: SyntheticHost) -> None:
    def stream() -> Iterator[bytes]:
        yield PING[:10]
        yield PING[10:]

    response = host.client.post("/mcp", content=stream())

    assert response.status_code == 200
    assert response.json() == {"jsonrpc": "2.0", "id": 1, "result": {}}


# --- D8: handlers run off the event loop -------------------------------------------------------


async def _health_while_a_tool_is_slow(host: SyntheticHost) -> tuple[float, bool, Any]:
    transport = httpx2.ASGITransport(app=host.client.app)
    async with httpx2.AsyncClient(transport=transport, base_url=BASE_URL) as client:
        slow_call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "slow"}}
        slow = asyncio.create_task(client.post("/mcp", json=slow_call))
        started = await asyncio.to_thread(host.gate.started.wait, 2.0)
        assert started, "the slow handler never started"
        began = time.perf_counter()
        health = await asyncio.wait_for(client.get("/health"), timeout=1.5)
        elapsed = time.perf_counter() - began
        slow_still_running = not slow.done()
        host.gate.release.set()
        slow_response = await slow
    assert health.status_code == 200
    return elapsed, slow_still_running, slow_response.json()


def test_a_slow_handler_does_not_block_health(host: SyntheticHost) -> None:
    elapsed, slow_still_running, slow_reply = asyncio.run(_health_while_a_tool_is_slow(host))

    assert slow_still_running
    assert elapsed < 0.5
    assert slow_reply["result"] == {"content": [{"type": "text", "text": "slow done"}]}


REQUEST_TAG: contextvars.ContextVar[str] = contextvars.ContextVar("request_tag", default="unset")


def test_a_tool_handler_runs_in_the_requests_context() -> None:
    # Whatever an outer layer put into the request's context is still there in the worker
    # thread, as it is with Starlette's own thread hand-off.
    seen: list[str] = []

    def handler(arguments: dict[str, Any]) -> Any:
        seen.append(REQUEST_TAG.get())
        return {"content": []}

    app = create_app(runtime_for([(tool_definition("tagged", None), handler)]))

    async def tagging(scope: Any, receive: Any, send: Any) -> None:
        REQUEST_TAG.set("from the request")
        await app(scope, receive, send)

    with TestClient(tagging, base_url=BASE_URL) as client:
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "tagged"}}
        response = client.post("/mcp", json=message)

    assert response.json()["result"] == {"content": []}
    assert seen == ["from the request"]


def test_messages_are_still_answered_when_no_worker_thread_can_start() -> None:
    # What a server meets when the system refuses it threads: the calls run where they came.
    host = build_host(workers=Workers(0))

    ping = host.rpc({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    reply = host.call("echo", {"count": 2})

    assert ping == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert reply["result"] == {"content": [], "received": {"count": 2}}
    host.client.close()


def test_a_call_whose_worker_cannot_start_runs_once_and_is_left_queued_nowhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The refused call runs on the caller's thread; the pool must not run it again once a
    # later thread starts.
    workers = Workers(2)
    calls: list[str] = []

    def refuse(thread: object) -> None:
        raise RuntimeError("can't start new thread")

    def record(name: str) -> str:
        calls.append(name)
        return name

    async def submit(name: str) -> Any:
        return await workers.run(asyncio.get_running_loop(), functools.partial(record, name))

    with monkeypatch.context() as patched:
        patched.setattr(threading.Thread, "start", refuse)
        assert asyncio.run(submit("refused")) == "refused"

    assert asyncio.run(submit("later")) == "later"
    assert calls == ["refused", "later"]


SLOW_CALLS_IN_FLIGHT = 12  # more than a small machine's default executor has threads


async def _ping_while_tools_are_slow(host: SyntheticHost) -> tuple[float, Any, list[Any]]:
    transport = httpx2.ASGITransport(app=host.client.app)
    async with httpx2.AsyncClient(transport=transport, base_url=BASE_URL) as client:
        slow_call = {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "slow"}}
        slow_calls = [
            asyncio.create_task(client.post("/mcp", json={**slow_call, "id": n}))
            for n in range(SLOW_CALLS_IN_FLIGHT)
        ]
        deadline = time.perf_counter() + 2.0
        while host.calls.names().count("slow") < SLOW_CALLS_IN_FLIGHT:
            assert time.perf_counter() < deadline, "the slow handlers did not all start"
            await asyncio.sleep(0.01)
        began = time.perf_counter()
        ping = await asyncio.wait_for(
            client.post("/mcp", json={"jsonrpc": "2.0", "id": "p", "method": "ping"}), timeout=1.5
        )
        elapsed = time.perf_counter() - began
        host.gate.release.set()
        replies = [(await call).json() for call in slow_calls]
    return elapsed, ping.json(), replies


def test_many_slow_tool_calls_do_not_hold_up_other_messages(host: SyntheticHost) -> None:
    elapsed, ping, replies = asyncio.run(_ping_while_tools_are_slow(host))

    assert ping == {"jsonrpc": "2.0", "id": "p", "result": {}}
    assert elapsed < 0.5
    assert [reply["result"]["content"][0]["text"] for reply in replies] == [
        "slow done"
    ] * SLOW_CALLS_IN_FLIGHT


# --- the production factory -------------------------------------------------------------------


@pytest.fixture
def fake_bootstrap(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Stand in for ``mymcp.host.bootstrap`` so the factory is tested without the plugin."""
    built: list[Any] = []

    def build_production_runtime() -> Any:
        runtime = types.SimpleNamespace(registry=ToolRegistry([list_tools.registration([])]))
        built.append(runtime)
        return runtime

    module = types.ModuleType("mymcp.host.bootstrap")
    module.build_production_runtime = build_production_runtime  # type: ignore[attr-defined]
    module.check_production_setup = lambda: None  # type: ignore[attr-defined]
    module.wait_until_warm = lambda: None  # type: ignore[attr-defined]
    module.production_pages = lambda: []  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "mymcp.host.bootstrap", module)
    levels = {name: logging.getLogger(name).level for name in ("", "mcp", "mymcp")}
    handlers = list(logging.getLogger().handlers)
    yield built
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)
    for handler in logging.getLogger().handlers:
        if handler not in handlers:
            logging.getLogger().removeHandler(handler)


def test_production_factory_builds_one_runtime_and_reads_operator_security(
    fake_bootstrap: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from mymcp.app import create_production_app

    monkeypatch.setenv("MYMCP_ALLOWED_HOSTS", "mymcp.lan")

    with TestClient(create_production_app(), base_url="http://mymcp.lan:8000") as client:
        tools = client.post("/mcp", content=b'{"id":1,"method":"tools/list"}').json()
        refused = client.get("/health", headers={"host": "evil.example"})

    assert len(fake_bootstrap) == 1
    assert [tool["name"] for tool in tools["result"]["tools"]] == ["list_tools"]
    assert refused.status_code == 421


def test_create_app_uses_loopback_only_security_by_default() -> None:
    runtime = types.SimpleNamespace(registry=ToolRegistry([]))

    with TestClient(create_app(runtime), base_url="http://mymcp.lan:8000") as client:
        assert client.get("/health").status_code == 421
    with TestClient(
        create_app(runtime, security=HttpSecurity(allowed_hosts=frozenset({"mymcp.lan"}))),
        base_url="http://mymcp.lan:8000",
    ) as client:
        assert client.get("/health").status_code == 200


def test_the_app_is_titled_mymcp() -> None:
    host = build_host()

    assert host.client.app.title == "MyMCP"  # type: ignore[attr-defined]
    host.client.close()
