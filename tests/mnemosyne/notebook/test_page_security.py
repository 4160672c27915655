"""Who may reach the notebook page, and what every answer of it carries.

Without the session cookie every data request is 401 and carries no memory text; a request
from another origin is 403; a POST without the session's CSRF header is 403; a login
secret works once; no answer carries a CORS header; every answer carries the page's
Content-Security-Policy and the headers beside it; bodies are bounded.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
from starlette.testclient import TestClient

from mymcp import access_token
from mymcp.plugins.mnemosyne.notebook.access import LOGIN_SECONDS, Access
from tests.helpers import canonical_record, place_canonical
from tests.mnemosyne.notebook.page_support import (
    BASE_URL,
    CSRF_HEADER,
    DATA_GETS,
    DATA_POSTS,
    ORIGIN,
    PageClient,
)

TITLE = "Filter coffee every morning"
CONTENT = "The person brews filter coffee at seven."


@pytest.fixture
def stored(memory_root: Path) -> Path:
    """One memory whose title and content no refusal may show."""
    record = canonical_record(title=TITLE, content=CONTENT)
    return place_canonical(memory_root, record)


@pytest.fixture
def visitor(stored: Path, open_page: Callable[..., PageClient]) -> PageClient:
    """A browser of the page that has not logged in."""
    return open_page()


def _memory_text_in(response: httpx2.Response) -> bool:
    return TITLE in response.text or CONTENT in response.text or "mem_" in response.text


@pytest.mark.parametrize("path", DATA_GETS)
def test_a_data_request_without_the_cookie_is_401_and_shows_no_memory(
    visitor: PageClient, path: str
) -> None:
    response = visitor.get(path)

    assert response.status_code == 401
    assert response.json()["error"] == "login_required"
    assert not _memory_text_in(response)


@pytest.mark.parametrize("path", DATA_POSTS)
def test_a_data_post_without_the_cookie_is_401_and_shows_no_memory(
    visitor: PageClient, path: str
) -> None:
    response = visitor.post(path, DATA_POSTS[path], csrf=False)

    assert response.status_code == 401
    assert not _memory_text_in(response)


def test_a_cookie_the_server_never_gave_is_401(visitor: PageClient) -> None:
    visitor.http.cookies.set("mymcp_notebook_8000", "made-up", domain="127.0.0.1")

    assert visitor.get("/notebook/api/overview").status_code == 401


def test_the_page_without_a_session_sends_the_browser_to_the_login(visitor: PageClient) -> None:
    response = visitor.get("/notebook/")

    assert response.status_code == 303
    assert response.headers["location"] == "/notebook/login"


def test_the_page_script_needs_the_cookie_but_the_login_page_and_its_files_do_not(
    visitor: PageClient,
) -> None:
    assert visitor.get("/notebook/assets/app.js").status_code == 401
    for path in ("/notebook/login", "/notebook/assets/login.js", "/notebook/assets/style.css"):
        response = visitor.get(path)
        assert response.status_code == 200, path
        assert not _memory_text_in(response)


def test_a_login_secret_opens_a_strict_http_only_cookie(visitor: PageClient) -> None:
    response = visitor.post("/notebook/login", {"secret": visitor.secret()}, csrf=False)

    assert response.status_code == 204
    cookie = response.headers["set-cookie"]
    assert cookie.startswith("mymcp_notebook_8000=")
    attributes = {part.strip().lower() for part in cookie.split(";")[1:]}
    assert {"httponly", "samesite=strict", "path=/notebook"} <= attributes
    assert visitor.get("/notebook/api/overview").status_code == 200


def test_a_login_secret_works_once(visitor: PageClient) -> None:
    secret = visitor.secret()
    visitor.post("/notebook/login", {"secret": secret}, csrf=False)
    visitor.forget_cookie()

    again = visitor.post("/notebook/login", {"secret": secret}, csrf=False)

    assert again.status_code == 401
    assert again.json()["error"] == "login_refused"
    assert "set-cookie" not in again.headers
    assert visitor.get("/notebook/api/overview").status_code == 401


def test_an_expired_login_secret_is_refused(visitor: PageClient) -> None:
    now = [0.0]
    visitor.app.state.notebook_access = Access(lambda: now[0])
    secret = visitor.secret()
    now[0] += LOGIN_SECONDS + 1

    response = visitor.post("/notebook/login", {"secret": secret}, csrf=False)

    assert response.status_code == 401


@pytest.mark.parametrize(
    "body", [{}, {"secret": ""}, {"secret": 7}, {"secret": "x" * 300}, {"token": "x"}]
)
def test_a_login_without_a_usable_secret_is_refused(visitor: PageClient, body: Any) -> None:
    assert visitor.post("/notebook/login", body, csrf=False).status_code == 401


def test_a_login_from_another_origin_is_refused(visitor: PageClient) -> None:
    response = visitor.post(
        "/notebook/login", {"secret": visitor.secret()}, csrf=False, origin="http://localhost:3000"
    )

    assert response.status_code == 403
    assert "set-cookie" not in response.headers


@pytest.mark.parametrize("path", DATA_POSTS)
def test_a_post_from_another_origin_is_403(page: PageClient, stored: Path, path: str) -> None:
    response = page.post(path, DATA_POSTS[path], origin="http://localhost:3000")

    assert response.status_code == 403
    assert response.json()["error"] == "cross_origin"
    assert not _memory_text_in(response)


@pytest.mark.parametrize(
    "origin", ["http://127.0.0.1:8001", "https://127.0.0.1:8000", "http://localhost:8000", "null"]
)
def test_only_the_page_s_own_origin_counts_as_its_own(page: PageClient, origin: str) -> None:
    response = page.post("/notebook/api/search", DATA_POSTS["/notebook/api/search"], origin=origin)

    assert response.status_code == 403


def test_the_page_s_own_origin_is_served(page: PageClient) -> None:
    response = page.post("/notebook/api/search", {"query": "coffee", "scope": None}, origin=ORIGIN)

    assert response.status_code == 200


@pytest.mark.parametrize("site", ["same-site", "cross-site"])
def test_a_fetch_the_browser_marks_as_from_another_site_is_403(
    page: PageClient, stored: Path, site: str
) -> None:
    response = page.get("/notebook/api/overview", **{"sec-fetch-site": site})

    assert response.status_code == 403
    assert not _memory_text_in(response)


@pytest.mark.parametrize("path", DATA_POSTS)
def test_a_post_without_the_csrf_header_is_403(page: PageClient, path: str) -> None:
    response = page.post(path, DATA_POSTS[path], csrf=False)

    assert response.status_code == 403
    assert response.json()["error"] == "csrf_required"


def test_a_post_with_another_session_s_csrf_token_is_403(page: PageClient) -> None:
    other = PageClient(TestClient(page.app, base_url=BASE_URL)).login()

    response = page.http.post(
        "/notebook/api/search", json={"query": "x"}, headers={CSRF_HEADER: other.csrf}
    )

    assert other.csrf != page.csrf
    assert response.status_code == 403


def test_logging_out_needs_the_csrf_header_and_ends_the_session(page: PageClient) -> None:
    assert page.post("/notebook/logout", {}, csrf=False).status_code == 403
    assert page.get("/notebook/api/overview").status_code == 200

    assert page.post("/notebook/logout", {}).status_code == 204
    assert page.get("/notebook/api/overview").status_code == 401


@pytest.mark.parametrize(
    "path",
    [
        "/notebook/",
        "/notebook/login",
        "/notebook/assets/app.js",
        "/notebook/assets/style.css",
        *DATA_GETS,
        "/notebook/api/nothing",
    ],
)
def test_every_answer_carries_the_page_headers_and_no_cors(page: PageClient, path: str) -> None:
    response = page.get(path, origin=ORIGIN)

    headers = response.headers
    policy = headers["content-security-policy"]
    for directive in (
        "default-src 'self'",
        "frame-ancestors 'none'",
        "form-action 'self'",
        "base-uri 'none'",
    ):
        assert directive in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert headers["x-frame-options"] == "DENY"
    assert headers["referrer-policy"] == "no-referrer"
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["cache-control"] == "no-store"
    assert not [name for name in headers if name.lower().startswith("access-control-")]


def test_refusals_carry_the_page_headers_too(visitor: PageClient) -> None:
    response = visitor.get("/notebook/api/overview")

    assert response.headers["cache-control"] == "no-store"
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]


def test_a_preflight_from_another_origin_gets_no_cors_permission(page: PageClient) -> None:
    response = page.http.options(
        "/notebook/api/search",
        headers={
            "origin": "http://localhost:3000",
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type, x-mymcp-csrf",
        },
    )

    assert response.status_code >= 400
    assert not [name for name in response.headers if name.startswith("access-control-")]


def test_a_body_past_the_bound_is_413(page: PageClient) -> None:
    response = page.post("/notebook/api/search", {"query": "x" * 20_000, "scope": None})

    assert response.status_code == 413


def test_a_body_that_is_not_json_is_refused(page: PageClient) -> None:
    sent = {"content-type": "text/plain", CSRF_HEADER: page.csrf}
    as_text = page.http.post("/notebook/api/search", content=b"query=x", headers=sent)
    sent["content-type"] = "application/json"
    broken = page.http.post("/notebook/api/search", content=b"{", headers=sent)
    listed = page.http.post("/notebook/api/search", content=b"[]", headers=sent)

    assert as_text.status_code == 415
    assert broken.status_code == 400
    assert listed.status_code == 400


def test_the_host_check_of_mcp_covers_the_page(page: PageClient) -> None:
    response = page.get("/notebook/api/overview", host="evil.example")

    assert response.status_code == 421


def test_a_refusal_never_echoes_what_was_sent(page: PageClient) -> None:
    marker = "unmistakable-sent-value"
    responses = [
        page.post("/notebook/api/search", {"query": marker}, csrf=False),
        page.post("/notebook/login", {"secret": marker}, csrf=False),
        page.post("/notebook/api/search", {"query": marker}, origin="http://localhost:3000"),
        page.get(f"/notebook/api/{marker}"),
    ]

    assert all(marker not in response.text for response in responses)


def test_the_access_token_opens_a_session(visitor: PageClient, hermetic_home: Path) -> None:
    token = access_token.ensure_token(hermetic_home)

    response = visitor.post("/notebook/login", {"token": token}, csrf=False)

    assert response.status_code == 204
    assert "httponly" in response.headers["set-cookie"].lower()
    assert visitor.get("/notebook/api/overview").status_code == 200


@pytest.mark.parametrize("presented", ["wrong", "", 7, None, "x" * 300])
def test_anything_but_the_access_token_is_refused(
    visitor: PageClient, hermetic_home: Path, presented: Any
) -> None:
    access_token.ensure_token(hermetic_home)

    response = visitor.post("/notebook/login", {"token": presented}, csrf=False)

    assert response.status_code == 401
    assert "set-cookie" not in response.headers


def test_without_a_token_file_no_token_logs_in_and_none_is_made(
    visitor: PageClient, hermetic_home: Path
) -> None:
    response = visitor.post("/notebook/login", {"token": "anything"}, csrf=False)

    assert response.status_code == 401
    assert access_token.read_token(hermetic_home) is None


def test_a_token_login_from_another_origin_is_refused(
    visitor: PageClient, hermetic_home: Path
) -> None:
    token = access_token.ensure_token(hermetic_home)

    response = visitor.post(
        "/notebook/login", {"token": token}, csrf=False, origin="http://localhost:3000"
    )

    assert response.status_code == 403


def test_the_page_s_cookie_never_stands_in_for_the_bearer_token(
    open_page: Callable[..., PageClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(access_token.REQUIRE_TOKEN_VARIABLE, "true")
    page = open_page().login()

    response = page.mcp.post('{"jsonrpc":"2.0","id":1,"method":"tools/list"}')

    assert response.status_code == 401
    assert page.get("/notebook/api/overview").status_code == 200


def test_a_login_on_another_port_leaves_this_ports_session_open(visitor: PageClient) -> None:
    visitor.login()
    other_port = {"host": "127.0.0.1:8001"}
    secret = visitor.secret()

    other = visitor.http.post(
        "/notebook/login", json={"secret": secret}, headers=other_port, follow_redirects=False
    )

    assert other.status_code == 204
    assert other.headers["set-cookie"].startswith("mymcp_notebook_8001=")
    assert visitor.get("/notebook/api/overview").status_code == 200
