"""DNS-rebinding protection: loopback ``Host`` names and ``Origin`` values only, unless allowed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from mymcp.app import create_app
from mymcp.transports.http import HttpSecurity
from tests.synthetic_host import (
    SyntheticHost,
    build_host,
    synthetic_runtime,
)

CALL = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}'

LOOPBACK_ORIGINS = [
    "http://localhost",
    "http://localhost:3000",
    "https://localhost",
    "https://localhost:8443",
    "http://127.0.0.1",
    "http://127.0.0.1:8000",
    "https://127.0.0.1:1",
    "http://[::1]",
    "http://[::1]:9000",
    "HTTP://LOCALHOST:5173",
]
FOREIGN_ORIGINS = [
    "null",
    "http://evil.example",
    "https://evil.example:8000",
    "http://localhost.evil.example",
    "http://127.0.0.1.evil.example",
    "http://evil.example#localhost",
    "http://localhost@evil.example",
    "ftp://localhost",
    "file://",
    "chrome-extension://abcdef",
    "localhost",
    "http://localhost:notaport",
    "http://[::1",
    "",
]
LOOPBACK_HOSTS = [
    "127.0.0.1",
    "127.0.0.1:8000",
    "localhost",
    "localhost:8000",
    "LocalHost:1",
    "[::1]",
    "[::1]:8000",
]
FOREIGN_HOSTS = [
    "evil.example",
    "evil.example:8000",
    "localhost.evil.example",
    "127.0.0.1.nip.io:8000",
    "0.0.0.0:8000",
    "192.168.1.10:8000",
    "[::2]:8000",
]


@pytest.fixture
def permissive() -> Iterator[SyntheticHost]:
    """A host whose operator allows one more host name and two more origins."""
    security = HttpSecurity.from_environment(
        {
            "MYMCP_ALLOWED_HOSTS": "mymcp.lan, Other.Example:8000",
            "MYMCP_ALLOWED_ORIGINS": "https://app.example,  http://tool.example:3000 ,",
        }
    )
    built = build_host(security)
    yield built
    built.client.close()


def test_requests_without_origin_are_served(host: SyntheticHost) -> None:
    assert host.post(CALL).status_code == 200
    assert host.calls.names() == ["echo"]


@pytest.mark.parametrize("origin", LOOPBACK_ORIGINS)
def test_loopback_origins_are_served(host: SyntheticHost, origin: str) -> None:
    response = host.post(CALL, headers={"origin": origin})

    assert response.status_code == 200
    assert host.calls.names() == ["echo"]


@pytest.mark.parametrize("origin", FOREIGN_ORIGINS)
def test_foreign_origins_are_forbidden(host: SyntheticHost, origin: str) -> None:
    response = host.post(CALL, headers={"origin": origin})
    health = host.client.get("/health", headers={"origin": origin})

    assert response.status_code == 403
    assert health.status_code == 403
    assert response.headers["content-type"] == "application/json"
    assert host.calls.received == []


@pytest.mark.parametrize("host_header", LOOPBACK_HOSTS)
def test_loopback_host_names_are_served(host: SyntheticHost, host_header: str) -> None:
    response = host.post(CALL, headers={"host": host_header})

    assert response.status_code == 200


@pytest.mark.parametrize("host_header", FOREIGN_HOSTS)
def test_foreign_host_names_are_misdirected(host: SyntheticHost, host_header: str) -> None:
    response = host.post(CALL, headers={"host": host_header})
    version = host.client.get("/version", headers={"host": host_header})

    assert response.status_code == 421
    assert version.status_code == 421
    assert host.calls.received == []


@pytest.mark.parametrize("host_header", FOREIGN_HOSTS)
def test_a_misdirected_answer_names_the_host_header_and_never_its_value(
    host: SyntheticHost, host_header: str
) -> None:
    response = host.post(CALL, headers={"host": host_header})

    body = response.json()
    assert body["detail"] == "Misdirected Request"
    assert body["header"] == "Host"
    assert "MYMCP_ALLOWED_HOSTS" in body["hint"]
    assert host_header.lower() not in response.text.lower()


@pytest.mark.parametrize("origin", [origin for origin in FOREIGN_ORIGINS if origin.strip()])
def test_a_forbidden_answer_names_the_origin_header_and_never_its_value(
    host: SyntheticHost, origin: str
) -> None:
    response = host.post(CALL, headers={"origin": origin})

    body = response.json()
    assert body["detail"] == "Forbidden"
    assert body["header"] == "Origin"
    assert "MYMCP_ALLOWED_ORIGINS" in body["hint"]
    assert origin.lower() not in response.text.lower()


def test_a_foreign_host_is_refused_even_with_a_loopback_origin(host: SyntheticHost) -> None:
    response = host.post(CALL, headers={"host": "evil.example", "origin": "http://localhost"})

    assert response.status_code == 421


def test_refusals_happen_before_the_body_is_read(host: SyntheticHost) -> None:
    response = host.post(b"{" * (2 * 1024 * 1024), headers={"origin": "http://evil.example"})

    assert response.status_code == 403


@pytest.mark.parametrize(
    "origin",
    [
        "https://app.example",
        "http://tool.example:3000",
        "HTTPS://APP.EXAMPLE",
        "http://localhost:1",
    ],
)
def test_operator_allowed_origins_are_served(permissive: SyntheticHost, origin: str) -> None:
    assert permissive.post(CALL, headers={"origin": origin}).status_code == 200


@pytest.mark.parametrize(
    "origin",
    ["http://app.example", "https://app.example:444", "http://tool.example", "http://evil.example"],
)
def test_origins_not_listed_by_the_operator_stay_forbidden(
    permissive: SyntheticHost, origin: str
) -> None:
    assert permissive.post(CALL, headers={"origin": origin}).status_code == 403


@pytest.mark.parametrize(
    "host_header",
    ["mymcp.lan", "mymcp.lan:8000", "MYMCP.LAN:1", "other.example:8000", "127.0.0.1:8000"],
)
def test_operator_allowed_hosts_are_served(permissive: SyntheticHost, host_header: str) -> None:
    assert permissive.post(CALL, headers={"host": host_header}).status_code == 200


@pytest.mark.parametrize("host_header", ["other.example", "other.example:9000", "evil.example"])
def test_hosts_not_listed_by_the_operator_stay_misdirected(
    permissive: SyntheticHost, host_header: str
) -> None:
    assert permissive.post(CALL, headers={"host": host_header}).status_code == 421


def test_from_environment_reads_the_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MYMCP_ALLOWED_HOSTS", "a.example,b.example:81")
    monkeypatch.setenv("MYMCP_ALLOWED_ORIGINS", "https://c.example")

    security = HttpSecurity.from_environment()

    assert security.allowed_hosts == frozenset({"a.example", "b.example:81"})
    assert security.allowed_origins == frozenset({"https://c.example"})


@pytest.mark.parametrize("value", ["", " ", ",", " , ,"])
def test_empty_operator_lists_allow_nothing_more(value: str) -> None:
    security = HttpSecurity.from_environment(
        {"MYMCP_ALLOWED_HOSTS": value, "MYMCP_ALLOWED_ORIGINS": value}
    )

    assert security == HttpSecurity()
    assert not security.host_allowed("evil.example")
    assert not security.origin_allowed("null")


def test_security_passed_to_create_app_is_used() -> None:
    runtime = synthetic_runtime()
    security = HttpSecurity(
        allowed_hosts=frozenset({"mymcp.lan"}), allowed_origins=frozenset({"null"})
    )

    with TestClient(create_app(runtime, security=security), base_url="http://mymcp.lan") as client:
        served = client.post("/mcp", content=CALL, headers={"origin": "null"})
        refused = client.post("/mcp", content=CALL, headers={"origin": "http://evil.example"})

    assert served.status_code == 200
    assert refused.status_code == 403
