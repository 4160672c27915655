"""Changes from the notebook page in headless Chromium, every gate on: remember, revise
(also with a stale revision), archive and restore, forget with its confirmation, a refusal,
and a page of another origin trying to change the notebook."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import canonical_record, place_canonical
from tests.notebook.browser_support import MISSING, artifacts, launch
from tests.processes import LiveNotebook, free_port, running_notebook
from tests.surface import gates

pytestmark = [pytest.mark.slow, pytest.mark.skipif(MISSING is not None, reason=str(MISSING))]

READY = "body[data-ready=true]"
ALL_ON = gates(remember=True, revise=True, archive_restore=True, forget=True)


def _id(number: int) -> str:
    return f"mem_{number:032x}"


def _path(root: Path, number: int) -> Path:
    return root / "project" / "mnemosyne" / "decisions" / f"{_id(number)}.json"


def _place(root: Path, number: int, title: str, **fields: Any) -> Path:
    return place_canonical(root, canonical_record(id=_id(number), title=title, **fields))


def _on_disk(path: Path) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return record


@pytest.fixture(scope="module")
def notebook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveNotebook]:
    base = tmp_path_factory.mktemp("changes")
    for number, title in enumerate(["To archive", "To revise", "Stale one", "To forget"], 1):
        _place(base / "memory", number, title)
    with running_notebook(base, ALL_ON) as running:
        yield running


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def storage(chromium: Any, notebook: LiveNotebook) -> Any:
    context = chromium.new_context()
    tab = context.new_page()
    tab.goto(notebook.login_url)
    tab.wait_for_selector(READY)
    state = context.storage_state()
    context.close()
    return state


@pytest.fixture
def page(chromium: Any, notebook: LiveNotebook, storage: Any) -> Iterator[Any]:
    context = chromium.new_context(storage_state=storage)
    tab = context.new_page()
    tab.goto(f"{notebook.base_url}/notebook/")
    tab.wait_for_selector(READY)
    yield tab
    context.close()


def _open(page: Any, title: str) -> None:
    page.locator("#tree button.memory", has_text=title).first.click()
    page.wait_for_selector("#detail-body .changes")


def _notice(page: Any, text: str) -> None:
    page.wait_for_function(
        "text => document.getElementById('notice').textContent.includes(text)", arg=text
    )


def test_remember_from_the_form(page: Any, notebook: LiveNotebook) -> None:
    page.click("#remember > summary")
    form = page.locator("#remember-form")
    form.get_by_label("Scope").select_option("preference")
    form.get_by_label("Namespace", exact=True).fill("tea")
    form.get_by_label("Title").fill("Green tea at four")
    form.get_by_label("Content").fill("I drink a green tea at four every afternoon.")
    form.get_by_label("Tags").fill("tea, afternoon")
    page.screenshot(path=artifacts() / "remember-form.png", full_page=True)
    form.get_by_role("button", name="Remember").click()
    _notice(page, "Remembered.")

    assert page.text_content("#detail-body .memory-title") == "Green tea at four"
    assert "Green tea at four" in page.locator("#tree").text_content()
    [stored] = (notebook.memory_root / "preference" / "tea").glob("mem_*.json")
    assert _on_disk(stored)["tags"] == ["tea", "afternoon"]


def test_a_refusal_shows_the_field_and_reason_not_the_value(page: Any) -> None:
    page.click("#remember > summary")
    form = page.locator("#remember-form")
    form.get_by_label("Namespace", exact=True).fill("x")
    form.get_by_label("Content").fill("The password=hunter2 of the router.")
    form.get_by_role("button", name="Remember").click()
    outcome = form.locator(".outcome .problem")
    outcome.wait_for()

    shown = outcome.text_content()
    assert "disallowed_content" in shown
    assert "field content" in shown and "reason credential_shape" in shown
    assert "hunter2" not in shown


def test_archive_and_restore(page: Any, notebook: LiveNotebook) -> None:
    path = _path(notebook.memory_root, 1)
    _open(page, "To archive")
    page.click("button[data-change=archive]")
    _notice(page, "Archived.")
    assert _on_disk(path)["lifecycle"] == {"state": "archived", "revision": 2}
    archived = page.locator("details[data-scope=project] details.archived")
    assert "To archive" in archived.text_content()

    page.click("button[data-change=restore]")
    _notice(page, "Restored.")
    assert _on_disk(path)["lifecycle"] == {"state": "active", "revision": 3}


def test_revise(page: Any, notebook: LiveNotebook) -> None:
    _open(page, "To revise")
    page.click("button[data-change=revise]")
    page.fill("#revise-form [name=title]", "Revised from the page")
    page.click("#revise-form button[type=submit]")
    _notice(page, "Revised.")

    record = _on_disk(_path(notebook.memory_root, 2))
    assert (record["title"], record["lifecycle"]["revision"]) == ("Revised from the page", 2)
    assert page.text_content("#detail-body .memory-title") == "Revised from the page"


def test_a_stale_revision_shows_the_current_record_and_changes_nothing(
    page: Any, notebook: LiveNotebook
) -> None:
    path = _path(notebook.memory_root, 3)
    _open(page, "Stale one")
    page.click("button[data-change=revise]")
    page.fill("#revise-form [name=title]", "Overwritten from the page")
    # Meanwhile the record changes elsewhere (an agent, another tab, a hand edit).
    changed = canonical_record(
        id=_id(3), title="Changed elsewhere", lifecycle={"state": "active", "revision": 2}
    )
    place_canonical(notebook.memory_root, changed)
    before = path.read_bytes()
    page.click("#revise-form button[type=submit]")
    _notice(page, "changed since you opened it")
    page.screenshot(path=artifacts() / "stale-revision.png", full_page=True)

    assert path.read_bytes() == before
    assert page.text_content("#detail-body .memory-title") == "Changed elsewhere"
    assert "nothing was changed" in page.text_content("#detail-body .problem")


def test_forget_asks_first(page: Any, notebook: LiveNotebook) -> None:
    path = _path(notebook.memory_root, 4)
    _open(page, "To forget")
    assert page.locator("button[data-change=forget]").count() == 0  # archive it first
    page.click("button[data-change=archive]")
    _notice(page, "Archived.")

    page.click("button[data-change=forget]")
    page.wait_for_selector("#forget-dialog[open]")
    assert page.text_content("#forget-name") == "To forget"
    page.click("#forget-keep")
    assert path.exists()

    page.click("button[data-change=forget]")
    page.wait_for_selector("#forget-dialog[open]")
    page.screenshot(path=artifacts() / "forget-dialog.png")
    page.click("#forget-confirm")
    _notice(page, "Forgotten")
    assert not path.exists()
    assert "To forget" not in page.locator("#tree").text_content()


class _Attacker(http.server.BaseHTTPRequestHandler):
    """A page of another origin of this machine that posts a change to the notebook."""

    target = ""
    body = ""

    def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
        page = f"""<!doctype html><title>waiting</title><script>
          fetch({json.dumps(self.target)}, {{method: 'POST', credentials: 'include',
                 headers: {{'Content-Type': 'text/plain'}}, body: {json.dumps(self.body)}}})
            .then(r => {{ document.title = 'status ' + r.status; }})
            .catch(() => {{ document.title = 'blocked'; }});
        </script>""".encode()
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_a_page_of_another_origin_cannot_change_the_notebook(
    chromium: Any, notebook: LiveNotebook, storage: Any
) -> None:
    path = _place(notebook.memory_root, 5, "Target of an attack")
    before = path.read_bytes()
    reference = {
        "schema_version": 2,
        "scope": "project",
        "namespace_id": "mnemosyne",
        "collection_id": "decisions",
        "id": _id(5),
    }
    _Attacker.target = f"{notebook.base_url}/notebook/api/change"
    _Attacker.body = json.dumps(
        {"change": "archive", "arguments": {"reference": reference, "expected_revision": 1}}
    )
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), _Attacker)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    context = chromium.new_context(storage_state=storage)
    try:
        tab = context.new_page()
        tab.goto(f"http://127.0.0.1:{server.server_address[1]}/")
        tab.wait_for_function("document.title !== 'waiting'")
    finally:
        context.close()
        server.shutdown()
        server.server_close()

    assert path.read_bytes() == before
    assert '"POST /notebook/api/change HTTP/1.1" 403' in notebook.log()
