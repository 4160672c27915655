"""The page tests' client: the production app (with chosen gates) and a browser of its page."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from tests.mnemosyne.notebook.browser_support import READY, artifacts, launch
from tests.mnemosyne.notebook.page_support import BASE_URL, PageClient
from tests.processes import LiveNotebook
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
    from tests.mnemosyne.notebook.browser_support import MISSING

    skipped = terminalreporter.stats.get("skipped", [])
    if MISSING is not None and any(MISSING in str(report.longrepr) for report in skipped):
        terminalreporter.write_line(MISSING)


# --- the browser tests: one Chromium per module, and the module's ``notebook`` -------------


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Headless Chromium for one module (the module skips first when there is none)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def session_state(chromium: Any, notebook: LiveNotebook) -> dict[str, Any]:
    """Open the module's printed address once; later contexts start from its cookie."""
    context = chromium.new_context()
    tab = context.new_page()
    tab.goto(notebook.login_url)
    tab.wait_for_selector(READY)
    state: dict[str, Any] = {
        "titles": tab.locator("#tree button.memory").all_text_contents(),
        "address": tab.url,
        "storage": context.storage_state(),
    }
    tab.screenshot(path=artifacts() / "logged-in.png", full_page=True)
    context.close()
    return state


@pytest.fixture
def logged_in_tab(
    chromium: Any, notebook: LiveNotebook, session_state: dict[str, Any]
) -> Iterator[Any]:
    """A logged-in tab on the page, failing the test if any dialog (an alert) opens."""
    context = chromium.new_context(storage_state=session_state["storage"])
    tab = context.new_page()
    dialogs: list[str] = []

    def refuse(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    tab.on("dialog", refuse)
    tab.goto(f"{notebook.base_url}/notebook/")
    tab.wait_for_selector(READY)
    yield tab
    context.close()
    assert dialogs == []


@pytest.fixture
def stranger(chromium: Any) -> Iterator[Any]:
    """A tab of a browser that never logged in."""
    context = chromium.new_context()
    yield context.new_page()
    context.close()
