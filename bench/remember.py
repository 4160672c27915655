"""Section: memory_remember latency over HTTP, into an empty scope and into seeded ones.

For each N (0 = an empty scope), seed N canonical records into one scope, start the server
with the remember gate on, and time remembering new, distinct memories into that scope.
Each new record is deleted again after its call (outside the timing), so every call sees
exactly N records: the duplicate scan covers the whole scope, and a scope past 1,000
candidate files refuses writes. The floor is reading and ``json.loads``-ing the same N
files in a plain loop, in this same run.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from common import (
    SEED_SCOPE,
    WORDS,
    McpHttp,
    Server,
    Timing,
    ms,
    percentile,
    print_table,
    read_parse_floor,
    seed_root,
    settle,
    temporary_root,
)

CALLS = 200
WARMUP = 50
# The store refuses to scan more candidates than this, so bigger scopes cannot be written.
MAX_SCOPE_RECORDS = 1000

HEADER = ("N", "floor p50", "remember p50", "remember p99", "remember/floor")


def draft(rng: random.Random, index: int) -> dict[str, Any]:
    words = [rng.choice(WORDS) for _ in range(rng.randint(60, 160))]
    return {
        "scope": SEED_SCOPE.value,
        "namespace": {"kind": "project", "id": "bench", "label": "Bench"},
        "collection": {"id": "runs", "label": None} if index % 2 else None,
        "kind": "decision",
        "language": "en",
        "title": f"Benchmark decision {index}",
        "content": f"Decision {index}: " + " ".join(words) + ".",
        "tags": rng.sample(WORDS, 3),
        "origin": "user_approved_proposal",
    }


def record_path(root: Path, reference: dict[str, Any]) -> Path:
    parts = [reference["scope"], reference["namespace_id"]]
    if reference["collection_id"] is not None:
        parts.append(reference["collection_id"])
    return root.joinpath(*parts, reference["id"] + ".json")


def _time_remember(client: McpHttp, root: Path) -> Timing:
    rng = random.Random(7)
    samples: list[float] = []
    for index in range(WARMUP + CALLS):
        arguments = draft(rng, index)
        started = time.perf_counter_ns()
        payload = client.call("memory_remember", arguments)
        elapsed = (time.perf_counter_ns() - started) / 1e6
        if payload["status"] != "remembered":
            raise RuntimeError(f"memory_remember answered {payload['status']}")
        record_path(root, payload["reference"]).unlink()
        if index >= WARMUP:
            samples.append(elapsed)
    return Timing(percentile(samples, 0.5), percentile(samples, 0.99), len(samples))


def _row(size: int) -> tuple[object, ...]:
    with temporary_root() as root:
        seeded = seed_root(root, size)
        settle()
        with Server(root, gates={"remember": True}) as server, McpHttp(server) as client:
            timing = _time_remember(client, root)
        floor = read_parse_floor(seeded.paths) if size else 0.0
    ratio = f"{timing.p50 / floor:.2f}x" if floor else "-"
    return (size, ms(floor) if size else "-", ms(timing.p50), ms(timing.p99), ratio)


def run(sizes: Sequence[int]) -> None:
    """Print the remember table (milliseconds): an empty scope, then each size up to 1,000."""
    chosen = [0, *sorted({size for size in sizes if 0 < size <= MAX_SCOPE_RECORDS})]
    rows = [_row(size) for size in chosen]
    print_table("memory_remember over HTTP (ms; N records already in the scope)", HEADER, rows)
