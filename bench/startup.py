"""Section: how soon ``mymcp stdio`` answers, beside a bare start of the same interpreter.

Each round, one checkout after the other so that all of them see the same background load:

- ``python -c pass``: the bare interpreter, until it exits;
- ``first answer``: ``python -m mymcp stdio`` with every gate on over an empty memory root,
  from the spawn until the answer to ``initialize`` is read, and ``vs bare`` that time as a
  multiple of the bare start (the goal is at most 4x);
- ``first Tool answer``: as soon as ``initialize`` is answered, the client sends
  ``notifications/initialized`` and a ``memory_remember`` call (the Tool that needs the most:
  the store and the content policy); from the spawn until that answer;
- ``first Tool call, 0.3 s later``: a second server; the first ``memory_remember``, sent
  0.3 s after ``initialize`` (as a client that lists the Tools and asks its model first
  does), from sending to answer;
- ``Tool call, warm``: the same call once more in that process, for scale.

One untimed round comes first, and no process is told not to write its bytecode cache
(``PYTHONDONTWRITEBYTECODE`` is not passed on), so every round starts from compiled modules,
as an installed server does. The table shows medians. ``--against PATH`` adds another
checkout of MyMCP (say, a ``git worktree`` of main) to the same rounds, with the same
interpreter, for a before/after comparison. Run it with ``python bench/run.py --only
startup`` or ``python bench/startup.py [--rounds N] [--against PATH]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from common import HANDSHAKE_REVISION, REPO_ROOT, ms, print_table

from tests.processes import child_environment
from tests.surface import GATES_ON

ROUNDS = 21
PAUSE_SECONDS = 0.3
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": HANDSHAKE_REVISION,
        "capabilities": {},
        "clientInfo": {"name": "bench-startup", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
REMEMBER = {
    "scope": "preference",
    "namespace": {"kind": "domain", "id": "coffee", "label": None},
    "collection": None,
    "kind": "preference",
    "language": "en",
    "title": None,
    "content": "Prefers pour-over coffee.",
    "tags": [],
    "origin": "explicit_user_statement",
}


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def _remember(request_id: int) -> bytes:
    params = {"name": "memory_remember", "arguments": REMEMBER}
    return _line({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})


def _base_environment() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def _environment(checkout: Path, home: Path) -> dict[str, str]:
    """Every gate on, and ``checkout`` alone on PYTHONPATH: it is the one measured."""
    base = _base_environment()
    env = child_environment(home, home / "memory", GATES_ON, base=base)
    env["PYTHONPATH"] = str(checkout)
    return env


def _bare() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True, env=_base_environment())
    return time.perf_counter() - started


def _answer(stdout: IO[bytes], request_id: int) -> None:
    while True:
        line = stdout.readline()
        if not line:
            raise RuntimeError("the server closed its output")
        if json.loads(line).get("id") == request_id:
            return


class _Server:
    """``mymcp stdio`` of one checkout over a fresh temporary home, started at once."""

    def __init__(self, checkout: Path, directory: str) -> None:
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mymcp", "stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=_environment(checkout, Path(directory)),
            cwd=directory,  # with -m the working folder comes first on sys.path
        )

    def exchange(self, data: bytes, request_id: int) -> float:
        """Send ``data``; the seconds until the answer to ``request_id`` is read."""
        assert self.process.stdin is not None and self.process.stdout is not None
        sent = time.perf_counter()
        self.process.stdin.write(data)
        self.process.stdin.flush()
        _answer(self.process.stdout, request_id)
        return time.perf_counter() - sent

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


# One round's figures of one checkout, in seconds, in the order of COLUMNS.
Figures = tuple[float, float, float, float]
COLUMNS = [
    "first answer",
    "vs bare",
    "first Tool answer",
    "first Tool call, 0.3 s later",
    "Tool call, warm",
]


def _round(checkout: Path) -> Figures:
    """Two servers: the first answers and a Tool call sent at once; a Tool call sent later."""
    with tempfile.TemporaryDirectory(prefix="mymcp-bench-startup-") as directory:
        server = _Server(checkout, directory)
        try:
            server.exchange(_line(INITIALIZE), 1)
            first = time.perf_counter() - server.started
            server.exchange(_line(INITIALIZED) + _remember(2), 2)
            first_tool = time.perf_counter() - server.started
        finally:
            server.close()
    with tempfile.TemporaryDirectory(prefix="mymcp-bench-startup-") as directory:
        server = _Server(checkout, directory)
        try:
            server.exchange(_line(INITIALIZE) + _line(INITIALIZED), 1)
            time.sleep(PAUSE_SECONDS)
            later = server.exchange(_remember(2), 2)
            time.sleep(PAUSE_SECONDS)
            warm = server.exchange(_remember(3), 3)
        finally:
            server.close()
    return first, first_tool, later, warm


def measure(checkouts: Sequence[Path], rounds: int = ROUNDS) -> None:
    """Print the medians of ``rounds`` interleaved rounds over each checkout."""
    bare: list[float] = []
    figures: dict[Path, list[Figures]] = {path: [] for path in checkouts}
    _bare()
    for path in checkouts:
        _round(path)  # writes the bytecode caches
    for _ in range(rounds):
        bare.append(_bare())
        for path in checkouts:
            figures[path].append(_round(path))
    bare_median = statistics.median(bare)
    rows: list[list[object]] = [["python -c pass", ms(bare_median * 1000), "1.00x", "", "", ""]]
    for path in checkouts:
        first, first_tool, later, warm = (
            statistics.median(column) for column in zip(*figures[path], strict=True)
        )
        label = "this checkout" if path == REPO_ROOT else str(path)
        times = [ms(value * 1000) for value in (first_tool, later, warm)]
        rows.append([label, ms(first * 1000), f"{first / bare_median:.2f}x", *times])
    print_table(
        f"startup: mymcp stdio, every gate on, {sys.executable}, median of {rounds} rounds (ms)",
        ["start", *COLUMNS],
        rows,
    )


def run(sizes: Sequence[int]) -> None:
    """The bench/run.py section (the sizes do not apply)."""
    measure([REPO_ROOT])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--against", type=Path, action="append", default=[])
    args = parser.parse_args(argv)
    measure([REPO_ROOT, *(path.resolve() for path in args.against)], args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
