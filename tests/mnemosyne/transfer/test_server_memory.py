"""``mymcp import --format server-memory``: the official memory server's graph as memories."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mymcp.plugins.mnemosyne.memory.model.records import parse_record_bytes
from mymcp.plugins.mnemosyne.memory.model.values import CONTENT_LIMIT, is_identifier
from mymcp.plugins.mnemosyne.memory.model.vocabulary import Scope
from mymcp.plugins.mnemosyne.memory.storage.store import encode_record
from mymcp.plugins.mnemosyne.transfer import server_memory
from mymcp.plugins.mnemosyne.transfer.importer import Incoming, Kind, Line
from mymcp.plugins.mnemosyne.transfer.server_memory import (
    ENTITY_TYPES,
    namespace_id,
    place_of,
    read_server_memory,
)
from tests.helpers import McpClient
from tests.mnemosyne.transfer.transfer_support import mymcp, record_files

ROOT = Path(__file__).resolve().parents[3]
SECRET = "ghp_" + "aB3dE5fG7hJ9kL1mN2pQ4rS6"


def entity(name: str, entity_type: str, *observations: str) -> dict[str, Any]:
    return {
        "type": "entity",
        "name": name,
        "entityType": entity_type,
        "observations": list(observations),
    }


def relation(source: str, relation_type: str, target: str) -> dict[str, Any]:
    return {"type": "relation", "from": source, "to": target, "relationType": relation_type}


def jsonl(*lines: object) -> bytes:
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


GRAPH = jsonl(
    entity("default_user", "person", "Lives in Lisbon", "Prefers morning meetings"),
    entity("Alice Smith", "person", "Speaks fluent Spanish", f"Her GitHub token is {SECRET}"),
    entity("Bob_Jones", "Colleague", "Reviews the database code"),
    entity("Atlas", "project", "A route planner for cyclists", "Due in spring"),
    relation("Alice Smith", "works_on", "Atlas"),
    relation("default_user", "knows", "Alice Smith"),
    relation("Bob_Jones", "mentors", "Alice Smith"),
)


@pytest.fixture
def graph_file(tmp_path: Path) -> Path:
    path = tmp_path / "memory.jsonl"
    path.write_bytes(GRAPH)
    return path


def stored(root: Path) -> dict[str, dict[str, Any]]:
    """Every record below ``root`` by the directory it is in."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(root.rglob("*.json")):
        found[str(path.parent.relative_to(root))] = json.loads(path.read_text())
    return found


# --- the must-show -----------------------------------------------------------------------------


def test_the_dry_run_reports_the_counts_and_writes_nothing(
    graph_file: Path, memory_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ran = mymcp(capsys, "import", str(graph_file), "--format", "server-memory")

    assert (ran.code, ran.err) == (0, "")
    assert ran.out.splitlines() == [
        "dry run: nothing is written; run again with --apply to import",
        "create   line 1 (entity): self/default-user/ (attribute: 2 observations, 1 relation)",
        "refused  line 2, observation 2: content: credential_shape (left out of the memory)",
        "create   line 2 (entity): relationship/alice-smith/ (summary: 1 observation, 3 relations)",
        "create   line 3 (entity): relationship/bob-jones/ (summary: 1 observation, 1 relation)",
        "create   line 4 (entity): project/atlas/ (summary: 2 observations, 1 relation)",
        "dry run: 4 to create, 0 already there, 1 refused, 0 invalid; nothing was written",
    ]
    assert not memory_root.exists()


def test_apply_creates_the_memories_where_a_person_would_look(
    graph_file: Path, memory_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ran = mymcp(capsys, "import", str(graph_file), "--format", "server-memory", "--apply")

    assert ran.out.splitlines()[-1] == "imported: 4 created, 0 already there, 1 refused, 0 invalid"
    records = stored(memory_root)
    assert sorted(records) == [
        "project/atlas",
        "relationship/alice-smith",
        "relationship/bob-jones",
        "self/default-user",
    ]
    alice = records["relationship/alice-smith"]
    assert alice["namespace"] == {"kind": "person", "id": "alice-smith", "label": "Alice Smith"}
    assert (alice["kind"], alice["title"], alice["collection"]) == ("summary", "Alice Smith", None)
    assert alice["content"] == (
        "- Speaks fluent Spanish\n\nRelations:\n- Alice Smith works_on Atlas\n"
        "- default_user knows Alice Smith\n- Bob_Jones mentors Alice Smith"
    )
    assert alice["tags"] == ["server-memory", "person"]
    assert alice["provenance"] == {"origin": "import", "recorded_via": "import"}
    assert alice["lifecycle"] == {"state": "active", "revision": 1}
    atlas = records["project/atlas"]
    assert (atlas["scope"], atlas["namespace"]["kind"]) == ("project", "project")
    assert atlas["content"] == (
        "- A route planner for cyclists\n- Due in spring\n\nRelations:\n"
        "- Alice Smith works_on Atlas"
    )
    assert records["relationship/bob-jones"]["tags"] == ["server-memory", "Colleague"]
    assert records["self/default-user"]["kind"] == "attribute"


def test_a_secret_observation_is_refused_by_field_and_reason_and_never_echoed(
    graph_file: Path, memory_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ran = mymcp(capsys, "import", str(graph_file), "--format", "server-memory", "--apply")

    assert "refused  line 2, observation 2: content: credential_shape (left out of the memory)" in (
        ran.out.splitlines()
    )
    assert SECRET not in ran.out + ran.err
    assert all(SECRET.encode() not in data for data in record_files(memory_root).values())


def test_a_second_apply_creates_nothing_new(
    graph_file: Path, memory_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mymcp(capsys, "import", str(graph_file), "--format", "server-memory", "--apply")
    before = record_files(memory_root)

    ran = mymcp(capsys, "import", str(graph_file), "--format", "server-memory", "--apply")

    assert ran.out.splitlines()[-1] == "imported: 0 created, 4 already there, 1 refused, 0 invalid"
    assert record_files(memory_root) == before


@pytest.mark.parametrize(
    ("second", "column"),
    [('{"type": "entity", "name": "Bob",}', 34), ('{"type": "relation"', 20)],
)
def test_a_malformed_line_is_named_on_standard_error_and_nothing_is_written(
    second: str, column: int, memory_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "memory.jsonl"
    path.write_bytes(jsonl(entity("Alice", "person", "Likes tea")) + second.encode() + b"\n")

    ran = mymcp(capsys, "import", str(path), "--format", "server-memory", "--apply")

    assert (ran.code, ran.out) == (1, "")
    lines = ran.err.splitlines()
    assert 1 <= len(lines) <= 2 and "Traceback" not in ran.err
    assert re.fullmatch(
        rf"mymcp import: {re.escape(str(path))}: line 2, column {column}: not JSON \(.+\); "
        "nothing was imported",
        lines[0],
    )
    assert not memory_root.exists()


# --- lines that are no entity or relation ---------------------------------------------------


def entries(*lines: object) -> list[Incoming | Line]:
    return read_server_memory(jsonl(*lines))


def reported(*lines: object) -> list[tuple[Kind, str, str]]:
    return [(e.kind, e.where, e.detail) for e in entries(*lines) if isinstance(e, Line)]


@pytest.mark.parametrize(
    ("line", "detail"),
    [
        ([1, 2], "not a JSON object"),
        ({"type": "thing"}, 'its type is neither "entity" nor "relation"'),
        ({"name": "A"}, 'its type is neither "entity" nor "relation"'),
        ({**entity("A", "person", "x"), "weight": 3}, "unknown field 'weight'"),
        ({"type": "entity", "name": "A", "observations": []}, "the field 'entityType' is missing"),
        ({**entity("A", "person"), "observations": "x"}, "observations is not a list of strings"),
        ({**entity("A", "person"), "observations": [1]}, "observations is not a list of strings"),
        ({**relation("A", "b", "C"), "to": None}, "to is not a string"),
        (relation("Ghost", "haunts", "Nobody"), "the relation joins no entity of this file"),
        (entity("   ", "person", "x"), "its name is empty or longer than 200 characters"),
        (entity("Quiet", "person"), "nothing to import: no observations and no relations"),
    ],
)
def test_a_line_that_breaks_a_rule_is_reported_as_invalid(line: object, detail: str) -> None:
    assert reported(line) == [(Kind.INVALID, "line 1", detail)]


def test_an_entity_named_twice_keeps_the_first() -> None:
    first, second = entries(entity("A", "person", "one"), entity("A", "person", "two"))

    assert isinstance(second, Line)
    assert (second.kind, second.detail) == (
        Kind.INVALID,
        "an entity of the same name came earlier, on line 1",
    )
    assert isinstance(first, Incoming) and first.record.content == "- one"


def test_empty_and_overlong_observations_are_left_out_and_named() -> None:
    assert reported(entity("A", "person", " ", "x" * 4001, "kept")) == [
        (Kind.INVALID, "line 1, observation 1", "it is empty or longer than 4,000 characters"),
        (Kind.INVALID, "line 1, observation 2", "it is empty or longer than 4,000 characters"),
    ]


def test_a_relation_with_a_secret_is_left_out_of_both_memories() -> None:
    found = entries(
        entity("A", "person", "one"),
        entity("B", "person", "two"),
        relation("A", f"shares {SECRET} with", "B"),
        relation("A", "knows", "B"),
    )

    assert [(e.where, e.detail) for e in found if isinstance(e, Line)] == [
        ("line 3", "content: credential_shape (left out of the memories)")
    ]
    contents = [e.record.content for e in found if isinstance(e, Incoming)]
    assert contents == ["- one\n\nRelations:\n- A knows B", "- two\n\nRelations:\n- A knows B"]


def test_a_relation_to_an_unknown_entity_is_kept_in_the_known_one_and_repeats_are_one() -> None:
    found = entries(
        entity("A", "person", "one"),
        relation("A", "knows", "Gone"),
        relation("A", "knows", "Gone"),
        relation("A", "likes", "A"),
    )

    [memory] = found
    assert isinstance(memory, Incoming)
    assert memory.record.content == "- one\n\nRelations:\n- A knows Gone\n- A likes A"


def test_a_long_entity_is_split_into_numbered_memories_of_whole_lines() -> None:
    observations = [f"Observation {n}: " + "word " * 150 for n in range(12)]

    found = entries(entity("Atlas", "project", *observations), relation("Atlas", "uses", "Rust"))

    parts = [e for e in found if isinstance(e, Incoming)]
    assert len(parts) == 3
    assert [p.record.title for p in parts] == ["Atlas (1 of 3)", "Atlas (2 of 3)", "Atlas (3 of 3)"]
    assert [p.where for p in parts] == [f"line 1 (entity, part {n} of 3)" for n in (1, 2, 3)]
    joined = "\n".join(p.record.content for p in parts)
    assert all(f"Observation {n}:" in joined for n in range(12))
    assert parts[-1].record.content.endswith("Relations:\n- Atlas uses Rust")
    assert all(len(p.record.content) <= CONTENT_LIMIT for p in parts)


# --- the mapping ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "entity_type", "scope", "namespace_kind", "kind"),
    [
        ("Alice", "person", "relationship", "person", "summary"),
        ("Alice", "  Family Member ", "relationship", "person", "summary"),
        ("Acme", "Organization", "relationship", "group", "summary"),
        ("Atlas", "project", "project", "project", "summary"),
        ("Me", "user", "self", "aspect", "attribute"),
        ("default_user", "person", "self", "aspect", "attribute"),
        ("Tea", "preference", "preference", "domain", "preference"),
        ("Standup", "habit", "practice", "domain", "practice"),
        ("Rust", "technology", "knowledge", "topic", "summary"),
        ("Lisbon", "", "knowledge", "topic", "summary"),
    ],
)
def test_entity_types_choose_scope_and_kinds(
    name: str, entity_type: str, scope: str, namespace_kind: str, kind: str
) -> None:
    place = place_of(name, entity_type)

    assert (place.scope, place.namespace_kind, place.kind) == (scope, namespace_kind, kind)


def test_every_place_in_the_table_is_allowed_by_its_scope() -> None:
    from mymcp.plugins.mnemosyne.memory.model.vocabulary import scope_allows

    places = {*ENTITY_TYPES.values(), server_memory.OTHER}
    assert all(scope_allows(p.scope, p.namespace_kind, p.kind) for p in places)
    assert {p.scope for p in places} == set(Scope)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Alice Smith", "alice-smith"),
        ("John_Smith", "john-smith"),
        ("  Zoë  Ünal ", "zoe-unal"),
        ("--Atlas--", "atlas"),
        ("x" * 70, "x" * 64),
        ("a" * 63 + "-b", "a" * 63),
    ],
)
def test_the_namespace_id_spells_the_name_in_plain_ascii(name: str, expected: str) -> None:
    assert namespace_id(name) == expected


def test_a_name_without_latin_letters_gets_a_stable_digest_id() -> None:
    assert namespace_id("张伟") == namespace_id("张伟")
    assert re.fullmatch(r"entity-[0-9a-f]{12}", namespace_id("张伟"))
    assert namespace_id("张伟") != namespace_id("李娜")


@given(st.text(max_size=120))
def test_every_namespace_id_is_an_identifier(name: str) -> None:
    assert is_identifier(namespace_id(name))


def test_the_format_page_lists_exactly_the_table() -> None:
    page = (ROOT / "docs" / "EXPORT_AND_IMPORT.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (`[^|]+`) \| `(\w+)` \| `(\w+)` \| `(\w+)` \|$", page, re.MULTILINE)
    documented: dict[str, tuple[str, str, str]] = {}
    for types, scope, namespace_kind, kind in rows:
        for name in re.findall(r"`([^`]+)`", types):
            documented[name] = (scope, namespace_kind, kind)

    table = {
        name: (p.scope.value, p.namespace_kind.value, p.kind.value)
        for name, p in ENTITY_TYPES.items()
    }
    assert documented == table


# --- any graph ---------------------------------------------------------------------------------

_texts = st.text(st.characters(codec="utf-8"), max_size=300)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(max_size=60),
            st.sampled_from(["person", "project", "x"]),
            st.lists(_texts, max_size=8),
        ),
        max_size=5,
    ),
    st.lists(st.tuples(st.integers(0, 4), st.text(max_size=30), st.integers(0, 4)), max_size=6),
)
def test_every_memory_of_any_graph_can_be_stored(
    graph: list[tuple[str, str, list[str]]], links: list[tuple[int, str, int]]
) -> None:
    lines: list[object] = [entity(name, kind, *observations) for name, kind, observations in graph]
    names = [name for name, _, _ in graph] or ["nobody"]
    lines += [relation(names[a % len(names)], kind, names[b % len(names)]) for a, kind, b in links]

    for found in entries(*lines):
        if isinstance(found, Incoming):
            assert parse_record_bytes(encode_record(found.record)) == found.record


# --- beside a running server -----------------------------------------------------------------


def test_an_import_racing_the_same_remember_leaves_one_memory(
    tmp_path: Path,
    memory_root: Path,
    mcp: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import threading

    path = tmp_path / "memory.jsonl"
    path.write_bytes(jsonl(entity("Alice Smith", "person", "Speaks fluent Spanish")))
    client: McpClient = mcp(remember=True)
    same = {
        "scope": "relationship",
        "namespace": {"kind": "person", "id": "alice-smith", "label": "Alice Smith"},
        "collection": None,
        "kind": "summary",
        "language": None,
        "title": "Alice Smith",
        "content": "- Speaks fluent Spanish",
        "tags": ["person", "server-memory"],
        "origin": "explicit_user_statement",
    }
    statuses: list[str] = []
    remembering = threading.Thread(
        target=lambda: statuses.append(client.call("memory_remember", same).payload["status"])
    )

    remembering.start()
    ran = mymcp(capsys, "import", str(path), "--format", "server-memory", "--apply")
    remembering.join()

    assert len(list(memory_root.rglob("*.json"))) == 1
    outcomes = {statuses[0], ran.out.splitlines()[0].split()[0]}
    assert outcomes in ({"remembered", "exists"}, {"already_exists", "created"})


def test_two_entities_that_make_the_same_memory_give_one(
    tmp_path: Path, memory_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "memory.jsonl"
    path.write_bytes(
        jsonl(entity("Alice", "person", "Likes tea"), entity("Alice ", "person", "Likes tea"))
    )

    ran = mymcp(capsys, "import", str(path), "--format", "server-memory", "--apply")

    assert ran.out.splitlines()[1] == (
        "exists   line 2 (entity): an equal memory came earlier in this file "
        "(the duplicate rule of memory_remember)"
    )
    assert len(list(memory_root.rglob("*.json"))) == 1
