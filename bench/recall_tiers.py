"""Section: what each recall tier costs, in process, with the meaning tier off and on.

For each N, seed N canonical records into one scope and time ``recall`` (the function the
Tool calls, without HTTP) for four kinds of query: vocabulary words (the exact tier fills
five places), their plurals (the wider tier answers), other words for them (``bill``,
``glitch``: only the meaning tier answers) and words for nothing the notebook holds (every
tier looks). Each kind is timed with the meaning tier left out (recall as it was before it)
and with it, in interleaved rounds, so the ratio compares the two under the same load. The
meaning table is loaded before timing, as the warm-up thread does after initialize.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from common import (
    SEED_SCOPE,
    absent_queries,
    interleaved,
    meaning_queries,
    ms,
    print_table,
    queries,
    seed_root,
    settle,
    temporary_root,
    wider_queries,
)

from mymcp.plugins.mnemosyne.memory.recall import meaning, ranking
from mymcp.plugins.mnemosyne.memory.recall.ranking import RecallRequest
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore

ROUNDS = 20
PER_ROUND = 10
WARMUP = 50
KINDS = ("exact", "wider", "meaning", "absent")
HEADER = (
    "N",
    *(f"{kind} {state}" for kind in KINDS for state in ("off", "on")),
    "exact on/off",
    "all on/off",
    "meaning hits",
)


def _without_meaning(*_: object) -> list[ranking.RecallHit]:
    return []


def _row(size: int) -> tuple[object, ...]:
    asked = {
        "exact": queries(50),
        "wider": wider_queries(50),
        "meaning": meaning_queries(50),
        "absent": absent_queries(50),
    }
    with temporary_root() as root:
        seed_root(root, size)
        settle()
        store = MemoryStore()
        with_meaning = ranking._meaning_hits
        returned: list[int] = []

        def action(kind: str, on: bool) -> Callable[[int], object]:
            def call(index: int) -> None:
                ranking._meaning_hits = with_meaning if on else _without_meaning  # type: ignore[assignment]
                try:
                    request = RecallRequest(asked[kind][index % 50], SEED_SCOPE)
                    hits = ranking.recall(store, root, request)
                finally:
                    ranking._meaning_hits = with_meaning  # type: ignore[assignment]
                if on and kind == "meaning":
                    returned.append(sum(bool(hit.meaning) for hit in hits))

            return call

        meaning.load()
        actions = {
            f"{kind} {state}": action(kind, state == "on")
            for kind in KINDS
            for state in ("off", "on")
        }
        timings = interleaved(actions, rounds=ROUNDS, per_round=PER_ROUND, warmup=WARMUP)
    p50 = {name: timing.p50 for name, timing in timings.items()}
    all_off = sum(p50[f"{kind} off"] for kind in KINDS)
    all_on = sum(p50[f"{kind} on"] for kind in KINDS)
    return (
        size,
        *(ms(p50[name]) for name in actions),
        f"{p50['exact on'] / p50['exact off']:.2f}x",
        f"{all_on / all_off:.2f}x",
        f"{sum(returned) / max(len(returned), 1):.1f}",
    )


def run(sizes: Sequence[int]) -> None:
    """Print recall's p50 (ms) per kind of query, the meaning tier off and on."""
    started = time.perf_counter()
    rows = [_row(size) for size in sizes]
    print_table(
        "recall in process, p50 ms per kind of query: meaning tier off | on "
        f"({time.perf_counter() - started:.0f} s)",
        HEADER,
        rows,
    )
