"""What the host does to a Tool call's arguments: client control arguments dropped, then one
extra JSON layer undone, guided by the schema."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mymcp.mcp.tool_arguments import CLIENT_CONTROL_ARGUMENTS, tool_arguments
from mymcp.mcp.tool_registry import ToolRegistration, ToolRegistry
from tests.synthetic_host import SyntheticHost, tool_definition


def at(schema: Any, value: Any) -> Any:
    """Normalize ``value`` as member ``v`` of an object whose property ``v`` has ``schema``."""
    normalized = tool_arguments({"v": value}, {"type": "object", "properties": {"v": schema}})
    return normalized["v"]


def same_json(left: Any, right: Any) -> bool:
    """Equal as JSON text, so 2 and 2.0 (or 1 and true) are told apart."""
    return json.dumps(left, sort_keys=True) == json.dumps(right, sort_keys=True)


SELECTOR_SCHEMA = {
    "type": "object",
    "oneOf": [
        {"properties": {"selector": {"const": 1}, "value": {"type": "object"}}},
        {"properties": {"selector": {"const": True}, "value": {"type": "string"}}},
    ],
}


# --- the table of the contract, row by row ---------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "given_value", "expected"),
    [
        ({"type": "integer"}, "2", 2),
        ({"type": "integer"}, "2.0", 2.0),
        ({"type": "integer"}, "1e2", 100.0),
        ({"type": "integer"}, "true", "true"),
        ({"type": "boolean"}, "true", True),
        ({"type": "boolean"}, "2", "2"),
        ({"type": "number"}, " 2 ", 2),
        ({"type": "string"}, "null", "null"),
        ({"type": "string"}, "5", "5"),
        ({"type": "string"}, '{"a":1}', '{"a":1}'),
        ({"type": ["integer", "null"]}, "null", None),
        ({"type": ["integer", "null"]}, "5", 5),
        ({"type": "object", "properties": {"k": {"type": "integer"}}}, '{"k":"3"}', {"k": "3"}),
        ({"type": "object", "properties": {"k": {"type": "integer"}}}, {"k": "3"}, {"k": 3}),
        ({"type": "object"}, '"{\\"nested\\":true}"', '"{\\"nested\\":true}"'),
        ({"type": "array", "items": {"type": "string"}}, '{"wrong":"type"}', '{"wrong":"type"}'),
        ({"type": "array", "items": {"type": "string"}}, "[not-json", "[not-json"),
        ({"type": "array", "items": {"type": "integer"}}, ["1", 2, "x"], [1, 2, "x"]),
        (
            {"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}]},
            ["4"],
            ["4"],
        ),
        ({"anyOf": [{"type": "string"}, {"type": "object"}]}, '{"id":1}', '{"id":1}'),
        ({"anyOf": [{"type": "object"}, {}]}, '{"id":1}', '{"id":1}'),
    ],
)
def test_contract_table_rows(schema: Any, given_value: Any, expected: Any) -> None:
    assert same_json(at(schema, given_value), expected)


def test_contract_table_discriminated_one_of_row() -> None:
    arguments = {"selector": True, "value": '{"a":1}'}

    assert tool_arguments(arguments, SELECTOR_SCHEMA) == arguments


@pytest.mark.parametrize(
    "text", ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", " NaN ", "[NaN]", '{"x":Infinity}']
)
@pytest.mark.parametrize(
    "schema",
    [
        {"type": "number"},
        {"type": "integer"},
        {"type": "array"},
        {"type": "object"},
        {"type": "null"},
    ],
)
def test_non_finite_text_is_never_decoded(schema: Any, text: str) -> None:
    assert at(schema, text) == text


# --- permits(): which values a schema allows --------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "given_value", "expected"),
    [
        ({"type": "number"}, "2.5", 2.5),
        ({"type": "number"}, "true", "true"),
        ({"type": "null"}, "null", None),
        ({"type": "null"}, "0", "0"),
        ({"type": "array"}, '[1,"a"]', [1, "a"]),
        ({"type": "object"}, '{"a":[1]}', {"a": [1]}),
        ({"type": "boolean"}, "false", False),
        ({"type": "boolean"}, "1", "1"),
        ({"type": "integer"}, "2.5", "2.5"),
        ({"type": "integer"}, "-0", 0),
        ({"type": "no-such-type"}, "5", "5"),
        ({"type": 5}, "5", "5"),
        ({"type": {"not": "a name"}}, "5", "5"),
        ({"type": ["integer", 7, None]}, "5", 5),
        ({"type": [7]}, "5", "5"),
        ({"type": []}, "5", "5"),
        ({"type": "integer", "enum": [1]}, "7", 7),
        ({"type": "integer", "minimum": 10, "maximum": 11}, "7", 7),
        ({"type": "integer", "not": {"type": "integer"}}, "7", 7),
        ({"allOf": [{"type": "integer"}]}, "7", "7"),
        ({"$ref": "#/definitions/x"}, "7", "7"),
        ({}, "7", "7"),
    ],
)
def test_type_keyword(schema: Any, given_value: Any, expected: Any) -> None:
    assert same_json(at(schema, given_value), expected)


@pytest.mark.parametrize(
    ("schema", "given_value", "expected"),
    [
        ({"const": 3}, "4", 4),
        ({"const": 3}, "4.5", 4.5),
        ({"const": 3.5}, "4", 4),
        ({"const": 1}, "true", "true"),
        ({"const": True}, "false", False),
        ({"const": True}, "1", "1"),
        ({"const": None}, "null", None),
        ({"const": "x"}, "4", "4"),
        ({"const": [1]}, "[2,3]", [2, 3]),
        ({"const": {"a": 1}}, '{"b":2}', {"b": 2}),
        ({"const": {"a": 1}}, "[1]", "[1]"),
    ],
)
def test_const_compares_json_type_only(schema: Any, given_value: Any, expected: Any) -> None:
    assert same_json(at(schema, given_value), expected)


@pytest.mark.parametrize(
    ("schema", "given_value", "expected"),
    [
        ({"oneOf": [{"type": "integer"}]}, "5", 5),
        ({"anyOf": [{"type": "boolean"}, {"type": "integer"}]}, "5", 5),
        ({"anyOf": [{"type": "boolean"}, {"type": "null"}]}, "5", "5"),
        ({"anyOf": []}, "5", "5"),
        ({"oneOf": []}, "5", "5"),
        ({"anyOf": ["integer", 5, None]}, "5", "5"),
        ({"anyOf": [True, {"type": "integer"}]}, "5", 5),
        ({"anyOf": {"type": "integer"}}, "5", "5"),
        ({"oneOf": [{"type": "integer"}], "anyOf": [{"type": "number"}]}, "5", 5),
        ({"oneOf": [{"type": "integer"}], "anyOf": [{"type": "string"}]}, "5", "5"),
        ({"type": "integer", "anyOf": [{"type": "string"}]}, "5", "5"),
        ({"anyOf": [{"oneOf": [{"type": "integer"}]}]}, "5", 5),
        ({"anyOf": [{"anyOf": [{"type": "string"}]}]}, "5", "5"),
    ],
)
def test_one_of_and_any_of_need_a_permitting_object_branch(
    schema: Any, given_value: Any, expected: Any
) -> None:
    assert same_json(at(schema, given_value), expected)


# --- rule 1: strings ------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["\n 5 \t", " 5", "5 ", "\r\n5"])
def test_surrounding_whitespace_is_allowed_when_decoding(text: str) -> None:
    assert at({"type": "integer"}, text) == 5


@pytest.mark.parametrize(
    "text",
    ["", " ", "5 6", "0x10", "'5'", "[1,]", "[" * 100_000, "[" * 50_000 + "]" * 50_000, "9" * 5000],
    ids=lambda text: repr(text[:12]),
)
def test_undecodable_text_stays_a_string(text: str) -> None:
    assert at({"type": "array"}, text) == text
    assert at({"type": "integer"}, text) == text


def test_integers_beyond_float_range_decode_without_error() -> None:
    huge = "9" * 400

    assert at({"type": "integer"}, huge) == int(huge)
    assert at({"type": "number"}, huge) == int(huge)
    assert at({"anyOf": [{"type": "integer"}]}, f"[{huge}]") == f"[{huge}]"
    assert at({"type": "array", "items": {"type": "integer"}}, [huge]) == [int(huge)]


def test_a_string_the_schema_permits_is_never_decoded() -> None:
    assert at({"type": ["string", "integer"]}, "5") == "5"
    assert at({"anyOf": [{"type": "string"}, {"type": "array"}]}, "[1]") == "[1]"


def test_decoded_values_are_not_normalized_further() -> None:
    schema = {"type": "array", "items": {"type": "integer"}}

    assert at(schema, '["1", "2"]') == ["1", "2"]
    assert at({"type": "object", "properties": {"k": {"type": "boolean"}}}, '{"k":"true"}') == {
        "k": "true"
    }


# --- rule 2: objects ------------------------------------------------------------------------


def test_members_not_described_by_the_schema_are_untouched() -> None:
    schema = {"type": "object", "properties": {"count": {"type": "integer"}}}

    normalized = tool_arguments({"count": "1", "other": "2", "x": '["a"]'}, schema)

    assert normalized == {"count": 1, "other": "2", "x": '["a"]'}


def test_a_property_schema_that_is_not_an_object_is_no_candidate() -> None:
    schema = {"type": "object", "properties": {"v": True, "w": ["integer"]}}

    assert tool_arguments({"v": "5", "w": "5"}, schema) == {"v": "5", "w": "5"}


def test_properties_that_are_not_an_object_describe_nothing() -> None:
    assert tool_arguments({"v": "5"}, {"properties": [{"type": "integer"}]}) == {"v": "5"}


def test_candidates_come_from_one_of_and_any_of_branches() -> None:
    one_of = {"oneOf": [{"properties": {"v": {"type": "integer"}}}]}
    any_of = {"anyOf": [{"anyOf": [{"oneOf": [{"properties": {"v": {"type": "integer"}}}]}]}]}

    assert tool_arguments({"v": "5"}, one_of) == {"v": 5}
    assert tool_arguments({"v": "5"}, any_of) == {"v": 5}


def test_several_candidates_are_combined_with_any_of() -> None:
    string_or_integer = {
        "properties": {"v": {"type": "string"}},
        "anyOf": [{"properties": {"v": {"type": "integer"}}}],
    }
    boolean_or_integer = {
        "oneOf": [
            {"properties": {"v": {"type": "boolean"}}},
            {"properties": {"v": {"type": "integer"}}},
        ]
    }

    assert tool_arguments({"v": "5"}, string_or_integer) == {"v": "5"}
    assert tool_arguments({"v": "5"}, boolean_or_integer) == {"v": 5}
    assert tool_arguments({"v": "true"}, boolean_or_integer) == {"v": True}
    assert tool_arguments({"v": '"x"'}, boolean_or_integer) == {"v": '"x"'}


DISCRIMINATED = {
    "type": "object",
    "oneOf": [
        {"properties": {"kind": {"const": "a"}, "v": {"type": "integer"}}},
        {"properties": {"kind": {"const": "b"}, "v": {"type": "boolean"}}},
    ],
}


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"kind": "a", "v": "5"}, {"kind": "a", "v": 5}),
        ({"kind": "a", "v": "true"}, {"kind": "a", "v": "true"}),
        ({"kind": "b", "v": "true"}, {"kind": "b", "v": True}),
        ({"kind": "b", "v": "5"}, {"kind": "b", "v": "5"}),
        ({"kind": "c", "v": "5"}, {"kind": "c", "v": "5"}),
        ({"v": "5"}, {"v": 5}),
        ({"v": "true"}, {"v": True}),
        ({"kind": 1, "v": "5"}, {"kind": 1, "v": "5"}),
    ],
)
def test_a_branch_whose_const_disagrees_is_inapplicable(
    arguments: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert tool_arguments(arguments, DISCRIMINATED) == expected


@pytest.mark.parametrize(
    ("selector", "applies"), [(1, True), (1.0, True), (True, False), ("1", False), (2, False)]
)
def test_const_applicability_compares_type_and_value(selector: Any, applies: bool) -> None:
    schema = {"oneOf": [{"properties": {"s": {"const": 1}, "v": {"type": "integer"}}}]}

    normalized = tool_arguments({"s": selector, "v": "5"}, schema)

    assert normalized["v"] == (5 if applies else "5")


def test_nested_objects_are_normalized_through_their_properties() -> None:
    schema = {
        "type": "object",
        "properties": {
            "outer": {"type": "object", "properties": {"inner": {"type": "integer"}}},
        },
    }

    assert tool_arguments({"outer": {"inner": "3", "x": "4"}}, schema) == {
        "outer": {"inner": 3, "x": "4"}
    }


# --- rule 3: arrays -------------------------------------------------------------------------


def test_array_items_are_normalized_with_an_object_items_schema() -> None:
    schema = {
        "type": "array",
        "items": {"type": "object", "properties": {"n": {"type": "integer"}}},
    }

    assert at(schema, [{"n": "1"}, {"n": 2}, "x"]) == [{"n": 1}, {"n": 2}, "x"]


@pytest.mark.parametrize("items", [[{"type": "integer"}], True, None])
def test_arrays_without_an_object_items_schema_are_untouched(items: Any) -> None:
    assert at({"type": "array", "items": items}, ["1"]) == ["1"]


def test_arrays_reached_through_one_of_are_not_descended() -> None:
    schema = {"oneOf": [{"type": "array", "items": {"type": "integer"}}]}

    assert at(schema, ["1"]) == ["1"]


# --- rule 4 and the top level ----------------------------------------------------------------


@pytest.mark.parametrize("value", [5, 2.5, True, None])
def test_other_values_are_unchanged(value: Any) -> None:
    assert same_json(at({"type": "string"}, value), value)


@pytest.mark.parametrize("schema", [None, [], "object", True, 5])
def test_a_schema_that_is_not_an_object_normalizes_nothing(schema: Any) -> None:
    arguments = {"v": "5"}

    assert tool_arguments(arguments, schema) == {"v": "5"}


def test_top_level_keywords_apply_to_the_arguments_object() -> None:
    schema = {"type": "object", "anyOf": [{"properties": {"n": {"type": "integer"}}}]}

    assert tool_arguments({"n": "1"}, schema) == {"n": 1}


# --- never mutates ---------------------------------------------------------------------------


def test_the_callers_arguments_are_never_mutated() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer"},
            "list": {"type": "array", "items": {"type": "integer"}},
            "obj": {"type": "object", "properties": {"k": {"type": "integer"}}},
            "rows": {
                "type": "array",
                "items": {"type": "object", "properties": {"x": {"type": "null"}}},
            },
        },
    }
    arguments = {"n": "1", "list": ["2", "3"], "obj": {"k": "4"}, "rows": [{"x": "null"}], "u": "5"}
    snapshot = copy.deepcopy(arguments)
    schema_snapshot = copy.deepcopy(schema)

    normalized = tool_arguments(arguments, schema)

    assert arguments == snapshot
    assert schema == schema_snapshot
    assert normalized == {"n": 1, "list": [2, 3], "obj": {"k": 4}, "rows": [{"x": None}], "u": "5"}
    assert normalized is not arguments


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["NaN", "Infinity", "1e400", "null", "5", '["1"]', '{"k":"2"}', "true"]),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)
SCHEMAS = st.sampled_from(
    [
        {"type": "object", "properties": {"k": {"type": "integer"}, "n": {"type": "number"}}},
        {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer"}}}},
        DISCRIMINATED,
        SELECTOR_SCHEMA,
        {"anyOf": [{"properties": {"k": {"type": ["null", "boolean"]}}}, {"type": "object"}]},
        {},
    ]
)


@settings(max_examples=100, deadline=None)
@given(
    arguments=st.dictionaries(st.sampled_from(["k", "n", "a", "kind", "v", "x"]), JSON_VALUES),
    schema=SCHEMAS,
)
def test_normalization_never_mutates_and_stays_strict_json(
    arguments: dict[str, Any], schema: dict[str, Any]
) -> None:
    snapshot = copy.deepcopy(arguments)

    normalized = tool_arguments(arguments, schema)

    assert same_json(arguments, snapshot)
    assert isinstance(normalized, dict)
    assert list(normalized) == list(arguments)
    json.dumps(normalized, allow_nan=False)


# --- the portable forms of issue 12 ---------------------------------------------------------
# Published schemas spell const, oneOf and type arrays differently; the outcome must not move.

PINNED_TWO = {"type": "integer", "minimum": 2, "maximum": 2}
NULLABLE_PAIRS = [
    ({"type": ["string", "null"]}, {"anyOf": [{"type": "string"}, {"type": "null"}]}),
    ({"type": ["integer", "null"]}, {"anyOf": [{"type": "integer"}, {"type": "null"}]}),
    (
        {"oneOf": [{"type": "string", "pattern": "^[a-z]$"}, {"type": "null"}]},
        {"anyOf": [{"type": "string"}, {"type": "null"}]},
    ),
    (
        {"oneOf": [{"const": "self"}, {"const": "project"}]},
        {"type": "string", "enum": ["self", "project"]},
    ),
]


@pytest.mark.parametrize(
    ("schema", "given_value", "expected"),
    [
        ({"anyOf": [{"type": "string"}, {"type": "null"}]}, "null", "null"),
        ({"anyOf": [{"type": "string"}, {"type": "null"}]}, None, None),
        ({"anyOf": [{"type": "integer"}, {"type": "null"}]}, "null", None),
        ({"anyOf": [{"type": "integer"}, {"type": "null"}]}, "5", 5),
        ({"anyOf": [{"type": "null"}, {"type": "object"}]}, "null", None),
        ({"anyOf": [{"type": "null"}, {"type": "object"}]}, '{"id":"a"}', {"id": "a"}),
        ({"anyOf": [{"type": "null"}, {"type": "object"}]}, '"x"', '"x"'),
        (PINNED_TWO, "2", 2),
        (PINNED_TWO, "true", "true"),
        (PINNED_TWO, "null", "null"),
    ],
)
def test_property_level_any_of_with_a_null_branch_and_pinned_integers(
    schema: Any, given_value: Any, expected: Any
) -> None:
    assert same_json(at(schema, given_value), expected)


LEGACY_FORM = {
    "oneOf": [
        {"properties": {"v": {"const": 2}, "n": {"type": "integer"}}},
        {"properties": {"v": {"const": 1}, "m": {"type": "integer"}}},
    ]
}
PORTABLE_FORM = {
    "anyOf": [
        {"type": "object", "properties": {"v": PINNED_TWO, "n": {"type": "integer"}}},
        {
            "type": "object",
            "properties": {
                "v": {"type": "integer", "minimum": 1, "maximum": 1},
                "m": {"type": "integer"},
            },
        },
    ]
}
DISCRIMINATOR_VALUES = st.sampled_from([1, 2, 1.0, 2.0, 3, True, None, "1", "2", "x", [2]])


@settings(max_examples=150, deadline=None)
@given(
    discriminator=st.none() | DISCRIMINATOR_VALUES,
    members=st.dictionaries(st.sampled_from(["n", "m", "x"]), JSON_VALUES, max_size=3),
)
def test_a_one_value_integer_range_discriminates_branches_as_const_did(
    discriminator: Any, members: dict[str, Any]
) -> None:
    value = dict(members) if discriminator is None else {"v": discriminator, **members}

    legacy = tool_arguments({"r": value}, {"properties": {"r": LEGACY_FORM}})
    portable = tool_arguments({"r": value}, {"properties": {"r": PORTABLE_FORM}})

    assert same_json(legacy, portable)


def test_a_pinned_branch_that_disagrees_is_inapplicable() -> None:
    schema = {"properties": {"r": PORTABLE_FORM}}
    assert tool_arguments({"r": {"v": "2", "n": "5"}}, schema) == {"r": {"v": "2", "n": "5"}}
    assert tool_arguments({"r": {"v": 2, "n": "5", "m": "6"}}, schema) == {
        "r": {"v": 2, "n": 5, "m": "6"}
    }
    assert tool_arguments({"r": {"n": "5", "m": "6"}}, schema) == {"r": {"n": 5, "m": 6}}


@pytest.mark.parametrize("bounds", [{"minimum": 1, "maximum": 2}, {"minimum": 2}, {}])
def test_only_a_one_value_integer_range_pins_a_branch(bounds: dict[str, int]) -> None:
    branch = {"properties": {"v": {"type": "integer", **bounds}, "n": {"type": "integer"}}}
    schema = {"properties": {"r": {"anyOf": [branch]}}}
    assert tool_arguments({"r": {"v": "2", "n": "5"}}, schema) == {"r": {"v": 2, "n": 5}}


@settings(max_examples=150, deadline=None)
@given(value=JSON_VALUES, pair=st.sampled_from(NULLABLE_PAIRS))
def test_portable_spellings_normalize_like_the_originals(
    value: Any, pair: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    original, portable = pair
    assert same_json(at(original, value), at(portable, value))


# --- end to end through POST /mcp ------------------------------------------------------------


def test_arguments_are_normalized_before_the_handler_sees_them(host: SyntheticHost) -> None:
    sent = {
        "count": "3",
        "ratio": " 2.5 ",
        "flag": "false",
        "label": "null",
        "tags": '["a","b"]',
        "ids": ["1", 2, "x"],
        "maybe": "null",
        "nested": '{"k":"3"}',
        "unknown": "7",
    }

    reply = host.call("echo", sent)

    assert reply["result"]["received"] == {
        "count": 3,
        "ratio": 2.5,
        "flag": False,
        "label": "null",
        "tags": ["a", "b"],
        "ids": [1, 2, "x"],
        "maybe": None,
        "nested": {"k": "3"},
        "unknown": "7",
    }


def test_a_huge_integer_string_is_decoded_not_an_internal_error(host: SyntheticHost) -> None:
    huge = "9" * 4000

    reply = host.call("echo", {"count": huge, "ids": [huge]})

    assert reply["result"]["received"] == {"count": int(huge), "ids": [int(huge)]}


def test_non_finite_strings_reach_the_handler_as_strings(host: SyntheticHost) -> None:
    response = host.send(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"ratio": "NaN", "count": "Infinity"}},
        }
    )

    assert response.status_code == 200
    assert response.json()["result"]["received"] == {"ratio": "NaN", "count": "Infinity"}


# --- client control arguments: dropped before a Tool sees its arguments, and only those ---


SCHEMA: dict[str, Any] = {"type": "object", "properties": {"n": {"type": "integer"}}}


def test_the_list_holds_gemini_clis_switch() -> None:
    assert list(CLIENT_CONTROL_ARGUMENTS) == ["wait_for_previous"]


@pytest.mark.parametrize("value", [True, False])
def test_wait_for_previous_is_dropped(value: bool) -> None:
    arguments = {"n": 1, "wait_for_previous": value}
    assert tool_arguments(arguments, SCHEMA) == {"n": 1}
    assert arguments == {"n": 1, "wait_for_previous": value}


@pytest.mark.parametrize("value", ["true", 1, 0, None, [], {}])
def test_a_value_of_another_type_is_kept_for_the_tool_to_judge(value: Any) -> None:
    arguments = {"n": 1, "wait_for_previous": value}
    assert tool_arguments(arguments, SCHEMA) == arguments


def test_a_tool_that_declares_the_name_keeps_it() -> None:
    schema = {"type": "object", "properties": {"wait_for_previous": {"type": "boolean"}}}
    arguments = {"wait_for_previous": True}
    assert tool_arguments(arguments, schema) == arguments


def test_arguments_without_one_are_passed_as_they_are() -> None:
    arguments = {"n": 1, "waitForPrevious": True}
    assert tool_arguments(arguments, SCHEMA) == arguments


def test_call_tool_drops_it_before_normalizing() -> None:
    received: list[dict[str, Any]] = []

    def handler(arguments: dict[str, Any]) -> Any:
        received.append(arguments)
        return {"content": []}

    registry = ToolRegistry([ToolRegistration(tool_definition("echo", SCHEMA), handler)])
    registry.call_tool("echo", {"wait_for_previous": False, "n": "2"})
    assert received == [{"n": 2}]
