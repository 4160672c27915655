"""``mymcp serve --require-token`` and ``MYMCP_REQUIRE_TOKEN`` in real server processes: 401
without the token, 200 with ``Authorization: Bearer $(mymcp token)``, nothing of it logged."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from mymcp import access_token
from tests import modern
from tests.processes import (
    INITIALIZE,
    LiveServer,
    child_environment,
    finished,
    free_port,
    mymcp_command,
    running_server,
    uvicorn_command,
)

pytestmark = pytest.mark.slow  # starts processes

UNAUTHORIZED = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Unauthorized"}}
HANDSHAKE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE}


def _serve(*options: str) -> Callable[[int], list[str]]:
    return lambda port: mymcp_command("serve", "--port", str(port), *options)


def _printed_token(home: Path) -> str:
    """What ``mymcp token`` prints for ``home``: one line."""
    done = finished(mymcp_command("token"), child_environment(home, None))
    assert (done.returncode, done.stderr) == (0, "")
    [token] = done.stdout.splitlines()
    return token


def _post(server: LiveServer, message: dict[str, object], **headers: str) -> httpx.Response:
    return httpx.post(server.url, json=message, headers=headers, timeout=10)


def _assert_refused(response: httpx.Response) -> None:
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.json() == UNAUTHORIZED


def test_serve_require_token_refuses_without_it_and_answers_with_it(tmp_path: Path) -> None:
    with running_server(tmp_path, command=_serve("--require-token")) as server:
        token = _printed_token(server.home)
        bearer = f"Bearer {token}"
        listing = modern.request("tools/list")

        _assert_refused(_post(server, HANDSHAKE))
        _assert_refused(_post(server, HANDSHAKE, authorization=f"Bearer {token[:-1]}"))
        _assert_refused(_post(server, HANDSHAKE, authorization=f"Basic {token}"))
        _assert_refused(_post(server, HANDSHAKE, authorization="Bearer " + "x" * 8000))
        _assert_refused(_post(server, listing, **modern.headers(listing)))
        handshake = _post(server, HANDSHAKE, authorization=bearer)
        answered = _post(server, listing, authorization=bearer, **modern.headers(listing))
        health = httpx.get(f"{server.base_url}/health", timeout=10)
        version = httpx.get(f"{server.base_url}/version", timeout=10)
        server.stop()
        log = server.log()

    assert handshake.status_code == 200
    assert handshake.json()["result"]["serverInfo"]["name"] == "mymcp"
    assert answered.status_code == 200
    assert "list_tools" in answered.text
    assert (health.status_code, version.status_code) == (200, 200)
    assert "access token made in ~/.mnemosyne/token; 'mymcp token' prints it" in log
    assert "access token required on /mcp (Authorization: Bearer)" in log
    assert '"POST /mcp HTTP/1.1" 401' in log
    assert token not in log
    assert token[:12] not in log
    assert "Basic" not in log  # no header value sent is logged
    assert "x" * 100 not in log
    mode = os.stat(access_token.token_path(server.home)).st_mode & 0o777
    assert mode == 0o600


def test_the_setting_variable_requires_it_under_uvicorn_too(tmp_path: Path) -> None:
    extra = {access_token.REQUIRE_TOKEN_VARIABLE: "true"}
    with running_server(tmp_path, extra, command=uvicorn_command) as server:
        token = _printed_token(server.home)

        refused = _post(server, HANDSHAKE)
        answered = _post(server, HANDSHAKE, authorization=f"Bearer {token}")

    _assert_refused(refused)
    assert answered.status_code == 200


def test_without_the_flag_an_existing_token_is_not_asked_for(
    tmp_path: Path, hermetic_home: Path
) -> None:
    access_token.ensure_token(hermetic_home)
    with running_server(tmp_path, command=_serve()) as server:
        response = _post(server, HANDSHAKE)
        server.stop()
        log = server.log()

    assert response.status_code == 200
    assert "access token" not in log


@pytest.mark.parametrize(
    ("arrange", "headline", "named"),
    [
        pytest.param(
            lambda home: {access_token.REQUIRE_TOKEN_VARIABLE: "maybe"},
            "MYMCP_REQUIRE_TOKEN must be 'true' or 'false'",
            "MYMCP_REQUIRE_TOKEN is set in the server's environment",
            id="setting",
        ),
        pytest.param(
            lambda home: _readable_token(home),
            access_token.TOKEN_FILE_MESSAGE,
            "{home}/.mnemosyne/token can be read or changed by group or others (mode 0644)",
            id="file",
        ),
    ],
)
def test_a_setup_mistake_stops_serve_with_two_plain_lines(
    hermetic_home: Path,
    arrange: Callable[[Path], dict[str, str]],
    headline: str,
    named: str,
) -> None:
    extra = arrange(hermetic_home)
    env = child_environment(hermetic_home, None, extra)

    done = finished(mymcp_command("serve", "--require-token", "--port", str(free_port())), env)

    assert done.returncode == 1
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert lines[0] == f"mymcp: {headline}"
    assert named.format(home=hermetic_home) in lines[1]
    assert len(lines) == 2, done.stderr
    assert "maybe" not in done.stderr
    token = access_token.token_path(hermetic_home)
    assert not token.exists() or token.read_text().strip() not in done.stderr


def _readable_token(home: Path) -> dict[str, str]:
    access_token.ensure_token(home)
    os.chmod(access_token.token_path(home), 0o644)
    return {}
