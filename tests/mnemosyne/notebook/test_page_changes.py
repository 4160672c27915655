"""Changes from the notebook page: the same Tool handlers, offered only when their gate is on."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import (
    canonical_record,
    log_messages,
    place_canonical,
    remember_arguments,
    snapshot_tree,
)
from tests.mnemosyne.notebook.page_support import CSRF_HEADER, PageClient
from tests.mnemosyne.tools.mutation_support import reference_of
from tests.surface import GATE_OF

ALL_ON = {"remember": True, "revise": True, "archive_restore": True, "forget": True}
REFERENCE = reference_of(canonical_record())


@pytest.fixture
def editor(open_page: Callable[..., PageClient]) -> PageClient:
    """A logged-in browser of the page with every change switched on."""
    return open_page(**ALL_ON).login()


@pytest.fixture
def stored(memory_root: Path) -> Path:
    return place_canonical(memory_root, canonical_record())


def _change(page: PageClient, change: str, arguments: Any, **headers: str) -> Any:
    sent = {"content-type": "application/json", CSRF_HEADER: page.csrf, **headers}
    body = {"change": change, "arguments": arguments}
    return page.http.post("/notebook/api/change", json=body, headers=sent)


def _target(revision: int = 1) -> dict[str, Any]:
    return {"reference": REFERENCE, "expected_revision": revision}


def _on_disk(path: Path) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return record


def test_remember_from_the_page_is_memory_remember(editor: PageClient, memory_root: Path) -> None:
    response = _change(editor, "remember", remember_arguments())

    answer = response.json()
    assert response.status_code == 200
    assert answer["is_error"] is False
    assert answer["answer"]["status"] == "remembered"
    assert editor.titles() == [remember_arguments()["title"]]
    again = _change(editor, "remember", remember_arguments()).json()
    assert again["answer"]["status"] == "already_exists"


def test_archive_then_restore_then_archive_and_forget(editor: PageClient, stored: Path) -> None:
    archived = _change(editor, "archive", _target(1)).json()["answer"]
    restored = _change(editor, "restore", _target(2)).json()["answer"]
    _change(editor, "archive", _target(3))
    forgotten = _change(editor, "forget", _target(4)).json()["answer"]

    assert archived["lifecycle"] == {"state": "archived", "revision": 2}
    assert restored["lifecycle"] == {"state": "active", "revision": 3}
    assert forgotten["status"] == "forgotten"
    assert not stored.exists()


def test_revise_from_the_page_is_memory_revise(editor: PageClient, stored: Path) -> None:
    arguments = {
        **_target(1),
        "namespace_label": "Mnemosyne",
        "collection_label": "Decisions",
        "title": "A better title",
        "content": "Revised content.",
        "tags": [],
    }

    answer = _change(editor, "revise", arguments).json()["answer"]

    assert answer["status"] == "revised"
    assert (_on_disk(stored)["title"], _on_disk(stored)["lifecycle"]["revision"]) == (
        "A better title",
        2,
    )


def test_a_stale_revision_changes_nothing(editor: PageClient, stored: Path) -> None:
    before = stored.read_bytes()

    answer = _change(editor, "archive", _target(7)).json()

    assert answer["is_error"] is True
    assert (answer["answer"]["status"], answer["answer"]["code"]) == (
        "conflict",
        "revision_conflict",
    )
    assert stored.read_bytes() == before


def test_forget_of_an_active_memory_is_refused(editor: PageClient, stored: Path) -> None:
    answer = _change(editor, "forget", _target(1)).json()["answer"]

    assert answer["code"] == "not_archived"
    assert stored.exists()


def test_a_refusal_names_the_field_and_reason_never_the_value(
    editor: PageClient, memory_root: Path
) -> None:
    secret = "password=hunter2"
    response = _change(editor, "remember", remember_arguments(content=f"The {secret} of it."))

    answer = response.json()["answer"]
    assert (answer["status"], answer["code"], answer["field"]) == (
        "refused",
        "disallowed_content",
        "content",
    )
    assert answer["reason"] == "credential_shape"
    assert "hunter2" not in response.text
    assert not memory_root.exists()


@pytest.mark.parametrize(
    ("change", "gate"),
    [
        ("remember", "remember"),
        ("revise", "revise"),
        ("archive", "archive_restore"),
        ("restore", "archive_restore"),
        ("forget", "forget"),
    ],
)
def test_a_change_whose_gate_is_off_is_not_served_and_names_its_setting(
    open_page: Callable[..., PageClient], stored: Path, memory_root: Path, change: str, gate: str
) -> None:
    page = open_page(**{**ALL_ON, gate: False}).login()
    before = snapshot_tree(memory_root)

    response = _change(page, change, _target(1))

    assert response.status_code == 403
    refusal = response.json()
    assert refusal["error"] == "change_disabled"
    assert refusal["variable"] == GATE_OF[gate]
    assert refusal["setting"] == f"{gate}_enabled"
    assert snapshot_tree(memory_root) == before


def test_the_session_says_which_changes_are_on(open_page: Callable[..., PageClient]) -> None:
    page = open_page(remember=True, forget=False).login()

    session = page.get("/notebook/api/session").json()
    tools = {tool["role"]: tool["enabled"] for tool in session["tools"]}

    assert tools == {
        "recall": True,
        "inspect": True,
        "remember": True,
        "revise": False,
        "archive": False,
        "restore": False,
        "forget": False,
    }


@pytest.mark.parametrize(
    "body",
    [
        {"change": "delete", "arguments": {}},
        {"change": "recall", "arguments": {}},
        {"change": "archive"},
        {"change": "archive", "arguments": [1]},
        {"change": ["archive"], "arguments": {}},
    ],
)
def test_a_change_that_is_not_one_is_400(editor: PageClient, body: Any) -> None:
    assert editor.post("/notebook/api/change", body).status_code == 400


def test_a_change_from_another_origin_is_403_and_writes_nothing(
    editor: PageClient, stored: Path
) -> None:
    before = stored.read_bytes()

    response = _change(editor, "archive", _target(1), origin="http://localhost:3000")

    assert response.status_code == 403
    assert stored.read_bytes() == before


def test_a_change_without_the_csrf_header_is_403_and_writes_nothing(
    editor: PageClient, stored: Path
) -> None:
    before = stored.read_bytes()

    response = editor.post(
        "/notebook/api/change", {"change": "archive", "arguments": _target(1)}, csrf=False
    )
    wrong = _change(editor, "archive", _target(1), **{CSRF_HEADER: "guess"})

    assert (response.status_code, wrong.status_code) == (403, 403)
    assert stored.read_bytes() == before


def test_a_change_without_the_cookie_is_401_and_writes_nothing(
    open_page: Callable[..., PageClient], stored: Path
) -> None:
    visitor = open_page(**ALL_ON)
    before = stored.read_bytes()

    response = _change(visitor, "archive", _target(1))

    assert response.status_code == 401
    assert stored.read_bytes() == before


def test_a_change_body_past_the_bound_is_413(editor: PageClient) -> None:
    response = _change(editor, "remember", remember_arguments(content="x" * 70_000))

    assert response.status_code == 413


def test_a_change_logs_the_tool_s_own_content_free_line(
    editor: PageClient, stored: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)

    _change(editor, "archive", _target(1))

    assert log_messages(caplog, "mcp.memory_archive") == [
        "event=memory_archive outcome=archived schema_version=2 scope=project "
        "lifecycle_state=archived revision=2"
    ]
