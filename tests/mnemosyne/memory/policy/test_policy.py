"""Tests for the memory content policy (mymcp.plugins.mnemosyne.memory.policy)."""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Iterable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mymcp.plugins.mnemosyne.memory.model.errors import ContentRefused
from mymcp.plugins.mnemosyne.memory.policy import (
    REASONS,
    REFUSAL_MESSAGE,
    check_values,
    first_violation,
    remember_values,
    revise_values,
)

PROPERTY = settings(max_examples=100, deadline=None)

ALNUM_20 = "a1B2c3D4e5F6g7H8i9J0"
ALNUM_35 = "AbCdEfGhIj" * 3 + "KlMnO"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig"
CARD = "4111111111111111"
SSN = "123-45-6789"
PEM = "-----BEGIN OPENSSH PRIVATE KEY-----"

PRIVATE = "private_key_shape"
CREDENTIAL = "credential_shape"
TOKEN = "compact_token_shape"
GOVERNMENT = "government_identifier_shape"
CARD_SHAPE = "payment_card_shape"


def _luhn_ok(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _refusal(values: Iterable[tuple[str, str | None]]) -> ContentRefused:
    with pytest.raises(ContentRefused) as caught:
        check_values(values)
    return caught.value


def _assert_examples(value: str, expected: str | None) -> None:
    assert first_violation(value) == expected


# --- the examples of the contract, one test per detector family -------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (PEM, PRIVATE),
        ("-----BEGIN PRIVATE KEY-----", PRIVATE),
        ("-----BEGIN RSA PRIVATE KEY-----", PRIVATE),
        ("-----BEGIN EC PRIVATE KEY-----", PRIVATE),
        ("-----BEGIN DSA PRIVATE KEY-----", PRIVATE),
        ("-----BEGIN PGP PRIVATE KEY BLOCK-----", PRIVATE),
        ("key file:\n-----BEGIN RSA PRIVATE KEY-----\nMIIE...", PRIVATE),
        # Deliberate difference (docs/DIFFERENCES.md): any case, and encrypted keys too.
        ("-----begin private key-----", PRIVATE),
        ("-----BEGIN ENCRYPTED PRIVATE KEY-----", PRIVATE),
        ("-----BEGIN PUBLIC KEY-----", None),
        ("-----BEGIN RSA  PRIVATE KEY-----", None),
    ],
)
def test_private_key_headers(value: str, expected: str | None) -> None:
    _assert_examples(value, expected)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("AKIAABCDEFGHIJKLMNOP", CREDENTIAL),
        ("xAKIAABCDEFGHIJKLMNOP", CREDENTIAL),
        ("ASIA0123456789ABCDEF", CREDENTIAL),
        ("AKIAABCDEFGHIJKLMNOPQ", None),
        ("akiaabcdefghijklmnop", None),
    ],
)
def test_cloud_access_key_ids(value: str, expected: str | None) -> None:
    _assert_examples(value, expected)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        *((f"gh{kind}_{ALNUM_20}", CREDENTIAL) for kind in "pousr"),
        ("github_pat_" + ALNUM_20, CREDENTIAL),
        ("ghp_" + ALNUM_20[:19], None),
        ("ghx_" + ALNUM_20, None),
        ("xghp_" + ALNUM_20, None),
        ("ghp_" + ALNUM_20 + "_", None),
    ],
)
def test_code_host_tokens(value: str, expected: str | None) -> None:
    _assert_examples(value, expected)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        *((f"xox{kind}-1234567890", CREDENTIAL) for kind in "baprs"),
        ("_xoxb-1234567890", CREDENTIAL),
        ("xoxb-123456789", None),
        ("xoxc-1234567890", None),
        ("axoxb-1234567890", None),
    ],
)
def test_chat_tokens(value: str, expected: str | None) -> None:
    _assert_examples(value, expected)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("sk_live_" + ALNUM_20[:16], CREDENTIAL),
        ("rk_live_" + ALNUM_20[:16], CREDENTIAL),
        ("AIza" + ALNUM_35, CREDENTIAL),
        ("sk-" + ALNUM_20, CREDENTIAL),
        ("sk_test_" + ALNUM_20[:16], None),
        ("sk_live_" + ALNUM_20[:15], None),
        ("AIza" + ALNUM_35[:34], None),
        ("AIza" + ALNUM_35 + "x", None),
        ("sk-" + ALNUM_20[:19], None),
        ("task-" + ALNUM_20, None),
        ("sk-proj-" + ALNUM_20[:12], None),
    ],
)
def test_service_api_keys(value: str, expected: str | None) -> None:
    _assert_examples(value, expected)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Authorization: Bearer abc", CREDENTIAL),
        ("AUTHORIZATION :  bearer\tx", CREDENTIAL),
        ("authorization:basic dXNlcjpwYXNz", CREDENTIAL),
        ("Bearer abc", None),
        ("Authorization: Token abc", None),
        ("Authorization: Bearer", None),
    ],
)
def test_authorization_headers(value: str, expected: str | None) -> None:
    _assert_examples(value, expected)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("password=hunter2", CREDENTIAL),
        ("Password: abcd", CREDENTIAL),
        ("api-key=abcd", CREDENTIAL),
        ("secret:=abcd", CREDENTIAL),
        ("x-password=abcd", CREDENTIAL),
        ("passwd = abcd", CREDENTIAL),
        ("PWD:abcd", CREDENTIAL),
        ("apikey=abcd", CREDENTIAL),
        ("api_key: abcd", CREDENTIAL),
        ("access_token=abcd", CREDENTIAL),
        ("refresh-token=abcd", CREDENTIAL),
        ("client_secret=abcd", CREDENTIAL),
        # Deliberate difference (docs/DIFFERENCES.md): a password word inside a name counts.
        ("mypassword=abcd", CREDENTIAL),
        ("db_password=abcd", CREDENTIAL),
        ("password=abc", None),
        ("password_hash=abcd", None),
        ("api key=abcd", None),
        ("secrets=abcd", None),
    ],
)
def test_keyword_assignments(value: str, expected: str | None) -> None:
    _assert_examples(value, expected)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("https://user:pass@example.com", CREDENTIAL),
        ("postgres://u:p@db", CREDENTIAL),
        ("ftp://user@example.com", None),
        ("https://example.com:8080/path", None),
        ("https://user:@host", None),
    ],
)
def test_urls_with_credentials(value: str, expected: str | None) -> None:
    _assert_examples(value, expected)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (JWT, TOKEN),
        ("eyJ12345678.a.b", TOKEN),
        ("eyJhbGciOiJIUzI1NiJ9.a.b.c", TOKEN),
        (JWT + ".", TOKEN),
        ("1.2.3", None),
        ("v2.10.1", None),
        ("0.1.3", None),
        ("2026.07.20", None),
        ("2026-07-20", None),
        ("api.example.com", None),
        ("mymcp.plugins.mnemosyne.memory", None),
        ("eyJ1234567.a.b", None),
        ("eyJhbGciOiJIUzI1NiJ9.payload", None),
    ],
)
def test_compact_tokens(value: str, expected: str | None) -> None:
    _assert_examples(value, expected)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (SSN, GOVERNMENT),
        ("SSN123-45-6789x", GOVERNMENT),
        # Deliberate difference (docs/DIFFERENCES.md): an all-zero number is a placeholder.
        ("000-00-0000", None),
        ("\uff11\uff12\uff13-\uff14\uff15-\uff16\uff17\uff18\uff19", GOVERNMENT),  # full width
        ("\u0661\u0662\u0663-\u0664\u0665-\u0666\u0667\u0668\u0669", GOVERNMENT),  # Arabic-Indic
        ("0123-45-6789", None),
        ("123-45-67890", None),
        ("123 45 6789", None),
        ("123456789", None),
        ("555-123-4567", None),
    ],
)
def test_government_identifiers(value: str, expected: str | None) -> None:
    _assert_examples(value, expected)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (CARD, CARD_SHAPE),
        ("4111 1111 1111 1111", CARD_SHAPE),
        ("4111-1111-1111-1111", CARD_SHAPE),
        ("378282246310005", CARD_SHAPE),
        ("4222222222222", CARD_SHAPE),
        # Deliberate differences (docs/DIFFERENCES.md): thirteen zeros are a placeholder, and
        # a card followed by another number is still a card.
        ("0000000000000", None),
        ("4111111111111111 0", CARD_SHAPE),
        ("x4111111111111111", CARD_SHAPE),
        ("\uff14" + "\uff11" * 15, CARD_SHAPE),  # full width
        ("\u0664\u0661\u0661\u0661" + " \u0661\u0661\u0661\u0661" * 3, CARD_SHAPE),  # Arabic-Indic
        ("4111111111111112", None),
        ("4111  1111 1111 1111", None),
        ("4111--1111-1111-1111", None),
        ("12345678901234567890", None),
        ("1234 5678 9012 3456", None),
        ("ISBN 978-3-16-148410-0", None),
    ],
)
def test_payment_cards(value: str, expected: str | None) -> None:
    _assert_examples(value, expected)


@pytest.mark.parametrize(
    "value",
    ["ISBN 978-0-306-40606-5", "0000000000000", "part 123-45-6789"],
)
def test_the_original_false_positives_are_stored(value: str) -> None:
    # The original refused these look-alikes; the label or the placeholder now decides.
    assert first_violation(value) is None


# --- evaluation order ------------------------------------------------------------------


def test_token_detector_runs_before_identifier_detector() -> None:
    refusal = _refusal([("content", f"ssn {SSN} and token {JWT}")])
    assert (refusal.field, refusal.reason) == ("content", TOKEN)


def test_identifier_detector_runs_before_card_detector() -> None:
    refusal = _refusal([("content", f"card {CARD} and ssn {SSN}")])
    assert (refusal.field, refusal.reason) == ("content", GOVERNMENT)


def test_private_key_detector_runs_first() -> None:
    assert first_violation(f"{CARD} {JWT} password=hunter2 {PEM}") == PRIVATE


def test_first_refused_value_decides_before_later_detectors() -> None:
    values = [("title", f"card {CARD}"), ("content", PEM)]
    refusal = _refusal(values)
    assert (refusal.field, refusal.reason) == ("title", CARD_SHAPE)


def test_check_values_stops_at_the_first_refused_value() -> None:
    def values() -> Iterator[tuple[str, str | None]]:
        yield ("title", "benign")
        yield ("content", JWT)
        raise AssertionError("values after the refusal must not be read")

    assert _refusal(values()).field == "content"


def test_none_values_are_skipped() -> None:
    check_values([("title", None), ("namespace", None), ("content", "plain text")])


def test_benign_values_pass() -> None:
    check_values(remember_values("ns", "Label", None, None, "Title", "Body text", ["a", "b"]))


# --- field mapping ---------------------------------------------------------------------


def test_remember_values_order_and_fields() -> None:
    values = remember_values("ns", "NS", "col", None, None, "body", ["t1", "t2"])
    assert values == [
        ("namespace", "ns"),
        ("namespace", "NS"),
        ("collection", "col"),
        ("collection", None),
        ("title", None),
        ("content", "body"),
        ("tags", "t1"),
        ("tags", "t2"),
    ]


def test_revise_values_order_and_fields() -> None:
    values = revise_values(None, "Col", "Title", "body", ["t1", "t2"])
    assert values == [
        ("namespace_label", None),
        ("collection_label", "Col"),
        ("title", "Title"),
        ("content", "body"),
        ("tags", "t1"),
        ("tags", "t2"),
    ]


_REMEMBER_SLOTS = {
    "namespace_id": "namespace",
    "namespace_label": "namespace",
    "collection_id": "collection",
    "collection_label": "collection",
    "title": "title",
    "content": "content",
}


@pytest.mark.parametrize(("slot", "field"), sorted(_REMEMBER_SLOTS.items()))
def test_remember_reports_the_mapped_field(slot: str, field: str) -> None:
    arguments: dict[str, str | None] = {name: "plain" for name in _REMEMBER_SLOTS}
    arguments[slot] = SSN
    refusal = _refusal(remember_values(**arguments, tags=["ok"]))  # type: ignore[arg-type]
    assert (refusal.field, refusal.reason) == (field, GOVERNMENT)


def test_remember_inspects_namespace_id() -> None:
    refusal = _refusal(remember_values(SSN, None, None, None, None, "body", []))
    assert refusal.field == "namespace"


_REVISE_SLOTS = ("namespace_label", "collection_label", "title", "content")


@pytest.mark.parametrize("slot", _REVISE_SLOTS)
def test_revise_reports_the_key_name(slot: str) -> None:
    arguments: dict[str, str | None] = {name: "plain" for name in _REVISE_SLOTS}
    arguments[slot] = JWT
    refusal = _refusal(revise_values(**arguments, tags=["ok"]))  # type: ignore[arg-type]
    assert (refusal.field, refusal.reason) == (slot, TOKEN)


def test_remember_order_across_fields() -> None:
    values = remember_values("ns", None, "col", CARD, PEM, JWT, [SSN])
    refusal = _refusal(values)
    assert (refusal.field, refusal.reason) == ("collection", CARD_SHAPE)


def test_revise_content_before_tags() -> None:
    refusal = _refusal(revise_values("NS", None, None, f"id {SSN}", [PEM]))
    assert (refusal.field, refusal.reason) == ("content", GOVERNMENT)


@pytest.mark.parametrize("build", ["remember", "revise"])
def test_tags_are_reported_without_an_index(build: str) -> None:
    tags = ["first", "4111 1111 1111 1111", PEM]
    if build == "remember":
        values = remember_values("ns", None, None, None, None, "body", tags)
    else:
        values = revise_values(None, None, None, "body", tags)
    refusal = _refusal(values)
    assert (refusal.field, refusal.reason) == ("tags", CARD_SHAPE)


def test_policy_sees_values_as_given() -> None:
    # Collapsing whitespace is normalization's job: a tag arrives collapsed, content does not.
    check_values([("content", "4111  1111  1111  1111")])
    refusal = _refusal([("content", "ok"), ("tags", "4111 1111 1111 1111")])
    assert refusal.field == "tags"


# --- the refusal itself ----------------------------------------------------------------


def test_refusal_message_is_the_wire_string() -> None:
    assert REFUSAL_MESSAGE == (
        "memory field resembles content that Mnemosyne does not store; review the named "
        "field and retry only if the user confirms that the formatting is benign"
    )


def test_reasons_are_the_five_wire_values() -> None:
    assert sorted(REASONS) == sorted([PRIVATE, CREDENTIAL, TOKEN, CARD_SHAPE, GOVERNMENT])
    assert len(REASONS) == 5


def test_refusal_status_code_and_message() -> None:
    refusal = _refusal([("content", JWT)])
    assert refusal.status == "refused"
    assert refusal.code == "disallowed_content"
    assert refusal.message == REFUSAL_MESSAGE


_SECRET_BY_REASON = {
    PRIVATE: PEM,
    CREDENTIAL: "password=hunter2secret",
    TOKEN: JWT,
    GOVERNMENT: SSN,
    CARD_SHAPE: CARD,
}


@pytest.mark.parametrize(("reason", "secret"), sorted(_SECRET_BY_REASON.items()))
def test_refusal_never_carries_the_value(
    reason: str, secret: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    refusal = _refusal([("content", f"note: {secret} end")])
    assert refusal.reason == reason
    texts = [str(refusal), repr(refusal), *map(str, refusal.args)]
    texts += [str(item) for item in vars(refusal).values()]
    for text in texts:
        assert secret not in text
        assert "note:" not in text
    assert set(vars(refusal)) == {"code", "field", "reason", "message"}
    assert refusal.__cause__ is None and refusal.__context__ is None
    assert caplog.records == []


# --- properties: look-alikes are stored ------------------------------------------------

_SENTENCES = ("{}", "see {} for details", "({}), then continue.")


def _in_sentence(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.builds(str.format, st.sampled_from(_SENTENCES), inner)


_semver = st.builds(
    "{}{}.{}.{}{}".format,
    st.sampled_from(["", "v"]),
    st.integers(0, 99_999),
    st.integers(0, 99_999),
    st.integers(0, 99_999),
    st.sampled_from(["", "-alpha", "-beta.2", "-rc.1", "+build.7"]),
)


@PROPERTY
@given(_in_sentence(_semver))
def test_semantic_versions_are_stored(text: str) -> None:
    assert first_violation(text) is None


_date_text = st.builds(
    lambda day, separator: day.isoformat().replace("-", separator),
    st.dates(),
    st.sampled_from(["-", "."]),
)


@PROPERTY
@given(_in_sentence(_date_text))
def test_dates_are_stored(text: str) -> None:
    assert first_violation(text) is None


# A label: a lowercase letter, up to 11 more letters/digits (so a digit run stays under
# 13), optionally one hyphenated part of up to 8 letters (so "sk-"/"xoxb-" never reach
# their minimum lengths). Upper case is left out: hostnames are case-insensitive.
_label = st.builds(
    "{}{}{}".format,
    st.sampled_from("abcdefghijklmnopqrstuvwxyz"),
    st.text("abcdefghijklmnopqrstuvwxyz0123456789", max_size=11),
    st.one_of(
        st.just(""), st.text("abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8).map("-{}".format)
    ),
)
_hostname = st.builds(
    lambda labels, tld: ".".join([*labels, tld]),
    st.lists(_label, min_size=1, max_size=4),
    st.sampled_from(["com", "org", "net", "io", "dev", "internal"]),
)


@PROPERTY
@given(_in_sentence(_hostname))
def test_hostnames_are_stored(text: str) -> None:
    assert first_violation(text) is None


# Lowercase identifiers (PEP 8 module names) of at most 12 characters: no "eyJ" header,
# no token prefix long enough to count, no digit run of 13.
_module_name = st.from_regex(r"[a-z_][a-z0-9_]{0,11}", fullmatch=True)
_module_path = st.lists(_module_name, min_size=2, max_size=6).map(".".join)


@PROPERTY
@given(_in_sentence(_module_path))
def test_dotted_module_paths_are_stored(text: str) -> None:
    assert first_violation(text) is None


def _isbn10_check(digits: str) -> str:
    remainder = sum((10 - i) * int(d) for i, d in enumerate(digits)) % 11
    check = (11 - remainder) % 11
    return "X" if check == 10 else str(check)


def _isbn13_check(digits: str) -> str:
    total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(digits))
    return str((10 - total % 10) % 10)


def _split(digits: str, cuts: tuple[int, int]) -> list[str]:
    first, second = sorted(cuts)
    return [digits[:first], digits[first:second], digits[second:]]


def _has_ssn_groups(groups: list[str]) -> bool:
    # Three consecutive groups of 3, 2 and 4 digits are an SSN shape by design.
    lengths = [len(group) for group in groups]
    return any(lengths[i : i + 3] == [3, 2, 4] for i in range(len(lengths) - 2))


_cuts = st.tuples(st.integers(1, 7), st.integers(1, 7)).filter(lambda c: c[0] != c[1])
_nine_digits = st.text("0123456789", min_size=9, max_size=9)


@st.composite
def _isbn10(draw: st.DrawFn) -> str:
    body = draw(_nine_digits)
    groups = _split(body, draw(_cuts))
    groups.append(_isbn10_check(body))
    # Only ten digits, so never a card; the 3-2-4 group shape is excluded (SSN shape).
    if _has_ssn_groups(groups):
        groups = [body[:1], body[1:4], body[4:], groups[-1]]
    return "ISBN " + "-".join(groups)


@st.composite
def _isbn13(draw: st.DrawFn) -> str:
    prefix = draw(st.sampled_from(["978", "979"]))
    body = draw(_nine_digits)
    groups = [prefix, *_split(body, draw(_cuts))]
    groups.append(_isbn13_check(prefix + body))
    return "ISBN " + "-".join(groups)


def _storable_isbn13(text: str) -> bool:
    # Thirteen digits joined by single hyphens form a card candidate, so a Luhn-valid
    # ISBN-13 (about one in ten) is refused by design, as is any 3-2-4 group run.
    groups = text.removeprefix("ISBN ").split("-")
    return not _luhn_ok("".join(groups)) and not _has_ssn_groups(groups)


@PROPERTY
@given(_in_sentence(_isbn10()))
def test_isbn10_strings_are_stored(text: str) -> None:
    assert first_violation(text) is None


@PROPERTY
@given(_isbn13().filter(_storable_isbn13))
def test_isbn13_strings_without_card_or_ssn_shape_are_stored(text: str) -> None:
    assert first_violation(text) is None
    assert first_violation(f"see {text} for details") is None


def test_luhn_valid_isbn13_is_stored() -> None:
    digits = "978030640606"
    assert _isbn13_check(digits) == "5" and _luhn_ok(digits + "5")
    assert first_violation("ISBN 978-0-306-40606-5") is None
    assert first_violation("see 978-0-306-40606-5") is None


_phone = st.builds(
    lambda template, area, exchange, line: template.format(a=area, e=exchange, n=line),
    st.sampled_from(
        [
            "{a}-{e}-{n}",
            "({a}) {e}-{n}",
            "+1 ({a}) {e}-{n}",
            "+1 {a}-{e}-{n}",
            "+1-{a}-{e}-{n}",
            "{a}.{e}.{n}",
            "{a} {e} {n}",
        ]
    ),
    st.integers(200, 999).map(str),
    st.integers(200, 999).map(str),
    st.integers(0, 9999).map("{:04d}".format),
)


@PROPERTY
@given(_in_sentence(_phone))
def test_phone_numbers_are_stored(text: str) -> None:
    assert first_violation(text) is None


# --- properties: the card and identifier detectors -------------------------------------


# Prefix and lengths of numbers that card networks issue (Visa, Mastercard, Amex, Discover,
# JCB, Diners, UnionPay, Maestro): a Luhn-valid number outside them is not taken for a card.
_NETWORKS = (
    ("4", (13, 16, 19)),
    ("51", (16,)),
    ("2720", (16,)),
    ("37", (15,)),
    ("6011", (16, 19)),
    ("3530", (16,)),
    ("36", (14,)),
    ("62", (17, 18)),
    ("6759", (12, 18)),
)


@st.composite
def _card_digits(draw: st.DrawFn) -> str:
    prefix, lengths = draw(st.sampled_from(_NETWORKS))
    size = draw(st.sampled_from([n for n in lengths if n >= 13]))
    body = prefix + draw(
        st.text("0123456789", min_size=size - len(prefix) - 1, max_size=size - len(prefix) - 1)
    )
    check = next(d for d in "0123456789" if _luhn_ok(body + d))
    return body + check


@PROPERTY
@given(_card_digits(), st.sampled_from(["", " ", "-"]))
def test_luhn_valid_digit_runs_are_refused(digits: str, separator: str) -> None:
    grouped = separator.join(digits[i : i + 4] for i in range(0, len(digits), 4))
    assert first_violation(f"card {grouped} here") == CARD_SHAPE


@PROPERTY
@given(_card_digits(), st.integers(1, 9))
def test_luhn_invalid_digit_runs_are_stored(digits: str, shift: int) -> None:
    wrong = digits[:-1] + str((int(digits[-1]) + shift) % 10)
    assert first_violation(f"number {wrong} here") is None


_any_digit = st.characters(categories=["Nd"])


def _issuable(digits: list[str]) -> bool:
    # Numbers the US never issues (area 000 or 666, group 00, serial 0000, 9xx outside the
    # taxpayer groups) and all-equal placeholders are stored (docs/DIFFERENCES.md).
    value = "".join(str(unicodedata.decimal(char)) for char in digits)
    area, group, serial = int(value[:3]), int(value[3:5]), int(value[5:])
    if area in (0, 666) or group == 0 or serial == 0 or len(set(value)) == 1:
        return False
    return area < 900 or group in {*range(50, 66), *range(70, 89), 90, 91, 92, *range(94, 100)}


@PROPERTY
@given(st.lists(_any_digit, min_size=9, max_size=9).filter(_issuable))
def test_identifier_shape_counts_digits_of_any_script(digits: list[str]) -> None:
    text = "{}{}{}-{}{}-{}{}{}{}".format(*digits)
    assert first_violation(f"id {text}.") == GOVERNMENT


@PROPERTY
@given(st.text(max_size=300))
def test_any_text_yields_a_known_reason_or_none(text: str) -> None:
    assert first_violation(text) in {None, *REASONS}
