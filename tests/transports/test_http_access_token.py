"""``/mcp`` behind the access token: ``MYMCP_REQUIRE_TOKEN`` read at start, ``Authorization:
Bearer`` checked in the front before the body is read, a fixed 401 otherwise."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from mymcp import access_token
from mymcp.app import create_app, create_production_app
from mymcp.transports.http import HttpSecurity
from tests import modern
from tests.synthetic_host import BASE_URL, SyntheticHost, build_host, synthetic_runtime

TOKEN = "Zq3" + "x7-_" * 10
CALL = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}'
UNAUTHORIZED = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Unauthorized"}}
WRONG = [
    f"Bearer {TOKEN[:-1]}",
    f"Bearer {TOKEN}x",
    f"Bearer {TOKEN.upper()}",
    f"Bearer x{TOKEN}",
    "Bearer",
    "Bearer ",
    "",
    " ",
    f"Basic {TOKEN}",
    f"Token {TOKEN}",
    f"Bearer{TOKEN}",
    f"{TOKEN}",
    f"Bearer {TOKEN} {TOKEN}",
    "Bearer " + "A" * 600,
    "Bearer " + TOKEN + " " * 600,
    "B" * 20000,
]


@pytest.fixture
def guarded() -> Iterator[SyntheticHost]:
    """The synthetic host, serving ``/mcp`` only to requests that present TOKEN."""
    built = build_host(HttpSecurity(token=TOKEN))
    yield built
    built.gate.release.set()
    built.client.close()


def _bearer(token: str = TOKEN) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def _assert_refused(response: Any) -> None:
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.headers["content-type"] == "application/json"
    assert response.json() == UNAUTHORIZED
    assert TOKEN not in response.text


# --- the check -----------------------------------------------------------------------------------


def test_without_the_header_mcp_answers_401_and_runs_nothing(guarded: SyntheticHost) -> None:
    response = guarded.post(CALL)

    _assert_refused(response)
    assert guarded.calls.received == []


def test_with_the_token_mcp_answers_as_always(guarded: SyntheticHost) -> None:
    response = guarded.post(CALL, headers=_bearer())

    assert response.status_code == 200
    assert guarded.calls.names() == ["echo"]


@pytest.mark.parametrize("value", WRONG, ids=range(len(WRONG)))
def test_a_wrong_or_malformed_header_gets_the_same_401(guarded: SyntheticHost, value: str) -> None:
    response = guarded.post(CALL, headers={"authorization": value})

    _assert_refused(response)
    assert value.strip() == "" or value not in response.text
    assert guarded.calls.received == []


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER", "bEaReR"])
def test_the_scheme_is_matched_in_any_case_and_space_around_the_token_is_ignored(
    guarded: SyntheticHost, scheme: str
) -> None:
    for value in (f"{scheme} {TOKEN}", f"{scheme}   {TOKEN} ", f"{scheme} \t{TOKEN}\t"):
        assert guarded.post(CALL, headers={"authorization": value}).status_code == 200


def test_a_repeated_header_is_refused_even_when_one_holds_the_token(
    guarded: SyntheticHost,
) -> None:
    sent = [("authorization", f"Bearer {TOKEN}"), ("authorization", f"Bearer {TOKEN}")]
    response = guarded.client.post("/mcp", content=CALL, headers=sent)

    _assert_refused(response)


def test_a_header_that_is_not_latin_text_is_refused(guarded: SyntheticHost) -> None:
    sent = [(b"authorization", b"Bearer \xff\xfe" + TOKEN.encode())]
    response = guarded.client.post("/mcp", content=CALL, headers=sent)

    _assert_refused(response)


def test_the_token_is_checked_before_the_body_is_read(guarded: SyntheticHost) -> None:
    response = guarded.post(b"{" * (2 * 1024 * 1024))

    _assert_refused(response)


def test_every_method_on_mcp_needs_the_token(guarded: SyntheticHost) -> None:
    for method in ("GET", "DELETE", "PUT"):
        _assert_refused(guarded.client.request(method, "/mcp"))
        assert guarded.client.request(method, "/mcp", headers=_bearer()).status_code == 405


def test_a_root_path_deployment_is_guarded_too(guarded: SyntheticHost) -> None:
    with TestClient(guarded.client.app, base_url=BASE_URL, root_path="/base") as routed:
        _assert_refused(routed.post("/base/mcp", content=CALL))
        assert routed.post("/base/mcp", content=CALL, headers=_bearer()).status_code == 200


@pytest.mark.parametrize("path", ["/health", "/version"])
def test_health_and_version_stay_open(guarded: SyntheticHost, path: str) -> None:
    assert guarded.client.get(path).status_code == 200


def test_host_and_origin_are_checked_first(guarded: SyntheticHost) -> None:
    assert guarded.post(CALL, headers={"host": "evil.example"}).status_code == 421
    assert guarded.post(CALL, headers={"origin": "http://evil.example"}).status_code == 403
    assert (
        guarded.post(CALL, headers={"origin": "http://localhost", **_bearer()}).status_code == 200
    )


def test_without_a_token_set_nothing_is_asked(host: SyntheticHost) -> None:
    assert host.post(CALL).status_code == 200
    assert host.post(CALL, headers={"authorization": "Bearer anything"}).status_code == 200


def test_the_token_never_shows_in_the_security_repr() -> None:
    assert TOKEN not in repr(HttpSecurity(token=TOKEN))


# --- the setting, read at start ------------------------------------------------------------------


@pytest.fixture
def production(
    memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., TestClient]]:
    """Factory: the production app, built as Uvicorn's factory builds it, with the setting."""
    clients: list[TestClient] = []

    def build(required: str | None = "true") -> TestClient:
        if required is not None:
            monkeypatch.setenv(access_token.REQUIRE_TOKEN_VARIABLE, required)
        client = TestClient(create_production_app(), base_url=BASE_URL)
        clients.append(client)
        return client

    yield build
    for client in clients:
        client.close()


HANDSHAKE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "token-test", "version": "1"},
    },
}


def test_the_setting_guards_both_eras_of_the_production_app(
    production: Callable[..., TestClient], hermetic_home: Path
) -> None:
    client = production()
    token = access_token.read_token(hermetic_home)
    assert token is not None
    listing = modern.request("tools/list")
    headers = modern.headers(listing)

    _assert_refused(client.post("/mcp", json=HANDSHAKE))
    _assert_refused(client.post("/mcp", json=listing, headers=headers))
    _assert_refused(client.post("/mcp", json=HANDSHAKE, headers=_bearer()))

    handshake = client.post("/mcp", json=HANDSHAKE, headers=_bearer(token))
    assert handshake.status_code == 200
    assert handshake.json()["result"]["serverInfo"]["name"] == "mymcp"
    answer = client.post("/mcp", json=listing, headers={**headers, **_bearer(token)})
    assert answer.status_code == 200
    assert [tool["name"] for tool in answer.json()["result"]["tools"]][0] == "list_tools"


def test_the_token_is_made_at_start_when_missing_and_only_its_place_is_logged(
    production: Callable[..., TestClient],
    hermetic_home: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)

    client = production()
    token = access_token.read_token(hermetic_home)
    assert token is not None
    client.post("/mcp", json=HANDSHAKE, headers=_bearer(token))
    client.post("/mcp", json=HANDSHAKE, headers=_bearer(token + "x"))

    path = access_token.token_path(hermetic_home)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    messages = [record.getMessage() for record in caplog.records]
    assert "access token made in ~/.mnemosyne/token; 'mymcp token' prints it" in messages
    assert "access token required on /mcp (Authorization: Bearer)" in messages
    assert not any(token in message or str(hermetic_home) in message for message in messages)


def test_an_existing_token_is_kept(
    production: Callable[..., TestClient], hermetic_home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    token = access_token.ensure_token(hermetic_home)

    client = production()

    assert client.post("/mcp", json=HANDSHAKE, headers=_bearer(token)).status_code == 200
    assert not any("made" in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize("value", [None, "false"])
def test_the_setting_off_asks_for_nothing(
    production: Callable[..., TestClient], hermetic_home: Path, value: str | None
) -> None:
    client = production(value)

    assert client.post("/mcp", json=HANDSHAKE).status_code == 200
    assert not access_token.token_path(hermetic_home).exists()


@pytest.mark.parametrize("value", ["yes", "1", "TRUE", ""])
def test_a_bad_setting_stops_the_start(production: Callable[..., TestClient], value: str) -> None:
    with pytest.raises(access_token.RequireTokenError):
        production(value)


def test_an_unsafe_token_file_stops_the_start(
    production: Callable[..., TestClient], hermetic_home: Path
) -> None:
    access_token.ensure_token(hermetic_home)
    os.chmod(access_token.token_path(hermetic_home), 0o644)

    with pytest.raises(access_token.TokenFileError):
        production()


def test_create_app_serves_the_token_it_is_given() -> None:
    app = create_app(synthetic_runtime(), security=HttpSecurity(token=TOKEN))
    with TestClient(app, base_url=BASE_URL) as client:
        _assert_refused(client.post("/mcp", content=CALL))
