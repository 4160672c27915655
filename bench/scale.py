"""Section: a notebook of 1,000, 10,000 and 100,000 memories in one scope (issue 37).

For each N, seed N canonical records into one scope (written straight as files, in the
layout ``common.seed_root`` writes), let them settle, and time the floor: reading and
``json.loads``-ing those files in a plain loop over their known paths; and beside it the same
with the files found first (``os.walk`` over the root, then ``json.load`` of each), which is
how a program that only knows the root reads and parses them. Then start a server with the
candidate limit at 100,000 (``MNEMOSYNE_MEMORY_CANDIDATE_LIMIT``) and the remember gate on,
and measure:

- ``first recall``: from spawning the server until its first ``memory_recall`` is answered
  (the server's start, the walk, reading, parsing and indexing every file), and that time
  as a multiple of the floor and of the walk-and-parse time (the goal: at most 3x). The
  floor, the walk and the first recall are each the median of a few rounds (3 at 100,000)
  that take one of each in turn: on a shared machine a single start varies by a second;
- ``recall``, ``wider``, ``list``, ``inspect`` and ``remember``: p50 over HTTP after a
  warm-up (``wider``: queries only the wider tier answers; ``list``: the scope's first page;
  ``remember``: a new memory each time, removed again after its call, outside the timing),
  and recall's p50 as a multiple of the 1,000-record scope's in the same run (at most 5x);
- ``RSS``: the server's resident memory after all of that, beside the notebook's bytes
  (the sum of its files' sizes) and as a multiple of them (at most 2x).

The p50s and RSS come from one more server, started after those rounds.

``--against PATH`` adds another checkout of MyMCP (say, a ``git worktree`` of main before this
work, with its own default limit): over one notebook of 1,000 records, a server of each
answers recall, wider recall, list and inspect in alternating rounds, so that both see the
same background load, and a second table shows each p50 and their ratio (1,000 records must
be served no slower than before). ``--cold`` measures the floor and the first recall with
the notebook's files out of the page cache (each file written back and dropped with
``posix_fadvise`` before the floor's one pass and again before the server starts; the
directories stay cached): what a first recall after a reboot costs, against a floor read
from the disk too. Run it with ``python bench/scale.py [--sizes 1000,10000,100000]
[--against PATH] [--cold]`` or ``python bench/run.py --only scale``. Seeding 100,000 records
takes about a minute and needs about 600 MB of disk.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from common import (
    SEED_SCOPE,
    McpHttp,
    Seeded,
    Server,
    interleaved,
    measure,
    ms,
    print_table,
    queries,
    read_parse,
    seed_root,
    settle,
    temporary_root,
    timed,
    walk_read_parse,
    wider_queries,
)
from remember import draft, record_path

from tests.surface import LIMIT_VARIABLE

DEFAULT_SIZES = (1_000, 10_000, 100_000)
LIMIT = 100_000
CALLS = 100
WARMUP = 50
ROUNDS = 20
PER_ROUND = 10
FIRST_QUERY = "budget plan"

HEADER = (
    "N",
    "MB on disk",
    "floor s",
    "first recall s",
    "first/floor",
    "walk+parse s",
    "first/walk",
    "recall p50",
    "vs 1,000",
    "wider p50",
    "list p50",
    "inspect p50",
    "remember p50",
    "RSS MiB",
    "RSS/disk",
)


@dataclass(frozen=True)
class Figures:
    size: int
    disk_bytes: int
    floor_s: float
    walk_s: float | None
    first_s: float
    recall_ms: float
    wider_ms: float
    list_ms: float
    inspect_ms: float
    remember_ms: float
    rss_mib: float


def _start_figures(
    root: Path, paths: Sequence[Path], checkout: Path | None, cold: bool
) -> tuple[float, float | None, float]:
    """The floor, the walk-and-parse time (None with ``cold``) and the first recall after a
    start, each the median of a few rounds that take one of each in turn, so that all
    three meet the same background load."""
    rounds = 3 if len(paths) > 20_000 else 7
    floors: list[float] = []
    walks: list[float] = []
    firsts: list[float] = []
    for _ in range(rounds):
        if not cold:  # the walk reads the files into the page cache again
            walks.append(timed(lambda: walk_read_parse(root)) / 1000)
        if cold:
            _evict(paths)
        floors.append(timed(lambda: read_parse(paths)) / 1000)
        if cold:
            _evict(paths)
        firsts.append(_first_recall_seconds(root, checkout))
    walk = statistics.median(walks) if walks else None
    return statistics.median(floors), walk, statistics.median(firsts)


def _first_recall_seconds(root: Path, checkout: Path | None) -> float:
    """Seconds from spawning a server until its first ``memory_recall`` is answered."""
    started = time.perf_counter()
    with _server(root, checkout) as server, McpHttp(server, timeout=900.0) as client:
        first = client.call("memory_recall", {"query": FIRST_QUERY, "scope": SEED_SCOPE.value})
        first_s = time.perf_counter() - started
    if first["status"] != "ok":
        raise RuntimeError(f"the first recall answered {first['status']}")
    return first_s


def _evict(paths: Sequence[Path]) -> None:
    """Drop the files' pages from the page cache (written back first, as only clean pages
    can be dropped)."""
    os.sync()
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def _server(root: Path, checkout: Path | None) -> Server:
    extra = {} if checkout is not None else {LIMIT_VARIABLE: str(LIMIT)}
    return Server(
        root, gates={"remember": True}, startup_timeout=600.0, checkout=checkout, environment=extra
    )


def _reads_names() -> tuple[str, ...]:
    return ("recall", "wider", "list", "inspect")


def _reads(client: McpHttp, seeded: Seeded) -> dict[str, Callable[[int], Any]]:
    """The read Tools as the bench calls them: rotating queries and references."""
    asked, wider = queries(50), wider_queries(50)
    scope = SEED_SCOPE.value

    def recall(index: int) -> Any:
        return client.call("memory_recall", {"query": asked[index % len(asked)], "scope": scope})

    def recall_wider(index: int) -> Any:
        return client.call("memory_recall", {"query": wider[index % len(wider)], "scope": scope})

    def listing(index: int) -> Any:
        return client.call("memory_list", {"scope": scope})

    def inspect(index: int) -> Any:
        reference = seeded.references[index % len(seeded.references)]
        return client.call("memory_inspect", {"reference": reference})

    return dict(zip(_reads_names(), (recall, recall_wider, listing, inspect), strict=True))


def _timings(client: McpHttp, seeded: Seeded, root: Path) -> dict[str, float]:
    actions = _reads(client, seeded)
    found = {name: measure(action, CALLS, WARMUP).p50 for name, action in actions.items()}
    found["remember"] = _remember_p50(client, root)
    return found


def _remember_p50(client: McpHttp, root: Path) -> float:
    """p50 of new memories remembered into the seeded scope, each removed after its call."""
    import random

    rng = random.Random(11)
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
    return statistics.median(samples)


def measure_size(size: int, checkout: Path | None = None, *, cold: bool = False) -> Figures:
    """Every figure of one size, with this checkout (or ``checkout``)."""
    with temporary_root() as root:
        seeded = seed_root(root, size)
        settle()
        disk_bytes = sum(os.stat(path).st_size for path in seeded.paths)
        floor_s, walk_s, first_s = _start_figures(root, seeded.paths, checkout, cold)
        with _server(root, checkout) as server, McpHttp(server, timeout=900.0) as client:
            found = _timings(client, seeded, root)
            rss = server.rss_mib()
    return Figures(
        size,
        disk_bytes,
        floor_s,
        walk_s,
        first_s,
        found["recall"],
        found["wider"],
        found["list"],
        found["inspect"],
        found["remember"],
        rss,
    )


def _row(figures: Figures, base_recall: float | None, label: str = "") -> tuple[object, ...]:
    disk_mib = figures.disk_bytes / 2**20
    versus = f"{figures.recall_ms / base_recall:.2f}x" if base_recall else "-"
    return (
        f"{figures.size:,}{label}",
        f"{figures.disk_bytes / 1e6:.1f}",
        f"{figures.floor_s:.2f}",
        f"{figures.first_s:.2f}",
        f"{figures.first_s / figures.floor_s:.2f}x",
        "-" if figures.walk_s is None else f"{figures.walk_s:.2f}",
        "-" if figures.walk_s is None else f"{figures.first_s / figures.walk_s:.2f}x",
        ms(figures.recall_ms),
        versus,
        ms(figures.wider_ms),
        ms(figures.list_ms),
        ms(figures.inspect_ms),
        ms(figures.remember_ms),
        f"{figures.rss_mib:.0f}",
        f"{figures.rss_mib / disk_mib:.2f}x",
    )


def run(sizes: Sequence[int], against: Sequence[Path] = (), *, cold: bool = False) -> None:
    """Print the scale table (milliseconds unless said) for each size, and the comparison."""
    measured = [measure_size(size, cold=cold) for size in sizes]
    base = next((figures.recall_ms for figures in measured if figures.size == 1_000), None)
    rows = [_row(figures, base) for figures in measured]
    cache = "; files out of the page cache for the floor and the first recall" if cold else ""
    title = f"a notebook past a thousand memories (candidate limit {LIMIT:,}; over HTTP{cache})"
    print_table(title, HEADER, rows)
    for checkout in against:
        compare_at_1000(checkout)


def compare_at_1000(checkout: Path) -> None:
    """Print p50s of this checkout and ``checkout`` over one notebook of 1,000, interleaved."""
    with temporary_root() as root:
        seeded = seed_root(root, 1_000)
        settle()
        with (
            _server(root, None) as ours,
            McpHttp(ours) as our_client,
            _server(root, checkout) as theirs,
            McpHttp(theirs) as their_client,
        ):
            actions: dict[str, Callable[[int], Any]] = {}
            for label, client in (("this", our_client), (checkout.name, their_client)):
                for name, action in _reads(client, seeded).items():
                    actions[f"{name} {label}"] = action
            timings = interleaved(actions, rounds=ROUNDS, per_round=PER_ROUND, warmup=WARMUP)
    rows = []
    for name in _reads_names():
        mine, other = timings[f"{name} this"].p50, timings[f"{name} {checkout.name}"].p50
        rows.append((name, ms(mine), ms(other), f"{mine / other:.2f}x"))
    header = ("1,000 records", "this p50", f"{checkout.name} p50", "this/before")
    print_table("the same notebook of 1,000, interleaved (ms)", header, rows)


def _sizes(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=_sizes, default=list(DEFAULT_SIZES))
    parser.add_argument("--against", type=Path, action="append", default=[])
    parser.add_argument("--cold", action="store_true")
    args = parser.parse_args(argv)
    run(args.sizes, [path.resolve() for path in args.against], cold=args.cold)
    return 0


if __name__ == "__main__":
    sys.exit(main())
