"""Section: memory_recall and memory_inspect latency over HTTP against the read floor.

For each N, seed N canonical records into one scope, start the server, and time recall
(rotating realistic queries), recall answered by the wider tier alone (the same kind of
queries in plural forms, which no record holds exactly) and inspect (rotating references)
after a warm-up. The floor
is reading and ``json.loads``-ing the same N files in a plain loop; it is measured in the
same run, in rounds interleaved with the HTTP calls.
"""

from __future__ import annotations

from collections.abc import Sequence

from common import (
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
    wider_queries,
)

ROUNDS = 20
PER_ROUND = 10  # 200 timed calls of each Tool
WARMUP = 200

HEADER = (
    "N",
    "floor p50",
    "recall p50",
    "recall p99",
    "recall/floor",
    "wider p50",
    "inspect p50",
    "inspect p99",
    "hits/recall",
)


def _row(size: int) -> tuple[object, ...]:
    with temporary_root() as root:
        seeded = seed_root(root, size)
        settle()
        asked, wider = queries(50), wider_queries(50)
        returned: list[int] = []
        with Server(root) as server, McpHttp(server) as client:

            def recall(index: int) -> None:
                query = asked[index % len(asked)]
                payload = client.call("memory_recall", {"query": query, "scope": SEED_SCOPE})
                returned.append(len(payload["memories"]))

            def recall_wider(index: int) -> None:
                query = wider[index % len(wider)]
                client.call("memory_recall", {"query": query, "scope": SEED_SCOPE})

            def inspect(index: int) -> None:
                reference = seeded.references[index % len(seeded.references)]
                client.call("memory_inspect", {"reference": reference})

            timings = interleaved(
                {"recall": recall, "wider": recall_wider, "inspect": inspect},
                rounds=ROUNDS,
                per_round=PER_ROUND,
                warmup=WARMUP,
                floor_paths=seeded.paths,
            )
    floor, recall_timing, inspect_timing = (
        timings["floor"],
        timings["recall"],
        timings["inspect"],
    )
    return (
        size,
        ms(floor.p50),
        ms(recall_timing.p50),
        ms(recall_timing.p99),
        f"{recall_timing.p50 / floor.p50:.2f}x",
        ms(timings["wider"].p50),
        ms(inspect_timing.p50),
        ms(inspect_timing.p99),
        f"{sum(returned) / len(returned):.1f}",
    )


def run(sizes: Sequence[int]) -> None:
    """Print the recall/inspect table (milliseconds) for each size."""
    rows = [_row(size) for size in sizes]
    print_table("memory_recall / memory_inspect over HTTP (ms)", HEADER, rows)
