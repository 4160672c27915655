"""Worker processes for one large piece of work: the first scan of a large scope.

:class:`Workers` starts a few worker processes for the occasion (they get ready, importing
what they are told to, while the caller does something else), runs a function over a
list of jobs on them, gives the results in the order of the jobs, and stops them when
closed. The workers are *spawned*: each is a fresh interpreter (forking a server that runs
threads could copy a lock some thread holds), so the function, its jobs and its results
travel by ``pickle``.

A job whose worker fails (an exception, a worker that died, a pool that could not start)
is done again by ``fallback`` in this process, so every job gets exactly one answer. A
worker whose parent has gone (the server was killed, or stopped mid-scan) ends by itself.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import AbstractContextManager
from typing import TypeVar

__all__ = ["AHEAD_PER_WORKER", "Workers", "usable_cpus"]

# Jobs handed to the workers ahead of the one whose result is taken next, per worker.
AHEAD_PER_WORKER = 2

_J = TypeVar("_J")
_R = TypeVar("_R")


def usable_cpus() -> int:
    """The processors this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class Workers(AbstractContextManager["Workers"]):
    """At most ``count`` worker processes, started by the first job given to them."""

    def __init__(self, count: int) -> None:
        self._pool: ProcessPoolExecutor | None = None
        try:
            self._pool = ProcessPoolExecutor(
                count,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_watch_parent,
                initargs=(os.getpid(),),
            )
        except Exception:  # noqa: BLE001 - without workers, the jobs are done here
            self._pool = None
        self.count = count

    def warm(self, function: Callable[[_J], object], job: _J) -> None:
        """Start the workers now, each given ``job`` (say, one with nothing to do, that
        imports what the real ones need), so they are ready by the time work comes."""
        try:
            for _ in range(self.count):
                self._submit(function, job)
        except Exception:  # noqa: BLE001 - the work comes all the same
            pass

    def in_order(
        self,
        function: Callable[[_J], _R],
        jobs: Sequence[_J],
        fallback: Callable[[_J], _R],
        on_handed: Callable[[], None] | None = None,
    ) -> Iterator[_R]:
        """``function(job)`` for each job, in order, computed by the workers; ``fallback(job)``,
        here, for each job they could not do. ``on_handed`` is called once the first jobs
        are handed over, before the first result is waited for.

        Only a few jobs are handed over ahead of the one whose result comes next (enough to
        keep every worker busy): a process that ends meanwhile waits for those few, not for
        every job, and the jobs after them are done here (if at all)."""
        ahead = AHEAD_PER_WORKER * self.count
        futures: dict[int, Future[_R]] = {}
        handed = 0  # the jobs handed over, or refused, so far
        refused = False
        for number, job in enumerate(jobs):
            while not refused and handed < min(len(jobs), number + ahead):
                try:
                    futures[handed] = self._submit(function, jobs[handed])
                except Exception:  # noqa: BLE001 - the jobs not handed over are done here
                    refused = True
                handed += 1
            if on_handed is not None:
                on_handed()
                on_handed = None
            future = futures.pop(number, None)
            yield fallback(job) if future is None else _result(future, job, fallback)

    def _submit(self, function: Callable[[_J], _R], job: _J) -> Future[_R]:
        if self._pool is None:
            raise RuntimeError("no workers")
        return self._pool.submit(function, job)

    def close(self, *, wait: bool = True) -> None:
        """Stop the workers (a job still waiting is dropped), by default waiting until
        they have."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=wait, cancel_futures=True)

    def __exit__(self, *exc_info: object) -> None:
        self.close()


# How often a worker looks whether the process that started it is still there, in seconds.
PARENT_CHECK_S = 0.5


def _watch_parent(parent: int) -> None:
    """In a worker, as it starts: end it once the process that started it is gone (killed,
    or stopped while the workers were busy), so that no worker outlives the server; an
    orphan would otherwise wait for work forever."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        os._exit(0)

    threading.Thread(target=watch, name="mymcp-worker-watch", daemon=True).start()


def _result(future: Future[_R], job: _J, fallback: Callable[[_J], _R]) -> _R:
    try:
        return future.result()
    except Exception:  # noqa: BLE001 - whatever failed there is done again here
        return fallback(job)
