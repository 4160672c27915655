"""Content policy: refuse memory text shaped like secrets or personal identifiers.

The policy is a fixed, ordered list of signature detectors. It looks at normalized values
only and reports a coarse reason plus the name of the field that tripped it; it never
reports what matched, where, or which detector fired, so a refusal cannot echo a secret.

The detectors are deliberately bounded: they recognise well-known shapes, they do not
try to prove that something is (or is not) a real credential.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from mymcp.plugins.mnemosyne.memory.errors import ContentRefused

__all__ = [
    "REASONS",
    "REFUSAL_MESSAGE",
    "check_values",
    "first_violation",
    "remember_values",
    "revise_values",
]

PRIVATE_KEY_SHAPE = "private_key_shape"
CREDENTIAL_SHAPE = "credential_shape"
COMPACT_TOKEN_SHAPE = "compact_token_shape"
PAYMENT_CARD_SHAPE = "payment_card_shape"
GOVERNMENT_IDENTIFIER_SHAPE = "government_identifier_shape"

REASONS: tuple[str, ...] = (
    PRIVATE_KEY_SHAPE,
    CREDENTIAL_SHAPE,
    COMPACT_TOKEN_SHAPE,
    PAYMENT_CARD_SHAPE,
    GOVERNMENT_IDENTIFIER_SHAPE,
)

REFUSAL_MESSAGE = (
    "memory field resembles content that Mnemosyne does not store; review the named field "
    "and retry only if the user confirms that the formatting is benign"
)

FieldValues = Iterable[tuple[str, str | None]]


@dataclass(frozen=True)
class _Detector:
    reason: str
    matches: Callable[[str], bool]


def _pattern(regex: str, flags: int = 0) -> Callable[[str], bool]:
    compiled = re.compile(regex, flags)
    return lambda value: compiled.search(value) is not None


# Runs of digits (any script) each followed by at most one space or hyphen. finditer
# yields non-overlapping candidates, so a greedy run that fails the checksum is not
# retried from a later starting digit.
_CARD_CANDIDATE = re.compile(r"(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)")


def _passes_luhn(candidate: str) -> bool:
    digits = [unicodedata.decimal(char) for char in candidate if char not in " -"]
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for position, digit in enumerate(reversed(digits)):
        if position % 2:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return total % 10 == 0


def _has_card_number(value: str) -> bool:
    return any(_passes_luhn(match.group()) for match in _CARD_CANDIDATE.finditer(value))


# Table order matters: for one value the first detector that fires names the reason.
_DETECTORS: tuple[_Detector, ...] = (
    _Detector(
        PRIVATE_KEY_SHAPE,
        _pattern(
            r"-----BEGIN (?:(?:RSA|EC|DSA|OPENSSH) )?PRIVATE KEY-----"
            r"|-----BEGIN PGP PRIVATE KEY BLOCK-----"
        ),
    ),
    _Detector(CREDENTIAL_SHAPE, _pattern(r"(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])")),
    _Detector(
        CREDENTIAL_SHAPE,
        _pattern(
            r"(?<![A-Za-z0-9_])"
            r"(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"
            r"(?![A-Za-z0-9_])"
        ),
    ),
    _Detector(CREDENTIAL_SHAPE, _pattern(r"(?<![A-Za-z0-9-])xox[baprs]-[A-Za-z0-9-]{10,}")),
    _Detector(CREDENTIAL_SHAPE, _pattern(r"(?<![A-Za-z0-9_])(?:sk|rk)_live_[A-Za-z0-9]{16,}")),
    _Detector(
        CREDENTIAL_SHAPE,
        _pattern(r"(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])"),
    ),
    _Detector(CREDENTIAL_SHAPE, _pattern(r"(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}")),
    _Detector(
        CREDENTIAL_SHAPE,
        _pattern(r"\bauthorization\s*:\s*(?:basic|bearer)\s+\S+", re.IGNORECASE),
    ),
    _Detector(
        CREDENTIAL_SHAPE,
        _pattern(
            r"\b(?:password|passwd|pwd|secret|api[_-]?key|apikey|access[_-]?token"
            r"|refresh[_-]?token|client[_-]?secret)\s*[:=]\s*\S{4,}",
            re.IGNORECASE,
        ),
    ),
    _Detector(CREDENTIAL_SHAPE, _pattern(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@")),
    _Detector(
        COMPACT_TOKEN_SHAPE,
        _pattern(
            r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+"
            r"(?![A-Za-z0-9_-])"
        ),
    ),
    _Detector(GOVERNMENT_IDENTIFIER_SHAPE, _pattern(r"(?<!\d)\d{3}-\d{2}-\d{4}(?!\d)")),
    _Detector(PAYMENT_CARD_SHAPE, _has_card_number),
)


def first_violation(value: str) -> str | None:
    """Return the reason of the first detector that fires on ``value``, or None."""
    for detector in _DETECTORS:
        if detector.matches(value):
            return detector.reason
    return None


def check_values(values: FieldValues) -> None:
    """Raise ContentRefused for the first value, in the given order, that the policy refuses.

    ``values`` pairs the reported field name with a normalized value; None values are
    skipped. The error carries only the field name and the reason.
    """
    for field, value in values:
        if value is None:
            continue
        reason = first_violation(value)
        if reason is not None:
            raise ContentRefused(field=field, reason=reason, message=REFUSAL_MESSAGE)


def remember_values(
    namespace_id: str,
    namespace_label: str | None,
    collection_id: str | None,
    collection_label: str | None,
    title: str | None,
    content: str,
    tags: Iterable[str],
) -> list[tuple[str, str | None]]:
    """The values memory_remember submits to the policy, paired with their reported field."""
    return [
        ("namespace", namespace_id),
        ("namespace", namespace_label),
        ("collection", collection_id),
        ("collection", collection_label),
        ("title", title),
        ("content", content),
        *(("tags", tag) for tag in tags),
    ]


def revise_values(
    namespace_label: str | None,
    collection_label: str | None,
    title: str | None,
    content: str,
    tags: Iterable[str],
) -> list[tuple[str, str | None]]:
    """The values memory_revise submits to the policy, paired with their reported field."""
    return [
        ("namespace_label", namespace_label),
        ("collection_label", collection_label),
        ("title", title),
        ("content", content),
        *(("tags", tag) for tag in tags),
    ]
