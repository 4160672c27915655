"""What every transport does, and the pool of worker threads they are handed.

A transport only moves bytes. It reads one message (an HTTP body, a stdio line), decodes it
with ``session.decoded`` and hands it to its :class:`~mymcp.mcp.session.Session` with what
it knows of the request (the metadata headers over HTTP, nothing over stdio). The session
answers with an ``Answer`` (bytes and HTTP status) or, for a Tool call, a
:class:`~mymcp.mcp.session.Work` whose ``run`` gives the answer: the transport runs that on
its :class:`Workers` and writes the bytes.

:class:`Workers` holds at most :data:`DISPATCH_WORKERS` threads, started on demand and
reused; :func:`shared_workers` is the one set of a process (a forked child makes its own),
which both transports use unless they are handed another. Over HTTP a job carries the event
loop's future for it, which the thread settles with ``call_soon_threadsafe``: half the cost
of ``run_in_executor``, which passes every call through a second future and its lock. The
threads are daemon threads: each transport waits for the calls it started before it lets
the process end.

The worker threads run on Linux's ``SCHED_BATCH`` policy. The event loop (or the stdio
reader) holds the interpreter lock while it works; a worker woken then that preempts it can
do nothing but wait for the lock, at the cost of two context switches, a large part of a
small request on a machine with few cores. The batch policy keeps a woken thread from
preempting a running one, so the worker runs when the loop waits for input, which is when
the lock is free. It changes nothing else (the thread keeps its share of the CPU and its
priority), needs no privilege, and where it does not exist nothing happens.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

# Tool calls run at once; more wait for a free worker. The same bound as Starlette's own
# thread pool, so a few slow Tool calls never hold up a ping or another call.
DISPATCH_WORKERS = 40

_Job = tuple["asyncio.AbstractEventLoop | None", "asyncio.Future[Any] | None", Callable[[], Any]]


class Workers:
    """The threads that run Tool calls: at most ``size``, started on demand and reused.

    When no thread is running and none can start (a size of 0, or the system refuses a
    thread), a call runs on the caller's thread.
    """

    def __init__(self, size: int = DISPATCH_WORKERS) -> None:
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
        # A thread first, then the job: a job is never left queued where no thread runs.
        if self._idle.acquire(blocking=False) or self._thread_started():
            self._jobs.put(job)
        else:
            _do(job)

    def _thread_started(self) -> bool:
        """Whether a thread will take the next job (started now, or busy and then free)."""
        with self._lock:
            if self._started < self._size:
                name = f"mymcp-dispatch-{self._started + 1}"
                try:
                    threading.Thread(target=self._work, name=name, daemon=True).start()
                    self._started += 1
                except RuntimeError:  # no thread can start now
                    pass
            return self._started > 0

    def _work(self) -> None:
        batch_scheduling()
        while True:
            _do(self._jobs.get())
            self._idle.release()


def _do(job: _Job) -> None:
    loop, future, call = job
    try:
        outcome: tuple[Any, BaseException | None] = (call(), None)
    except BaseException as error:  # noqa: BLE001 - handed to the waiting request
        outcome = (None, error)
    if loop is not None and future is not None:
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits for the answer
            loop.call_soon_threadsafe(_settle, future, outcome)


def _settle(future: asyncio.Future[Any], outcome: tuple[Any, BaseException | None]) -> None:
    if future.cancelled():
        return
    result, error = outcome
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)


def batch_scheduling() -> None:
    """Put the calling thread on the batch scheduling policy, where the system has one."""
    if hasattr(os, "SCHED_BATCH") and hasattr(os, "sched_setscheduler"):
        with contextlib.suppress(OSError):  # not allowed here (a sandbox): as good
            os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))


_shared: list[Workers] = []


def shared_workers() -> Workers:
    """This process's workers, made on first use (and again in a forked child)."""
    if not _shared:
        _shared.append(Workers())
        os.register_at_fork(after_in_child=_shared.clear)
    return _shared[0]
