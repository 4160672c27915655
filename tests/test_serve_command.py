"""Serving HTTP from the command line: one log stream (standard error), a taken port."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.processes import (
    REPO_ROOT,
    child_environment,
    finished,
    free_port,
    mymcp_command,
    uvicorn_command,
    wait_until_healthy,
)

pytestmark = pytest.mark.slow


def _forms(port: int) -> dict[str, list[str]]:
    return {
        "mymcp": mymcp_command("--port", str(port)),
        "mymcp serve": mymcp_command("serve", "--port", str(port)),
        "uvicorn --factory": uvicorn_command(port),
        "mymcp-dev": [
            sys.executable,
            "-c",
            "import sys; from mymcp import cli; sys.exit(cli.dev())",
            "--port",
            str(port),
        ],
    }


@pytest.mark.parametrize("form", ["mymcp", "mymcp serve", "uvicorn --factory", "mymcp-dev"])
def test_every_line_the_http_server_writes_goes_to_standard_error(
    form: str, tmp_path: Path, hermetic_home: Path
) -> None:
    port = free_port()
    out, err = tmp_path / "stdout.log", tmp_path / "stderr.log"
    env = child_environment(hermetic_home, tmp_path / "memory")
    # mymcp-dev watches its working directory for changes: give it an empty one.
    cwd = tmp_path if form == "mymcp-dev" else REPO_ROOT
    with out.open("wb") as stdout, err.open("wb") as stderr:
        process = subprocess.Popen(
            _forms(port)[form], cwd=cwd, env=env, stdout=stdout, stderr=stderr
        )
    try:
        wait_until_healthy(process, port, log=err)
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        assert httpx.post(f"http://127.0.0.1:{port}/mcp", json=ping).status_code == 200
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(10)

    assert out.read_text() == ""
    log = err.read_text()
    assert '"GET /health HTTP/1.1" 200' in log
    assert '"POST /mcp HTTP/1.1" 200' in log
    assert "INFO:mcp:request id=1 method=ping" in log


def test_a_port_in_use_is_named_with_what_to_do(tmp_path: Path, hermetic_home: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        env = child_environment(hermetic_home, tmp_path / "memory")
        done = finished(mymcp_command("serve", "--port", str(port)), env)

    assert done.returncode == 1
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"mymcp: port {port} on 127.0.0.1 is already in use, often by another MyMCP; "
        "stop it or choose another port with --port"
    )
