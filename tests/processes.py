"""MyMCP as a child process: a free port, its environment, its command lines, its health.

The tests, ``bench/`` and ``scripts/`` start servers the same way, so they share this module
(the last two put the repository on ``sys.path``). It needs nothing beyond the standard
library and the package's own declarations, since the scripts run under a plain ``python3``.
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from mymcp.plugins.mnemosyne.configuration.memory_root import ROOT_VARIABLE

REPO_ROOT = Path(__file__).resolve().parents[1]
FACTORY = "mymcp.app:create_production_app"
STARTUP_TIMEOUT = 20.0
SHUTDOWN_TIMEOUT = 5.0

# Variables of the outer environment that never reach a server under test.
SCRUBBED_PREFIXES = ("MNEMOSYNE_", "MYMCP_")


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def mymcp_command(*arguments: str, python: str = sys.executable) -> list[str]:
    """The installed ``mymcp`` command next to ``python``, else ``python -m mymcp``."""
    script = Path(python).with_name("mymcp")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script), *arguments]
    return [python, "-m", "mymcp", *arguments]


def uvicorn_command(
    port: int, *options: str, python: str = sys.executable, factory: str = FACTORY
) -> list[str]:
    """``uvicorn --factory`` serving ``factory`` on a loopback ``port``."""
    command = [python, "-m", "uvicorn", "--factory", factory, "--host", "127.0.0.1"]
    return [*command, "--port", str(port), *options]


def child_environment(
    home: Path,
    memory_root: Path | None,
    extra: Mapping[str, str] | None = None,
    *,
    base: Mapping[str, str] | None = None,
    repository: bool = True,
) -> dict[str, str]:
    """``base`` (the outer environment) without MyMCP's variables, over a temporary home.

    ``memory_root`` None leaves the root to its default below ``home``. The repository comes
    first on ``PYTHONPATH``; with ``repository=False`` (an installed MyMCP, which must work
    alone) there is no ``PYTHONPATH`` at all. ``extra`` is applied last.
    """
    outer = os.environ if base is None else base
    env = {key: value for key, value in outer.items() if not key.startswith(SCRUBBED_PREFIXES)}
    env.update(HOME=str(home), PYTHONUNBUFFERED="1")
    if memory_root is not None:
        env[ROOT_VARIABLE] = str(memory_root)
    if repository:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    else:
        env.pop("PYTHONPATH", None)
    env.update(extra or {})
    return env


class ServerStartError(RuntimeError):
    """The server exited during start-up or did not answer its health check in time."""


def health_status(port: int, path: str = "/health") -> int | None:
    """The HTTP status of ``GET path`` on the loopback ``port``; None when nothing answers."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1.0)
    try:
        connection.request("GET", path)
        return connection.getresponse().status
    except (OSError, http.client.HTTPException):
        return None
    finally:
        connection.close()


def wait_until_healthy(
    process: subprocess.Popen[bytes],
    port: int,
    *,
    log: Path | None = None,
    timeout: float = STARTUP_TIMEOUT,
    path: str = "/health",
) -> None:
    """Return once ``path`` answers below 500; raise :class:`ServerStartError` otherwise.

    The error's text ends with the server's output file, when ``log`` names one.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServerStartError(_with_log("the server exited during start-up", log))
        status = health_status(port, path)
        if status is not None and status < 500:
            return
        time.sleep(0.05)
    raise ServerStartError(_with_log(f"the server did not answer in {timeout} s", log))


def _with_log(message: str, log: Path | None) -> str:
    if log is None or not log.is_file():
        return message
    return f"{message}:\n{log.read_text(encoding='utf-8', errors='replace')}"


def stop(
    process: subprocess.Popen[Any],
    *,
    timeout: float = SHUTDOWN_TIMEOUT,
    sig: signal.Signals = signal.SIGTERM,
) -> float:
    """Send ``sig``, wait a bounded time (then kill); the seconds it took."""
    started = time.monotonic()
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return time.monotonic() - started


@dataclass
class LiveServer:
    """A running HTTP server: its port, home, memory root and combined output file."""

    process: subprocess.Popen[bytes]
    port: int
    home: Path
    memory_root: Path
    log_path: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base_url}/mcp"

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def stop(self, timeout: float = SHUTDOWN_TIMEOUT) -> float:
        """SIGTERM, wait a bounded time (kill after that); returns the seconds it took."""
        return stop(self.process, timeout=timeout)


@contextmanager
def running_server(
    base: Path,
    extra: Mapping[str, str] | None = None,
    *,
    command: Callable[[int], list[str]] = uvicorn_command,
    python_env: Mapping[str, str] | None = None,
    timeout: float = STARTUP_TIMEOUT,
) -> Iterator[LiveServer]:
    """A server over ``base/home`` and ``base/memory``, its output in ``base/server.log``.

    ``command`` makes the command line for a free port (``uvicorn --factory`` by default);
    ``extra`` goes into the child's environment, ``python_env`` replaces the outer one. The
    server answers its health check before this yields, and is stopped after.
    """
    home, memory_root = base / "home", base / "memory"
    home.mkdir(parents=True, exist_ok=True)
    log_path, port = base / "server.log", free_port()
    env = child_environment(home, memory_root, extra, base=python_env)
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command(port), cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
        )
    server = LiveServer(process, port, home, memory_root, log_path)
    try:
        wait_until_healthy(process, port, log=log_path, timeout=timeout)
        yield server
    finally:
        server.stop()


@dataclass
class LiveNotebook(LiveServer):
    """A running ``mymcp notebook``: a server, and the login address it printed first."""

    login_url: str = ""


@contextmanager
def running_notebook(
    base: Path,
    extra: Mapping[str, str] | None = None,
    *,
    options: tuple[str, ...] = ("--no-browser",),
    timeout: float = STARTUP_TIMEOUT,
) -> Iterator[LiveNotebook]:
    """``mymcp notebook`` over ``base/home`` and ``base/memory`` on a free port.

    It yields once the first line of standard output (the login address) has come; the
    process's standard error goes to ``base/server.log`` and its standard output stays in
    ``process.stdout`` for the test to read after :meth:`LiveServer.stop`.
    """
    home, memory_root = base / "home", base / "memory"
    home.mkdir(parents=True, exist_ok=True)
    log_path, port = base / "server.log", free_port()
    env = child_environment(home, memory_root, extra)
    command = mymcp_command("notebook", "--port", str(port), *options)
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=log
        )
    server = LiveNotebook(process, port, home, memory_root, log_path)
    try:
        server.login_url = _first_line(process, timeout, log_path)
        yield server
    finally:
        server.stop()
        if process.stdout is not None:
            process.stdout.close()


def _first_line(process: subprocess.Popen[bytes], timeout: float, log: Path) -> str:
    lines: queue.Queue[bytes] = queue.Queue()
    assert process.stdout is not None
    stream = process.stdout
    threading.Thread(target=lambda: lines.put(stream.readline()), daemon=True).start()
    try:
        line = lines.get(timeout=timeout)
    except queue.Empty:
        raise ServerStartError(_with_log("no address was printed in time", log)) from None
    if not line:
        raise ServerStartError(_with_log("the notebook exited during start-up", log))
    return line.decode("utf-8").rstrip("\n")


def finished(
    command: list[str], env: Mapping[str, str], *, timeout: float = 30.0
) -> subprocess.CompletedProcess[str]:
    """Run a short-lived command from the repository to its end, with no input, as text."""
    return subprocess.run(
        command,
        cwd=REPO_ROOT,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def run_mymcp(
    arguments: list[str], env: Mapping[str, str], timeout: float = 30.0
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m mymcp`` with ``arguments`` to its end."""
    return finished([sys.executable, "-m", "mymcp", *arguments], env, timeout=timeout)


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
        message: dict[str, Any] = json.loads(self.raw_line(timeout))
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
