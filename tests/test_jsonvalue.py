"""The one strict JSON decoder and the one compact encoder (``mymcp/jsonvalue.py``)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mymcp import jsonvalue

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=20,
)


@pytest.mark.parametrize("unique_keys", [False, True])
@pytest.mark.parametrize("allow_overflow", [False, True])
@pytest.mark.parametrize(
    "text",
    ["NaN", "[Infinity]", '{"a": -Infinity}', "\ufeff{}", "[1", "{} x", "", "9" * 5000],
)
def test_what_no_edge_accepts(text: str, unique_keys: bool, allow_overflow: bool) -> None:
    with pytest.raises(jsonvalue.JsonError):
        jsonvalue.decode(text, unique_keys=unique_keys, allow_overflow=allow_overflow)


def test_nesting_past_the_recursion_limit_is_a_json_error() -> None:
    with pytest.raises(jsonvalue.JsonError):
        jsonvalue.decode("[" * 100_000 + "]" * 100_000)


def test_a_repeated_key_is_kept_last_unless_keys_must_be_unique() -> None:
    assert jsonvalue.decode('{"a": 1, "a": 2}') == {"a": 2}
    with pytest.raises(jsonvalue.DuplicateKey):
        jsonvalue.decode('{"x": [{"a": 1, "a": 2}]}', unique_keys=True)


def test_a_repeated_key_is_reported_before_a_non_finite_number() -> None:
    with pytest.raises(jsonvalue.DuplicateKey):
        jsonvalue.decode('{"a": NaN, "a": 1}', unique_keys=True)
    with pytest.raises(jsonvalue.JsonError) as caught:
        jsonvalue.decode('{"a": NaN, "b": 1}', unique_keys=True)
    assert not isinstance(caught.value, jsonvalue.DuplicateKey)


def test_an_overflowing_number_is_refused_unless_allowed() -> None:
    with pytest.raises(jsonvalue.JsonError):
        jsonvalue.decode("[1e400]")
    assert jsonvalue.decode("[-1e400]", allow_overflow=True) == [-math.inf]


@given(JSON_VALUES)
def test_decoding_reads_back_what_json_writes(value: object) -> None:
    text = json.dumps(value)
    assert jsonvalue.decode(text) == json.loads(text)
    assert jsonvalue.decode(text, unique_keys=True) == json.loads(text)


@given(JSON_VALUES, st.booleans(), st.booleans())
def test_encoding_is_json_dumps_compact(value: object, ensure_ascii: bool, sort_keys: bool) -> None:
    expected = json.dumps(
        value, separators=(",", ":"), ensure_ascii=ensure_ascii, sort_keys=sort_keys
    )
    assert jsonvalue.encode(value, ensure_ascii=ensure_ascii, sort_keys=sort_keys) == expected


@pytest.mark.parametrize("value", [math.nan, [math.inf], {"a": -math.inf}])
def test_encoding_refuses_non_finite_numbers(value: object) -> None:
    with pytest.raises(ValueError):
        jsonvalue.encode(value)
