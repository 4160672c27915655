"""Listing cursors: issuing, the ordered checks, their classification, and the process secret."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mymcp.plugins.mnemosyne.memory.model.errors import Conflict, InvalidRequest, MnemosyneError
from mymcp.plugins.mnemosyne.memory.services import cursors
from mymcp.plugins.mnemosyne.memory.services.cursors import (
    Cursor,
    ProcessSecret,
    issue_cursor,
    open_cursor,
    selector_digest,
    snapshot_digest,
)

SELECTOR = selector_digest({"scope": "project", "namespace_id": None})
SNAPSHOT = snapshot_digest(b"[]")
BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _signed(payload: bytes | dict[str, Any], key: bytes | None = None) -> str:
    """A token over any payload, correctly signed with this process's key."""
    if isinstance(payload, dict):
        payload = json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
    secret = key if key is not None else cursors.PROCESS_SECRET.key
    signature = hmac.new(
        secret, b"mnemosyne-memory-list-cursor\0" + payload, hashlib.sha256
    ).digest()
    return f"{_b64(payload)}.{_b64(signature)}"


def _fields(**changes: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "v": 1,
        "p": cursors.PROCESS_SECRET.marker,
        "s": SELECTOR,
        "d": SNAPSHOT,
        "o": 20,
        "z": 10,
    }
    fields.update(changes)
    return {key: value for key, value in fields.items() if value is not _DROP}


_DROP = object()


def _assert_invalid(text: object, selector: str = SELECTOR) -> None:
    with pytest.raises(InvalidRequest) as caught:
        open_cursor(text, selector)
    assert (caught.value.code, caught.value.field) == ("invalid_cursor", "cursor")


def _assert_stale(text: object, selector: str = SELECTOR) -> None:
    with pytest.raises(Conflict) as caught:
        open_cursor(text, selector)
    assert caught.value.code == "stale_cursor"
    assert caught.value.field is None


# --- issuing and resuming ------------------------------------------------------------------------


def test_issued_cursor_opens_to_its_position() -> None:
    token = issue_cursor(SELECTOR, SNAPSHOT, 30, 10)

    assert open_cursor(token, SELECTOR) == Cursor(SNAPSHOT, 30, 10)


def test_issued_cursor_matches_the_documented_format() -> None:
    token = issue_cursor(SELECTOR, SNAPSHOT, 5, 5)
    payload_part, signature_part = token.split(".")
    payload = base64.urlsafe_b64decode(payload_part + "=" * (-len(payload_part) % 4))

    assert (
        payload
        == (
            f'{{"d":"{SNAPSHOT}","o":5,"p":"{cursors.PROCESS_SECRET.marker}",'
            f'"s":"{SELECTOR}","v":1,"z":5}}'
        ).encode()
    )
    assert _signed(payload) == token
    assert "=" not in token
    assert len(signature_part) == 43


def test_resume_returns_the_offset_for_the_same_snapshot() -> None:
    assert Cursor(SNAPSHOT, 20, 10).resume(SNAPSHOT, 21) == 20


def test_resume_reports_a_changed_snapshot_as_stale() -> None:
    with pytest.raises(Conflict) as caught:
        Cursor(SNAPSHOT, 20, 10).resume("0" * 64, 100)
    assert caught.value.code == "stale_cursor"


def test_resume_reports_an_offset_beyond_the_selection_as_invalid() -> None:
    with pytest.raises(InvalidRequest) as caught:
        Cursor(SNAPSHOT, 20, 10).resume(SNAPSHOT, 20)
    assert caught.value.code == "invalid_cursor"


def test_stale_snapshot_wins_over_the_offset() -> None:
    with pytest.raises(Conflict):
        Cursor(SNAPSHOT, 20, 10).resume("0" * 64, 0)


# --- fingerprints ------------------------------------------------------------------------------


def test_digests_are_keyed_hex_and_separated_by_purpose(monkeypatch: pytest.MonkeyPatch) -> None:
    selector = selector_digest([])
    snapshot = snapshot_digest(b"[]")
    assert selector != snapshot
    assert all(len(value) == 64 and value == value.lower() for value in (selector, snapshot))
    assert snapshot != hashlib.sha256(b"[]").hexdigest()

    monkeypatch.setattr(cursors, "PROCESS_SECRET", ProcessSecret.generate())
    assert selector_digest([]) != selector
    assert snapshot_digest(b"[]") != snapshot


def test_selector_digest_does_not_depend_on_key_order() -> None:
    assert selector_digest({"a": 1, "b": None}) == selector_digest({"b": None, "a": 1})
    assert selector_digest({"a": None}) != selector_digest({"a": "null"})
    assert selector_digest({"a": None}) != selector_digest({})


def test_process_secret_is_random_and_never_shown() -> None:
    first, second = ProcessSecret.generate(), ProcessSecret.generate()
    assert first.key != second.key and first.marker != second.marker
    assert len(first.key) == 32
    assert len(first.marker) == 32 and int(first.marker, 16) >= 0
    assert first.key.hex() not in repr(first) and first.marker not in repr(first)


# --- check 1: shape and strict base64url ---------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        None,
        12,
        b"abc.def",
        "",
        "a" * 4097,
        "abc",
        "abc.def.ghi",
        ".abc",
        "abc.",
        ".",
        "ab=c.def",
        "abc.de+f",
        "abc.de/f",
        "abc.d f",
        "abc.d\u00e9f",
        "abcde.abcd",
        "AB.AAAA",
        "AAAA.AB",
    ],
)
def test_malformed_tokens_are_invalid(text: object) -> None:
    _assert_invalid(text)


def test_padded_token_is_invalid() -> None:
    token = issue_cursor(SELECTOR, SNAPSHOT, 10, 10)
    payload, signature = token.split(".")

    _assert_invalid(f"{payload}==.{signature}")
    _assert_invalid(f"{payload}.{signature}=")


def test_token_over_the_length_limit_is_invalid_even_if_signed() -> None:
    padded = b" " * 3100 + json.dumps(_fields()).encode()
    assert open_cursor(_signed(padded[-1000:]), SELECTOR) == Cursor(SNAPSHOT, 20, 10)
    assert len(_signed(padded)) > 4096

    _assert_invalid(_signed(padded))


# --- check 2: the payload fields ---------------------------------------------------------------


@pytest.mark.parametrize(
    "payload",
    [
        b"\xff\xfe",
        '{"v":1}\u00e9'.encode(),
        b"not json",
        b"[1,2]",
        b"null",
        b"[" * 2000 + b"]" * 2000,
        json.dumps(_fields(extra=1)).encode(),
        json.dumps(_fields(v=_DROP)).encode(),
        json.dumps(_fields(z=_DROP)).encode(),
        json.dumps(_fields(v=2)).encode(),
        json.dumps(_fields(v=True)).encode(),
        json.dumps(_fields(v=1.0)).encode(),
        json.dumps(_fields(v="1")).encode(),
        json.dumps(_fields(p="")).encode(),
        json.dumps(_fields(p="m" * 101)).encode(),
        json.dumps(_fields(p=7)).encode(),
        json.dumps(_fields(s=SELECTOR.upper())).encode(),
        json.dumps(_fields(s=SELECTOR[:-1])).encode(),
        json.dumps(_fields(s=SELECTOR + "0")).encode(),
        json.dumps(_fields(d="g" * 64)).encode(),
        json.dumps(_fields(d=SNAPSHOT + "\n")).encode(),
        json.dumps(_fields(d=None)).encode(),
        json.dumps(_fields(o=0, z=10)).encode(),
        json.dumps(_fields(o=-10)).encode(),
        json.dumps(_fields(o=True, z=1)).encode(),
        json.dumps(_fields(o=20.0)).encode(),
        json.dumps(_fields(o="20")).encode(),
        json.dumps(_fields(o=25, z=10)).encode(),
        json.dumps(_fields(z=0, o=0)).encode(),
        json.dumps(_fields(z=101, o=101)).encode(),
        json.dumps(_fields(z=True, o=1)).encode(),
        json.dumps(_fields(z=10.0)).encode(),
        b'{"v":1,"p":"m","s":"'
        + SELECTOR.encode()
        + b'","d":"'
        + SNAPSHOT.encode()
        + b'","o":NaN,"z":10}',
        b'{"v":1,"p":"m","s":"'
        + SELECTOR.encode()
        + b'","d":"'
        + SNAPSHOT.encode()
        + b'","o":1e400,"z":10}',
    ],
)
def test_signed_but_ill_formed_payloads_are_invalid(payload: bytes) -> None:
    _assert_invalid(_signed(payload))


def test_foreign_marker_in_an_ill_formed_payload_is_still_invalid() -> None:
    _assert_invalid(_signed(_fields(p="someone-else", o=5, z=10)))


def test_non_canonical_but_well_formed_payload_is_accepted() -> None:
    payload = json.dumps(_fields(), indent=1).encode()

    assert open_cursor(_signed(payload), SELECTOR) == Cursor(SNAPSHOT, 20, 10)


def test_page_size_bounds_and_multiples_are_accepted() -> None:
    assert open_cursor(_signed(_fields(o=100, z=100)), SELECTOR).page_size == 100
    assert open_cursor(_signed(_fields(o=7, z=1)), SELECTOR).offset == 7


# --- checks 3-5: marker, signature, selector -----------------------------------------------------


def test_foreign_marker_is_stale_before_the_signature_is_checked() -> None:
    _assert_stale(_signed(_fields(p="another-process")))
    _assert_stale(_signed(_fields(p="another-process"), key=b"k" * 32))
    _assert_stale(_signed(_fields(p="another-process")), selector="0" * 64)


def test_restart_makes_earlier_cursors_stale(monkeypatch: pytest.MonkeyPatch) -> None:
    token = issue_cursor(SELECTOR, SNAPSHOT, 10, 10)
    monkeypatch.setattr(cursors, "PROCESS_SECRET", ProcessSecret.generate())

    _assert_stale(token)
    _assert_stale(token, selector=selector_digest({"scope": "project", "namespace_id": None}))


def test_signature_from_another_key_is_invalid() -> None:
    _assert_invalid(_signed(_fields(), key=b"k" * 32))


def test_changed_payload_with_the_old_signature_is_invalid() -> None:
    token = issue_cursor(SELECTOR, SNAPSHOT, 10, 10)
    forged = _b64(json.dumps(_fields(o=20), sort_keys=True, separators=(",", ":")).encode())

    _assert_invalid(f"{forged}.{token.split('.')[1]}")


def test_truncated_signature_is_invalid() -> None:
    token = issue_cursor(SELECTOR, SNAPSHOT, 10, 10)

    _assert_invalid(token[:-4])


def test_cursor_for_another_selector_is_invalid() -> None:
    token = issue_cursor(SELECTOR, SNAPSHOT, 10, 10)

    _assert_invalid(token, selector=selector_digest({"scope": "self", "namespace_id": None}))


# --- properties ----------------------------------------------------------------------------------


def _classify(text: str) -> str:
    try:
        open_cursor(text, SELECTOR)
    except InvalidRequest as error:
        assert (error.code, error.field) == ("invalid_cursor", "cursor")
        return "invalid"
    except Conflict as error:
        assert error.code == "stale_cursor"
        return "stale"
    return "valid"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text_never_opens(text: str) -> None:
    assert _classify(text) == "invalid"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=BASE64URL + ".", max_size=300))
def test_arbitrary_base64url_text_never_opens(text: str) -> None:
    assert _classify(text) in {"invalid", "stale"}


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(
    payload=st.one_of(
        _JSON,
        st.fixed_dictionaries({key: _JSON | st.just(value) for key, value in _fields().items()}),
    ),
    signature=st.binary(min_size=1, max_size=40),
)
def test_unsigned_payloads_never_open(payload: Any, signature: bytes) -> None:
    text = json.dumps(payload).encode()
    classified = _classify(f"{_b64(text)}.{_b64(signature)}")

    assert classified in {"invalid", "stale"}


@settings(max_examples=200, deadline=None)
@given(
    page_size=st.integers(min_value=1, max_value=100),
    pages=st.integers(min_value=1, max_value=10_000),
)
def test_every_issued_position_round_trips(page_size: int, pages: int) -> None:
    token = issue_cursor(SELECTOR, SNAPSHOT, page_size * pages, page_size)

    assert open_cursor(token, SELECTOR) == Cursor(SNAPSHOT, page_size * pages, page_size)


@settings(max_examples=100, deadline=None)
@given(position=st.integers(min_value=0), flip=st.integers(min_value=0))
def test_any_single_character_change_never_opens_as_the_same_cursor(
    position: int, flip: int
) -> None:
    token = issue_cursor(SELECTOR, SNAPSHOT, 10, 10)
    index = position % len(token)
    replacement = (BASE64URL + ".")[flip % 65]
    if replacement == token[index]:
        return
    changed = token[:index] + replacement + token[index + 1 :]

    try:
        opened = open_cursor(changed, SELECTOR)
    except MnemosyneError as error:
        assert error.code in {"invalid_cursor", "stale_cursor"}
    else:
        pytest.fail(f"a changed token opened: {opened}")
