"""Credentials given away by their context: the finders and validators of their rules.

Headers and bearer tokens, passwords in URLs, on command lines, in ``.pgpass`` and
``.netrc`` lines and as arguments of SDK calls, passwords said in prose (also in other
languages and scripts), session cookies, one-time-password seeds and recovery codes. Each
finder starts from a keyword the table's prefilter found, and the value tests of
:mod:`.values` decide whether what follows is a secret or a placeholder.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator

from mymcp.plugins.mnemosyne.memory.policy import values
from mymcp.plugins.mnemosyne.memory.policy.engine import Finder, Text

Match = re.Match[str]


def matches(pattern: re.Pattern[str], *anchors: str, inside: bool = False) -> Finder:
    """A finder: ``pattern`` matched at every place where one of ``anchors`` occurs as a word
    (or anywhere, ``inside`` words too) of the lowercase view."""

    def find(text: Text) -> Iterator[Match]:
        spots = (
            (at for anchor in anchors for at in text.at(anchor)) if inside else text.spots(anchors)
        )
        for at in spots:
            if (match := pattern.match(text.value, at)) is not None:
                yield match

    return find


def password_value(text: Text, match: Match) -> bool:
    """The group ``password`` reads like a password (not a placeholder or a reference)."""
    password = match.group("password").rstrip(".,;)")
    return (
        values.looks_like_password(password, quoted=False, strict=False) and "://" not in password
    )


def login_password(text: Text, match: Match) -> bool:
    """The password of a login pair, after a real user name: anything but a word; on the
    next line (which could be anything) a digit or a symbol too."""
    password = match.group("password").rstrip(".,;:)\"'")
    user = match.groupdict().get("user")
    if user and values.is_placeholder(user.strip("\"'"), quoted=True):
        return False
    if not values.looks_like_password(password, quoted=False, strict=True):
        return False
    digit = any(char.isdigit() for char in password)
    return digit or match.groupdict().get("sep") != "\n" or values.prose_password(password)


def random_value(text: Text, match: Match) -> bool:
    """The group ``token`` looks random and is not a compact token (reported as one)."""
    token = match.group("token")
    return values.looks_random(token, minimum=12) and not values.compact_token(token)


# --- headers ------------------------------------------------------------------------------


# The contract's base rule ("Authorization: Basic|Bearer …"), and other schemes.
AUTHORIZATION = re.compile(
    r"""authorization["']?\s*[:=]\s*["']?(?:(?P<known>basic|bearer)\s+["']?(?P<credential>[^\s"']+)
    |(?P<scheme>token|bot|apikey|api-key|key|sso-key|ssws|digest|hmac|negotiate|ntlm
    |aws4-hmac-sha256|gitlab-ci-token|splunk|geniekey|klaviyo-api-key)\s+(?P<other>[^\s"']+))""",
    re.IGNORECASE | re.VERBOSE,
)
BEARER = re.compile(r"bearer\s+(?P<token>[A-Za-z0-9\-._~+/]+=*)", re.IGNORECASE)
BASIC = re.compile(r"""basic\s+["']?(?P<encoded>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])""", re.I)
URL_CREDENTIALS = re.compile(r"://(?P<user>[^/\s:@]*):(?P<password>[^/\s@]+)@")
NETRC = re.compile(r"(?:machine\s+\S+|default)\s+login\s+\S+\s+password\s+(?P<password>\S+)")


def authorization(text: Text, match: Match) -> bool:
    """The contract's base rule ("Authorization: Basic|Bearer …") less placeholders; other
    schemes when the credential looks random."""
    if match.group("known"):
        return not values.is_placeholder(match.group("credential"), words=False)
    return values.looks_random(match.group("other"), minimum=8)


def basic_credentials(text: Text, match: Match) -> bool:
    """``Basic`` followed by the Base64 of ``user:password``."""
    encoded = match.group("encoded")
    try:
        plain = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    user, colon, password = plain.partition(":")
    return bool(colon and user and password and plain.isprintable())


# --- URLs and files -----------------------------------------------------------------------


def url_password(text: Text, match: Match) -> bool:
    """``scheme://user:password@`` with a password that no placeholder stands for."""
    return not values.is_placeholder(match.group("password"), words=False)


# --- command lines ------------------------------------------------------------------------

_PLAIN = r"""[^\s'"]"""  # a character of an unquoted value
_USER_PAIR = rf"""["']?[^\s:'"]+:(?P<password>{_PLAIN}+)"""
_FLAG_VALUE = rf"""[ \t]*["']?(?P<password>{_PLAIN}{{4,}})"""
# The command's name -> what gives the password away on its line.
COMMANDS: dict[str, str] = {
    "curl": rf"-(?:u|-user)[ =]{_USER_PAIR}",
    "http": rf"-(?:a|-auth)[ =]{_USER_PAIR}",
    "https": rf"-(?:a|-auth)[ =]{_USER_PAIR}",
    "ab": rf"-A[ =]{_USER_PAIR}",
    "wget": rf"--(?:http-)?password={_FLAG_VALUE}",
    "mysql": rf"""(?:-p|--password=["']?)(?P<password>{_PLAIN}{{4,}})""",
    "mysqldump": rf"""(?:-p|--password=["']?)(?P<password>{_PLAIN}{{4,}})""",
    "sshpass": rf"-p{_FLAG_VALUE}",
    "login": rf"(?:-p|--password)[ =]{_FLAG_VALUE}",
    "cli": rf"-a{_FLAG_VALUE}",
    "sqlcmd": rf"-P{_FLAG_VALUE}",
    "smbclient": rf"-U[ \t]+[^\s%]+%(?P<password>{_PLAIN}+)",
    "xfreerdp": rf"/p:(?P<password>{_PLAIN}+)",
    "use": r"/user:\S+[ \t]+(?P<password>[^\s/'\"]+)",
    "openssl": r"-pass(?:in|out)?[ \t]+pass:(?P<password>\S+)",
    "htpasswd": r"-[cBmsd]*b[cBmsd]*[ \t]+\S+[ \t]+\S+[ \t]+(?P<password>\S+)",
    "ldapsearch": rf"-w{_FLAG_VALUE}",
    "rclone": r"\bpass[ \t]+(?P<password>\S+)",
}
_LINE = 300  # the flags of one command stand on its line, within this many characters
_FLAGS = {name: re.compile(rf"[ \t](?:{flag})") for name, flag in COMMANDS.items()}


def command_lines(text: Text) -> Iterator[Match]:
    """The password flags on the line of each command the text names."""
    value = text.value
    for name, flags in _FLAGS.items():
        for at in text.spots((name,)):
            if value[at + len(name) : at + len(name) + 1] != " ":
                continue  # "HTTP/1.1" names no command
            end = value.find("\n", at, at + _LINE)
            if (match := flags.search(value, at, at + _LINE if end < 0 else end)) is not None:
                yield match


# --- SDK calls ----------------------------------------------------------------------------

# A call whose name says it authenticates, or a client, given two string literals: the
# second is a password (an auth tuple, a login) or a token (a client's secret).
_POSITIONAL = re.compile(
    r"""(?P<call>[\w.]*?(?P<what>client|auth|login|credentials?|bind_s|bind|connect|twilio)\w*)
    \s*(?:=\s*)?\(\s*(?:\w+\s*=\s*)?(?P<q>["'])(?P<user>[^"'\n]{1,128})(?P=q)\s*,\s*
    (?P<r>["'])(?P<password>[^"'\n]{4,200})(?P=r)""",
    re.VERBOSE | re.IGNORECASE,
)


POSITIONAL_WORDS = (
    "client", "auth", "login", "credential", "credentials", "bind", "connect", "twilio",
    "httpbasicauth", "httpdigestauth", "twiliorestclient", "basicauth", "plaincredentials",
)  # fmt: skip


def positional(text: Text) -> Iterator[Match]:
    for at in text.spots(POSITIONAL_WORDS):
        start = at
        while start and (text.value[start - 1].isalnum() or text.value[start - 1] in "_."):
            start -= 1
        if (match := _POSITIONAL.match(text.value, start)) is not None:
            yield match


def positional_secret(text: Text, match: Match) -> bool:
    value = match.group("password")
    if match.group("what").lower() in {"client", "connect", "twilio"}:
        return values.looks_random(value, minimum=16)
    literal = values.looks_like_password(value, quoted=True, strict=True)
    return literal and not values.is_placeholder(value)


# --- prose --------------------------------------------------------------------------------

LOGIN_WORDS = ("login", "log", "credentials", "credential", "creds", "signin", "sign")
# "Login for the router: admin / …", "credentials:\nroot\n…": a user name, then a password.
LOGIN_PAIR = re.compile(
    r"""(?:log[ -]?in|credentials?|creds|sign[ -]?in)\b(?:[:=]\s*|(?:(?![.!?]\s)[^\n:=]){1,30}
    [:=][ \t]+)(?P<user>[^\s/:]{1,64})[ \t]*(?P<sep>[/:]|\n)[ \t]*(?P<password>\S{4,64})""",
    re.IGNORECASE | re.VERBOSE,
)
# "user bob, pass …": a user name and the word that names the password.
USER_PASS = re.compile(
    r"user(?:name)?[ \t]*[:=]?[ \t]*[^\s,;]{1,64}[ \t]*[,;][ \t]*(?:pass(?:word)?|pw|pwd)[ \t]*"
    r"[:=]?[ \t]*(?P<password>\S{4,64})",
    re.IGNORECASE,
)
SAID_WORDS = ("use", "unlock", "decrypt", "open", "log", "sign", "type", "enter", "new")
# A password said without its name: "use … to unlock", "unlock it with …", "sign in as bob
# with …", "type … when it asks", "new one: …".
SAID_PASSWORD = re.compile(
    r"""\buse\s+["']?(?P<a>\S+?)["']?\s+(?:to|for)\s+(?:unlock|log\s*in|login|sign\s*in|access
        |decrypt|open|connect|get\s+in)
    |\b(?:unlock|decrypt|open)\s+(?:it\s+|this\s+|that\s+|(?:the|my)\s+\w+\s+)?(?:with|using)
        \s+["']?(?P<b>\S+)
    |\b(?:log|sign)\s*(?:in|on)(?:\s+(?:as|to)\s+\S+)?\s+(?:with|using)\s+(?P<user>[^\s:]+:)?["']?
        (?P<c>\S+)
    |\b(?:type|enter)\s+["']?(?P<d>\S+?)["']?\s+(?:when|at|as|if|in|to)\b
    |\bnew\s+(?:one|password|passphrase)\s*(?::|is)\s*["']?(?P<e>\S+)""",
    re.IGNORECASE | re.VERBOSE,
)


def said_password(text: Text, match: Match) -> bool:
    """Unnamed ("use … to unlock") it must not read as a product name; named by a user
    ("log in with bob:…") or as the new password ("new one: …") anything but a word counts."""
    said = next(group for group in match.group("a", "b", "c", "d", "e") if group).rstrip(".,;:)\"'")
    if match.group("user") or match.group("e"):
        return values.looks_like_password(said, quoted=False, strict=True)
    return values.prose_password(said)


# --- passwords in other scripts -----------------------------------------------------------

FOREIGN_WORDS = (
    "пароль", "парола", "лозинка", "密码", "密碼", "口令", "パスワード", "暗証番号", "비밀번호",
    "암호", "كلمة المرور", "كلمة السر", "رمز عبور", "رمز المرور", "סיסמ", "पासवर्ड", "รหัสผ่าน",
    "mật khẩu", "hasło", "şifre", "jelszó", "lösenord", "contraseña", "κωδικός", "parolă",
    "slaptažodis", "lykilorð", "salasõna",
)  # fmt: skip
# After the word: a short gap, a linker ("：", "是", "는", "—", "je"…) and an ASCII value.
_FOREIGN_VALUE = re.compile(
    r"""[^\n。.!?！？]{0,24}?
    (?:[:：=—–-]|\s(?:to|je|jest|este|es|är|er|ist|est|είναι|là|adalah|это)\s|是|为|為|は|는|은|
    هي|هو|היא|הוא|है|คือ)
    \s*["'`「『“«]?(?P<password>[!-~]{4,64})""",
    re.VERBOSE | re.IGNORECASE,
)


def foreign_passwords(text: Text) -> Iterator[str]:
    for word in FOREIGN_WORDS:
        for at in text.at(word):
            if (match := _FOREIGN_VALUE.match(text.value, at + len(word))) is not None:
                yield match.group("password").rstrip("\"'`」』”»。.,")


def foreign_password(text: Text, value: str) -> bool:
    return values.looks_like_password(value, quoted=False, strict=True)


# --- cookies ------------------------------------------------------------------------------

_COOKIE = re.compile(r"""cookie["']?[ \t]*[:=][ \t]*(?P<pairs>[^\n]{1,2000})""", re.IGNORECASE)
_COOKIE_PAIR = re.compile(r"""[ \t]*(?P<name>[^=;,\s"']+)=(?P<value>[^;,\s"']+)[ \t]*;?""")
_COOKIE_ATTRIBUTES = frozenset("path domain expires max-age samesite priority".split())


def session_cookies(text: Text) -> Iterator[str]:
    """The values of a ``Cookie`` or ``Set-Cookie`` header, up to the first non-pair."""
    for at in text.at("cookie"):
        header = _COOKIE.match(text.value, at)
        if header is None:
            continue
        pairs, position = header.group("pairs"), 0
        while (pair := _COOKIE_PAIR.match(pairs, position)) is not None and pair.end() > position:
            if pair.group("name").lower() not in _COOKIE_ATTRIBUTES:
                yield pair.group("value")
            position = pair.end()


def cookie_value(text: Text, value: str) -> bool:
    return values.looks_random(value, minimum=16) and not values.compact_token(value)


# --- one-time passwords and recovery codes ------------------------------------------------

_BASE32_SEED = re.compile(
    r"(?<![A-Za-z0-9])(?:(?:[A-Z2-7]{4}[ -]?){3,}[A-Z2-7]{4,}|(?:[a-z2-7]{4}[ -]?){3,}[a-z2-7]{4,})"
    r"(?![A-Za-z0-9])"
)
_REACH = 240


TOTP_WORDS = ("totp", "2fa", "mfa", "authenticator", "otp", "factor")


def totp_seeds(text: Text) -> Iterator[str]:
    """Base32 runs (grouped by four or not, in either case) near a word that names them."""
    for at in text.spots(TOTP_WORDS):
        yield from _BASE32_SEED.findall(text.value, at, at + _REACH)


def totp_seed(text: Text, candidate: str) -> bool:
    compact = candidate.replace(" ", "").replace("-", "")
    # Grouped letters could be shouted prose ("THIS WILL MAKE SURE"), and a long word in
    # lower case is a word ("googleusercontent"); a seed has digits.
    unbroken = compact == candidate and candidate.isupper()
    return len(compact) >= 16 and (unbroken or sum(c.isdigit() for c in compact) >= 2)


# A code stands alone: not a part of a host name, a path or an address.
_RECOVERY_CODE = re.compile(
    r"(?<![A-Za-z0-9/._:@])(?:[A-Za-z0-9]{4,6}-[A-Za-z0-9]{4,6}(?:-[A-Za-z0-9]{4,6})*"
    r"|\d{4}[ -]\d{4}|\d{8}|(?=[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{8,12})"
    r"(?![A-Za-z0-9]|[/._:@][A-Za-z0-9])"
)
# "recovery codes", then a few words at most, then ":", a line break or a blank.
RECOVERY_WORDS = ("recovery", "backup", "scratch", "emergency", "rescue")
_CODES = re.compile(
    "(?:" + "|".join(RECOVERY_WORDS) + r")[ \t]+(?:codes?|keys?)\b(?:[^\n:]{0,24}:|[ \t]*\n)?\s*"
)
_DATE = re.compile(r"(?:19|20)\d\d-(?:\d\d-\d\d|\d{4})")


def recovery_codes(text: Text) -> Iterator[list[str]]:
    for at in text.spots(RECOVERY_WORDS):
        if (start := _CODES.match(text.lower, at)) is not None:
            window = text.value[start.end() : start.end() + _REACH]
            first = _RECOVERY_CODE.match(window)
            if first is not None:
                yield [
                    first.group(),
                    *(m.group() for m in _RECOVERY_CODE.finditer(window, first.end())),
                ]


def codes(text: Text, found: list[str]) -> bool:
    """Two codes or more with digits (not dates), or one of sixteen characters or more."""
    real = [code for code in found if any(c.isdigit() for c in code) and not _DATE.fullmatch(code)]
    return bool(real) and real[0] == found[0] and (len(real) >= 2 or len(found[0]) >= 16)


def bitlocker(text: Text, match: Match) -> bool:
    return all(int(group) % 11 == 0 for group in match.group().split("-"))


_NAMED_BEFORE = re.compile(
    r"""(?P<password>[^\s"'`]{6,64})["'`]?[ \t]+(?:is|was)[ \t]+(?:the|my|our|your)[ \t]+
    (?:[\w-]+[ \t]+)?(?:password|passphrase|passcode)s?(?![\w-])""",
    re.IGNORECASE | re.VERBOSE,
)


PASSWORD_NOUNS = ("password", "passphrase", "passcode")


def named_before(text: Text) -> Iterator[str]:
    """ "Xy7!… is the admin password": the value before the word that names it."""
    for at in text.spots(PASSWORD_NOUNS):
        start = max(0, at - 100)
        if " is " in text.lower[start:at] or " was " in text.lower[start:at]:
            for match in _NAMED_BEFORE.finditer(text.value, start, at + 12):
                yield match.group("password")


_COLONS = re.compile(rb":[^ \n:]*:[^ \n:]*:[^ \n:]*:")
_PGPASS = re.compile(
    r"(?:[\w.-]*[A-Za-z][\w.-]*|\*|[\d.]+):(?:\d{1,5}|\*):(?:[\w.-]+|\*):(?:[\w.@-]+|\*)"
    r":(?P<password>[^\s:]+)(?=\s|$)"
)


def pgpass_lines(text: Text) -> Iterator[Match]:
    """``host:port:database:user:password`` as a ``.pgpass`` file holds it."""
    shape = text.shape
    for colons in _COLONS.finditer(shape):
        start = max(shape.rfind(b" ", 0, colons.start()), shape.rfind(b"\n", 0, colons.start()))
        if (match := _PGPASS.match(text.value, start + 1)) is not None:
            yield match
