"""memory_recall through POST /mcp: schema, validation, ranking, containers, freshness, logs."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

import pytest

from mymcp.plugins.mnemosyne.memory.recall import ranking
from mymcp.plugins.mnemosyne.memory.storage import files, scan
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore
from mymcp.plugins.mnemosyne.tools import schemas
from tests.helpers import (
    CANONICAL_ID,
    SCOPES,
    McpClient,
    ToolReply,
    canonical_record,
    log_events,
    log_messages,
    place_canonical,
    snapshot_tree,
    write_record,
)

TOOL = "memory_recall"
LOGGER = "mcp.memory_recall"
STORE_LOGGER = "mymcp.memory.store"

QUERY_MESSAGE = "query must be a non-empty string of at most 1000 characters"
SCOPE_MESSAGE = "scope must be one of: self, relationship, preference, practice, project, knowledge"
TAGS_MESSAGE = "tags must be an array of 1 to 10 unique non-empty strings of at most 50 characters"


def _recall(client: McpClient, query: Any = "zebra", scope: Any = "project", **extra: Any) -> Any:
    arguments = {"query": query, "scope": scope, **extra}
    return client.call(TOOL, arguments)


def _legacy(root: Path, *parts: str, **fields: Any) -> Path:
    """A v1 record at ``root/project/parts...``; the ID defaults to the file stem."""
    record = {"schema_version": 1, "id": parts[-1].removesuffix(".json"), "content": "filler"}
    record.update(fields)
    return write_record(root, record, "project", *parts)


def _mem_id(number: int) -> str:
    return f"mem_{number:032x}"


def _canonical(root: Path, number: int, **overrides: Any) -> Path:
    overrides.setdefault("title", None)
    overrides.setdefault("content", "filler")
    overrides.setdefault("tags", [])
    return place_canonical(root, canonical_record(id=_mem_id(number), **overrides))


def _ids(reply: ToolReply) -> list[str]:
    return [memory["id"] for memory in reply.payload["memories"]]


def _error(reply: ToolReply) -> tuple[str, str, str]:
    assert reply.is_error
    assert "field" not in reply.payload
    return reply.payload["status"], reply.payload["code"], reply.payload["message"]


# --- schema ------------------------------------------------------------------------------


def test_recall_schema_has_the_contract_structure(client: McpClient) -> None:
    tool = client.declaration(TOOL)
    schema = tool["inputSchema"]
    assert schema["type"] == "object"
    assert list(schema["properties"]) == ["query", "scope", "tags", "namespace_id"]
    assert schema["required"] == ["query", "scope"]
    assert schema["additionalProperties"] is False
    query = schema["properties"]["query"]
    assert (query["type"], query["minLength"], query["maxLength"]) == ("string", 1, 1000)
    scope = schema["properties"]["scope"]
    assert scope["type"] == "string"
    assert scope["enum"] == SCOPES
    assert scope["description"] == schemas.scope_catalogue()
    tags = schema["properties"]["tags"]
    # Issue 12: no uniqueItems and no pattern beside a length (the description says both).
    assert (tags["type"], tags["minItems"], tags["maxItems"]) == ("array", 1, 10)
    assert "uniqueItems" not in tags
    assert "distinct" in tags["description"]
    assert tags["items"] == {"type": "string", "minLength": 1, "maxLength": 50}


def test_recall_description_asks_for_a_narrow_request(client: McpClient) -> None:
    tool = client.declaration(TOOL)
    text = tool["description"].lower()
    assert "one scope" in text and "general world knowledge" in text
    assert "secrets" in text and "conversations" in text


# --- validation --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "arguments",
    [
        {"scope": "project"},
        {"query": None, "scope": "project"},
        {"query": 5, "scope": "project"},
        {"query": ["zebra"], "scope": "project"},
        {"query": "", "scope": "project"},
        {"query": " \t\n\u00a0", "scope": "project"},
        {"query": "z" * 1001, "scope": "project"},
    ],
)
def test_recall_rejects_an_invalid_query(client: McpClient, arguments: dict[str, Any]) -> None:
    reply = client.call(TOOL, arguments)
    assert _error(reply) == ("invalid_request", "invalid_query", QUERY_MESSAGE)


def test_recall_accepts_a_query_of_exactly_1000_characters(client: McpClient) -> None:
    reply = _recall(client, query="z" * 1000)
    assert reply.payload == {"status": "no_matches", "memories": []}


@pytest.mark.parametrize("scope", [None, "Project", "projects", " project", ["project"], 1])
def test_recall_rejects_an_invalid_scope(client: McpClient, scope: Any) -> None:
    reply = _recall(client, scope=scope)
    assert _error(reply) == ("invalid_request", "invalid_scope", SCOPE_MESSAGE)


def test_recall_rejects_a_missing_scope(client: McpClient) -> None:
    reply = client.call(TOOL, {"query": "zebra"})
    assert _error(reply) == ("invalid_request", "invalid_scope", SCOPE_MESSAGE)


@pytest.mark.parametrize(
    "tags",
    [
        None,
        [],
        "zebra",
        {"tag": "zebra"},
        [f"t{number}" for number in range(11)],
        ["ok", 5],
        ["ok", None],
        ["ok", "   "],
        ["t" * 51],
        ["same", "same"],
    ],
)
def test_recall_rejects_invalid_tags(client: McpClient, tags: Any) -> None:
    reply = _recall(client, tags=tags)
    assert _error(reply) == ("invalid_request", "invalid_tags", TAGS_MESSAGE)


def test_recall_accepts_tags_that_differ_only_in_case(client: McpClient) -> None:
    reply = _recall(client, tags=["Zebra", "zebra", "t" * 50])
    assert not reply.is_error


def test_recall_reports_the_first_failure_in_contract_order(client: McpClient) -> None:
    assert _error(client.call(TOOL, {"query": "", "scope": "nope", "tags": []}))[1] == (
        "invalid_query"
    )
    assert _error(client.call(TOOL, {"query": "ok", "scope": "nope", "tags": []}))[1] == (
        "invalid_scope"
    )
    assert _error(client.call(TOOL, {"query": "ok", "scope": "project", "tags": []}))[1] == (
        "invalid_tags"
    )


def test_recall_ignores_unknown_argument_keys(client: McpClient, memory_root: Path) -> None:
    _legacy(memory_root, "z.json", title="zebra")
    reply = _recall(client, limit=3, other={"x": 1})
    assert _ids(reply) == ["z"]


def test_recall_uses_the_query_as_given(client: McpClient, memory_root: Path) -> None:
    # Not NFC-normalized: a decomposed query misses the composed word of a v2 record in the
    # exact tier; only the wider tier, which folds accents away, finds it.
    _canonical(memory_root, 1, content="Notes about the café downtown.")
    assert _ids(_recall(client, query="café")) == [_mem_id(1)]
    reply = _recall(client, query="cafe\u0301")
    assert _ids(reply) == [_mem_id(1)]
    assert reply.payload["memories"][0]["match"] == {
        "terms": [],
        "tags": [],
        "near": ["cafe\u0301"],
    }


def test_recall_tags_as_json_text_are_decoded_by_the_host(
    client: McpClient, memory_root: Path
) -> None:
    _legacy(memory_root, "z.json", tags=["Stripes"])
    reply = _recall(client, query="nothing here", tags='["stripes"]')
    assert _ids(reply) == ["z"]
    assert reply.payload["memories"][0]["match"] == {"terms": [], "tags": ["stripes"]}


def test_recall_tags_text_that_is_not_an_array_stays_invalid(client: McpClient) -> None:
    assert _error(_recall(client, tags='"stripes"'))[1] == "invalid_tags"
    assert _error(_recall(client, tags='["a", "a"]'))[1] == "invalid_tags"


# --- operation failures ------------------------------------------------------------------


def test_recall_scope_path_that_is_a_file_is_unavailable(
    client: McpClient, memory_root: Path
) -> None:
    memory_root.mkdir()
    (memory_root / "project").write_text("{}")
    reply = _recall(client)
    assert _error(reply) == (
        "retrieval_error",
        "memory_source_unavailable",
        "memory source could not be read",
    )


def test_recall_more_than_1000_candidates_is_refused(client: McpClient, memory_root: Path) -> None:
    folder = memory_root / "project" / "bulk"
    folder.mkdir(parents=True)
    for number in range(1000):
        (folder / f"junk{number:04d}.json").write_text("not json")
    assert _recall(client).payload["status"] == "no_matches"
    (folder / "junk1000.json").write_text("not json")
    assert _error(_recall(client)) == (
        "retrieval_error",
        "candidate_limit_exceeded",
        "memory scope contains more than 1000 candidate files",
    )


def test_recall_candidate_bound_counts_the_whole_scope_tree(
    client: McpClient, memory_root: Path
) -> None:
    for number in range(1001):
        folder = memory_root / "project" / f"ns{number % 3}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{number}.json").write_text("{}")
    assert _error(_recall(client))[1] == "candidate_limit_exceeded"
    assert _recall(client, scope="knowledge").payload["status"] == "no_matches"


def test_recall_unlistable_directory_is_unavailable(
    client: McpClient, memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _legacy(memory_root, "z.json", title="zebra")

    real_scandir = os.scandir

    def refuse(path: Any) -> Any:
        if isinstance(path, int):  # the walk lists directories by descriptor
            raise PermissionError("denied")
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", refuse)
    assert _error(_recall(client))[1] == "memory_source_unavailable"


def test_recall_unexpected_failure_is_a_bounded_internal_error(
    client: McpClient,
    memory_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def explode(self: MemoryStore, root: Path, scope: Any) -> Any:
        raise RuntimeError("SECRET-DETAIL")

    monkeypatch.setattr(MemoryStore, "followed_scope", explode)
    caplog.set_level(logging.INFO)
    response = client.post(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": TOOL, "arguments": {"query": "zebra", "scope": "project"}},
            }
        )
    )
    assert response.status_code == 200
    result = response.json()["result"]
    assert result["isError"] is True
    assert json.loads(result["content"][0]["text"]) == {
        "status": "internal_error",
        "code": "internal_error",
        "message": "memory could not be recalled",
    }
    assert (logging.ERROR, "event=memory_recall outcome=internal_error code=internal_error") in (
        log_events(caplog, LOGGER)
    )
    assert "SECRET-DETAIL" not in caplog.text


# --- containers (§4.3 recall column) -----------------------------------------------------


def test_recall_missing_root_is_no_matches(client: McpClient, memory_root: Path) -> None:
    assert _recall(client).payload == {"status": "no_matches", "memories": []}
    assert not memory_root.exists()


def test_recall_follows_a_symlinked_root(
    client: McpClient, memory_root: Path, tmp_path: Path
) -> None:
    real = tmp_path / "real-root"
    _legacy(real, "z.json", title="zebra")
    memory_root.symlink_to(real)
    assert _ids(_recall(client)) == ["z"]


def test_recall_root_that_is_a_file_is_no_matches(client: McpClient, memory_root: Path) -> None:
    memory_root.write_text("plain file")
    reply = _recall(client)
    assert not reply.is_error
    assert reply.payload == {"status": "no_matches", "memories": []}


def test_recall_missing_scope_is_no_matches(client: McpClient, memory_root: Path) -> None:
    _legacy(memory_root, "z.json", title="zebra")
    assert _recall(client, scope="knowledge").payload == {"status": "no_matches", "memories": []}


def test_recall_symlinked_scope_is_no_matches_with_a_warning(
    client: McpClient, memory_root: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    real = tmp_path / "elsewhere"
    _legacy(real, "z.json", title="zebra")
    memory_root.mkdir()
    (memory_root / "project").symlink_to(real / "project")
    caplog.set_level(logging.INFO)
    assert _recall(client).payload == {"status": "no_matches", "memories": []}
    assert log_messages(caplog, STORE_LOGGER) == ["skipped scope='project' reason='symlink'"]


def test_recall_skips_a_symlinked_namespace_directory(
    client: McpClient, memory_root: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _legacy(tmp_path / "outside", "hidden", "h.json", title="zebra")
    _legacy(memory_root, "a", "z.json", title="zebra")
    (memory_root / "project" / "b").symlink_to(tmp_path / "outside" / "project" / "hidden")
    caplog.set_level(logging.INFO)
    assert _ids(_recall(client)) == ["z"]
    assert log_messages(caplog, STORE_LOGGER) == ["skipped scope='project' reason='symlink'"]


# --- tokenization and scoring ------------------------------------------------------------


def test_recall_weights_title_over_path_and_tags_over_content(
    client: McpClient, memory_root: Path
) -> None:
    _legacy(memory_root, "t.json", title="Zebra facts")
    _legacy(memory_root, "zebra", "p.json")
    _legacy(memory_root, "g.json", tags=["zebra crossing"])
    _legacy(memory_root, "c.json", content="A zebra was seen.")
    _legacy(memory_root, "n.json", content="Nothing relevant.")
    reply = _recall(client)
    # title 3; path 2 and tag word 2 tie, broken by path ("g.json" < "zebra/p.json"); content 1
    assert _ids(reply) == ["t", "g", "p", "c"]
    assert all(memory["match"]["terms"] == ["zebra"] for memory in reply.payload["memories"])


def test_recall_requested_tag_outweighs_a_title_term(client: McpClient, memory_root: Path) -> None:
    _legacy(memory_root, "a.json", title="zebra")
    _legacy(memory_root, "b.json", tags=["Zebra   Crossing"])
    reply = _recall(client, tags=["zebra crossing"])
    assert _ids(reply) == ["b", "a"]
    first, second = reply.payload["memories"]
    assert first["match"] == {"terms": ["zebra"], "tags": ["zebra crossing"]}
    assert first["tags"] == ["Zebra   Crossing"]
    assert second["match"] == {"terms": ["zebra"], "tags": []}


def test_recall_components_add_up_for_one_term(client: McpClient, memory_root: Path) -> None:
    # One term in title, path and content (3 + 2 + 1) equals two title terms (3 + 3)...
    _legacy(memory_root, "zebra", "all.json", title="zebra", content="zebra")
    _legacy(memory_root, "a.json", title="zebra stripes")
    # ...and beats one title term plus one content term (3 + 1).
    _legacy(memory_root, "b.json", title="zebra", content="stripes")
    reply = _recall(client, query="zebra stripes")
    # The tie at 6 is broken by path: "a.json" < "zebra/all.json".
    assert _ids(reply) == ["a", "all", "b"]
    assert reply.payload["memories"][0]["match"]["terms"] == ["stripes", "zebra"]


def test_recall_counts_a_repeated_term_once(client: McpClient, memory_root: Path) -> None:
    _legacy(memory_root, "a.json", content="zebra zebra zebra zebra")
    _legacy(memory_root, "b.json", title="zebra")
    assert _ids(_recall(client, query="zebra zebra")) == ["b", "a"]


def test_recall_ties_are_broken_by_path_in_code_point_order(
    client: McpClient, memory_root: Path
) -> None:
    _legacy(memory_root, "b.json", id="first", content="zebra")
    _legacy(memory_root, "B.json", id="second", content="zebra")
    _legacy(memory_root, "a", "z.json", id="third", content="zebra")
    assert _ids(_recall(client)) == ["second", "third", "first"]


def test_recall_keeps_duplicate_legacy_ids_as_separate_results(
    client: McpClient, memory_root: Path
) -> None:
    _legacy(memory_root, "one", "dup.json", content="zebra one")
    _legacy(memory_root, "two", "dup.json", content="zebra two")
    reply = _recall(client)
    assert _ids(reply) == ["dup", "dup"]
    assert [m["content"] for m in reply.payload["memories"]] == ["zebra one", "zebra two"]


def test_recall_returns_at_most_five(client: McpClient, memory_root: Path) -> None:
    for number in range(7):
        _legacy(memory_root, f"r{number}.json", content="zebra")
    _legacy(memory_root, "top.json", title="zebra")
    assert _ids(_recall(client)) == ["top", "r0", "r1", "r2", "r3"]


def test_recall_excludes_archived_canonical_records(client: McpClient, memory_root: Path) -> None:
    _canonical(memory_root, 1, title="zebra")
    _canonical(memory_root, 2, title="zebra", lifecycle={"state": "archived", "revision": 2})
    assert _ids(_recall(client)) == [_mem_id(1)]


def test_recall_drops_stop_words_and_one_character_terms(
    client: McpClient, memory_root: Path
) -> None:
    _legacy(memory_root, "a.json", title="what is the user doing", content="x y z")
    assert _recall(client, query="What is THE user?").payload["status"] == "no_matches"
    # The exact tier drops "x" and "y"; the wider tier meets the same one-letter terms.
    reply = _recall(client, query="What is THE user? x y")
    assert reply.payload["memories"][0]["match"] == {"terms": [], "tags": [], "near": ["x", "y"]}
    assert len(ranking.STOP_WORDS) == 24


def test_recall_underscore_and_punctuation_separate_terms(
    client: McpClient, memory_root: Path
) -> None:
    _legacy(memory_root, "a.json", content="brew-coffee, daily")
    reply = _recall(client, query="brew_daily")
    assert reply.payload["memories"][0]["match"]["terms"] == ["brew", "daily"]


def test_recall_matches_case_insensitively_with_casefolding(
    client: McpClient, memory_root: Path
) -> None:
    _legacy(memory_root, "a.json", content="Die STRASSE ist lang.")
    _legacy(memory_root, "b.json", content="Ein Café am Fluss.")
    assert _ids(_recall(client, query="straße")) == ["a"]
    assert _ids(_recall(client, query="CAFÉ")) == ["b"]


def test_recall_file_name_words_are_always_path_terms(client: McpClient, memory_root: Path) -> None:
    _legacy(memory_root, "a.json")
    _canonical(memory_root, 7)
    reply = _recall(client, query="json")
    assert sorted(_ids(reply)) == sorted(["a", _mem_id(7)])
    assert _ids(_recall(client, query="mem")) == [_mem_id(7)]


def test_recall_scope_name_is_not_a_path_term(client: McpClient, memory_root: Path) -> None:
    _legacy(memory_root, "a.json")
    assert _recall(client, query="project").payload["status"] == "no_matches"


def test_recall_tag_only_query_matches_by_tag(client: McpClient, memory_root: Path) -> None:
    _canonical(memory_root, 1, tags=["Weekend plans"])
    reply = _recall(client, query="the", tags=["WEEKEND  plans"])
    assert reply.payload["memories"][0]["match"] == {"terms": [], "tags": ["weekend plans"]}


def test_recall_mixes_legacy_and_canonical_results(client: McpClient, memory_root: Path) -> None:
    _canonical(
        memory_root,
        1,
        title="  Zebra  notes ",
        content="Line one\r\nzebra line two ",
        tags=["Field   Work", "zebra"],
        collection=None,
    )
    _legacy(
        memory_root,
        "legacy",
        "old.json",
        id="Old.Note",
        title="  zebra verbatim  ",
        content="  keep\r\n spacing  ",
    )
    reply = _recall(client)
    assert reply.payload["status"] == "ok"
    canonical, legacy = reply.payload["memories"]
    assert list(canonical) == ["reference", "id", "scope", "title", "content", "tags", "match"]
    assert canonical == {
        "reference": {
            "schema_version": 2,
            "scope": "project",
            "namespace_id": "mnemosyne",
            "collection_id": None,
            "id": _mem_id(1),
        },
        "id": _mem_id(1),
        "scope": "project",
        "title": "Zebra  notes",
        "content": "Line one\nzebra line two",
        "tags": ["Field Work", "zebra"],
        "match": {"terms": ["zebra"], "tags": []},
    }
    assert legacy == {
        "reference": {"schema_version": 1, "scope": "project", "id": "Old.Note"},
        "id": "Old.Note",
        "scope": "project",
        "title": "  zebra verbatim  ",
        "content": "  keep\r\n spacing  ",
        "tags": [],
        "match": {"terms": ["zebra"], "tags": []},
    }


def test_recall_match_lists_are_sorted(client: McpClient, memory_root: Path) -> None:
    _legacy(memory_root, "a.json", content="yak walrus zebra", tags=["Beta", "alpha"])
    reply = _recall(client, query="zebra yak walrus", tags=["beta", "ALPHA"])
    assert reply.payload["memories"][0]["match"] == {
        "terms": ["walrus", "yak", "zebra"],
        "tags": ["alpha", "beta"],
    }


def test_recall_legacy_record_in_another_scope_reports_the_requested_scope(
    client: McpClient, memory_root: Path
) -> None:
    write_record(
        memory_root, {"schema_version": 1, "id": "p", "content": "zebra"}, "preference", "p.json"
    )
    reply = _recall(client, scope="preference")
    memory = reply.payload["memories"][0]
    assert memory["scope"] == "preference"
    assert memory["reference"] == {"schema_version": 1, "scope": "preference", "id": "p"}


# --- invalid and unusual files -----------------------------------------------------------


def test_recall_skips_every_invalid_kind_of_file_with_its_warning(
    client: McpClient, memory_root: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _legacy(memory_root, "good.json", content="zebra")
    scope = memory_root / "project"
    (scope / "a_json.json").write_text("{not json")
    (scope / "b_bom.json").write_bytes(b"\xef\xbb\xbf" + json.dumps({"x": 1}).encode())
    (scope / "c_enc.json").write_bytes(b'{"schema_version": 1, "id": "e", "content": "\xff"}')
    (scope / "d_rec.json").write_text(json.dumps({"schema_version": 1, "id": "d"}))
    (scope / "e_big.json").write_bytes(b" " * (files.MAX_RECORD_BYTES + 1))
    (scope / "f_deep.json").write_text("[" * 30_000 + "]" * 30_000)
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps({"schema_version": 1, "id": "out", "content": "zebra"}))
    (scope / "g_link.json").symlink_to(outside)
    misplaced = canonical_record(id=_mem_id(9), content="zebra")
    write_record(memory_root, misplaced, "project", "wrong", f"{_mem_id(9)}.json")
    write_record(memory_root, {"schema_version": 1, "id": "deep", "content": "zebra"},
                 "project", "a", "b", "c", "d", "e", "deep.json")  # fmt: skip
    caplog.set_level(logging.INFO)
    reply = _recall(client)
    assert _ids(reply) == ["good"]
    assert sorted(log_messages(caplog, STORE_LOGGER)) == sorted(
        f"skipped scope='project' reason='{reason}'"
        for reason in (
            "invalid_json",
            "invalid_json",
            "invalid_encoding",
            "invalid_record",
            "oversized",
            "invalid_json",
            "symlink",
            "path_mismatch",
            "too_deep",
        )
    )


def test_recall_finds_files_at_the_depth_limit_and_of_exactly_64_kib(
    client: McpClient, memory_root: Path
) -> None:
    _legacy(memory_root, "a", "b", "c", "d", "x.json", content="zebra")
    body = json.dumps({"schema_version": 1, "id": "big", "content": "zebra"}).encode()
    padded = body[:-1] + b" " * (files.MAX_RECORD_BYTES - len(body)) + b"}"
    assert len(padded) == files.MAX_RECORD_BYTES
    (memory_root / "project" / "big.json").write_bytes(padded)
    assert sorted(_ids(_recall(client))) == ["big", "x"]


def test_recall_ignores_files_that_are_not_json_candidates(
    client: McpClient, memory_root: Path
) -> None:
    _legacy(memory_root, "ok.json", content="zebra")
    scope = memory_root / "project"
    record = json.dumps({"schema_version": 1, "id": "other", "content": "zebra"})
    for name in ("x.JSON", ".json", "x.json.bak", "x.txt"):
        (scope / name).write_text(record)
    (scope / ".hidden.json").write_text(record.replace("other", "hidden"))
    assert sorted(_ids(_recall(client))) == ["hidden", "ok"]


# --- freshness and the memo --------------------------------------------------------------


def test_recall_sees_edited_replaced_added_and_deleted_files(
    client: McpClient, memory_root: Path
) -> None:
    path = _legacy(memory_root, "a.json", content="zebra")
    assert _ids(_recall(client)) == ["a"]
    # Same size, different word.
    path.write_text(path.read_text().replace("zebra", "okapi"))
    assert _recall(client).payload["status"] == "no_matches"
    assert _ids(_recall(client, query="okapi")) == ["a"]
    # Replaced by a new file (new inode).
    replacement = path.with_name("a.tmp")
    replacement.write_text(json.dumps({"schema_version": 1, "id": "a", "content": "zebra again"}))
    os.replace(replacement, path)
    assert _recall(client).payload["memories"][0]["content"] == "zebra again"
    _legacy(memory_root, "b.json", title="zebra")
    assert _ids(_recall(client)) == ["b", "a"]
    path.unlink()
    assert _ids(_recall(client)) == ["b"]


def test_recall_sees_a_same_size_rewrite_of_a_settled_file(
    client: McpClient, memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scan, "RACY_WINDOW_NS", 0)
    path = _legacy(memory_root, "a.json", content="zebra")
    os.utime(path, ns=(1, 1))
    assert _ids(_recall(client)) == ["a"]
    path.write_text(path.read_text().replace("zebra", "okapi"))
    assert _recall(client).payload["status"] == "no_matches"
    assert _ids(_recall(client, query="okapi")) == ["a"]


def test_recall_sees_entries_added_removed_and_renamed_in_a_settled_directory(
    client: McpClient, memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every file and directory counts as settled: listings and reads are reused at once.
    monkeypatch.setattr(scan, "RACY_WINDOW_NS", -(10**12))
    _legacy(memory_root, "ns", "a.json", content="zebra one")
    assert _ids(_recall(client)) == ["a"]
    assert _ids(_recall(client)) == ["a"]
    _legacy(memory_root, "ns", "b.json", content="zebra two")
    assert _ids(_recall(client)) == ["a", "b"]
    os.rename(memory_root / "project" / "ns" / "a.json", memory_root / "project" / "ns" / "c.json")
    assert [m["reference"]["id"] for m in _recall(client).payload["memories"]] == ["b", "a"]
    (memory_root / "project" / "ns" / "b.json").unlink()
    (memory_root / "project" / "ns" / "sub").mkdir()
    _legacy(memory_root, "ns", "sub", "d.json", title="zebra")
    assert _ids(_recall(client)) == ["d", "a"]
    os.symlink(memory_root / "project" / "ns" / "sub", memory_root / "project" / "link")
    assert _ids(_recall(client)) == ["d", "a"]


def test_recall_tokenizes_and_reads_unchanged_files_only_once(
    client: McpClient, memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every file counts as settled, so the cache is trusted on the very next call.
    monkeypatch.setattr(scan, "RACY_WINDOW_NS", -(10**12))
    for number in range(20):
        _canonical(memory_root, number, content=f"zebra number {number}")
    described: list[str] = []
    reads: list[str] = []
    real_words, real_read = ranking.record_words, files.read_file_at

    def counting_words(stored: Any, record: Any) -> Any:
        described.append(stored.id)
        return real_words(stored, record)

    def counting_read(fd: int, name: str) -> files.FileContent:
        reads.append(name)
        return real_read(fd, name)

    monkeypatch.setattr(ranking, "record_words", counting_words)
    monkeypatch.setattr(files, "read_file_at", counting_read)
    assert len(_ids(_recall(client))) == 5
    assert len(reads) == 20 and sorted(described) == sorted(_mem_id(n) for n in range(20))
    described.clear()
    reads.clear()
    assert len(_ids(_recall(client, query="number zebra"))) == 5
    assert reads == [] and described == []
    # A changed file is read and its words worked out again, and only that one.
    _canonical(memory_root, 3, title="okapi", content="zebra number 3")
    assert _ids(_recall(client, query="okapi")) == [_mem_id(3)]
    assert reads == [f"{_mem_id(3)}.json"]
    assert described == [_mem_id(3)]


def test_recall_never_creates_or_changes_anything(
    client: McpClient, memory_root: Path, hermetic_home: Path
) -> None:
    _recall(client)
    assert not memory_root.exists()
    _legacy(memory_root, "a.json", content="zebra")
    (memory_root / "project" / "junk.json").write_text("{")
    before_root, before_home = snapshot_tree(memory_root), snapshot_tree(hermetic_home)
    for arguments in (
        {"query": "zebra", "scope": "project"},
        {"query": "zebra", "scope": "knowledge"},
        {"query": "zebra", "scope": "project", "tags": ["x"]},
        {"query": "", "scope": "project"},
    ):
        client.call(TOOL, arguments)
    assert snapshot_tree(memory_root) == before_root
    assert snapshot_tree(hermetic_home) == before_home


# --- result envelope and logs -----------------------------------------------------------


def test_recall_result_is_compact_ascii_json_with_equal_structured_content(
    client: McpClient, memory_root: Path
) -> None:
    _legacy(memory_root, "a.json", title="Zebra café", content="naïve ✓")
    reply = _recall(client)
    text = reply.raw["content"][0]["text"]
    assert reply.raw["content"][0]["type"] == "text"
    assert text.isascii() and "caf\\u00e9" in text
    assert ": " not in text and ", " not in text
    assert text == json.dumps(reply.payload, separators=(",", ":"))
    assert reply.raw["structuredContent"] == json.loads(text)
    assert "isError" not in reply.raw


def test_recall_no_matches_is_not_an_error(client: McpClient) -> None:
    reply = _recall(client)
    assert reply.raw["content"][0]["text"] == '{"status":"no_matches","memories":[]}'
    assert "isError" not in reply.raw


def test_recall_logs_one_bounded_terminal_event(
    client: McpClient, memory_root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _legacy(memory_root, "a.json", content="zebra")
    caplog.set_level(logging.INFO)
    _recall(client)
    _recall(client, query="okapi", scope="knowledge")
    _recall(client, query="")
    (memory_root / "self").write_text("file")
    _recall(client, scope="self")
    assert log_events(caplog, LOGGER) == [
        (logging.INFO, "event=memory_recall outcome=ok scope=project returned_count=1"),
        (logging.INFO, "event=memory_recall outcome=no_matches scope=knowledge returned_count=0"),
        (logging.WARNING, "event=memory_recall outcome=invalid_request code=invalid_query"),
        (
            logging.WARNING,
            "event=memory_recall outcome=retrieval_error code=memory_source_unavailable "
            "cause=other errno=ENOTDIR directory=self",
        ),
    ]


def test_recall_logs_never_carry_the_query_tags_or_record_values(
    client: McpClient, memory_root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _legacy(memory_root, "a.json", id="IDMARKER", title="TITLEMARKER zebra")
    caplog.set_level(logging.DEBUG)
    _recall(client, query="zebra QUERYMARKER", tags=["TAGMARKER"])
    _recall(client, query="QUERYMARKER " * 200, tags=["TAGMARKER"])
    _recall(client, query="zebra QUERYMARKER", scope="SCOPEMARKER")
    _recall(client, query="zebra QUERYMARKER", tags=["TAGMARKER", "TAGMARKER"])
    assert caplog.records
    for marker in ("QUERYMARKER", "TAGMARKER", "IDMARKER", "TITLEMARKER", "SCOPEMARKER"):
        assert marker.lower() not in caplog.text.lower()


def test_recall_success_for_canonical_reference_matches_inspect_input(
    client: McpClient, memory_root: Path
) -> None:
    _canonical(memory_root, 1, title="zebra")
    reference = _recall(client).payload["memories"][0]["reference"]
    reply = client.call("memory_inspect", {"reference": reference})
    assert reply.payload["status"] == "ok"
    assert reply.payload["memory"]["id"] == _mem_id(1) != CANONICAL_ID
