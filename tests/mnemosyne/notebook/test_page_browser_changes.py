"""Changes from the notebook page in headless Chromium, every gate on: remember, revise
(also with a stale revision), archive and restore, forget with its confirmation, a refusal,
and a page of another origin trying to change the notebook."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import canonical_record, place_canonical
from tests.mnemosyne.notebook.browser_support import MISSING, artifacts, visit_from_another_origin
from tests.processes import LiveNotebook, running_notebook
from tests.surface import gates

pytestmark = [pytest.mark.slow, pytest.mark.skipif(MISSING is not None, reason=str(MISSING))]

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


@pytest.fixture
def page(logged_in_tab: Any) -> Any:
    """The browser tests' tab (the in-process tests' ``page`` is a PageClient)."""
    return logged_in_tab


def _open(page: Any, title: str) -> None:
    page.locator("#tree button.memory", has_text=title).first.click()
    page.wait_for_selector("#detail-body .changes")


def _notice(page: Any, text: str) -> None:
    page.locator("#notice", has_text=text).wait_for()
    assert text in page.text_content("#notice")


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


def test_a_page_of_another_origin_cannot_change_the_notebook(
    chromium: Any, notebook: LiveNotebook, session_state: dict[str, Any]
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
    target = json.dumps(f"{notebook.base_url}/notebook/api/change")
    body = json.dumps(
        json.dumps(
            {"change": "archive", "arguments": {"reference": reference, "expected_revision": 1}}
        )
    )
    script = f"""fetch({target}, {{method: 'POST', credentials: 'include',
        headers: {{'Content-Type': 'text/plain'}}, body: {body}}})
      .then(r => {{ document.title = 'status ' + r.status; }})
      .catch(() => {{ document.title = 'blocked'; }});"""

    visit_from_another_origin(chromium, session_state["storage"], script)

    assert path.read_bytes() == before
    assert '"POST /notebook/api/change HTTP/1.1" 403' in notebook.log()
