"""The notebook page's test client: logs in as a browser would and calls the page's API."""

from __future__ import annotations

from typing import Any

import httpx2
from starlette.testclient import TestClient

from mymcp.plugins.mnemosyne.notebook import access_of
from tests.helpers import McpClient

BASE_URL = "http://127.0.0.1:8000"
ORIGIN = BASE_URL
CSRF_HEADER = "x-mymcp-csrf"
# What the page fetches with a GET, and what it sends with a POST (and a body that works).
DATA_GETS = ["/notebook/api/session", "/notebook/api/overview", "/notebook/api/export"]
DATA_POSTS: dict[str, dict[str, Any]] = {
    "/notebook/api/search": {"query": "coffee", "scope": None},
    "/notebook/api/inspect": {"reference": {"schema_version": 1, "scope": "self", "id": "x"}},
}


class PageClient:
    """A browser of the page over the in-process app, and an MCP client of the same app."""

    def __init__(self, client: TestClient) -> None:
        self.http = client
        self.mcp = McpClient(client)
        self.csrf = ""

    @property
    def app(self) -> Any:
        return self.http.app

    def secret(self) -> str:
        """A fresh login secret, as ``mymcp notebook`` prints it."""
        return access_of(self.app).issue_login()

    def login(self) -> PageClient:
        """Log in with a fresh secret and learn the session's CSRF token."""
        response = self.post("/notebook/login", {"secret": self.secret()}, csrf=False)
        assert response.status_code == 204, response.text
        self.csrf = self.get("/notebook/api/session").json()["csrf"]
        return self

    def get(self, path: str, **headers: str) -> httpx2.Response:
        return self.http.get(path, headers=headers, follow_redirects=False)

    def post(self, path: str, body: Any, *, csrf: bool = True, **headers: str) -> httpx2.Response:
        sent = {"content-type": "application/json", **headers}
        if csrf:
            sent.setdefault(CSRF_HEADER, self.csrf)
        return self.http.post(path, json=body, headers=sent, follow_redirects=False)

    def overview(self) -> dict[str, Any]:
        response = self.get("/notebook/api/overview")
        assert response.status_code == 200, response.text
        answer: dict[str, Any] = response.json()
        return answer

    def titles(self) -> list[str | None]:
        return [row["title"] for row in self.overview()["memories"]]

    def search(self, query: str, scope: str | None = None) -> list[dict[str, Any]]:
        response = self.post("/notebook/api/search", {"query": query, "scope": scope})
        assert response.status_code == 200, response.text
        results: list[dict[str, Any]] = response.json()["results"]
        return results

    def inspect(self, reference: dict[str, Any]) -> dict[str, Any]:
        response = self.post("/notebook/api/inspect", {"reference": reference})
        assert response.status_code == 200, response.text
        answer: dict[str, Any] = response.json()
        return answer

    def forget_cookie(self) -> None:
        self.http.cookies.clear()
