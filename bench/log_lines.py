"""Section: what writing the log lines costs a request, and how long a line waits.

Every request a production server answers makes log lines at INFO (``request`` and
``response``, and a Tool's own event), written to standard error by a thread of their own
(``mymcp/startup.py``). Here each server's standard error is a pipe this process drains, as a
client that starts the server reads it, so every line is really written. Two servers run side
by side, pinned to CPU 0, and the load generator (4 keep-alive connections, one request in
flight on each) runs pinned to CPU 1: ``ping`` (two lines a request) and ``tools/call`` of
``list_tools`` (two lines, and the Tool call's hand-off to a worker thread). In each of 8
rounds every server and request kind is driven for 0.4 s, so all of them see the same
background load. The table shows throughput, p50 and p99 latency, the server's CPU time per
request (user and system, from ``/proc``: the steadiest figure on a shared machine) and the
bytes of log written per request.

``--against PATH`` serves another checkout of MyMCP (say, a ``git worktree`` of main) in the
same rounds, with the same interpreter: the way to compare two ways of writing the lines. Run
it with ``python bench/run.py --only log_lines`` or ``python bench/log_lines.py [--against
PATH]``.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Sequence
from pathlib import Path

from common import HANDSHAKE_REVISION, Server, print_table, temporary_root
from load import Load, LoadResult, run_load
from protocol import CONNECTIONS, SERVER_CPU, _client_cpu, _merged, _request

ROUNDS = 8
SECONDS = 0.4
WARMUP_SECONDS = 0.3
SCENARIOS: tuple[tuple[str, Load], ...] = (
    ("ping", _request("ping", modern=False)),
    ("tools/call list_tools", _request("tools/call", modern=False, tool="list_tools")),
)
HEADER = ("checkout", "request", "req/s", "p50 ms", "p99 ms", "server CPU us/req", "log B/req")


def _rows(checkouts: Sequence[tuple[str, Path | None]]) -> list[tuple[object, ...]]:
    with temporary_root() as root, contextlib.ExitStack() as stack:
        servers = [
            (name, stack.enter_context(Server(root, cpus=SERVER_CPU, checkout=at, log_pipe=True)))
            for name, at in checkouts
        ]
        stack.enter_context(_client_cpu())
        targets = [
            (name, server, label, load) for name, server in servers for label, load in SCENARIOS
        ]
        for _, server, _, load in targets:
            run_load(server.port, load, connections=CONNECTIONS, seconds=WARMUP_SECONDS)
        results: list[list[LoadResult]] = [[] for _ in targets]
        cpu = [0.0 for _ in targets]
        logged = [0 for _ in targets]
        for _ in range(ROUNDS):
            for index, (_, server, _, load) in enumerate(targets):
                before, bytes_before = server.cpu_seconds(), server.log_bytes
                results[index].append(
                    run_load(server.port, load, connections=CONNECTIONS, seconds=SECONDS)
                )
                cpu[index] += server.cpu_seconds() - before
                logged[index] += server.log_bytes - bytes_before
    rows: list[tuple[object, ...]] = []
    for index, (name, _, label, _) in enumerate(targets):
        merged = _merged(results[index])
        rows.append(
            (
                name,
                label,
                f"{merged.throughput:,.0f}",
                f"{merged.p50:.3f}",
                f"{merged.p99:.3f}",
                f"{cpu[index] / merged.requests * 1e6:.0f}",
                f"{logged[index] / merged.requests:.0f}",
            )
        )
    return rows


def run(sizes: Sequence[int], against: Path | None = None) -> None:
    """Print the table (the sizes do not apply)."""
    checkouts: list[tuple[str, Path | None]] = [("this", None)]
    if against is not None:
        checkouts.append((against.name, against))
    title = (
        f"log lines over HTTP ({HANDSHAKE_REVISION}), standard error to a pipe, "
        f"{CONNECTIONS} keep-alive connections"
    )
    print_table(title, HEADER, _rows(checkouts))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, help="another checkout of MyMCP to compare")
    options = parser.parse_args(argv)
    run([], options.against)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
