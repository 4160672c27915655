"""Content policy: refuse memory text shaped like secrets or personal identifiers.

The policy looks at normalized values only and reports a coarse reason plus the name of the
field that tripped it; it never reports what matched, where, or which rule fired, so a
refusal cannot echo a secret. :func:`explain` names the rule, for the operator's own
command (``mymcp explain``) only.

The rules are one table (``rules.toml``, one entry per rule, made into rules by
:mod:`.rules`; the matchers written in Python are in :mod:`.matchers`), run by one engine
(:mod:`.engine`) in the contract's order: private keys, credentials, compact tokens,
government identifiers, payment cards. For one value the first rule that refuses it names
the reason; the first refused value, in the order the caller gives, decides the result.
"""

from __future__ import annotations

from collections.abc import Iterable

from mymcp.plugins.mnemosyne.memory.model.errors import ContentRefused
from mymcp.plugins.mnemosyne.memory.policy.rules import TABLE

__all__ = [
    "REASONS",
    "REFUSAL_MESSAGE",
    "check_values",
    "explain",
    "first_violation",
    "remember_values",
    "revise_values",
]

REASONS: tuple[str, ...] = (
    "private_key_shape",
    "credential_shape",
    "compact_token_shape",
    "payment_card_shape",
    "government_identifier_shape",
)

REFUSAL_MESSAGE = (
    "memory field resembles content that Mnemosyne does not store; review the named field "
    "and retry only if the user confirms that the formatting is benign"
)

FieldValues = Iterable[tuple[str, str | None]]


def explain(value: str) -> tuple[str, str] | None:
    """The reason and the id of the rule that refuses ``value``, or None when it is stored."""
    rule = TABLE.decide(value)
    return None if rule is None else (rule.reason, rule.id)


def first_violation(value: str) -> str | None:
    """The reason of the first rule that refuses ``value``, or None."""
    rule = TABLE.decide(value)
    return None if rule is None else rule.reason


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
