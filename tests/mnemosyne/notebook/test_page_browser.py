"""The notebook page in headless Chromium, as a person uses it and as an attacker tries it.

One ``mymcp notebook --no-browser`` over a sample notebook and one browser serve the whole
module. The first test opens the printed address; later tests open new browser contexts
that carry that session's cookie (or, for the attacks, none). Screenshots are written to
``browser_support.artifacts()``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mymcp import access_token
from tests.helpers import canonical_record, place_canonical, write_record
from tests.mnemosyne.notebook.browser_support import (
    MISSING,
    READY,
    artifacts,
    visit_from_another_origin,
)
from tests.processes import LiveNotebook, running_notebook

pytestmark = [pytest.mark.slow, pytest.mark.skipif(MISSING is not None, reason=str(MISSING))]

SCRIPT_TITLE = "<img src=x onerror=alert(1)>"
TITLES = ["Shared memory ownership", "Release train", SCRIPT_TITLE]
ARCHIVED_TITLE = "An old plan"


def _id(number: int) -> str:
    return f"mem_{number:032x}"


def _sample(root: Path) -> None:
    place_canonical(root, canonical_record(id=_id(1), title=TITLES[0]))
    place_canonical(root, canonical_record(id=_id(2), title=TITLES[1], collection=None))
    place_canonical(
        root,
        canonical_record(
            id=_id(3), title=ARCHIVED_TITLE, lifecycle={"state": "archived", "revision": 2}
        ),
    )
    place_canonical(
        root,
        canonical_record(
            id=_id(4),
            scope="preference",
            namespace={"kind": "domain", "id": "coffee", "label": "Coffee"},
            collection=None,
            kind="preference",
            title=SCRIPT_TITLE,
            content="My favourite drink is a flat white.",
            tags=[],
        ),
    )
    write_record(root, {"schema_version": 1, "id": "old-note", "content": "x"}, "self", "a.json")
    write_record(root, "{broken", "project", "mnemosyne", "broken.json")


@pytest.fixture(scope="module")
def notebook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveNotebook]:
    base = tmp_path_factory.mktemp("notebook")
    _sample(base / "memory")
    with running_notebook(base) as running:
        yield running


@pytest.fixture
def page(logged_in_tab: Any) -> Any:
    """The browser tests' tab (the in-process tests' ``page`` is a PageClient)."""
    return logged_in_tab


# --- logging in ----------------------------------------------------------------------------


def test_the_printed_address_shows_the_memories_and_leaves_the_address_bar(
    session_state: dict[str, Any], notebook: LiveNotebook
) -> None:
    assert set(TITLES) <= set(session_state["titles"])
    assert ARCHIVED_TITLE in session_state["titles"]
    assert session_state["address"] == f"{notebook.base_url}/notebook/"
    assert "secret" not in session_state["address"]


def test_the_same_path_without_the_secret_shows_no_memory(
    stranger: Any, notebook: LiveNotebook, session_state: dict[str, Any]
) -> None:
    stranger.goto(notebook.login_url.split("#", 1)[0])
    stranger.wait_for_selector("#status:not(:empty)")

    assert "not logged in" in stranger.text_content("#status")
    _assert_no_title(stranger)
    stranger.goto(f"{notebook.base_url}/notebook/")
    assert stranger.url.endswith("/notebook/login")
    _assert_no_title(stranger)


def test_a_second_use_of_the_printed_address_shows_no_memory(
    stranger: Any, notebook: LiveNotebook, session_state: dict[str, Any]
) -> None:
    stranger.goto(notebook.login_url)
    stranger.wait_for_selector("#status:has-text('used already')")
    assert "used already" in stranger.text_content("#status")

    assert stranger.url.endswith("/notebook/login")
    _assert_no_title(stranger)
    stranger.screenshot(path=artifacts() / "refused-secret.png")


def test_the_access_token_logs_in_through_the_form(stranger: Any, notebook: LiveNotebook) -> None:
    token = access_token.ensure_token(notebook.home)
    stranger.goto(f"{notebook.base_url}/notebook/login")
    stranger.fill("#token", "not the token")
    stranger.click("#token-form button[type=submit]")
    stranger.wait_for_selector("#status:has-text('not the access token')")
    assert "not the access token" in stranger.text_content("#status")
    _assert_no_title(stranger)

    stranger.fill("#token", token)
    stranger.click("#token-form button[type=submit]")
    stranger.wait_for_selector(READY)

    assert TITLES[0] in stranger.locator("#tree").text_content()


def _mcp_status(tab: Any, token: str | None) -> int:
    """The status of a tools/list the page's own tab posts to /mcp (with its cookie)."""
    status: int = tab.evaluate(
        """token => fetch('/mcp', {method: 'POST', headers: Object.assign(
               {'Content-Type': 'application/json'},
               token ? {'Authorization': 'Bearer ' + token} : {}),
             body: JSON.stringify({jsonrpc: '2.0', id: 1, method: 'tools/list'})})
           .then(r => r.status)""",
        token,
    )
    return status


def test_bearer_off_mcp_answers_without_a_token(page: Any) -> None:
    assert _mcp_status(page, None) == 200


def test_bearer_on_the_page_works_and_its_cookie_never_opens_mcp(
    chromium: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    base = tmp_path_factory.mktemp("bearer")
    _sample(base / "memory")
    with running_notebook(base, options=("--no-browser", "--require-token")) as notebook:
        context = chromium.new_context()
        tab = context.new_page()
        tab.goto(notebook.login_url)
        tab.wait_for_selector(READY)
        titles = tab.locator("#tree button.memory").all_text_contents()
        token = access_token.read_token(notebook.home)
        assert token is not None
        without, wrong, right = (
            _mcp_status(tab, None),
            _mcp_status(tab, "wrong"),
            _mcp_status(tab, token),
        )
        context.close()

    assert set(TITLES) <= set(titles)
    assert (without, wrong, right) == (401, 401, 200)


def _assert_no_title(tab: Any) -> None:
    text = tab.content()
    for title in [TITLES[0], TITLES[1], ARCHIVED_TITLE]:
        assert title not in text


# --- browsing, reading, searching ----------------------------------------------------------


def test_the_tree_shows_scopes_namespaces_collections_and_archived_apart(page: Any) -> None:
    project = page.locator("details.scope[data-scope=project]")

    assert "1 archived" in project.locator("summary").first.text_content()
    assert project.locator(".namespace").first.text_content() == "mnemosyne (Mnemosyne) · project"
    collections = project.locator(":scope > ul .collection").all_text_contents()
    assert collections == ["no collection", "decisions (Decisions)"]
    archived = project.locator("details.archived")
    assert archived.locator("button.memory").all_text_contents() == [ARCHIVED_TITLE]
    assert ARCHIVED_TITLE not in project.locator(":scope > ul").first.text_content()
    assert "decision · active" in project.locator(".meta").all_text_contents()[1]


def test_a_script_like_title_shows_as_those_characters(page: Any) -> None:
    button = page.locator("details[data-scope=preference] button.memory")

    assert button.text_content() == SCRIPT_TITLE
    assert page.locator("img").count() == 0
    button.click()
    page.wait_for_selector("#detail-body .memory-title")
    assert page.text_content("#detail-body .memory-title") == SCRIPT_TITLE
    assert page.locator("img").count() == 0


def test_a_memory_opens_in_full(page: Any) -> None:
    page.get_by_role("button", name=TITLES[0]).click()
    page.wait_for_selector("#detail-body dl")

    fields = dict(
        zip(
            page.locator("#detail-body dt").all_text_contents(),
            page.locator("#detail-body dd").all_text_contents(),
            strict=True,
        )
    )
    assert fields["content"] == canonical_record()["content"]
    assert fields["id"] == _id(1)
    assert fields["lifecycle"] == "state: active, revision: 1"
    assert page.evaluate("document.activeElement.id") == "detail-title"
    page.screenshot(path=artifacts() / "memory.png", full_page=True)


def test_search_ranks_as_recall_and_marks_the_wider_tier(page: Any) -> None:
    page.fill("#query", "favorite")
    page.press("#query", "Enter")
    page.wait_for_selector("#results:not([hidden]) .hit")

    hit = page.locator(".hit").first
    assert hit.locator("button.memory").text_content() == SCRIPT_TITLE
    assert hit.locator(".badge").text_content() == "wider match"
    assert "wider match: favorite" in hit.locator(".meta").text_content()
    page.screenshot(path=artifacts() / "search.png", full_page=True)


def test_search_in_one_scope(page: Any) -> None:
    page.select_option("#scope", "project")
    page.fill("#query", "ownership")
    page.click("#search button[type=submit]")
    page.wait_for_selector("#results:not([hidden])")

    assert page.locator("#result-list h3").all_text_contents() == ["project"]
    assert page.locator(".hit button.memory").all_text_contents() == [TITLES[0]]


def test_the_skipped_file_shows_with_its_path_and_reason(page: Any) -> None:
    cells = page.locator("#skipped-list td").all_text_contents()

    assert cells[:2] == ["project/mnemosyne/broken.json", "invalid_json"]


def test_a_file_changed_by_hand_shows_after_reload(page: Any, notebook: LiveNotebook) -> None:
    path = notebook.memory_root / "knowledge" / "tools" / f"{_id(9)}.json"
    record = canonical_record(
        id=_id(9),
        scope="knowledge",
        namespace={"kind": "topic", "id": "tools", "label": None},
        collection=None,
        kind="reference",
        title="Written by hand",
    )
    write_record(notebook.memory_root, record, "knowledge", "tools", path.name)
    try:
        page.click("#reload")
        page.wait_for_selector("text=Written by hand")
    finally:
        path.unlink()


def test_the_export_downloads(page: Any) -> None:
    with page.expect_download() as download:
        page.click("#export")

    assert download.value.suggested_filename.startswith("mymcp-notebook-")
    document = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert document["format"] == "mymcp-notebook"
    assert {entry["reference"]["id"] for entry in document["records"]} >= {_id(1), _id(4)}


def test_with_every_gate_off_no_change_is_offered_and_each_names_its_setting(page: Any) -> None:
    notes = page.locator("#gate-list li.gate-off").all_text_contents()

    assert len(notes) == 5
    assert "MNEMOSYNE_MEMORY_REMEMBER_ENABLED=true" in notes[0]
    assert "remember_enabled = true under [memory] in ~/.mnemosyne/config.toml" in notes[0]
    assert page.locator("#remember-form").count() == 0
    page.get_by_role("button", name=TITLES[0]).click()
    page.wait_for_selector("#detail-body .changes")
    assert page.locator("#detail-body button[data-change]").count() == 0
    assert "memory_archive is off" in page.text_content("#detail-body .changes")


# --- for everyone --------------------------------------------------------------------------


def test_the_keyboard_reaches_search_results_and_a_memory(page: Any) -> None:
    page.focus("#query")
    page.keyboard.type("ownership")
    page.keyboard.press("Enter")
    page.wait_for_selector(".hit button.memory")
    page.focus(".hit button.memory")
    page.keyboard.press("Enter")
    page.wait_for_selector("#detail-body dl")

    assert page.text_content("#detail-body .memory-title") == TITLES[0]


def test_every_control_has_a_label(page: Any) -> None:
    unlabelled = page.evaluate(
        """[...document.querySelectorAll('input, select, textarea')]
             .filter(control => control.labels.length === 0).map(control => control.id)"""
    )
    nameless = page.evaluate(
        """[...document.querySelectorAll('button, a')]
             .filter(control => !control.textContent.trim()).length"""
    )

    assert unlabelled == []
    assert nameless == 0


def test_at_200_percent_zoom_nothing_runs_off_the_side(
    chromium: Any, notebook: LiveNotebook, session_state: dict[str, Any]
) -> None:
    # A 1280 pixel window at 200% zoom lays the page out in 640 CSS pixels.
    context = chromium.new_context(
        storage_state=session_state["storage"],
        viewport={"width": 640, "height": 720},
        device_scale_factor=2,
    )
    tab = context.new_page()
    tab.goto(f"{notebook.base_url}/notebook/")
    tab.wait_for_selector(READY)
    overflow = tab.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    tab.screenshot(path=artifacts() / "zoom-200.png", full_page=True)
    context.close()

    assert overflow <= 0


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_light_and_dark_follow_the_system(
    chromium: Any, notebook: LiveNotebook, session_state: dict[str, Any], scheme: str
) -> None:
    context = chromium.new_context(storage_state=session_state["storage"], color_scheme=scheme)
    tab = context.new_page()
    tab.goto(f"{notebook.base_url}/notebook/")
    tab.wait_for_selector(READY)
    background = tab.evaluate("getComputedStyle(document.body).backgroundColor")
    tab.screenshot(path=artifacts() / f"scheme-{scheme}.png")
    context.close()

    assert background == ("rgb(255, 255, 255)" if scheme == "light" else "rgb(20, 22, 26)")


# --- attacks -------------------------------------------------------------------------------


def test_without_the_cookie_the_data_is_401(stranger: Any, notebook: LiveNotebook) -> None:
    response = stranger.goto(f"{notebook.base_url}/notebook/api/overview")

    assert response.status == 401
    assert TITLES[0] not in response.text()


def test_a_post_without_the_csrf_header_is_403_even_from_the_page(page: Any) -> None:
    status = page.evaluate(
        """fetch('api/search', {method: 'POST', headers: {'Content-Type': 'application/json'},
                                body: JSON.stringify({query: 'x'})}).then(r => r.status)"""
    )

    assert status == 403


def test_a_page_of_another_origin_cannot_read_the_notebook(
    chromium: Any, notebook: LiveNotebook, session_state: dict[str, Any]
) -> None:
    target = json.dumps(f"{notebook.base_url}/notebook/api/overview")
    script = f"""fetch({target}, {{credentials: 'include'}})
      .then(r => r.text()).then(t => {{ document.title = 'read: ' + t; }})
      .catch(() => {{ document.title = 'blocked'; }});"""

    title = visit_from_another_origin(chromium, session_state["storage"], script)

    assert title == "blocked"
    assert '"GET /notebook/api/overview HTTP/1.1" 403' in notebook.log()
