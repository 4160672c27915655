"""The published patterns say what the server's own rules say (``memory/model/values.py``).

A published pattern only steers a model; the server decides. Still, a pattern that refused a
value the server takes would stop a careful client from sending it, and one that allowed
what the server refuses would steer the model into errors. The patterns use explicit classes
only, so Python's ``re`` reads them exactly as ECMAScript does.
"""

from __future__ import annotations

import re
import string
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from mymcp.plugins.mnemosyne.memory.model.values import (
    LANGUAGE_LIMIT,
    is_identifier,
    normalize_language,
    parse_event_timestamp,
)
from mymcp.plugins.mnemosyne.tools import schemas

ID_TEXT = st.text(alphabet=string.ascii_letters + string.digits + "_-. \n\u0660", max_size=70)


def published(pattern: str, value: str) -> bool:
    return re.fullmatch(pattern[1:-1], value) is not None


@settings(max_examples=300, deadline=None)
@given(value=ID_TEXT | st.sampled_from(["a", "a-", "-a", "a" * 64, "a" * 65, "a_b-c"]))
def test_the_identifier_pattern_is_the_identifier_rule(value: str) -> None:
    assert published(schemas.IDENTIFIER_PATTERN, value) is is_identifier(value)


@settings(max_examples=300, deadline=None)
@given(
    value=st.text(alphabet="abcXYZ019-", max_size=45)
    | st.sampled_from(["en", "pt-BR", "e", "en-", "zh-Hant-TW", "abcdefghi", "x" * 8 + "-1"])
)
def test_the_language_pattern_is_the_language_rule_up_to_its_stated_length(value: str) -> None:
    # The length limit is not in the pattern; the description states it.
    server = normalize_language(value) is not None
    if len(value) <= LANGUAGE_LIMIT:
        assert published(schemas.LANGUAGE_PATTERN, value) is server
    else:
        assert not server


@settings(max_examples=200, deadline=None)
@given(
    moment=st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)),
    noise=st.text(alphabet="0123456789-:TZtz ", max_size=22),
)
def test_the_timestamp_pattern_takes_every_ascii_event_time_the_server_takes(
    moment: datetime, noise: str
) -> None:
    valid = moment.replace(tzinfo=UTC).strftime("%Y-%m-%dT%H:%M:%SZ").rjust(20, "0")
    assert parse_event_timestamp(valid) is not None
    assert published(schemas.TIMESTAMP_PATTERN, valid)
    if parse_event_timestamp(noise) is not None:
        assert published(schemas.TIMESTAMP_PATTERN, noise)


def test_a_pinned_integer_and_a_nullable_value() -> None:
    assert schemas.pinned(2) == {"type": "integer", "minimum": 2, "maximum": 2}
    assert schemas.nullable({"type": "string"}) == {"anyOf": [{"type": "string"}, {"type": "null"}]}


def test_a_text_limit_above_1000_is_left_to_the_description() -> None:
    assert schemas.text(200) == {"type": "string", "minLength": 1, "maxLength": 200}
    assert schemas.text(4000) == {"type": "string", "minLength": 1}
