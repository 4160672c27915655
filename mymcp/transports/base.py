"""What every transport does, and the one pool of worker threads they share.

A transport only moves bytes. It reads one message (an HTTP body, a stdio line), decodes it
with ``jsonrpc.decode_body`` and hands it to its :class:`~mymcp.mcp.session.Session` with what
it knows of the request (the metadata headers over HTTP, nothing over stdio). The session
answers with an ``Answer`` (bytes and HTTP status) or, for a Tool
call, a :class:`~mymcp.mcp.session.Work` whose ``run`` gives the answer; the transport runs
that on a worker thread of this module and writes the bytes.

The worker threads (``_Workers``): at most :data:`DISPATCH_WORKERS`, started on demand and
reused, one set per process (a forked child makes its own). A job is a call and, over HTTP,
the event loop's future for it, which the thread settles with ``call_soon_threadsafe``:
half the cost of ``run_in_executor``, which passes every call through a second future and
its lock. The threads are daemon threads: each transport waits for the calls it started
before it lets the process end.
"""

from __future__ import annotations

import functools
import os
import queue
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mymcp.threads import batch_scheduling

if TYPE_CHECKING:
    import asyncio
    from concurrent.futures import Executor

# Tool calls run at once; more wait for a free worker. The same bound as Starlette's own
# thread pool, so a few slow Tool calls never hold up a ping or another call.
DISPATCH_WORKERS = 40

_Job = tuple["asyncio.AbstractEventLoop | None", "asyncio.Future[Any] | None", Callable[[], Any]]


class _Workers:
    """The threads that run Tool calls: at most ``size``, started on demand and reused."""

    def __init__(self, size: int) -> None:
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._idle = threading.Semaphore(0)  # one token per thread waiting for a job
        self._size = size
        self._started = 0
        self._lock = threading.Lock()

    def run(self, loop: asyncio.AbstractEventLoop, call: Callable[[], Any]) -> asyncio.Future[Any]:
        """Run ``call`` on a worker; the loop's future gets its result or its exception."""
        future: asyncio.Future[Any] = loop.create_future()
        self._put((loop, future, call))
        return future

    def submit(self, call: Callable[[], Any]) -> None:
        """Run ``call`` on a worker and forget it (it hands its outcome on itself)."""
        self._put((None, None, call))

    def _put(self, job: _Job) -> None:
        # A thread first, then the job: when no thread can start, nothing is left queued
        # for a later thread to run a second time.
        if not self._idle.acquire(blocking=False):
            self._start_thread()
        self._jobs.put(job)

    def _start_thread(self) -> None:
        with self._lock:
            if self._started >= self._size:
                return  # every thread is busy: the job waits for the first one free
            name = f"mymcp-dispatch-{self._started + 1}"
            threading.Thread(target=self._work, name=name, daemon=True).start()
            self._started += 1

    def _work(self) -> None:
        batch_scheduling()
        while True:
            loop, future, call = self._jobs.get()
            try:
                outcome: tuple[Any, BaseException | None] = (call(), None)
            except BaseException as error:  # noqa: BLE001 - handed to the waiting request
                outcome = (None, error)
            if loop is not None and future is not None:
                try:
                    loop.call_soon_threadsafe(_settle, future, outcome)
                except RuntimeError:  # the loop has closed: nobody waits for the answer
                    pass
            del loop, future, call, outcome
            self._idle.release()


def _settle(future: asyncio.Future[Any], outcome: tuple[Any, BaseException | None]) -> None:
    if future.cancelled():
        return
    result, error = outcome
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)


_known_pid: list[int] = []


def _pid() -> int:
    """This process's id, looked up once and again in a forked child (it is a system call)."""
    if not _known_pid:
        _known_pid.append(os.getpid())
        os.register_at_fork(after_in_child=_known_pid.clear)
    return _known_pid[0]


@functools.lru_cache(maxsize=1)
def _dispatch_pool(pid: int) -> _Workers | Executor:
    """The worker threads of this process (a forked child makes its own), started on demand."""
    return _Workers(DISPATCH_WORKERS)


def workers() -> _Workers | Executor:
    """This process's worker pool."""
    return _dispatch_pool(_pid())
