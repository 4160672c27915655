"""How the server's helper threads are scheduled: behind the thread that reads requests.

The event loop (or the stdio reader) holds the interpreter lock while it works. A helper
thread that is woken then (a Tool call handed to a worker, a batch of log lines) and
preempts it can do nothing but wait for the lock, and costs two context switches for
nothing; on a machine with few cores that is a large part of a small request. Linux's
``SCHED_BATCH`` policy keeps a woken thread from preempting a running one: the helper runs
when the loop waits for input, which is when the lock is free. It changes nothing else
(the thread keeps its share of the CPU and its priority), needs no privilege, and where it
does not exist nothing happens.
"""

from __future__ import annotations

import os


def batch_scheduling() -> None:
    """Give the calling thread the batch policy, where the system has one."""
    policy = getattr(os, "SCHED_BATCH", None)
    if policy is None or not hasattr(os, "sched_setscheduler"):
        return
    try:
        os.sched_setscheduler(0, policy, os.sched_param(0))
    except OSError:  # not allowed here (a sandbox): the default policy is as good
        return
