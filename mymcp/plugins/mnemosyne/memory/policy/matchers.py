"""The matchers of the content policy: every finder and validator written in Python.

An entry of ``rules.toml`` names what it needs here: ``find = "seed_phrases"`` a finder (a
function of the :class:`~.engine.Text` that yields candidates), ``valid = "login_password"``
a validator (a function of the text and one candidate that says whether it is a secret).
Every function here stands on its own: it reads the text and what the helper modules compute
from it on demand (:mod:`.assignments`, :mod:`.numbers`), never what another rule found.
An entry may name a word list of this module as its keywords (``keywords = "TOTP_WORDS"``)
when its finder reads the same words.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
import re
from collections.abc import Iterator

from mymcp.plugins.mnemosyne.memory.policy import values
from mymcp.plugins.mnemosyne.memory.policy.assignments import KEYWORDS as NAME_KEYWORDS
from mymcp.plugins.mnemosyne.memory.policy.assignments import Assignment, assignments, is_secret
from mymcp.plugins.mnemosyne.memory.policy.bip39 import WORDS, checksum_holds
from mymcp.plugins.mnemosyne.memory.policy.checksums import base58check, ean13, luhn, stdnum
from mymcp.plugins.mnemosyne.memory.policy.engine import Finder, Text, foreign_pattern
from mymcp.plugins.mnemosyne.memory.policy.numbers import in_hex, label_of, numbers, parts
from mymcp.plugins.mnemosyne.memory.policy.words import (
    BENIGN,
    CARD,
    IDENTITY,
    LABEL_INFIXES,
    LABELS,
    PHRASES,
)

Match = re.Match[str]
Span = tuple[int, int]

# --- private keys and wallets -------------------------------------------------------------


def encoded_pem(text: Text) -> Iterator[bytes]:
    """A Base64-encoded PEM block (``LS0tLS1CRUdJTi…``, as in a kubeconfig), decoded."""
    for match in re.finditer(r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{8,}", text.token_text()):
        encoded = match.group()[:96]
        try:
            yield base64.b64decode(encoded[: len(encoded) // 4 * 4])
        except (binascii.Error, ValueError):
            continue


def private_pem(text: Text, pem: bytes) -> bool:
    return b"PRIVATE KEY" in pem or b"SECRET KEY" in pem


_JWK_PRIVATE = re.compile(r"""["'](?:d|p|q|dp|dq|qi|k)["']\s*:\s*["'][A-Za-z0-9_-]{16,}""")


def private_jwk(text: Text) -> Iterator[str]:
    """The JSON object around each "kty" member, when it holds a private member."""
    value = text.value
    for at in text.at('"kty"'):
        begin, end = value.rfind("{", 0, at), value.find("}", at)
        if begin >= 0 and end >= 0 and _JWK_PRIVATE.search(value, begin, end):
            yield value[begin:end]


_WIF = re.compile(r"[5KLc9](?<![A-Za-z0-9].)[1-9A-HJ-NP-Za-km-z]{50,51}(?![A-Za-z0-9])")


def wallet_import_format(text: Text) -> Iterator[bytes]:
    """The payloads of Base58Check tokens that start as WIF keys do."""
    for match in _WIF.finditer(text.token_text()):
        if (payload := base58check(match.group())) is not None:
            yield payload


def wif_payload(text: Text, payload: bytes) -> bool:
    """A private key's version byte (main or test network) and length."""
    return payload[:1] in (b"\x80", b"\xef") and len(payload) in (33, 34)


_RAW_KEY = re.compile(r"(?:0x)?[0-9a-fA-F]{64}|[A-Za-z0-9+/]{42,43}=|[1-9A-HJ-NP-Za-km-z]{85,90}")
# "private key: 0x…" within one line and one sentence.
_SAID_KEY = re.compile(
    r"(?:private|secret|wallet|signing)[ _-]?key\b(?:(?![.!?]\s)[^\n]){0,24}?"
    r"(?P<key>(?:0x)?[0-9a-fA-F]{64}|[1-9A-HJ-NP-Za-km-z]{85,90})(?![0-9A-Za-z])",
    re.IGNORECASE,
)


KEY_QUALIFIERS = ("private", "secret", "wallet", "signing")
RAW_KEY_WORDS = (*NAME_KEYWORDS, *KEY_QUALIFIERS)


def raw_keys(text: Text) -> Iterator[str]:
    """A raw key assigned to a private-key name, or written after "private key"."""
    for assignment in assignments(text):
        if assignment.kind == "private" and _RAW_KEY.fullmatch(assignment.value):
            yield assignment.value
    for at in text.spots(KEY_QUALIFIERS):
        if (match := _SAID_KEY.match(text.value, at)) is not None:
            yield match.group("key")


_BYTE_ARRAY = re.compile(r"\[\s*(?:\d{1,3}\s*,\s*){31,63}\d{1,3}\s*\]")


def byte_arrays(text: Text) -> Iterator[list[int]]:
    """JSON arrays of 32 or 64 numbers up to 255 (a keypair file), with varied bytes."""
    if text.value.count(",") >= 31:
        for at in text.at("["):
            if (match := _BYTE_ARRAY.match(text.value, at)) is not None:
                values = [int(part) for part in re.findall(r"\d+", match.group())]
                if len(values) in (32, 64) and max(values) <= 255 and len(set(values)) >= 16:
                    yield values


# --- seed phrases -------------------------------------------------------------------------

SEED_WORDS = tuple(
    "seed seeds mnemonic phrase wallet words bip39 bip metamask trezor electrum ledger".split()
)
# Words that say a wallet secret follows; "phrase" and "words" alone ("spelling words") do not.
_WALLET_WORDS = frozenset(SEED_WORDS) - {"phrase", "words"}
_BIP39 = frozenset(word.encode() for word in WORDS)
_SEED_REACH = 400
# What may stand between two words of a phrase: blanks, commas, list numbers ("1.", "2)",
# "#3"). A colon ends a run, so the label in "seed phrase: …" is not counted as a word.
_RUN = re.compile(r"[a-z][a-z\s\d.,;)(#\-]{46,}")
_WORD = re.compile(r"[a-z]+")
_IN_A_RUN = re.compile(r"(?:1{12,})")


def seed_phrases(text: Text) -> Iterator[tuple[list[str], bool]]:
    """Runs of twelve or more BIP-39 words near a word that names them, and whether that
    word names a wallet's secret; with no such word, a note of BIP-39 words alone is read
    whole."""
    spots = [
        (at, _names_a_wallet(text, word, at)) for word in SEED_WORDS for at in text.spots((word,))
    ]
    if not spots and _only_bip39(text):
        spots = [(_SEED_REACH, False)]
    for at, named in spots:
        for run in _RUN.findall(text.lower, max(0, at - _SEED_REACH), at + _SEED_REACH):
            if not named and "," in run:
                continue  # "spelling words: a, b, c…": a list, unless a wallet is named
            words = _WORD.findall(run)
            flags = "".join("1" if word in WORDS else "0" for word in words)
            for found in _IN_A_RUN.finditer(flags):
                yield words[found.start() : found.end()], named


# "12 words", "24-word phrase", "recovery phrase", "secret words": a wallet's, unlike
# "spelling words".
_QUALIFIED = re.compile(r"(?:\b(?:12|15|18|21|24)|recovery|secret|backup)[ -]?$")


def _names_a_wallet(text: Text, word: str, at: int) -> bool:
    return word in _WALLET_WORDS or _QUALIFIED.search(text.lower, max(0, at - 12), at) is not None


def _only_bip39(text: Text) -> bool:
    """A note that is nothing but BIP-39 words (one other word at most)."""
    if len(text.words) > 32:
        return False
    known = len(text.words & _BIP39)
    return known >= 8 and known >= len(text.words) - 1


def seed_phrase(text: Text, found: tuple[list[str], bool]) -> bool:
    """Named as a wallet's secret, or a whole phrase (at either end of the run) whose
    BIP-39 checksum holds."""
    words, named = found
    return named or any(
        checksum_holds(words[:size]) or checksum_holds(words[-size:])
        for size in (24, 21, 18, 15, 12)
        if size <= len(words)
    )


# --- credentials given away by their context ----------------------------------------------


def netrc_password(text: Text, match: Match) -> bool:
    """A ``.netrc`` entry's password: any literal for a host name with a dot, one that reads
    like a password otherwise ("machine learning login page password reset" is prose)."""
    strict = "." not in (match.group("machine") or "")
    return values.looks_like_password(match.group("password"), quoted=False, strict=strict)


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
    user = match.groupdict().get("user")  # an address's domain may be example.com
    if user and values.is_placeholder(user.strip("\"'").split("@")[0], quoted=True):
        return False
    if not values.looks_like_password(password, quoted=False, strict=True):
        return False
    digit = any(char.isdigit() for char in password)
    return digit or match.groupdict().get("sep") != "\n" or values.prose_password(password)


def random_value(text: Text, match: Match) -> bool:
    """The group ``token`` looks random and is not a compact token (reported as one)."""
    token = match.group("token")
    return values.looks_random(token, minimum=12) and not values.compact_token(token)


def credential_name(text: Text, match: Match) -> bool:
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


def secret_assignment(text: Text, assignment: Assignment) -> bool:
    return is_secret(assignment)


def prose_password(text: Text, value: str) -> bool:
    return values.prose_password(value)


def random_path(text: Text, match: Match) -> bool:
    """A webhook path's last part that looks generated."""
    return values.looks_random(match.group("a") or match.group("b"), minimum=20)


# --- headers ------------------------------------------------------------------------------


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
    """``scheme://user:password@`` with a password that no placeholder stands for (a word
    in capitals is one: ``postgres://USER:PASSWORD@HOST/DB``)."""
    password = match.group("password")
    capitals = len(password) >= 4 and password.isupper() and password.replace("_", "").isalpha()
    return not (capitals or values.is_placeholder(password, words=False))


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
    "openssl": r"(?:-pass(?:in|out)?[ \t]+pass:|-k[ \t]+)(?P<password>\S+)",
    "htpasswd": r"-\w*b\w*(?:[ \t]+-\w+)*[ \t]+\S+[ \t]+\S+[ \t]+(?P<password>\S+)",
    "ldapsearch": rf"-w{_FLAG_VALUE}",
    "rclone": r"\bpass[ \t]+(?P<password>\S+)",
    # Archives: 7z and rar take the password glued to -p, zip after -P.
    **dict.fromkeys(("7z", "7za", "rar", "unrar"), rf"-p(?P<password>{_PLAIN}{{4,}})"),
    **dict.fromkeys(("zip", "unzip"), rf"(?:-P|--password)[ =]{_FLAG_VALUE}"),
    **dict.fromkeys(("mongo", "mongosh", "rdesktop", "psexec", "ncftp"), rf"-p[ \t]{_FLAG_VALUE}"),
    **dict.fromkeys(("plink", "pscp", "psftp"), rf"-pw[ \t]{_FLAG_VALUE}"),
    **dict.fromkeys(
        ("keytool", "jarsigner"), rf"-(?:src|dest)?(?:store|key)pass[ \t]{_FLAG_VALUE}"
    ),
    # Oracle's tools take user/password@database.
    **dict.fromkeys(
        ("sqlplus", "rman", "expdp", "impdp", "sqlldr", "dgmgrl"),
        r"""["']?[\w$#]+/(?P<password>[^\s/@'"]{4,})@""",
    ),
    "lftp": rf"-u[ \t]+[^\s,]+,(?P<password>{_PLAIN}+)",
    "nmcli": rf"\bpassword{_FLAG_VALUE}",
    "net": r"user[ \t]+\S+[ \t]+(?P<password>[^\s/'\"]{4,})[ \t]+/(?:add|domain)",
    "rabbitmqctl": r"""(?:add_user|change_password)[ \t]+\S+[ \t]+["']?(?P<password>[^\s'"]{4,})""",
    # echo 'pw' | sudo -S …: the password piped to a command that reads it.
    "echo": r"""["']?(?P<password>[^\s'"|]{4,})["']?[ \t]*\|[ \t]*"""
    r"(?:sudo[ \t]+-S|chpasswd|passwd[ \t]+--stdin)",
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
    r"""(?P<call>[\w.]*?(?P<what>client|auth|login|credentials?|bind_s|bind|connect|twilio|ftp
    |smtp|imap4?|pop3|pdo)\w*)
    \s*(?:=\s*)?\(\s*(?:\w+\s*=\s*)?(?P<lead>\$?[A-Za-z_][\w.]*\s*,\s*)?
    (?P<q>["'])(?P<user>[^"'\n]{1,128})(?P=q)(?:\s*,\s*\d{1,5})?\s*,\s*
    (?P<r>["'])(?P<second>[^"'\n]{1,200})(?P=r)
    (?:\s*,\s*(?P<s>["'])(?P<third>[^"'\n]{1,200})(?P=s))?""",
    re.VERBOSE | re.IGNORECASE,
)
# A host as the first argument: connect("db.example.com", "user", "password", "db").
_HOST = re.compile(r"localhost|[\w-]+(?:\.[\w-]+)+")
POSITIONAL_WORDS = (
    "client", "auth", "login", "credential", "credentials", "bind", "connect", "twilio",
    "httpbasicauth", "httpdigestauth", "twiliorestclient", "basicauth", "plaincredentials",
    "networkcredential", "getconnection", "ftp", "smtp", "imap", "imap4", "pop3", "pdo",
    "passwordauthentication", "usernamepasswordcredentials", "basicawscredentials",
)  # fmt: skip


def positional(text: Text) -> Iterator[Match]:
    for at in text.spots(POSITIONAL_WORDS):
        start = at
        while start and (text.value[start - 1].isalnum() or text.value[start - 1] in "_."):
            start -= 1
        if (match := _POSITIONAL.match(text.value, start)) is not None:
            yield match


def positional_secret(text: Text, match: Match) -> bool:
    """The password of a login or auth pair (the second string, also after a variable such
    as a URL), or of a connection given a host, a user and a password (the third); a
    client's second string when it looks random (an account and its token)."""
    if match.group("third") and _HOST.fullmatch(match.group("user")):
        value = match.group("third")
    elif not match.group("lead") and match.group("what").lower() in _CLIENTS:
        return values.looks_random(match.group("second"), minimum=16)
    else:
        value = match.group("second")
    return values.looks_like_password(value, quoted=True, strict=True) and not (
        values.is_placeholder(value, quoted=True) or value.isdigit()
    )


_CLIENTS = frozenset({"client", "connect", "twilio", "ftp", "smtp"})


# --- prose --------------------------------------------------------------------------------


def said_password(text: Text, match: Match) -> bool:
    """Unnamed ("use … to unlock") it must not read as a product name; named by a user
    ("log in with bob:…") or as the new password ("new one: …") anything but a word counts."""
    said = next(group for group in match.group("a", "b", "c", "d", "e") if group).rstrip(".,;:)\"'")
    if match.group("user") or match.group("e"):
        return values.looks_like_password(said, quoted=False, strict=True)
    return values.prose_password(said)


# --- configuration lines, prompts, hosts, keys handed to code ------------------------------

# A configuration line of a name and its value: the name ends as a credential's does
# (requirepass, masterauth, bind_pw, rootpw, auth_pass), the value ends the line.
_DIRECTIVE = re.compile(
    r"[ \t]*(?P<name>[A-Za-z][\w.-]*?(?:pass(?:wd|word|phrase)?|pw|secret|authtok|auth))"
    r"[ \t]+(?P<value>[^\s#;]+)(?<!:)(?P<end>[ \t]*(?:[#;][^\n]*)?(?:\n|$))?",
    re.IGNORECASE,
)
# Directive names that are ordinary words: their value must read like a password.
_WORD_DIRECTIVES = frozenset("password passwd pass passphrase secret auth oauth pw".split())
_NOT_DIRECTIVES = ("bypass", "compass", "surpass", "trespass", "overpass", "underpass")


def directives(text: Text) -> Iterator[tuple[str, str, bool]]:
    """The name and the value that open each line, and whether the value ends the line."""
    value, start = text.value, 0
    while start >= 0:
        if (match := _DIRECTIVE.match(value, start)) is not None:
            alone = match.group("end") is not None
            yield match.group("name").lower(), match.group("value"), alone
        start = value.find("\n", start) + 1 or -1


def directive_password(text: Text, found: tuple[str, str, bool]) -> bool:
    """``requirepass …``, ``bind_pw …`` alone on a line: any value; ``password …`` or a value
    the line goes on after: one that reads like a password."""
    name, value, alone = found
    if name.endswith(_NOT_DIRECTIVES):
        return False
    strict = name in _WORD_DIRECTIVES or not alone
    return values.looks_like_password(value, quoted=False, strict=strict)


def prompt_answer(text: Text, match: Match) -> bool:
    """The answer typed after a prompt: ``AWS Secret Access Key [None]: …``."""
    value = (match.group("value") or match.group("answer")).strip("\"'")
    if "pass" in (match.group("name") or match.group("phrase")).lower():
        return values.looks_like_password(value, quoted=False, strict=False)
    return values.looks_random(value, minimum=16)


_USER_PASSWORD = re.compile(r"(?P<user>[A-Za-z_][\w.-]{0,63}):(?P<password>[^\s:@/'\"]{4,128})")
_AFTER_AT = re.compile(r"(?P<go>tcp\(|unix\()|localhost\b|\[[0-9a-fA-F:]+\]|[\w-]+(?:\.[\w-]+)+")
# What stands before an address without being a user name: mailto:bob@…, From:bob@…
_NO_USER = frozenset("mailto sip sips xmpp im tel mail email e-mail from to cc bcc contact".split())


def host_credentials(text: Text) -> Iterator[tuple[str, bool]]:
    """``user:password@host`` without a scheme (a Go DSN, a proxy): the password, and
    whether a Go DSN's ``@tcp(`` leaves no doubt that it is one."""
    value = text.value
    for at in text.at("@"):
        start = at
        while start and not value[start - 1].isspace() and value[start - 1] not in "\"'(=,<":
            start -= 1
        pair = _USER_PASSWORD.fullmatch(value, start, at)
        host = _AFTER_AT.match(value, at + 1)
        if pair is not None and host is not None and pair.group("user").lower() not in _NO_USER:
            yield pair.group("password"), bool(host.group("go"))


def host_password(text: Text, found: tuple[str, bool]) -> bool:
    password, certain = found
    if certain:
        return values.looks_like_password(password, quoted=False, strict=False)
    return values.prose_password(password) or values.passphrase(password)


_POSTAL = re.compile(r"pin[ \t-]?code[ \t]*:?[ \t]*\d{6}$", re.IGNORECASE)
# What a code opens: "door code", "code for the gate", "garage keypad code".
_OPENS = re.compile(
    r"\b(?:door|gate|alarm|keypad|lock|lockbox|locker|safe|garage|entry|access|building|lobby"
    r"|intercom|buzzer|unlock|padlock|sim|voicemail|atm|bank|debit|credit|card|phone|bike|house"
    r"|apartment|flat|storage|mailbox|box|entrance)\b"
)


def door_code(text: Text, match: Match) -> bool:
    """A PIN, a passcode or a combination; a code only for what it opens (written just
    before it, or after "for"); not India's six-digit postal "PIN code"."""
    if _POSTAL.match(match.group()) is not None:
        return False
    if match.group("word").lower() != "code":
        return True
    before = text.lower[max(0, match.start() - 28) : match.start()]
    return _OPENS.search(before + (match.group("for") or "").lower()) is not None


_ADDRESS_TAIL = re.compile(
    r"@[\w-]+(?:\.[\w-]+)+[ \t]*(?:[:|,]|/(?!/))[ \t]*(?P<password>[^\s/,|]{4,64})"
)


def email_passwords(text: Text) -> Iterator[Match]:
    """What follows an e-mail address after ``:``, ``|``, ``,`` or ``/`` (not in a URL)."""
    value = text.value
    for at in text.at("@"):
        start = at
        while start and (value[start - 1].isalnum() or value[start - 1] in "._+-"):
            start -= 1
        if start < at and value[start - 1 : start] != "/":
            if (match := _ADDRESS_TAIL.match(value, at)) is not None:
                yield match


def email_password(text: Text, match: Match) -> bool:
    """The value after an e-mail address: strong, or letters with two digits or more."""
    password = match.group("password").rstrip(".,;:!?)")
    digits = sum(char.isdigit() for char in password)
    letters = any(char.isalpha() for char in password)
    strong = values.looks_strong(password) or digits >= 2 and letters
    return (strong or values.passphrase(password)) and not values.is_placeholder(password)


def random_key(text: Text, match: Match) -> bool:
    """The group ``key`` looks generated (an API key handed to a client, a listed key)."""
    return values.looks_random(match.group("key"), minimum=16)


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


# --- government identifiers and payment cards ---------------------------------------------

_BEFORE, _AFTER = 48, 24  # how far before and after a number its label stands


def _standing(text: Text, start: int, end: int) -> bool:
    """Not a phone number ("+1 …"), not the digits a mask leaves ("***-**-2388"), not a
    masked number ("XXXXX5150"), not digits inside a UUID or a digest."""
    before, found = text.value[max(0, start - 3) : start], text.value[start:end]
    if before.endswith("+") or re.search(r"[*\u2022#]{2}[- .]?$", before):
        return False
    if "XXX" in found.upper():
        return False
    return not in_hex(text, start, end)


# --- US social security numbers (the contract's rule) -------------------------------------

_ITIN_GROUPS = frozenset([*range(50, 66), *range(70, 89), *range(90, 93), *range(94, 100)])


def ssn_candidates(text: Text) -> Iterator[Span]:
    """``NNN-NN-NNNN`` with no digit glued to either side."""
    shape = text.shape
    at = shape.find(b"000-00-0000")
    while at >= 0:
        end = at + 11
        if shape[at - 1 : at] != b"0" and shape[end : end + 1] != b"0":
            yield at, end
        at = shape.find(b"000-00-0000", at + 1)


def valid_ssn(text: Text, span: Span) -> bool:
    """Issuable (or named an identity), not a placeholder, not labelled as something else."""
    digits = text.value[span[0] : span[1]].replace("-", "")
    label = label_of(text, *span)
    if label == BENIGN or len(set(digits)) == 1 or not _standing(text, *span):
        return False
    area, group, serial = int(digits[:3]), int(digits[3:5]), int(digits[5:])
    issuable = area not in (0, 666) and group and serial and (area < 900 or group in _ITIN_GROUPS)
    return label == IDENTITY or bool(issuable)


# --- national numbers in their own format -------------------------------------------------


_FORMATS: set[bytes] = set()  # the shapes the rules ask for (see formatted)


def _shapes(text: Text) -> dict[bytes, list[Span]]:
    """Every number and every piece of one between spaces in one of the formats the rules
    ask for, by shape (found once per text)."""
    index = text.cache.get("shapes")
    if index is None:
        index = text.cache["shapes"] = {}
        shape = text.shape
        for start, end in numbers(text):
            lettered = shape.endswith(b"AA ", 0, start)  # "AB 12 34 56 C", "AB 123456 C"
            if end - start < 9 and not lettered:
                continue  # no format is shorter
            spans = parts(text, start, end) if b" " in shape[start:end] else [(start, end)]
            if len(spans) > 1:
                spans.append((start, end))
            if lettered:
                spans.append((start - 3, end))
            for span in spans:
                if (key := shape[span[0] : span[1]]) in _FORMATS:
                    index.setdefault(key, []).append(span)
    return index


def formatted(
    shapes: tuple[bytes, ...],
    *,
    labelled: bool = True,
    labels: tuple[str, ...] = (),
    starts: str = "",
) -> Finder:
    """The finder of the numbers written in one of ``shapes``, in upper case (unless a
    label says they are something else, when ``labelled``); with ``labels``, only those
    that one of them names on their line, at most 40 characters before; with ``starts``,
    only those that start so."""

    def find(text: Text) -> Iterator[str]:
        index = _shapes(text)
        for shape in shapes:
            for start, end in index.get(shape, ()):
                if not text.value.startswith(starts, start):
                    continue
                if labels and not _named(text, start, labels):
                    continue
                if _standing(text, start, end) and not (
                    labelled and label_of(text, start, end) == BENIGN
                ):
                    yield text.value[start:end].upper()

    _FORMATS.update(shapes)
    return find


def _named(text: Text, start: int, labels: tuple[str, ...]) -> bool:
    before = text.lower[max(0, start - 40) : start].rpartition("\n")[2]
    return _label_pattern(labels).search(before) is not None


@functools.cache
def _label_pattern(labels: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, labels)) + r")(?!\w)")


# --- numbers a label names as an identity -------------------------------------------------

# Dates (with a time after them or not), decimal amounts and IPv4 addresses are numbers,
# not identifiers.
_NOT_AN_IDENTIFIER = re.compile(
    rb"0{4}[-./]0{2}[-./]0{2}|0{1,2}[-./]0{1,2}[-./]0{2,4}|0+\.0{1,2}|0+,0+|0{1,3}(?:\.0{1,3}){3}(?:/0{1,2}|:0{1,5})?"
)
_YEARS = re.compile(r"(?:19|20)\d\d[-/](?:19|20)?\d\d")


def _identity_shaped(text: Text, start: int, end: int) -> bool:
    shape = text.shape[start:end]
    digits = shape.count(b"0")
    code = shape.isalnum() and (digits >= 2 and len(shape) >= 6 or len(shape) >= 8)
    if digits < 6 and not (code and len(shape) <= 12):
        return False  # six digits or more, or a code of capitals and digits (a passport)
    if _NOT_AN_IDENTIFIER.fullmatch(shape):
        value = text.value[start:end]
        return b"." in shape and any(int(part) > 255 for part in value.split(".") if part.isdigit())
    return _YEARS.fullmatch(text.value, start, end) is None


def identity_candidates(text: Text) -> Iterator[Span]:
    """Each number shaped like an identifier, or each such piece of it, that a word of the
    label of an identity number stands near enough to label."""
    spans = numbers(text)
    marks = sorted(text.spots(_identity_words(text))) if spans else []
    for start, end in spans:
        near = bisect.bisect_left(marks, start - _BEFORE)
        if near == len(marks) or marks[near] > end + _AFTER:
            continue
        if _identity_shaped(text, start, end):
            yield start, end
        elif b" " in text.shape[start:end]:
            yield from (part for part in parts(text, start, end) if _identity_shaped(text, *part))


def labelled_identity(text: Text, span: Span) -> bool:
    return _standing(text, *span) and label_of(text, *span) == IDENTITY


_MBI = re.compile(rb"0A[A0]0-?A[A0]0-?AA00")
_MBI_LETTERS = frozenset("ACDEFGHJKMNPQRTUVWXY")


def medicare_ids(text: Text) -> Iterator[str]:
    """US Medicare beneficiary identifiers (``1EG4-TE5-MK73``) with the letters they use."""
    for start, end in numbers(text):
        found = text.value[start:end]
        if _MBI.fullmatch(text.shape, start, end) and found[0] != "0":
            if all(c in _MBI_LETTERS for c in found if c.isalpha()):
                yield found


# --- payment cards ------------------------------------------------------------------------

# The contract's candidates, on the shape: 13 to 19 digits with at most one space or hyphen
# after each, taken greedily from left to right.
_CANDIDATE = re.compile(rb"0(?<!00)(?:[ -]?0){12,18}(?!0)")
# And four groups or five joined by dots or by a spaced dash: 6559.5450.5012.1801, 2448 - …
# (three are a version: 5600.6396.7189).
_DOTTED_CARD = re.compile(
    rb"0000(?<![0.]0000)(?:(?P<join>\.| - )0000(?P=join)0000(?P=join)0{1,4}(?:(?P=join)0{1,4})?"
    rb"|(?P<amex>\.| - )000000(?P=amex)00000)(?![0.])"
)
_GROUP = re.compile(r"\d+")


_AFTER_A_MASK = re.compile(r"[*\u2022#]{2}[- ]?$")


def _in_a_list(shape: bytes, start: int, end: int) -> bool:
    """Six digit groups or more in a row ("timings 5615 7325 9645 4318 2849 2701") are a
    list of numbers, not a card."""
    while start and shape[start - 1] in b"0 -":
        start -= 1
    while end < len(shape) and shape[end] in b"0 -":
        end += 1
    return len(shape[start:end].replace(b"-", b" ").split()) >= 6


def card_candidates(text: Text) -> Iterator[Span]:
    """The contract's candidates, less the digits inside a digest or a list, or right after
    a mask ("**** **** **** 0600 …")."""
    if text.shape.count(b"0") >= 12:
        found = [*_CANDIDATE.finditer(text.shape), *_DOTTED_CARD.finditer(text.shape)]
        for start, end in (match.span() for match in found):
            if _in_a_list(text.shape, start, end) or in_hex(text, start, end):
                continue
            if not _AFTER_A_MASK.search(text.value, max(0, start - 3), start):
                yield start, end


def _issued(digits: str, grouped: bool) -> bool:
    """True when a major card network issues numbers with this prefix and length (Maestro's
    shorter ones only when written in groups)."""
    size = len(digits)
    two, three, four, six = (int(digits[:n]) for n in (2, 3, 4, 6))
    networks = (
        (digits[0] == "4", size in (13, 16, 19)),  # Visa
        (51 <= two <= 55 or 2221 <= four <= 2720, size == 16),  # Mastercard
        (two in (34, 37), size == 15),  # American Express
        (
            four == 6011 or 644 <= three <= 649 or two == 65 or 622126 <= six <= 622925,
            16 <= size <= 19,
        ),
        (300 <= three <= 305 or four == 3095 or two in (36, 38, 39), 14 <= size <= 19),
        (3528 <= four <= 3589, 16 <= size <= 19),  # JCB
        (two in (62, 81), 16 <= size <= 19),  # UnionPay
        (two == 50 or 56 <= two <= 69, (12 if grouped else 16) <= size <= 19),  # Maestro
        (2200 <= four <= 2204, 16 <= size <= 19),  # Mir
        (two in (60, 65, 81, 82) or three == 508, size == 16),  # RuPay
        (four == 9792, size == 16),  # Troy
        (digits[0] == "1", size == 15),  # UATP
    )
    return any(prefix and length for prefix, length in networks)


def _layout(sizes: list[int], *, irregular: bool = False) -> bool:
    """How people write a card: unbroken, in fours, 4-6-5, or (``irregular``, for a number
    that stands alone) two to four groups of three or more digits, the first of four or more.
    Two numbers side by side ("10 2321661931417") pass Luhn together only by chance."""
    if len(sizes) == 1 or sizes in ([4, 6, 5], [4, 6, 4]):
        return True
    if all(size == 4 for size in sizes[:-1]) and 1 <= sizes[-1] <= 4:
        return True
    return irregular and len(sizes) <= 4 and sizes[0] >= 4 and all(3 <= n <= 12 for n in sizes)


def _is_card(text: Text, span: Span, label: str | None, digits: str, written: bool) -> bool:
    if not luhn(digits) or len(set(digits)) == 1 or text.value[span[0] - 1 : span[0]] == "+":
        return False
    if label == BENIGN or not (written or label == CARD):
        return False
    grouped = span[1] - span[0] > len(digits)
    return label == CARD or (
        not (digits[:3] in ("978", "979") and ean13(digits)) and _issued(digits, grouped)
    )


def card_number(text: Text, span: Span) -> bool:
    """The candidate, or a run of its groups, is a card number (see the module docstring).
    A run of groups takes the label of the whole number (an IBAN's groups are no card)."""
    value = text.value
    groups = [match.span() for match in _GROUP.finditer(value, *span)]
    sizes = [stop - begin for begin, stop in groups]
    digits = "".join(value[begin:stop] for begin, stop in groups)
    label = label_of(text, *span)
    if _is_card(text, span, label, digits, _layout(sizes, irregular=True)):
        return True
    for first in range(len(groups)):  # "4111111111111111 0": the card is a run of groups
        for last in range(first, len(groups)):
            total = sum(sizes[first : last + 1])
            if total > 19:
                break
            if total >= 13 and (first, last) != (0, len(groups) - 1):
                run = "".join(value[b:e] for b, e in groups[first : last + 1])
                if _layout(sizes[first : last + 1]):
                    if _is_card(text, (groups[first][0], groups[last][1]), label, run, True):
                        return True
    return False


def iban(text: Text, match: Match) -> bool:
    """An IBAN whose mod-97 check holds (python-stdnum's ``iban``)."""
    return stdnum("iban")(match.group().replace(" ", ""))


# --- keywords kept with their finders -----------------------------------------------------

IDENTITY_KEYWORDS = tuple(
    sorted(
        {w for w, kind in LABELS.items() if kind == IDENTITY}
        | {w for pair in PHRASES for w in pair}
        | {i for i, kind in LABEL_INFIXES if kind == IDENTITY}
    )
)

_IDENTITY_ASCII = frozenset(w.encode() for w in IDENTITY_KEYWORDS if w.isascii() and w.isalnum())
_IDENTITY_OTHER, _IDENTITY_TAILS = foreign_pattern(
    [w for w in IDENTITY_KEYWORDS if w.encode() not in _IDENTITY_ASCII]
)


def _identity_words(text: Text) -> list[str]:
    """The words of identity labels that occur in the text."""
    found = [word.decode() for word in text.words & _IDENTITY_ASCII]
    if _IDENTITY_OTHER is not None and not text.value.isascii():
        found += {_IDENTITY_TAILS[m.group()] for m in _IDENTITY_OTHER.finditer(text.lower)}
    return found
