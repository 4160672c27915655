"""Racing mutations: one success per revision and clean conflicts, across processes and threads.

Four server processes share one memory root and, round after round, call revise, archive,
restore or forget on the same record with the revision they all just read. Every outcome is
checked against a replay of the winning calls, so a lost update, a record that is both
forgotten and alive, or a file that is not a valid record fails the test.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mymcp.plugins.mnemosyne.memory.model.records import CanonicalRecord, parse_record_bytes
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore
from mymcp.plugins.mnemosyne.plugin import MnemosyneContext
from mymcp.plugins.mnemosyne.tools import lifecycle, revise
from mymcp.plugins.mnemosyne.tools.framework import MemoryTool
from tests.helpers import canonical_record, place_canonical
from tests.mnemosyne.tools.mutation_support import (
    race_arguments,
    race_worker,
    reference_of,
)
from tests.surface import gates

pytestmark = pytest.mark.slow  # several processes

WORKERS = 4
ROUNDS = 50
SEED = 20260721
RECORDS = 5

WRITES = {"revised", "archived", "restored", "forgotten"}
NO_OPS = {"already_archived": "archived", "already_active": "active"}
CLEAN_CONFLICTS = {"revision_conflict", "not_archived", "not_found"}


@dataclass
class Replayed:
    """What one record went through, rebuilt from the winning calls."""

    content: str
    state: str
    revision: int
    states: dict[int, str]  # the state the record had at each revision
    forgotten_at: int | None = None


def seed_records(root: Path) -> list[dict[str, Any]]:
    records = []
    for index in range(RECORDS):
        state = "archived" if index % 2 else "active"
        record = canonical_record(
            id=f"mem_{index:032x}",
            content=f"initial content {index}",
            lifecycle={"state": state, "revision": 1},
        )
        place_canonical(root, record)
        records.append(record)
    return records


def replay(record: dict[str, Any], outcomes: list[dict[str, Any]]) -> Replayed:
    """Apply the record's winning writes in revision order, checking they form one chain."""
    state = Replayed(record["content"], record["lifecycle"]["state"], 1, {1: "?"})
    state.states[1] = state.state
    wins = sorted(
        (o for o in outcomes if o["payload"]["status"] in WRITES), key=lambda o: o["expected"]
    )
    assert [o["expected"] for o in wins] == list(range(1, len(wins) + 1)), "one win per revision"
    for outcome in wins:
        payload, op = outcome["payload"], outcome["op"]
        assert state.forgotten_at is None, "nothing succeeds after forget"
        if payload["status"] == "forgotten":
            assert state.state == "archived"
            assert "lifecycle" not in payload
            state.forgotten_at = outcome["expected"]
            continue
        state.revision += 1
        if op == "memory_revise":
            state.content = outcome["content"]
        else:
            assert state.state != payload["lifecycle"]["state"]
            state.state = payload["lifecycle"]["state"]
        assert payload["lifecycle"] == {"state": state.state, "revision": state.revision}
        state.states[state.revision] = state.state
    return state


def check_losers(replayed: Replayed, outcomes: list[dict[str, Any]]) -> None:
    for outcome in outcomes:
        payload, expected = outcome["payload"], outcome["expected"]
        status = payload["status"]
        if status in WRITES:
            continue
        if status in NO_OPS:
            assert replayed.states[expected] == NO_OPS[status]
            assert payload["lifecycle"]["revision"] == expected
            continue
        assert payload["code"] in CLEAN_CONFLICTS, payload
        if payload["code"] == "not_found":
            assert replayed.forgotten_at is not None
        if payload["code"] == "not_archived":
            assert replayed.states[expected] == "active"


def check_files(root: Path) -> list[CanonicalRecord]:
    found = []
    for path in root.rglob("*"):
        if path.is_file():
            assert path.suffix == ".json", f"leftover {path.name}"
            record = parse_record_bytes(path.read_bytes())
            assert isinstance(record, CanonicalRecord)
            if record.revision > 1:  # rewritten by a Tool
                assert (path.stat().st_mode & 0o777) == 0o600
            found.append(record)
    return found


def run_workers(
    root: Path, home: Path, references: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], float]:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(WORKERS)
    results = context.Queue()
    environment = {
        "HOME": str(home),
        "MNEMOSYNE_MEMORY_ROOT": str(root),
        **gates(revise=True, archive_restore=True, forget=True, remember=False),
    }
    processes = [
        context.Process(
            target=race_worker,
            args=(worker, environment, references, ROUNDS, SEED, barrier, results),
        )
        for worker in range(WORKERS)
    ]
    for process in processes:
        process.start()
    outcomes: list[dict[str, Any]] = []
    racing = 0.0
    try:
        for _ in processes:
            mine, seconds = results.get(timeout=120)
            outcomes.extend(mine)
            racing = max(racing, seconds)
    finally:
        for process in processes:
            process.join(timeout=30)
            if process.is_alive():
                process.kill()
    assert all(process.exitcode == 0 for process in processes)
    return outcomes, racing


def test_four_processes_racing_fifty_calls_each(
    memory_root: Path, hermetic_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = seed_records(memory_root)
    references = [reference_of(record) for record in records]
    started = time.monotonic()
    outcomes, racing = run_workers(memory_root, hermetic_home, references)
    elapsed = time.monotonic() - started
    assert len(outcomes) == WORKERS * ROUNDS

    alive = {record.id: record for record in check_files(memory_root)}
    for record in records:
        mine = [o for o in outcomes if o["id"] == record["id"]]
        replayed = replay(record, mine)
        check_losers(replayed, mine)
        if replayed.forgotten_at is not None:
            assert record["id"] not in alive, "forgotten yet alive"
            continue
        final = alive[record["id"]]
        assert (final.content, final.state.value, final.revision) == (
            replayed.content,
            replayed.state,
            replayed.revision,
        ), "lost update"

    statuses = Counter(o["payload"]["status"] for o in outcomes)
    codes = Counter(o["payload"].get("code", "-") for o in outcomes)
    contested = Counter(
        (o["id"], o["round"], o["expected"]) for o in outcomes if o["payload"]["status"] in WRITES
    )
    assert max(contested.values()) == 1
    assert statuses["revision_conflict"] == 0  # conflicts carry status "conflict"
    assert sum(statuses[s] for s in WRITES) > RECORDS
    assert codes["revision_conflict"] > ROUNDS
    with capsys.disabled():
        print(
            f"\nrace: {WORKERS} processes x {ROUNDS} calls: {elapsed:.1f}s in all, "
            f"{racing:.1f}s racing; "
            f"statuses {dict(sorted(statuses.items()))}; codes {dict(sorted(codes.items()))}"
        )


# --- threads in one process --------------------------------------------------------------------


def race_in_threads(
    tools: list[MemoryTool], arguments: list[dict[str, Any]], context: MnemosyneContext
) -> list[dict[str, Any]]:
    barrier = threading.Barrier(len(tools))
    replies: list[dict[str, Any]] = [{} for _ in tools]

    def run(index: int) -> None:
        barrier.wait(timeout=10)
        result = tools[index].invoke(arguments[index], context)
        replies[index] = result["structuredContent"]

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(tools))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return replies


PAIRS: list[tuple[MemoryTool, MemoryTool, str]] = [
    (revise.TOOL, revise.TOOL, "active"),
    (lifecycle.ARCHIVE, revise.TOOL, "active"),
    (lifecycle.RESTORE, lifecycle.FORGET, "archived"),
    (lifecycle.FORGET, revise.TOOL, "archived"),
]


@pytest.mark.parametrize(("first", "second", "state"), PAIRS, ids=lambda v: getattr(v, "name", v))
def test_two_threads_at_one_revision_give_one_winner(
    memory_root: Path, first: MemoryTool, second: MemoryTool, state: str
) -> None:
    context = MnemosyneContext(MemoryStore())
    record = canonical_record(lifecycle={"state": state, "revision": 1})
    reference = reference_of(record)
    path = place_canonical(memory_root, record)
    tally: Counter[str] = Counter()
    for trial in range(25):
        place_canonical(memory_root, record)
        arguments = [
            race_arguments(tool.name, reference, 1, f"thread {index} trial {trial}")
            for index, tool in enumerate((first, second))
        ]
        replies = race_in_threads([first, second], arguments, context)
        outcome = sorted(reply["status"] for reply in replies)
        tally[" ".join(outcome)] += 1
        winners = [reply for reply in replies if reply["status"] in WRITES]
        losers = [reply for reply in replies if reply["status"] not in WRITES]
        assert len(winners) == 1 and len(losers) == 1, replies
        assert losers[0]["code"] in ("revision_conflict", "not_found"), replies
        if winners[0]["status"] == "forgotten":
            assert not path.exists()
        else:
            on_disk = parse_record_bytes(path.read_bytes())
            assert isinstance(on_disk, CanonicalRecord)
            assert on_disk.revision == 2
            assert winners[0]["lifecycle"]["revision"] == 2
            if winners[0]["status"] == "revised":
                index = replies.index(winners[0])
                assert on_disk.content == arguments[index]["content"]
    assert sum(tally.values()) == 25
