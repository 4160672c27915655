"""What a candidate value looks like: a placeholder, a mask, a reference, random, a password.

The context detectors find a value next to a credential word (``password: …``,
``token=…``, "the password is …"). Whether that value is a secret is decided here, from
the value alone: placeholders, masked values, environment and code references, type names
and ordinary words are not secrets; a literal that is long and random enough is.
"""

from __future__ import annotations

import math
import re
from collections import Counter

__all__ = [
    "is_not_a_secret",
    "looks_like_password",
    "looks_random",
    "looks_strong",
]

# Values that stand for a secret instead of being one.
_PLACEHOLDER_WORDS = frozenset(
    """
    none null nil undefined empty unset notset missing tbd todo n/a na nan
    true false yes no on off enabled disabled enable disable required optional
    str string int integer bool boolean bytes text any object number float char varchar
    binary blob uuid date datetime list dict map array secretstr secretbytes
    password passwd pwd pass secret secrets token apikey api_key key value
    changeme change_me change-me changeit redacted removed hidden masked omitted
    example sample dummy placeholder foo bar baz xxx xxxx
    """.split()
)
# Pieces that mark a placeholder wherever they stand in a value.
_PLACEHOLDER_PIECES = (
    "your",
    "here",
    "replace",
    "insert",
    "example",
    "placeholder",
    "redact",
    "dummy",
    "changeme",
    "change_me",
    "change-me",
    "xxxx",
    "<",
    ">",
    "{{",
    "${",
    "$(",
    "...",
    "\u2026",
)
# Three of these in a row mask a value (••••, ****, ####, ····).
_MASK = re.compile(r"[*\u2022\u25cf\u00b7\u2219#?_]{3}|[xX]{4}|\.{3}|\u2026")
# References to a secret kept elsewhere: environment variables, templating, code, paths.
_REFERENCE = re.compile(
    r"""
    \$[A-Za-z_{(]                      # $VAR, ${VAR}, $(command)
    | %[A-Za-z_][A-Za-z0-9_]*%         # %VAR%
    | \{[A-Za-z_][\w.]*\}              # {name}
    | [A-Za-z_$][A-Za-z_$]*\d{0,2}(?:\.[A-Za-z_$][A-Za-z_$]*\d{0,2})+$  # config.password
    | [A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$   # API_KEY, DB_PASSWORD
    | [\w.$]*[(\[]                     # getpass(), os.environ[...]
    | ~/ | \.\.?/ | [A-Za-z]:\\ | /[\w.-]+/ | /(?:run|etc|var|home|usr|tmp|opt|mnt|srv)\b  # paths
    | (?:file|op|vault|ref\+[a-z]+|sm|awssm|gcpsm|azkv|secretsmanager|kms|arn|projects)[:/]
    | @Microsoft\.KeyVault | ENC\[ | !vault
    """,
    re.VERBOSE,
)
_DIGEST_LABEL = re.compile(r"(?:sha(?:1|224|256|384|512)|md5|blake2[bs]?)[:-]", re.IGNORECASE)
_PARTS = re.compile(r"[_.\-/:]+")
_WORD_CASE = re.compile(r"[a-z]+|[A-Z]+|(?:[A-Z]?[a-z]{2,})+[A-Z]{0,3}")
_SYMBOLS = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


# Keys made to be published: Stripe's publishable keys, Mapbox's public tokens and the
# extended public keys of wallets.
PUBLIC_PREFIXES = ("pk_live_", "pk_test_", "pk.eyJ", "xpub", "ypub", "zpub", "tpub")


def is_not_a_secret(value: str, *, name: str = "") -> bool:
    """True for a placeholder, a masked value, a reference, a type name or the key's own name."""
    lowered = value.lower()
    if not value or lowered in _PLACEHOLDER_WORDS or lowered == name:
        return True
    if len(set(value)) == 1:
        return True
    if any(piece in lowered for piece in _PLACEHOLDER_PIECES):
        return True
    return _MASK.search(value) is not None or _REFERENCE.match(value) is not None


def _wordy(value: str) -> bool:
    """An identifier made of words: user_profile_cache, created-at, ReadWriteAccess, api_v2."""
    parts = [part for part in _PARTS.split(value) if part]
    words = [part for part in parts if part.isalpha() and _WORD_CASE.fullmatch(part)]
    if not any(len(word) >= 3 for word in words):
        return False
    return all(
        part in words or (part.isdigit() and len(part) <= 4) or len(part) <= 3 for part in parts
    )


def _entropy(value: str) -> float:
    counts = Counter(value)
    size = len(value)
    return -sum(count / size * math.log2(count / size) for count in counts.values())


def looks_random(value: str, minimum: int = 12) -> bool:
    """True for a literal that reads like a generated secret rather than like words.

    Long enough, no white space, letters mixed with digits (or a long mix of cases or
    Base64 punctuation), not an identifier made of words, not a labelled digest, and
    varied enough that it is not a repeated placeholder.
    """
    if len(value) < minimum or len(value) > 4096 or any(char.isspace() for char in value):
        return False
    if _DIGEST_LABEL.match(value) or "://" in value or is_not_a_secret(value):
        return False
    if _wordy(value):
        return False
    digits = sum(char.isdigit() for char in value)
    letters = sum(char.isalpha() for char in value)
    if digits == len(value):
        return len(value) >= 20
    mixed = digits and letters
    cased = any(char.isupper() for char in value) and any(char.islower() for char in value)
    base64ish = any(char in "+/=" for char in value) and letters > len(value) // 2
    if not (mixed or (cased and len(value) >= 20) or base64ish):
        return False
    return _entropy(value) >= (3.0 if len(value) >= 16 else 2.5)


def looks_strong(value: str) -> bool:
    """Eight or more characters mixing letters, digits and symbols or both cases."""
    if len(value) < 8 or is_not_a_secret(value):
        return False
    has_digit = any(char.isdigit() for char in value)
    has_letter = any(char.isalpha() for char in value)
    has_symbol = any(char in _SYMBOLS for char in value)
    cased = any(char.isupper() for char in value) and any(char.islower() for char in value)
    return has_digit and has_letter and (has_symbol or cased)


def looks_like_password(value: str, *, quoted: bool, strict: bool) -> bool:
    """True for a literal that reads like a password.

    ``strict`` is for values met in running prose ("the password is …"): there a plain word
    is just a word, so the value needs a digit, a symbol or an inner capital, or quotes.
    Otherwise (``password=…``) any literal of four or more characters counts, as long as it
    is not a placeholder, a mask or a reference.
    """
    if len(value) < 4 or len(value) > 200 or is_not_a_secret(value):
        return False
    if not strict:
        return True
    if value.lower().startswith(("http://", "https://", "www.")):
        return False
    if quoted and len(value) >= 4:
        return True
    has_digit = any(char.isdigit() for char in value)
    has_symbol = any(char in _SYMBOLS for char in value)
    inner_capital = any(char.isupper() for char in value[1:])
    has_letter = any(char.isalpha() for char in value)
    if value.isdigit():
        return len(value) >= 6
    return len(value) >= 6 and has_letter and (has_digit or has_symbol or inner_capital)
