"""Credentials recognised by their context (reason ``credential_shape``).

A password or a bare token has no shape of its own; what gives it away is the text around
it. This module finds:

- assignments to a credential name in code, configuration, ``.env`` files, JSON, YAML,
  XML, command lines and URL query strings (``DB_PASSWORD=…``, ``"apiKey": "…"``,
  ``--token …``, ``?access_token=…``), and the same words in running prose, in several
  languages ("the password is …", "das Passwort ist …", "密码是…");
- user names beside passwords (login pairs).

Headers, URL credentials, cookies and MFA secrets are in :mod:`.access`.

The name decides how strict the value test is (see :mod:`.looks`): after a password word
any literal of four or more characters counts, unless it is a placeholder, a mask or a
reference; after a token or key word the value must look random.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple, cast

from mymcp.plugins.mnemosyne.memory.policy.looks import (
    PUBLIC_PREFIXES,
    is_not_a_secret,
    looks_like_password,
    looks_random,
    looks_strong,
)
from mymcp.plugins.mnemosyne.memory.policy.text import Text

__all__ = [
    "Assignment",
    "assignments",
    "has_assigned_secret",
    "has_foreign_password",
    "has_login_pair",
]

# --- credential names --------------------------------------------------------------------

# Last words of a name that hold a password-like secret ("password" itself and its
# spellings, in the languages the policy knows). Any literal of 4+ characters counts.
_PASSWORD_WORDS = frozenset(
    """
    password passwd pwd pass passphrase passcode pword pswd psw pw secret
    passwort kennwort contrasena contrasenya senha wachtwoord wagwoord salasana heslo haslo
    lozinka geslo sifre jelszo parola parool parole adgangskode passord losenord motdepasse
    clave contrasinal sandi katasandi katalaluan mima passe
    """.split()
)
# Last words of a name that hold a generated token. The value must look random.
_TOKEN_WORDS = frozenset(
    """
    token apikey authkey authtoken credential credentials creds cred auth cookie sessionid
    session sessid sid signature sig sas bearer jwt pat accesskey secretkey apisecret dsn
    """.split()
)
_PRIVATE_WORDS = frozenset("privatekey privkey".split())
# Suffixes of one word ("mypassword", "csrftoken") that give it the same meaning.
_PASSWORD_SUFFIXES = ("password", "passwd", "passphrase", "secret", "pwd")
_TOKEN_SUFFIXES = ("token", "apikey", "sessionid", "sessid", "authkey", "accesskey", "secretkey")
# Words after the meaningful one that still name the secret itself.
_TRAILING = frozenset(
    "confirm confirmation again repeat plain plaintext raw value val str string literal "
    "b64 base64 hex".split()
)
# A key or token named by these is not a secret (a cache key, a page token, a public key).
_BENIGN_QUALIFIERS = frozenset(
    """
    cache primary foreign sort partition hash range routing idempotency dedup dedupe lookup
    index map object s3 bucket file i18n translation locale unique composite natural
    surrogate row column group shard public pub publishable hot shortcut keyboard music
    registry dict json yaml config setting settings header field param query redis kv
    cursor pagination page next prev previous continuation sync max min num count total
    prompt completion input output context limit stop eos bos pad unk mask sep cls special
    lexer parser syntax design css trace span correlation request message event order item
    product entity record schema version release feature flag experiment variant sku asset
    media image upload download foreign candidate join merge match type id name
    """.split()
)
# The names of the contract's base keyword rule, which needs no more than four characters.
_BASE_NAMES = frozenset(
    {
        ("api", "key"),
        ("access", "token"),
        ("refresh", "token"),
        ("client", "secret"),
    }
)
_BASE_GLUED = frozenset({"apikey", "accesstoken", "refreshtoken", "clientsecret"})

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NAME_PARTS = re.compile(r"[_.\-]+")


def _parts(name: str) -> list[str]:
    if name.isalpha() and name.islower():
        return [name]  # the common case: "password", "token"
    if not name.islower():
        name = _CAMEL.sub("_", name)  # without a capital there is no case boundary to mark
    words = [word.lower() for word in _NAME_PARTS.split(name) if word]
    words = [word.rstrip("0123456789") for word in words]
    words = [word for word in words if word]
    while len(words) > 1 and words[-1] in _TRAILING:
        words.pop()
    return words


def _kind(parts: list[str], *, query: bool, spaced: bool) -> str | None:
    """``password``, ``token``, ``private`` or None for a name split into words."""
    if not parts:
        return None
    last = parts[-1]
    qualifier = parts[-2] if len(parts) > 1 else ""
    if not spaced and ((qualifier, last) in _BASE_NAMES or last in _BASE_GLUED):
        return "password"
    if last in _PRIVATE_WORDS or (last == "key" and qualifier in {"private", "priv"}):
        return "private"
    if last in _PASSWORD_WORDS:
        return "password"
    if qualifier in _BENIGN_QUALIFIERS:
        return None
    if last in _TOKEN_WORDS or (last == "id" and qualifier in {"session", "sess"}):
        return "token"
    if last == "key":
        return "token" if qualifier or query else None
    if last.endswith(_PASSWORD_SUFFIXES) and last not in {"bypass"}:
        return "password"
    if last.endswith(_TOKEN_SUFFIXES):
        return "token"
    return None


# --- assignments -------------------------------------------------------------------------

# Words that can be (the end of) a credential name; a text that has none of them, and no
# glued form such as "dbpassword" or "csrftoken", has no assignment to look for.
_NAME_WORDS = frozenset(
    word.encode()
    for word in (
        *_PASSWORD_WORDS, *_TOKEN_WORDS, *_PRIVATE_WORDS, *_BASE_GLUED,
        "key", "passe", "passwort", "refreshtoken", "accesstoken", "sessiontoken",
        "jsessionid", "phpsessid", "csrftoken", "apitoken", "bottoken", "secrets",
    )
)  # fmt: skip
_GLUED_STEMS = ("password", "passwd", "token", "secret", "key")
# After the name: an optional closing quote or bracket, then the operator.
_OPERATOR = re.compile(
    r"""["'`\]]?[ \t]*(?P<op>:=|=>|===?|!=|->|<-|=|:|：)?[ \t]*""",
)
# Prose between a password word and its value: "is", "ist", "est", "es", "é", "è", "är"…
# A closing bracket ends the phrase that names the password ("(password on the board)").
_LINKER = re.compile(
    r"""
    (?:[ \t]+(?:for|of|to|on|at|in|für|pour|de|du|des|del|della|da|do|das|dos|van|von|voor|
       för|til|af|dla|pro|za)[ \t]+(?:[^\n.!?:=)\]]|\.(?=\S)){1,40}?)?
    [ \t]*(?P<op>:|=|—|–|->|\bis\b|\bwas\b|\bare\b|\bist\b|\blautet\b|\bwar\b|\best\b|\bes\b
       |\bé\b|\bè\b|\bär\b|\ber\b|\bon\b|\bje\b|\bto\b|\bjest\b|\beste\b|\badalah\b|\bialah\b)
    (?:[ \t]+(?:now|still|set[ \t]+to|changed[ \t]+to|just|simply))?[ \t]*
    """,
    re.VERBOSE | re.IGNORECASE,
)
_QUOTES = {'"': '"', "'": "'", "`": "`", "\u201c": "\u201d", "\u2018": "\u2019", "\u00ab": "\u00bb"}
_BARE = re.compile(r"""[^\s"'`,;&<>]+""")
_K8S_VALUE = re.compile(r"""["']?[ \t]*\n[ \t]*-?[ \t]*value:[ \t]*""")


class Assignment(NamedTuple):
    """A value found after a credential name.

    ``mode`` tells how the two are joined: ``code`` (``=``, ``=>``, a command-line flag, an
    XML element), ``colon`` (``:``, as in YAML and in notes), ``prose`` ("is", "was", "ist"…)
    or ``bare`` (nothing but a space, as in "token 3f9a…").
    """

    kind: str
    name: str
    value: str
    quoted: bool
    mode: str
    continues: bool


def assignments(text: Text) -> list[Assignment]:
    """Every credential name in ``text`` followed by a value (computed once per text)."""
    cached = text.cache.get("assignments")
    if cached is None:
        cached = list(_find_assignments(text))
        text.cache["assignments"] = cached
    return cast(list[Assignment], cached)


def _find_assignments(text: Text) -> Iterator[Assignment]:
    # A stem that does not occur costs one failed search either way.
    stems = {word.decode() for word in text.words & _NAME_WORDS}.union(_GLUED_STEMS)
    lower, word, value = text.lower, text.word, text.value
    size = len(value)
    seen: set[int] = set()
    for stem in stems:
        at = lower.find(stem)
        while at >= 0:
            start = word.rfind(b" ", 0, at) + 1
            if start not in seen:
                seen.add(start)
                # The name ends where the token does, less its trailing dots and dashes.
                end = word.find(b" ", start)
                end = size if end < 0 else end
                while end > start and value[end - 1] in ".-":
                    end -= 1
                if _MAY_FOLLOW.match(value, end) is not None:
                    found = _assignment_at(text, start, end)
                    if found is not None:
                        yield found
            at = lower.find(stem, at + len(stem))


def _name_span(text: Text, start: int, end: int) -> tuple[int, int]:
    """The name in the token ``start:end`` whose trailing dots and dashes are already off."""
    while start < end and text.value[start] in "-.":
        start += 1
    return start, end


_OPERATOR_START = frozenset("=:\"'`]>\uff1a-\u2014\u2013!<\u201c\u2018\u00ab")
_LINKER_WORDS = frozenset(
    """
    is was are ist lautet war est es é è är er on je to jest este adalah ialah for of at in
    für pour de du des del della da do das dos van von voor för til af dla pro za
    """.split()
)


# Everything _worth_reading accepts, and a little more, in one anchored match: an operator
# character, a line break, or blanks and then an operator, a quote, a word of 12 or more
# characters, a word of 8 or more with a character that is not an ASCII letter, or a
# linker word (in any case). A word ends at ASCII white space, as on the shape.
_BLANK = "\t\n\v\f\r "
_MAY_FOLLOW = re.compile(
    "["
    + re.escape("".join(sorted(_OPERATOR_START)))
    + "]|\n|[ \t]+(?:["
    + re.escape("".join(sorted(_OPERATOR_START | set(_QUOTES))))
    + f"]|[^{_BLANK}]{{12}}|(?=[^{_BLANK}]{{8}})[^{_BLANK}]*?[^A-Za-z{_BLANK}]|(?i:"
    + "|".join(sorted(map(re.escape, _LINKER_WORDS), key=len, reverse=True))
    + f")(?![^{_BLANK}]))"
)


def _worth_reading(text: Text, end: int) -> bool:
    """A cheap look past the name: could an operator, a linker or a value follow?"""
    value = text.value
    if end >= len(value):
        return False
    char = value[end]
    if char in _OPERATOR_START:
        return True
    if char == "\n":
        return "value:" in value[end : end + 48]
    if char not in " \t":
        return False
    after = end + 1
    while after < len(value) and value[after] in " \t":
        after += 1
    if after >= len(value):
        return False
    if value[after] in _OPERATOR_START or value[after] in _QUOTES:
        return True
    stop = text.shape.find(b" ", after)
    stop = len(value) if stop < 0 else stop
    word = text.lower[after:stop]
    return stop - after >= 12 or word in _LINKER_WORDS or (stop - after >= 8 and not word.isalpha())


def _assignment_at(text: Text, raw_start: int, end: int) -> Assignment | None:
    value = text.value
    start, end = _name_span(text, raw_start, end)
    if start >= end or not _worth_reading(text, end):
        return None
    before = value[start - 1] if start else ""
    if before in _INSIDE_A_REFERENCE or (before == ":" and value.startswith(":", end)):
        return None  # ${DB_PASSWORD:-x}, %TOKEN%, arn:…:secret:name
    query = before in "?&"
    parts = _parts(value[start:end])
    spaced = False
    if len(parts) == 1 and parts[0] in {"key", "token", "secret"} and not query:
        qualifier = _PREVIOUS_WORD.search(value, max(0, start - 24), start)
        if qualifier is not None:
            word = qualifier.group(1).lower()
            parts, spaced = ([word, "password"] if word in _NETWORK_WORDS else [word, *parts]), True
    kind = _kind(parts, query=query, spaced=spaced)
    if kind is None:
        return None
    flag = value[raw_start:start].endswith("--")
    if flag and parts[-1] == "key" and (len(parts) < 2 or parts[-2] not in _FLAG_KEY_QUALIFIERS):
        return None
    if parts == ["pass"] and value[:start].rstrip().endswith(":"):
        return None  # Python's "…: pass"
    single = spaced or len(parts) == 1
    return _value_after(text, end, kind, parts[-1], flag=flag, xml=before == "<", single=single)


# A name right after these is part of a reference or a path: ${DB_PASSWORD}, %TOKEN%,
# /oauth/token, C:\\keys\\secret.
_INSIDE_A_REFERENCE = frozenset("{$%/\\#")
# Keys of a command-line flag (--api-key …) that name a credential; --generate-key does not.
_FLAG_KEY_QUALIFIERS = frozenset(
    "api access secret private auth client app consumer account shared service master signing "
    "encryption license licence subscription admin deploy webhook bot user personal storage "
    "sas jwt hmac session root server merchant functions maps".split()
)
_PREVIOUS_WORD = re.compile(r"([A-Za-z][A-Za-z-]*)[ \t]+$")
# "the Wi-Fi key is …": a network key is a password.
_NETWORK_WORDS = frozenset({"wifi", "wi-fi", "wlan", "wpa", "wpa2", "wpa3", "psk", "network"})
_CONTINUES = re.compile(r"[ \t]+[a-z]")


def _join(text: Text, end: int, *, flag: bool, xml: bool) -> tuple[str, int]:
    """How the value is joined to the name that ends at ``end``, and where it starts."""
    value = text.value
    if xml and value.startswith(">", end):
        return "code", end + 1
    operator = _OPERATOR.match(value, end)
    op = operator.group("op") if operator else None
    if op is not None and operator is not None:
        return ("colon" if op in {":", "\uff1a"} else "code"), operator.end()
    linked = _LINKER.match(value, end)
    if linked is not None:
        return "prose", linked.end()
    k8s = _K8S_VALUE.match(value, end)
    if k8s is not None:
        return "code", k8s.end()
    return ("code" if flag else "bare"), (operator.end() if operator else end)


def _value_after(
    text: Text, end: int, kind: str, last: str, *, flag: bool, xml: bool, single: bool
) -> Assignment | None:
    mode, at = _join(text, end, flag=flag, xml=xml)
    literal = _literal(text.value, at)
    if literal is None:
        return None
    found, quoted = literal
    if mode == "bare" and not single:
        return None  # "xoxb-your-token 3f9a…": only a plain word is followed by its value
    if mode == "bare" and "=" in found.rstrip("="):
        return None  # "per token trace_id=9b79…": the word after is an assignment of its own
    if mode == "bare" and kind == "password" and not quoted and not _bare_password(last, found):
        return None
    continues = (
        mode == "colon"
        and found.isalpha()
        and found.islower()
        and _CONTINUES.match(text.value, at + len(found)) is not None
    )
    return Assignment(kind, last, found, quoted, mode, continues)


# "password Tr0ub4dor&3": without any operator only a full password word and a short,
# strong value count ("pass" is also Python's statement, "X-API-Key" a header name).
_BARE_NAMES = frozenset(
    "password passwd passphrase pass passwort kennwort wachtwoord senha".split()
)


def _bare_password(last: str, found: str) -> bool:
    if last not in _BARE_NAMES or len(found) > 32 or any(char in found for char in ":/.()?=&"):
        return False
    return looks_strong(found)


def _literal(value: str, at: int) -> tuple[str, bool] | None:
    if at >= len(value):
        return None
    close = _QUOTES.get(value[at])
    if close is not None:
        stop = value.find(close, at + 1, at + 302)
        if stop < 0 or "\n" in value[at + 1 : stop]:
            return None
        return value[at + 1 : stop], True
    match = _BARE.match(value, at)
    if match is None:
        return None
    return match.group().rstrip(".,:;!?)]}"), False


def _is_secret(assignment: Assignment) -> bool:
    value = assignment.value
    if assignment.kind == "password":
        if assignment.continues:
            return False
        if assignment.quoted and assignment.mode != "prose":
            return len(value) >= 2 and not is_not_a_secret(value, name=assignment.name)
        if is_not_a_secret(value, name=assignment.name):
            return False
        return looks_like_password(
            value, quoted=assignment.quoted, strict=assignment.mode in {"prose", "bare"}
        )
    if value.startswith(PUBLIC_PREFIXES):
        return False  # "token pk_test_…": a key made to be published, named as a token
    if assignment.kind == "private":
        return looks_random(value, minimum=32)
    if assignment.mode in {"prose", "bare"}:
        # "token eyJ…": a compact token in prose is reported as one.
        return not value.startswith("eyJ") and looks_random(value, minimum=16)
    return looks_random(value, minimum=12)


def has_assigned_secret(text: Text) -> bool:
    """A literal secret assigned to, or stated after, a credential name."""
    return any(_is_secret(assignment) for assignment in assignments(text))


# --- passwords in other scripts ----------------------------------------------------------

_FOREIGN_WORDS = (
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
    \s*["'`「『“«]?(?P<value>[!-~]{4,64})""",
    re.VERBOSE | re.IGNORECASE,
)


def _from_its_first_foreign_character(word: str) -> str:
    """A pattern for ``word`` that opens with its first character outside ASCII.

    The letters before that character are checked behind it, so a pattern made of these
    lets the engine skip every character that opens none of them, ASCII included.
    """
    at = next(index for index, char in enumerate(word) if not char.isascii())
    behind = f"(?<={re.escape(word[: at + 1])})" if at else ""
    return re.escape(word[at]) + behind + re.escape(word[at + 1 :])


# Matches where one of the words occurs (in the lowercase view).
_ANY_FOREIGN_WORD = re.compile("|".join(map(_from_its_first_foreign_character, _FOREIGN_WORDS)))
# The first character outside ASCII of each word: one of them stands in any occurrence,
# where the value has a character outside ASCII too.
_FOREIGN_OPENERS = frozenset(
    next(char for char in word if not char.isascii()) for word in _FOREIGN_WORDS
)


def _may_hold_a_foreign_word(text: Text) -> bool:
    positions = text.foreign()
    if positions is not None:
        lower = text.lower
        if not any(lower[at] in _FOREIGN_OPENERS for at in positions):
            return False
    return _ANY_FOREIGN_WORD.search(text.lower) is not None


def has_foreign_password(text: Text) -> bool:
    """A password stated in a language written outside ASCII ("пароль: …", "密码是…")."""
    if text.value.isascii() or not _may_hold_a_foreign_word(text):
        return False
    for word in _FOREIGN_WORDS:
        for at in text.positions(word):
            match = _FOREIGN_VALUE.match(text.value, at + len(word))
            if match is None:
                continue
            value = match.group("value").rstrip("\"'`」』”»。.,")
            if looks_like_password(value, quoted=False, strict=True):
                return True
    return False


# --- "login: user / password" ------------------------------------------------------------

_LOGIN_WORDS = frozenset(b"login credentials credential creds signin sign".split())
# The words between "login" and its colon stay inside one sentence, and after such words
# the colon is a label's, with a blank after it (not "doi:10.1000/x" or "2001:db8::1").
_LOGIN_PAIR = re.compile(
    r"(?:log[ -]?in|credentials?|creds|sign[ -]?in)\b"
    r"(?:[:=][ \t]*|(?:(?![.!?]\s)[^\n:=]){1,30}[:=][ \t]+)"
    r"(?P<user>[^\s/:]{1,64})[ \t]*[/:][ \t]*(?P<password>\S{4,64})",
    re.IGNORECASE,
)
# "… Xy7!k2 is the admin password": the value stands before the word.
_NAMED_BEFORE = re.compile(
    r"""(?:^|\s)["'`]?(?P<value>[^\s"'`]{6,64})["'`]?[ \t]+(?:is|was)[ \t]+(?:the|my|our|your)
    [ \t]+(?:[\w-]+[ \t]+)?$""",
    re.IGNORECASE | re.VERBOSE,
)
_PASSWORD_NOUNS = ("password", "passphrase", "passcode")
_WORD_ENDS = re.compile(r"s?(?![\w-])")


def has_login_pair(text: Text) -> bool:
    """A user name and password written as a pair after "login" or "credentials", or a
    password named after it ("Xy7!… is the admin password")."""
    for word in text.words & _LOGIN_WORDS:
        for at in text.positions(word.decode()):
            match = _LOGIN_PAIR.match(text.value, at)
            if match is None or is_not_a_secret(match.group("user")):
                continue
            password = match.group("password").rstrip(".,;)")
            if "/" not in password and looks_like_password(password, quoted=False, strict=True):
                return True
    for noun in _PASSWORD_NOUNS:
        if noun.encode() not in text.words:
            continue
        for at in text.positions(noun):
            before = text.lower[max(0, at - 40) : at]
            if " is " not in before and " was " not in before:
                continue
            match = _NAMED_BEFORE.search(text.value, max(0, at - 120), at)
            if (
                match
                and looks_strong(match.group("value"))
                and _WORD_ENDS.match(text.value, at + len(noun))
            ):
                return True
    return False
