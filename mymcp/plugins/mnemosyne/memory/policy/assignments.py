"""Values given to a credential name, in code, configuration, command lines and prose.

:func:`assignments` finds every credential name of a text (``DB_PASSWORD``, ``apiKey``,
``--token``, ``?access_token``, "the password") and the literal that follows it, and says
how the two are joined:

- ``code``: ``=``, ``:=``, ``=>``, ``?=``, a command-line flag, an XML element or attribute,
  ``define("NAME", "…")``, ``setPassword("…")``, a ``setx``/``ENV`` directive;
- ``colon``: ``:`` as in YAML and in notes;
- ``prose``: "is", "was", "ist", "lautet", "est"… ("the wifi password is …");
- ``bare``: nothing but a space ("token 3f9a…").

:func:`is_secret` then judges the literal by the name: after a password word any literal
of four or more characters counts unless it is a placeholder, a mask or a reference; after
a token or key word it must look random; a compact token is left to its own rule.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from mymcp.plugins.mnemosyne.memory.policy import values
from mymcp.plugins.mnemosyne.memory.policy.engine import Text
from mymcp.plugins.mnemosyne.memory.policy.words import (
    NOT_SECRET_QUALIFIERS,
    PASSWORD_WORDS,
    PRIVATE_WORDS,
    TOKEN_WORDS,
    TRAILING,
)

# Stems searched inside words too: "mypassword", "AdminPass", "dbPwd", "csrftoken".
_GLUED = ("pass", "pwd", "token", "secret", "key")
_NAME_WORDS = frozenset(
    word.encode()
    for word in (*PASSWORD_WORDS, *TOKEN_WORDS, *PRIVATE_WORDS, "key", "jsessionid", "phpsessid")
)
KEYWORDS = (*sorted(word.decode() for word in _NAME_WORDS), *("*" + stem for stem in _GLUED))

_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SPLIT = re.compile(r"[_.\-]+")
_PASSWORD_SUFFIXES = ("password", "passwd", "passphrase", "secret", "pwd", "pass")
_TOKEN_SUFFIXES = ("token", "apikey", "sessionid", "sessid", "authkey", "accesskey", "secretkey")
_SESSION_QUALIFIERS = frozenset({"session", "sess", "connect", "auth", ""})


class Assignment(NamedTuple):
    """A literal found after a credential name (see the module docstring)."""

    kind: str  # "password", "token" or "private"
    name: str  # the last word of the name
    value: str
    quoted: bool
    mode: str  # "code", "colon", "prose", "bare" or "call"
    continues: bool  # a word in lower case that a sentence goes on after


def _parts(name: str) -> list[str]:
    if not (name.isalpha() and name.islower()):
        name = name if name.islower() else _CAMEL.sub("_", name)
    words = [word.lower().rstrip("0123456789") for word in _SPLIT.split(name)]
    words = [word for word in words if word]
    while len(words) > 1 and words[-1] in TRAILING:
        words.pop()
    return words


def _kind(parts: list[str], *, query: bool) -> str | None:
    """``password``, ``token``, ``private`` or None for a name split into words."""
    last = parts[-1] if parts else ""
    qualifier = parts[-2] if len(parts) > 1 else ""
    if last in PRIVATE_WORDS or (last == "key" and qualifier in {"private", "priv"}):
        return "private"
    if last in PASSWORD_WORDS:
        return "password"
    if qualifier in NOT_SECRET_QUALIFIERS or (
        last == "sid" and qualifier not in _SESSION_QUALIFIERS
    ):
        return None
    if last in TOKEN_WORDS or (last == "id" and qualifier in {"session", "sess"}):
        return "token"
    if last == "key":
        return "token" if qualifier or query else None
    if last.endswith(_PASSWORD_SUFFIXES) and last not in {"bypass", "compass", "surpass"}:
        return "password"
    return "token" if last.endswith(_TOKEN_SUFFIXES) else None


def assignments(text: Text) -> list[Assignment]:
    """Every credential name of ``text`` that a literal follows (found once per text)."""
    found = text.cache.get("assignments")
    if found is None:
        found, seen = [], set()
        words = {word.decode() for word in text.words & _NAME_WORDS}
        stems = [*_GLUED, *(word for word in words if not any(stem in word for stem in _GLUED))]
        value = text.value
        for stem in stems:
            for at in text.at(stem):
                start = at
                while start and value[start - 1] in _NAME_CHARS:
                    start -= 1
                if start not in seen:
                    seen.add(start)
                    assignment = _at(text, start)
                    if assignment is not None:
                        found.append(assignment)
        text.cache["assignments"] = found
    return found


# Keys of a command-line flag (--api-key …) that name a credential; --generate-key does not.
_FLAG_KEY_QUALIFIERS = frozenset(
    "api access secret private auth client app consumer account shared service master signing "
    "encryption license licence subscription admin deploy webhook bot user personal storage "
    "sas jwt hmac session root server merchant functions maps".split()
)
_PREVIOUS_WORD = re.compile(r"([A-Za-z][A-Za-z-]*)[ \t]+$")
# "the Wi-Fi key is …": a network key is a password.
_NETWORK_WORDS = frozenset({"wifi", "wi-fi", "wlan", "wpa", "wpa2", "wpa3", "psk", "network"})


# A name right after these is part of a reference or a path: ${DB_PASSWORD}, %TOKEN%,
# /oauth/token, C:\keys\secret.
_REFERENCE_MARKS = frozenset("{%/\\#")


def _name(value: str, raw_start: int) -> tuple[int, int] | None:
    """Where the name that opens at ``raw_start`` is, less its dashes and dots at either end;
    None when an ordinary word follows it ("password manager": prose)."""
    end = raw_start
    while end < len(value) and value[end] in _NAME_CHARS:
        end += 1
    word = _NEXT_WORD.match(value, end)
    if word is not None and word.group(1).islower() and word.group(1) not in _OPENS_PROSE:
        return None
    start = raw_start
    while start < end and value[start] in "-.":
        start += 1
    while end > start and value[end - 1] in "-.":
        end -= 1
    return start, end


def _at(text: Text, raw_start: int) -> Assignment | None:
    value = text.value
    span = _name(value, raw_start)
    if span is None:
        return None
    start, end = span
    before = value[start - 1] if start else ""
    if (
        start >= end
        or before in _REFERENCE_MARKS
        or (before == ":" and value[end : end + 1] == ":")
    ):
        return None  # ${DB_PASSWORD:-x}, %TOKEN%, /oauth/token, arn:…:secret:name
    query = before in "?&"
    parts = _parts(value[start:end])
    spaced = False
    if len(parts) == 1 and parts[0] in {"key", "token", "secret"} and not query:
        qualifier = _PREVIOUS_WORD.search(value, max(0, start - 24), start)
        if qualifier is not None:  # "api key", "wifi key", "client secret"
            word, spaced = qualifier.group(1).lower(), True
            parts = [word, "password"] if word in _NETWORK_WORDS else [word, *parts]
    kind = _kind(parts, query=query)
    flag = value[raw_start:start].endswith("--")
    if kind is None or (flag and parts[-1] == "key" and parts[-2] not in _FLAG_KEY_QUALIFIERS):
        return None  # "--generate-key" (a lone "--key" has no kind)
    if parts == ["pass"] and value[:start].rstrip().endswith(":"):
        return None  # Python's "…: pass"
    mode, at = _join(value, start, end, flag=flag)
    literal = _literal(value, at, mode)
    if literal is None:
        return None
    found, quoted = literal
    if mode == "bare" and (
        not (spaced or len(parts) == 1)
        or _ASSIGNS.match(found) is not None
        or not value[at - 1].isspace()
        or found.startswith("#")
    ):
        return None  # "per token trace_id=9b79…", "?q=password+reset", "password #note"
    if (
        mode == "bare"
        and kind == "password"
        and not quoted
        and not _bare_password(parts[-1], found)
    ):
        return None
    continues = (
        mode == "colon"
        and found.isalpha()
        and found.islower()
        and _CONTINUES.match(value, at + len(found)) is not None
    )
    reads = parts[-1] in _READERS or len(parts) > 1 and parts[-2] in _READING_VERBS
    if mode == "call" and reads:
        return None  # getpass("Password: "), keyring.get_password("github", user)
    return Assignment(kind, parts[-1], found, quoted, mode, continues)


_CONTINUES = re.compile(r"[ \t]+[a-z]")
_ASSIGNS = re.compile(r"[A-Za-z_][\w.-]*=(?!=*$)")  # trace_id=9b79…: an assignment of its own
_QUOTES = {'"': '"', "'": "'", "`": "`", "\u201c": "\u201d", "\u2018": "\u2019", "\u00ab": "\u00bb"}
# After the name: a closing quote and bracket ("]), the operator, a YAML tag.
_OPERATOR = re.compile(
    r"""["'`]?\]?[ \t]*(?P<op>:=|=>|===?|!=|->|<-|\?=|\|\|=|\+=|=|:|：|,(?=[ \t]*["']))?"""
    r"""[ \t]*(?:!!\w+[ \t]+)?"""
)
# Prose between a password word and its value: a phrase ("for the server"), then a linker
# ("is", "ist", "lautet", "est", "é", "är"…) or a colon. A closing bracket ends the phrase
# that names the password ("(password on the board)").
_PHRASE_OPENERS = (
    "for of to on at in für pour de du des del della da do das dos van von voor för til af "
    "dla pro za".split()
)
_LINKERS = "is was are ist lautet war est es é è är er on je to jest este adalah ialah".split()
_LINKER = re.compile(
    r"(?:[ \t]+(?:" + "|".join(_PHRASE_OPENERS) + r")[ \t]+(?:[^\n.!?:=)\]]|\.(?=\S)){1,40}?)?"
    r"[ \t]*(?P<op>:(?!//)|=|—|–|->|" + "|".join(rf"\b{word}\b" for word in _LINKERS) + ")"
    r"(?:[ \t]+(?:now|still|set[ \t]+to|changed[ \t]+to|just|simply))?[ \t]*",
    re.IGNORECASE,
)
_OPENS_PROSE = frozenset([*_PHRASE_OPENERS, *_LINKERS, "—", "–"])
_NEXT_WORD = re.compile(r"[ \t]+([^\W\d_]+|[—–])(?=\s|$|[.,;:!?)](?:\s|$))")
_CALL = re.compile(r"""\([ \t]*(?=["'])""")
_K8S_VALUE = re.compile(r"""["']?[ \t]*\n[ \t]*-?[ \t]*value:[ \t]*""")
_ELEMENT = re.compile(r"""["']?>""")
# <add key="API_KEY" value="…" />, and Terraform's variable "db_password" { default = "…" }:
# the name in one place, the value in the next.
_ATTRIBUTE = re.compile(r"""["'](?:[ \t]+value|[ \t]*\{\s*default)[ \t]*=[ \t]*(?=["'])""")
_DIRECTIVE = re.compile(r"(?<![\w-])(?:setx|setenv|SetEnv|ENV|set[ \t]+-[gUx]+)[ \t]+$")


def _join(value: str, start: int, end: int, *, flag: bool) -> tuple[str, int]:
    """How the value is joined to the name at ``start:end``, and where the value starts."""
    element = _ELEMENT.match(value, end)
    if element is not None and value[start - 1 : start] in "<\"'":
        return "element", element.end()  # <password>…</password>, name="password">…</
    operator = _OPERATOR.match(value, end)
    assert operator is not None  # every part of it is optional
    op = operator.group("op")
    if op == ",":
        return ("code", operator.end()) if value[start - 1 : start] in "\"'" else ("none", end)
    if op in {"==", "===", "!="}:  # a comparison: only a literal in quotes is a password
        return (
            ("code", operator.end())
            if value[operator.end() : operator.end() + 1] in "\"'"
            else ("none", end)
        )
    if op:
        return ("colon" if op in {":", "\uff1a"} else "code"), operator.end()
    if (call := _CALL.match(value, end)) is not None:
        return "call", call.end()  # setPassword("…"), .password("…")
    if (attribute := _ATTRIBUTE.match(value, end)) is not None:
        return "code", attribute.end()
    if (linked := _LINKER.match(value, end)) is not None:
        return "prose", linked.end()
    if value[end : end + 1] in "\"'\n" and (k8s := _K8S_VALUE.match(value, end)) is not None:
        return "code", k8s.end()
    directive = _DIRECTIVE.search(value, max(0, start - 24), start) is not None
    return ("code" if flag or directive else "bare"), operator.end()


_EXPRESSION = re.compile(r"""\$\{\{[ \t]*(?P<q>["'])(?P<literal>[^"'\n]{1,300})(?P=q)[ \t]*\}\}""")
_BARE = re.compile(r"""[^\s"'`,;&<>]+""")


def _literal(value: str, at: int, mode: str) -> tuple[str, bool] | None:
    if at >= len(value) or mode == "none":
        return None
    if mode == "element":
        stop = value.find("</", at, at + 302)
        return (value[at:stop], False) if stop > at and "\n" not in value[at:stop] else None
    if (expression := _EXPRESSION.match(value, at)) is not None:
        return expression.group("literal"), True  # ${{ 'literal' }}: a workflow's constant
    close = _QUOTES.get(value[at])
    if close is not None:
        stop = value.find(close, at + 1, at + 302)
        if stop < 0 or "\n" in value[at + 1 : stop]:
            return None
        return value[at + 1 : stop], True
    if mode == "call":
        return None
    match = _BARE.match(value, at)
    return None if match is None else (match.group().rstrip(".,:;!?)]}"), False)


# "password Tr0ub4dor&3": without any operator only a full password word and a short,
# strong value count ("pass" is also Python's statement, "X-API-Key" a header name).
_BARE_NAMES = frozenset(
    "password passwd passphrase pass passwort kennwort wachtwoord senha".split()
)


def _bare_password(last: str, found: str) -> bool:
    if last in _BARE_NAMES and values.passphrase(found):
        return True
    if last not in _BARE_NAMES or len(found) > 32 or any(char in found for char in ":/.()"):
        return False
    if values.looks_strong(found):
        return True
    # "pass" is also Python's statement; "password" autocomplete=… an attribute of HTML
    words = last != "pass" and not found.isdigit() and not any(char in found for char in "?=&")
    return words and values.prose_password(found)


# Calls that read a secret: their string argument is a prompt or a variable's name.
_READERS = frozenset({"getpass", "getenv", "askpass", "prompt"})
_READING_VERBS = frozenset(
    "get read load fetch lookup retrieve find ask prompt request query has check delete remove "
    "clear reset".split()
)


def is_secret(assignment: Assignment) -> bool:
    """Whether the literal of ``assignment`` is a secret, judged by the name it follows."""
    value, mode = assignment.value, assignment.mode
    if values.compact_token(value):
        return False  # "jwt=eyJ…" is reported as a compact token
    if assignment.kind == "password":
        if assignment.continues or values.is_placeholder(
            value, name=assignment.name, quoted=assignment.quoted
        ):
            return False
        if assignment.quoted and mode not in {"prose", "call"}:
            return len(value) >= 2
        strict = mode in {"prose", "bare", "call"}
        return values.looks_like_password(value, quoted=assignment.quoted, strict=strict)
    if value.startswith(values.PUBLIC_PREFIXES):
        return False  # "token pk_test_…": a key made to be published, named as a token
    if assignment.kind == "private":
        return values.looks_random(value, minimum=32, quoted=assignment.quoted)
    minimum = 16 if mode in {"prose", "bare"} else 12
    return values.looks_random(value, minimum=minimum, quoted=assignment.quoted)
