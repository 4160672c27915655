"""Section: what the protocol layer costs, against a bare uvicorn + Starlette floor, and RSS.

Throughput: two servers run side by side, pinned to CPU 0 (``taskset``, where it exists):
the floor (``floor_app.py``: bare uvicorn + Starlette, a constant JSON answer, no decoding,
no logging) and MyMCP's production app with every gate on (the largest Tool list), over a
scope of 100 records. The load generator (``load.py``: 4 keep-alive connections, one
request in flight on each, every answer checked) runs in this process, pinned to CPU 1. In
each of 8 rounds every request kind is driven for 0.4 s, after one untimed warm-up pass, so
all of them see the same background load; each figure is then divided by the floor's:
throughput as ours/floor (higher is better, 1.00x is the floor) and p50 latency as
ours/floor (lower is better). The server's own CPU time per request (user and system, from
``/proc``) is the steadiest figure on a shared machine and is shown beside them. Both eras
are shown: ``ping`` exists only in the handshake era, ``server/discover`` only at
2026-07-28.

One more row serves ``tools/list`` from a third server that requires the access token
(``MYMCP_REQUIRE_TOKEN=true``), each request carrying ``Authorization: Bearer``: what the
token check adds to a request.

Memory: a separate server with the remember gate on, over 1,000 records, is measured idle
(after its first ``/health``) and after a fixed workload of three phases: 300 recalls, 5
complete ``memory_list`` walks in pages of 100, and 200 remembers (each new record deleted
again). The RSS (``VmRSS`` of the server process) is printed after each phase and as a ratio
to the idle figure.

The sizes are fixed (100 and 1,000 records); ``--sizes`` does not change them. Run it alone
with ``python bench/run.py --only protocol``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import random
from collections.abc import Iterator, Sequence
from pathlib import Path

from common import (
    HANDSHAKE_REVISION,
    MODERN_REVISION,
    SEED_SCOPE,
    McpHttp,
    Server,
    print_table,
    queries,
    seed_root,
    settle,
    temporary_root,
)
from load import Load, LoadResult, run_load
from remember import draft, record_path

from mymcp import access_token

RECALL_RECORDS = 100
RSS_RECORDS = 1000
CONNECTIONS = 4
ROUNDS = 8
SECONDS = 0.4
WARMUP_SECONDS = 0.3
SERVER_CPU = "0"
CLIENT_CPU = 1
ALL_GATES = {"remember": True, "archive_restore": True, "forget": True, "revise": True}
BENCH_DIR = Path(__file__).resolve().parent

HEADER = (
    "request",
    "era",
    "req/s",
    "/floor",
    "p50 ms",
    "p50/floor",
    "p99 ms",
    "server CPU us/req",
    "/floor",
)
RSS_HEADER = ("records", "idle", "recall", "list walks", "remember", "after/idle")


# --- the requests ---------------------------------------------------------------------------


def _body(method: str, params: dict[str, object] | None = None, *, modern: bool = False) -> str:
    message: dict[str, object] = {"jsonrpc": "2.0", "id": 0, "method": method}
    if modern:
        meta = {
            "io.modelcontextprotocol/protocolVersion": MODERN_REVISION,
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        params = {**(params or {}), "_meta": meta}
    if params is not None:
        message["params"] = params
    return json.dumps(message).replace('"id": 0', '"id": {id}', 1)


def _result_prefix(request_id: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"result":' % request_id


def _request(method: str, *, modern: bool, tool: str | None = None, bodies: int = 1) -> Load:
    """A request of ``method`` in one era; a Tool call rotates ``bodies`` recall queries."""
    if tool is None:
        texts: tuple[str, ...] = (_body(method, modern=modern),)
    elif tool == "memory_recall":
        arguments = [{"query": query, "scope": SEED_SCOPE.value} for query in queries(bodies)]
        texts = tuple(
            _body(method, {"name": tool, "arguments": args}, modern=modern) for args in arguments
        )
    else:
        texts = (_body(method, {"name": tool, "arguments": {}}, modern=modern),)
    headers = [("MCP-Protocol-Version", MODERN_REVISION if modern else HANDSHAKE_REVISION)]
    if modern:
        headers.append(("Mcp-Method", method))
        if tool is not None:
            headers.append(("Mcp-Name", tool))
    return Load(texts, tuple(headers), expect=_result_prefix, reject=b'"isError":true')


FLOOR = Load((_body("ping"),), expect=lambda _: b'{"jsonrpc":"2.0","id":1,"result":')
SCENARIOS: tuple[tuple[str, str, Load], ...] = (
    ("ping", "handshake", _request("ping", modern=False)),
    ("server/discover", "2026-07-28", _request("server/discover", modern=True)),
    ("tools/list", "handshake", _request("tools/list", modern=False)),
    ("tools/list", "2026-07-28", _request("tools/list", modern=True)),
    ("tools/call list_tools", "handshake", _request("tools/call", modern=False, tool="list_tools")),
    ("tools/call list_tools", "2026-07-28", _request("tools/call", modern=True, tool="list_tools")),
    (
        f"memory_recall ({RECALL_RECORDS} records)",
        "handshake",
        _request("tools/call", modern=False, tool="memory_recall", bodies=50),
    ),
    (
        f"memory_recall ({RECALL_RECORDS} records)",
        "2026-07-28",
        _request("tools/call", modern=True, tool="memory_recall", bodies=50),
    ),
)


# --- throughput -----------------------------------------------------------------------------


@contextlib.contextmanager
def _client_cpu() -> Iterator[None]:
    """Keep this process (the load generator) off the servers' CPU while it runs."""
    available = os.sched_getaffinity(0)
    if CLIENT_CPU not in available or len(available) < 2:
        yield
        return
    os.sched_setaffinity(0, {CLIENT_CPU})
    try:
        yield
    finally:
        os.sched_setaffinity(0, available)


def _merged(results: Sequence[LoadResult]) -> LoadResult:
    latencies = tuple(value for result in results for value in result.latencies_ms)
    return LoadResult(
        sum(result.requests for result in results),
        sum(result.seconds for result in results),
        latencies,
    )


def _cpu_per_request(results: Sequence[LoadResult], cpu: Sequence[float]) -> float:
    """Microseconds of server CPU (user and system) per answered request."""
    return sum(cpu) / sum(result.requests for result in results) * 1e6


def _with_token(load: Load, token: str) -> Load:
    return dataclasses.replace(load, headers=(*load.headers, ("Authorization", f"Bearer {token}")))


def _throughput_rows() -> tuple[list[tuple[object, ...]], int]:
    with temporary_root() as root:
        seed_root(root, RECALL_RECORDS)
        settle()
        floor_server = Server(
            root, factory="floor_app:create_floor_app", app_dir=BENCH_DIR, cpus=SERVER_CPU
        )
        floor_server.health_path = "/mcp"  # answers 405 to the GET once it is up
        required = {access_token.REQUIRE_TOKEN_VARIABLE: "true"}
        with (
            floor_server as floor,
            Server(root, gates=ALL_GATES, cpus=SERVER_CPU) as ours,
            Server(root, gates=ALL_GATES, cpus=SERVER_CPU, environment=required) as guarded,
            McpHttp(ours, HANDSHAKE_REVISION) as probe,
            _client_cpu(),
        ):
            tools_list_bytes = len(json.dumps(probe.post("tools/list"), separators=(",", ":")))
            targets = [("floor", "", floor, FLOOR)]
            targets += [(name, era, ours, load) for name, era, load in SCENARIOS]
            token = access_token.read_token(guarded.home) or ""
            tools_list = _with_token(_request("tools/list", modern=False), token)
            targets.append(("tools/list, token required", "handshake", guarded, tools_list))
            for _, _, server, load in targets:
                run_load(server.port, load, connections=CONNECTIONS, seconds=WARMUP_SECONDS)
            results: dict[int, list[LoadResult]] = {index: [] for index in range(len(targets))}
            cpu: dict[int, list[float]] = {index: [] for index in range(len(targets))}
            for _ in range(ROUNDS):
                for index, (_, _, server, load) in enumerate(targets):
                    before = server.cpu_seconds()
                    results[index].append(
                        run_load(server.port, load, connections=CONNECTIONS, seconds=SECONDS)
                    )
                    cpu[index].append(server.cpu_seconds() - before)
    merged = [_merged(results[index]) for index in range(len(targets))]
    costs = [_cpu_per_request(results[index], cpu[index]) for index in range(len(targets))]
    base, base_cost = merged[0], costs[0]
    rows: list[tuple[object, ...]] = []
    for (name, era, _, _), result, cost in zip(targets, merged, costs, strict=True):
        rows.append(
            (
                name,
                era or "-",
                f"{result.throughput:,.0f}",
                f"{result.throughput / base.throughput:.2f}x",
                f"{result.p50:.3f}",
                f"{result.p50 / base.p50:.2f}x",
                f"{result.p99:.3f}",
                f"{cost:.0f}",
                f"{cost / base_cost:.2f}x",
            )
        )
    return rows, tools_list_bytes


# --- memory ---------------------------------------------------------------------------------


def _walk(client: McpHttp) -> None:
    payload = client.call("memory_list", {"scope": SEED_SCOPE, "page_size": 100})
    while payload["page"]["truncated"]:
        payload = client.call(
            "memory_list", {"scope": SEED_SCOPE, "cursor": payload["page"]["next_cursor"]}
        )


def _rss_row() -> tuple[object, ...]:
    with temporary_root() as root:
        seed_root(root, RSS_RECORDS)
        settle()
        with (
            Server(root, gates={"remember": True}, cpus=SERVER_CPU) as server,
            McpHttp(server, HANDSHAKE_REVISION) as client,
        ):
            idle = server.rss_mib()
            asked = queries(50)
            for index in range(300):
                client.call("memory_recall", {"query": asked[index % 50], "scope": SEED_SCOPE})
            after_recall = server.rss_mib()
            for _ in range(5):
                _walk(client)
            after_walks = server.rss_mib()
            rng = random.Random(7)
            for index in range(200):
                payload = client.call("memory_remember", draft(rng, index))
                record_path(root, payload["reference"]).unlink()
            after_remember = server.rss_mib()
    return (
        RSS_RECORDS,
        f"{idle:.1f}",
        f"{after_recall:.1f}",
        f"{after_walks:.1f}",
        f"{after_remember:.1f}",
        f"{after_remember / idle:.2f}x",
    )


def run(sizes: Sequence[int]) -> None:
    """Print the protocol table (ratios to the floor) and the RSS table (MiB)."""
    rows, tools_list_bytes = _throughput_rows()
    print_table(
        f"protocol over HTTP, {CONNECTIONS} keep-alive connections, against bare uvicorn + "
        f"Starlette (floor); tools/list is {tools_list_bytes:,} bytes",
        HEADER,
        rows,
    )
    print_table("RSS of the server process (MiB) after each phase", RSS_HEADER, [_rss_row()])
