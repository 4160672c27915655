"""Manifest v1: byte rules, field rules, configuration schema and error precedence (§11.1-§11.3)."""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mymcp.plugin_api import (
    PluginContractError,
    PluginContractErrorCode,
    PluginDefinition,
    parse_manifest_bytes,
    parse_manifest_mapping,
)
from tests.plugin_api.samples import (
    capability_entry,
    encode,
    mnemosyne_definition,
    mnemosyne_manifest,
)

Code = PluginContractErrorCode
Mutation = Callable[[dict[str, Any]], None]


def _code_of(call: Callable[[], object]) -> PluginContractErrorCode:
    with pytest.raises(PluginContractError) as caught:
        call()
    return caught.value.code


def _mapping_code(mutate: Mutation) -> PluginContractErrorCode:
    manifest = mnemosyne_manifest()
    mutate(manifest)
    return _code_of(lambda: parse_manifest_bytes(encode(manifest)))


def _parses(mutate: Mutation) -> PluginDefinition:
    manifest = mnemosyne_manifest()
    mutate(manifest)
    return parse_manifest_bytes(encode(manifest))


def _set(path: str, value: Any) -> Mutation:
    """Mutation that sets a value at a '/'-separated path (list indexes as digits)."""

    def mutate(manifest: dict[str, Any]) -> None:
        *parents, last = path.split("/")
        target: Any = manifest
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        if isinstance(target, list):
            target[int(last)] = copy.deepcopy(value)
        else:
            target[last] = copy.deepcopy(value)

    return mutate


def _delete(path: str) -> Mutation:
    def mutate(manifest: dict[str, Any]) -> None:
        *parents, last = path.split("/")
        target: Any = manifest
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        del target[last]

    return mutate


def _schema(schema: dict[str, Any]) -> Mutation:
    return _set("configuration/schema", schema)


def _object(properties: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties or {},
        "additionalProperties": False,
        **extra,
    }


def _capabilities(count: int) -> list[dict[str, Any]]:
    return [capability_entry(f"tool_{index}") for index in range(count)]


def _references(count: int) -> list[str]:
    return [f"secret_{index}" for index in range(count)]


# --- the valid sample --------------------------------------------------------------------


def test_mnemosyne_manifest_parses_to_the_adapter_definition() -> None:
    assert parse_manifest_bytes(encode(mnemosyne_manifest())) == mnemosyne_definition()


def test_parse_manifest_mapping_accepts_the_decoded_object() -> None:
    assert parse_manifest_mapping(mnemosyne_manifest()) == mnemosyne_definition()


def test_parse_manifest_mapping_accepts_read_only_mappings() -> None:
    manifest = mnemosyne_manifest()
    manifest["requires"] = MappingProxyType({"host_api": MappingProxyType({"min": 1, "max": 1})})
    assert parse_manifest_mapping(MappingProxyType(manifest)) == mnemosyne_definition()


def test_definition_equality_is_order_sensitive() -> None:
    def swap_capabilities(manifest: dict[str, Any]) -> None:
        manifest["capabilities"][0], manifest["capabilities"][1] = (
            manifest["capabilities"][1],
            manifest["capabilities"][0],
        )

    assert _parses(swap_capabilities) != mnemosyne_definition()
    assert _parses(_set("authority/filesystem", ["data_write", "data_read"])) != (
        mnemosyne_definition()
    )


def test_configuration_property_order_takes_part_in_equality() -> None:
    string = {"type": "string"}
    first = _parses(_schema(_object({"a": string, "b": string}, required=["a", "b"])))
    second = _parses(_schema(_object({"b": string, "a": string}, required=["a", "b"])))
    third = _parses(_schema(_object({"a": string, "b": string}, required=["b", "a"])))
    assert first != second
    assert first != third
    assert first == _parses(_schema(_object({"a": string, "b": string}, required=["a", "b"])))


def test_schema_identifier_is_not_part_of_the_definition() -> None:
    assert _parses(_delete("$schema")) == mnemosyne_definition()
    assert _parses(_set("$schema", None)) == mnemosyne_definition()
    assert _parses(_set("$schema", "urn:x")) == mnemosyne_definition()


# --- bytes -------------------------------------------------------------------------------

_VALID = encode(mnemosyne_manifest())


@pytest.mark.parametrize(
    ("source", "code"),
    [
        (_VALID.decode(), Code.MANIFEST_RESOURCE_INVALID),
        (bytearray(_VALID), Code.MANIFEST_RESOURCE_INVALID),
        (memoryview(_VALID), Code.MANIFEST_RESOURCE_INVALID),
        (None, Code.MANIFEST_RESOURCE_INVALID),
        (b" " * 65537, Code.MANIFEST_RESOURCE_TOO_LARGE),
        (b"\xff" * 65537, Code.MANIFEST_RESOURCE_TOO_LARGE),
        (b'{"id": "\xff"}', Code.MANIFEST_RESOURCE_INVALID_UTF8),
        (b'{"id": "\xed\xa0\x80"}', Code.MANIFEST_RESOURCE_INVALID_UTF8),
        (b'{"a": 1, "a": 2}', Code.MANIFEST_RESOURCE_DUPLICATE_KEY),
        (b'{"a": {"b": [{"c": 1, "c": 1}]}}', Code.MANIFEST_RESOURCE_DUPLICATE_KEY),
        (b'[{"c": 1, "c": 1}]', Code.MANIFEST_RESOURCE_DUPLICATE_KEY),
        (b'{"a": NaN, "a": 1}', Code.MANIFEST_RESOURCE_DUPLICATE_KEY),
        (b'{"a": NaN}', Code.MANIFEST_RESOURCE_INVALID_JSON),
        (b'{"a": Infinity}', Code.MANIFEST_RESOURCE_INVALID_JSON),
        (b'{"a": -Infinity}', Code.MANIFEST_RESOURCE_INVALID_JSON),
        (b"\xef\xbb\xbf{}", Code.MANIFEST_RESOURCE_INVALID_JSON),
        (b"", Code.MANIFEST_RESOURCE_INVALID_JSON),
        (b"{", Code.MANIFEST_RESOURCE_INVALID_JSON),
        (b"{} x", Code.MANIFEST_RESOURCE_INVALID_JSON),
        (b"{'a': 1}", Code.MANIFEST_RESOURCE_INVALID_JSON),
        (b'{"a": ' + b"1" * 5000 + b"}", Code.MANIFEST_RESOURCE_INVALID_JSON),
        (b"[" * 30000 + b"]" * 30000, Code.MANIFEST_RESOURCE_INVALID_JSON),
        (b'{"a":' * 10000 + b"1" + b"}" * 10000, Code.MANIFEST_RESOURCE_INVALID_JSON),
        (b"[]", Code.MANIFEST_ROOT_INVALID),
        (b"null", Code.MANIFEST_ROOT_INVALID),
        (b"5", Code.MANIFEST_ROOT_INVALID),
        (b'"manifest"', Code.MANIFEST_ROOT_INVALID),
    ],
)
def test_byte_rules_in_order(source: Any, code: PluginContractErrorCode) -> None:
    assert _code_of(lambda: parse_manifest_bytes(source)) == code


def test_exactly_64_kib_is_accepted() -> None:
    padded = _VALID + b" " * (65536 - len(_VALID))
    assert len(padded) == 65536
    assert parse_manifest_bytes(padded) == mnemosyne_definition()
    assert _code_of(lambda: parse_manifest_bytes(padded + b" ")) == Code.MANIFEST_RESOURCE_TOO_LARGE


def test_non_ascii_text_is_accepted_as_utf8() -> None:
    assert _parses(_set("title", "Mnémosyne ✓")).title == "Mnémosyne ✓"


@pytest.mark.parametrize(
    ("mapping", "code"),
    [
        ([], Code.MANIFEST_ROOT_INVALID),
        ("{}", Code.MANIFEST_ROOT_INVALID),
        (None, Code.MANIFEST_ROOT_INVALID),
        ({1: "x"}, Code.MANIFEST_ROOT_INVALID),
    ],
)
def test_parse_manifest_mapping_requires_a_string_keyed_mapping(
    mapping: Any, code: PluginContractErrorCode
) -> None:
    assert _code_of(lambda: parse_manifest_mapping(mapping)) == code


def test_parse_manifest_mapping_rejects_tuples_as_arrays() -> None:
    manifest = mnemosyne_manifest()
    manifest["capabilities"] = tuple(manifest["capabilities"])
    assert _code_of(lambda: parse_manifest_mapping(manifest)) == Code.MANIFEST_INVALID_FIELD
    manifest = mnemosyne_manifest()
    manifest["secret_references"] = ()
    assert _code_of(lambda: parse_manifest_mapping(manifest)) == Code.MANIFEST_INVALID_FIELD


# --- fields ------------------------------------------------------------------------------

_ROOT_FIELDS = [
    "manifest_version",
    "id",
    "title",
    "description",
    "version",
    "requires",
    "capabilities",
    "configuration",
    "secret_references",
    "data_schema_version",
    "authority",
]


@pytest.mark.parametrize("field", _ROOT_FIELDS)
def test_each_root_field_is_required(field: str) -> None:
    assert _mapping_code(_delete(field)) == Code.MANIFEST_MISSING_FIELD


@pytest.mark.parametrize("field", _ROOT_FIELDS)
def test_unknown_root_field_is_reported_before_missing_ones(field: str) -> None:
    def mutate(manifest: dict[str, Any]) -> None:
        del manifest[field]
        manifest["extra"] = True

    assert _mapping_code(mutate) == Code.MANIFEST_UNKNOWN_FIELD


_INVALID = Code.MANIFEST_INVALID_FIELD
_SCHEMA = Code.MANIFEST_CONFIGURATION_SCHEMA_INVALID
_AUTHORITY = Code.MANIFEST_AUTHORITY_INVALID
_UNKNOWN = Code.MANIFEST_UNKNOWN_FIELD
_MISSING = Code.MANIFEST_MISSING_FIELD

_FIELD_FAILURES: list[tuple[str, Mutation, PluginContractErrorCode]] = [
    ("schema empty", _set("$schema", ""), _INVALID),
    ("schema too long", _set("$schema", "x" * 2049), _INVALID),
    ("schema tab", _set("$schema", "a\tb"), _INVALID),
    ("schema del", _set("$schema", "a\x7fb"), _INVALID),
    ("schema number", _set("$schema", 5), _INVALID),
    ("version true", _set("manifest_version", True), Code.MANIFEST_VERSION_UNSUPPORTED),
    ("version float", _set("manifest_version", 1.0), Code.MANIFEST_VERSION_UNSUPPORTED),
    ("version string", _set("manifest_version", "1"), Code.MANIFEST_VERSION_UNSUPPORTED),
    ("version two", _set("manifest_version", 2), Code.MANIFEST_VERSION_UNSUPPORTED),
    ("version null", _set("manifest_version", None), Code.MANIFEST_VERSION_UNSUPPORTED),
    ("id snake", _set("id", "my_plugin"), _INVALID),
    ("id number", _set("id", 1), _INVALID),
    ("title empty", _set("title", ""), _INVALID),
    ("title long", _set("title", "x" * 129), _INVALID),
    ("title number", _set("title", 1), _INVALID),
    ("description empty", _set("description", ""), _INVALID),
    ("description long", _set("description", "x" * 4097), _INVALID),
    ("plugin version", _set("version", "v0.1.0"), _INVALID),
    ("plugin version number", _set("version", 1), _INVALID),
    ("requires array", _set("requires", []), _INVALID),
    ("requires extra", _set("requires/extra", 1), _UNKNOWN),
    ("requires empty", _set("requires", {}), _MISSING),
    ("host api string", _set("requires/host_api", "1"), _INVALID),
    ("host api extra", _set("requires/host_api/extra", 1), _UNKNOWN),
    ("host api missing", _delete("requires/host_api/max"), _MISSING),
    ("host api zero", _set("requires/host_api/min", 0), _INVALID),
    ("host api 256", _set("requires/host_api/max", 256), _INVALID),
    ("host api bool", _set("requires/host_api/min", True), _INVALID),
    ("host api float", _set("requires/host_api/min", 1.0), _INVALID),
    ("host api string value", _set("requires/host_api/min", "1"), _INVALID),
    ("host api range", _set("requires/host_api", {"min": 2, "max": 1}), _INVALID),
    ("capabilities object", _set("capabilities", {}), _INVALID),
    ("capabilities empty", _set("capabilities", []), _INVALID),
    ("capabilities 65", _set("capabilities", _capabilities(65)), _INVALID),
    ("capability string", _set("capabilities/0", "memory_recall"), _INVALID),
    ("capability extra", _set("capabilities/0/extra", 1), _UNKNOWN),
    ("capability missing", _delete("capabilities/0/consent"), _MISSING),
    (
        "capability kind",
        _set("capabilities/0/kind", "resource"),
        Code.MANIFEST_CAPABILITY_KIND_UNSUPPORTED,
    ),
    (
        "capability kind null",
        _set("capabilities/0/kind", None),
        Code.MANIFEST_CAPABILITY_KIND_UNSUPPORTED,
    ),
    ("capability id", _set("capabilities/0/id", "memory-recall"), _INVALID),
    ("capability version", _set("capabilities/0/version", "1.0"), _INVALID),
    ("capability boolean", _set("capabilities/0/read_only", 1), _INVALID),
    ("capability open world", _set("capabilities/0/open_world", "false"), _INVALID),
    ("capability consent", _set("capabilities/0/consent", "always"), _INVALID),
    ("capability consent list", _set("capabilities/0/consent", ["none"]), _INVALID),
    ("capability contradiction", _set("capabilities/0/destructive", True), _INVALID),
    (
        "capability duplicate",
        _set("capabilities/1/id", "memory_recall"),
        Code.MANIFEST_DUPLICATE_CAPABILITY,
    ),
    ("configuration array", _set("configuration", []), _INVALID),
    ("configuration extra", _set("configuration/extra", 1), _UNKNOWN),
    ("configuration missing", _delete("configuration/schema"), _MISSING),
    ("configuration version", _set("configuration/schema_version", 2), _SCHEMA),
    ("configuration version bool", _set("configuration/schema_version", True), _SCHEMA),
    ("secrets object", _set("secret_references", {}), _INVALID),
    ("secret shape", _set("secret_references", ["Api-Key"]), _INVALID),
    ("secret number", _set("secret_references", [1]), _INVALID),
    (
        "secret duplicate",
        _set("secret_references", ["api_key", "api_key"]),
        Code.MANIFEST_DUPLICATE_SECRET_REFERENCE,
    ),
    ("secrets 33", _set("secret_references", _references(33)), _INVALID),
    ("data schema zero", _set("data_schema_version", 0), _INVALID),
    ("data schema 256", _set("data_schema_version", 256), _INVALID),
    ("data schema bool", _set("data_schema_version", True), _INVALID),
    ("data schema string", _set("data_schema_version", "1"), _INVALID),
    ("authority array", _set("authority", []), _AUTHORITY),
    ("authority extra", _set("authority/extra", 1), _UNKNOWN),
    ("authority missing", _delete("authority/network"), _MISSING),
    ("authority filesystem object", _set("authority/filesystem", {}), _AUTHORITY),
    ("authority unknown kind", _set("authority/filesystem", ["root"]), _AUTHORITY),
    ("authority non-string kind", _set("authority/filesystem", [1]), _AUTHORITY),
    ("authority duplicate", _set("authority/filesystem", ["data_read", "data_read"]), _AUTHORITY),
    ("authority network", _set("authority/network", 0), _AUTHORITY),
]


@pytest.mark.parametrize(
    ("mutate", "code"),
    [(mutate, code) for _, mutate, code in _FIELD_FAILURES],
    ids=[name for name, _, _ in _FIELD_FAILURES],
)
def test_field_rules(mutate: Mutation, code: PluginContractErrorCode) -> None:
    assert _mapping_code(mutate) == code


@pytest.mark.parametrize(
    "character",
    ["\x00", "\n", "\x1f", "\x7f", "\x80", "\x85", "\x9f", "\u2028", "\u2029", "\u200e", "\u200f"]
    + [chr(code) for code in range(0x202A, 0x202F)]
    + [chr(code) for code in range(0x2066, 0x206A)],
)
@pytest.mark.parametrize("field", ["title", "description"])
def test_display_text_rejects_control_and_bidi_characters(field: str, character: str) -> None:
    assert _mapping_code(_set(field, f"Memory{character}store")) == _INVALID


_FIELD_SUCCESSES: list[tuple[str, Mutation]] = [
    ("schema absent", _delete("$schema")),
    ("schema null", _set("$schema", None)),
    ("schema 2048", _set("$schema", "x" * 2048)),
    ("title 128", _set("title", "x" * 128)),
    ("description 4096", _set("description", "x" * 4096)),
    ("host api 255", _set("requires/host_api", {"min": 1, "max": 255})),
    ("capabilities 64", _set("capabilities", _capabilities(64))),
    ("capabilities 1", _set("capabilities", _capabilities(1))),
    ("secrets 32", _set("secret_references", _references(32))),
    ("data schema 255", _set("data_schema_version", 255)),
    ("authority empty", _set("authority", {"filesystem": [], "network": True})),
    (
        "authority all",
        _set(
            "authority/filesystem",
            ["cache_write", "cache_read", "state_write", "state_read", "data_write", "data_read"],
        ),
    ),
    ("required omitted", _delete("configuration/schema/required")),
]


@pytest.mark.parametrize(
    "mutate", [mutate for _, mutate in _FIELD_SUCCESSES], ids=[name for name, _ in _FIELD_SUCCESSES]
)
def test_field_limits_accept_boundary_values(mutate: Mutation) -> None:
    assert isinstance(_parses(mutate), PluginDefinition)


# --- configuration schema ----------------------------------------------------------------

_STRING = {"type": "string"}

_SCHEMA_FAILURES: list[tuple[str, Any, PluginContractErrorCode]] = [
    ("root not object", [], _SCHEMA),
    ("root scalar", {"type": "string"}, _SCHEMA),
    ("root array", {"type": "array", "items": _STRING}, _SCHEMA),
    ("unknown keyword", _object(default={}), _UNKNOWN),
    ("ref keyword", _object({"a": {"$ref": "#"}}), _UNKNOWN),
    ("missing type", {"properties": {}, "additionalProperties": False}, _MISSING),
    ("unknown type", {"type": "date"}, _SCHEMA),
    ("type list", {"type": ["object"]}, _SCHEMA),
    ("object without properties", {"type": "object", "additionalProperties": False}, _SCHEMA),
    ("object without additional", {"type": "object", "properties": {}}, _SCHEMA),
    ("additional true", _object(additionalProperties=True), _SCHEMA),
    ("additional zero", _object(additionalProperties=0), _SCHEMA),
    ("additional schema", _object(additionalProperties={}), _SCHEMA),
    ("properties array", _object(properties=None) | {"properties": []}, _SCHEMA),
    ("33 properties", _object({f"p{index}": _STRING for index in range(33)}), _SCHEMA),
    ("empty property name", _object({"": _STRING}), _SCHEMA),
    ("required string", _object({"a": _STRING}, required="a"), _SCHEMA),
    ("required undeclared", _object({"a": _STRING}, required=["b"]), _SCHEMA),
    ("required duplicate", _object({"a": _STRING}, required=["a", "a"]), _SCHEMA),
    ("required number", _object({"a": _STRING}, required=[1]), _SCHEMA),
    ("object with items", _object(items=_STRING), _UNKNOWN),
    ("array without items", _object({"a": {"type": "array"}}), _SCHEMA),
    (
        "array with properties",
        _object({"a": {"type": "array", "items": _STRING, "properties": {}}}),
        _UNKNOWN,
    ),
    ("array items not object", _object({"a": {"type": "array", "items": "string"}}), _SCHEMA),
    ("scalar with items", _object({"a": {"type": "string", "items": _STRING}}), _UNKNOWN),
    ("scalar with required", _object({"a": {"type": "integer", "required": []}}), _UNKNOWN),
    ("property not object", _object({"a": "string"}), _SCHEMA),
    (
        "depth five",
        _object({"a": _object({"b": _object({"c": _object({"d": _STRING})})})}),
        _SCHEMA,
    ),
    (
        "depth five through arrays",
        _object(
            {
                "a": {
                    "type": "array",
                    "items": {"type": "array", "items": {"type": "array", "items": _STRING}},
                }
            }
        ),
        _SCHEMA,
    ),
]


@pytest.mark.parametrize(
    ("schema", "code"),
    [(schema, code) for _, schema, code in _SCHEMA_FAILURES],
    ids=[name for name, _, _ in _SCHEMA_FAILURES],
)
def test_configuration_schema_rules(schema: Any, code: PluginContractErrorCode) -> None:
    assert _mapping_code(_schema(schema)) == code


@pytest.mark.parametrize(
    "schema",
    [
        _object({"a": _object({"b": _object({"c": _STRING})})}),
        _object({"a": {"type": "array", "items": {"type": "array", "items": _STRING}}}),
        _object({"a": _object({"b": _object({})})}),
        _object({f"p{index}": _STRING for index in range(32)}),
        _object(
            {name: {"type": name} for name in ("string", "integer", "number", "boolean", "null")}
        ),
        _object({"a": _STRING, "b": _STRING}, required=["b", "a"]),
    ],
    ids=[
        "depth four",
        "arrays depth four",
        "empty object depth three",
        "32 properties",
        "scalars",
        "required",
    ],
)
def test_configuration_schema_accepts_valid_shapes(schema: dict[str, Any]) -> None:
    assert isinstance(_parses(_schema(schema)), PluginDefinition)


# --- precedence --------------------------------------------------------------------------


def _root_unknown(manifest: dict[str, Any]) -> None:
    manifest["extra"] = 1


def _duplicate_capability(manifest: dict[str, Any]) -> None:
    manifest["capabilities"][2] = copy.deepcopy(manifest["capabilities"][3])


def _duplicate_secret(manifest: dict[str, Any]) -> None:
    manifest["secret_references"][2] = manifest["secret_references"][3]


# In precedence order; applying stage i together with every later stage reports stage i.
_PRECEDENCE: list[tuple[str, Mutation, PluginContractErrorCode]] = [
    ("root unknown key", _root_unknown, _UNKNOWN),
    ("root missing key", _delete("data_schema_version"), _MISSING),
    ("schema identifier", _set("$schema", ""), _INVALID),
    ("manifest version", _set("manifest_version", 2), Code.MANIFEST_VERSION_UNSUPPORTED),
    ("host api shape", _set("requires/host_api/extra", 1), _UNKNOWN),
    (
        "capability item",
        _set("capabilities/0/kind", "resource"),
        Code.MANIFEST_CAPABILITY_KIND_UNSUPPORTED,
    ),
    ("duplicate capability", _duplicate_capability, Code.MANIFEST_DUPLICATE_CAPABILITY),
    ("secret reference item", _set("secret_references/0", "Bad"), _INVALID),
    ("duplicate secret reference", _duplicate_secret, Code.MANIFEST_DUPLICATE_SECRET_REFERENCE),
    ("id", _set("id", "Bad_Id"), _INVALID),
    ("title", _set("title", ""), _INVALID),
    ("description", _set("description", "a\u2028b"), _INVALID),
    ("version", _set("version", "v1"), _INVALID),
    ("host api range", _set("requires/host_api/min", 2), _INVALID),
    ("configuration", _set("configuration/schema_version", 2), _SCHEMA),
    ("data schema version", _set("data_schema_version", 0), _INVALID),
    ("authority", _set("authority/network", "no"), _AUTHORITY),
    ("capability count", _set("capabilities", _capabilities(65)), _INVALID),
    ("secret reference count", _set("secret_references", _references(33)), _INVALID),
]


@pytest.mark.parametrize("stage", range(len(_PRECEDENCE)), ids=[name for name, _, _ in _PRECEDENCE])
def test_first_failing_stage_decides(stage: int) -> None:
    manifest = mnemosyne_manifest()
    for _, mutate, _ in reversed(_PRECEDENCE[stage:]):
        mutate(manifest)
    expected = _PRECEDENCE[stage][2]
    assert _code_of(lambda: parse_manifest_bytes(encode(manifest))) == expected


def test_capability_kind_is_checked_before_other_capability_fields() -> None:
    def mutate(manifest: dict[str, Any]) -> None:
        manifest["capabilities"][0].update(kind="prompt", id="Bad", read_only="yes")

    assert _mapping_code(mutate) == Code.MANIFEST_CAPABILITY_KIND_UNSUPPORTED


def test_capability_items_are_checked_before_duplicates() -> None:
    def mutate(manifest: dict[str, Any]) -> None:
        manifest["capabilities"][1]["id"] = "memory_recall"
        manifest["capabilities"][5]["consent"] = "sometimes"

    assert _mapping_code(mutate) == _INVALID


def test_duplicate_secret_reference_is_reported_before_the_count() -> None:
    references = _references(33)
    references[5] = references[4]
    assert _mapping_code(_set("secret_references", references)) == (
        Code.MANIFEST_DUPLICATE_SECRET_REFERENCE
    )


def test_duplicate_capability_is_reported_before_the_count() -> None:
    capabilities = _capabilities(65)
    capabilities[7] = capabilities[3]
    assert _mapping_code(_set("capabilities", capabilities)) == Code.MANIFEST_DUPLICATE_CAPABILITY


def test_unknown_schema_keyword_is_reported_before_missing_type() -> None:
    assert _mapping_code(_schema({"default": 1})) == _UNKNOWN


# --- error objects -----------------------------------------------------------------------

_RESOURCE_MESSAGES = {
    Code.MANIFEST_RESOURCE_INVALID: "plugin manifest resource must be bytes",
    Code.MANIFEST_RESOURCE_TOO_LARGE: "plugin manifest resource is too large",
    Code.MANIFEST_RESOURCE_INVALID_UTF8: "plugin manifest resource is not valid UTF-8",
    Code.MANIFEST_RESOURCE_DUPLICATE_KEY: "plugin manifest resource contains a duplicate key",
    Code.MANIFEST_RESOURCE_INVALID_JSON: "plugin manifest resource is not valid JSON",
    Code.MANIFEST_ROOT_INVALID: "plugin manifest root must be an object",
}


@pytest.mark.parametrize(
    ("source", "code"),
    [
        ("{}", Code.MANIFEST_RESOURCE_INVALID),
        (b" " * 65537, Code.MANIFEST_RESOURCE_TOO_LARGE),
        (b"\xff", Code.MANIFEST_RESOURCE_INVALID_UTF8),
        (b'{"a":1,"a":1}', Code.MANIFEST_RESOURCE_DUPLICATE_KEY),
        (b"{", Code.MANIFEST_RESOURCE_INVALID_JSON),
        (b"[]", Code.MANIFEST_ROOT_INVALID),
    ],
)
def test_resource_errors_carry_their_fixed_messages(
    source: Any, code: PluginContractErrorCode
) -> None:
    with pytest.raises(PluginContractError) as caught:
        parse_manifest_bytes(source)
    assert caught.value.code == code
    assert str(caught.value) == _RESOURCE_MESSAGES[code]


_FIELD_MESSAGES = {
    "plugin manifest is missing a required field",
    "plugin manifest version is unsupported",
    "plugin manifest declares an unsupported capability kind",
} | {
    "plugin manifest contains " + tail
    for tail in (
        "an invalid object",
        "an unknown field",
        "an invalid array",
        "an invalid boolean",
        "an invalid capability field",
        "an invalid configuration schema",
        "an invalid authority declaration",
        "an invalid schema identifier",
        "a duplicate capability",
        "an invalid secret reference",
        "a duplicate secret reference",
        "an invalid field",
    )
}


@pytest.mark.parametrize(
    "mutate",
    [mutate for _, mutate, _ in _FIELD_FAILURES]
    + [_schema(schema) for _, schema, _ in _SCHEMA_FAILURES],
)
def test_field_errors_use_only_fixed_messages(mutate: Mutation) -> None:
    manifest = mnemosyne_manifest()
    mutate(manifest)
    with pytest.raises(PluginContractError) as caught:
        parse_manifest_bytes(encode(manifest))
    assert str(caught.value) in _FIELD_MESSAGES
    assert caught.value.message == str(caught.value)


def test_errors_are_value_errors_without_chained_cause_or_context() -> None:
    try:
        raise KeyError("unrelated failure in the caller")
    except KeyError:
        with pytest.raises(PluginContractError) as caught:
            parse_manifest_bytes(b"\xff")
    error = caught.value
    assert isinstance(error, ValueError)
    assert error.__cause__ is None
    assert error.__context__ is None


@pytest.mark.parametrize("source", [b"{", b'{"id": "\xff"}', b"[" * 5000])
def test_json_level_errors_have_no_context(source: bytes) -> None:
    with pytest.raises(PluginContractError) as caught:
        parse_manifest_bytes(source)
    assert caught.value.__context__ is None
    assert caught.value.__cause__ is None


def test_errors_survive_pickling() -> None:
    with pytest.raises(PluginContractError) as caught:
        parse_manifest_bytes(b"[]")
    restored = pickle.loads(pickle.dumps(caught.value))
    assert restored.code == Code.MANIFEST_ROOT_INVALID
    assert str(restored) == str(caught.value)


def test_error_messages_never_echo_the_input() -> None:
    marker = "SECRET-MARKER-\u2028"
    with pytest.raises(PluginContractError) as caught:
        parse_manifest_bytes(encode(mnemosyne_manifest() | {"title": marker}))
    assert "SECRET" not in str(caught.value)
    assert len(str(caught.value)) <= 128


# --- properties --------------------------------------------------------------------------

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)


def _assert_only_contract_errors(source: bytes) -> None:
    try:
        result = parse_manifest_bytes(source)
    except PluginContractError as error:
        assert isinstance(error.code, PluginContractErrorCode)
        assert len(error.message) <= 128
    else:
        assert isinstance(result, PluginDefinition)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=256))
def test_arbitrary_bytes_only_raise_contract_errors(source: bytes) -> None:
    _assert_only_contract_errors(source)


@settings(max_examples=200, deadline=None)
@given(_json_values)
def test_arbitrary_json_only_raises_contract_errors(value: Any) -> None:
    _assert_only_contract_errors(json.dumps(value).encode())


# Every root field and the nested ones below them (sampled, so their order does not matter).
_MANIFEST_PATHS = [
    "$schema",
    *_ROOT_FIELDS,
    "requires/host_api",
    "requires/host_api/min",
    "capabilities/0",
    "capabilities/0/kind",
    "capabilities/0/id",
    "capabilities/0/read_only",
    "capabilities/0/consent",
    "configuration/schema",
    "configuration/schema/properties",
    "configuration/schema/required",
    "authority/filesystem",
    "authority/network",
]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_MANIFEST_PATHS), _json_values)
def test_manifest_with_one_arbitrary_field_only_raises_contract_errors(
    path: str, value: Any
) -> None:
    manifest = mnemosyne_manifest()
    _set(path, value)(manifest)
    _assert_only_contract_errors(encode(manifest))
