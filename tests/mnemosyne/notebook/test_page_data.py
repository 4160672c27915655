"""What the notebook page shows: every memory's row, the skipped files, searches with
recall's ranking, a memory in full, the export; all read afresh, nothing written."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import (
    SCOPES,
    canonical_record,
    place_canonical,
    remember_arguments,
    snapshot_tree,
    write_record,
)
from tests.mnemosyne.notebook.page_support import PageClient

SCRIPT_TITLE = "<img src=x onerror=alert(1)>"


def _id(number: int) -> str:
    return f"mem_{number:032x}"


def _place(root: Path, number: int, **fields: Any) -> dict[str, Any]:
    record = canonical_record(id=_id(number), **fields)
    place_canonical(root, record)
    return record


def _rows(page: PageClient) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = page.overview()["memories"]
    return rows


def test_an_empty_or_missing_memory_root_is_an_empty_notebook(
    page: PageClient, memory_root: Path
) -> None:
    assert page.overview() == {"status": "ok", "memories": [], "skipped": []}
    assert not memory_root.exists()


def test_a_row_shows_title_kind_state_dates_and_place_never_content(
    page: PageClient, memory_root: Path
) -> None:
    record = _place(memory_root, 1, title="Shared memory ownership")

    [row] = _rows(page)

    assert row == {
        "reference": {
            "schema_version": 2,
            "scope": "project",
            "namespace_id": "mnemosyne",
            "collection_id": "decisions",
            "id": _id(1),
        },
        "scope": "project",
        "namespace": {"kind": "project", "id": "mnemosyne", "label": "Mnemosyne"},
        "collection": {"id": "decisions", "label": "Decisions"},
        "title": "Shared memory ownership",
        "kind": "decision",
        "state": "active",
        "revision": 1,
        "created_at": record["created_at"],
        "updated_at": record["updated_at"],
        "occurred_at": None,
    }


def test_a_version_1_record_has_a_row_with_what_version_1_can_say(
    page: PageClient, memory_root: Path
) -> None:
    write_record(
        memory_root, {"schema_version": 1, "id": "old-note", "content": "x"}, "self", "a.json"
    )

    [row] = _rows(page)

    assert row["reference"] == {"schema_version": 1, "scope": "self", "id": "old-note"}
    assert (row["title"], row["kind"], row["state"], row["created_at"]) == (
        None,
        None,
        "active",
        None,
    )


def test_rows_come_in_notebook_order_archived_ones_marked(
    page: PageClient, memory_root: Path
) -> None:
    _place(memory_root, 3, lifecycle={"state": "archived", "revision": 2})
    _place(memory_root, 2, collection=None)
    _place(
        memory_root,
        1,
        scope="self",
        namespace={"kind": "aspect", "id": "health", "label": None},
        kind="attribute",
        collection=None,
    )

    rows = _rows(page)

    assert [(row["scope"], row["reference"]["id"], row["state"]) for row in rows] == [
        ("self", _id(1), "active"),
        ("project", _id(2), "active"),
        ("project", _id(3), "archived"),
    ]


def test_the_skipped_files_show_with_their_path_below_the_root_and_reason(
    page: PageClient, memory_root: Path
) -> None:
    _place(memory_root, 1)
    write_record(memory_root, "{not json", "project", "mnemosyne", "broken.json")
    wrong_place = canonical_record(id=_id(2))
    write_record(memory_root, wrong_place, "project", "elsewhere", f"{_id(2)}.json")
    write_record(memory_root, "{}", "stray", "x.json")

    overview = page.overview()

    assert overview["skipped"] == [
        {"path": f"project/elsewhere/{_id(2)}.json", "reason": "path_mismatch"},
        {"path": "project/mnemosyne/broken.json", "reason": "invalid_json"},
        {"path": "stray/", "reason": "not_a_scope"},
    ]
    assert [row["reference"]["id"] for row in overview["memories"]] == [_id(1)]


def test_a_file_changed_by_hand_shows_on_the_next_load(page: PageClient, memory_root: Path) -> None:
    path = place_canonical(memory_root, canonical_record(title="Before"))
    assert page.titles() == ["Before"]

    path.write_text(json.dumps(canonical_record(title="After")), encoding="utf-8")
    assert page.titles() == ["After"]

    path.write_text("{broken", encoding="utf-8")
    overview = page.overview()
    assert overview["memories"] == []
    assert overview["skipped"][0]["reason"] == "invalid_json"


def test_a_script_like_title_comes_back_as_the_same_characters(
    page: PageClient, memory_root: Path
) -> None:
    _place(memory_root, 1, title=SCRIPT_TITLE)

    response = page.get("/notebook/api/overview")

    assert response.headers["content-type"].startswith("application/json")
    assert response.json()["memories"][0]["title"] == SCRIPT_TITLE


def test_a_memory_root_that_cannot_be_read_is_503_without_its_path(
    page: PageClient, memory_root: Path
) -> None:
    memory_root.write_text("a file, not a folder")

    response = page.get("/notebook/api/overview")

    assert response.status_code == 503
    assert response.json()["code"] == "memory_source_unavailable"
    assert str(memory_root) not in response.text


def test_search_answers_with_recall_in_each_of_the_six_scopes(
    page: PageClient, memory_root: Path
) -> None:
    _place(memory_root, 1, title="Coffee brewing", content="Filter coffee every morning.")
    expected = page.mcp.call("memory_recall", {"query": "coffee", "scope": "project"}).payload

    results = page.search("coffee")

    assert [result["scope"] for result in results] == SCOPES
    by_scope = {result["scope"]: result for result in results}
    assert by_scope["project"] == {"scope": "project", "is_error": False, "answer": expected}
    assert by_scope["self"]["answer"] == {"status": "no_matches", "memories": []}


def test_search_in_one_scope_asks_that_scope_alone(page: PageClient, memory_root: Path) -> None:
    _place(memory_root, 1, title="Coffee brewing")

    results = page.search("coffee", "project")

    assert [result["scope"] for result in results] == ["project"]
    assert results[0]["answer"]["memories"][0]["id"] == _id(1)


def test_a_wider_match_comes_marked_as_such(page: PageClient, memory_root: Path) -> None:
    _place(memory_root, 1, title=None, tags=[], content="My favourite drink is a flat white.")

    [result] = page.search("favorite", "project")

    [hit] = result["answer"]["memories"]
    assert hit["match"] == {"terms": [], "tags": [], "near": ["favorite"]}


@pytest.mark.parametrize(
    ("body", "code"),
    [({"query": "", "scope": "project"}, "invalid_query"), ({"query": "x", "scope": "y"}, None)],
)
def test_a_bad_search_gets_recall_s_own_refusal(
    page: PageClient, body: dict[str, Any], code: str | None
) -> None:
    response = page.post("/notebook/api/search", body)

    [result] = response.json()["results"]
    assert result["is_error"] is True
    assert result["answer"]["status"] == "invalid_request"
    assert result["answer"]["code"] == (code or "invalid_scope")


def test_a_memory_in_full_is_what_memory_inspect_returns(
    page: PageClient, memory_root: Path
) -> None:
    record = _place(memory_root, 1)
    reference = _rows(page)[0]["reference"]
    expected = page.mcp.call("memory_inspect", {"reference": reference}).payload

    answer = page.inspect(reference)

    assert answer == {"is_error": False, "answer": expected}
    assert answer["answer"]["memory"]["content"] == record["content"]


def test_an_unknown_memory_gets_inspect_s_not_found(page: PageClient) -> None:
    reference = {"schema_version": 1, "scope": "self", "id": "gone"}

    answer = page.inspect(reference)

    assert answer["is_error"] is True
    assert answer["answer"]["code"] == "not_found"


def test_the_export_is_the_document_mymcp_export_writes(
    page: PageClient, memory_root: Path
) -> None:
    _place(memory_root, 1)
    write_record(memory_root, "{", "self", "broken.json")

    response = page.get("/notebook/api/export")

    assert response.status_code == 200
    assert response.headers["content-disposition"].startswith('attachment; filename="mymcp-')
    document = response.json()
    assert (document["format"], document["format_version"]) == ("mymcp-notebook", 1)
    assert document["scopes"] == SCOPES
    assert [entry["reference"]["id"] for entry in document["records"]] == [_id(1)]
    assert document["skipped"] == [{"path": "self/broken.json", "reason": "invalid_json"}]


def test_the_session_names_each_tool_its_gate_and_the_scopes(page: PageClient) -> None:
    session = page.get("/notebook/api/session").json()

    tools = {tool["role"]: tool for tool in session["tools"]}
    assert tools["recall"] == {
        "role": "recall",
        "tool": "memory_recall",
        "variable": None,
        "setting": None,
        "enabled": True,
    }
    assert tools["archive"]["enabled"] is False
    assert tools["archive"]["setting"] == "archive_restore_enabled"
    assert tools["forget"]["variable"].startswith("MNEMOSYNE_MEMORY_")
    assert [scope["scope"] for scope in session["scopes"]] == SCOPES
    assert session["settings_file"] == "~/.mnemosyne/config.toml"


def test_reading_the_page_changes_no_file(page: PageClient, memory_root: Path) -> None:
    _place(memory_root, 1)
    write_record(memory_root, "{", "self", "broken.json")
    os.chmod(memory_root, 0o700)
    before = snapshot_tree(memory_root)

    page.overview()
    page.search("memory")
    page.inspect(_rows(page)[0]["reference"])
    page.get("/notebook/api/export")

    assert snapshot_tree(memory_root) == before


def test_nothing_of_a_memory_the_secret_or_the_cookie_reaches_a_log_line(
    open_page: Any, memory_root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    arguments = remember_arguments(title="Private title words", content="Private content words")
    visitor = open_page(remember=True)
    visitor.mcp.call("memory_remember", arguments)  # remember's own line is the contract's
    caplog.set_level(logging.DEBUG)
    caplog.clear()
    secret = visitor.secret()
    visitor.post("/notebook/login", {"secret": secret}, csrf=False)
    visitor.csrf = visitor.get("/notebook/api/session").json()["csrf"]
    reference = _rows(visitor)[0]["reference"]
    visitor.search("private words")
    visitor.inspect(reference)
    visitor.get("/notebook/api/export")
    cookie = visitor.http.cookies["mymcp_notebook_8000"]

    logged = "\n".join(record.getMessage() for record in caplog.records)

    for private in ("Private", "private words", secret, cookie, visitor.csrf, reference["id"]):
        assert private not in logged
    assert "event=notebook_login outcome=ok" in logged
