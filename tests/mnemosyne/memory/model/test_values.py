from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mymcp.plugins.mnemosyne.memory.model.values import (
    CONTENT_LIMIT,
    LABEL_LIMIT,
    TITLE_LIMIT,
    canonical_tag_key,
    format_timestamp,
    is_canonical_id,
    is_identifier,
    is_legacy_id,
    normalize_language,
    normalize_tag,
    normalize_tags,
    normalize_text,
    parse_event_timestamp,
    parse_timestamp,
)

NOT_STRINGS = [None, 1, 1.5, True, b"a", ["a"], {"a": "a"}, ("a",), object()]
HEX = "0123456789abcdef"
FULL_WIDTH = str.maketrans("0123456789", "０１２３４５６７８９")
ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")

Parser = Callable[[object], str | None]


# --- identifiers -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    ["a", "0", "ab", "a1", "a-b", "a_b", "a--b", "a__b", "a-_-b", "x" * 64, "a" + "-" * 62 + "b"],
)
def test_identifier_accepts_lowercase_alnum_with_inner_separators(value: str) -> None:
    assert is_identifier(value)


@pytest.mark.parametrize(
    "value",
    [
        "",
        "A",
        "aB",
        "x" * 65,
        "-a",
        "a-",
        "_a",
        "a_",
        "-",
        "a b",
        " a",
        "a ",
        "a\n",
        "a.b",
        "a/b",
        "é",
        "ａ",
        "a\u0301",
    ],
)
def test_identifier_rejects_other_strings_without_trimming_or_folding(value: str) -> None:
    assert not is_identifier(value)


@pytest.mark.parametrize("value", NOT_STRINGS)
def test_identifier_checks_reject_non_strings(value: object) -> None:
    assert not is_identifier(value)
    assert not is_canonical_id(value)
    assert not is_legacy_id(value)


def test_canonical_id_is_mem_and_32_lowercase_hex() -> None:
    assert is_canonical_id("mem_" + HEX * 2)


@pytest.mark.parametrize(
    "value",
    [
        "mem_" + HEX.upper() * 2,
        "mem_" + "a" * 31,
        "mem_" + "a" * 33,
        "MEM_" + "a" * 32,
        "mem-" + "a" * 32,
        "mem_" + "g" * 32,
        "mem_" + "a" * 32 + "\n",
        " mem_" + "a" * 32,
        "mem_" + "a" * 32 + ".json",
        "a" * 32,
    ],
)
def test_canonical_id_rejects_near_misses(value: str) -> None:
    assert not is_canonical_id(value)


@pytest.mark.parametrize("value", ["a", "A", ".", "..", "A.b_c-9", "mem_x", "x" * 100])
def test_legacy_id_accepts_1_to_100_safe_ascii_chars(value: str) -> None:
    assert is_legacy_id(value)


@pytest.mark.parametrize("value", ["", "x" * 101, "a/b", "a\\b", "a b", "é", "a\n", "a:b"])
def test_legacy_id_rejects_other_strings(value: str) -> None:
    assert not is_legacy_id(value)


# --- text rule ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("hello", "hello"),
        ("  hello  world \n", "hello  world"),
        ("a\r\nb\rc\nd", "a\nb\nc\nd"),
        ("a\r\r\nb", "a\n\nb"),
        ("e\u0301", "\u00e9"),
        ("\u00a0a \u00a0 b\u3000", "a \u00a0 b"),
        ("\t line one\n\n line two \r\n", "line one\n\n line two"),
    ],
)
def test_text_rule_unifies_line_endings_applies_nfc_and_trims(raw: str, expected: str) -> None:
    assert normalize_text(raw, 200) == expected


@pytest.mark.parametrize("raw", ["", " ", "\n\r\n", "\u00a0\u3000\t"])
def test_text_rule_rejects_empty_and_whitespace_only(raw: str) -> None:
    assert normalize_text(raw, 200) is None


@pytest.mark.parametrize("limit", [TITLE_LIMIT, CONTENT_LIMIT, LABEL_LIMIT])
def test_text_rule_limit_counts_normalized_code_points(limit: int) -> None:
    assert normalize_text("x" * limit, limit) == "x" * limit
    assert normalize_text(" " + "x" * limit + "\n", limit) == "x" * limit
    assert normalize_text("e\u0301" * limit, limit) == "\u00e9" * limit
    assert normalize_text("x" * (limit + 1), limit) is None


@pytest.mark.parametrize("value", NOT_STRINGS)
def test_text_rule_rejects_non_strings(value: object) -> None:
    assert normalize_text(value, 200) is None


# --- tag rule ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("rust", "rust"),
        ("  Machine \u00a0\t Learning  ", "Machine Learning"),
        ("A\r\nB\rC", "A B C"),
        ("caf\u0065\u0301", "caf\u00e9"),
        ("x" * 50, "x" * 50),
        ("  " + "x" * 50 + "  ", "x" * 50),
    ],
)
def test_tag_rule_collapses_whitespace_and_keeps_case(raw: str, expected: str) -> None:
    assert normalize_tag(raw) == expected


@pytest.mark.parametrize("raw", ["", "   ", "\u00a0", "x" * 51, "a" + " " * 50 + "x" * 49 + "yz"])
def test_tag_rule_rejects_empty_and_long_tags(raw: str) -> None:
    assert normalize_tag(raw) is None


@pytest.mark.parametrize("value", NOT_STRINGS)
def test_tag_rule_rejects_non_strings(value: object) -> None:
    assert normalize_tag(value) is None


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ([], ()),
        (["B", "a"], ("B", "a")),
        ([" x ", "y\u00a0 z"], ("x", "y z")),
        ([f"t{i}" for i in range(10)], tuple(f"t{i}" for i in range(10))),
        (("a", "b"), ("a", "b")),
    ],
)
def test_tags_array_normalizes_each_tag_in_order(raw: object, expected: tuple[str, ...]) -> None:
    assert normalize_tags(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        [f"t{i}" for i in range(11)],
        ["a", "A"],
        ["Straße", "STRASSE"],
        ["a b", "a\u00a0 b"],
        ["ok", ""],
        ["ok", "x" * 51],
        ["ok", 1],
        ["ok", None],
        None,
        "tag",
        {"a": 1},
        1,
    ],
)
def test_tags_array_rejects_bad_shapes_items_and_casefold_duplicates(raw: object) -> None:
    assert normalize_tags(raw) is None


@pytest.mark.parametrize(
    ("tag", "key"),
    [("Foo", "foo"), ("  Foo\u00a0 BAR ", "foo bar"), ("Straße", "strasse"), ("a\nb", "a b")],
)
def test_canonical_tag_key_casefolds_and_collapses(tag: str, key: str) -> None:
    assert canonical_tag_key(tag) == key


# --- language rule -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, "und"),
        ("en", "en"),
        (" EN-US ", "en-us"),
        ("zh-Hant-TW", "zh-hant-tw"),
        ("abcdefgh", "abcdefgh"),
        ("en-1", "en-1"),
        ("de-ch-1996", "de-ch-1996"),
        ("en\n", "en"),
        ("abcdefgh" + "-abcdefgh" * 3, "abcdefgh" + "-abcdefgh" * 3),
    ],
)
def test_language_rule_trims_and_lowercases(raw: object, expected: str) -> None:
    assert normalize_language(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "en_US",
        "e",
        "en-",
        "",
        "   ",
        "-en",
        "en--us",
        "1en",
        "abcdefghi",
        "en-abcdefghi",
        "en us",
        "é",
        "abcdefgh" + "-abcdefgh" * 3 + "-a",
        1,
        [],
        True,
    ],
)
def test_language_rule_rejects_malformed_tags(raw: object) -> None:
    assert normalize_language(raw) is None


# --- timestamps --------------------------------------------------------------------------

VALID_TIMESTAMPS = [
    "2024-02-29T23:59:59Z",
    "2023-12-31T00:00:00Z",
    "0001-01-01T00:00:00Z",
    "9999-12-31T23:59:59Z",
]

INVALID_TIMESTAMPS = [
    "2023-02-29T00:00:00Z",
    "2023-04-31T00:00:00Z",
    "2023-01-01T00:00:60Z",
    "2023-01-01T00:60:00Z",
    "2023-01-01T24:00:00Z",
    "2023-13-01T00:00:00Z",
    "2023-00-01T00:00:00Z",
    "2023-01-00T00:00:00Z",
    "0000-01-01T00:00:00Z",
    "2023-01-01T00:00:00z",
    "2023-01-01t00:00:00Z",
    "2023-01-01 00:00:00Z",
    "2023-01-01T00:00:00",
    "2023-01-01T00:00:00.5Z",
    "2023-01-01T00:00:00+00:00",
    "2023-01-01T00:00:00Z\n",
    " 2023-01-01T00:00:00Z",
    "2023-1-01T00:00:00Z",
    "12023-01-01T00:00:00Z",
    "2023-01-01",
    "",
]


@pytest.mark.parametrize("parse", [parse_timestamp, parse_event_timestamp])
@pytest.mark.parametrize("value", VALID_TIMESTAMPS)
def test_timestamp_accepts_real_utc_instants(parse: Parser, value: str) -> None:
    assert parse(value) == value


@pytest.mark.parametrize("parse", [parse_timestamp, parse_event_timestamp])
@pytest.mark.parametrize("value", INVALID_TIMESTAMPS + NOT_STRINGS)
def test_timestamp_rejects_other_forms_and_impossible_instants(
    parse: Parser, value: object
) -> None:
    assert parse(value) is None


@pytest.mark.parametrize("table", [FULL_WIDTH, ARABIC_INDIC])
def test_stored_timestamp_accepts_any_decimal_digits_and_emits_ascii(table: dict[int, str]) -> None:
    assert parse_timestamp("2023-01-02T03:04:05Z".translate(table)) == "2023-01-02T03:04:05Z"
    assert parse_timestamp("2023-02-29T03:04:05Z".translate(table)) is None


def test_event_timestamp_accepts_non_ascii_digits_in_the_year_only() -> None:
    year = "2026".translate(FULL_WIDTH)
    assert parse_event_timestamp(year + "-01-02T03:04:05Z") == "2026-01-02T03:04:05Z"


@pytest.mark.parametrize(
    "value",
    [
        "2026-" + "01".translate(FULL_WIDTH) + "-02T03:04:05Z",
        "2026-01-" + "02".translate(FULL_WIDTH) + "T03:04:05Z",
        "2026-01-02T" + "03".translate(FULL_WIDTH) + ":04:05Z",
        "2026-01-02T03:" + "04".translate(FULL_WIDTH) + ":05Z",
        "2026-01-02T03:04:" + "05".translate(FULL_WIDTH) + "Z",
        "2026-01-02T03:04:05Z".translate(FULL_WIDTH),
    ],
)
def test_event_timestamp_rejects_non_ascii_digits_outside_the_year(value: str) -> None:
    assert parse_event_timestamp(value) is None
    assert parse_timestamp(value) == "2026-01-02T03:04:05Z"


def test_format_timestamp_truncates_to_seconds_in_utc() -> None:
    moment = datetime(2024, 1, 2, 3, 4, 5, 999_999, tzinfo=UTC)
    assert format_timestamp(moment) == "2024-01-02T03:04:05Z"
    shifted = datetime(2024, 1, 2, 5, 4, 5, tzinfo=timezone(timedelta(hours=2)))
    assert format_timestamp(shifted) == "2024-01-02T03:04:05Z"


# --- properties --------------------------------------------------------------------------

ANY_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(),
    st.binary(),
    st.lists(st.text()),
)


@settings(max_examples=100, deadline=None)
@given(ANY_VALUE)
def test_value_rules_never_raise(value: object) -> None:
    for check in (is_identifier, is_canonical_id, is_legacy_id):
        assert isinstance(check(value), bool)
    normalize_text(value, 200)
    normalize_tag(value)
    normalize_tags(value)
    normalize_language(value)
    parse_timestamp(value)
    parse_event_timestamp(value)


@settings(max_examples=100, deadline=None)
@given(st.text())
def test_normalized_text_and_tags_are_fixed_points(value: str) -> None:
    text = normalize_text(value, CONTENT_LIMIT)
    if text is not None:
        assert normalize_text(text, CONTENT_LIMIT) == text
    tag = normalize_tag(value)
    if tag is not None:
        assert normalize_tag(tag) == tag
        assert normalize_tags([tag]) == (tag,)


@settings(max_examples=100, deadline=None)
@given(st.datetimes(timezones=st.just(UTC)))
def test_formatted_instants_parse_back_unchanged(moment: datetime) -> None:
    stamp = format_timestamp(moment)
    assert parse_timestamp(stamp) == stamp
    assert parse_event_timestamp(stamp) == stamp
