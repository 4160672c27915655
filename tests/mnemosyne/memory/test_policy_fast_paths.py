"""The policy's fast paths agree with the plain formulations they stand for.

To stay fast on dense text, the detectors use rewritten patterns (a literal first, a cheap
lookahead, possessive runs), gates that skip work when a necessary piece is missing, and
one search over all chunks instead of one per chunk. Each test here states the plain
formulation (or the condition a gate must never miss) and checks the fast path against it on
generated input, where the generators favour the characters that matter to the rule.
"""

from __future__ import annotations

import re
import string

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mymcp.plugins.mnemosyne.memory.policy import (
    access,
    cards,
    checksums,
    compact,
    context,
    identifiers,
    keys,
    labels,
    providers,
)
from mymcp.plugins.mnemosyne.memory.policy.bip39 import WORDS as BIP39
from mymcp.plugins.mnemosyne.memory.policy.text import Text

PROPERTY = settings(max_examples=300, deadline=None)


def _spans(pattern: re.Pattern[bytes] | re.Pattern[str], text: bytes | str) -> list[object]:
    return [match.span() for match in pattern.finditer(text)]  # type: ignore[arg-type]


def _joined(alphabet: list[str], max_size: int = 30) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(alphabet), max_size=max_size).map("".join)


# --- rewritten patterns ------------------------------------------------------------------

_SHAPES = st.binary(max_size=60).map(lambda raw: bytes(b"0000AAa-./+ ()x"[b % 15] for b in raw))


@PROPERTY
@given(_SHAPES)
def test_the_cluster_pattern_finds_what_the_plain_one_does(shape: bytes) -> None:
    plain = re.compile(rb"0(?:[A0]|[-./+ ][A0]|\([A0]\)){4,}")
    assert _spans(identifiers._CLUSTER, shape) == _spans(plain, shape)


@PROPERTY
@given(st.binary(max_size=60).map(lambda raw: bytes(b"00000000 -x"[b % 11] for b in raw)))
def test_the_card_region_pattern_finds_what_the_plain_one_does(shape: bytes) -> None:
    plain = re.compile(rb"0(?:[ -]?0){12,18}(?!0)")
    assert _spans(cards._REGION, shape) == _spans(plain, shape)


_ARMOUR_PIECES = ["-----", "----", "-", " ", "BEGIN", "END", "begin", "RSA", "PRIVATE", "KEY"]
_ARMOUR_PIECES += ["secret", " BLOCK", "x"]


@PROPERTY
@given(_joined(_ARMOUR_PIECES))
def test_the_armour_pattern_finds_what_the_plain_one_does(value: str) -> None:
    plain = re.compile(
        r"-{4,5} ?(?:BEGIN|END) (?:[A-Z0-9]+ ){0,3}(?:PRIVATE|SECRET) KEY(?: BLOCK)? ?-{4,5}",
        re.IGNORECASE,
    )
    assert _spans(keys._ARMOUR, value) == _spans(plain, value)


_TOKEN_PIECES = ["v2", "v5", ".", "local", "public", "gAAAAA", "a" * 40, "b" * 80, "x", "=", "-"]


@PROPERTY
@given(_joined(_TOKEN_PIECES, 12))
def test_the_paseto_and_fernet_patterns_find_what_the_plain_ones_do(value: str) -> None:
    segment = "[A-Za-z0-9_-]"
    paseto = re.compile(rf"(?<![A-Za-z0-9])v[1-4]\.(?:local|public)\.{segment}{{40,}}")
    fernet = re.compile(rf"(?<![A-Za-z0-9])gAAAAA{segment}{{80,}}={{0,2}}")
    assert _spans(compact._PASETO, value) == _spans(paseto, value)
    assert _spans(compact._FERNET, value) == _spans(fernet, value)


_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


@PROPERTY
@given(_joined(["5H", "5J", "K", "L", "c", " ", "-", "0", "I", *(_BASE58[:20],) * 3, "x" * 49], 8))
def test_the_wif_pattern_finds_what_the_plain_one_does(value: str) -> None:
    plain = re.compile(
        rf"(?<![A-Za-z0-9])(?:5[HJK][{_BASE58}]{{49}}|[KLc][{_BASE58}]{{51}})(?![A-Za-z0-9])"
    )
    assert _spans(keys._WIF, value) == _spans(plain, value)


@PROPERTY
@given(_joined(["-u", "--user", " ", "\n", "=", "a", "b:c", ":", "'", "x", "-", "u", "\t"]))
def test_the_curl_user_pattern_finds_what_the_plain_one_does(value: str) -> None:
    plain = re.compile(
        r"""(?:^|\s)(?:-u|--user)[ =]["']?(?P<user>[^\s:'"]+):(?P<password>[^\s'"]+)"""
    )
    found = [match.group("user", "password") for match in access._CURL_USER.finditer(value)]
    assert found == [match.group("user", "password") for match in plain.finditer(value)]


# --- checks written for speed ------------------------------------------------------------


@PROPERTY
@given(st.text(string.digits, max_size=25))
def test_luhn_agrees_with_the_digit_by_digit_rule(digits: str) -> None:
    total = 0
    for position, char in enumerate(reversed(digits)):
        digit = int(char) * (2 if position % 2 else 1)
        total += digit - 9 if digit > 9 else digit
    assert checksums.luhn(digits) == (total % 10 == 0)


@PROPERTY
@given(st.text(st.sampled_from("abcXYZ019_.-"), min_size=1, max_size=14))
def test_name_parts_agree_with_the_general_split(name: str) -> None:
    marked = context._CAMEL.sub("_", name)
    words = [word.lower().rstrip(string.digits) for word in context._NAME_PARTS.split(marked)]
    words = [word for word in words if word]
    while len(words) > 1 and words[-1] in context._TRAILING:
        words.pop()
    assert context._parts(name) == words


_FOLLOWERS = [" ", "\t", "\n", "=", ":", "is", "IS", "\u0130s", "ist", "f\u00fcr", "\u00e9", "a"]
_FOLLOWERS += ["abcdefgh", "abcdefghijkl", "abcdefg1", "'", '"', "\u201c", "-", "\u00a0", "\u00b2"]
_FOLLOWERS += ["value:", "\u212a", "to", "\u017f", "_", "abc"]


@PROPERTY
@given(_joined(_FOLLOWERS, 9))
def test_what_may_follow_a_name_includes_all_worth_reading(value: str) -> None:
    text = Text(value)
    for end in range(len(value) + 1):
        if context._worth_reading(text, end):
            assert context._MAY_FOLLOW.match(text.value, end) is not None


_DIGITS = [chr(code) for code in range(0x80, 0x20000) if chr(code).isdecimal()][::7]


@PROPERTY
@given(st.lists(st.sampled_from([*_DIGITS, "a", " ", "?", "\u00e9", "\u4e2d", "5"]), max_size=300))
def test_digits_of_any_script_are_folded_as_the_pattern_says(chars: list[str]) -> None:
    raw = "".join(chars)
    expected = re.sub(r"\d", lambda match: str(int(match.group())), raw)
    assert Text(raw).value == expected


_WORDS_AND_GAPS = [*sorted(BIP39)[::40], "zzz", "the", " ", ", ", "\n", "1. ", ":", "'", "_", ""]


@PROPERTY
@given(_joined(_WORDS_AND_GAPS, 60), st.integers(0, 200), st.integers(0, 400))
def test_seed_word_runs_agree_with_the_word_by_word_count(
    lower: str, start: int, length: int
) -> None:
    window = lower[start : start + length]
    run, previous, longest = 0, 0, 0
    for match in re.finditer(r"[a-z]+", window):
        joined = re.fullmatch(r"[\s\d.,;)(\-]*", window[previous : match.start()]) is not None
        previous = match.end()
        listed = match.group() in BIP39
        run = (run + 1 if joined or run == 0 else 1) if listed else 0
        longest = max(longest, run)
    end = min(len(lower), start + length)
    assert keys._has_word_run(lower, min(start, len(lower)), end) == (longest >= 12)


# --- gates that must never miss ----------------------------------------------------------


def test_every_prefix_of_the_original_rules_holds_one_of_the_gate_pieces() -> None:
    for prefix, _, _ in providers._BASE:
        if prefix not in ("AKIA", "ASIA"):
            assert any(piece in prefix for piece in providers._BASE_PIECES), prefix


_FOREIGN = [
    "\u043f\u0430\u0440\u043e\u043b\u044c",
    "\u5bc6\u7801",
    "has\u0142o",
    "x",
    " ",
    "\u00e9",
]
_FOREIGN += ["lykilor\u00f0", "\u043f", "\u0142", "salas\u00f5na", "s", "\u00f5"]


@PROPERTY
@given(_joined(_FOREIGN, 12))
def test_the_foreign_word_gate_opens_whenever_a_word_occurs(value: str) -> None:
    text = Text(value)
    present = any(word in text.lower for word in context._FOREIGN_WORDS)
    assert (context._ANY_FOREIGN_WORD.search(text.lower) is not None) == present
    if present:
        assert context._may_hold_a_foreign_word(text)


_TOKENISH = ["ghp_", "glpat-", "xoxb-", "hooks.slack.com/services/", "AKIA", "sk-", "SG.", "a"]
_TOKENISH += ["A1b2C3d4E5f6G7h8I9j0" * 2, " ", "\n", "/", "=", "-", "_", ".", "MIIEpAIBAAKCAQEA"]
_TOKENISH += ["webhook", "gAAAAA", "x" * 30, "Q~"]


@PROPERTY
@given(_joined(_TOKENISH, 20))
def test_one_search_over_the_chunks_finds_what_one_search_per_chunk_finds(value: str) -> None:
    text = Text(value)
    chunks = [text.value[begin:stop] for begin, stop in text.chunks()]
    assert text.chunk_text() == " ".join(chunks)
    expected = any(
        providers._base_at(chunk) or providers._prefixed_at(chunk) or providers._marked_at(chunk)
        for chunk in chunks
    )
    assert providers.has_provider_token(Text(value)) == expected
    webhook = text.mentions(providers._WEBHOOK_WORDS) and any(
        any(piece in text.lower[begin:stop] for piece in providers._WEBHOOK_PIECES)
        and providers._webhook_in(text.value[begin:stop])
        for begin, stop in text.chunks()
    )
    assert providers.has_webhook_url(Text(value)) == webhook
    assert keys._has_key_body(Text(value)) == any(
        _key_body_in(chunk) for chunk in chunks if len(chunk) >= 24
    )


def _key_body_in(chunk: str) -> bool:
    """The key-body checks of one chunk, as each chunk was once searched on its own."""
    return (
        any(marker in chunk for marker in keys._BODY_MARKERS)
        or ("prv" in chunk and keys._EXTENDED.search(chunk) is not None)
        or ("LS0tLS1CRUdJTi" in chunk and keys._encoded_private_pem(chunk))
        or keys._BECH32_SECRET.search(chunk) is not None
        or any(checksums.base58check(match.group()) for match in keys._WIF.finditer(chunk))
    )


@PROPERTY
@given(_joined(_TOKENISH, 20))
def test_chunks_are_the_stretches_around_each_long_token(value: str) -> None:
    text = Text(value)
    expected: list[tuple[int, int]] = []
    for match in re.finditer(rb"w{15,}", text.word):
        begin = text.shape.rfind(b" ", 0, match.start()) + 1
        stop = text.shape.find(b" ", match.end())
        stop = len(text.shape) if stop < 0 else stop
        if not expected or begin > expected[-1][0]:
            expected.append((begin, stop))
    assert text.chunks() == expected


_NUMBERISH = ["123456789", "12 34 56", "AB", "A", "1", "-", " ", "(", ")", ".", "+", "x", "\u00e9"]
_NUMBERISH += ["ssn", "SSN", "id", "no", "order", "passport", "number", "tax", "social", "PESEL"]
_NUMBERISH += ["security", "\u043f\u0430\u0441\u043f\u043e\u0440\u0442", "\u8eab\u4efd\u8bc1", "\t"]
_NUMBERISH += ["HENKIL\u00d6TUNNUS", "C\u00c9DULA", "aassn", " " * 20]


def _exact_identity(text: Text, start: int, end: int) -> bool:
    """A cluster's labelled check read the plain way: every part, every label."""
    parts = identifiers._labelled_pieces(identifiers._pieces(text, start, end))
    return any(
        identifiers._shaped_like_an_identity(text, begin, stop, text.shape[begin:stop])
        and labels.label_around(text, begin, stop) == labels.IDENTITY
        for begin, stop in parts
    )


@settings(max_examples=600, deadline=None)
@given(_joined(_NUMBERISH, 40))
# A window that starts inside "aassn" reads "ssn"; a word that runs on past the stretch.
@example("aassn" + " " * 45 + "123456789")
@example("832860485-12 HENKIL\u00d6TUNNUS")
def test_a_cluster_skipped_as_far_from_identity_words_has_no_identity_label(value: str) -> None:
    text = Text(value)
    for start, end in identifiers._clusters(text):
        if not labels.may_name_one_here(text, start, end):
            assert not _exact_identity(text, start, end)


@settings(max_examples=600, deadline=None)
@given(_joined(_NUMBERISH + ["order", "part", "card", "visa"], 40))
def test_the_label_reading_shortcut_agrees_with_reading_every_word(value: str) -> None:
    text = Text(value)
    for start, end in identifiers._clusters(text):
        reach = labels._reach(text, start)
        found = labels._nearest(labels._WORDS.findall(text.value, reach, start)[-5:])
        if found is None:
            found = labels._label_after(text, end)
        assert labels.label_around(text, start, end) == found
        assert labels.names_an_identity(text, start, end) == (found == labels.IDENTITY)


_FORMATTED = ["123.456.789-09", "850101-1234567", "AB 12 34 56 C", "X1234567L", "12345678Z"]
_FORMATTED += ["1", " ", "\n", "-", ".", "A", "x", "+", "0000 0000 0000", "SSN"]


@PROPERTY
@given(_joined(_FORMATTED, 12))
@example("AB 12 34 56 CSSN-123.456.789-09AB 12 34 56 C")  # a capitals word glued to a number
def test_the_format_gates_open_for_every_cluster_with_a_format(value: str) -> None:
    text = Text(value)
    for start, end in identifiers._clusters(text):
        pieces = identifiers._pieces(text, start, end)
        if identifiers._has_format(text, start, end, pieces):
            assert identifiers._shaped_like_a_format(text.shape[start:end])
            assert identifiers._may_be_formatted(Text(value))


_CARDISH = ["4111", "1111", "5500 0000 0000 0004", "3782-822463-10005", " ", "-", "0", "9", "x"]


@PROPERTY
@given(_joined(_CARDISH, 12))
def test_every_card_region_lies_in_a_cluster(value: str) -> None:
    text = Text(value)
    shapes = identifiers.cluster_shapes(text)
    for region in cards._REGION.finditer(text.shape):
        assert any(region.group() in found for found in shapes)


@PROPERTY
@given(_joined(["1", "9", "19", "20", "0", "-", "/", ".", " ", "A", "x", "(", ")"], 24))
def test_the_shape_checks_of_a_number_agree_with_the_plain_ones(value: str) -> None:
    text = Text(value)
    for start, end in identifiers._clusters(text):
        for begin, stop in identifiers._pieces(text, start, end):
            signature = text.shape[begin:stop]
            plain = (
                identifiers._numbered(signature)
                and identifiers._NOT_AN_IDENTIFIER.fullmatch(signature) is None
                and identifiers._YEARS.fullmatch(text.value, begin, stop) is None
            )
            assert identifiers._shaped_like_an_identity(text, begin, stop, signature) == plain
