"""What a candidate value looks like: a placeholder, random, a password; each test once.

The rules find a value next to a credential name, in a URL, after a command-line flag.
Whether that value is a secret is decided here, from the value alone: placeholders, masks,
references to a secret kept elsewhere, type names and words are not secrets; a literal that
is long and random enough is.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from mymcp.plugins.mnemosyne.memory.policy.words import PLACEHOLDER_PIECES, PLACEHOLDERS

# A value of one repeated character is a mask only when the character is one of these.
_MASK_CHARACTERS = frozenset("*xX#.?_-0\u2022\u25cf\u00b7\u2219")
# A placeholder word counts where it stands as a word of the value: at its start or end, next
# to a separator, or in a value of letters alone (``your_key``, ``KEY-HERE``, ``insertTokenHere``),
# never glued between the letters and digits of a generated value (``k3Yhere9Qz71``).
_PLACEHOLDER_WORDS = tuple(piece for piece in PLACEHOLDER_PIECES if piece.isalpha())
_PLACEHOLDER_SIGNS = tuple(piece for piece in PLACEHOLDER_PIECES if not piece.isalpha())
_PLACEHOLDER_WORD = re.compile(
    "|".join(rf"(?<![0-9a-z]){word}|{word}(?![0-9a-z])" for word in _PLACEHOLDER_WORDS),
    re.IGNORECASE,
)
_MASK = re.compile(r"([*\u2022\u25cf\u00b7\u2219#?_])\1\1|[xX]{4}|0{8}|\.{3}|\u2026")
# References to a secret kept elsewhere, inside a string literal too.
_TEMPLATE = re.compile(
    r"\$(?:[A-Za-z_]\w*(?![\w$])|[{(])|%[A-Za-z_][A-Za-z0-9_]*%|\{[A-Za-z_][\w.:-]*\}"
)
# References that only code or configuration writes unquoted: names, calls, paths, stores.
_REFERENCE = re.compile(
    r"""
    [A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$     # API_KEY, DB_PASSWORD
    | [\w.$:>-]*[(\[]                  # getpass(), os.environ[...], std::env::var(...)
    | ~/ | \.\.?/ | [A-Za-z]:\\ | /[\w.-]+/ | /(?:run|etc|var|home|usr|tmp|opt|mnt|srv)\b
    | (?:file|op|vault|ref\+[a-z]+|sm|awssm|gcpsm|azkv|secretsmanager|kms|arn|projects)[:/]
    | @Microsoft\.KeyVault | ENC\[
    | !(?:vault|unsafe|secret|env|include|Ref|Sub|GetAtt|ImportValue|Join|Select|FindInMap
      |Base64|If|Transform)$      # YAML tags (Ansible, Home Assistant, CloudFormation)
    """,
    re.VERBOSE,
)
# config.db.password, self.token, process.env.API_KEY: a dotted name is a reference when it
# starts at a known object or a part is written as code writes names or names a secret;
# comet.comet.biscuit and Falcon.lemon58 are passphrases.
_DOTTED = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")
_OBJECTS = frozenset(
    """self this os process env environ config cfg conf settings options opts args argv params
    vars var local data module secrets inputs github steps needs matrix values app ctx context
    request req form user db database credentials creds props state window document item
    each""".split()
)
# The name of a secret rather than one: api-key, db_password, prod-signing-key.
_SECRET_NAME_WORDS = frozenset(
    "password passwd pwd pass secret secrets token key apikey auth credential credentials creds "
    "cred".split()
)


def _dotted_reference(value: str) -> bool:
    if _DOTTED.fullmatch(value) is None:
        return False
    parts = value.split(".")
    return parts[0].lower() in _OBJECTS or any(
        "_" in part
        or "$" in part
        or not part[1:].islower()
        and part[1:].isalpha()
        or part.lower() in _SECRET_NAME_WORDS
        for part in parts
    )


def _secret_name(value: str) -> bool:
    parts = [part.lower() for part in _PARTS.split(value) if part]
    return len(parts) > 1 and _wordy(value) and not _SECRET_NAME_WORDS.isdisjoint(parts)


_DIGEST_LABEL = re.compile(r"(?:sha(?:1|224|256|384|512)|md5|blake2[bs]?)[:-]", re.IGNORECASE)
_PARTS = re.compile(r"[_.\-/:]+")
_WORD_CASE = re.compile(r"[a-z]+|[A-Z]+|(?:[A-Z]?[a-z]{2,})+[A-Z]{0,3}")
_SYMBOLS = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_COMPACT = re.compile(r"eyJ[\w-]{8,}\.[\w-]*\.", re.ASCII)
# Twilio's object IDs (messages, calls, accounts…): two capitals and 32 hex digits. Only an
# API key ID (SK…) is taken for part of a credential.
_OBJECT_ID = re.compile(r"(?!SK)[A-Z]{2}[0-9a-f]{32}")

# Keys made to be published: Stripe's publishable keys, Mapbox's public tokens and the
# extended public keys of wallets.
PUBLIC_PREFIXES = ("pk_live_", "pk_test_", "pk.eyJ", "xpub", "ypub", "zpub", "tpub")


def is_placeholder(value: str, *, name: str = "", quoted: bool = False, words: bool = True) -> bool:
    """True for a placeholder, a mask, a reference, a type name or the name itself.

    Inside quotes only templating counts as a reference (``"${TOKEN}"``); a quoted call or
    path is a literal. Without ``words``, a plain word is no placeholder: ``pass`` is a
    password in a URL, only ``<password>``, ``${PASS}``, ``****`` or ``your-key`` stand for one.
    """
    lowered = value.lower()
    if not value or words and (lowered in PLACEHOLDERS or lowered == name):
        return True
    if len(value) >= 3 and len(set(value)) == 1 and value[0] in _MASK_CHARACTERS:
        return True
    if any(sign in lowered for sign in _PLACEHOLDER_SIGNS) or _MASK.search(value):
        return True
    if _PLACEHOLDER_WORD.search(value):
        return True
    if value.isalpha() and any(word in lowered for word in _PLACEHOLDER_WORDS):
        return True
    if _TEMPLATE.match(value):
        return True
    if quoted:
        return False
    return _REFERENCE.match(value) is not None or _dotted_reference(value) or _secret_name(value)


# What may stand before the X's or zeros of a placeholder body: a lowercase word and a
# separator ("proj-" in sk-proj-xxxx…), nothing else.
_PLACEHOLDER_BODY = re.compile(
    r"(?:[a-z]+[-_.])?[-_.]*(?:[xX]{4,}|0{4,})[-_.xX0]*|(?i:your).*", re.DOTALL
)


def placeholder_body(body: str) -> bool:
    """The body of a prefix token that a placeholder stands for, exactly as the contract's
    documented difference has it: X's or zeros (separators aside), or ``your…``.

    ``AKIAIOSFODNN7EXAMPLE`` is no placeholder: its body is letters and digits like a key's.
    """
    return _PLACEHOLDER_BODY.fullmatch(body) is not None


def compact_token(value: str) -> bool:
    """A JWT, JWS or JWE: the compact-token rule reports it, not a credential rule."""
    return _COMPACT.match(value) is not None


def object_id(value: str) -> bool:
    """A provider's object ID, which names a thing and grants nothing."""
    return _OBJECT_ID.fullmatch(value) is not None


def _classes(value: str) -> tuple[int, int, bool, bool]:
    """How many digits and letters ``value`` holds, whether a symbol, whether both cases."""
    digits = sum(char.isdigit() for char in value)
    letters = sum(char.isalpha() for char in value)
    cased = any(char.isupper() for char in value) and any(char.islower() for char in value)
    return digits, letters, any(char in _SYMBOLS for char in value), cased


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
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in Counter(value).values())


def looks_random(value: str, minimum: int = 12, *, quoted: bool = False) -> bool:
    """A literal that reads like a generated secret rather than like words.

    Long enough, no white space, letters mixed with digits (or a long mix of cases or of
    Base64 punctuation), not an identifier made of words, not a labelled digest, and varied
    enough not to be a repeated placeholder.
    """
    if len(value) < minimum or len(value) > 4096 or any(char.isspace() for char in value):
        return False
    if _DIGEST_LABEL.match(value) or "://" in value or is_placeholder(value, quoted=quoted):
        return False
    if _wordy(value) or object_id(value):
        return False
    digits, letters, _, cased = _classes(value)
    if digits == len(value):
        return len(value) >= 20
    base64ish = any(char in "+/=" for char in value) and letters > len(value) // 2
    if not ((digits and letters) or (cased and len(value) >= 20) or base64ish):
        return False
    return _entropy(value) >= (3.0 if len(value) >= 16 else 2.5)


def looks_strong(value: str) -> bool:
    """Eight or more characters mixing letters, digits and symbols or both cases."""
    if len(value) < 8 or is_placeholder(value):
        return False
    digits, letters, symbol, cased = _classes(value)
    return bool(digits and letters and (symbol or cased))


def looks_like_password(value: str, *, quoted: bool, strict: bool) -> bool:
    """A literal that reads like a password.

    ``strict`` is for values met in running prose ("the password is …"): there a plain word
    is just a word, so the value needs a digit, a symbol or an inner capital, or quotes.
    Otherwise (``password=…``) any literal of four or more characters counts, unless it is
    a placeholder, a mask or a reference.
    """
    if len(value) < 4 or len(value) > 200 or is_placeholder(value, quoted=quoted):
        return False
    if not strict:
        return True
    if value.lower().startswith(("http://", "https://", "www.")):
        return False
    if quoted or passphrase(value):
        return True
    if value.isdigit():
        return len(value) >= 6
    if _ADJECTIVE.fullmatch(value):
        return False  # "the password is case-sensitive"
    digits, letters, symbol, _ = _classes(value)
    inner_capital = any(char.isupper() for char in value[1:])
    return len(value) >= 6 and bool(letters and (digits or symbol or inner_capital))


_INNER_DIGIT = re.compile(r"[A-Za-z]\d+[A-Za-z]")
_ADJECTIVE = re.compile(r"[a-z]+-[a-z]+")
# Three words or more joined by one of "." "-" "_" (digits and a symbol may close it).
_PASSPHRASE = re.compile(r"[A-Za-z]{3,}(?P<join>[-._])[A-Za-z]{3,}(?:(?P=join)[A-Za-z]{3,})+\d*\W?")


def passphrase(value: str) -> bool:
    """Words joined into a passphrase: comet.comet.biscuit, winter-otter-garden."""
    return _PASSPHRASE.fullmatch(value) is not None and not is_placeholder(value)


def prose_password(value: str) -> bool:
    """A password said in a sentence without naming it ("use X to unlock"): it must not be
    a product name ("1Password", "OAuth2", "ssh-agent"), so it needs a symbol other than the
    ones that join words, two digits or a digit among its letters."""
    if not looks_like_password(value, quoted=False, strict=True) or "/" in value:
        return False
    digits = sum(char.isdigit() for char in value)
    symbol = any(char in _SYMBOLS and char not in "-_." for char in value)
    return symbol or digits >= 2 or _INNER_DIGIT.search(value) is not None
