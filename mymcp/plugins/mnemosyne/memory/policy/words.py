"""Every word list of the policy, each written once, in ``words.toml`` beside this module.

- credential names: the last word of a name that holds a password, a token or a private key,
  and the words that make a name something else (a cache key, a page token);
- values that stand for a secret instead of being one (placeholders);
- labels: the words that say what a number is (an order, a card, an identity number).
"""

from __future__ import annotations

import tomllib
from importlib import resources

_LISTS = tomllib.loads(resources.files(__package__).joinpath("words.toml").read_text("utf-8"))
_NAMES, _PLACEHOLDERS, _LABELS = _LISTS["names"], _LISTS["placeholders"], _LISTS["labels"]


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


# --- credential names ---------------------------------------------------------------------

PASSWORD_WORDS = _set(_NAMES["password"])
TOKEN_WORDS = _set(_NAMES["token"])
PRIVATE_WORDS = _set(_NAMES["private"])
TRAILING = _set(_NAMES["trailing"])
NOT_SECRET_QUALIFIERS = _set(_NAMES["not_secret_qualifiers"])

# --- placeholders -------------------------------------------------------------------------

PLACEHOLDERS = _set(_PLACEHOLDERS["values"])
PLACEHOLDER_PIECES: tuple[str, ...] = tuple(_PLACEHOLDERS["pieces"])

# --- labels of numbers --------------------------------------------------------------------

BENIGN = "benign"
CARD = "card"
IDENTITY = "identity"

LABELS: dict[str, str] = {
    word: kind for kind in (BENIGN, CARD, IDENTITY) for word in _LABELS[kind].split()
}
PHRASES = frozenset(
    (
        *(tuple(pair.split("/")) for pair in _LABELS["phrases"].split()),
        *((nationality, "id") for nationality in _LABELS["nationalities"].split()),
    )
)
LABEL_INFIXES = (
    *((infix, IDENTITY) for infix in _LABELS["identity_infixes"]),
    *((infix, CARD) for infix in _LABELS["card_infixes"]),
)
SPELLED_IN_CAPITALS = _set(_LABELS["capitals"])
SHORT_LABELS = {
    **dict.fromkeys(_LABELS["phone"].split(), "phone"),
    **dict.fromkeys(_LABELS["count"].split(), "count"),
}
