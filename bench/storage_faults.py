"""Five storage faults against a running ``mymcp serve``; prints what clients and the log saw.

Run as root (it mounts a tmpfs and attaches strace): ``.venv/bin/python bench/storage_faults.py``
(``--rounds N`` repeats the calls of each fault N times; 2 by default).

The server runs with every gate on and its memory root on a small tmpfs. Before each fault a
few records are made (active and archived ones); then, while the fault lasts, one round of
calls is remember (into an existing and into a new namespace), revise, archive, restore,
forget, recall, list and inspect. The faults:

- ``full``: the tmpfs filled to the last byte;
- ``no inodes``: the tmpfs out of inodes;
- ``read-only``: the tmpfs remounted read-only;
- ``fsync EIO``: strace attached to the server makes every ``fsync`` fail with EIO;
- ``link/rename EIO``: the same for every ``link``, ``linkat``, ``rename``, ``renameat`` and
  ``renameat2``.

Once the tmpfs is full, out of inodes or read-only, before the calls, ``mymcp doctor`` runs
with the same settings; its ``warn`` and ``fail`` lines are printed below the table. After
each fault is cleared one more remember must succeed. The table then says, per fault: the
answers, HTTP 5xx, error answers (``storage_error`` and ``uncertain``), acknowledged writes
the disk no longer shows, record files changed and folders made by a call that answered
``storage_error``, record files that do not parse or that memory_list does not list, temp
files left, whether the write after the fault worked, and the causes named by the error log
lines (with the number of such lines that named none). An ``uncertain`` answer may or may not
have changed the file, as its message says; the client then inspects, and so does this
script. The exit status is 0 when every figure is clean, 1 otherwise, 2 when it cannot run.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from tests.processes import (  # noqa: E402
    child_environment,
    free_port,
    mymcp_command,
    run_mymcp,
    stop,
    wait_until_healthy,
)
from tests.surface import GATES_ON  # noqa: E402
from tests.tmpfs import fill_bytes, fill_inodes, remount  # noqa: E402

ERROR_LINE = re.compile(r"event=(memory_\w+) outcome=(storage_error|uncertain|retrieval_error) ")
CAUSE = re.compile(r" cause=(\w+)(?: errno=(\w+))?")
TEMP = re.compile(r"\.mem_[0-9a-f]{32}\.[a-z0-9]{8}\.tmp")
LINK_CALLS = "link,linkat,rename,renameat,renameat2"
DOCTORED = ("full", "no inodes", "read-only")  # the faults mymcp doctor can see


# --- the server and its client ----------------------------------------------------------------


@dataclass
class Server:
    """``mymcp serve`` with every gate on; its standard error goes to ``log``."""

    root: Path
    home: Path
    log: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Server:
        env = child_environment(self.home, self.root, GATES_ON)
        command = mymcp_command("serve", "--port", str(self.port))
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(command, cwd=REPO_ROOT, env=env, stderr=log)
        wait_until_healthy(self.process, self.port, log=self.log, timeout=30)
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.process is not None:
            stop(self.process, timeout=15, sig=signal.SIGINT)


@dataclass
class Answer:
    http_status: int
    payload: dict[str, Any]

    @property
    def status(self) -> str:
        return str(self.payload.get("status"))


class Client:
    """Tool calls over HTTP; each answer keeps its HTTP status, even a 5xx."""

    def __init__(self, port: int) -> None:
        self._connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.answers: list[Answer] = []

    def call(self, tool: str, arguments: dict[str, Any]) -> Answer:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
        body["params"] = {"name": tool, "arguments": arguments}  # type: ignore[assignment]
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        self._connection.request("POST", "/mcp", json.dumps(body).encode(), headers)
        response = self._connection.getresponse()
        raw = response.read()
        payload: dict[str, Any] = {}
        if response.status == 200:
            result = json.loads(raw).get("result", {})
            payload = json.loads(result["content"][0]["text"]) if "content" in result else {}
        answer = Answer(response.status, payload)
        self.answers.append(answer)
        return answer


# --- what the client was told, and what the disk holds ----------------------------------------


@dataclass
class Known:
    """The state of one memory as the last acknowledged answer left it (None: forgotten)."""

    reference: dict[str, Any]
    state: str | None
    revision: int
    content: str


def _reference_path(root: Path, reference: dict[str, Any]) -> Path:
    parts = [reference["scope"], reference["namespace_id"]]
    if reference["collection_id"] is not None:
        parts.append(reference["collection_id"])
    return root.joinpath(*parts, reference["id"] + ".json")


def _record_files(root: Path) -> dict[str, str]:
    """Every ``.json`` file below the root and the SHA-256 of its bytes."""
    found: dict[str, str] = {}
    for path in root.rglob("*.json"):
        with contextlib.suppress(OSError):
            found[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def _folders(root: Path) -> set[str]:
    return {str(path.relative_to(root)) for path in root.rglob("*") if path.is_dir()}


def _lost(root: Path, known: list[Known]) -> int:
    lost = 0
    for memory in known:
        path = _reference_path(root, memory.reference)
        if memory.state is None:
            lost += path.exists()
            continue
        try:
            data = json.loads(path.read_bytes())
        except (OSError, ValueError):
            lost += 1
            continue
        on_disk = (data["lifecycle"]["state"], data["lifecycle"]["revision"], data["content"])
        lost += on_disk != (memory.state, memory.revision, memory.content)
    return lost


def _listed_ids(client: Client, scope: str) -> set[str]:
    ids: set[str] = set()
    arguments: dict[str, Any] = {"scope": scope}
    while True:
        answer = client.call("memory_list", arguments)
        ids |= {entry["reference"]["id"] for entry in answer.payload.get("memories", [])}
        cursor = answer.payload.get("page", {}).get("next_cursor")
        if not cursor:
            return ids
        arguments = {"scope": scope, "cursor": cursor}


def _bad_files(root: Path, client: Client) -> int:
    """Record files that do not parse as JSON, or that memory_list does not return."""
    bad = 0
    listed: dict[str, set[str]] = {}
    for name in _record_files(root):
        scope = name.split("/")[0]
        if scope not in listed:
            listed[scope] = _listed_ids(client, scope)
        try:
            data = json.loads((root / name).read_bytes())
        except ValueError:
            bad += 1
            continue
        bad += data.get("id") not in listed[scope]
    return bad


def _temps(root: Path) -> int:
    return sum(1 for path in root.rglob("*") if TEMP.fullmatch(path.name))


# --- one round of calls while a fault lasts ---------------------------------------------------


@dataclass
class Round:
    """The calls made during one fault and what they showed."""

    root: Path
    client: Client
    known: list[Known]
    changed_after_error: int = 0
    folders_after_error: int = 0
    uncertain: int = 0
    counter: int = 0

    def unique(self) -> str:
        self.counter += 1
        return f"note {self.counter} {time.time_ns()}"

    def remember(self, namespace: str, *, acknowledged: bool = True) -> Answer:
        content = self.unique()
        arguments = {
            "scope": "project",
            "namespace": {"kind": "project", "id": namespace, "label": None},
            "collection": {"id": "notes", "label": None},
            "kind": "decision",
            "language": "en",
            "title": "Fault run",
            "content": content,
            "tags": [],
            "origin": "explicit_user_statement",
        }
        answer = self._change("memory_remember", arguments, None)
        if answer.status == "remembered" and acknowledged:
            self.known.append(Known(answer.payload["reference"], "active", 1, content))
        return answer

    def change(self, tool: str, wanted: str | None) -> None:
        """Call ``tool`` on the first known memory in state ``wanted`` (if there is one)."""
        memory = next((m for m in self.known if m.state == wanted), None)
        if memory is None:
            return
        arguments: dict[str, Any] = {
            "reference": memory.reference,
            "expected_revision": memory.revision,
        }
        content = memory.content
        if tool == "memory_revise":
            content = self.unique()
            arguments.update(namespace_label=None, collection_label=None, title="Fault run")
            arguments.update(content=content, tags=[])
        answer = self._change(tool, arguments, memory)
        if answer.payload.get("status") in ("revised", "archived", "restored"):
            lifecycle = answer.payload["lifecycle"]
            memory.state, memory.revision = lifecycle["state"], lifecycle["revision"]
            memory.content = content
        elif answer.status == "forgotten":
            memory.state = None

    def _change(self, tool: str, arguments: dict[str, Any], memory: Known | None) -> Answer:
        before, folders = _record_files(self.root), _folders(self.root)
        answer = self.client.call(tool, arguments)
        if answer.status == "storage_error":
            self.changed_after_error += _record_files(self.root) != before
            self.folders_after_error += len(_folders(self.root) - folders)
        if answer.status == "uncertain" and memory is not None:
            self.uncertain += 1
            self._inspect_after_uncertain(memory)
        return answer

    def _inspect_after_uncertain(self, memory: Known) -> None:
        answer = self.client.call("memory_inspect", {"reference": memory.reference})
        if answer.status == "not_found":
            memory.state = None
        elif answer.status == "ok":
            lifecycle = answer.payload["memory"]["lifecycle"]
            memory.state, memory.revision = lifecycle["state"], lifecycle["revision"]
            memory.content = answer.payload["memory"]["content"]

    def run(self, rounds: int) -> None:
        for _ in range(rounds):
            self.remember("fault-run")
            self.remember(f"new-{self.counter}")
            self.change("memory_revise", "active")
            self.change("memory_archive", "active")
            self.change("memory_restore", "archived")
            self.change("memory_forget", "archived")
            self.client.call("memory_recall", {"query": "fault run", "scope": "project"})
            self.client.call("memory_list", {"scope": "project"})
            if self.known:
                self.client.call("memory_inspect", {"reference": self.known[-1].reference})


# --- the faults -------------------------------------------------------------------------------


@contextlib.contextmanager
def _undo(action: Callable[[], None]) -> Iterator[None]:
    try:
        yield
    finally:
        action()


@contextlib.contextmanager
def full(mounted: Path, pid: int) -> Iterator[None]:
    filler = fill_bytes(mounted)
    with _undo(filler.unlink):
        yield


@contextlib.contextmanager
def no_inodes(mounted: Path, pid: int) -> Iterator[None]:
    folder = fill_inodes(mounted)
    with _undo(lambda: shutil.rmtree(folder)):
        yield


@contextlib.contextmanager
def read_only(mounted: Path, pid: int) -> Iterator[None]:
    remount(mounted, "ro")
    with _undo(lambda: remount(mounted, "rw")):
        yield


def _strace(calls: str) -> Callable[[Path, int], contextlib.AbstractContextManager[None]]:
    @contextlib.contextmanager
    def injected(mounted: Path, pid: int) -> Iterator[None]:
        command = ["strace", "-f", "-o", "/dev/null", "-e", f"trace={calls}"]
        command += ["-e", f"inject={calls}:error=EIO", "-p", str(pid)]
        tracer = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
        assert tracer.stderr is not None
        if "attached" not in tracer.stderr.readline():
            tracer.kill()
            raise RuntimeError("strace could not attach to the server")
        time.sleep(0.5)  # every thread of the server attached

        def detach() -> None:
            tracer.terminate()
            tracer.wait(timeout=15)

        with _undo(detach):
            yield

    return injected


FAULTS: list[tuple[str, Callable[[Path, int], contextlib.AbstractContextManager[None]]]] = [
    ("full", full),
    ("no inodes", no_inodes),
    ("read-only", read_only),
    ("fsync EIO", _strace("fsync")),
    ("link/rename EIO", _strace(LINK_CALLS)),
]


# --- the run ----------------------------------------------------------------------------------


@dataclass
class Row:
    fault: str
    answers: int
    http_5xx: int
    errors: int
    uncertain: int
    lost: int
    changed_after_error: int
    folders_after_error: int
    bad_files: int
    temps: int
    recovered: bool
    causes: str
    unnamed: int


def _seed(state: Round) -> None:
    """Two more active and two more archived memories for the fault's calls to work on."""
    for _ in range(4):
        state.remember("fault-run")
    for _ in range(2):
        state.change("memory_archive", "active")


def _log_causes(log: Path, start: int) -> tuple[str, int]:
    names: dict[str, int] = {}
    unnamed = 0
    text = log.read_bytes()[start:].decode("utf-8", "replace")
    for line in text.splitlines():
        if not ERROR_LINE.search(line):
            continue
        found = CAUSE.search(line)
        if found is None:
            unnamed += 1
            continue
        name = found.group(1) + (f"/{found.group(2)}" if found.group(2) else "")
        names[name] = names.get(name, 0) + 1
    return ", ".join(f"{name} x{count}" for name, count in sorted(names.items())) or "-", unnamed


def _doctor(server: Server) -> list[str]:
    """The ``warn`` and ``fail`` lines of ``mymcp doctor`` with the server's settings."""
    env = child_environment(server.home, server.root, GATES_ON)
    done = run_mymcp(["doctor", "--port", str(server.port)], env, timeout=60)
    return [line for line in done.stdout.splitlines() if line.startswith(("warn", "fail"))]


def _one_fault(
    name: str, fault: Any, server: Server, mounted: Path, rounds: int
) -> tuple[Row, list[str]]:
    assert server.process is not None
    client = Client(server.port)
    state = Round(server.root, client, [])
    _seed(state)
    first = len(client.answers)
    log_start = server.log.stat().st_size
    with fault(mounted, server.process.pid):
        doctor = _doctor(server) if name in DOCTORED else []
        state.run(rounds)
        during = client.answers[first:]
    time.sleep(0.2)  # the log thread writes within about 20 ms
    causes, unnamed = _log_causes(server.log, log_start)
    recovered = state.remember("after", acknowledged=True).status == "remembered"
    row = Row(
        fault=name,
        answers=len(during),
        http_5xx=sum(answer.http_status >= 500 for answer in client.answers),
        errors=sum(answer.status in ("storage_error", "retrieval_error") for answer in during),
        uncertain=state.uncertain,
        lost=_lost(server.root, state.known),
        changed_after_error=state.changed_after_error,
        folders_after_error=state.folders_after_error,
        bad_files=_bad_files(server.root, client),
        temps=_temps(server.root),
        recovered=recovered,
        causes=causes,
        unnamed=unnamed,
    )
    return row, doctor


HEADER = (
    "fault", "answers", "5xx", "storage_error", "uncertain", "lost acked",
    "records changed after error", "new folders after error", "bad/unlisted files",
    "temps left", "write after", "causes in error log lines",
)  # fmt: skip


def _print(rows: list[Row]) -> None:
    table = [HEADER] + [
        (
            row.fault, str(row.answers), str(row.http_5xx), str(row.errors), str(row.uncertain),
            str(row.lost), str(row.changed_after_error), str(row.folders_after_error),
            str(row.bad_files), str(row.temps),
            "ok" if row.recovered else "FAILED",
            row.causes + (f"; {row.unnamed} without a cause" if row.unnamed else ""),
        )
        for row in rows
    ]  # fmt: skip
    widths = [max(len(line[column]) for line in table) for column in range(len(HEADER))]
    for line in table:
        print("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)))


def _usable() -> str | None:
    if os.geteuid() != 0:
        return "run it as root: it mounts a tmpfs and attaches strace to the server"
    for tool in ("mount", "umount", "strace"):
        if shutil.which(tool) is None:
            return f"{tool} is missing (apt-get install strace util-linux)"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="rounds of calls per fault")
    args = parser.parse_args(argv)
    problem = _usable()
    if problem is not None:
        print(f"storage_faults: {problem}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="mymcp-faults-") as scratch:
        base = Path(scratch)
        mounted, home = base / "fs", base / "home"
        mounted.mkdir()
        home.mkdir()
        options = "size=4m,nr_inodes=2000,mode=0700"
        command = ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(mounted)]
        mounting = subprocess.run(command, capture_output=True, text=True, check=False)
        if mounting.returncode != 0:
            print(
                f"storage_faults: mount is not allowed: {mounting.stderr.strip()}", file=sys.stderr
            )
            return 2
        try:
            with Server(mounted / "memory", home, base / "server.log") as server:
                results = [
                    _one_fault(name, fault, server, mounted, args.rounds) for name, fault in FAULTS
                ]
        finally:
            if subprocess.run(["umount", str(mounted)], check=False).returncode != 0:
                subprocess.run(["umount", "-l", str(mounted)], check=False)
    rows = [row for row, _ in results]
    _print(rows)
    for row, doctor in results:
        if row.fault in DOCTORED:
            print(f"\nmymcp doctor while {row.fault}:")
            print("\n".join(f"  {line}" for line in doctor) or "  (no warn or fail line)")
    return 0 if all(_passed(row) for row in rows) else 1


def _passed(row: Row) -> bool:
    clean = row.http_5xx == row.lost == row.changed_after_error == row.bad_files == row.temps == 0
    return clean and row.recovered and row.unnamed == 0


if __name__ == "__main__":
    sys.exit(main())
