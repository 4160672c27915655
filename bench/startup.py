"""Section: how soon ``mymcp stdio`` answers, beside a bare start of the same interpreter.

Each round starts, one after the other so that all of them see the same background load:

- ``bare``: ``python -c pass``, until it exits;
- ``first answer``: ``python -m mymcp stdio`` with every gate on over an empty memory root,
  from the spawn until the answer to ``initialize`` is read;
- ``first Tool answer``: a new server; as soon as ``initialize`` is answered, the client
  sends ``notifications/initialized`` and a ``memory_remember`` call (the Tool that needs
  the most: the store and the content policy), timed from the spawn until that answer;
- ``Tool answer, warm``: the same call in the same process once the first one was answered
  and 0.3 s have passed, for scale.

The table shows the medians over the rounds and the first answer as a multiple of the bare
start (the goal is at most 4x). ``--against PATH`` adds another checkout of MyMCP (say, a
``git worktree`` of main), measured in the same rounds with the same interpreter, for a
before/after comparison. Run it with ``python bench/run.py --only startup`` or
``python bench/startup.py [--rounds N] [--against PATH]``.
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

ROUNDS = 21
WARM_PAUSE_SECONDS = 0.3
GATES = (
    "MNEMOSYNE_MEMORY_REMEMBER_ENABLED",
    "MNEMOSYNE_MEMORY_ARCHIVE_RESTORE_ENABLED",
    "MNEMOSYNE_MEMORY_FORGET_ENABLED",
    "MNEMOSYNE_MEMORY_REVISE_ENABLED",
)
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


def _environment(checkout: Path, home: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("MNEMOSYNE_")}
    env.update({gate: "true" for gate in GATES})
    env.update(HOME=str(home), MNEMOSYNE_MEMORY_ROOT=str(home / "memory"))
    env["PYTHONPATH"] = str(checkout)
    return env


def _bare() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - started


def _answer(stdout: IO[bytes], request_id: int) -> None:
    while True:
        line = stdout.readline()
        if not line:
            raise RuntimeError("the server closed its output")
        if json.loads(line).get("id") == request_id:
            return


def _session(checkout: Path) -> tuple[float, float, float]:
    """One server: seconds to the first answer, to the first Tool answer, one warm call."""
    with tempfile.TemporaryDirectory(prefix="mymcp-bench-startup-") as directory:
        started = time.perf_counter()
        server = subprocess.Popen(
            [sys.executable, "-m", "mymcp", "stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=_environment(checkout, Path(directory)),
        )
        assert server.stdin is not None and server.stdout is not None
        try:
            server.stdin.write(_line(INITIALIZE))
            server.stdin.flush()
            _answer(server.stdout, 1)
            first = time.perf_counter() - started
            server.stdin.write(_line(INITIALIZED) + _remember(2))
            server.stdin.flush()
            _answer(server.stdout, 2)
            first_tool = time.perf_counter() - started
            time.sleep(WARM_PAUSE_SECONDS)
            warm_started = time.perf_counter()
            server.stdin.write(_remember(3))
            server.stdin.flush()
            _answer(server.stdout, 3)
            warm = time.perf_counter() - warm_started
        finally:
            server.stdin.close()
            server.wait(timeout=30)
    return first, first_tool, warm


def measure(checkouts: Sequence[Path], rounds: int = ROUNDS) -> None:
    """Print the medians of ``rounds`` interleaved rounds over each checkout."""
    bare: list[float] = []
    figures: dict[Path, list[tuple[float, float, float]]] = {path: [] for path in checkouts}
    for _ in range(rounds):
        bare.append(_bare())
        for path in checkouts:
            figures[path].append(_session(path))
    bare_median = statistics.median(bare)
    rows: list[list[object]] = [["python -c pass", ms(bare_median * 1000), "1.00x", "", ""]]
    for path in checkouts:
        columns = zip(*figures[path], strict=True)
        first, first_tool, warm = (statistics.median(column) for column in columns)
        label = "this checkout" if path == REPO_ROOT else str(path)
        rows.append(
            [
                label,
                ms(first * 1000),
                f"{first / bare_median:.2f}x",
                ms(first_tool * 1000),
                ms(warm * 1000),
            ]
        )
    print_table(
        f"startup: mymcp stdio, every gate on, {sys.executable}, median of {rounds} rounds (ms)",
        ["start", "first answer", "vs bare", "first Tool answer", "Tool answer, warm"],
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
