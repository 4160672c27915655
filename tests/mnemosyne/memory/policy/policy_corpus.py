# ruff: noqa: E501 (test data: one realistic text per line)
"""A corpus of realistic memory texts for the content policy, built by generators.

:data:`SENSITIVE` and :data:`BENIGN` map a class name to its texts. Every secret here is
made up from a fixed seed: random bodies with the prefixes, alphabets, lengths and check
digits of the real formats (GitHub's CRC32, Luhn for cards, the national check digits), so
no text is a real credential. :func:`figures` counts what the policy refuses per class.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import zlib
from collections.abc import Callable, Iterable

from mymcp.plugins.mnemosyne.memory.policy import bip39, first_violation

_rng = random.Random(20260701)

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64URL = ALNUM + "-_"
B64 = ALNUM + "+/"
BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
BASE32 = string.ascii_uppercase + "234567"


def rand(alphabet: str, size: int) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(size))


def pick(options: Iterable[str]) -> str:
    return _rng.choice(list(options))


def _base62(number: int, width: int) -> str:
    out = ""
    while number:
        number, digit = divmod(number, 62)
        out = ALNUM[digit] + out
    return out.rjust(width, "0")


def github_token(prefix: str = "ghp_") -> str:
    """A classic GitHub token: 30 random base62 characters and their CRC32 in base62."""
    body = rand(ALNUM, 30)
    return prefix + body + _base62(zlib.crc32(body.encode()), 6)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def jwt(payload: dict[str, object] | None = None, alg: str = "HS256") -> str:
    header = b64url(json.dumps({"alg": alg, "typ": "JWT"}).encode())
    body = payload or {"sub": rand(string.digits, 8), "iat": 1_700_000_000 + _rng.randrange(10**7)}
    signature = b64url(_rng.randbytes(32 if alg == "HS256" else 256))
    return f"{header}.{b64url(json.dumps(body).encode())}.{signature}"


def luhn_complete(prefix: str, length: int) -> str:
    body = prefix + rand(string.digits, length - len(prefix) - 1)
    for check in string.digits:
        candidate = body + check
        total = 0
        for position, char in enumerate(reversed(candidate)):
            digit = int(char)
            if position % 2:
                digit = digit * 2 - 9 if digit > 4 else digit * 2
            total += digit
        if total % 10 == 0:
            return candidate
    raise AssertionError("unreachable")


def base58check(payload: bytes) -> str:
    data = payload + hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    number = int.from_bytes(data, "big")
    out = ""
    while number:
        number, digit = divmod(number, 58)
        out = BASE58[digit] + out
    return "1" * (len(data) - len(data.lstrip(b"\0"))) + out


# --- wrappers: where a secret stands in a memory ------------------------------------------

_PROSE = (
    "Remember for the deploy: {s}",
    "Note from the call with the vendor, they sent {s} to use for now.",
    "Staging uses {s} until we rotate it.",
    "- CI secret: `{s}`",
    "The integration stopped working after {s} was revoked; new one is pending.",
    "Pasted from the dashboard:\n\n```\n{s}\n```",
    "{s}",
    "Keep this handy ({s}) for the migration on Friday.",
)
_CODE = (
    '{name} = "{s}"',
    "export {NAME}='{s}'",
    "{NAME}={s}",
    '{{"{name}": "{s}", "region": "eu-west-1"}}',
    "{name}: {s}",
    'client = Client({name}="{s}")',
    "docker run -e {NAME}={s} app:latest",
    '<add key="{name}" value="{s}" />',
)


def wrap(secret: str, name: str = "api_key", *, prose: bool = True, code: bool = True) -> list[str]:
    texts = []
    if prose:
        texts += [template.format(s=secret) for template in _rng.sample(_PROSE, 4)]
    if code:
        texts += [
            template.format(s=secret, name=name, NAME=name.upper())
            for template in _rng.sample(_CODE, 3)
        ]
    return texts


def _many(make: Callable[[], list[str]], rounds: int) -> list[str]:
    out: list[str] = []
    for _ in range(rounds):
        out += make()
    return out


# --- sensitive: provider credentials -----------------------------------------------------


def _cloud() -> list[str]:
    def one() -> list[str]:
        access = pick(["AKIA", "ASIA"]) + rand(UPPER_ALNUM, 16)
        secret = rand(B64, 40)
        account = rand(string.ascii_lowercase, 10)
        azure_key = base64.b64encode(_rng.randbytes(64)).decode()
        sas = (
            f"sv=2022-11-02&ss=bfqt&srt=sco&sp=rwdlacupiytfx&se=2026-12-31T23:59:59Z"
            f"&st=2026-01-01T00:00:00Z&spr=https&sig={rand(B64, 43)}%3D"
        )
        client_secret = (
            rand(ALNUM + "_~.-", 3) + str(_rng.randrange(10)) + "Q~" + rand(ALNUM + "_~.-", 34)
        )
        return [
            *wrap(access, "aws_access_key_id", code=False),
            f"aws_access_key_id = {access}\naws_secret_access_key = {secret}",
            f"AWS_SECRET_ACCESS_KEY={secret}",
            f"The AWS secret access key is {secret}",
            f"aws_session_token = IQoJb3JpZ2luX2VjE{rand(B64, 300)}",
            f"DefaultEndpointsProtocol=https;AccountName={account};AccountKey={azure_key};"
            "EndpointSuffix=core.windows.net",
            f"https://{account}.blob.core.windows.net/backups?{sas}",
            f"Azure app registration client secret: {client_secret}",
            f"AZURE_CLIENT_SECRET={client_secret}",
            f"Endpoint=sb://{account}.servicebus.windows.net/;SharedAccessKeyName=RootManage"
            f"SharedAccessKey;SharedAccessKey={rand(B64, 43)}=",
            *wrap("AIza" + rand(B64URL, 35), "google_api_key"),
            f"GOOGLE_CLIENT_SECRET=GOCSPX-{rand(B64URL, 28)}",
            f"refresh_token: 1//0{rand(B64URL, 60)}",
            f"gcloud printed ya29.{rand(B64URL, 120)} as the access token",
        ]

    return _many(one, 4)


def _code_hosts() -> list[str]:
    def one() -> list[str]:
        return [
            *wrap(github_token(pick(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"])), "github_token"),
            *wrap("github_pat_" + rand(ALNUM, 22) + "_" + rand(ALNUM, 59), "gh_token"),
            *wrap("glpat-" + rand(B64URL, 20), "gitlab_token"),
            *wrap("npm_" + rand(ALNUM, 36), "npm_token"),
            f"//registry.npmjs.org/:_authToken=npm_{rand(ALNUM, 36)}",
            *wrap("pypi-AgEIcHlwaS5vcmc" + rand(B64URL, 140), "pypi_token"),
            f"[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmc{rand(B64URL, 140)}",
            f"docker login -u deploy -p dckr_pat_{rand(B64URL, 27)}",
        ]

    return _many(one, 3)


def _ai_providers() -> list[str]:
    def one() -> list[str]:
        return [
            *wrap("sk-proj-" + rand(B64URL, 156), "openai_api_key"),
            *wrap("sk-" + rand(ALNUM, 48), "openai_api_key", code=False),
            *wrap("sk-ant-api03-" + rand(B64URL, 93) + "AA", "anthropic_api_key"),
            *wrap("hf_" + rand(string.ascii_letters, 34), "hf_token"),
            f"GROQ_API_KEY=gsk_{rand(ALNUM, 52)}",
            f"replicate token r8_{rand(ALNUM, 37)}",
            f"PERPLEXITY_API_KEY=pplx-{rand(ALNUM, 48)}",
            f"xai key: xai-{rand(ALNUM, 80)}",
            f"mistral api key is {rand(ALNUM, 32)}",
            f"COHERE_API_KEY={rand(ALNUM, 40)}",
        ]

    return _many(one, 3)


def _payments() -> list[str]:
    def one() -> list[str]:
        return [
            *wrap("sk_live_" + rand(ALNUM, 99), "stripe_secret_key"),
            *wrap("rk_live_" + rand(ALNUM, 99), "stripe_restricted_key", code=False),
            f"STRIPE_WEBHOOK_SECRET=whsec_{rand(ALNUM, 32)}",
            f"square access token sq0atp-{rand(B64URL, 22)}",
            f"SQUARE_APPLICATION_SECRET=sq0csp-{rand(B64URL, 43)}",
            f"Shopify admin token shpat_{rand(HEX, 32)}",
            f"RAZORPAY_KEY_SECRET={rand(ALNUM, 24)}",
            f"braintree: access_token$production${rand(LOWER_ALNUM, 16)}${rand(HEX, 32)}",
            f"paypal client secret = {rand(B64URL, 80)}",
        ]

    return _many(one, 4)


def _messaging() -> list[str]:
    def one() -> list[str]:
        team, channel = "T" + rand(UPPER_ALNUM, 9), "B" + rand(UPPER_ALNUM, 9)
        user_id = b64url(str(_rng.randrange(10**17, 10**19)).encode())
        return [
            *wrap(f"xoxb-{rand(string.digits, 12)}-{rand(string.digits, 13)}-{rand(ALNUM, 24)}"),
            f"SLACK_USER_TOKEN=xoxp-{rand(string.digits, 12)}-{rand(string.digits, 12)}-"
            f"{rand(string.digits, 13)}-{rand(HEX, 32)}",
            f"app-level token xapp-1-A{rand(UPPER_ALNUM, 10)}-{rand(string.digits, 13)}-{rand(HEX, 64)}",
            f"Alerts go to https://hooks.slack.com/services/{team}/{channel}/{rand(ALNUM, 24)}",
            f"discord bot token {user_id}.{rand(B64URL, 6)}.{rand(B64URL, 38)}",
            f"DISCORD_WEBHOOK=https://discord.com/api/webhooks/{rand(string.digits, 19)}/"
            f"{rand(B64URL, 68)}",
            f"telegram bot: {_rng.randrange(10**8, 10**10)}:AA{rand(B64URL, 33)}",
            f"TWILIO_API_KEY=SK{rand(HEX, 32)}\nTWILIO_API_SECRET={rand(ALNUM, 32)}",
            f"twilio auth token is {rand(HEX, 32)}",
            f"SENDGRID_API_KEY=SG.{rand(B64URL, 22)}.{rand(B64URL, 43)}",
            f"Teams channel hook: https://contoso.webhook.office.com/webhookb2/{rand(HEX, 8)}-"
            f"{rand(HEX, 4)}-{rand(HEX, 4)}-{rand(HEX, 4)}-{rand(HEX, 12)}@{rand(HEX, 8)}/"
            f"IncomingWebhook/{rand(HEX, 32)}/{rand(HEX, 8)}",
            f"mailgun key-{rand(HEX, 32)}",
        ]

    return _many(one, 3)


def _devops() -> list[str]:
    def one() -> list[str]:
        return [
            f"DIGITALOCEAN_TOKEN=dop_v1_{rand(HEX, 64)}",
            f"heroku: HRKU-{rand(B64URL, 60)}",
            f"VAULT_TOKEN=hvs.{rand(B64URL, 90)}",
            f"doppler service token dp.st.prd.{rand(ALNUM, 40)}",
            f"LINEAR_API_KEY=lin_api_{rand(ALNUM, 40)}",
            f"notion integration ntn_{rand(ALNUM, 46)}",
            f"SENTRY_AUTH_TOKEN=sntrys_{rand(B64, 90)}",
            f"new relic NRAK-{rand(UPPER_ALNUM, 27)}",
            f"grafana service account glsa_{rand(ALNUM, 32)}_{rand(HEX, 8)}",
            f"postman PMAK-{rand(HEX, 24)}-{rand(HEX, 34)}",
            f"DATABRICKS_TOKEN=dapi{rand(HEX, 32)}",
            f"atlassian token ATATT3xFfGF0{rand(B64URL, 170)}",
            f"TS_AUTHKEY=tskey-auth-{rand(ALNUM, 12)}-{rand(ALNUM, 30)}",
            f"datadog DD_API_KEY={rand(HEX, 32)}",
            f"CLOUDFLARE_API_TOKEN={rand(B64URL, 40)}",
            f"terraform cloud token {rand(ALNUM, 14)}.atlasv1.{rand(B64URL, 67)}",
            f"supabase service key sbp_{rand(HEX, 40)}",
            f"Jenkins API token for ci-bot: {rand(HEX, 34)}",
        ]

    return _many(one, 3)


# --- sensitive: private keys, contextual credentials, tokens, wallets ------------------------


def _pem(kind: str, body_lines: int = 4) -> str:
    lines = [rand(B64, 64) for _ in range(body_lines)]
    return f"-----BEGIN {kind}-----\n" + "\n".join(lines) + f"\n-----END {kind}-----"


def _private_keys() -> list[str]:
    def one() -> list[str]:
        der = pick(
            [
                "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ",
                "MIIEpAIBAAKCAQEA",
                "MHcCAQEEI",
                "MC4CAQAwBQYDK2VwBCIEI",
            ]
        )
        return [
            _pem(pick(["RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "DSA PRIVATE KEY"])),
            _pem("OPENSSH PRIVATE KEY").replace("\n", "\nb3BlbnNzaC1rZXktdjEAAAAA", 1),
            _pem("ENCRYPTED PRIVATE KEY"),
            "Proc-Type: 4,ENCRYPTED\n" + _pem("RSA PRIVATE KEY"),
            _pem("PGP PRIVATE KEY BLOCK"),
            "deploy key (no footer):\n-----BEGIN OPENSSH PRIVATE KEY-----\n" + rand(B64, 70),
            '"private_key": "-----BEGIN PRIVATE KEY-----\\n' + rand(B64, 64) + '\\n"',
            "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\n"
            f"Public-Lines: 2\n{rand(B64, 64)}\nPrivate-Lines: 1\n{rand(B64, 44)}",
            json.dumps(
                {
                    "kty": "EC",
                    "crv": "P-256",
                    "x": b64url(_rng.randbytes(32)),
                    "y": b64url(_rng.randbytes(32)),
                    "d": b64url(_rng.randbytes(32)),
                }
            ),
            json.dumps(
                {
                    "kty": "RSA",
                    "n": b64url(_rng.randbytes(256)),
                    "e": "AQAB",
                    "d": b64url(_rng.randbytes(256)),
                }
            ),
            f"key body without the armour: {der}{rand(B64, 120)}",
            "client-key-data: " + base64.b64encode(_pem("RSA PRIVATE KEY").encode()).decode(),
            "age key: AGE-SECRET-KEY-1" + rand("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
            f"[Interface]\nPrivateKey = {base64.b64encode(_rng.randbytes(32)).decode()}\n"
            "Address = 10.0.0.2/32",
            "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\n" + rand(B64, 64),
        ]

    return _many(one, 3)


_PASSWORDS = ("hunter2", "Tr0ub4dor&3", "S3cure!Pass", "correct-Horse-42", "Zq8#mX2!vLp",
              "letmein123", "P@ssw0rd2024", "blue-Falcon-77", "qwerty!9", "Summer2025!")  # fmt: skip


def _context() -> list[str]:
    def one() -> list[str]:
        password = pick(_PASSWORDS) + rand(string.digits, 2)
        token = rand(ALNUM, 40)
        user = pick(["admin", "deploy", "alice", "svc_backup", "root"])
        return [
            f"Authorization: Bearer {token}",
            f'curl -H "Authorization: Basic {base64.b64encode(f"{user}:{password}".encode()).decode()}" https://api.internal/',
            f"Use Bearer {rand(B64URL, 48)} for the staging API",
            f"x-api-key: {rand(ALNUM, 32)}",
            f'headers = {{"X-Auth-Token": "{rand(HEX, 40)}"}}',
            f"DB_PASSWORD={password}",
            f"POSTGRES_PASSWORD: {password}",
            f'"password": "{password}"',
            f"mysql -u {user} --password={password} prod",
            f"<password>{password}</password>",
            f"ALTER USER {user} WITH PASSWORD '{password}';",
            f"spring.datasource.password={password}",
            f"postgres://{user}:{password}@db.internal:5432/app",
            f"redis://:{password}@cache.internal:6379/0",
            f"https://api.example.com/v2/report?api_key={rand(ALNUM, 32)}&format=csv",
            f"GET /export?access_token={rand(B64URL, 40)} HTTP/1.1",
            f"The wifi password is {password}",
            f"My password for the NAS is {password}",
            f"Login for the router: {user} / {password}",
            f"Das Passwort für den Server lautet {password}",
            f"Le mot de passe est {password}",
            f"La contraseña del correo es {password}",
            f"A senha do banco é {password}",
            f"Het wachtwoord is {password}",
            f"Пароль от почты: {password}",
            f"数据库密码是{password}",
            f"サーバーのパスワードは{password}です",
            f"관리자 비밀번호는 {password}",
            f"Cookie: sessionid={rand(LOWER_ALNUM, 32)}; csrftoken={rand(ALNUM, 32)}",
            f"Set-Cookie: connect.sid=s%3A{rand(B64URL, 32)}.{rand(B64URL, 43)}; Path=/; HttpOnly",
            f"JSESSIONID={rand('0123456789ABCDEF', 32)}",
            f"GitHub recovery codes: {rand(HEX, 5)}-{rand(HEX, 5)} {rand(HEX, 5)}-{rand(HEX, 5)} "
            f"{rand(HEX, 5)}-{rand(HEX, 5)}",
            f"backup codes for google: {rand(string.digits, 4)} {rand(string.digits, 4)}, "
            f"{rand(string.digits, 4)} {rand(string.digits, 4)}",
            f"otpauth://totp/Example:{user}@example.com?secret={rand(BASE32, 32)}&issuer=Example",
            f"2FA setup key: {' '.join(rand(BASE32, 4) for _ in range(8))}",
            f"TOTP secret {rand(BASE32, 16)}",
            f"curl -u {user}:{password} https://ci.internal/api/json",
        ]

    return _many(one, 2)


def _compact_tokens() -> list[str]:
    def one() -> list[str]:
        unsigned = ".".join(
            [b64url(b'{"alg":"none"}'), b64url(json.dumps({"sub": rand(HEX, 8)}).encode()), ""]
        )
        jwe = ".".join(
            [
                b64url(b'{"alg":"dir","enc":"A256GCM"}'),
                "",
                b64url(_rng.randbytes(12)),
                b64url(_rng.randbytes(60)),
                b64url(_rng.randbytes(16)),
            ]
        )
        return [
            f"id token from the login: {jwt()}",
            jwt({"sub": "user-" + rand(string.digits, 6), "role": "admin"}, alg="RS256"),
            f"Service account JWT `{jwt(alg='RS256')}` expires tomorrow",
            f"unsigned token {unsigned}",
            f"encrypted: {jwe}",
            f"paseto v4.local.{rand(B64URL, 120)}",
            f"fernet token gAAAAA{rand(B64URL, 120)}==",
        ]

    return _many(one, 5)


def _seed_phrase(size: int) -> str:
    return " ".join(_rng.choice(sorted(bip39.WORDS)) for _ in range(size))


def _wallets() -> list[str]:
    def one() -> list[str]:
        words12, words24 = _seed_phrase(12), _seed_phrase(24)
        numbered = "\n".join(f"{i}. {w}" for i, w in enumerate(_seed_phrase(12).split(), 1))
        wif = base58check(b"\x80" + _rng.randbytes(32) + b"\x01")
        xprv = base58check(bytes.fromhex("0488ade4") + _rng.randbytes(74))
        return [
            f"MetaMask secret recovery phrase: {words12}",
            f"seed words (ledger backup): {words24}",
            f"Wallet mnemonic\n{numbered}",
            f"My 12 words are {words12}",
            f"bitcoin wallet WIF key {wif}",
            f"{wif}",
            f"xprv for the cold wallet: {xprv}",
            f"ETH wallet private key: 0x{rand(HEX, 64)}",
            f"PRIVATE_KEY=0x{rand(HEX, 64)}",
            f"solana private key {base58check(_rng.randbytes(60))}",
        ]

    return _many(one, 4)


def _cards() -> list[str]:
    def one() -> list[str]:
        numbers = [
            luhn_complete("4", 16),
            luhn_complete(pick(["51", "52", "53", "54", "55", "2221", "2720"]), 16),
            luhn_complete(pick(["34", "37"]), 15),
            luhn_complete(pick(["6011", "65", "644"]), 16),
            luhn_complete(pick(["3528", "3589"]), 16),
            luhn_complete(pick(["36", "38"]), 14),
            luhn_complete("62", 16),
            luhn_complete("4", 13),
            luhn_complete("6759", 18),
        ]
        texts = []
        for number in numbers:
            grouped = " ".join(number[i : i + 4] for i in range(0, len(number), 4))
            dashed = "-".join(number[i : i + 4] for i in range(0, len(number), 4))
            texts += [
                f"Company card {grouped} exp 09/28",
                f"pay with {number}",
                f"card number: {dashed}",
                f"Visa ending… no, full number is {number}, CVV on the back",
            ]
        return texts

    return _many(one, 2)


def _ssn() -> str:
    while True:
        area, group, serial = (
            _rng.randrange(1, 900),
            _rng.randrange(1, 100),
            _rng.randrange(1, 10000),
        )
        if area != 666:
            return f"{area:03d}-{group:02d}-{serial:04d}"


def _cpf() -> str:
    digits = rand(string.digits, 9)
    for weights in (range(10, 1, -1), range(11, 1, -1)):
        total = sum(int(d) * w for d, w in zip(digits, weights, strict=False))
        digits += str(total * 10 % 11 % 10)
    return f"{digits[:3]}.{digits[3:6]}.{digits[6:9]}-{digits[9:]}"


def _dni() -> str:
    number = _rng.randrange(10**7, 10**8)
    return f"{number}{'TRWAGMYFPDXBNJZSQVHLCKE'[number % 23]}"


def _aadhaar() -> str:
    from stdnum import verhoeff

    while True:
        number = str(_rng.randrange(2, 10)) + rand(string.digits, 11)
        if verhoeff.is_valid(number):
            return f"{number[:4]} {number[4:8]} {number[8:]}"


def _personnummer() -> str:
    while True:
        body = f"{_rng.randrange(40, 99):02d}{_rng.randrange(1, 13):02d}{_rng.randrange(1, 29):02d}"
        digits = body + rand(string.digits, 4)
        total = 0
        for position, char in enumerate(reversed(digits)):
            digit = int(char)
            if position % 2:
                digit = digit * 2 - 9 if digit > 4 else digit * 2
            total += digit
        if total % 10 == 0:
            return f"{body}-{digits[6:]}"


def _china_id() -> str:
    region = pick(["110101", "310104", "440305", "510107"])
    birth = f"{_rng.randrange(1950, 2010)}{_rng.randrange(1, 13):02d}{_rng.randrange(1, 29):02d}"
    body = region + birth + rand(string.digits, 3)
    total = 0
    for char in body:
        total = (total + int(char)) * 2
    check = (12 - total % 11) % 11
    return body + ("X" if check == 10 else str(check))


def _nino() -> str:
    return pick(["AB", "CE", "JG", "PR", "WX"]) + rand(string.digits, 6) + pick("ABCD")


def _codice_fiscale() -> str:
    odd = dict(zip("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                   (1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4,
                    18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23), strict=True))  # fmt: skip
    body = (
        rand(string.ascii_uppercase, 6)
        + f"{_rng.randrange(100):02d}"
        + pick("ABCDEHLMPRST")
        + f"{_rng.randrange(1, 29):02d}"
        + pick(string.ascii_uppercase)
        + rand(string.digits, 3)
    )
    total = sum(
        odd[c] if i % 2 == 0 else (int(c) if c.isdigit() else ord(c) - 65)
        for i, c in enumerate(body)
    )
    return body + chr(65 + total % 26)


def _government() -> list[str]:
    def one() -> list[str]:
        ssn = _ssn()
        return [
            f"SSN {ssn}",
            f"Her social security number is {ssn}.",
            f"{ssn}",
            f"ssn: {ssn.replace('-', '')}",
            f"SSN {ssn.replace('-', ' ')}",
            f"ITIN 9{rand(string.digits, 2)}-{pick(['70', '78', '88', '90', '94'])}-{rand(string.digits, 4)}",
            f"US passport number {rand(string.digits, 9)}",
            f"driver's license D{rand(string.digits, 7)}",
            f"NI number {_nino()}",
            f"SIN: {rand(string.digits, 3)} {rand(string.digits, 3)} {rand(string.digits, 3)}",
            f"Aadhaar {_aadhaar()}",
            f"PAN card ABC{pick('PCH')}{pick(string.ascii_uppercase)}{rand(string.digits, 4)}{pick(string.ascii_uppercase)}",
            f"CPF do cliente: {_cpf()}",
            f"身份证号码：{_china_id()}",
            f"DNI {_dni()}",
            f"codice fiscale {_codice_fiscale()}",
            f"personnummer {_personnummer()}",
            f"PESEL: {rand(string.digits, 11)}",
            f"Steuer-ID {rand('123456789', 1)}{rand(string.digits, 10)}",
            f"BSN {rand(string.digits, 9)}",
            f"TFN {rand(string.digits, 3)} {rand(string.digits, 3)} {rand(string.digits, 3)}",
            f"passport no. C{rand(UPPER_ALNUM, 8)}",
            f"Passeport n° {rand(string.digits, 2)}{rand(string.ascii_uppercase, 2)}{rand(string.digits, 5)}",
            f"national ID number {rand(string.digits, 10)}",
        ]

    return _many(one, 3)


SENSITIVE: dict[str, list[str]] = {
    "cloud credentials": _cloud(),
    "code host and registry tokens": _code_hosts(),
    "AI provider keys": _ai_providers(),
    "payment provider keys": _payments(),
    "messaging tokens and webhooks": _messaging(),
    "DevOps and SaaS tokens": _devops(),
    "private keys": _private_keys(),
    "credentials in context": _context(),
    "compact tokens": _compact_tokens(),
    "wallet secrets": _wallets(),
    "payment cards": _cards(),
    "government identifiers": _government(),
}


# --- benign look-alikes ---------------------------------------------------------------------


def _versions() -> list[str]:
    def one() -> list[str]:
        a, b, c = _rng.randrange(30), _rng.randrange(100), _rng.randrange(1000)
        return [
            f"Upgraded fastapi to {a}.{b}.{c} and pinned uvicorn {a}.{b}",
            f"Release v{a}.{b}.{c}-rc.{_rng.randrange(9)} ships on Monday",
            f"python {a}.{b}.{c}+build.{rand(HEX, 7)}",
            f"node >= {a}.{b}, npm {a}.{c}.{b}",
            f"Chrome {_rng.randrange(90, 140)}.0.{_rng.randrange(4000, 7000)}.{_rng.randrange(200)}",
        ]

    return _many(one, 10)


def _dates() -> list[str]:
    def one() -> list[str]:
        y, m, d = _rng.randrange(1990, 2035), _rng.randrange(1, 13), _rng.randrange(1, 29)
        h, mi, s = _rng.randrange(24), _rng.randrange(60), _rng.randrange(60)
        return [
            f"Meeting moved to {y}-{m:02d}-{d:02d} at {h:02d}:{mi:02d}",
            f"deadline {d:02d}/{m:02d}/{y}, review {m}/{d}/{y % 100:02d}",
            f"logged at {y}-{m:02d}-{d:02d}T{h:02d}:{mi:02d}:{s:02d}.{rand(string.digits, 3)}Z",
            f"epoch {1_600_000_000 + _rng.randrange(10**8)} / ms {1_600_000_000_000 + _rng.randrange(10**11)}",
            f"{d}.{m}.{y} um {h}:{mi:02d} Uhr",
        ]

    return _many(one, 10)


def _uuids() -> list[str]:
    def one() -> list[str]:
        u = f"{rand(HEX, 8)}-{rand(HEX, 4)}-4{rand(HEX, 3)}-{pick('89ab')}{rand(HEX, 3)}-{rand(HEX, 12)}"
        return [
            f"request id {u}",
            f"The tenant UUID is {u}.",
            f'{{"id": "{u}", "status": "ok"}}',
            f"trace_id={rand(HEX, 32)} span_id={rand(HEX, 16)}",
            f"correlation-id: {u.upper()}",
        ]

    return _many(one, 10)


def _shas() -> list[str]:
    def one() -> list[str]:
        sha = rand(HEX, 40)
        return [
            f"Fixed in commit {sha}",
            f"git checkout {sha[:7]} && git cherry-pick {rand(HEX, 40)}",
            f"merge base is {sha}; rebased onto {rand(HEX, 12)}",
            f'Revert "{rand(HEX, 7)}" because the build broke',
            f"docker image sha256:{rand(HEX, 64)}",
        ]

    return _many(one, 10)


def _digests() -> list[str]:
    def one() -> list[str]:
        return [
            f"SHA-256 of the installer: {rand(HEX, 64)}",
            f"md5sum {rand(HEX, 32)}  backup.tar.gz",
            f'integrity: "sha512-{rand(B64, 86)}=="',
            f"SSH host key fingerprint SHA256:{rand(B64, 43)}",
            f"checksum (sha1) {rand(HEX, 40)}",
        ]

    return _many(one, 10)


def _base64() -> list[str]:
    def one() -> list[str]:
        text = pick(["hello world", "meeting notes for tuesday", '{"enabled": true}', "v=1"])
        return [
            f"The payload was {base64.b64encode(text.encode()).decode()} (base64)",
            f"data:image/png;base64,iVBORw0KGgo{rand(B64, 60)}",
            f"encoded config: {base64.b64encode(json.dumps({'page': _rng.randrange(9)}).encode()).decode()}",
            f"cursor token in the API response: {b64url(json.dumps({'offset': _rng.randrange(999)}).encode())}",
        ]

    return _many(one, 10)


def _identifiers() -> list[str]:
    def one() -> list[str]:
        return [
            "mymcp.plugins.mnemosyne.memory.policy.context handles assignments",
            f"class {pick(['Token', 'Password', 'Secret'])}Validator(BaseModel): pass",
            "def rotate_api_key(user_id: str) -> None:",
            "The function get_access_token_from_cache() returns None when expired",
            f"See src/auth/token_store.py line {_rng.randrange(900)}",
            "import secrets; token = secrets.token_urlsafe(32)",
            "password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt())",
        ]

    return _many(one, 8)


def _hostnames() -> list[str]:
    def one() -> list[str]:
        host = f"{pick(['api', 'db', 'cache', 'auth', 'token-service'])}-{rand(LOWER_ALNUM, 5)}"
        return [
            f"{host}.internal.example.com resolves to the new cluster",
            f"ssh deploy@{host}.prod.example.net",
            f"Added {host}.eu-west-1.compute.amazonaws.com to known_hosts",
            f"CNAME {host}.example.org -> lb-{rand(string.digits, 6)}.elb.amazonaws.com",
        ]

    return _many(one, 10)


def _urls() -> list[str]:
    def one() -> list[str]:
        return [
            f"Docs: https://docs.example.com/api/v{_rng.randrange(5)}/tokens#refresh",
            f"https://github.com/example/repo/pull/{_rng.randrange(9999)}",
            f"https://example.com/search?q=password+reset&page={_rng.randrange(9)}",
            f"git clone git@github.com:example/{rand(string.ascii_lowercase, 6)}.git",
            "https://user@example.com/login redirects to https://example.com:8443/app",
            "https://api.slack.com/messaging/webhooks explains incoming webhooks",
            "https://example.com/webhooks/github receives push events",
        ]

    return _many(one, 8)


def _ips() -> list[str]:
    def one() -> list[str]:
        ip = ".".join(str(_rng.randrange(256)) for _ in range(4))
        return [
            f"Allow {ip}/32 in the security group",
            f"VPC CIDR 10.{_rng.randrange(256)}.0.0/16, subnet 10.0.{_rng.randrange(256)}.0/24",
            f"IPv6 2001:db8:{rand(HEX, 4)}::{rand(HEX, 4)}",
            f"nginx listens on {ip}:8443",
        ]

    return _many(one, 10)


def _phones() -> list[str]:
    def one() -> list[str]:
        return [
            f"Call the office at +1 ({_rng.randrange(200, 999)}) {_rng.randrange(200, 999)}-{rand(string.digits, 4)}",
            f"Mobile: +44 7{rand(string.digits, 3)} {rand(string.digits, 6)}",
            f"Tel. +49 30 {rand(string.digits, 8)}",
            f"phone {_rng.randrange(200, 999)}-{_rng.randrange(200, 999)}-{rand(string.digits, 4)}",
            f"+33 6 {rand(string.digits, 2)} {rand(string.digits, 2)} {rand(string.digits, 2)} {rand(string.digits, 2)}",
            f"Support hotline 0800 {rand(string.digits, 3)} {rand(string.digits, 4)}",
            f"WhatsApp +91 {rand('6789', 1)}{rand(string.digits, 9)}",
        ]

    return _many(one, 7)


def _isbn13() -> str:
    body = pick(["978", "979"]) + rand(string.digits, 9)
    check = (10 - sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(body)) % 10) % 10
    return f"{body[:3]}-{body[3]}-{body[4:8]}-{body[8:]}-{check}"


def _catalog() -> list[str]:
    def one() -> list[str]:
        return [
            f"ISBN {_isbn13()}",
            f"Read 'Designing Data-Intensive Applications' (ISBN {_isbn13().replace('-', '')})",
            f"doi:10.{_rng.randrange(1000, 9999)}/{rand(LOWER_ALNUM, 8)}",
            f"arXiv:{_rng.randrange(1000, 2999)}.{rand(string.digits, 5)}",
            f"EAN {luhn_complete('40', 13)}",
            f"ISSN {rand(string.digits, 4)}-{rand(string.digits, 3)}X",
        ]

    return _many(one, 8)


def _commerce() -> list[str]:
    def one() -> list[str]:
        ssn_like = f"{rand(string.digits, 3)}-{rand(string.digits, 2)}-{rand(string.digits, 4)}"
        return [
            f"Part number {ssn_like} is out of stock",
            f"order #{rand(string.digits, 9)} shipped",
            f"Invoice {ssn_like} paid on time",
            f"SKU {ssn_like}, qty 4",
            f"UPS 1Z{rand(UPPER_ALNUM, 6)}{rand(string.digits, 10)}",
            f"Order number {luhn_complete('4', 16)} confirmed",
            f"FedEx shipment {rand(string.digits, 12)} arrives Thursday",
            f"ticket {pick(['JIRA', 'OPS', 'SUP'])}-{_rng.randrange(99999)}",
            f"Invoice INV-{_rng.randrange(2020, 2030)}-{rand(string.digits, 6)} for 1,240.00 EUR",
            f"PO {rand(string.digits, 10)} approved",
        ]

    return _many(one, 5)


def _security_prose() -> list[str]:
    return [
        "Never store passwords in plain text; use a password manager.",
        "The password must be at least 12 characters and is rotated every 90 days.",
        "Rotate the API key whenever someone leaves the team.",
        "Tokens expire after one hour; the refresh token lasts 30 days.",
        "We moved secrets to Vault and removed them from the repo.",
        "Password reset emails were delayed because of the SMTP outage.",
        "The password is stored in 1Password under 'Staging DB'.",
        "Ask Alice for the token, do not paste it here.",
        "Use SSH keys instead of passwords for the bastion.",
        "Secret scanning flagged a leaked key, which we revoked at once.",
        "private key rotation is scheduled for next sprint",
        "Enable MFA and keep the recovery codes offline.",
        "Never share your seed phrase or private key with anyone.",
        "The JWT secret is loaded from the environment at startup.",
        "Our session cookies are HttpOnly and SameSite=Lax.",
        "Basic auth is disabled; Bearer tokens only.",
        "A password: field was added to the signup form.",
        "Passwords: see the team vault.",
        "password policy v2.1 requires 14 characters",
        "The API key field is required in the settings page.",
        "Bearer authentication is configured in the gateway.",
        "Set the token TTL to 3600 seconds.",
        "Credentials are injected by the CI runner.",
        "the secret: keep the scope small and ship weekly",
        "Password: required for admin users only",
        "SSN fields must be masked in every export.",
        "Card numbers are tokenized by the payment provider before they reach us.",
        "Do not log the Authorization header.",
        "Our 2FA uses TOTP with a 30 second window.",
        "Store recovery codes in a safe place; each can be used once.",
        "Das Passwort muss mindestens 12 Zeichen lang sein.",
        "Le mot de passe doit être changé tous les 90 jours.",
        "La contraseña se guarda en el gestor de contraseñas.",
        "密码必须至少包含十二个字符。",
        "パスワードは定期的に変更してください。",
        "Пароль хранится в менеджере паролей.",
    ]


def _placeholders() -> list[str]:
    return [
        "password: ${DB_PASSWORD}",
        "DB_PASSWORD=${DB_PASSWORD:?missing}",
        'api_key = os.environ["OPENAI_API_KEY"]',
        "token: {{ vault_token }}",
        "export GITHUB_TOKEN=$(gh auth token)",
        "Authorization: Bearer $TOKEN",
        'curl -H "Authorization: Bearer ${API_TOKEN}" https://api.example.com',
        "STRIPE_SECRET_KEY=<your-stripe-secret-key>",
        "password = getpass.getpass()",
        "secret: !vault |",
        "api_key: YOUR_API_KEY_HERE",
        "aws_secret_access_key = <redacted>",
        "client_secret=REPLACE_ME",
        "token=%GITHUB_TOKEN%",
        "postgres://app:${POSTGRES_PASSWORD}@db:5432/app",
        "https://user:<password>@example.com",
        "password: changeme",
        "password: null",
        "token: ''",
        "valueFrom:\n  secretKeyRef:\n    name: db-secret\n    key: password",
        "SECRET_KEY = env('DJANGO_SECRET_KEY')",
        "password_file: /run/secrets/db_password",
        "api_key: ${{ secrets.API_KEY }}",
        "ssh_private_key: ~/.ssh/id_ed25519",
        "op://Private/Staging DB/password",
        "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf",
        "password = config.database.password",
        "token = request.headers.get('Authorization')",
        "DATABASE_PASSWORD: ENC[AES256_GCM,data:abc,iv:def,tag:ghi,type:str]",
        "xoxb-your-token",
        "AKIAXXXXXXXXXXXXXXXX",
        "sk_live_xxxxxxxxxxxxxxxxxxxxxxxx",
        "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
    ]


def _masked() -> list[str]:
    def one() -> list[str]:
        return [
            f"card ending **** **** **** {rand(string.digits, 4)}",
            f"SSN ***-**-{rand(string.digits, 4)}",
            f"sk_live_••••{rand(LOWER_ALNUM, 4)}",
            "password: ******** (hidden)",
            f"token ghp_…{rand(ALNUM, 4)}",
            f"API key: {rand(ALNUM, 4)}…{rand(ALNUM, 4)} (truncated)",
            f"xxxx-xxxx-xxxx-{rand(string.digits, 4)}",
            f"AWS key AKIA************{rand(UPPER_ALNUM, 4)}",
            "[REDACTED]",
            f"Visa •••• {rand(string.digits, 4)}",
        ]

    return _many(one, 4)


def _code() -> list[str]:
    return [
        "def check(password: str) -> bool:\n    return len(password) >= 12",
        "if token is None:\n    raise AuthError('missing token')",
        "const apiKey = process.env.API_KEY;",
        "let password = prompt('Password?');",
        "session = requests.Session()\nsession.headers.update(headers)",
        "for key, value in settings.items():\n    print(key, value)",
        "SELECT id, email FROM users WHERE password_hash IS NOT NULL;",
        "auth = HTTPBasicAuth(username, password)",
        "parser.add_argument('--password', help='database password')",
        "cache_key = f'user:{user_id}:profile'",
        "sort_key: created_at",
        "max_tokens: 4096\ntemperature: 0.2",
        "primary_key = 'id'",
        "public_key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rand(B64, 43) + " deploy@ci",
        "token_type: bearer\nexpires_in: 3600",
        "next_page_token: CAEQAA",
        "`pwd` prints the working directory",
        "PWD=/home/alice/projects/api",
        'type="password" name="password" autocomplete="current-password"',
        "password: true  # prompt for it",
        "keyboard shortcut: Ctrl+K",
    ]


def _public_material() -> list[str]:
    def one() -> list[str]:
        return [
            _pem("PUBLIC KEY"),
            _pem("CERTIFICATE"),
            "-----BEGIN PGP PUBLIC KEY BLOCK-----\n"
            + rand(B64, 64)
            + "\n-----END PGP PUBLIC KEY BLOCK-----",
            "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + rand(B64, 300) + " alice@laptop",
            json.dumps(
                {"kty": "RSA", "n": b64url(_rng.randbytes(256)), "e": "AQAB", "kid": rand(HEX, 8)}
            ),
            "certificate-authority-data: "
            + base64.b64encode(_pem("CERTIFICATE").encode()).decode()[:120],
            "xpub6CUGRUonZSQ4TWtTMmzXdrXDtypWKiKrhko4egpiMZbpiaQL2jkwSB1icqYh2cfDfVxdx4df189oLKnC5fSwqPfgyP3hooxujYzAu3fDVmz",
        ]

    return _many(one, 5)


def _publishable() -> list[str]:
    def one() -> list[str]:
        return [
            f"STRIPE_PUBLISHABLE_KEY=pk_live_{rand(ALNUM, 99)}",
            f"pk_test_{rand(ALNUM, 24)} goes in the frontend",
            f"mapbox public token pk.eyJ1Ijoi{rand(B64URL, 40)}.{rand(B64URL, 22)}",
            "NEXT_PUBLIC_SUPABASE_ANON_KEY is the anon key, safe in the browser",
            f"sentry DSN https://{rand(HEX, 32)}@o{rand(string.digits, 6)}.ingest.sentry.io/{rand(string.digits, 7)}",
            f"Google OAuth client id {rand(string.digits, 12)}-{rand(LOWER_ALNUM, 32)}.apps.googleusercontent.com",
            f"Algolia search-only key is public; app id {rand(UPPER_ALNUM, 10)}",
        ]

    return _many(one, 5)


def _markdown() -> list[str]:
    return [
        "# Release checklist\n\n- [x] bump version\n- [ ] tag `v1.4.0`\n- [ ] announce",
        "| env | url |\n|---|---|\n| staging | https://staging.example.com |",
        "**Decision:** keep tokens short-lived; see [ADR-12](docs/adr/0012.md).",
        "> Note: the `secrets` module is the right tool for generating tokens.",
        "```bash\nmake test && make deploy ENV=staging\n```",
        "1. open the dashboard\n2. click *Rotate key*\n3. update the CI variable",
    ]


def _international() -> list[str]:
    return [
        "Café crème, déjà vu, naïve façade — all stored fine.",
        "会议改到下周三下午三点，地点在三楼会议室。",
        "東京オフィスの住所は後で確認します。",
        "다음 주 회의는 월요일 오전 10시입니다.",
        "Встреча перенесена на 15 мая, в 14:30.",
        "Die Übergabe ist am 3. März um 9 Uhr in Zürich.",
        "مرحبا، الاجتماع يوم الأحد الساعة العاشرة.",
        "שלום, הפגישה ביום שני בשעה 10.",
        "Ünlü şef İstanbul'da yeni restoran açtı.",
        "Ελπίζω να τα πούμε την Τρίτη στις 5.",
        "नमस्ते, बैठक सोमवार को सुबह 10 बजे है।",
        "Tiếng Việt: cuộc họp lúc 9 giờ sáng thứ Hai.",
        "Zażółć gęślą jaźń — test polskich znaków.",
        "Příliš žluťoučký kůň úpěl ďábelské ódy.",
    ]


def _numbers() -> list[str]:
    def one() -> list[str]:
        return [
            f"Budget {_rng.randrange(10, 999)},{rand(string.digits, 3)}.{rand(string.digits, 2)} USD",
            f"latency p99 {_rng.randrange(1, 999)} ms, throughput {_rng.randrange(1000, 99999)} req/s",
            f"{_rng.randrange(1, 64)} GiB RAM, {_rng.randrange(1, 99)}% CPU",
            f"population {_rng.randrange(10**6, 10**9):,}",
            "pi ≈ 3.14159265358979, e ≈ 2.71828182845904",
            f"{_rng.randrange(10**12, 10**13)} bytes transferred",
            f"coordinates 48.{rand(string.digits, 6)}, 11.{rand(string.digits, 6)}",
        ]

    return _many(one, 7)


def _lookalike_prefixes() -> list[str]:
    return [
        "task-management-system is the repo name",
        "sk-learn style estimators",
        "ghp_ tokens are GitHub personal tokens",
        "The AKIA prefix marks AWS access keys",
        "xoxb- tokens belong to Slack bots",
        "eyJ is what a base64 JSON object starts with",
        "sk_test_ keys never move money",
        "npm_ prefix, glpat- prefix, hf_ prefix",
        "skipped skeleton sketch: sk-1 and sk-2",
        "AIzaSy... is a Google key prefix",
        "the SG. prefix and the hvs. prefix",
        "Ask a question in #help-desk-support-team-channel",
    ]


def _http_logs() -> list[str]:
    def one() -> list[str]:
        ip = ".".join(str(_rng.randrange(256)) for _ in range(4))
        return [
            f'{ip} - - [10/Oct/2026:13:55:36 +0000] "GET /api/v1/items?page={_rng.randrange(99)} HTTP/1.1" 200 {_rng.randrange(9999)}',
            f'{ip} - - [11/Oct/2026:08:01:02 +0000] "POST /login HTTP/2" 302 0 "-" "Mozilla/5.0"',
            f"2026-10-10T13:55:36Z INFO request_id={rand(HEX, 16)} method=GET path=/health status=200 duration_ms={_rng.randrange(300)}",
            f"WARN token refresh failed for user_id={_rng.randrange(99999)} (retrying)",
        ]

    return _many(one, 8)


def _config() -> list[str]:
    return [
        "[server]\nhost = 0.0.0.0\nport = 8080\nworkers = 4",
        "database:\n  host: db.internal\n  port: 5432\n  user: app\n  sslmode: require",
        "LOG_LEVEL=info\nPORT=3000\nNODE_ENV=production",
        '{"timeout": 30, "retries": 3, "region": "eu-west-1"}',
        "session_timeout: 30m\ntoken_ttl: 1h\npassword_min_length: 12",
        "auth:\n  provider: oidc\n  issuer: https://login.example.com",
        'cookie_secure = true\ncookie_samesite = "lax"',
        "[auth]\nmethod = oauth2\ntoken_url = https://auth.example.com/token",
    ]


def _resource_ids() -> list[str]:
    def one() -> list[str]:
        return [
            f"arn:aws:iam::{rand(string.digits, 12)}:role/{rand(string.ascii_lowercase, 8)}",
            f"instance i-{rand(HEX, 17)} in subnet-{rand(HEX, 17)}",
            f"/subscriptions/{rand(HEX, 8)}-{rand(HEX, 4)}-{rand(HEX, 4)}-{rand(HEX, 4)}-{rand(HEX, 12)}/resourceGroups/rg-app",
            f"projects/my-project/locations/europe-west1/services/{rand(string.ascii_lowercase, 6)}",
            f"Stripe customer cus_{rand(ALNUM, 14)}, charge ch_{rand(ALNUM, 24)}",
            f"Twilio account AC{rand(HEX, 32)}",
            f"Slack channel C{rand(UPPER_ALNUM, 10)}, user U{rand(UPPER_ALNUM, 10)}",
            f"Discord message id {_rng.randrange(10**17, 10**19)}",
            f"AWS role AROA{rand(UPPER_ALNUM, 16)} and user AIDA{rand(UPPER_ALNUM, 16)}",
        ]

    return _many(one, 5)


BENIGN: dict[str, list[str]] = {
    "versions": _versions(),
    "dates and times": _dates(),
    "UUIDs": _uuids(),
    "git SHAs": _shas(),
    "hashes and digests": _digests(),
    "harmless base64": _base64(),
    "module paths and identifiers": _identifiers(),
    "hostnames": _hostnames(),
    "URLs without secrets": _urls(),
    "IP addresses and networks": _ips(),
    "phone numbers": _phones(),
    "ISBN, DOI and catalog numbers": _catalog(),
    "order, invoice, part, SKU and shipment numbers": _commerce(),
    "prose about security": _security_prose(),
    "placeholders and environment references": _placeholders(),
    "masked or redacted values": _masked(),
    "code without secrets": _code(),
    "public keys and certificates": _public_material(),
    "publishable client keys": _publishable(),
    "markdown": _markdown(),
    "CJK and accented text": _international(),
    "numbers, units and money": _numbers(),
    "look-alike prefixes": _lookalike_prefixes(),
    "HTTP log lines": _http_logs(),
    "config without secrets": _config(),
    "cloud resource and provider object IDs": _resource_ids(),
}


# --- hand-written cases, added to the classes above ----------------------------------

HAND_SENSITIVE: dict[str, list[str]] = {
    "cloud credentials": [
        "aws configure: access key AKIAQ3EGVP7YLRX2ZT4M, secret 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",
        "AWS secret: xkR9vT2mQ8wL5nB7cF3hJ6dG1sA4pE0yU9iO2kZx",
        "[default]\naws_access_key_id=AKIAZ7Q2M4N6P8R0T2V4\naws_secret_access_key=Jx7/kQ2mZp9vR4tW8yB1nC5eG3hL6sD0fA2uI9oP",
        "AccountKey=q8Z2xW7vB4nM1kL9pR5tY3uI6oE0aS2dF4gH7jK8lZ9xC1vB3nM5qW7eR9tY1uI3oP5aS7dF9gH1jK3lZ5xC7vB9==",
        "sas token ?sv=2021-06-08&ss=b&srt=o&sp=r&se=2025-01-01&sig=kJ8%2Bz3QxYw9vR4tW8yB1nC5eG3hL6sD0fA2uI9oP%3D",
        "GOOGLE_API_KEY=AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
        "client_secret: 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",
        "new AWS keys: AKIAW3JQ7ZL2PNX4TQ5R / 9sB+2kQv7Lm3Xp8Rt1Zc6Yw0Nd4Fh5Jg2Ks9Aq7E",
    ],
    "credentials in context": [
        "pw: Tr0ub4dor&3",
        "pass: Xy7#kq2Lm",
        "passwd=qwerty12",
        "user: admin, password: admin123",
        "DATABASE_URL=postgres://admin:Sup3rS3cret@db.example.com:5432/prod",
        "mongodb+srv://appuser:Kx8vQ2mZ@cluster0.ab1cd.mongodb.net/test",
        "jdbc:mysql://db:3306/app?user=root&password=secret123",
        "ssh root@10.0.0.5 password Tr0ub4dor&3",
        "The Wi-Fi key is BlueSky2024!",
        "wifi password: sunflower77",
        "API token: 3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c",
        "Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "kubectl create secret generic db --from-literal=password=S3cr3t!x",
        "helm install app --set auth.password=Xyz123abc",
        'db_password = "hunter2hunter2"',
        "Zoom passcode: 123456",
        "Here are my recovery codes:\n1a2b3c4d5e\n6f7g8h9i0j\n",
        "recovery key: ABCD-EFGH-IJKL-MNOP-QRST-UVWX-YZ12",
        "The client secret for the OAuth app is 9bq~8Z.rT3-xY_4kLm2nP5sQ7vW0aB1cD6eF8gH",
        "Mot de passe : Soleil2024!",
        "contraseña: Madrid#2023",
        "パスワード：Tokyo2024!",
        "password = 'p4$$w0rd'",
        "'password' => 'Xy7!secret'",
        "Password123! is the admin password",
        "wifi: network HomeNet, pass Gr33nTea!2024",
        "vpn creds: jsmith / Winter2024!",
        "root password = toor1234",
        "DB creds -> user: app, pw: K8s!Cluster99",
        "Password for bob@example.com: Qwerty!234",
        "my gmail pass is Banana#Split77",
        "PGPASSWORD=Xk29!mQ7 psql -h db -U app",
        "sshpass -p 'R3dH@t2024' ssh admin@server",
        "net use Z: \\\\server\\share /user:CORP\\jdoe P@ssw0rd!",
        "Le mot de passe du wifi : Maison2024!",
        "Il nuovo password è Ciao2024!",
        "Hasło do routera: Warszawa#2023",
        "Şifre: Istanbul2024!",
        "Lösenordet är Stockholm#99",
        "पासवर्ड है Mumbai@2024",
        "document.cookie = 'session_token=9f8e7d6c5b4a39281706f5e4d3c2b1a0; path=/'",
        "Cookie: _ga=GA1.2.123; __Secure-next-auth.session-token=eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..Abc123.Def456Ghi789Jkl012.Mno345",
        "Authenticator secret: JBSWY3DPEHPK3PXP",
        "Apple recovery key: 7HKD-2M9Q-XPLR-4TWN-8CJB-5FYG-6SVE",
        "BitLocker recovery key 123453-654324-111111-222222-333333-444444-555555-666666",
        "session JWT: eyJhbGciOiJSUzI1NiIsImtpZCI6IjEyMyJ9.eyJzdWIiOiJhbGljZSIsImV4cCI6MTcwMDAwMDAwMH0.c2lnbmF0dXJl",
        "DB: postgresql://admin:hunter2%21@10.0.0.12/prod",
        "wifi pw = NightOwl#5566",
        "Password: T0pS3cret!",
        "the new root pw is 'x9$Lm2!pQ'",
        "API_SECRET=4f9c2e8a1b7d3f6e0a5c9b2d8e4f1a7c",
        "Bearer ya29.a0AfH6SMBx3kLmNoPqRsTuVwXyZ0123456789abcdefGhIjKlMnOp",
        "X-Api-Key: 6b3f9a2e1c8d4b7a0f5e2d9c6b3a8f1e",
        "backup codes: 8472-1935, 2048-7731, 5519-0286",
        "ssh password for pi: raspberry42!",
        "Kennwort: Sommer2024!",
        "La password del router è admin1234",
    ],
    "messaging tokens and webhooks": [
        "smtp password for sendgrid: Xyz98765abc!",
        "slack signing secret: 8f742231b10e8888abcd99yyyzzz85a5",
        "webhook secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        "SLACK_BOT_TOKEN=xoxb-2345678901-3456789012345-AbCdEfGhIjKlMnOpQrStUvWx",
        "bot = telebot.TeleBot('5432109876:AAEhBOweik6ad6PsVMRxjeQKwK_8Yd4Rm5A')",
        "Discord: MTA4NjE2NTgxMjM0NTY3ODkwMQ.GxYz12.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789Ab",
        "SENDGRID: SG.AbCdEfGhIjKlMnOpQrStUv.WxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz012",
        "account sid AC0123456789abcdef0123456789abcdef auth token 0123456789abcdef0123456789abcdef",
        "slack xoxb-1234567890123-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
        "sendgrid 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",
        "DISCORD_TOKEN=OTk4NzY1NDMyMTA5ODc2NTQz.G1a2B3.c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R9s0T1u2",
        "https://hooks.slack.com/services/T02ABC123/B04DEF456/aBcDeFgHiJkLmNoPqRsTuVwX",
        "twilio: AC1234567890abcdef1234567890abcdef / auth token 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    ],
    "code host and registry tokens": [
        "Authorization: token ghp_16C7e42F292c6912E7710c838347Ae178B4a",
        "gitlab runner token glrt-2CR8_eVxiioB1QmzPZwa",
        "git remote set-url origin https://ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8@github.com/org/repo.git",
        "https://oauth2:glpat-Ab3Cd5Ef7Gh9Ij1Kl3Mn@gitlab.com/group/project.git",
        "echo //npm.pkg.github.com/:_authToken=ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8 >> .npmrc",
        "TWINE_PASSWORD=pypi-AgEIcHlwaS5vcmcCJGFiY2RlZjAxLTIzNDUtNjc4OS1hYmNkLWVmMDEyMzQ1Njc4OQACKlszLCJhYmNkIl0AAAYgZXhhbXBsZQ",
        "HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
        "GitHub 2FA recovery codes\n3f4a9-8b2c1\n7d6e5-4f3a2\n1b0c9-8d7e6",
        "gh auth token: gho_4fR8kLm2NpQ7sT1vW3xY5zA9bC0dE6fG8hJ2",
        "Our npm publish token npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    ],
    "DevOps and SaaS tokens": [
        "export VAULT_TOKEN=s.Qf1s5zigZ4LX6vKxX2dN5lwM",
        "heroku api key 8c1e9b3f-6c2d-4d7a-9f8e-2b4a6c8d0e1f",
        "HEROKU_API_KEY=8c1e9b3f-6c2d-4d7a-9f8e-2b4a6c8d0e1f",
        "heroku: HEROKU_API_KEY=3f8e7d6c-5b4a-4939-8271-6f5e4d3c2b1a",
        "VAULT: hvs.CAESIJrWkX9mQ2pLzT8vB3nR5yH1cF6gD0eA4sK7jU2wO9iE",
    ],
    "payment cards": [
        "card: 5555 5555 5555 4444 exp 10/27",
        "amex 3782 822463 10005",
        "Card: 4539 1488 0343 6467, exp 08/26, CVV 123",
        "MC 5425233430109903",
        "Amex: 3714-496353-98431",
        "Diners Club 3056 9309 0259 04",
        "JCB 3566 0020 2036 0505",
        "UnionPay 6200000000000005",
        "Maestro 6759649826438453",
        "Discover 6011 1111 1111 1117",
        "my card 4916 3385 0608 2832 exp 11/26",
    ],
    "government identifiers": [
        "SSN: 078-05-1120",
        "my social is 219-09-9999",
        "Canadian SIN 046 454 286",
        "NI number: QQ123456C",
        "Aadhaar: 2345 6789 0123",
        "PAN: ABCDE1234F",
        "driver license: A123-4567-8901",
        "DL# D12345678",
        "Tax ID 12-3456789",
        "EIN: 12-3456789",
        "Medicare number 1EG4-TE5-MK73",
        "Personalausweisnummer L01X00T47",
        "NHS number 943 476 5919",
        "My BSN is 123456782",
        "Fødselsnummer: 01010012345",
        "CURP: GODE561231HDFRRN09",
        "Emirates ID 784-1990-1234567-1",
        "SSN 123 45 6789",
        "social security no. 123456789",
        "ITIN: 912-70-1234",
        "US Passport: 548734912",
        "SIN 130 692 544",
        "NINO: AB 12 34 56 C",
        "NHS No: 485 777 3456",
        "Aadhaar no 4991 1866 5246",
        "CPF 529.982.247-25",
        "RG 12.345.678-9",
        "DNI: 12345678Z",
        "NIE X1234567L",
        "Codice fiscale: RSSMRA85T10A562S",
        "BSN: 111222333",
        "Personnummer 811218-9876",
        "PESEL 44051401359",
        "Steuer-IdNr. 86095742719",
        "Numéro de sécurité sociale : 1 85 05 78 006 084 36",
        "주민등록번호 900101-1234568",
        "マイナンバー 1234 5678 9018",
        "身份证 11010519491231002X",
        "NRIC S1234567D",
        "HKID A123456(3)",
        "TFN 123 456 782",
        "Medicare 2123 45670 1",
        "South African ID 8001015009087",
        "TC Kimlik No: 10000000146",
        "CURP GOME800101HDFRRN04",
        "RUT 12.345.678-5",
        "Passport number: X12345678",
        "SSN is 536-22-8726",
        "passport: 912803456 (US)",
        "Aadhaar number 2345 6789 0124",
        "UK NINO: JG 10 37 51 C",
        "Codice fiscale MRARSS80A01H501U",
        "BSN 123456782 voor de belastingdienst",
        "Personnummer: 19850615-1234",
        "DNI 87654321X",
        "My PESEL is 90010112345",
        "CPF: 111.444.777-35",
    ],
    "AI provider keys": [
        "my openai key sk-proj-abcDEF123ghiJKL456mnoPQR789stuVWX",
        "anthropic: sk-ant-api03-Zx9aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaAA",
        "openai.api_key = 'sk-abc123DEF456ghi789JKL012mno345PQR678stu901VWX'",
        "ANTHROPIC_API_KEY=sk-ant-api03-AbC_dEf-GhI",
        "openai: sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78St90Uv12Wx34",
    ],
    "wallet secrets": [
        "seed: abandon ability able about above absent absorb abstract absurd abuse access accident",
        "recovery phrase: zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong",
        "Seed (24): legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth title",
        "ledger seed phrase is: army van defense carry jealous true garbage claim echo media make crunch",
        "eth private key 4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318",
        "Mnemonic: cabbage hurdle sniff thrive carry debris exhibit uphold vessel quarter humble unfold",
    ],
    "private keys": [
        '{"type": "service_account", "project_id": "demo", "private_key_id": "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0", "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----\\n"}',
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx",
        "id_rsa contents: b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
    ],
    "payment provider keys": [
        "stripe key for prod sk_live_51Hx9kLmNoPqRsTuVwXyZ0123456789abcdefGHIJ"
    ],
    "compact tokens": [
        "jwt eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ1c2VyIjoiYm9iIn0.Zm9vYmFyYmF6cXV4"
    ],
}

HAND_BENIGN: list[str] = [
    "Call 555-0143 or 555-12-34",
    "Build 2024.05.17-1234 passed",
    "USPS 9400 1000 0000 0000 0000 00",
    "Meeting ID: 845 1234 5678",
    "Employee ID 12345678",
    "Student number 20231234",
    "PIN code 560001",
    "version 1.2.3-beta+exp.sha.5114f85",
    "https://example.com/reset?token=expired",
    "?token=abc123",
    'password=""',
    '{"key": "theme", "value": "dark"}',
    "monkey=5",
    "turkey: delicious",
    "hotkey=ctrl+k",
    "secretary: Jane",
    "passenger: 3",
    "bypass: true",
    "compass: north",
    "token: 4096",
    "tokens: 1500",
    "auth: oauth2",
    "credentials: none",
    "secret_santa: Bob",
    "password_reset_url: https://example.com/reset",
    "IBAN DE89 3704 0044 0532 0130 00",
    "The token budget is 128k and the key insight is caching",
    "Key: C major, tempo 120 bpm",
    "The secret to good coffee is fresh beans.",
    "My password manager is Bitwarden.",
    "Use a passphrase of four random words.",
    "session: 2 of 5, room B12",
    "Our session cookie name is __Host-session.",
    "Set-Cookie: theme=dark; Path=/",
    "Cookie: lang=en-US; tz=Europe/Berlin",
    "auth_method: password",
    "login: alice (SSO)",
    "credentials: stored in vault",
    "Bearer tokens expire after 3600 seconds",
    "Basic plan costs 9 USD per month",
    "The secret key to success is persistence",
    "private key rotation happens quarterly",
    "Our wallet app supports 12 words recovery phrases",
    "recovery codes were regenerated on 2024-03-01",
    "2FA is required; setup takes 2 minutes",
    "order 4111111111111111 was a test order",
    "Tracking: 1Z999AA10123456784",
    "invoice 2024-000123",
    "The answer is 42 and the year is 2024.",
    "Roll no. 123456789 in class 5",
    "ZIP 90210-1234",
    "Visa application submitted on 2024-05-02",
    "Passport renewal costs 130 USD",
    "SSN field validation regex ^\\d{3}-\\d{2}-\\d{4}$",
    "ISBN-10 0-306-40615-2",
    "timestamp 1714478400123",
    "Discord user 175928847299117063",
    "tweet 1790000000000000000",
    "GTIN 00012345678905",
    "AKIA is the prefix; our key id starts with AKIA and we rotated it",
    "Our AWS account id is 123456789012",
    "S3 bucket arn:aws:s3:::my-backups-2024",
    "git remote add origin https://github.com/org/repo.git",
    "https://gitlab.com/group/project/-/merge_requests/42",
    "npm install @scope/pkg@1.2.3",
    "pip install 'requests>=2.31,<3'",
    "model: gpt-4o-mini, temperature 0.2",
    "Claude Sonnet 4 handled the refactor",
    "Slack channel #deploys, thread ts 1712345678.123456",
    "Telegram group t.me/ourteam",
    "Twilio phone +1 415 555 0100",
    "SendGrid template d-0123456789abcdef0123456789abcdef",
    "wifi network: HomeNet (5 GHz)",
    "password must contain 1 digit and 1 symbol",
    "Change password every 90 days; last changed 2024-01-15",
    "the pass was snowed in, we took the tunnel",
    "boarding pass for flight LH123 is in my email",
    "Password: <hidden>",
    "Password: see vault item 'prod-db'",
    "pwd: /home/user/project",
    "cookie recipe: 200g butter, 100g sugar",
    "session 3: deployment strategies",
    "We use TOTP via Google Authenticator",
    "recovery time objective is 4 hours",
    "backup code review scheduled Friday",
    "JWT header alg RS256, kid rotates weekly",
    "Seed the database with 12 sample users",
    "random seed = 42",
    "wallet balance is 0.5 ETH",
    "tx hash 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060",
    "contract address 0x742d35Cc6634C0532925a3b844Bc454e4438f44e",
    "BTC address bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
    "IPFS CID QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG",
    "Order 1234 5678 9012 3456 ships Monday",
    "Gift card balance $25",
    "Card ending in 4242",
    "Room 123-45-6789? no, room 12",
    "Part no. 123-45-6789 replaced",
    "Serial number SN-2024-000123",
    "License MIT, copyright 2019-2024",
    "Patent US 10,123,456 B2",
    "Case number 2024-CV-01234",
    "Account 12345678 at the library",
    "Flight LH 400 departs 13:05",
    "Postal code SW1A 1AA",
    "VIN 1HGCM82633A004352",
    "IMEI 490154203237518",
    "MAC 00:1A:2B:3C:4D:5E",
    "Product code ABCDE1234F in the catalog",
    "DOI 10.1000/182",
    "Version 2024.1.15-build.123456789",
    "Phone: (212) 555-0198, ext 123",
    "+1-800-555-0199",
    "My ID badge number is 004512",
    "Ticket ID 123456789",
    "user id 87654321 logged in",
    "chmod 600 ~/.ssh/id_rsa",
    "ssh-keygen -t ed25519 -C alice@example.com",
    "openssl genrsa -out key.pem 2048",
    "gpg --full-generate-key",
    "export AWS_PROFILE=staging",
    "kubectl get secret db -o yaml",
    "secretName: tls-cert",
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app",
    "token_endpoint: https://auth.example.com/oauth/token",
    "api_key_header: X-API-Key",
    "Authorization header format: Bearer <token>",
    "Basic authentication uses base64(user:password)",
    "the word 'password' appears 3 times",
    "PASSWORD_MIN_LENGTH=12",
    "ENABLE_PASSWORD_LOGIN=false",
    "password_hash: $2b$12$KIXQJ9pV0K5c1nZ8x7Yq5u3W2mH9nL4oP6rS8tU0vX2yZ4aB6cD8e",
    "argon2 hash $argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG",
    "salt = os.urandom(16)",
    "Decided to pin numpy==1.26.4 and pandas 2.2.1 for the data pipeline",
    "The staging DB lives at db-staging-01.internal:5432; credentials come from Vault",
    "Our Slack workspace is acme-corp.slack.com, channel #incidents",
    "Use `git log --oneline -n 20` to see recent commits like a1b2c3d",
    "Token bucket rate limiter: 100 tokens, refill 10/s",
    "JWT expiry set to 15 minutes, refresh tokens to 7 days",
    "Passwords are hashed with argon2id (m=64MiB, t=3, p=4)",
    "Customer asked to reset their password twice this week",
    "The API returns 401 when the bearer token is missing",
    "Set X-Request-ID: 7f3a2c1e-9b8d-4e6f-a5c4-3b2a1d0e9f8c for tracing",
    "Deployed build #4821 to prod at 14:32 UTC",
    "Order ORD-2024-118842 was refunded",
    "Invoice total: €1,234.56 (VAT 19%)",
    "Serial S/N 5CG1234XYZ on the laptop sticker",
    "Flight BA 2490 seat 14C, booking ref X7K9PQ",
    "Wi-Fi network name: Office-5G (password on the whiteboard)",
    "Kubernetes namespace prod-eu, deployment api-v2, replicas 3",
    "Terraform state bucket: s3://acme-tf-state/prod/terraform.tfstate",
    "docker pull ghcr.io/acme/api:sha-4f2a9c1",
    "pip install --index-url https://pypi.org/simple/ requests",
    "Regex for SSN validation: \\b\\d{3}-\\d{2}-\\d{4}\\b",
    "Regex for card numbers: ^4[0-9]{12}(?:[0-9]{3})?$",
    "Sample UUID v4: 550e8400-e29b-41d4-a716-446655440000",
    "Hash of the release tarball: 3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b",
    "The secret sauce is caching at the edge",
    "Keys to success: ship small, measure, iterate",
    "Meeting notes: discussed token usage for GPT-4 (~2M tokens/day)",
    "Phone: +1-415-555-0132, fax +1-415-555-0133",
    "Office: Friedrichstraße 123, 10117 Berlin, Tel. 030 12345678",
    "ZIP codes 94105 and 10001",
    "Employee #00412 started Monday",
    "ISBN 978-1-4028-9462-6 is the book we discussed",
    "Package tracking 1Z999AA10123456784 (UPS)",
    "Her birthday is 1990-04-12",
    "Coordinates: 37.7749° N, 122.4194° W",
    "Temperature 21.5°C, humidity 45%",
    "Build took 3m 42s; cache hit ratio 0.87",
    "Grafana dashboard id 12345, panel 7",
    "Error code 0x80070005 (access denied) on Windows",
    "Use sha256sum to verify: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "The private beta opens on 2025-03-01",
    "My keyboard layout is US-International",
    "Passphrase policy: at least four random words",
    "auth0 tenant: acme.eu.auth0.com",
    "OAuth scopes: read:user repo workflow",
    "CORS allowed origins: https://app.example.com, https://admin.example.com",
    "Cron: 0 3 * * * runs the backup",
    "Ports: 80, 443, 8080-8090",
    "AWS region eu-central-1, account alias acme-prod",
    "S3 object key reports/2024/q1/summary.pdf",
    "Stripe test mode is on; use test clocks for subscriptions",
    "Public key fingerprint: SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s",
    "GPG key ID 0xA1B2C3D4E5F60718",
    "Bitcoin address 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa (genesis)",
    "Ethereum address 0xde0B295669a9FD93d5F28D9Ec85E40f4cb697BAe",
    "VIN 1M8GDM9AXKP042788",
    "Model number A2338, part 661-17540",
    "Lot 2024-07-B, batch 445-12-9087",
    "The meeting code is abc-defg-hij (Google Meet)",
    "Zoom meeting ID 845 1234 5678",
    "RFC 7519 defines JWT; RFC 6749 defines OAuth 2.0",
    "HTTP 429 with Retry-After: 30",
    "max_tokens=2048, top_p=0.9",
    "token_limit: 128000",
    "session_timeout_minutes: 30",
    "session_id is logged at DEBUG only",
    "Cookie banner text updated",
    "secrets.yaml is in .gitignore",
    "The password field placeholder says 'Enter password'",
    "Use `openssl rand -hex 32` to generate a secret",
    "API rate limit: 5000 requests/hour per token",
    "GitHub Actions: uses actions/checkout@v4",
    "Node 20.11.1 LTS, npm 10.2.4",
    "ssh -i ~/.ssh/id_ed25519 deploy@10.0.1.5",
    "Backup code path: /opt/backup/run.sh",
    "recovery mode: hold Cmd+R at boot",
    "Seed data: 12 users, 40 orders, 3 admins",
    "12 words per line max in the style guide",
    "Set the PIN length to 6 digits",
]

for _name, _texts in HAND_SENSITIVE.items():
    SENSITIVE[_name] = SENSITIVE[_name] + _texts
BENIGN["hand-written look-alikes"] = HAND_BENIGN


def figures(corpus: dict[str, list[str]]) -> dict[str, tuple[int, int]]:
    """Per class: (refused, total)."""
    return {
        name: (sum(first_violation(text) is not None for text in texts), len(texts))
        for name, texts in corpus.items()
    }


def misses(corpus: dict[str, list[str]], *, refused: bool) -> list[tuple[str, str]]:
    """The (class, text) pairs whose outcome is not ``refused``."""
    return [
        (name, text)
        for name, texts in corpus.items()
        for text in texts
        if (first_violation(text) is not None) != refused
    ]
