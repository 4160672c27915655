# ruff: noqa: E501 (the table: one rule, one line)
"""The table of rules, in the contract's order: private keys, credentials, compact tokens,
government identifiers, payment cards. The engine tries them in this order and the first
that refuses a value names its reason.

Each entry is one :class:`~.engine.Rule`: its id, reason, finder, validator and keywords.
The rules that are data alone (provider tokens known by a prefix, national numbers known by
their format and check digit) are listed in ``rules.toml`` beside this module and placed
here by group. Every rule's samples (texts it must refuse, look-alikes the policy must
store) are data too, under the same id in ``samples.toml``, and the tests run them; kept out
of the code, no secret-shaped literal of theirs is a constant of the running package.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Callable, Iterator
from importlib import resources
from typing import Any

from mymcp.plugins.mnemosyne.memory.policy import access, identifiers, keys, values
from mymcp.plugins.mnemosyne.memory.policy.access import matches
from mymcp.plugins.mnemosyne.memory.policy.assignments import KEYWORDS as NAME_KEYWORDS
from mymcp.plugins.mnemosyne.memory.policy.assignments import assignments, is_secret
from mymcp.plugins.mnemosyne.memory.policy.checksums import NATIONAL, stdnum
from mymcp.plugins.mnemosyne.memory.policy.engine import Finder, Rule, Table, Text, Validator
from mymcp.plugins.mnemosyne.memory.policy.words import IDENTITY, LABEL_INFIXES, LABELS, PHRASES

PRIVATE_KEY = "private_key_shape"
CREDENTIAL = "credential_shape"
COMPACT_TOKEN = "compact_token_shape"
GOVERNMENT_ID = "government_identifier_shape"
PAYMENT_CARD = "payment_card_shape"


def _real(body: str) -> bool:
    """A token's body that no placeholder stands for (``XXXX…``, ``0000…``, ``your-…``)."""
    return not values.is_placeholder(body, quoted=True, words=False)


_DATA: dict[str, dict[str, dict[str, Any]]] = tomllib.loads(
    resources.files(__package__).joinpath("rules.toml").read_text(encoding="utf-8")
)


def _contract_body(body: str) -> bool:
    """A body of the contract's provider rules that no documented placeholder stands for."""
    return not values.placeholder_body(body)


def _tokens(group: str, reason: str = CREDENTIAL) -> Iterator[Rule]:
    """The token rules of ``group`` in rules.toml: prefixes, the rest's pattern, and the
    characters that may not stand before a prefix. The contract's own rules store only
    the placeholder bodies docs/DIFFERENCES.md names; the others any placeholder."""
    real = _contract_body if group == "contract" else _real
    for id, rule in _DATA[group].items():
        prefixes = rule["prefixes"].split()
        boundary = rule.get("boundary", "A-Za-z0-9")
        pattern = f"(?<![{boundary}])(?:{'|'.join(map(re.escape, prefixes))}){rule['body']}"
        yield Rule(
            id,
            reason,
            _token_finder(prefixes, pattern),
            lambda text, rest: real(rest),
            tuple(prefixes),
            True,
        )


# A token's pattern is compiled when its prefix first occurs: most never do in a process.
_compiled = functools.cache(re.compile)


def _token_finder(prefixes: list[str], pattern: str) -> Finder:
    def find(text: Text) -> Iterator[str]:
        for prefix in prefixes:
            for at in text.hits.get(prefix, ()):
                if (match := _compiled(pattern).match(text.token_text(), at)) is not None:
                    yield match.group()[len(prefix) :]

    return find


def _nationals() -> Iterator[Rule]:
    """The national numbers of rules.toml, each in its shapes, by its check."""
    for id, rule in _DATA["national"].items():
        check = NATIONAL.get(rule["check"]) or stdnum(rule["check"])
        finder = identifiers.formatted(tuple(shape.encode() for shape in rule["shapes"]))
        yield Rule(id, GOVERNMENT_ID, finder, _checked(check))


def _checked(check: Callable[[str], bool]) -> Validator:
    return lambda text, number: check(number)


# An IBAN: country, check digits, then the account in groups of four (spaced or not).
_IBAN = re.compile(
    r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![A-Za-z0-9])"
)


def _search(pattern: str, flags: int = 0) -> Any:
    """A finder: ``pattern`` searched in the long tokens."""
    compiled = re.compile(pattern, flags)
    return lambda text: compiled.finditer(text.token_text())


def _group(name: str | int) -> Any:
    return lambda text, match: _real(match.group(name))


_PEM = re.compile(
    r"-----? ?(?:BEGIN|END) (?:[A-Z0-9]+ ){0,3}(?:PRIVATE|SECRET) KEY(?: BLOCK)? ?-{4,5}",
    re.IGNORECASE,
)
_AWS = re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])")
_SEGMENT = "[A-Za-z0-9_-]"
_USCIS = ("EAC", "WAC", "LIN", "SRC", "MSC", "NBC", "IOE", "YSC")


_IDENTITY_KEYWORDS = tuple(
    sorted(
        {w for w, kind in LABELS.items() if kind == IDENTITY}
        | {w for pair in PHRASES for w in pair}
        | {i for i, kind in LABEL_INFIXES if kind == IDENTITY}
    )
)

_IDENTITY_SET = frozenset(_IDENTITY_KEYWORDS)


def _base_name(text: Text, match: re.Match[str]) -> bool:
    """The contract's keyword rule, less placeholders, references, masks and words a
    sentence goes on after; the value ends at ``&`` and loses its closing punctuation."""
    value = match.group("value").split("&")[0].rstrip(".,:;!?)]}")
    if text.value[match.start() - 1 : match.start()] in ("{", "%", "/", ":"):
        return False  # ${API_KEY:?…}, %API_KEY%, arn:aws:secretsmanager:…:secret:prod/db
    if value[:1] in "\"'" and value[-1:] == value[:1] and len(value) >= 4:
        return not values.is_placeholder(value[1:-1], quoted=True)
    after = text.value[match.end() : match.end() + 2]
    continues = value.isalpha() and value.islower() and re.match(r"[ \t][a-z]", after) is not None
    return (
        len(value) >= 4
        and not continues
        and not values.is_placeholder(value, name=match.group("name").lower())
    )


_BASE_NAME = re.compile(
    r"(?<!\w)(?P<name>password|passwd|pwd|secret|api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|client[_-]?secret)\s*[:=]\s*(?P<value>\S{4,})",
    re.IGNORECASE,
)


RULES: tuple[Rule, ...] = (
    # --- private keys ---------------------------------------------------------------------------
    Rule("private-key-armour", PRIVATE_KEY, lambda text: _PEM.finditer(text.value), keywords=("----",)),
    Rule("encrypted-pem-header", PRIVATE_KEY, matches(re.compile(r"DEK-Info: [A-Z0-9-]+,[0-9A-Fa-f]{16,}"), "dek-info"), keywords=("dek",)),
    Rule("private-key-body", PRIVATE_KEY, lambda text: (m for m in keys.BODY_MARKERS if m in text.token_text())),
    Rule("private-key-base64-pem", PRIVATE_KEY, keys.encoded_pem, lambda text, pem: b"PRIVATE KEY" in pem or b"SECRET KEY" in pem, ("LS0tLS1CRUdJTi",), tokens=True),
    Rule("putty-key-file", PRIVATE_KEY, lambda text: (at for at in text.at("putty-user-key-file-") if text.value.startswith("PuTTY", at)), keywords=("putty",)),
    Rule("jwk-private-key", PRIVATE_KEY, keys.private_jwk, keywords=("kty",)),
    Rule("wallet-keystore-file", PRIVATE_KEY, lambda text: [text] if b"kdf" in text.words else [], keywords=("ciphertext",)),
    *_tokens("keys", PRIVATE_KEY),
    Rule("wallet-import-format", PRIVATE_KEY, keys.wallet_import_format, lambda text, payload: payload[:1] in (b"\x80", b"\xef") and len(payload) in (33, 34), ("5", "K", "L", "c", "9"), tokens=True),
    Rule("raw-private-key", PRIVATE_KEY, keys.raw_keys, keywords=(*NAME_KEYWORDS, *keys.KEY_QUALIFIERS)),
    Rule("keypair-byte-array", PRIVATE_KEY, keys.byte_arrays),
    Rule("seed-phrase", PRIVATE_KEY, keys.seed_phrases, keywords=tuple(keys.SEED_WORDS)),
    # --- credentials: the contract's provider rules ----------------------------------------------
    Rule("aws-access-key-id", CREDENTIAL, lambda text: _AWS.finditer(text.token_text()), lambda text, m: _contract_body(m.group()[4:]), ("*AKIA", "*ASIA"), tokens=True),
    *_tokens("contract"),
    # --- credentials: more providers -------------------------------------------------------------
    *_tokens("providers"),
    Rule("azure-client-secret", CREDENTIAL, _search(r"(?<![\w~.-])[\w~.-]{3}\dQ~[\w~.-]{31,34}(?![\w~.-])", re.ASCII), valid=_group(0), keywords=("*Q~",), tokens=True),
    Rule("terraform-cloud-token", CREDENTIAL, _search(r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,}"), keywords=("atlasv1",)),
    Rule("mailchimp-key", CREDENTIAL, _search(r"(?<![A-Za-z0-9])[0-9a-f]{32}-us\d{1,2}(?![A-Za-z0-9])"), keywords=("*-us",), tokens=True),
    # --- credentials: webhook URLs ---------------------------------------------------------------
    Rule("slack-webhook", CREDENTIAL, _search(r"hooks\.slack\.com/(?:services|workflows|triggers)/(?:[A-Za-z0-9_-]+/)+(?P<secret>[A-Za-z0-9_-]{16,})"), _group("secret"), ("hooks",)),
    Rule("discord-webhook", CREDENTIAL, _search(r"discord(?:app)?\.com/api/webhooks/\d{15,21}/(?P<secret>[A-Za-z0-9_-]{30,})"), _group("secret"), ("webhooks",)),
    Rule("teams-webhook", CREDENTIAL, _search(r"""(?:\.webhook\.office\.com/webhookb2|outlook\.office(?:365)?\.com/webhook)/(?P<secret>[^\s"'<>]{30,})""", re.IGNORECASE), _group("secret"), ("webhookb2", "webhook")),
    Rule("google-chat-webhook", CREDENTIAL, _search(r"""chat\.googleapis\.com/v1/spaces/[^\s/]+/messages\?[^\s"'<>]*?(?:key|token)=(?P<secret>[\w%.-]{16,})"""), _group("secret"), ("googleapis",)),
    Rule("zapier-webhook", CREDENTIAL, _search(r"hooks\.zapier\.com/hooks/catch/\d+/(?P<secret>[a-z0-9]{5,})"), _group("secret"), ("zapier",)),
    Rule("ifttt-webhook", CREDENTIAL, _search(r"maker\.ifttt\.com/trigger/[^\s/]+/with/key/(?P<secret>[A-Za-z0-9_-]{15,})"), _group("secret"), ("ifttt",)),
    Rule("webhook-path-secret", CREDENTIAL, _search(r"/(?:hooks?/(?P<a>[A-Za-z0-9_-]{20,})|webhooks?/(?:[^\s/?#]+/)*(?P<b>[A-Za-z0-9_-]{24,}))"), lambda text, m: values.looks_random(m.group("a") or m.group("b"), minimum=20), ("hook", "hooks", "webhook", "webhooks")),
    # --- credentials: headers, assignments, URLs, command lines ----------------------------------
    Rule("authorization-header", CREDENTIAL, matches(access.AUTHORIZATION, "authorization"), access.authorization, ("authorization",)),
    Rule("bearer-token", CREDENTIAL, matches(access.BEARER, "bearer"), access.random_value, ("bearer",)),
    Rule("basic-credentials", CREDENTIAL, matches(access.BASIC, "basic"), access.basic_credentials, ("basic",)),
    Rule("credential-name", CREDENTIAL, matches(_BASE_NAME, "password", "passwd", "pwd", "secret", "api", "apikey", "access", "refresh", "client"), _base_name, ("password", "passwd", "pwd", "secret", "api", "apikey", "access", "refresh", "client")),
    Rule("credential-assignment", CREDENTIAL, assignments, lambda text, assignment: is_secret(assignment), NAME_KEYWORDS),
    Rule("url-credentials", CREDENTIAL, matches(access.URL_CREDENTIALS, "://"), access.url_password, ("://",)),
    Rule("command-line-password", CREDENTIAL, access.command_lines, access.password_value, tuple(access.COMMANDS)),
    Rule("pgpass-line", CREDENTIAL, access.pgpass_lines, access.password_value),
    Rule("netrc-entry", CREDENTIAL, matches(access.NETRC, "machine", "default"), lambda text, m: values.looks_like_password(m.group("password"), quoted=False, strict=True), ("machine", "default")),
    Rule("credentials-by-position", CREDENTIAL, access.positional, access.positional_secret, access.POSITIONAL_WORDS),
    Rule("login-pair", CREDENTIAL, matches(access.LOGIN_PAIR, *access.LOGIN_WORDS), access.login_password, access.LOGIN_WORDS),
    Rule("user-and-password", CREDENTIAL, matches(access.USER_PASS, "user", "username"), access.login_password, ("user", "username")),
    Rule("password-named-after", CREDENTIAL, access.named_before, lambda text, value: values.prose_password(value), access.PASSWORD_NOUNS),
    Rule("password-in-prose", CREDENTIAL, matches(access.SAID_PASSWORD, *access.SAID_WORDS), access.said_password, access.SAID_WORDS),
    Rule("foreign-password", CREDENTIAL, access.foreign_passwords, access.foreign_password, access.FOREIGN_WORDS),
    Rule("session-cookie", CREDENTIAL, access.session_cookies, access.cookie_value, ("cookie",)),
    Rule("totp-seed", CREDENTIAL, access.totp_seeds, access.totp_seed, access.TOTP_WORDS),
    Rule("recovery-codes", CREDENTIAL, access.recovery_codes, access.codes, access.RECOVERY_WORDS),
    Rule("bitlocker-recovery-key", CREDENTIAL, lambda text: re.finditer(r"(?<![0-9-])\d{6}(?:-\d{6}){7}(?![0-9-])", text.value) if b"000000-000000" in text.shape else (), access.bitlocker),
    # --- compact tokens ---------------------------------------------------------------------------
    Rule("jwt", COMPACT_TOKEN, matches(re.compile(rf"(?<![A-Za-z0-9_-])eyJ{_SEGMENT}{{8,}}\.(?:{_SEGMENT}+\.{_SEGMENT}+|eyJ{_SEGMENT}+\.|(?:{_SEGMENT}*\.){{3}}{_SEGMENT}+)(?!{_SEGMENT})"), "eyj", inside=True), keywords=("*eyJ",), tokens=True),
    Rule("paseto", COMPACT_TOKEN, _search(rf"(?<![A-Za-z0-9])v[1-4]\.(?:local|public)\.{_SEGMENT}{{40,}}"), keywords=("local", "public")),
    Rule("fernet", COMPACT_TOKEN, _search(rf"(?<![A-Za-z0-9])gAAAAA{_SEGMENT}{{80,}}={{0,2}}"), valid=_group(0), keywords=("*gAAAAA",), tokens=True),
    # --- government identifiers -------------------------------------------------------------------
    Rule("passport-mrz", GOVERNMENT_ID, lambda text: re.finditer(r"(?<![A-Z0-9<])[PIACV][A-Z<][A-Z<]{3}[A-Z0-9<]{25,39}(?![A-Z0-9<])", text.value), lambda text, m: "<<" in m.group(), ("*<<",)),
    Rule("us-ssn", GOVERNMENT_ID, identifiers.ssn_candidates, identifiers.valid_ssn),
    *_nationals(),
    Rule("us-i94-number", GOVERNMENT_ID, matches(re.compile(r"i-94\b\D{0,24}?(?<!\d)(?:\d{11}|\d{9}[A-Z]\d)(?![\dA-Za-z])", re.IGNORECASE), "i-94"), keywords=("94",)),
    Rule("us-uscis-receipt-number", GOVERNMENT_ID, identifiers.formatted((b"AAA0000000000",), labelled=False), lambda text, number: number[:3] in _USCIS),
    Rule("us-medicare-mbi", GOVERNMENT_ID, identifiers.medicare_ids),
    Rule("labelled-identity-number", GOVERNMENT_ID, lambda text: identifiers.identity_candidates(text, _IDENTITY_SET), identifiers.labelled_identity, _IDENTITY_KEYWORDS),
    # --- payment cards ----------------------------------------------------------------------------
    Rule("payment-card", PAYMENT_CARD, identifiers.card_candidates, identifiers.card_number),
    Rule("iban", PAYMENT_CARD, lambda text: _IBAN.finditer(text.value), lambda text, m: stdnum("iban")(m.group().replace(" ", ""))),
)  # fmt: skip

TABLE = Table(RULES)
