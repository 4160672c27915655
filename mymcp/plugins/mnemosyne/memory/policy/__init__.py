"""Content policy: refuse memory text shaped like secrets or personal identifiers.

The policy looks at normalized values only and reports a coarse reason plus the name of the
field that tripped it; it never reports what matched, where, or which detector fired, so a
refusal cannot echo a secret.

Detectors are grouped by the reason they report and run in the order of :data:`_DETECTORS`:
private keys, credentials, compact tokens, government identifiers, payment cards. For one
value the first detector that fires names the reason; the first refused value, in the order
the caller gives, decides the result. Each family lives in its own module:

============================  ====================================================
``keys``                      PEM armour, key bodies and files, wallet keys, seed phrases
``providers``                 provider tokens by prefix or structure, webhook URLs
``context``                   passwords and tokens assigned to or stated after a name,
                              headers, URL credentials, cookies, MFA secrets
``compact``                   JWT/JWS/JWE, PASETO and Fernet tokens
``identifiers``, ``national``  social security and national identification numbers
``cards``                     payment card numbers
============================  ====================================================

Every detector works on one shared :class:`~.text.Text`, whose byte masks let it look for a
keyword, a literal or a long token first and run its exact rule only around what it found.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from mymcp.plugins.mnemosyne.memory.errors import ContentRefused
from mymcp.plugins.mnemosyne.memory.policy.access import (
    has_authorization,
    has_mfa_secret,
    has_session_cookie,
    has_url_credentials,
)
from mymcp.plugins.mnemosyne.memory.policy.cards import has_card_number
from mymcp.plugins.mnemosyne.memory.policy.compact import has_compact_token
from mymcp.plugins.mnemosyne.memory.policy.context import (
    has_assigned_secret,
    has_foreign_password,
    has_login_pair,
)
from mymcp.plugins.mnemosyne.memory.policy.identifiers import has_government_identifier
from mymcp.plugins.mnemosyne.memory.policy.keys import (
    has_key_material,
    has_private_key,
    has_seed_phrase,
)
from mymcp.plugins.mnemosyne.memory.policy.providers import has_provider_token, has_webhook_url
from mymcp.plugins.mnemosyne.memory.policy.text import Text

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
Detector = Callable[[Text], bool]

# Table order matters: for one value the first detector that fires names the reason.
_DETECTORS: tuple[tuple[str, Detector], ...] = (
    (PRIVATE_KEY_SHAPE, has_private_key),
    (PRIVATE_KEY_SHAPE, has_key_material),
    (PRIVATE_KEY_SHAPE, has_seed_phrase),
    (CREDENTIAL_SHAPE, has_provider_token),
    (CREDENTIAL_SHAPE, has_webhook_url),
    (CREDENTIAL_SHAPE, has_authorization),
    (CREDENTIAL_SHAPE, has_assigned_secret),
    (CREDENTIAL_SHAPE, has_url_credentials),
    (CREDENTIAL_SHAPE, has_login_pair),
    (CREDENTIAL_SHAPE, has_session_cookie),
    (CREDENTIAL_SHAPE, has_mfa_secret),
    (CREDENTIAL_SHAPE, has_foreign_password),
    (COMPACT_TOKEN_SHAPE, has_compact_token),
    (GOVERNMENT_IDENTIFIER_SHAPE, has_government_identifier),
    (PAYMENT_CARD_SHAPE, has_card_number),
)


def first_violation(value: str) -> str | None:
    """Return the reason of the first detector that fires on ``value``, or None."""
    text = Text(value)
    for reason, detects in _DETECTORS:
        if detects(text):
            return reason
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
