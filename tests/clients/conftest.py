"""A real Uvicorn server on a free loopback port, and an isolated 1.x SDK, for client tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.clients.scenario import seed_memory_root

REPO_ROOT = Path(__file__).resolve().parents[2]
# Pinned in one file, which scripts/test installs beside the interpreter (.venv/mcp-sdk1).
SDK1_PIN = Path(__file__).with_name("sdk1-requirements.txt")
SDK1_SITE = Path(sys.prefix) / "mcp-sdk1"
STARTUP_TIMEOUT = 20.0
SHUTDOWN_TIMEOUT = 5.0
# Variables of the outer environment that must not reach the server under test.
_SCRUBBED = (
    "MNEMOSYNE_MEMORY_ROOT",
    "MNEMOSYNE_MEMORY_REMEMBER_ENABLED",
    "MNEMOSYNE_MEMORY_ARCHIVE_RESTORE_ENABLED",
    "MNEMOSYNE_MEMORY_FORGET_ENABLED",
    "MNEMOSYNE_MEMORY_REVISE_ENABLED",
    "MYMCP_ALLOWED_HOSTS",
    "MYMCP_ALLOWED_ORIGINS",
)


@dataclass
class LiveServer:
    """A running server: its MCP URL, memory root and combined output file."""

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

    def stop(self) -> float:
        """SIGTERM, wait a bounded time (kill after that); returns the seconds it took."""
        started = time.monotonic()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(SHUTDOWN_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return time.monotonic() - started


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def server_environment(home: Path, memory_root: Path, gates: Mapping[str, str]) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in _SCRUBBED}
    env.update(HOME=str(home), MNEMOSYNE_MEMORY_ROOT=str(memory_root), PYTHONUNBUFFERED="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env.update(gates)
    return env


@contextmanager
def running_server(base: Path, gates: Mapping[str, str] | None = None) -> Iterator[LiveServer]:
    """Start ``uvicorn --factory mymcp.app:create_production_app`` below ``base``; stop it after."""
    home, memory_root = base / "home", base / "memory"
    home.mkdir(parents=True)
    seed_memory_root(memory_root)
    log_path = base / "server.log"
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "uvicorn",
        "--factory",
        "mymcp.app:create_production_app",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command,
            cwd=REPO_ROOT,
            env=server_environment(home, memory_root, gates or {}),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    server = LiveServer(process, port, home, memory_root, log_path)
    try:
        _wait_until_healthy(server)
        yield server
    finally:
        server.stop()


def _wait_until_healthy(server: LiveServer) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            pytest.fail(f"server exited during startup:\n{server.log()}")
        try:
            if httpx.get(f"{server.base_url}/health", timeout=1.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    pytest.fail(f"server did not become healthy in {STARTUP_TIMEOUT} s:\n{server.log()}")


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server with the default gates over a seeded temporary memory root."""
    with running_server(tmp_path_factory.mktemp("live")) as server:
        yield server


@pytest.fixture(scope="session")
def sdk1_site() -> Path:
    """The isolated MCP SDK 1.x that ``scripts/test`` installs, for PYTHONPATH.

    Tests never install anything: without that folder (plain ``pytest`` on a fresh setup) the
    1.x client tests are skipped, naming the command that sets it up.
    """
    installed = SDK1_SITE / ".installed"
    if not installed.is_file() or installed.read_text() != SDK1_PIN.read_text():
        pytest.skip(f"the MCP SDK 1.x is not set up in {SDK1_SITE.name}: run ./scripts/test once")
    return SDK1_SITE
