"""Worker processes for the first scan of a large scope: real ones, started for each test."""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from mymcp.plugins.mnemosyne.memory.model.vocabulary import Scope
from mymcp.plugins.mnemosyne.memory.recall import ranking
from mymcp.plugins.mnemosyne.memory.recall.ranking import RecallRequest
from mymcp.plugins.mnemosyne.memory.storage import scan
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore
from mymcp.plugins.mnemosyne.memory.storage.workers import (
    AHEAD_PER_WORKER,
    PARENT_CHECK_S,
    Workers,
    usable_cpus,
)
from tests.helpers import canonical_record, place_canonical, settled_clock
from tests.processes import finished

pytestmark = pytest.mark.slow  # starts worker processes

WORDS = ("alpha", "beta", "plan", "release", "tea", "notes", "q1", "c++")


def _failed(job: object) -> int:
    return -1


def test_results_come_in_the_order_of_the_jobs() -> None:
    with Workers(2) as workers:
        assert list(workers.in_order(abs, [-3, 1, -2, 5, -4], _failed)) == [3, 1, 2, 5, 4]


def test_a_job_that_fails_in_its_worker_is_done_again_here() -> None:
    with Workers(2) as workers:
        workers.warm(abs, 1)
        assert list(workers.in_order(int, ["1", "two", "3"], _failed)) == [1, -1, 3]


def test_jobs_no_worker_can_take_are_all_done_here() -> None:
    def not_pickled(job: int) -> int:
        return job

    with Workers(2) as workers:
        assert list(workers.in_order(not_pickled, [1, 2, 3], _failed)) == [-1, -1, -1]


def test_closed_workers_leave_every_job_here() -> None:
    workers = Workers(2)
    workers.close()

    assert list(workers.in_order(abs, [-1, -2], _failed)) == [-1, -1]


def test_usable_cpus_counts_at_least_one() -> None:
    assert usable_cpus() >= 1


def test_a_scope_read_by_worker_processes_is_the_scope_read_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "memory"
    for number in range(60):
        words = [WORDS[(number * k) % len(WORDS)] for k in (1, 3, 5)]
        record = canonical_record(id=f"mem_{number:032x}", title=words[0], content=" ".join(words))
        place_canonical(root, record)
    queries = [RecallRequest(" ".join(WORDS[k : k + 2]), Scope.PROJECT) for k in range(7)]

    def answers() -> list[list[tuple[object, ...]]]:
        store = MemoryStore(clock=settled_clock)
        return [
            [(hit.stored.parts, hit.score, hit.terms) for hit in ranking.recall(store, root, ask)]
            for ask in queries
        ]

    itself = answers()
    monkeypatch.setattr(scan, "BULK_FROM", 2)
    monkeypatch.setattr(scan, "MIN_RUN", 8)
    monkeypatch.setattr(scan, "usable_cpus", lambda: 2)
    started: list[int] = []

    class Counted(Workers):
        def __init__(self, count: int) -> None:
            started.append(count)
            super().__init__(count)

    monkeypatch.setattr(scan, "Workers", Counted)
    read_here: list[object] = []
    monkeypatch.setattr(scan, "_not_read", read_here.append)  # a run no worker could do

    assert answers() == itself
    assert started == [2]
    assert read_here == []  # the workers read every run
    assert _stopped_within(30.0)  # once the scan is done, the workers stop by themselves


class _Recorded(Workers):
    """Workers that do each job as it is handed over, and note it."""

    def __init__(self, count: int) -> None:
        super().__init__(count)
        self.handed: list[Any] = []

    def _submit(self, function: Callable[[Any], Any], job: Any) -> Future[Any]:
        self.handed.append(job)
        future: Future[Any] = Future()
        future.set_result(function(job))
        return future


def test_only_a_few_jobs_are_handed_over_ahead_of_the_result_taken() -> None:
    workers = _Recorded(2)
    with workers:
        results = workers.in_order(abs, list(range(-20, 0)), _failed)
        assert next(results) == 20
        assert len(workers.handed) == AHEAD_PER_WORKER * 2
        assert list(results) == list(range(19, 0, -1))
    assert workers.handed == list(range(-20, 0))


def test_the_first_jobs_are_handed_over_before_the_caller_hears_of_it_once() -> None:
    heard: list[int] = []
    workers = _Recorded(2)
    with workers:
        results = workers.in_order(
            abs, list(range(-6, 0)), _failed, lambda: heard.append(len(workers.handed))
        )
        assert heard == []  # nothing is handed over before the first result is asked for
        assert list(results) == [6, 5, 4, 3, 2, 1]
    assert heard == [AHEAD_PER_WORKER * 2]


def _stopped_within(seconds: float) -> bool:
    """Whether every worker process this test started ends within ``seconds``."""
    deadline = time.monotonic() + seconds
    while multiprocessing.active_children():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


# A process that starts two workers and then ends at once, without stopping them.
_ABANDONING = """
import multiprocessing, os, sys
from mymcp.plugins.mnemosyne.memory.storage.workers import Workers
workers = Workers(2)
workers.warm(abs, 0)
print(*list(workers.in_order(abs, [-1, -2, -3, -4], abs)))
print(*[child.pid for child in multiprocessing.active_children()], flush=True)
os._exit(0)
"""


@pytest.mark.slow  # starts processes
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_workers_end_by_themselves_once_their_parent_is_gone() -> None:
    completed = finished([sys.executable, "-c", _ABANDONING], os.environ)

    answers, pids = completed.stdout.splitlines()
    assert answers == "1 2 3 4"
    left = [int(pid) for pid in pids.split()]
    assert len(left) == 2
    deadline = time.monotonic() + 20 * PARENT_CHECK_S + 10
    while not all(map(_ended, left)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(map(_ended, left))


def _ended(pid: int) -> bool:
    """Whether the process ``pid`` has ended (gone, or a zombie nobody has reaped yet)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")
