"""Section: the same requests in the handshake era and at 2026-07-28, over HTTP.

For each N, seed N records, start one server, and time ``tools/list``, ``memory_recall`` and
``memory_inspect`` from two clients in interleaved rounds: one on 2025-11-25 (the header
only), one on 2026-07-28 (the ``_meta`` envelope, the metadata headers and the checks they
pass, and the result fields added to every answer). The ratio column is the 2026-07-28
median over the handshake median.
"""

from __future__ import annotations

from collections.abc import Sequence

from common import (
    HANDSHAKE_REVISION,
    MODERN_REVISION,
    SEED_SCOPE,
    McpHttp,
    Server,
    interleaved,
    ms,
    print_table,
    queries,
    seed_root,
    settle,
    temporary_root,
)

HEADER = ("N", "request", "2025-11-25 p50", "2026-07-28 p50", "2026-07-28 p99", "ratio")


def _rows(size: int) -> list[tuple[object, ...]]:
    with temporary_root() as root:
        seeded = seed_root(root, size)
        settle()
        asked = queries(50)
        with (
            Server(root) as server,
            McpHttp(server, HANDSHAKE_REVISION) as old,
            McpHttp(server, MODERN_REVISION) as new,
        ):
            actions = {}
            for era, client in (("handshake", old), ("modern", new)):
                actions[f"{era} tools/list"] = lambda index, c=client: c.list_tools()
                actions[f"{era} recall"] = lambda index, c=client: c.call(
                    "memory_recall", {"query": asked[index % len(asked)], "scope": SEED_SCOPE}
                )
                actions[f"{era} inspect"] = lambda index, c=client: c.call(
                    "memory_inspect",
                    {"reference": seeded.references[index % len(seeded.references)]},
                )
            timings = interleaved(actions)
    rows: list[tuple[object, ...]] = []
    for request in ("tools/list", "recall", "inspect"):
        before, after = timings[f"handshake {request}"], timings[f"modern {request}"]
        ratio = f"{after.p50 / before.p50:.2f}x"
        rows.append((size, request, ms(before.p50), ms(after.p50), ms(after.p99), ratio))
    return rows


def run(sizes: Sequence[int]) -> None:
    rows = [row for size in sizes for row in _rows(size)]
    print_table("eras: the same requests at 2025-11-25 and 2026-07-28 (ms)", HEADER, rows)
