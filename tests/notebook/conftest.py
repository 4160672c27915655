"""The page tests' client: the production app (with chosen gates) and a browser of its page."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from tests.notebook.page_support import BASE_URL, PageClient
from tests.surface import gates


@pytest.fixture
def open_page(
    memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., PageClient]]:
    """Factory: ``open_page(archive_restore=True, ...)`` builds the app with those gates."""
    clients: list[TestClient] = []

    def build(**enabled: bool) -> PageClient:
        for variable, value in gates(**enabled).items():
            monkeypatch.setenv(variable, value)
        from mymcp.app import create_production_app

        client = TestClient(create_production_app(), base_url=BASE_URL)
        clients.append(client)
        return PageClient(client)

    yield build
    for client in clients:
        client.close()


@pytest.fixture
def page(open_page: Callable[..., PageClient]) -> PageClient:
    """A logged-in browser of the page, every gate off."""
    return open_page().login()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line at the end when the browser tests were skipped, naming what to install."""
    from tests.notebook.browser_support import MISSING

    skipped = terminalreporter.stats.get("skipped", [])
    if MISSING is not None and any(MISSING in str(report.longrepr) for report in skipped):
        terminalreporter.write_line(MISSING)
