from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mymcp.plugins.mnemosyne.memory.model.records import (
    CanonicalRecord,
    Collection,
    LegacyRecord,
    Namespace,
    RecordInvalid,
    canonical_record_dict,
    canonical_relative_parts,
    legacy_record_dict,
    parse_record_bytes,
    parse_record_object,
    serialize_canonical,
    serialize_record,
    unknown_field,
)
from mymcp.plugins.mnemosyne.memory.model.values import (
    is_canonical_id,
    is_identifier,
    normalize_language,
    normalize_tag,
    normalize_tags,
    normalize_text,
    parse_timestamp,
)
from mymcp.plugins.mnemosyne.memory.model.vocabulary import (
    SCOPE_RULES,
    LifecycleState,
    MemoryKind,
    NamespaceKind,
    Origin,
    RecordedVia,
    Scope,
)
from tests.helpers import V2_KEY_ORDER, canonical_record

MEMORY_ID = "mem_" + "0123456789abcdef" * 2
MISSING = object()
FULL_WIDTH = str.maketrans("0123456789", "０１２３４５６７８９")


def v2(**changes: Any) -> dict[str, Any]:
    """A valid collectionless project decision; ``changes`` replace or add top-level keys."""
    stamp = "2024-01-02T03:04:05Z"
    record = canonical_record(
        id=MEMORY_ID,
        collection={"id": "decisions", "label": None},
        title="Storage",
        content="Records are JSON files.",
        tags=["storage", "json"],
        created_at=stamp,
        updated_at=stamp,
    )
    record.update(changes)
    return record


def v2_event(**changes: Any) -> dict[str, Any]:
    return v2(kind="event", occurred_at="2023-12-31T23:59:59Z", **changes)


def v1(**changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {"schema_version": 1, "id": "note-1", "content": "Some note"}
    record.update(changes)
    return record


def with_path(record: dict[str, Any], path: str, value: object) -> dict[str, Any]:
    """A copy with the dotted ``path`` set to ``value`` (removed when ``value`` is MISSING)."""
    result = copy.deepcopy(record)
    *parents, last = path.split(".")
    target = result
    for key in parents:
        target = target[key]
    if value is MISSING:
        del target[last]
    else:
        target[last] = value
    return result


def encode(obj: object) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode("utf-8")


def reason_for(data: bytes) -> str:
    with pytest.raises(RecordInvalid) as caught:
        parse_record_bytes(data)
    return caught.value.reason


def parse_v2(record: dict[str, Any]) -> CanonicalRecord:
    parsed = parse_record_bytes(encode(record))
    assert isinstance(parsed, CanonicalRecord)
    return parsed


def parse_v1(record: dict[str, Any]) -> LegacyRecord:
    parsed = parse_record_bytes(encode(record))
    assert isinstance(parsed, LegacyRecord)
    return parsed


# --- strict decoding ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [b"\xff", b'{"content": "\xc3"}', b"\xc0\xaf", b"\xed\xa0\x80", "{}".encode("utf-16")],
)
def test_bytes_that_are_not_strict_utf8_are_invalid_encoding(data: bytes) -> None:
    assert reason_for(data) == "invalid_encoding"


@pytest.mark.parametrize(
    "data",
    [
        b"\xef\xbb\xbf" + encode(v2()),
        b"",
        b"   ",
        b"{",
        b"{'a': 1}",
        encode(v2()) + b"x",
        encode(v2()) + b"{}",
        b"[1,]",
    ],
)
def test_bytes_that_are_not_json_are_invalid_json(data: bytes) -> None:
    assert reason_for(data) == "invalid_json"


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize("path", ["content", "lifecycle.revision", "schema_version"])
def test_non_finite_number_literals_are_invalid_json(literal: str, path: str) -> None:
    text = json.dumps(with_path(v2(), path, "@@"))
    assert reason_for(text.replace('"@@"', literal).encode()) == "invalid_json"


@pytest.mark.parametrize(
    "text",
    [
        '{"schema_version": 1, "id": "a", "content": "x", "content": "hidden"}',
        '{"schema_version": 1, "schema_version": 1, "id": "a", "content": "x"}',
        json.dumps(v2()).replace('"label": null', '"label": null, "label": "two"'),
        '{"schema_version": 1, "id": "a", "content": "x", "tags": [{"k": 1, "k": 2}]}',
    ],
)
def test_duplicate_keys_at_any_level_are_invalid_json(text: str) -> None:
    assert reason_for(text.encode()) == "invalid_json"


@pytest.mark.parametrize(
    "data",
    [
        b"[" * 60_000,
        b"[" * 60_000 + b"]" * 60_000,
        b'{"a":' * 60_000 + b"1" + b"}" * 60_000,
        b'{"schema_version": 1, "id": "a", "content": ' + b"[" * 60_000 + b"]" * 60_000 + b"}",
    ],
)
def test_deeply_nested_json_is_invalid_json_not_a_crash(data: bytes) -> None:
    assert reason_for(data) == "invalid_json"


def test_integer_beyond_the_digit_limit_is_invalid_json() -> None:
    text = json.dumps(v2()).replace('"revision": 1', '"revision": ' + "9" * 5000)
    assert reason_for(text.encode()) == "invalid_json"


def test_overflowing_float_is_an_invalid_record() -> None:
    text = json.dumps(v2()).replace('"revision": 1', '"revision": 1e400')
    assert reason_for(text.encode()) == "invalid_record"


def test_record_invalid_carries_its_reason() -> None:
    error = RecordInvalid("invalid_record")
    assert error.reason == "invalid_record"
    assert str(error) == "invalid_record"


# --- version dispatch --------------------------------------------------------------------


@pytest.mark.parametrize("obj", [None, [], [v2()], "record", 2, True, 1.5])
def test_top_level_value_must_be_an_object(obj: object) -> None:
    assert reason_for(encode(obj)) == "invalid_record"
    with pytest.raises(RecordInvalid):
        parse_record_object(obj)


@pytest.mark.parametrize(
    "version", [MISSING, None, True, False, 2.0, 1.0, "2", "1", 0, 3, -1, [2], {"v": 2}]
)
@pytest.mark.parametrize("base", [v1, v2])
def test_schema_version_must_be_the_integer_1_or_2(version: object, base: Any) -> None:
    assert reason_for(encode(with_path(base(), "schema_version", version))) == "invalid_record"


@pytest.mark.parametrize("base", [v1, v2])
def test_a_key_outside_both_field_sets_is_invalid(base: Any) -> None:
    assert reason_for(encode(base(extra=1))) == "invalid_record"


def test_dispatch_uses_schema_version_not_the_shape() -> None:
    assert isinstance(parse_record_object(v1()), LegacyRecord)
    assert isinstance(parse_record_object(v2()), CanonicalRecord)
    assert reason_for(encode(v2(schema_version=1))) == "invalid_record"
    assert reason_for(encode(v1(schema_version=2))) == "invalid_record"


@pytest.mark.parametrize(
    "key", ["scope", "namespace", "collection", "kind", "language", "provenance", "occurred_at"]
)
def test_v1_rejects_keys_that_only_v2_knows(key: str) -> None:
    assert reason_for(encode(v1(**{key: "x"}))) == "invalid_record"


# --- version 1 ---------------------------------------------------------------------------


def test_v1_minimal_record_has_no_title_and_no_tags() -> None:
    assert parse_v1(v1()) == LegacyRecord(
        id="note-1", content="Some note", title=None, tags=(), field_order=()
    )


def test_v1_values_are_kept_verbatim() -> None:
    record = parse_v1(
        v1(
            id="Note.V1",
            content="  e\u0301\r\nline  ",
            title=" Title\u00a0 ",
            tags=[" Tag ", "a  b"],
        )
    )
    assert record.id == "Note.V1"
    assert record.content == "  e\u0301\r\nline  "
    assert record.title == " Title\u00a0 "
    assert record.tags == (" Tag ", "a  b")


@pytest.mark.parametrize(
    ("keys", "order"),
    [
        (("title", "tags"), ("title", "tags")),
        (("tags", "title"), ("tags", "title")),
        (("title",), ("title",)),
        (("tags",), ("tags",)),
        ((), ()),
    ],
)
def test_v1_field_order_records_the_optional_keys_in_file_order(
    keys: tuple[str, ...], order: tuple[str, ...]
) -> None:
    values = {"title": None, "tags": ["a"]}
    record: dict[str, Any] = {}
    record.update({key: values[key] for key in keys})
    record.update(v1())
    assert parse_v1(record).field_order == order


def test_v1_null_title_counts_as_present_in_field_order() -> None:
    record = parse_v1({"schema_version": 1, "title": None, "id": "a", "content": "x"})
    assert record.title is None
    assert record.field_order == ("title",)


@pytest.mark.parametrize(
    "value",
    ["a", ".", "..", "A-Z_0.9", "mem_" + "0" * 32, "x" * 100],
)
def test_v1_accepts_legacy_ids(value: str) -> None:
    assert parse_v1(v1(id=value)).id == value


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("id", MISSING),
        ("id", ""),
        ("id", "x" * 101),
        ("id", "a/b"),
        ("id", "a b"),
        ("id", 1),
        ("id", None),
        ("content", MISSING),
        ("content", None),
        ("content", ""),
        ("content", " \n\u00a0"),
        ("content", "x" * 4001),
        ("content", ["x"]),
        ("title", ""),
        ("title", "   "),
        ("title", " " + "x" * 200),
        ("title", 1),
        ("title", ["x"]),
        ("tags", None),
        ("tags", []),
        ("tags", "tag"),
        ("tags", [f"t{i}" for i in range(11)]),
        ("tags", ["a", "a"]),
        ("tags", [""]),
        ("tags", ["  "]),
        ("tags", ["x" * 51]),
        ("tags", [1]),
        ("tags", [None]),
    ],
)
def test_v1_rejects_broken_fields(path: str, value: object) -> None:
    assert reason_for(encode(with_path(v1(), path, value))) == "invalid_record"


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("content", "x" * 4000),
        ("content", "   x   "),
        ("title", "x" * 200),
        ("title", None),
        ("tags", ["a", "A", "a "]),
        ("tags", [f"t{i}" for i in range(10)]),
        ("tags", ["x" * 50]),
    ],
)
def test_v1_accepts_fields_at_their_limits(path: str, value: object) -> None:
    parse_v1(with_path(v1(), path, value))


# --- version 2 ---------------------------------------------------------------------------


def test_v2_record_parses_into_typed_fields() -> None:
    assert parse_v2(v2()) == CanonicalRecord(
        id=MEMORY_ID,
        scope=Scope.PROJECT,
        namespace=Namespace(NamespaceKind.PROJECT, "mnemosyne", "Mnemosyne"),
        collection=Collection("decisions", None),
        kind=MemoryKind.DECISION,
        language="en",
        title="Storage",
        content="Records are JSON files.",
        tags=("storage", "json"),
        origin=Origin.EXPLICIT_USER_STATEMENT,
        recorded_via=RecordedVia.MEMORY_REMEMBER,
        state=LifecycleState.ACTIVE,
        revision=1,
        created_at="2024-01-02T03:04:05Z",
        updated_at="2024-01-02T03:04:05Z",
        occurred_at=None,
    )


def test_v2_values_come_out_normalized() -> None:
    record = parse_v2(
        v2(
            namespace={"kind": "project", "id": "mnemosyne", "label": "  Mne\u00a0mo  "},
            collection={"id": "decisions", "label": " e\u0301 "},
            language=" EN-US ",
            title="  A\r\ntitle ",
            content="\r\n body\rtext ",
            tags=["  Machine \u00a0 Learning ", "B"],
            created_at="2024-01-02T03:04:05Z".translate(FULL_WIDTH),
            updated_at="2024-01-02T03:04:06Z".translate(FULL_WIDTH),
        )
    )
    assert record.namespace.label == "Mne\u00a0mo"
    assert record.collection == Collection("decisions", "\u00e9")
    assert record.language == "en-us"
    assert record.title == "A\ntitle"
    assert record.content == "body\ntext"
    assert record.tags == ("Machine Learning", "B")
    assert record.created_at == "2024-01-02T03:04:05Z"
    assert record.updated_at == "2024-01-02T03:04:06Z"


@pytest.mark.parametrize(
    ("path", "value", "attribute", "expected"),
    [
        ("language", None, "language", "und"),
        ("title", None, "title", None),
        ("tags", [], "tags", ()),
        ("tags", [f"t{i}" for i in range(10)], "tags", tuple(f"t{i}" for i in range(10))),
        ("collection", None, "collection", None),
        ("namespace.label", None, "namespace", Namespace(NamespaceKind.PROJECT, "mnemosyne", None)),
        ("title", "x" * 200, "title", "x" * 200),
        ("content", "x" * 4000, "content", "x" * 4000),
        ("collection.label", "x" * 100, "collection", Collection("decisions", "x" * 100)),
        ("collection.id", "null", "collection", Collection("null", None)),
        ("lifecycle.revision", 2**70, "revision", 2**70),
        ("lifecycle.state", "archived", "state", LifecycleState.ARCHIVED),
        ("provenance.origin", "import", "origin", Origin.IMPORT),
        ("provenance.recorded_via", "filesystem", "recorded_via", RecordedVia.FILESYSTEM),
        ("updated_at", "2030-01-01T00:00:00Z", "updated_at", "2030-01-01T00:00:00Z"),
    ],
)
def test_v2_accepts_nullable_values_and_limits(
    path: str, value: object, attribute: str, expected: object
) -> None:
    assert getattr(parse_v2(with_path(v2(), path, value)), attribute) == expected


V2_BROKEN_FIELDS = [
    ("id", MISSING),
    ("id", "mem_" + "A" * 32),
    ("id", "mem_123"),
    ("id", "note-1"),
    ("id", None),
    ("scope", MISSING),
    ("scope", "Project"),
    ("scope", "work"),
    ("scope", None),
    ("scope", 1),
    ("namespace", MISSING),
    ("namespace", None),
    ("namespace", []),
    ("namespace", "mnemosyne"),
    ("namespace.kind", MISSING),
    ("namespace.kind", "topic"),
    ("namespace.kind", "planet"),
    ("namespace.kind", None),
    ("namespace.id", MISSING),
    ("namespace.id", "Mnemosyne"),
    ("namespace.id", " mnemosyne"),
    ("namespace.id", ""),
    ("namespace.id", None),
    ("namespace.label", MISSING),
    ("namespace.label", ""),
    ("namespace.label", "  "),
    ("namespace.label", "x" * 101),
    ("namespace.label", 1),
    ("collection", MISSING),
    ("collection", []),
    ("collection", "decisions"),
    ("collection", {"id": "decisions"}),
    ("collection.id", "Decisions"),
    ("collection.id", None),
    ("collection.id", ""),
    ("collection.label", ""),
    ("collection.label", "x" * 101),
    ("collection.label", MISSING),
    ("kind", MISSING),
    ("kind", "attribute"),
    ("kind", "idea"),
    ("kind", None),
    ("language", MISSING),
    ("language", "en_US"),
    ("language", "e"),
    ("language", "en-"),
    ("language", ""),
    ("language", 1),
    ("title", MISSING),
    ("title", ""),
    ("title", " \n "),
    ("title", "x" * 201),
    ("title", 1),
    ("content", MISSING),
    ("content", None),
    ("content", ""),
    ("content", "\u00a0\u3000"),
    ("content", "x" * 4001),
    ("content", ["x"]),
    ("tags", MISSING),
    ("tags", None),
    ("tags", "storage"),
    ("tags", ["a", "A"]),
    ("tags", ["a b", "a\u00a0b"]),
    ("tags", [""]),
    ("tags", ["x" * 51]),
    ("tags", [1]),
    ("tags", [f"t{i}" for i in range(11)]),
    ("provenance", MISSING),
    ("provenance", None),
    ("provenance", {}),
    ("provenance.origin", MISSING),
    ("provenance.origin", "user"),
    ("provenance.origin", None),
    ("provenance.recorded_via", MISSING),
    ("provenance.recorded_via", "memory_recall"),
    ("lifecycle", MISSING),
    ("lifecycle", None),
    ("lifecycle.state", MISSING),
    ("lifecycle.state", "deleted"),
    ("lifecycle.state", None),
    ("lifecycle.revision", MISSING),
    ("lifecycle.revision", 0),
    ("lifecycle.revision", -1),
    ("lifecycle.revision", True),
    ("lifecycle.revision", 1.0),
    ("lifecycle.revision", "1"),
    ("lifecycle.revision", None),
    ("created_at", MISSING),
    ("created_at", None),
    ("created_at", "2024-01-02T03:04:05z"),
    ("created_at", "2024-01-02T03:04:05.000Z"),
    ("created_at", "2023-02-29T00:00:00Z"),
    ("updated_at", MISSING),
    ("updated_at", "2024-01-02T03:04:60Z"),
    ("updated_at", "2024-01-02T03:04:04Z"),
    ("updated_at", "2024-01-02T03:04:05+00:00"),
]


@pytest.mark.parametrize(("path", "value"), V2_BROKEN_FIELDS)
def test_v2_rejects_broken_fields(path: str, value: object) -> None:
    assert reason_for(encode(with_path(v2(), path, value))) == "invalid_record"


@pytest.mark.parametrize(
    "path", ["", "namespace.", "collection.", "provenance.", "lifecycle."], ids=repr
)
def test_v2_rejects_unknown_keys_at_every_level(path: str) -> None:
    assert reason_for(encode(with_path(v2(), path + "extra", None))) == "invalid_record"


def test_v2_compares_timestamps_after_digit_normalization() -> None:
    record = v2(created_at="2024-01-02T03:04:05Z".translate(FULL_WIDTH))
    assert parse_v2(record).created_at == "2024-01-02T03:04:05Z"
    later = v2(created_at="2024-01-02T03:04:06Z".translate(FULL_WIDTH))
    assert reason_for(encode(later)) == "invalid_record"


def test_v2_event_requires_occurred_at() -> None:
    record = parse_v2(v2_event())
    assert record.kind is MemoryKind.EVENT
    assert record.occurred_at == "2023-12-31T23:59:59Z"
    assert reason_for(encode(with_path(v2_event(), "occurred_at", MISSING))) == "invalid_record"


def test_v2_event_occurred_at_may_be_after_creation_and_uses_any_digits() -> None:
    stamp = "2099-01-01T00:00:00Z".translate(FULL_WIDTH)
    assert parse_v2(with_path(v2_event(), "occurred_at", stamp)).occurred_at == (
        "2099-01-01T00:00:00Z"
    )


@pytest.mark.parametrize("value", [None, "", "2023-02-29T00:00:00Z", "2023-12-31", 1])
def test_v2_event_rejects_bad_occurred_at(value: object) -> None:
    assert reason_for(encode(with_path(v2_event(), "occurred_at", value))) == "invalid_record"


@pytest.mark.parametrize("value", ["2023-12-31T23:59:59Z", None])
def test_v2_non_event_forbids_occurred_at_even_null(value: object) -> None:
    assert reason_for(encode(v2(occurred_at=value))) == "invalid_record"


ALLOWED_DIMENSIONS = [
    (scope, namespace_kind, kind)
    for scope, rule in SCOPE_RULES.items()
    for namespace_kind in rule.namespace_kinds
    for kind in rule.memory_kinds
]


def placed(scope: Scope, namespace_kind: str, kind: str) -> dict[str, Any]:
    record = v2(scope=scope.value, kind=kind)
    record["namespace"]["kind"] = namespace_kind
    if kind == MemoryKind.EVENT:
        record["occurred_at"] = "2020-01-01T00:00:00Z"
    return record


@pytest.mark.parametrize(("scope", "namespace_kind", "kind"), ALLOWED_DIMENSIONS)
def test_v2_accepts_every_allowed_scope_dimension(
    scope: Scope, namespace_kind: NamespaceKind, kind: MemoryKind
) -> None:
    record = parse_v2(placed(scope, namespace_kind.value, kind.value))
    assert (record.scope, record.namespace.kind, record.kind) == (scope, namespace_kind, kind)


@pytest.mark.parametrize(
    ("scope", "namespace_kind"),
    [
        (scope, namespace_kind)
        for scope, rule in SCOPE_RULES.items()
        for namespace_kind in NamespaceKind
        if namespace_kind not in rule.namespace_kinds
    ],
)
def test_v2_rejects_namespace_kinds_outside_the_scope(
    scope: Scope, namespace_kind: NamespaceKind
) -> None:
    kind = SCOPE_RULES[scope].memory_kinds[0]
    assert reason_for(encode(placed(scope, namespace_kind.value, kind.value))) == "invalid_record"


@pytest.mark.parametrize(
    ("scope", "kind"),
    [
        (scope, kind)
        for scope, rule in SCOPE_RULES.items()
        for kind in MemoryKind
        if kind not in rule.memory_kinds
    ],
)
def test_v2_rejects_memory_kinds_outside_the_scope(scope: Scope, kind: MemoryKind) -> None:
    namespace_kind = SCOPE_RULES[scope].namespace_kinds[0]
    assert reason_for(encode(placed(scope, namespace_kind.value, kind.value))) == "invalid_record"


def test_records_are_immutable() -> None:
    record = parse_v2(v2())
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.content = "changed"  # type: ignore[misc]


# --- canonical output --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "parts"),
    [
        (
            (Scope.PROJECT, "mnemosyne", "decisions", MEMORY_ID),
            ("project", "mnemosyne", "decisions", MEMORY_ID + ".json"),
        ),
        ((Scope.SELF, "health", None, MEMORY_ID), ("self", "health", MEMORY_ID + ".json")),
        (
            ("knowledge", "python", "null", MEMORY_ID),
            ("knowledge", "python", "null", MEMORY_ID + ".json"),
        ),
    ],
)
def test_canonical_relative_parts_follow_the_layout(
    args: tuple[Any, ...], parts: tuple[str, ...]
) -> None:
    assert canonical_relative_parts(*args) == parts


def test_canonical_record_dict_uses_the_canonical_key_order() -> None:
    data = canonical_record_dict(parse_v2(v2()))
    assert list(data) == V2_KEY_ORDER
    assert data == v2()
    assert list(data["namespace"]) == ["kind", "id", "label"]  # type: ignore[call-overload]
    assert list(data["collection"]) == ["id", "label"]  # type: ignore[call-overload]
    assert list(data["provenance"]) == ["origin", "recorded_via"]  # type: ignore[call-overload]
    assert list(data["lifecycle"]) == ["state", "revision"]  # type: ignore[call-overload]


def test_canonical_record_dict_adds_occurred_at_last_for_events_only() -> None:
    assert list(canonical_record_dict(parse_v2(v2_event())))[-1] == "occurred_at"
    assert canonical_record_dict(parse_v2(v2_event())) == v2_event()
    assert "occurred_at" not in canonical_record_dict(parse_v2(v2()))


def test_canonical_record_dict_writes_null_collection_and_und_language() -> None:
    data = canonical_record_dict(parse_v2(v2(collection=None, language=None)))
    assert data["collection"] is None
    assert data["language"] == "und"


def test_serialize_canonical_writes_indented_utf8_with_trailing_newline() -> None:
    record = parse_v2(v2(content="Caf\u00e9 \u2014 \U0001f600", collection=None))
    data = serialize_canonical(record)
    assert data.endswith(b"}\n")
    assert "Caf\u00e9 \u2014 \U0001f600".encode() in data
    assert b"\\u" not in data
    assert (
        data
        == (json.dumps(canonical_record_dict(record), indent=2, ensure_ascii=False) + "\n").encode()
    )
    assert data.startswith(b'{\n  "schema_version": 2,\n  "id": "mem_')
    assert b'\n  "collection": null,\n' in data


@pytest.mark.parametrize("builder", [v2, v2_event])
def test_serialized_records_parse_back_equal(builder: Any) -> None:
    record = parse_v2(builder())
    assert parse_record_bytes(serialize_canonical(record)) == record


def test_serialize_canonical_refuses_text_utf8_cannot_encode() -> None:
    record = dataclasses.replace(parse_v2(v2()), content="lone \ud800 surrogate")
    with pytest.raises(RecordInvalid) as caught:
        serialize_canonical(record)
    assert caught.value.reason == "invalid_encoding"


# --- properties --------------------------------------------------------------------------

TEXT_CHARS = st.characters(exclude_categories=["Cs"])


def normalized(rule: Any) -> Any:
    return st.text(TEXT_CHARS, max_size=60).map(rule).filter(lambda value: value is not None)


ISO_TIMESTAMPS = st.datetimes().map(lambda moment: f"{moment.year:04d}-{moment:%m-%dT%H:%M:%S}Z")


@st.composite
def canonical_records(draw: st.DrawFn) -> CanonicalRecord:
    scope, namespace_kind, kind = draw(st.sampled_from(ALLOWED_DIMENSIONS))
    identifiers = st.from_regex(r"[a-z0-9](?:[a-z0-9_-]{0,10}[a-z0-9])?", fullmatch=True)
    labels = st.none() | normalized(lambda text: normalize_text(text, 100))
    tags = st.lists(normalized(normalize_tag), max_size=10, unique_by=str.casefold)
    created, updated = sorted([draw(ISO_TIMESTAMPS), draw(ISO_TIMESTAMPS)])
    collection = draw(st.none() | st.builds(Collection, identifiers, labels))
    return CanonicalRecord(
        id="mem_" + draw(st.from_regex(r"[0-9a-f]{32}", fullmatch=True)),
        scope=scope,
        namespace=Namespace(namespace_kind, draw(identifiers), draw(labels)),
        collection=collection,
        kind=kind,
        language=draw(st.sampled_from(["und", "en", "en-us", "zh-hant-tw"])),
        title=draw(st.none() | normalized(lambda text: normalize_text(text, 200))),
        content=draw(normalized(lambda text: normalize_text(text, 4000))),
        tags=tuple(draw(tags)),
        origin=draw(st.sampled_from(Origin)),
        recorded_via=draw(st.sampled_from(RecordedVia)),
        state=draw(st.sampled_from(LifecycleState)),
        revision=draw(st.integers(min_value=1, max_value=2**40)),
        created_at=created,
        updated_at=updated,
        occurred_at=draw(ISO_TIMESTAMPS) if kind is MemoryKind.EVENT else None,
    )


@settings(max_examples=100, deadline=None)
@given(canonical_records())
def test_any_valid_canonical_record_round_trips(record: CanonicalRecord) -> None:
    data = serialize_canonical(record)
    assert parse_record_bytes(data) == record
    assert serialize_canonical(parse_record_object(json.loads(data))) == data  # type: ignore[arg-type]


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_only_ever_raise_record_invalid(data: bytes) -> None:
    try:
        parse_record_bytes(data)
    except RecordInvalid as error:
        assert error.reason in {"invalid_encoding", "invalid_json", "invalid_record"}


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(sorted(v2_event()) + ["title", "tags", "x"]) | st.text(max_size=5),
            children,
            max_size=6,
        )
    ),
    max_leaves=20,
)


@settings(max_examples=100, deadline=None)
@given(JSON_VALUES)
def test_arbitrary_objects_only_ever_raise_record_invalid(obj: object) -> None:
    try:
        parse_record_object(obj)
    except RecordInvalid as error:
        assert error.reason == "invalid_record"


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([v1(), v2(), v2_event()]), st.data())
def test_corrupting_one_field_of_a_valid_record_never_crashes(
    base: dict[str, Any], data: st.DataObject
) -> None:
    key = data.draw(st.sampled_from(sorted(base)))
    value = data.draw(JSON_VALUES)
    try:
        parse_record_bytes(encode(with_path(base, key, value)))
    except RecordInvalid as error:
        assert error.reason == "invalid_record"


# --- version 1 output and unknown fields ---------------------------------------------------


_LEGACY_TEXT = st.text(min_size=1, max_size=60).filter(str.strip)


@settings(max_examples=100, deadline=None)
@given(
    st.fixed_dictionaries(
        {"content": _LEGACY_TEXT},
        optional={
            "title": st.none() | _LEGACY_TEXT,
            "tags": st.lists(
                _LEGACY_TEXT.filter(lambda t: len(t) <= 50), min_size=1, max_size=10, unique=True
            ),
        },
    ),
    st.booleans(),
)
def test_a_legacy_record_written_out_parses_back_the_same(
    fields: dict[str, Any], tags_first: bool
) -> None:
    ordered = dict(sorted(fields.items(), reverse=tags_first))
    record = parse_record_object(v1(**ordered))
    assert isinstance(record, LegacyRecord)

    assert parse_record_object(legacy_record_dict(record)) == record
    assert parse_record_bytes(serialize_record(record)) == record


def test_a_legacy_record_dict_has_the_file_s_keys_and_content_last() -> None:
    record = parse_record_object(v1(tags=["b"], title=None))
    assert isinstance(record, LegacyRecord)

    assert legacy_record_dict(record) == {
        "schema_version": 1,
        "id": "note-1",
        "tags": ["b"],
        "title": None,
        "content": "Some note",
    }
    assert list(legacy_record_dict(record)) == ["schema_version", "id", "tags", "title", "content"]


def test_serialize_record_writes_a_canonical_record_like_serialize_canonical() -> None:
    record = parse_record_object(v2())
    assert isinstance(record, CanonicalRecord)

    assert serialize_record(record) == serialize_canonical(record)


@pytest.mark.parametrize(
    ("obj", "field"),
    [
        (v2(), None),
        (v1(), None),
        (v2(colour="red"), "colour"),
        (
            v2(namespace={"kind": "project", "id": "x", "label": None, "extra": 1}),
            "namespace.extra",
        ),
        (v2(collection={"id": "x", "label": None, "n": 1}), "collection.n"),
        (
            v2(provenance={"origin": "manual", "recorded_via": "import", "by": "me"}),
            "provenance.by",
        ),
        (v2(lifecycle={"state": "active", "revision": 1, "at": 0}), "lifecycle.at"),
        ("not an object", None),
    ],
)
def test_unknown_field_names_the_first_key_no_version_knows(obj: object, field: str | None) -> None:
    assert unknown_field(obj) == field


# --- the kept values change no outcome ------------------------------------------------------


class Broken(Exception):
    """A rule the record breaks (in :func:`plain_v2`)."""


def need(value: Any) -> Any:
    if value is None or value is False:
        raise Broken()
    return value


def fields(value: object, names: tuple[str, ...]) -> dict[str, Any]:
    return need(isinstance(value, dict) and value.keys() == set(names) and value)


def member(kind: Any, value: object) -> Any:
    need(isinstance(value, str) and value in {item.value for item in kind})
    return kind(value)


def label(value: object) -> str | None:
    return None if value is None else need(normalize_text(value, 100))


def identifier(value: object) -> str:
    return need(is_identifier(value) and value)


def plain_v2(obj: dict[str, Any]) -> CanonicalRecord | None:
    """The version 2 rules written out plainly, keeping nothing from record to record: the
    oracle of the parser, which checks and makes what recurs (a record's setting, its tags)
    once. None for an invalid record."""
    try:
        return checked_plainly(obj)
    except Broken:
        return None


def checked_plainly(obj: dict[str, Any]) -> CanonicalRecord:
    event = obj.get("kind") == "event"
    need(obj.keys() == set(canonical_record()) | ({"occurred_at"} if event else set()))
    need(obj["schema_version"] == 2 and is_canonical_id(obj["id"]))
    scope, kind = member(Scope, obj["scope"]), member(MemoryKind, obj["kind"])
    namespace = fields(obj["namespace"], ("kind", "id", "label"))
    namespace_kind = member(NamespaceKind, namespace["kind"])
    rule = SCOPE_RULES[scope]
    need(kind in rule.memory_kinds and namespace_kind in rule.namespace_kinds)
    collection = obj["collection"]
    if collection is not None:
        collection = fields(collection, ("id", "label"))
        collection = Collection(identifier(collection["id"]), label(collection["label"]))
    provenance = fields(obj["provenance"], ("origin", "recorded_via"))
    lifecycle = fields(obj["lifecycle"], ("state", "revision"))
    revision = lifecycle["revision"]
    need(type(revision) is int and revision >= 1)
    created, updated = (need(parse_timestamp(obj[key])) for key in ("created_at", "updated_at"))
    need(updated >= created)
    title = None if obj["title"] is None else need(normalize_text(obj["title"], 200))
    return CanonicalRecord(
        obj["id"],
        scope,
        Namespace(namespace_kind, identifier(namespace["id"]), label(namespace["label"])),
        collection,
        kind,
        need(normalize_language(obj["language"])),
        title,
        need(normalize_text(obj["content"], 4000)),
        need(normalize_tags(obj["tags"])),
        member(Origin, provenance["origin"]),
        member(RecordedVia, provenance["recorded_via"]),
        member(LifecycleState, lifecycle["state"]),
        revision,
        created,
        updated,
        need(parse_timestamp(obj["occurred_at"])) if event else None,
    )


# Valid tags in their normalized form (some equal when casefolded), and others.
TAGS_IN_FORM = ["ops", "Ops", "tea time", "crème", "straße", "STRASSE"]
TAGS_NOT_IN_FORM = ["OPS ", "tea  time", "", " ", "x" * 51, 3, None, ["ops"], "cre\u0300me"]
# Values each setting field and the tags may take: valid ones that recur (so the parser keeps
# them) and near misses of every kind.
SETTING_VALUES = {
    "scope": st.sampled_from(["project", "self", "relationship", "Project", None, 1, ["project"]]),
    "kind": st.sampled_from(["decision", "event", "attribute", "summary", "Decision", None]),
    "language": st.sampled_from(["en", " EN ", "und", None, "en_us", "x" * 40, 5, ["en"]]),
    "namespace.kind": st.sampled_from(["project", "aspect", "person", "Project", None, {}]),
    "namespace.id": st.sampled_from(["atlas", "beacon", "Atlas", "a-", "", None, ["atlas"]]),
    "namespace.label": st.sampled_from([None, "Atlas", " Atlas ", "", "\r\n", 7, "x" * 101]),
    "collection": st.sampled_from(
        [None, {"id": "notes"}, []]
        + [{"id": "notes", "label": label} for label in (None, "Notes", " Notes ", 5, "")]
    ),
    "provenance.origin": st.sampled_from(["explicit_user_statement", "user", None, ["x"]]),
    "provenance.recorded_via": st.sampled_from(["memory_remember", "import", "other", {}]),
    "lifecycle.state": st.sampled_from(["active", "archived", "Active", None, ("active",)]),
    "tags": st.lists(st.sampled_from(TAGS_IN_FORM), max_size=12)
    | st.lists(st.sampled_from([*TAGS_IN_FORM, *TAGS_NOT_IN_FORM]), max_size=12)
    | st.sampled_from([None, "ops", {"ops": 1}, ("ops",)]),
}


@settings(max_examples=400, deadline=None)
@given(st.sampled_from([v2(), v2_event()]), st.data())
def test_the_values_the_parser_keeps_change_no_outcome(
    base: dict[str, Any], data: st.DataObject
) -> None:
    labels = ("Notes", None, " Notes ")
    met_first = [v2(tags=[tag]) for tag in TAGS_IN_FORM]  # each valid tag alone, and more
    met_first += [v2(collection={"id": "notes", "label": label}) for label in labels]
    for obj in met_first:
        assert parse_record_object(obj) == plain_v2(obj)
    for _ in range(4):  # a few records one after another, as a scan reads them
        paths = data.draw(st.lists(st.sampled_from(sorted(SETTING_VALUES)), unique=True))
        obj = base
        for path in paths:
            obj = with_path(obj, path, data.draw(SETTING_VALUES[path]))
        expected = plain_v2(obj)
        try:
            parsed: CanonicalRecord | None = parse_record_object(obj)  # type: ignore[assignment]
        except RecordInvalid:
            parsed = None
        assert parsed == expected
        if expected is None:
            assert reason_for(encode(obj)) == "invalid_record"
        else:
            assert parse_record_bytes(encode(obj)) == expected
