"""Differential check: every refusal the contract names holds, through remember and revise.

``contract_reason`` is MEMORY_WRITE.md §8.2 written out: the thirteen detectors of the
original, in their table order, with their exact patterns. The texts are the contract's own
examples (§8.1, §8.3), the two refusals issue #23 names, and texts drawn for each detector
from its pattern with random bodies. For each text the original refuses, memory_remember and
memory_revise (through ``POST /mcp``) refuse it too, with the same reason, unless it belongs
to a false-positive class docs/DIFFERENCES.md names (listed in ``DIFFERENCES`` below, each
with the difference it stands for); those are stored.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Callable
from typing import Any

import pytest
from stdnum import luhn

from mymcp.plugins.mnemosyne.memory import policy
from tests.helpers import McpClient, canonical_record
from tests.mnemosyne.tools.mutation_support import reference_of

_PEM = re.compile(
    r"-----BEGIN (?:PRIVATE KEY|(?:RSA|EC|DSA|OPENSSH) PRIVATE KEY|PGP PRIVATE KEY BLOCK)-----"
)
_BASE: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("credential_shape", re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])")),
    (
        "credential_shape",
        re.compile(
            r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"
            r"(?![A-Za-z0-9_])"
        ),
    ),
    ("credential_shape", re.compile(r"(?<![A-Za-z0-9-])xox[baprs]-[A-Za-z0-9-]{10,}")),
    ("credential_shape", re.compile(r"(?<![A-Za-z0-9_])(?:sk|rk)_live_[A-Za-z0-9]{16,}")),
    ("credential_shape", re.compile(r"(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])")),
    ("credential_shape", re.compile(r"(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}")),
    ("credential_shape", re.compile(r"\bauthorization\s*:\s*(?:basic|bearer)\s+\S+", re.I)),
    (
        "credential_shape",
        re.compile(
            r"\b(?:password|passwd|pwd|secret|api[_-]?key|apikey|access[_-]?token|"
            r"refresh[_-]?token|client[_-]?secret)\s*[:=]\s*\S{4,}",
            re.I,
        ),
    ),
    ("credential_shape", re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@")),
    (
        "compact_token_shape",
        re.compile(
            r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+"
            r"(?![A-Za-z0-9_-])"
        ),
    ),
    ("government_identifier_shape", re.compile(r"(?<!\d)\d{3}-\d{2}-\d{4}(?!\d)")),
)
_CARD = re.compile(r"(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)")


def contract_reason(value: str) -> str | None:
    """The reason the original's policy gives ``value`` (§8.2), or None when it stores it."""
    if _PEM.search(value):
        return "private_key_shape"
    for reason, pattern in _BASE:
        if pattern.search(value):
            return reason
    for match in _CARD.finditer(value):
        digits = re.sub(r"[ -]", "", match.group())
        if 13 <= len(digits) <= 19 and luhn.is_valid(digits):
            return "payment_card_shape"
    return None


# Texts the original refuses and MyMCP stores on purpose, each with the difference of
# docs/DIFFERENCES.md ("Content policy") it stands for.
DIFFERENCES = {
    "000-00-0000": "a number the US never issues, all digits equal",
    "0000000000000": "all digits equal, no card network issues it",
    "password: ${DB_PASSWORD}": "a placeholder after a credential name",
    "Authorization: Bearer $TOKEN": "a placeholder credential",
    "https://user:<password>@example.com": "a placeholder password in a URL",
    "AKIAXXXXXXXXXXXXXXXX": "a placeholder body",
    "AKIA0000000000000000": "a placeholder body",
    "xoxb-your-token": "a placeholder body",
    "sk-proj-xxxxxxxxxxxxxxxxxxxx": "a placeholder body",
    "part 123-45-6789": "a label says it is a part number",
    "ISBN 978-0-306-40606-5": "a valid ISBN-13 is no card",
    "1234567812345670": "no card network issues this prefix",
    "postgres://USER:PASSWORD@HOST/DB": "a password in capitals is a placeholder",
    "secret: !Ref DbPasswordParameter": "a YAML tag fetches the secret",
    "gcloud secrets versions access latest --secret=api-key": "the name of a secret",
}

# §8.3, refused column; §8.1's examples; issue #23's two refusals.
EXAMPLES = [
    "-----BEGIN OPENSSH PRIVATE KEY-----",
    "AKIAABCDEFGHIJKLMNOP",
    "xAKIAABCDEFGHIJKLMNOP",
    "ghp_" + "a1B2c3D4e5F6g7H8i9J0",
    "github_pat_" + "a1B2c3D4e5F6g7H8i9J0",
    "xoxb-1234567890",
    "_xoxb-1234567890",
    "sk_live_" + "a1B2c3D4e5F6g7H8",
    "AIza" + "AbCdEfGhIj" * 3 + "KlMnO",
    "sk-" + "a1B2c3D4e5F6g7H8i9J0",
    "Authorization: Bearer abc",
    "AUTHORIZATION :  bearer\tx",
    "password=hunter2",
    "Password: abcd",
    "api-key=abcd",
    "secret:=abcd",
    "x-password=abcd",
    "https://user:pass@example.com",
    "postgres://u:p@db",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
    "eyJ12345678.a.b",
    "eyJhbGciOiJIUzI1NiJ9.a.b.c",
    "123-45-6789",
    "SSN123-45-6789x",
    "\uff11\uff12\uff13-\uff14\uff15-\uff16\uff17\uff18\uff19",
    "4111111111111111",
    "4111 1111 1111 1111",
    "4111-1111-1111-1111",
    "378282246310005",
    "4222222222222",
    "x4111111111111111",
    "ssn 123-45-6789 and token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
    "card 4111111111111111 and ssn 123-45-6789",
    "jwt=eyJhbGciOiJub25lIn0.eyJhIjoxfQ.x",
    "apikey:zzzzzzzz",
    # AWS's own documentation key is a key shape like any other: the contract refuses it.
    "aws key AKIAIOSFODNN7EXAMPLE here",
    "session ASIAIOSFODNN7EXAMPLE",
    "AKIAIOSFODNN7EXAMPLE",
    "AKIAEXAMPLEKEY123456",
    "sk-example-0123456789abcdefghij",
    "ghp_EXAMPLE0123456789abcdefghij",
    *DIFFERENCES,
]


def _draw(rng: random.Random, alphabet: str, size: int) -> str:
    while True:
        body = "".join(rng.choice(alphabet) for _ in range(size))
        # No run that a documented difference treats as a placeholder (XXXX, 00000000).
        if not re.search(r"[xX]{4}|0{8}|your|here|dummy", body, re.IGNORECASE):
            return body


def _luhn_complete(rng: random.Random, prefix: str, size: int) -> str:
    body = prefix + "".join(rng.choice(string.digits) for _ in range(size - len(prefix) - 1))
    return next(body + check for check in string.digits if luhn.is_valid(body + check))


def _issuable_ssn(rng: random.Random) -> str:
    area = rng.choice([*range(1, 666), *range(667, 900)])
    return f"{area:03d}-{rng.randint(1, 99):02d}-{rng.randint(1, 9999):04d}"


UPPER = string.ascii_uppercase + string.digits
ALNUM = string.ascii_letters + string.digits
# One maker per detector of §8.2: a text that detector (and no earlier one) refuses.
MAKERS: tuple[Callable[[random.Random], str], ...] = (
    lambda r: f"-----BEGIN {r.choice(['', 'RSA ', 'EC ', 'DSA ', 'OPENSSH '])}PRIVATE KEY-----",
    lambda r: r.choice(["AKIA", "ASIA"]) + _draw(r, UPPER, 16),
    lambda r: (
        r.choice(["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"]) + _draw(r, ALNUM, 36)
    ),
    lambda r: f"xox{r.choice('baprs')}-" + _draw(r, string.digits + "-", 12),
    lambda r: r.choice(["sk_live_", "rk_live_"]) + _draw(r, ALNUM, 24),
    lambda r: "AIza" + _draw(r, ALNUM + "_-", 35),
    lambda r: "sk-" + _draw(r, ALNUM, 40),
    lambda r: f"Authorization: {r.choice(['Bearer', 'Basic', 'bearer'])} " + _draw(r, ALNUM, 24),
    lambda r: (
        r.choice(["password", "PASSWD", "pwd", "Secret", "api_key", "access-token"])
        + r.choice(["=", ": ", " = ", ":"])
        + _draw(r, ALNUM + "!#%", r.randint(6, 20))
    ),
    lambda r: (
        f"{r.choice(['https', 'postgres', 'redis', 'ftp'])}://{_draw(r, ALNUM, 6)}:"
        + _draw(r, ALNUM + "!#", 10)
        + "@db.internal"
    ),
    lambda r: "eyJhbGciOiJIUzI1NiJ9." + _draw(r, ALNUM, 30) + "." + _draw(r, ALNUM + "_-", 43),
    _issuable_ssn,
    # A number a card network issues (prefix and length): the others are a difference.
    lambda r: _luhn_complete(r, *r.choice([("4", 16), ("51", 16), ("55", 16), ("37", 15)])),
)


def _generated() -> list[str]:
    rng = random.Random(23)
    texts = []
    for make in MAKERS:
        for _ in range(8):
            template = rng.choice(["{}", "note: {}", "see {} for details", "({}), then continue."])
            texts.append(template.format(make(rng)))
    return texts


GENERATED = _generated()


@pytest.mark.parametrize("text", EXAMPLES + GENERATED)
def test_the_policy_refuses_what_the_contract_refuses(text: str) -> None:
    expected = None if text in DIFFERENCES else contract_reason(text)
    assert contract_reason(text) is not None or text not in DIFFERENCES
    assert policy.first_violation(text) == expected


def test_the_issue_names_these_two_refusals() -> None:
    assert contract_reason("jwt=eyJhbGciOiJub25lIn0.eyJhIjoxfQ.x") == "compact_token_shape"
    assert contract_reason("apikey:zzzzzzzz") == "credential_shape"


def _remember(content: str) -> dict[str, Any]:
    return {
        "scope": "project",
        "namespace": {"kind": "project", "id": "contract", "label": "Contract"},
        "collection": None,
        "kind": "decision",
        "language": "en",
        "title": "A note",
        "content": content,
        "tags": [],
        "origin": "explicit_user_statement",
    }


def _revise(content: str) -> dict[str, Any]:
    return {
        "reference": reference_of(canonical_record()),
        "expected_revision": 1,
        "namespace_label": None,
        "collection_label": None,
        "title": "A note",
        "content": content,
        "tags": [],
    }


REFUSED = [text for text in EXAMPLES + GENERATED if text not in DIFFERENCES]


def test_remember_and_revise_refuse_each_with_the_contracts_reason(
    mcp: Callable[..., McpClient],
) -> None:
    client = mcp(remember=True, revise=True)
    for text in REFUSED:
        reason = contract_reason(text)
        for tool, arguments in (("memory_remember", _remember), ("memory_revise", _revise)):
            reply = client.call(tool, arguments(text))
            assert reply.is_error, (tool, text)
            assert reply.payload["code"] == "disallowed_content", (tool, text)
            assert (reply.payload["field"], reply.payload["reason"]) == ("content", reason)


# The label fields are inspected before the content, and every value before the next: an AWS
# key shape in a label decides over a later field that another rule would refuse.
LABELLED = [
    ("namespace", {"kind": "project", "id": "contract"}, "AKIAIOSFODNN7EXAMPLE"),
    ("collection", {"id": "notes"}, "ASIAIOSFODNN7EXAMPLE"),
]


@pytest.mark.parametrize(("field", "part", "label"), LABELLED)
def test_a_key_in_a_label_is_refused_before_the_content(
    mcp: Callable[..., McpClient], field: str, part: dict[str, str], label: str
) -> None:
    assert contract_reason(label) == "credential_shape"
    client = mcp(remember=True, revise=True)
    draft = {**_remember("ssn 123-45-6789"), field: {**part, "label": label}}
    revised = f"{field}_label"
    change = {**_revise("ssn 123-45-6789"), revised: label}
    for tool, arguments, reported in (
        ("memory_remember", draft, field),
        ("memory_revise", change, revised),
    ):
        reply = client.call(tool, arguments)
        assert reply.payload["status"] == "refused", (tool, reply.payload)
        assert (reply.payload["field"], reply.payload["reason"]) == (reported, "credential_shape")


def test_a_documented_difference_is_remembered(mcp: Callable[..., McpClient]) -> None:
    client = mcp(remember=True)
    for text in DIFFERENCES:
        reply = client.call("memory_remember", _remember(text))
        assert reply.payload["status"] == "remembered", text
