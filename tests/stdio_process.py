"""``mymcp stdio`` as a real child process, and a line-by-line peer to talk to it."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

REPO_ROOT = Path(__file__).resolve().parents[1]
GATES_ON = {
    "MNEMOSYNE_MEMORY_REMEMBER_ENABLED": "true",
    "MNEMOSYNE_MEMORY_ARCHIVE_RESTORE_ENABLED": "true",
    "MNEMOSYNE_MEMORY_FORGET_ENABLED": "true",
    "MNEMOSYNE_MEMORY_REVISE_ENABLED": "true",
}
# Variables of the outer environment that must not reach the server under test.
_SCRUBBED = (*GATES_ON, "MNEMOSYNE_MEMORY_ROOT", "MYMCP_ALLOWED_HOSTS", "MYMCP_ALLOWED_ORIGINS")


def mymcp_command(*arguments: str) -> list[str]:
    """The installed ``mymcp`` command next to this interpreter, else ``python -m mymcp``."""
    script = Path(sys.executable).with_name("mymcp")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script), *arguments]
    return [sys.executable, "-m", "mymcp", *arguments]


def child_environment(
    home: Path, memory_root: Path, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The outer environment without MyMCP's variables, plus a temporary home and root."""
    env = {key: value for key, value in os.environ.items() if key not in _SCRUBBED}
    env.update(HOME=str(home), MNEMOSYNE_MEMORY_ROOT=str(memory_root), PYTHONUNBUFFERED="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env.update(extra or {})
    return env


class StdioPeer:
    """Writes lines to a ``mymcp stdio`` child and collects every line it writes back.

    Standard error goes to a file, so the child can log freely without filling a pipe.
    """

    def __init__(self, command: list[str], env: Mapping[str, str], log_path: Path) -> None:
        self.log_path = log_path
        with log_path.open("wb") as log:
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                env=dict(env),
                cwd=REPO_ROOT,
            )
        self.raw_lines: list[bytes] = []
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        stdout: IO[bytes] = self.process.stdout  # type: ignore[assignment]
        for line in stdout:
            self.raw_lines.append(line)
            self._lines.put(line)
        self._lines.put(None)

    def write(self, data: bytes) -> None:
        stdin: IO[bytes] = self.process.stdin  # type: ignore[assignment]
        stdin.write(data)
        stdin.flush()

    def send(self, *messages: Any) -> None:
        """Write each message as one compact JSON line, all in one write."""
        self.write(b"".join(json.dumps(message).encode() + b"\n" for message in messages))

    def receive(self, timeout: float = 10.0) -> dict[str, Any]:
        line = self._lines.get(timeout=timeout)
        assert line is not None, f"stdout closed:\n{self.log()}"
        message: dict[str, Any] = json.loads(line)
        return message

    def raw_line(self, timeout: float = 10.0) -> bytes:
        """The next line written, exactly as written (with its line ending)."""
        line = self._lines.get(timeout=timeout)
        assert line is not None, f"stdout closed:\n{self.log()}"
        return line

    def request(self, method: str, params: Any = None, request_id: Any = 1) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        answer = self.receive()
        assert answer["id"] == request_id, answer
        return answer

    def close_input(self) -> None:
        stdin: IO[bytes] = self.process.stdin  # type: ignore[assignment]
        stdin.close()

    def wait(self, timeout: float = 10.0) -> tuple[int, float]:
        """Wait for the child to exit: its exit code and the seconds it took."""
        started = time.monotonic()
        code = self.process.wait(timeout)
        self._reader.join(timeout)
        return code, time.monotonic() - started

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None and not stream.closed:
                stream.close()

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")


INITIALIZE = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "stdio-test", "version": "1"},
}
