"""Section: a complete memory_list walk over HTTP, in pages of 100, against the read floor.

For each N, seed N canonical records into one scope, start the server, and time walking the
whole scope-wide inventory: a first request with page_size 100, then every next_cursor until
the last page. The floor is reading and ``json.loads``-ing the same N files once in a plain
loop; it is measured in this same run, in rounds interleaved with the walks, so both see the
same background load. A walk at or below 1.0x the floor means no page pays for re-reading or
re-hashing the files. The ``ping`` column is one JSON-RPC ping round trip over the same
connection: what every page pays for HTTP and JSON-RPC alone, before any listing work.

The walk is timed twice: as an original 0.2.0 client makes it (no protocol header; each page
is read from the text item), and as a client on MCP 2025-11-25 makes it (each page also
carries ``structuredContent``, which the client reads instead).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from common import (
    SEED_SCOPE,
    McpHttp,
    Server,
    interleaved,
    ms,
    print_table,
    seed_root,
    settle,
    temporary_root,
)

PAGE_SIZE = 100
ROUNDS = 40  # one floor, one walk of each client and one ping per round
CURRENT_PROTOCOL = "2025-11-25"
WARMUP = 5

HEADER = (
    "N",
    "pages",
    "floor p50",
    "walk p50",
    "walk p99",
    "page p50",
    "ping p50",
    "walk/floor",
    f"{CURRENT_PROTOCOL} walk p50",
    "/floor",
)


def _walk(client: McpHttp, expected: int) -> None:
    payload = client.call("memory_list", {"scope": SEED_SCOPE, "page_size": PAGE_SIZE})
    seen = len(payload["memories"])
    while payload["page"]["truncated"]:
        cursor = payload["page"]["next_cursor"]
        payload = client.call("memory_list", {"scope": SEED_SCOPE, "cursor": cursor})
        seen += len(payload["memories"])
    if seen != expected:
        raise RuntimeError(f"the walk returned {seen} of {expected} records")


def _row(size: int) -> tuple[object, ...]:
    pages = max(1, math.ceil(size / PAGE_SIZE))
    with temporary_root() as root:
        seeded = seed_root(root, size)
        settle()
        with (
            Server(root) as server,
            McpHttp(server) as client,
            McpHttp(server, CURRENT_PROTOCOL) as current,
        ):
            timings = interleaved(
                {
                    "walk": lambda _: _walk(client, size),
                    "current": lambda _: _walk(current, size),
                    "ping": lambda _: client.ping(),
                },
                rounds=ROUNDS,
                per_round=1,
                warmup=WARMUP,
                floor_paths=seeded.paths,
            )
    floor, walk, ping = timings["floor"].p50, timings["walk"], timings["ping"].p50
    current = timings["current"].p50
    return (
        size,
        pages,
        ms(floor),
        ms(walk.p50),
        ms(walk.p99),
        ms(walk.p50 / pages),
        ms(ping),
        f"{walk.p50 / floor:.2f}x",
        ms(current),
        f"{current / floor:.2f}x",
    )


def run(sizes: Sequence[int]) -> None:
    """Print the listing-walk table (milliseconds) for each size."""
    rows = [_row(size) for size in sizes]
    print_table(f"memory_list full walk over HTTP, pages of {PAGE_SIZE} (ms)", HEADER, rows)
