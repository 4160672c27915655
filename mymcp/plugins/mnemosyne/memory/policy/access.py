"""Credentials that grant access as they stand (reason ``credential_shape``).

``Authorization`` headers, bare ``Bearer`` tokens and ``Basic`` credentials, user names with
passwords in URLs, in ``curl -u`` and on database command lines, session cookies,
``otpauth://`` URLs, TOTP seeds, MFA recovery codes and BitLocker recovery keys. Each is
found by a keyword or a literal first; the value test (see :mod:`.looks`) then decides
whether what follows is a real secret or a placeholder.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator

from mymcp.plugins.mnemosyne.memory.policy.looks import is_not_a_secret, looks_random
from mymcp.plugins.mnemosyne.memory.policy.text import Text

__all__ = ["has_authorization", "has_mfa_secret", "has_session_cookie", "has_url_credentials"]

# --- headers, URLs, cookies --------------------------------------------------------------

# The contract's base rule: "Authorization:" then Basic or Bearer and anything.
_AUTHORIZATION = re.compile(
    r"""authorization["']?\s*[:=]\s*["']?(?:(?P<known>basic|bearer)\s+["']?(?P<credential>[^\s"']+)
    |(?P<scheme>token|bot|apikey|api-key|key|sso-key|ssws|digest|hmac|negotiate|ntlm|
    aws4-hmac-sha256|gitlab-ci-token|splunk|genieKey|klaviyo-api-key)\s+(?P<other>[^\s"']+))""",
    re.IGNORECASE | re.VERBOSE,
)
_BEARER = re.compile(r"bearer\s+(?P<token>[A-Za-z0-9\-._~+/]+=*)", re.IGNORECASE)
_BASIC = re.compile(
    r"basic\s+(?P<encoded>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])", re.IGNORECASE
)
_URL_CREDENTIALS = re.compile(r"://(?P<user>[^/\s:@]*):(?P<password>[^/\s@]+)@")
# The dash comes first (the engine jumps from dash to dash); what stands before it is
# checked after it.
_CURL_USER = re.compile(
    r"""-(?:(?<=^-)|(?<=\s-))(?:u|-user)[ =]["']?(?P<user>[^\s:'"]+):(?P<password>[^\s'"]+)"""
)
_URL_PLACEHOLDER = re.compile(r"""[$<{%\[]|[*\u2022xX]{3}|\.\.\.|\u2026""")


_AUTHORIZATION_WORDS = frozenset({b"authorization", b"bearer", b"basic"})


def has_authorization(text: Text) -> bool:
    """An ``Authorization`` header, a bare Bearer token or a Basic credential."""
    if not text.mentions(_AUTHORIZATION_WORDS):
        return False
    for at in text.positions("authorization"):
        match = _AUTHORIZATION.match(text.value, at)
        if match is None:
            continue
        if match.group("known"):
            if not _URL_PLACEHOLDER.match(match.group("credential")):
                return True
        elif looks_random(match.group("other"), minimum=8):
            return True
    for at in text.positions("bearer"):
        match = _BEARER.match(text.value, at)
        if match is not None and looks_random(match.group("token"), minimum=12):
            return True
    return any(_basic_credential(text, at) for at in text.positions("basic"))


def _basic_credential(text: Text, at: int) -> bool:
    match = _BASIC.match(text.value, at)
    if match is None:
        return False
    encoded = match.group("encoded")
    try:
        decoded = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
        plain = decoded.decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    user, colon, password = plain.partition(":")
    return bool(colon and user and password and plain.isprintable())


_COMMAND_PASSWORD = re.compile(
    r"""(?:\bsshpass\b[^\n]*?\s-p|\bmysql(?:dump)?\b[^\n]*?\s-p(?=\S)|\s/user:\S+)
    [ \t]?["']?(?P<password>[^\s"']{4,})""",
    re.VERBOSE,
)
_COMMAND_WORDS = frozenset({b"sshpass", b"mysql", b"mysqldump"})


def has_url_credentials(text: Text) -> bool:
    """A password in a URL (``scheme://user:password@host``) or on a command line
    (``curl -u user:password``, ``sshpass -p …``, ``mysql -p…``)."""
    # A search for one character is much faster than one for a string: those that every
    # needle below holds go first.
    for at in text.positions("://") if ":" in text.lower else ():
        match = _URL_CREDENTIALS.match(text.value, at)
        if match is not None and not _URL_PLACEHOLDER.match(match.group("password")):
            return True
    value = text.value
    matches: list[re.Match[str]] = []
    if "-" in value and (" -u" in value or "--user" in value):
        matches += _CURL_USER.finditer(value)
    if text.mentions(_COMMAND_WORDS) or ("/" in value and "/user:" in value):
        matches += _COMMAND_PASSWORD.finditer(value)
    for match in matches:
        password = match.group("password")
        if len(password) >= 4 and not is_not_a_secret(password):
            return True
    return False


_COOKIE = re.compile(r"""cookie["']?[ \t]*[:=][ \t]*(?P<pairs>[^\n]{1,2000})""", re.IGNORECASE)
_COOKIE_PAIR = re.compile(r"""(?P<name>[^=;,\s"']+)=(?P<value>[^;,\s"']+)""")
_COOKIE_SEPARATOR = re.compile(r";[ \t]*")


def has_session_cookie(text: Text) -> bool:
    """A ``Cookie`` or ``Set-Cookie`` header carrying a random value."""
    if b"cookie" not in text.words:
        return False
    for at in text.positions("cookie"):
        match = _COOKIE.match(text.value, at)
        if match is None:
            continue
        for name, cookie in _cookie_pairs(match.group("pairs")):
            if name.lower() not in _COOKIE_ATTRIBUTES and looks_random(cookie, minimum=16):
                return True
    return False


def _cookie_pairs(header: str) -> Iterator[tuple[str, str]]:
    """The ``name=value`` pairs of a cookie header, up to the first thing that is not one."""
    at = 0
    while (pair := _COOKIE_PAIR.match(header, at)) is not None:
        yield pair.group("name"), pair.group("value")
        separator = _COOKIE_SEPARATOR.match(header, pair.end())
        if separator is None:
            return
        at = separator.end()


_COOKIE_ATTRIBUTES = frozenset("path domain expires max-age samesite priority".split())

# --- one-time passwords and recovery codes ----------------------------------------------

_OTPAUTH = re.compile(r"otpauth://[^\s]*?[?&]secret=(?P<seed>[A-Za-z2-7]{16,})", re.IGNORECASE)
_MFA_WORDS = frozenset(b"totp 2fa mfa authenticator otp factor otpauth".split())
_MFA_ANCHORS = ("totp", "2fa", "mfa", "authenticator", "otp", "factor")
_BASE32_SEED = re.compile(r"(?<![A-Za-z0-9])(?:[A-Z2-7]{4}[ -]?){3,}[A-Z2-7]{4,}(?![A-Za-z0-9])")
_RECOVERY_WORDS = frozenset(b"recovery backup scratch emergency rescue".split())
_CODE_WORDS = frozenset(b"code codes key keys".split())
_CODE_AFTER = re.compile(r"[ \t]+(?:codes?|keys?)\b")
# A code stands alone: not a part of a host name, a path or an address.
_RECOVERY_CODE = re.compile(
    r"(?<![A-Za-z0-9/._:@])(?:[A-Za-z0-9]{4,6}-[A-Za-z0-9]{4,6}(?:-[A-Za-z0-9]{4,6})*"
    r"|\d{4}[ -]\d{4}|\d{8}|(?=[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{8,12})"
    r"(?![A-Za-z0-9]|[/._:@][A-Za-z0-9])"
)
# Between "recovery codes" and the first code: a few words at most, then ":" or a line break.
_CODES_START = re.compile(r"[^\n:]{0,24}(?::|\n)\s*")
_BITLOCKER = re.compile(r"(?<![0-9-])\d{6}(?:-\d{6}){7}(?![0-9-])")
_REACH = 240


def has_mfa_secret(text: Text) -> bool:
    """A TOTP seed, MFA recovery codes or a BitLocker recovery key."""
    if text.mentions(_MFA_WORDS):
        if "otpauth://" in text.lower and _OTPAUTH.search(text.value):
            return True
        for word in _MFA_ANCHORS:
            for at in text.positions(word):
                window = text.value[at : at + _REACH]
                if any(_seed_like(match.group()) for match in _BASE32_SEED.finditer(window)):
                    return True
    if text.mentions(_CODE_WORDS):
        for recovery in text.words & _RECOVERY_WORDS:
            for at in text.positions(recovery.decode()):
                named = _CODE_AFTER.match(text.lower, at + len(recovery))
                if named is None:
                    continue
                if _codes_follow(text.value, named.end()):
                    return True
    return _has_bitlocker_key(text)


def _has_bitlocker_key(text: Text) -> bool:
    return b"000000-000000" in text.shape and any(
        _bitlocker_groups(match.group()) for match in _BITLOCKER.finditer(text.value)
    )


def _seed_like(candidate: str) -> bool:
    compact = candidate.replace(" ", "").replace("-", "")
    if len(compact) < 16:
        return False
    # Grouped capitals could be shouted prose ("THIS WILL MAKE SURE"); a seed has digits.
    return compact == candidate or sum(char.isdigit() for char in compact) >= 2


def _codes_follow(value: str, at: int) -> bool:
    start = _CODES_START.match(value, at)
    if start is None:
        return False
    window = value[start.end() : start.end() + _REACH]
    codes = [m.group() for m in _RECOVERY_CODE.finditer(window) if _code_like(m.group())]
    first = _RECOVERY_CODE.match(window)
    return first is not None and (len(codes) >= 2 or len(first.group()) >= 16)


def _code_like(candidate: str) -> bool:
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}|\d{4}-\d{4}", candidate) and candidate[:2] in {"19", "20"}:
        return False
    return any(char.isdigit() for char in candidate) and not is_not_a_secret(candidate)


def _bitlocker_groups(candidate: str) -> bool:
    return all(int(group) % 11 == 0 for group in candidate.split("-"))
