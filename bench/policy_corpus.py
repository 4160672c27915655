# ruff: noqa: E501 (corpus data: one realistic text per line)
"""A measuring corpus for the content policy, drawn afresh from a seed.

``python bench/policy_corpus.py [--seed N] [--misses K]`` draws the corpus for seed N
(default 1), runs the policy on every text and prints, family by family, how much of the
sensitive side it refuses and how much of the benign side it wrongly refuses, then the
totals; ``--misses K`` also prints up to K texts per family that went the wrong way. Two
seeds give two draws with other values (and other templates picked), so a figure that holds
on both was not tuned to one set of examples.

The corpus is written to measure the policy, not to pass it: texts as a person pastes them
into a note (a line of a config file, a shell command, a sentence of a chat, a log line),
with the families the policy is meant to cover and benign look-alikes of each. Every value
is generated (random bodies with the real prefixes, lengths, alphabets and check digits;
national numbers are drawn until python-stdnum says they are valid), so no text is a real
secret. Nothing here is a test: the figures depend on nothing but the seed.
"""

from __future__ import annotations

import argparse
import base64
import importlib
import json
import random
import string
import sys
from collections.abc import Callable
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from mymcp.plugins.mnemosyne.memory.policy import bip39  # noqa: E402
from tests.mnemosyne.memory.policy.policy_corpus import (  # noqa: E402
    ALNUM,
    B64,
    B64URL,
    BASE32,
    BASE58,
    HEX,
    LOWER_ALNUM,
    UPPER_ALNUM,
    b64url,
    base58check,
)

LOWER = string.ascii_lowercase
DIGITS = string.digits

Family = Callable[["Draw"], str]


class Draw:
    """One random source and the small value makers every family uses."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def s(self, alphabet: str, size: int) -> str:
        return "".join(self.r.choice(alphabet) for _ in range(size))

    def pick(self, *options: str) -> str:
        return self.r.choice(options)

    def n(self, low: int, high: int) -> int:
        return self.r.randint(low, high)

    def digits(self, size: int) -> str:
        return self.s(DIGITS, size)

    def user(self) -> str:
        return self.pick(
            "admin",
            "deploy",
            "alice",
            "bob",
            "svc_backup",
            "root",
            "jenkins",
            "app",
            "ci-bot",
            "maria.k",
        )

    def host(self) -> str:
        return self.pick(
            "db.internal",
            "10.0.3.17",
            "pg-prod-1.example.net",
            "cache.local",
            "api.example.com",
            "mail.example.org",
            "nas.home.arpa",
        )

    def password(self) -> str:
        stem = self.pick(
            "hunter",
            "Tr0ub4dor",
            "S3cure!",
            "correct-Horse",
            "Zq8#mX2v",
            "letmein",
            "P@ssw0rd",
            "blue-Falcon",
            "qwerty!",
            "Summer",
            "Winter#",
            "Kx8vQ2mZ",
            "dragon",
            "M0nkey$",
            "sunflower",
        )
        return stem + self.s(DIGITS, self.n(1, 4)) + self.pick("", "!", "#", "", "?", "&")

    def uuid(self) -> str:
        return f"{self.s(HEX, 8)}-{self.s(HEX, 4)}-4{self.s(HEX, 3)}-{self.pick('8', '9', 'a', 'b')}{self.s(HEX, 3)}-{self.s(HEX, 12)}"

    def date(self) -> tuple[int, int, int]:
        return self.n(1945, 2005), self.n(1, 12), self.n(1, 28)

    def luhn(self, prefix: str, size: int) -> str:
        body = prefix + self.digits(size - len(prefix) - 1)
        return body + str(_luhn_check(body))

    def stdnum(self, module: str, make: Callable[[], str]) -> str:
        """A value of ``make`` that python-stdnum's ``module`` calls valid."""
        checker = importlib.import_module(f"stdnum.{module}")
        for _ in range(2000):
            candidate = make()
            if checker.is_valid(candidate):
                return str(candidate)
        raise RuntimeError(f"no valid {module} drawn")


def _luhn_check(body: str) -> int:
    total = 0
    for position, char in enumerate(reversed(body)):
        digit = int(char)
        if position % 2 == 0:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return (10 - total % 10) % 10


# --- how a value is written into a note ------------------------------------------------------

_NOTE_LEADS = (
    "Notes from the call:",
    "For later:",
    "Handover to the new admin —",
    "Reminder:",
    "Copied from the old wiki page:",
    "As discussed,",
    "",
    "",
    "",
)
_NOTE_TAILS = (
    "",
    "",
    "",
    " Rotate it after the migration.",
    " Ask Sam before changing anything.",
    " (valid until the end of the quarter)",
    " See the runbook for the rest.",
    "\nNext step: update the dashboard.",
)


def note(d: Draw, text: str) -> str:
    """``text`` as it stands in a note: alone, or after a lead-in and before a tail."""
    lead = d.pick(*_NOTE_LEADS)
    tail = d.pick(*_NOTE_TAILS)
    joiner = d.pick(" ", "\n") if lead else ""
    return f"{lead}{joiner}{text}{tail}"


def assigned(d: Draw, name: str, value: str) -> str:
    """``name`` given ``value`` in one of the syntaxes of code and configuration."""
    upper = name.upper()
    camel = name.split("_")[0] + "".join(part.title() for part in name.split("_")[1:])
    forms = (
        f"{upper}={value}",
        f"export {upper}={value}",
        f'export {upper}="{value}"',
        f"{name}: {value}",
        f'{name}: "{value}"',
        f'"{name}": "{value}"',
        f'{{"{camel}": "{value}", "region": "eu-west-1"}}',
        f'{name} = "{value}"',
        f"{name} = '{value}'",
        f'{camel}: "{value}",',
        f"<{camel}>{value}</{camel}>",
        f'<add key="{upper}" value="{value}" />',
        f"docker run -e {upper}={value} app:latest",
        f"  - name: {upper}\n    value: {value}",
        f"$env:{upper} = '{value}'",
        f"set {upper}={value}",
        f"ENV {upper}={value}",
        f"{upper}: {value}",
        f'{name} := "{value}"',
        f"heroku config:set {upper}={value}",
    )
    return d.pick(*forms)


# --- sensitive families ------------------------------------------------------------------------


def cloud_keys(d: Draw) -> str:
    access = d.pick("AKIA", "ASIA") + d.s(UPPER_ALNUM, 16)
    secret = d.s(B64, 40)
    account = d.s(LOWER, 10)
    azure = base64.b64encode(d.r.randbytes(64)).decode()
    client_secret = d.s(ALNUM + "_~.-", 3) + str(d.n(0, 9)) + "Q~" + d.s(ALNUM + "_~.-", 34)
    forms = (
        lambda: assigned(d, "aws_access_key_id", access),
        lambda: f"[default]\naws_access_key_id = {access}\naws_secret_access_key = {secret}",
        lambda: assigned(d, "aws_secret_access_key", secret),
        lambda: f"The AWS key for the backup user is {access} / {secret}",
        lambda: f"aws configure set aws_session_token IQoJb3JpZ2luX2VjE{d.s(B64, 280)}",
        lambda: (
            f"DefaultEndpointsProtocol=https;AccountName={account};AccountKey={azure};EndpointSuffix=core.windows.net"
        ),
        lambda: (
            f"https://{account}.blob.core.windows.net/exports?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2026-12-31T23:59:59Z&spr=https&sig={d.s(B64, 43)}%3D"
        ),
        lambda: f"Azure app registration secret: {client_secret}",
        lambda: assigned(d, "azure_client_secret", client_secret),
        lambda: (
            f"Endpoint=sb://{account}.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={d.s(B64, 43)}="
        ),
        lambda: assigned(d, "google_api_key", "AIza" + d.s(B64URL, 35)),
        lambda: f"Maps key AIza{d.s(B64URL, 35)} (restricted to our domain)",
        lambda: f'"client_secret": "GOCSPX-{d.s(B64URL, 28)}"',
        lambda: f"refresh_token: 1//0{d.s(B64URL, 98)}",
        lambda: f"gcloud auth print-access-token gave ya29.{d.s(B64URL, 150)}",
        lambda: (
            '{"type": "service_account", "project_id": "billing-prod", "private_key_id": "'
            + d.s(HEX, 40)
            + '", "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC'
            + d.s(B64, 60)
            + '\\n-----END PRIVATE KEY-----\\n"}'
        ),
        lambda: f"Alibaba Cloud AccessKey LTAI{d.s(ALNUM, 20)} secret {d.s(ALNUM, 30)}",
        lambda: f"DIGITALOCEAN_ACCESS_TOKEN=dop_v1_{d.s(HEX, 64)}",
    )
    return note(d, d.r.choice(forms)())


def code_hosts(d: Draw) -> str:
    body = d.s(ALNUM, 30)
    classic = d.pick("ghp_", "gho_", "ghu_", "ghs_", "ghr_") + body + d.s(ALNUM, 6)
    forms = (
        lambda: assigned(d, "github_token", classic),
        lambda: f"git remote set-url origin https://{classic}@github.com/acme/infra.git",
        lambda: f"gh auth login --with-token <<< {classic}",
        lambda: assigned(d, "gh_pat", "github_pat_" + d.s(ALNUM, 22) + "_" + d.s(ALNUM, 59)),
        lambda: f"GitLab deploy token glpat-{d.s(B64URL, 20)} for the runner",
        lambda: assigned(d, "gitlab_token", "glpat-" + d.s(B64URL, 20)),
        lambda: f"//registry.npmjs.org/:_authToken=npm_{d.s(ALNUM, 36)}",
        lambda: f"npm publish token: npm_{d.s(ALNUM, 36)}",
        lambda: f"[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmc{d.s(B64URL, 140)}",
        lambda: f"twine upload -u __token__ -p pypi-AgEIcHlwaS5vcmc{d.s(B64URL, 140)} dist/*",
        lambda: f"docker login -u acme -p dckr_pat_{d.s(B64URL, 27)}",
        lambda: f"gem credentials: rubygems_{d.s(HEX, 48)}",
        lambda: f"NUGET_API_KEY=oy2{d.s(LOWER_ALNUM, 43)}",
        lambda: f"artifactory api key AKCp{d.s(ALNUM, 69)}",
        lambda: f"Bitbucket app password ATBB{d.s(ALNUM, 32)}",
    )
    return note(d, d.r.choice(forms)())


def ai_keys(d: Draw) -> str:
    forms = (
        lambda: assigned(d, "openai_api_key", "sk-proj-" + d.s(B64URL, 156)),
        lambda: f"my openai key sk-{d.s(ALNUM, 48)}",
        lambda: assigned(d, "anthropic_api_key", "sk-ant-api03-" + d.s(B64URL, 93) + "AA"),
        lambda: f'client = OpenAI(api_key="sk-proj-{d.s(B64URL, 120)}")',
        lambda: f"HF_TOKEN=hf_{d.s(string.ascii_letters, 34)}",
        lambda: f"huggingface-cli login --token hf_{d.s(string.ascii_letters, 34)}",
        lambda: f"GROQ_API_KEY=gsk_{d.s(ALNUM, 52)}",
        lambda: f"replicate token r8_{d.s(ALNUM, 37)}",
        lambda: f"perplexity: pplx-{d.s(ALNUM, 48)}",
        lambda: f"xai key xai-{d.s(ALNUM, 80)}",
        lambda: assigned(d, "mistral_api_key", d.s(ALNUM, 32)),
        lambda: assigned(d, "cohere_api_key", d.s(ALNUM, 40)),
        lambda: f"Gemini API key: AIza{d.s(B64URL, 35)}",
        lambda: f"LANGCHAIN_API_KEY=lsv2_pt_{d.s(HEX, 32)}_{d.s(HEX, 10)}",
        lambda: f"pinecone key pcsk_{d.s(ALNUM, 6)}_{d.s(ALNUM, 64)}",
        lambda: f"OpenAI service account key: sk-svcacct-{d.s(B64URL, 120)}",
    )
    return note(d, d.r.choice(forms)())


def payment_keys(d: Draw) -> str:
    forms = (
        lambda: assigned(d, "stripe_secret_key", "sk_live_" + d.s(ALNUM, 99)),
        lambda: f'Stripe.api_key = "sk_live_{d.s(ALNUM, 24)}"',
        lambda: f"restricted key for the reporting job: rk_live_{d.s(ALNUM, 99)}",
        lambda: f"STRIPE_WEBHOOK_SECRET=whsec_{d.s(ALNUM, 32)}",
        lambda: f"square access token sq0atp-{d.s(B64URL, 22)}",
        lambda: f"SQUARE_APPLICATION_SECRET=sq0csp-{d.s(B64URL, 43)}",
        lambda: f"Shopify admin API token shpat_{d.s(HEX, 32)}",
        lambda: f"razorpay key_secret: {d.s(ALNUM, 24)}",
        lambda: f"braintree access_token$production${d.s(LOWER_ALNUM, 16)}${d.s(HEX, 32)}",
        lambda: assigned(d, "paypal_client_secret", d.s(B64URL, 80)),
        lambda: f"Flutterwave FLWSECK-{d.s(HEX, 32)}-X",
        lambda: f"new Stripe('sk_live_{d.s(ALNUM, 40)}')",
    )
    return note(d, d.r.choice(forms)())


def messaging(d: Draw) -> str:
    team, channel = "T" + d.s(UPPER_ALNUM, 9), "B" + d.s(UPPER_ALNUM, 9)
    bot_user = b64url(str(d.n(10**17, 10**19)).encode())
    forms = (
        lambda: assigned(
            d, "slack_bot_token", f"xoxb-{d.digits(12)}-{d.digits(13)}-{d.s(ALNUM, 24)}"
        ),
        lambda: (
            f"SLACK_USER_TOKEN=xoxp-{d.digits(12)}-{d.digits(12)}-{d.digits(13)}-{d.s(HEX, 32)}"
        ),
        lambda: f"app token xapp-1-A{d.s(UPPER_ALNUM, 10)}-{d.digits(13)}-{d.s(HEX, 64)}",
        lambda: (
            f"Alerts post to https://hooks.slack.com/services/{team}/{channel}/{d.s(ALNUM, 24)}"
        ),
        lambda: f"discord bot token {bot_user}.{d.s(B64URL, 6)}.{d.s(B64URL, 38)}",
        lambda: (
            f"DISCORD_WEBHOOK_URL=https://discord.com/api/webhooks/{d.digits(19)}/{d.s(B64URL, 68)}"
        ),
        lambda: f"telegram bot: {d.n(10**8, 10**10 - 1)}:AA{d.s(B64URL, 33)}",
        lambda: f"TWILIO_API_KEY=SK{d.s(HEX, 32)}\nTWILIO_API_SECRET={d.s(ALNUM, 32)}",
        lambda: f"twilio auth token is {d.s(HEX, 32)}",
        lambda: assigned(d, "sendgrid_api_key", f"SG.{d.s(B64URL, 22)}.{d.s(B64URL, 43)}"),
        lambda: (
            f"Teams hook https://contoso.webhook.office.com/webhookb2/{d.uuid()}@{d.uuid()}/IncomingWebhook/{d.s(HEX, 32)}/{d.uuid()}"
        ),
        lambda: f"mailgun api key key-{d.s(HEX, 32)}",
        lambda: f"mailchimp key {d.s(HEX, 32)}-us{d.n(1, 21)}",
        lambda: f"BREVO_API_KEY=xkeysib-{d.s(HEX, 64)}-{d.s(ALNUM, 16)}",
        lambda: (
            f"Google Chat: https://chat.googleapis.com/v1/spaces/AAAA{d.s(B64URL, 7)}/messages?key=AIza{d.s(B64URL, 35)}&token={d.s(B64URL, 43)}%3D"
        ),
        lambda: f"postmark server token {d.uuid()}",
    )
    return note(d, d.r.choice(forms)())


def devops_tokens(d: Draw) -> str:
    forms = (
        lambda: f"heroku: HRKU-{d.s(B64URL, 60)}",
        lambda: f"VAULT_TOKEN=hvs.{d.s(B64URL, 90)}",
        lambda: f"doppler service token dp.st.prd.{d.s(ALNUM, 40)}",
        lambda: f"LINEAR_API_KEY=lin_api_{d.s(ALNUM, 40)}",
        lambda: f"notion integration secret ntn_{d.s(ALNUM, 46)}",
        lambda: f"SENTRY_AUTH_TOKEN=sntrys_{d.s(B64, 90)}",
        lambda: f"new relic user key NRAK-{d.s(UPPER_ALNUM, 27)}",
        lambda: f"grafana service account token glsa_{d.s(ALNUM, 32)}_{d.s(HEX, 8)}",
        lambda: f"postman key PMAK-{d.s(HEX, 24)}-{d.s(HEX, 34)}",
        lambda: f"DATABRICKS_TOKEN=dapi{d.s(HEX, 32)}",
        lambda: f"Jira API token ATATT3xFfGF0{d.s(B64URL, 170)}",
        lambda: f"TS_AUTHKEY=tskey-auth-{d.s(ALNUM, 12)}-{d.s(ALNUM, 30)}",
        lambda: assigned(d, "dd_api_key", d.s(HEX, 32)),
        lambda: assigned(d, "cloudflare_api_token", d.s(B64URL, 40)),
        lambda: f"terraform cloud token {d.s(ALNUM, 14)}.atlasv1.{d.s(B64URL, 67)}",
        lambda: f"supabase access token sbp_{d.s(HEX, 40)}",
        lambda: f"Jenkins API token for ci-bot: {d.s(HEX, 34)}",
        lambda: f"figma personal token figd_{d.s(B64URL, 40)}",
        lambda: f"CIRCLE_TOKEN=CCIPAT_{d.s(ALNUM, 22)}_{d.s(HEX, 40)}",
        lambda: f"buildkite agent token bkua_{d.s(HEX, 40)}",
        lambda: f"PULUMI_ACCESS_TOKEN=pul-{d.s(HEX, 40)}",
        lambda: f"netlify auth nfp_{d.s(ALNUM, 36)}",
        lambda: f"FLY_API_TOKEN=fo1_{d.s(B64URL, 43)}",
        lambda: assigned(d, "vercel_token", d.s(ALNUM, 24)),
        lambda: (
            f"curl -H 'Authorization: SSWS 00{d.s(B64URL, 40)}' https://acme.okta.com/api/v1/users"
        ),
        lambda: f"glc_{d.s(B64, 60)}= is the grafana cloud token",
    )
    return note(d, d.r.choice(forms)())


def _pem(d: Draw, kind: str, lines: int = 3, footer: bool = True) -> str:
    body = "\n".join(d.s(B64, 64) for _ in range(lines))
    end = f"\n-----END {kind}-----" if footer else ""
    return f"-----BEGIN {kind}-----\n{body}{end}"


def private_keys(d: Draw) -> str:
    forms = (
        lambda: _pem(
            d,
            d.pick(
                "RSA PRIVATE KEY",
                "PRIVATE KEY",
                "EC PRIVATE KEY",
                "DSA PRIVATE KEY",
                "OPENSSH PRIVATE KEY",
            ),
        ),
        lambda: "deploy key, no footer:\n" + _pem(d, "OPENSSH PRIVATE KEY", 2, footer=False),
        lambda: _pem(d, "ENCRYPTED PRIVATE KEY"),
        lambda: (
            "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,"
            + d.s(HEX, 32).upper()
            + "\n\n"
            + "\n".join(d.s(B64, 64) for _ in range(3))
        ),
        lambda: _pem(d, "PGP PRIVATE KEY BLOCK"),
        lambda: (
            "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\n"
            + d.s(B64, 64)
            + "\nPrivate-Lines: 1\n"
            + d.s(B64, 44)
        ),
        lambda: json.dumps(
            {
                "kty": "EC",
                "crv": "P-256",
                "x": b64url(d.r.randbytes(32)),
                "y": b64url(d.r.randbytes(32)),
                "d": b64url(d.r.randbytes(32)),
            }
        ),
        lambda: (
            f"key body: {d.pick('MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ', 'MIIEpAIBAAKCAQEA', 'MHcCAQEEI', 'MC4CAQAwBQYDK2VwBCIEI')}{d.s(B64, 120)}"
        ),
        lambda: (
            "client-key-data: " + base64.b64encode(_pem(d, "RSA PRIVATE KEY").encode()).decode()
        ),
        lambda: "age secret: AGE-SECRET-KEY-1" + d.s("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
        lambda: (
            f"[Interface]\nPrivateKey = {base64.b64encode(d.r.randbytes(32)).decode()}\nAddress = 10.8.0.2/24"
        ),
        lambda: '---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: "rsa-key"\n' + d.s(B64, 64),
        lambda: '"private_key": "-----BEGIN PRIVATE KEY-----\\n' + d.s(B64, 64) + '\\n"',
        lambda: "ssh key for the bastion:\n" + _pem(d, "OPENSSH PRIVATE KEY", 4).lower(),
        lambda: "nostr nsec1" + d.s("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58),
    )
    return note(d, d.r.choice(forms)())


def wallets(d: Draw) -> str:
    words = sorted(bip39.WORDS)

    def phrase(size: int, sep: str = " ") -> str:
        return sep.join(d.r.choice(words) for _ in range(size))

    wif = base58check(b"\x80" + d.r.randbytes(32) + d.pick("\x01", "").encode())
    xprv = base58check(bytes.fromhex(d.pick("0488ade4", "04358394")) + d.r.randbytes(74))
    keypair = "[" + ",".join(str(d.n(0, 255)) for _ in range(64)) + "]"
    forms = (
        lambda: f"MetaMask secret recovery phrase: {phrase(12)}",
        lambda: f"seed words (ledger backup): {phrase(24)}",
        lambda: (
            "Wallet mnemonic\n"
            + "\n".join(f"{i}. {w}" for i, w in enumerate(phrase(12).split(), 1))
        ),
        lambda: f"My 12 words are {phrase(12, ', ')}",
        lambda: f"recovery phrase for the trezor: {phrase(18)}",
        lambda: f"backup seed {phrase(12, ' - ')}",
        lambda: f"bitcoin WIF key {wif}",
        lambda: f"importprivkey {wif}",
        lambda: f"paper wallet: {wif}",
        lambda: f"xprv for the cold wallet: {xprv}",
        lambda: f"ETH wallet private key: 0x{d.s(HEX, 64)}",
        lambda: assigned(d, "private_key", "0x" + d.s(HEX, 64)),
        lambda: f"solana keypair (id.json): {keypair}",
        lambda: f"~/.config/solana/id.json\n{keypair}",
        lambda: f"phantom private key {base58check(d.r.randbytes(60))[:88]}",
        lambda: (
            '{"address": "'
            + d.s(HEX, 40)
            + '", "crypto": {"cipher": "aes-128-ctr", "ciphertext": "'
            + d.s(HEX, 64)
            + '", "kdf": "scrypt"}}'
        ),
    )
    return note(d, d.r.choice(forms)())


def _jwt(d: Draw, alg: str = "HS256", payload: dict[str, object] | None = None) -> str:
    header = b64url(json.dumps({"alg": alg, "typ": "JWT"}).encode())
    body = payload or {"sub": d.digits(8), "iat": 1_700_000_000 + d.n(0, 10**7)}
    signature = b64url(d.r.randbytes(32 if alg == "HS256" else 256))
    return f"{header}.{b64url(json.dumps(body).encode())}.{signature}"


def compact_tokens(d: Draw) -> str:
    unsigned = ".".join(
        [b64url(b'{"alg":"none"}'), b64url(json.dumps({"sub": d.s(HEX, 8)}).encode()), ""]
    )
    jwe = ".".join(
        [
            b64url(b'{"alg":"dir","enc":"A256GCM"}'),
            "",
            b64url(d.r.randbytes(12)),
            b64url(d.r.randbytes(60)),
            b64url(d.r.randbytes(16)),
        ]
    )
    forms = (
        lambda: f"id token from the login: {_jwt(d)}",
        lambda: _jwt(d, "RS256", {"sub": "user-" + d.digits(6), "role": "admin"}),
        lambda: f"Service account JWT `{_jwt(d, 'RS256')}` expires tomorrow",
        lambda: f"unsigned token {unsigned}",
        lambda: f"encrypted: {jwe}",
        lambda: f"jwt={_jwt(d)}",
        lambda: f'"id_token": "{_jwt(d, "RS256")}"',
        lambda: f"token: {_jwt(d)}",
        lambda: f"paseto v4.local.{d.s(B64URL, 120)}",
        lambda: f"fernet token gAAAAA{d.s(B64URL, 120)}==",
        lambda: f'curl -H "Authorization: Bearer {_jwt(d)}" https://api.example.com/me',
    )
    return note(d, d.r.choice(forms)())


def headers_and_cookies(d: Draw) -> str:
    token = d.s(ALNUM, 40)
    basic = base64.b64encode(f"{d.user()}:{d.password()}".encode()).decode()
    forms = (
        lambda: f"Authorization: Bearer {token}",
        lambda: f'curl -H "Authorization: Basic {basic}" https://api.internal/v1/export',
        lambda: f"Use Bearer {d.s(B64URL, 48)} for the staging API",
        lambda: f"x-api-key: {d.s(ALNUM, 32)}",
        lambda: f'headers = {{"X-Auth-Token": "{d.s(HEX, 40)}"}}',
        lambda: f"Proxy-Authorization: Basic {basic}",
        lambda: f"Authorization: Token {d.s(HEX, 40)}",
        lambda: f"-H 'X-Api-Key: {d.s(ALNUM, 32)}'",
        lambda: f"Cookie: sessionid={d.s(LOWER_ALNUM, 32)}; csrftoken={d.s(ALNUM, 32)}",
        lambda: (
            f"Set-Cookie: connect.sid=s%3A{d.s(B64URL, 32)}.{d.s(B64URL, 43)}; Path=/; HttpOnly"
        ),
        lambda: f"JSESSIONID={d.s('0123456789ABCDEF', 32)}",
        lambda: f"PHPSESSID={d.s(LOWER_ALNUM, 26)}",
        lambda: f"requests.get(url, headers={{'Authorization': 'Bearer {token}'}})",
        lambda: f"http -a {d.user()}:{d.password()} https://api.example.com/items",
        lambda: f"wget --header='Authorization: token {d.s(HEX, 40)}' https://example.com/file",
    )
    return note(d, d.r.choice(forms)())


_SECRET_NAMES = (
    "password",
    "db_password",
    "mysql_root_password",
    "smtp_password",
    "api_key",
    "api_secret",
    "secret_key",
    "client_secret",
    "auth_token",
    "access_token",
    "app_secret",
    "jwt_secret",
    "encryption_key",
    "admin_pass",
    "redis_password",
    "ldap_bind_password",
    "webhook_secret",
    "signing_secret",
    "master_key",
    "passphrase",
)


def assignments(d: Draw) -> str:
    name = d.pick(*_SECRET_NAMES)
    value = d.password() if "pass" in name else d.s(ALNUM, d.n(24, 48))
    forms = (
        lambda: assigned(d, name, value),
        lambda: f"define('{name.upper()}', '{value}');",
        lambda: f"$config['{name}'] = '{value}';",
        lambda: f'${name} = "{value}";',
        lambda: f"my ${name} = '{value}';",
        lambda: f'config.{name} = "{value}"',
        lambda: f"Rails.application.credentials.{name} = '{value}'",
        lambda: f'{name.title().replace("_", "")}: "{value}",',
        lambda: f'ds.set{name.title().replace("_", "")}("{value}");',
        lambda: f'props.put("{name}", "{value}");',
        lambda: f'os.environ["{name.upper()}"] = "{value}"',
        lambda: f"os.environ.setdefault('{name.upper()}', '{value}')",
        lambda: f"spring.datasource.password={d.password()}",
        lambda: (
            f"Server=tcp:{d.host()},1433;Database=app;User ID={d.user()};Password={d.password()};Encrypt=True;"
        ),
        lambda: f"Driver={{ODBC Driver 18}};Server={d.host()};UID={d.user()};PWD={d.password()};",
        lambda: f"jdbc:mysql://{d.host()}:3306/app?user={d.user()}&password={d.password()}",
        lambda: f"ansible_become_password: {d.password()}",
        lambda: f"kubectl create secret generic db --from-literal=password={d.password()}",
        lambda: (
            f'resource "aws_db_instance" "main" {{\n  username = "{d.user()}"\n  password = "{d.password()}"\n}}'
        ),
        lambda: f"SECRET_KEY = '{d.s(ALNUM + '!@#$%^&*(-_=+)', 50)}'",
        lambda: f"set -gx {name.upper()} {value}",
        lambda: f'setx {name.upper()} "{value}"',
        lambda: f"ARG {name.upper()}={value}",
        lambda: f"{name.upper()} ?= {value}",
        lambda: f"  {name}: !!str {value}",
        lambda: f'wpa_passphrase="{d.password()}"',
        lambda: f'psk="{d.password()}"',
        lambda: f"[client]\nuser={d.user()}\npassword={d.password()}",
        lambda: f'<property name="hibernate.connection.password">{d.password()}</property>',
        lambda: f"{name}={value} # do not commit",
    )
    return note(d, d.r.choice(forms)())


def sdk_positional(d: Draw) -> str:
    sid = "AC" + d.s(HEX, 32)
    forms = (
        lambda: f'client = Client("{sid}", "{d.s(HEX, 32)}")',
        lambda: f"const client = twilio('{sid}', '{d.s(HEX, 32)}');",
        lambda: f'TwilioRestClient("{sid}", "{d.s(HEX, 32)}")',
        lambda: f'r = requests.get(url, auth=("{d.user()}", "{d.password()}"))',
        lambda: f'auth = HTTPBasicAuth("{d.user()}", "{d.password()}")',
        lambda: f"session.auth = ('{d.user()}', '{d.password()}')",
        lambda: f'server.login("{d.user()}@example.com", "{d.password()}")',
        lambda: f"ftp.login('{d.user()}', '{d.password()}')",
        lambda: (
            f'conn = psycopg2.connect("dbname=app user={d.user()} password={d.password()} host={d.host()}")'
        ),
        lambda: (
            f"mysql.connector.connect(host='{d.host()}', user='{d.user()}', passwd='{d.password()}')"
        ),
        lambda: f'ssh.connect("{d.host()}", username="{d.user()}", password="{d.password()}")',
        lambda: (
            f"boto3.client('s3', aws_access_key_id='AKIA{d.s(UPPER_ALNUM, 16)}', aws_secret_access_key='{d.s(B64, 40)}')"
        ),
        lambda: f"new Octokit({{ auth: '{d.s(ALNUM, 40)}' }})",
        lambda: f"Redis(host='{d.host()}', port=6379, password='{d.password()}')",
        lambda: (
            f"pysftp.Connection('{d.host()}', username='{d.user()}', password='{d.password()}')"
        ),
        lambda: f'ldap.simple_bind_s("cn={d.user()},dc=example,dc=com", "{d.password()}")',
        lambda: f'Basic.auth("{d.user()}", "{d.password()}")',
        lambda: f'.credentials("{d.user()}", "{d.password()}")',
        lambda: f'mongo.connect(user="{d.user()}", pwd="{d.password()}")',
        lambda: (
            f'sf = Salesforce(username="{d.user()}@acme.com", password="{d.password()}", security_token="{d.s(ALNUM, 25)}")'
        ),
    )
    return note(d, d.r.choice(forms)())


def url_credentials(d: Draw) -> str:
    password = d.password()
    forms = (
        lambda: f"postgres://{d.user()}:{password}@{d.host()}:5432/app",
        lambda: f"DATABASE_URL=postgresql://{d.user()}:{password}@{d.host()}/prod",
        lambda: (
            f"mongodb+srv://{d.user()}:{password}@cluster0.{d.s(LOWER_ALNUM, 5)}.mongodb.net/?retryWrites=true"
        ),
        lambda: f"redis://:{password}@{d.host()}:6379/0",
        lambda: f"amqp://{d.user()}:{password}@{d.host()}:5672/",
        lambda: f"https://{d.user()}:{password}@git.example.com/acme/repo.git",
        lambda: f"ftp://{d.user()}:{password}@files.example.com/upload",
        lambda: f"smtp://{d.user()}%40example.com:{password}@smtp.example.com:587",
        lambda: f"https://api.example.com/v2/report?api_key={d.s(ALNUM, 32)}&format=csv",
        lambda: f"GET /export?access_token={d.s(B64URL, 40)} HTTP/1.1",
        lambda: f"https://example.com/hook?token={d.s(HEX, 40)}",
        lambda: f"mysql://{d.user()}:{password}@{d.host()}/wordpress",
        lambda: f"sftp://{d.user()}:{password}@{d.host()}/backups",
    )
    return note(d, d.r.choice(forms)())


def config_files(d: Draw) -> str:
    password = d.password()
    forms = (
        lambda: f"{d.host()}:5432:app:{d.user()}:{password}",
        lambda: f"~/.pgpass\n*:*:*:{d.user()}:{password}",
        lambda: f"localhost:5432:*:postgres:{password}",
        lambda: f"machine api.example.com login {d.user()} password {password}",
        lambda: f".netrc:\nmachine github.com\n  login {d.user()}\n  password {d.s(ALNUM, 40)}",
        lambda: f"machine ftp.example.org login anonymous password {password}",
        lambda: f"//npm.pkg.github.com/:_authToken={d.s(ALNUM, 40)}",
        lambda: f"_auth={base64.b64encode(f'{d.user()}:{password}'.encode()).decode()}",
        lambda: (
            '{"auths": {"registry.example.com": {"auth": "'
            + base64.b64encode(f"{d.user()}:{password}".encode()).decode()
            + '"}}}'
        ),
        lambda: f"https://{d.user()}:{d.s(ALNUM, 40)}@github.com",
        lambda: (
            f"[distutils]\nindex-servers = pypi\n[pypi]\nusername: {d.user()}\npassword: {password}"
        ),
        lambda: f'network={{\n  ssid="HomeNet"\n  psk="{password}"\n}}',
        lambda: f"auth-user-pass credentials:\n{d.user()}\n{password}",
    )
    return note(d, d.r.choice(forms)())


def command_lines(d: Draw) -> str:
    password = d.password()
    forms = (
        lambda: f"http -a {d.user()}:{password} POST https://api.example.com/deploy",
        lambda: f"curl -u {d.user()}:{password} https://ci.internal/api/json",
        lambda: f"curl --user {d.user()}:{password} -X POST https://example.com/api",
        lambda: f"mysql -u {d.user()} -p{password} prod",
        lambda: f"mysqldump -u root --password={password} shop > shop.sql",
        lambda: f"sshpass -p '{password}' ssh {d.user()}@{d.host()}",
        lambda: f"redis-cli -h {d.host()} -a {password}",
        lambda: f"docker login registry.example.com -u {d.user()} -p {password}",
        lambda: f"net use \\\\fileserver\\share /user:{d.user()} {password}",
        lambda: f"wget --user={d.user()} --password={password} https://example.com/file.zip",
        lambda: f"PGPASSWORD={password} psql -h {d.host()} -U {d.user()} app",
        lambda: f"sqlcmd -S {d.host()} -U sa -P {password}",
        lambda: f"smbclient //nas/share -U {d.user()}%{password}",
        lambda: f"xfreerdp /v:{d.host()} /u:{d.user()} /p:{password}",
        lambda: f"openssl pkcs12 -export -in cert.pem -passout pass:{password}",
        lambda: f"htpasswd -b .htpasswd {d.user()} {password}",
        lambda: f"rclone config create remote webdav user {d.user()} pass {password}",
        lambda: f"ab -A {d.user()}:{password} -n 100 https://example.com/",
    )
    return note(d, d.r.choice(forms)())


def prose_passwords(d: Draw) -> str:
    password = d.password()
    forms = (
        lambda: f"The wifi password is {password}",
        lambda: f"My password for the NAS is {password}",
        lambda: f"Login for the router: {d.user()} / {password}",
        lambda: f"use {password} to unlock the laptop",
        lambda: f"Use {password} to log in to the admin panel.",
        lambda: f"unlock it with {password}",
        lambda: f"sign in as {d.user()} with {password}",
        lambda: f"The code for the door is {d.digits(6)}",
        lambda: f"{password} is the admin password",
        lambda: f"pw for the shared mailbox: {password}",
        lambda: f"Password reset done, new one: {password}",
        lambda: f"I changed the password to {password} yesterday",
        lambda: f"Type {password} when it asks for the passphrase.",
        lambda: f"the encryption passphrase is '{password}'",
        lambda: f"Das Passwort für den Server lautet {password}",
        lambda: f"Le mot de passe est {password}",
        lambda: f"La contraseña del correo es {password}",
        lambda: f"A senha do banco é {password}",
        lambda: f"Het wachtwoord is {password}",
        lambda: f"La password del router è {password}",
        lambda: f"Hasło do wifi: {password}",
        lambda: f"Пароль от почты: {password}",
        lambda: f"数据库密码是{password}",
        lambda: f"サーバーのパスワードは{password}です",
        lambda: f"관리자 비밀번호는 {password}",
        lambda: f"Şifre: {password}",
        lambda: f"Lösenordet är {password}",
        lambda: f"credentials for staging: {d.user()} / {password}",
        lambda: f"user {d.user()}, pass {password}",
        lambda: f"log in with {d.user()}:{password}",
    )
    return note(d, d.r.choice(forms)())


def mfa_secrets(d: Draw) -> str:
    seed = d.s(BASE32, 32)
    groups = " ".join(seed[i : i + 4] for i in range(0, 32, 4))
    forms = (
        lambda: f"otpauth://totp/Acme:{d.user()}@example.com?secret={d.s(BASE32, 32)}&issuer=Acme",
        lambda: f"2FA setup key: {groups}",
        lambda: f"authenticator key {groups.lower()}",
        lambda: f"TOTP secret {d.s(BASE32, 16)}",
        lambda: (
            f"Google Authenticator setup key: {' '.join(d.s(BASE32, 4).lower() for _ in range(8))}"
        ),
        lambda: f"MFA seed for the root account: {d.s(BASE32, 32)}",
        lambda: (
            "GitHub recovery codes:\n" + "\n".join(f"{d.s(HEX, 5)}-{d.s(HEX, 5)}" for _ in range(8))
        ),
        lambda: (
            f"backup codes for google: {d.digits(4)} {d.digits(4)}, {d.digits(4)} {d.digits(4)}, {d.digits(4)} {d.digits(4)}"
        ),
        lambda: (
            "BitLocker recovery key: " + "-".join(f"{11 * d.n(0, 65535):06d}" for _ in range(8))
        ),
        lambda: f"Apple recovery key {'-'.join(d.s(UPPER_ALNUM, 4) for _ in range(7))}",
        lambda: (
            f"1Password secret key A3-{d.s(UPPER_ALNUM, 6)}-{d.s(UPPER_ALNUM, 6)}-{d.s(UPPER_ALNUM, 5)}-{d.s(UPPER_ALNUM, 5)}-{d.s(UPPER_ALNUM, 5)}-{d.s(UPPER_ALNUM, 5)}"
        ),
        lambda: (
            f"2fa recovery code: {d.s(LOWER_ALNUM, 4)}-{d.s(LOWER_ALNUM, 4)}-{d.s(LOWER_ALNUM, 4)}-{d.s(LOWER_ALNUM, 4)}"
        ),
    )
    return note(d, d.r.choice(forms)())


def _card_number(d: Draw) -> str:
    prefix, size = d.r.choice(
        (
            ("4", 16),
            ("4", 16),
            ("51", 16),
            ("55", 16),
            ("2221", 16),
            ("34", 15),
            ("37", 15),
            ("6011", 16),
            ("65", 16),
            ("3528", 16),
            ("36", 14),
            ("62", 16),
            ("4", 13),
            ("6759", 18),
        )
    )
    return d.luhn(prefix, size)


def _card_written(d: Draw, number: str) -> str:
    style = d.n(0, 6)
    if style == 0:
        return number
    if style == 1:
        return " ".join(number[i : i + 4] for i in range(0, len(number), 4))
    if style == 2:
        return "-".join(number[i : i + 4] for i in range(0, len(number), 4))
    if style == 3 and len(number) == 15:
        return f"{number[:4]} {number[4:10]} {number[10:]}"
    if style == 4:  # irregular spacing, as typed in a hurry
        cuts = sorted(d.r.sample(range(2, len(number) - 1), d.n(1, 3)))
        pieces = [number[a:b] for a, b in zip([0, *cuts], [*cuts, len(number)], strict=True)]
        return " ".join(pieces)
    if style == 5:
        return f"{number[:4]} {number[4:8]}  {number[8:12]} {number[12:]}".replace("  ", " ")
    return " ".join(number[i : i + 4] for i in range(0, len(number), 4))


def cards(d: Draw) -> str:
    written = _card_written(d, _card_number(d))
    month, year = d.n(1, 12), d.n(25, 31)
    forms = (
        f"card {written} exp {month:02d}/{year}",
        f"Company card: {written}, expires {month:02d}/{year}, CVV {d.digits(3)}",
        f"pay with {written}",
        f"Visa {written}",
        f"Mastercard {written} (personal)",
        f"{written}",
        f"card number: {written}",
        f"Kreditkarte {written} gültig bis {month:02d}/{year}",
        f'{{"card": "{written}", "exp": "{month:02d}/{year}"}}',
        f"| Amex | {written} | {month:02d}/{year} |",
        f"numéro de carte {written}",
        f"CC# {written}",
    )
    return note(d, d.pick(*forms))


def _ssn(d: Draw) -> str:
    while True:
        area, group, serial = d.n(1, 899), d.n(1, 99), d.n(1, 9999)
        if area != 666:
            return f"{area:03d}-{group:02d}-{serial:04d}"


def us_identifiers(d: Draw) -> str:
    ssn = _ssn(d)
    itin = f"9{d.digits(2)}-{d.pick('70', '78', '88', '90', '94')}-{d.digits(4)}"
    mbi = f"{d.n(1, 9)}{d.pick(*'ACDEFGHJKMNPQRTUVWXY')}{d.pick(*'ACDEFGHJKMNPQRTUVWXY0123456789')}{d.digits(1)}-{d.pick(*'ACDEFGHJKMNPQRTUVWXY')}{d.pick(*'ACDEFGHJKMNPQRTUVWXY0123456789')}{d.digits(1)}-{d.pick(*'ACDEFGHJKMNPQRTUVWXY')}{d.pick(*'ACDEFGHJKMNPQRTUVWXY')}{d.digits(2)}"
    forms = (
        f"SSN {ssn}",
        f"Her social security number is {ssn}.",
        f"{ssn}",
        f"ssn: {ssn.replace('-', '')}",
        f"SSN {ssn.replace('-', ' ')}",
        f"social security no. {ssn.replace('-', '')}",
        f"ITIN {itin}",
        f"US passport number {d.digits(9)}",
        f"passport: {d.pick('A', 'C', 'E')}{d.digits(8)}",
        f"driver's license D{d.digits(7)}",
        f"CA DL {d.pick(*string.ascii_uppercase)}{d.digits(7)}",
        f"Medicare number {mbi}",
        f"EIN {d.digits(2)}-{d.digits(7)}",
        f"Tax ID (SSN): {ssn}",
        f"SSN#{ssn}",
        f"last four are on file, full SSN {ssn}",
    )
    return note(d, d.pick(*forms))


def _yymmdd(d: Draw) -> str:
    year, month, day = d.date()
    return f"{year % 100:02d}{month:02d}{day:02d}"


def national_ids(d: Draw) -> str:
    makers: tuple[Callable[[], str], ...] = (
        lambda: f"PESEL: {d.stdnum('pl.pesel', lambda: _yymmdd(d) + d.digits(5))}",
        lambda: f"My PESEL is {d.stdnum('pl.pesel', lambda: _yymmdd(d) + d.digits(5))}",
        lambda: f"BSN {d.stdnum('nl.bsn', lambda: d.digits(9))}",
        lambda: f"burgerservicenummer: {d.stdnum('nl.bsn', lambda: d.digits(9))}",
        lambda: f"TC Kimlik No: {d.stdnum('tr.tckimlik', lambda: str(d.n(1, 9)) + d.digits(10))}",
        lambda: (
            f"CNP {d.stdnum('ro.cnp', lambda: d.pick('1', '2', '5', '6') + _yymmdd(d) + f'{d.n(1, 46):02d}' + d.digits(4))}"
        ),
        lambda: f"ЕГН {d.stdnum('bg.egn', lambda: _yymmdd(d) + d.digits(4))}",
        lambda: f"OIB: {d.stdnum('hr.oib', lambda: d.digits(11))}",
        lambda: (
            f"isikukood {d.stdnum('ee.ik', lambda: d.pick('3', '4', '5', '6') + _yymmdd(d) + d.digits(4))}"
        ),
        lambda: (
            f"asmens kodas {d.stdnum('lt.asmens', lambda: d.pick('3', '4', '5', '6') + _yymmdd(d) + d.digits(4))}"
        ),
        lambda: (
            f"AMKA {d.stdnum('gr.amka', lambda: _yymmdd(d)[4:] + _yymmdd(d)[2:4] + _yymmdd(d)[:2] + d.digits(5))}"
        ),
        lambda: f"Teudat Zehut {d.stdnum('il.idnr', lambda: d.digits(9))}",
        lambda: (
            f"PPS number {d.stdnum('ie.pps', lambda: d.digits(7) + d.pick(*'ABCDEFGHJKLMNPQRSTVWX'))}"
        ),
        lambda: (
            f"SIN: {_spaced(d.stdnum('ca.sin', lambda: d.pick(*'1234567') + d.digits(8)), (3, 3, 3), d.pick(' ', '-'))}"
        ),
        lambda: f"TFN {_spaced(d.stdnum('au.tfn', lambda: d.digits(9)), (3, 3, 3), ' ')}",
        lambda: f"IRD number {d.stdnum('nz.ird', lambda: d.digits(8))}",
        lambda: f"NHS number {_spaced(d.stdnum('gb.nhs', lambda: d.digits(10)), (3, 3, 4), ' ')}",
        lambda: (
            f"NI number {d.pick('AB', 'CE', 'JG', 'PR', 'WX', 'YZ')}{d.digits(6)}{d.pick(*'ABCD')}"
        ),
        lambda: (
            f"National Insurance: {d.pick('AB', 'JG', 'PR')} {d.digits(2)} {d.digits(2)} {d.digits(2)} {d.pick(*'ABCD')}"
        ),
        lambda: (
            f"Aadhaar {_spaced(d.stdnum('in_.aadhaar', lambda: str(d.n(2, 9)) + d.digits(11)), (4, 4, 4), ' ')}"
        ),
        lambda: (
            f"PAN card {d.stdnum('in_.pan', lambda: d.s(string.ascii_uppercase, 3) + d.pick(*'PCHFATBLJG') + d.s(string.ascii_uppercase, 1) + d.digits(4) + d.s(string.ascii_uppercase, 1))}"
        ),
        lambda: (
            f"身份证号码：{d.stdnum('cn.ric', lambda: d.pick('110101', '310104', '440305', '510107') + f'{d.n(1950, 2005)}{d.n(1, 12):02d}{d.n(1, 28):02d}' + d.digits(3) + d.pick(*'0123456789X'))}"
        ),
        lambda: f"マイナンバー {_spaced(d.stdnum('jp.in_', lambda: d.digits(12)), (4, 4, 4), ' ')}",
        lambda: (
            f"주민등록번호 {d.stdnum('kr.rrn', lambda: _yymmdd(d) + d.pick('1', '2', '3', '4') + d.digits(6))[:6]}-{d.stdnum('kr.rrn', lambda: _yymmdd(d) + d.pick('1', '2', '3', '4') + d.digits(6))[6:]}"
        ),
        lambda: f"RRN {_rrn(d)}",
        lambda: f"MyKad {_mykad(d)}",
        lambda: (
            f"Thai ID {_spaced(d.stdnum('th.pin', lambda: str(d.n(1, 8)) + d.digits(12)), (1, 4, 5, 2, 1), '-')}"
        ),
        lambda: (
            f"NIK {d.stdnum('id.nik', lambda: '3171' + d.digits(2) + _yymmdd(d) + d.digits(4))}"
        ),
        lambda: f"CNIC {_spaced(d.stdnum('pk.cnic', lambda: d.digits(13)), (5, 7, 1), '-')}",
        lambda: (
            f"CPF do cliente: {_spaced(d.stdnum('br.cpf', lambda: d.digits(11)), (3, 3, 3, 2), '..-')}"
        ),
        lambda: (
            f"CURP: {d.stdnum('mx.curp', lambda: d.s(string.ascii_uppercase, 4) + _yymmdd(d) + d.pick('H', 'M') + d.pick('DF', 'JC', 'NL', 'MC') + d.s('BCDFGHJKLMNPQRSTVWXZ', 3) + d.pick('0', 'A') + d.digits(1))}"
        ),
        lambda: (
            f"CUIT {_spaced(d.stdnum('ar.cuit', lambda: d.pick('20', '23', '27') + d.digits(9)), (2, 8, 1), '-')}"
        ),
        lambda: f"DNI {d.digits(2)}.{d.digits(3)}.{d.digits(3)} (Argentina)",
        lambda: f"RUT {_rut(d)}",
        lambda: f"cédula de ciudadanía {d.n(10**6, 1_999_999_999):,}".replace(",", "."),
        lambda: (
            f"DNI {d.stdnum('es.dni', lambda: d.digits(8) + d.pick(*'TRWAGMYFPDXBNJZSQVHLCKE'))}"
        ),
        lambda: (
            f"NIE {d.stdnum('es.nie', lambda: d.pick('X', 'Y', 'Z') + d.digits(7) + d.pick(*'TRWAGMYFPDXBNJZSQVHLCKE'))}"
        ),
        lambda: f"NIF {d.stdnum('pt.nif', lambda: d.pick('1', '2') + d.digits(8))}",
        lambda: f"numéro de sécurité sociale : {_nir(d)}",
        lambda: f"Codice fiscale: {_codice_fiscale(d)}",
        lambda: f"Steuer-ID {d.stdnum('de.idnr', lambda: str(d.n(1, 9)) + d.digits(10))}",
        lambda: f"Personalausweis-Nr. L{d.s('CFGHJKLMNPRTVWXYZ0123456789', 8)}",
        lambda: (
            f"numéro national {_spaced(d.stdnum('be.nn', lambda: _yymmdd(d) + d.digits(5)), (2, 2, 2, 3, 2), '..-.')}"
        ),
        lambda: (
            f"AHV-Nr. {_spaced(d.stdnum('ch.ssn', lambda: '756' + d.digits(10)), (3, 4, 4, 2), '.')}"
        ),
        lambda: (
            f"SV-Nummer {d.stdnum('at.vnr', lambda: d.digits(4) + _yymmdd(d)[4:] + _yymmdd(d)[2:4] + _yymmdd(d)[:2])}"
        ),
        lambda: f"rodné číslo {_czech(d)}",
        lambda: f"Personnummer {_personnummer(d)}",
        lambda: f"fødselsnummer {d.stdnum('no.fodselsnummer', lambda: _ddmmyy(d) + d.digits(5))}",
        lambda: (
            f"CPR-nummer {d.stdnum('dk.cpr', lambda: _ddmmyy(d) + d.digits(4))[:6]}-{d.digits(4)}"
        ),
        lambda: f"henkilötunnus {_hetu(d)}",
        lambda: (
            f"kennitala {d.stdnum('is_.kennitala', lambda: _ddmmyy(d) + d.digits(2) + d.digits(1) + d.pick('9', '0'))}"
        ),
        lambda: (
            f"South African ID {d.stdnum('za.idnr', lambda: _yymmdd(d) + d.digits(4) + d.pick('0', '1') + '8' + d.digits(1))}"
        ),
        lambda: f"Emirates ID 784-{d.n(1960, 2005)}-{d.digits(7)}-{d.digits(1)}",
        lambda: f"Iqama number {d.pick('1', '2')}{d.digits(9)}",
        lambda: f"NIN {d.digits(11)} (Nigeria)",
        lambda: (
            f"EMŠO {d.stdnum('si.emso', lambda: _ddmmyy(d)[:4] + str(d.n(1945, 2005))[1:] + '50' + d.digits(4))}"
        ),
        lambda: f"NRIC {_nric(d)}",
        lambda: f"HKID {_hkid(d)}",
        lambda: f"national ID number {d.digits(10)}",
        lambda: f"Reisepassnummer C{d.s('CFGHJKLMNPRTVWXYZ0123456789', 8)}",
        lambda: f"numéro de passeport {d.digits(2)}{d.s(string.ascii_uppercase, 2)}{d.digits(5)}",
        lambda: f"Egyptian national ID {d.pick('2', '3')}{_yymmdd(d)}{d.digits(7)}",
    )
    return note(d, d.r.choice(makers)())


def immigration(d: Draw) -> str:
    forms = (
        lambda: f"A-Number: A{d.digits(9)}",
        lambda: f"alien registration number {d.digits(3)}-{d.digits(3)}-{d.digits(3)}",
        lambda: (
            f"USCIS receipt number {d.pick('EAC', 'WAC', 'LIN', 'SRC', 'MSC', 'NBC', 'IOE', 'YSC')}{d.digits(10)}"
        ),
        lambda: f"I-797 receipt {d.pick('EAC', 'WAC', 'IOE')}{d.digits(10)}",
        lambda: f"I-94 number {d.digits(11)}",
        lambda: f"green card number {d.pick('SRC', 'LIN', 'EAC')}{d.digits(10)}",
        lambda: f"BRP number {d.pick('ZR', 'ZU', 'RF', 'ZX')}{d.digits(7)}",
        lambda: f"UCI: {d.digits(4)}-{d.digits(4)}",
        lambda: f"IRCC client ID (UCI) {d.digits(2)}-{d.digits(4)}-{d.digits(4)}",
        lambda: f"visa grant number {d.digits(13)}",
        lambda: f"Aufenthaltstitel Nr. {d.pick('Y', 'Z')}{d.s('CFGHJKLMNPRTVWXYZ0123456789', 8)}",
        lambda: f"titre de séjour n° {d.digits(10)}",
        lambda: f"residence permit number {d.s(string.ascii_uppercase, 2)}{d.digits(7)}",
        lambda: (
            f"P<UTO{d.s(string.ascii_uppercase, 8)}<<{d.s(string.ascii_uppercase, 5)}<<<<<<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10"
        ),
        lambda: f"visa number {d.digits(8)} (US visa foil)",
        lambda: f"EAD card number {d.pick('IOE', 'SRC')}{d.digits(10)}",
    )
    return note(d, d.r.choice(forms)())


def _spaced(value: str, sizes: tuple[int, ...], separators: str) -> str:
    out, at = "", 0
    for index, size in enumerate(sizes):
        if index:
            out += separators[min(index - 1, len(separators) - 1)]
        out += value[at : at + size]
        at += size
    return out


def _ddmmyy(d: Draw) -> str:
    year, month, day = d.date()
    return f"{day:02d}{month:02d}{year % 100:02d}"


def _rrn(d: Draw) -> str:
    value = d.stdnum("kr.rrn", lambda: _yymmdd(d) + d.pick("1", "2", "3", "4") + d.digits(6))
    return f"{value[:6]}-{value[6:]}"


def _mykad(d: Draw) -> str:
    value = d.stdnum("my.nric", lambda: _yymmdd(d) + d.pick("14", "10", "08", "01") + d.digits(4))
    return f"{value[:6]}-{value[6:8]}-{value[8:]}"


def _rut(d: Draw) -> str:
    value = d.stdnum("cl.rut", lambda: str(d.n(5, 25)) + d.digits(6) + d.pick(*"0123456789K"))
    body, check = value[:-1], value[-1]
    return f"{int(body):,}".replace(",", ".") + f"-{check}"


def _nir(d: Draw) -> str:
    year, month, _ = d.date()
    body = (
        f"{d.pick('1', '2')}{year % 100:02d}{month:02d}{d.n(1, 95):02d}{d.digits(3)}{d.digits(3)}"
    )
    check = 97 - int(body) % 97
    value = body + f"{check:02d}"
    return _spaced(value, (1, 2, 2, 2, 3, 3, 2), " ")


_CF_ODD = dict(
    zip(
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        (
            1,
            0,
            5,
            7,
            9,
            13,
            15,
            17,
            19,
            21,
            1,
            0,
            5,
            7,
            9,
            13,
            15,
            17,
            19,
            21,
            2,
            4,
            18,
            20,
            11,
            3,
            6,
            8,
            12,
            14,
            16,
            10,
            22,
            25,
            24,
            23,
        ),
        strict=True,
    )
)


def _codice_fiscale(d: Draw) -> str:
    body = (
        d.s("BCDFGHLMNPRSTVZ", 6)
        + f"{d.n(0, 99):02d}"
        + d.pick(*"ABCDEHLMPRST")
        + f"{d.n(1, 28) + d.r.choice((0, 40)):02d}"
        + d.pick(*"ABCDEFGHILM")
        + d.digits(3)
    )
    total = sum(
        _CF_ODD[c] if i % 2 == 0 else (int(c) if c.isdigit() else ord(c) - 65)
        for i, c in enumerate(body)
    )
    return body + chr(65 + total % 26)


def _czech(d: Draw) -> str:
    value = d.stdnum(
        "cz.rc",
        lambda: (
            f"{d.n(54, 99):02d}{d.n(1, 12) + d.r.choice((0, 50)):02d}{d.n(1, 28):02d}{d.digits(4)}"
        ),
    )
    return f"{value[:6]}/{value[6:]}"


def _personnummer(d: Draw) -> str:
    value = d.stdnum("se.personnummer", lambda: f"{_yymmdd(d)}-{d.digits(4)}")
    return value if d.n(0, 1) else f"19{value}"


def _hetu(d: Draw) -> str:
    return d.stdnum(
        "fi.hetu",
        lambda: (
            f"{_ddmmyy(d)}{d.pick('-', 'A')}{d.n(2, 899):03d}{d.pick(*'0123456789ABCDEFHJKLMNPRSTUVWXY')}"
        ),
    )


def _nric(d: Draw) -> str:
    prefix = d.pick("S", "T")
    digits = d.digits(7)
    total = sum(int(c) * w for c, w in zip(digits, (2, 7, 6, 5, 4, 3, 2), strict=True)) + (
        4 if prefix == "T" else 0
    )
    return prefix + digits + "JZIHGFEDCBA"[total % 11]


def _hkid(d: Draw) -> str:
    letter = d.pick(*string.ascii_uppercase)
    digits = d.digits(6)
    total = (
        36 * 9
        + (ord(letter) - 55) * 8
        + sum(int(c) * w for c, w in zip(digits, (7, 6, 5, 4, 3, 2), strict=True))
    )
    check = (11 - total % 11) % 11
    return f"{letter}{digits}({'A' if check == 10 else check})"


# --- benign families ---------------------------------------------------------------------------

_PROSE = (
    "We agreed to ship the onboarding flow on Thursday and leave the pricing page for later.",
    "Sam prefers short standups; anything longer goes into the weekly review.",
    "The migration ran for 42 minutes and touched 1.3 million rows.",
    "Ask the vendor again about the invoice dispute before the end of the month.",
    "Password resets now go through the identity provider, not through our own form.",
    "Never paste tokens into tickets; link to the vault entry instead.",
    "The key insight from the interviews: people want fewer settings, not more.",
    "Rotate the API keys every 90 days and after anyone leaves the team.",
    "Card payments are handled entirely by the payment provider; we never see the number.",
    "The secret to the sourdough is a long cold proof.",
    "Bring the passport and two photos to the appointment on the 14th.",
    "My social security office appointment moved to next week.",
    "The login page now shows a banner when the session is about to expire.",
    "Credentials for the staging database come from Vault, not from the repo.",
    "Use a passphrase of four random words for the new laptop.",
    "The seed round closed at 2.5 million; the wallet app launch is in May.",
    "Recovery codes are printed and kept in the office safe.",
    "Bearer tokens expire after one hour; refresh tokens last thirty days.",
    "Private key rotation for the signing service is scheduled for Q3.",
    "Social security and tax numbers must be masked in every export.",
)


def prose(d: Draw) -> str:
    return " ".join(d.r.sample(_PROSE, d.n(1, 3)))


def security_talk(d: Draw) -> str:
    forms = (
        "The password must be at least 12 characters and is rotated every 90 days.",
        "The password is stored in 1Password under 'Staging DB'.",
        "Ask Alice for the token, do not paste it here.",
        "use the password manager to unlock the shared vault",
        "Unlock the laptop with your fingerprint, not with a password.",
        "Log in with your SSO account; local passwords are disabled.",
        "Type your passphrase when it asks; it is never sent anywhere.",
        "The API key field is required in the settings page.",
        "A password: field was added to the signup form.",
        "Passwords: see the team vault.",
        "Token: see the CI settings page.",
        "password policy v2.1 requires 14 characters",
        "Set the token TTL to 3600 seconds.",
        "the secret: keep the scope small and ship weekly",
        "Do not log the Authorization header.",
        "Our 2FA uses TOTP with a 30 second window.",
        "Das neue Passwort gilt ab Montag für alle Konten.",
        "Le mot de passe du wifi est affiché à l'accueil.",
        "La contraseña caduca cada seis meses.",
        "请不要把密码写在便签上。",
        "パスワードはチームの金庫に保存されています。",
        "Пароль нужно менять раз в квартал.",
        "Wi-Fi network name: Office-5G (password on the whiteboard)",
        "We use the same login for the NAS and the router; it is in the vault.",
        "Use Bitwarden to share passwords, never chat.",
        "To unlock the door use the badge reader on the left.",
        "Use SSH keys instead of passwords for the bastion.",
        "The seed phrase is written on paper in the safe; never type it into a computer.",
        f"Changed my password on {d.n(1, 28)} March; the old one is revoked.",
        "Authorization header format: Bearer <token>",
    )
    return d.pick(*forms)


def placeholders(d: Draw) -> str:
    name = d.pick(*_SECRET_NAMES)
    upper = name.upper()
    host = d.host()
    forms = (
        lambda: f"{name}: ${{{upper}}}",
        lambda: f"{upper}=${{{upper}:?set it in the vault}}",
        lambda: f'{name} = os.environ["{upper}"]',
        lambda: f"{name}: {{{{ vault_{name} }}}}",
        lambda: f"export {upper}=$(pass show ops/{name})",
        lambda: f"Authorization: Bearer ${upper}",
        lambda: f'curl -H "Authorization: Bearer ${{{upper}}}" https://{host}/v1/me',
        lambda: f"{upper}=<your-{name.replace('_', '-')}>",
        lambda: f"{name}: YOUR_{upper}_HERE",
        lambda: f"{name} = {d.pick('<redacted>', '[REDACTED]', '<hidden>', '<secret>')}",
        lambda: f"{name}: '{d.pick('********', '••••••••', 'xxxxxxxx', 'XXXXXXXXXXXX')}'",
        lambda: f"{name}=%{upper}%",
        lambda: f"{name} = config.get('{name}')",
        lambda: f"{name}: !vault |\n  $ANSIBLE_VAULT;1.1;AES256",
        lambda: f"{name}_file: /run/secrets/{name}",
        lambda: f"{name}: ${{{{ secrets.{upper} }}}}",
        lambda: f"op://Private/{host}/{name}",
        lambda: f"{upper}: ENC[AES256_GCM,data:{d.s(B64, 12)},iv:{d.s(B64, 16)},type:str]",
        lambda: f"https://<user>:<token>@{host}/acme/repo.git",
        lambda: f"https://{{{{user}}}}:{{{{token}}}}@{host}/org/repo",
        lambda: f"https://$CI_USER:$CI_TOKEN@{host}/repo.git",
        lambda: f"https://x-access-token:${{GITHUB_TOKEN}}@{host}/acme/app.git",
        lambda: f"redis://:<password>@{host}:6379",
        lambda: f"mongodb://<db_user>:<db_password>@{host}/test",
        lambda: d.pick(
            "xoxb-your-token", "sk_live_" + "x" * 24, "ghp_" + "X" * 36, "AKIA" + "X" * 16
        ),
        lambda: "client = Client(account_sid, auth_token)",
        lambda: "auth=(username, password)",
        lambda: f"define('{upper}', getenv('{upper}'));",
        lambda: f"machine {host} login <user> password <token>",
        lambda: "hostname:port:database:username:password",
        lambda: "*:*:*:postgres:<password>",
        lambda: f"http -a user:<password> https://{host}/api",
        lambda: f"curl -u $USER:$PASS https://{host}/api/json",
        lambda: "Use <your passphrase> to unlock",
        lambda: f"the {name} is in $VAULT_ADDR/v1/secret/data/ci",
    )
    return d.r.choice(forms)()


def object_ids(d: Draw) -> str:
    forms = (
        lambda: f"Message SID: SM{d.s(HEX, 32)}",
        lambda: f"MessageSid=SM{d.s(HEX, 32)}&AccountSid=AC{d.s(HEX, 32)}",
        lambda: f"call sid CA{d.s(HEX, 32)} dropped after 3 s",
        lambda: f"Twilio account AC{d.s(HEX, 32)}",
        lambda: f"phone number sid PN{d.s(HEX, 32)}",
        lambda: f"media sid ME{d.s(HEX, 32)}",
        lambda: f"Stripe customer cus_{d.s(ALNUM, 14)}, charge ch_{d.s(ALNUM, 24)}",
        lambda: f"payment intent pi_{d.s(ALNUM, 24)} succeeded",
        lambda: f"event evt_{d.s(ALNUM, 24)} retried",
        lambda: f"subscription sub_{d.s(ALNUM, 24)} renews on the 1st",
        lambda: f"Slack channel C{d.s(UPPER_ALNUM, 10)}, user U{d.s(UPPER_ALNUM, 10)}",
        lambda: f"Discord message id {d.n(10**17, 10**19)}",
        lambda: f"instance i-{d.s(HEX, 17)} in subnet-{d.s(HEX, 17)}",
        lambda: f"arn:aws:iam::{d.digits(12)}:role/{d.s(LOWER, 8)}",
        lambda: f"AWS role AROA{d.s(UPPER_ALNUM, 16)} and user AIDA{d.s(UPPER_ALNUM, 16)}",
        lambda: f'MongoDB ObjectId("{d.s(HEX, 24)}")',
        lambda: f"YouTube video https://youtu.be/{d.s(B64URL, 11)}",
        lambda: f"Drive file https://drive.google.com/file/d/1{d.s(B64URL, 32)}/view",
        lambda: f"OpenAI completion id chatcmpl-{d.s(ALNUM, 29)}",
        lambda: f"Anthropic message msg_01{d.s(ALNUM, 22)}",
        lambda: f"assistant asst_{d.s(ALNUM, 24)} on thread thread_{d.s(ALNUM, 24)}",
        lambda: f"GitHub node id MDQ6VXNlcj{d.s(ALNUM, 6)}=",
        lambda: f"Sentry event {d.s(HEX, 32)}",
        lambda: f"x-request-id: {d.uuid()}",
        lambda: f"Shopify gid://shopify/Order/{d.digits(13)}",
        lambda: (
            f"Firebase project {d.s(LOWER, 6)}-{d.digits(5)}, app id 1:{d.digits(12)}:web:{d.s(HEX, 22)}"
        ),
        lambda: f'S3 ETag "{d.s(HEX, 32)}"',
        lambda: f"Google Analytics G-{d.s(UPPER_ALNUM, 10)}",
        lambda: f"PayPal transaction {d.s(UPPER_ALNUM, 17)}",
        lambda: f"Intercom conversation {d.digits(12)}",
        lambda: f"Zendesk ticket #{d.digits(7)}",
        lambda: f"Okta app client id 0oa{d.s(ALNUM, 17)}",
        lambda: f"Auth0 client ID {d.s(ALNUM, 32)} (public, in the SPA)",
        lambda: f"Azure tenant {d.uuid()}, subscription {d.uuid()}",
        lambda: f"docker image sha256:{d.s(HEX, 64)}",
    )
    return d.r.choice(forms)()


def identifiers_and_digests(d: Draw) -> str:
    forms = (
        lambda: f"Fixed in commit {d.s(HEX, 40)}",
        lambda: f"git checkout {d.s(HEX, 7)} && git cherry-pick {d.s(HEX, 40)}",
        lambda: f"SHA-256 of the installer: {d.s(HEX, 64)}",
        lambda: f"md5sum {d.s(HEX, 32)}  backup.tar.gz",
        lambda: f'integrity: "sha512-{d.s(B64, 86)}=="',
        lambda: f"SSH host key fingerprint SHA256:{d.s(B64, 43)}",
        lambda: f"request id {d.uuid()}",
        lambda: f"trace_id={d.s(HEX, 32)} span_id={d.s(HEX, 16)}",
        lambda: f"IPFS CID Qm{d.s(BASE58, 44)}",
        lambda: f"data:image/png;base64,iVBORw0KGgo{d.s(B64, 60)}",
        lambda: (
            "The payload was "
            + base64.b64encode(
                d.pick("hello world", "meeting notes", '{"ok": true}').encode()
            ).decode()
            + " (base64)"
        ),
        lambda: f"cursor: {b64url(json.dumps({'offset': d.n(0, 999)}).encode())}",
        lambda: f'ETag W/"{d.s(HEX, 16)}"',
        lambda: f"build cache key linux-node-{d.s(HEX, 64)}",
        lambda: f"bcrypt hash $2b$12${d.s(B64.replace('+', '.'), 53)}",
        lambda: f"GPG key ID 0x{d.s(HEX, 16).upper()}",
        lambda: f"tx hash 0x{d.s(HEX, 64)}",
        lambda: f"contract address 0x{d.s(HEX + 'ABCDEF', 40)}",
        lambda: f"BTC address bc1q{d.s('qpzry9x8gf2tvdw0s3jn54khce6mua7l', 38)}",
        lambda: f"Bitcoin address 1{d.s(BASE58, 33)} (donations)",
        lambda: f"xpub6{d.s(BASE58, 106)}",
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + d.s(B64, 43) + " alice@laptop",
        lambda: _pem(d, d.pick("PUBLIC KEY", "CERTIFICATE", "PGP PUBLIC KEY BLOCK")),
        lambda: json.dumps(
            {"kty": "RSA", "n": b64url(d.r.randbytes(256)), "e": "AQAB", "kid": d.s(HEX, 8)}
        ),
        lambda: f"STRIPE_PUBLISHABLE_KEY=pk_live_{d.s(ALNUM, 99)}",
        lambda: f"mapbox public token pk.eyJ1Ijoi{d.s(B64URL, 40)}.{d.s(B64URL, 22)}",
        lambda: f"sentry DSN https://{d.s(HEX, 32)}@o{d.digits(6)}.ingest.sentry.io/{d.digits(7)}",
        lambda: (
            f"Google OAuth client id {d.digits(12)}-{d.s(LOWER_ALNUM, 32)}.apps.googleusercontent.com"
        ),
        lambda: f"Algolia app id {d.s(UPPER_ALNUM, 10)}, search-only key is public",
        lambda: f"session id in the log: sess-{d.digits(6)} (debug only)",
    )
    return d.r.choice(forms)()


def numbers(d: Draw) -> str:
    forms = (
        lambda: (
            f"Meeting moved to {d.n(2024, 2027)}-{d.n(1, 12):02d}-{d.n(1, 28):02d} at {d.n(8, 18)}:{d.pick('00', '30')}"
        ),
        lambda: f"deadline {d.n(1, 28):02d}/{d.n(1, 12):02d}/{d.n(2024, 2027)}",
        lambda: (
            f"logged at 2026-{d.n(1, 12):02d}-{d.n(1, 28):02d}T{d.n(0, 23):02d}:{d.n(0, 59):02d}:{d.n(0, 59):02d}.{d.digits(3)}Z"
        ),
        lambda: (
            f"epoch {d.n(1_600_000_000, 1_800_000_000)} / ms {d.n(1_600_000_000_000, 1_800_000_000_000)}"
        ),
        lambda: f"Budget {d.n(10, 999)},{d.digits(3)}.{d.digits(2)} USD",
        lambda: f"Invoice total: €{d.n(1, 99)},{d.digits(3)}.{d.digits(2)} (VAT 19%)",
        lambda: f"latency p99 {d.n(1, 999)} ms, throughput {d.n(1000, 99999)} req/s",
        lambda: f"population {d.n(10**6, 10**9):,}",
        lambda: f"{d.n(10**12, 10**13)} bytes transferred",
        lambda: f"coordinates 48.{d.digits(6)}, 11.{d.digits(6)}",
        lambda: f"Version {d.n(1, 30)}.{d.n(0, 99)}.{d.n(0, 999)}-build.{d.digits(9)}",
        lambda: (
            f"python {d.n(3, 3)}.{d.n(8, 13)}.{d.n(0, 20)}, node {d.n(16, 22)}.{d.n(0, 20)}.{d.n(0, 9)}"
        ),
        lambda: f"Chrome {d.n(90, 140)}.0.{d.n(4000, 7000)}.{d.n(0, 200)}",
        lambda: (
            f"Allow {d.n(1, 223)}.{d.n(0, 255)}.{d.n(0, 255)}.{d.n(0, 255)}/32 in the security group"
        ),
        lambda: f"IPv6 2001:db8:{d.s(HEX, 4)}::{d.s(HEX, 4)}",
        lambda: f"MAC {':'.join(d.s(HEX, 2) for _ in range(6)).upper()}",
        lambda: f"{d.n(1, 64)} GiB RAM, {d.n(1, 99)}% CPU, {d.n(1, 9)}.{d.digits(1)} TB disk",
        lambda: f"Ports: {d.n(1000, 9000)}, {d.n(1000, 9000)}, {d.n(1000, 9000)}-{d.n(9000, 9999)}",
        lambda: f"CSV row: {d.n(1, 999)},{d.n(1, 99999)},{d.digits(8)},{d.n(1, 9)}.{d.digits(2)}",
        lambda: "pi ≈ 3.14159265358979, e ≈ 2.71828182845904",
        lambda: (
            f"{d.n(1, 28)}.{d.n(1, 12)}.{d.n(2020, 2027)} um {d.n(8, 18)}:{d.pick('00', '15', '30')} Uhr"
        ),
        lambda: f"Build #{d.n(1000, 99999)} took {d.n(1, 9)}m {d.n(1, 59)}s",
        lambda: f"Grafana dashboard {d.n(1000, 99999)}, panel {d.n(1, 40)}",
        lambda: (
            f"{d.n(100, 999)} {d.n(100, 999)} {d.n(1000, 9999)} {d.n(1000, 9999)} are the four counters"
        ),
        lambda: f"scores: {', '.join(str(d.n(0, 100)) for _ in range(8))}",
        lambda: f"timings {' '.join(str(d.n(10, 9999)) for _ in range(6))} ms",
    )
    return d.r.choice(forms)()


def phones(d: Draw) -> str:
    forms = (
        lambda: f"Call the office at +1 ({d.n(200, 999)}) {d.n(200, 999)}-{d.digits(4)}",
        lambda: f"Mobile: +44 7{d.digits(3)} {d.digits(6)}",
        lambda: f"Tel. +49 30 {d.digits(8)}",
        lambda: f"phone {d.n(200, 999)}-{d.n(200, 999)}-{d.digits(4)}",
        lambda: f"+33 6 {d.digits(2)} {d.digits(2)} {d.digits(2)} {d.digits(2)}",
        lambda: f"Support hotline 0800 {d.digits(3)} {d.digits(4)}",
        lambda: f"WhatsApp +91 {d.pick('6', '7', '8', '9')}{d.digits(9)}",
        lambda: f"Tel: 030 {d.digits(8)}",
        lambda: f"call me on 07{d.digits(3)} {d.digits(6)}",
        lambda: f"Fax (0{d.n(20, 99)}) {d.digits(4)} {d.digits(4)}",
        lambda: f"+55 11 9{d.digits(4)}-{d.digits(4)}",
        lambda: f"+86 138 {d.digits(4)} {d.digits(4)}",
        lambda: f"+81 90-{d.digits(4)}-{d.digits(4)}",
        lambda: f"+61 4{d.digits(2)} {d.digits(3)} {d.digits(3)}",
        lambda: f"phone: (0{d.n(1, 9)}) {d.digits(4)}-{d.digits(4)}",
    )
    return d.r.choice(forms)()


def catalogue_and_commerce(d: Draw) -> str:
    isbn = "978" + d.digits(9)
    isbn += str((10 - sum(int(c) * (3 if i % 2 else 1) for i, c in enumerate(isbn)) % 10) % 10)
    ssn_like = f"{d.digits(3)}-{d.digits(2)}-{d.digits(4)}"
    forms = (
        lambda: f"ISBN {isbn[:3]}-{isbn[3]}-{isbn[4:8]}-{isbn[8:12]}-{isbn[12]}",
        lambda: f"Read 'Designing Data-Intensive Applications' (ISBN {isbn})",
        lambda: f"doi:10.{d.n(1000, 9999)}/{d.s(LOWER_ALNUM, 8)}",
        lambda: f"arXiv:{d.n(1000, 2999)}.{d.digits(5)}",
        lambda: f"EAN {d.luhn('40', 13)}",
        lambda: f"PMID {d.digits(8)}",
        lambda: f"Part number {ssn_like} is out of stock",
        lambda: f"order #{d.digits(9)} shipped",
        lambda: f"Invoice {ssn_like} paid on time",
        lambda: f"SKU {ssn_like}, qty {d.n(1, 9)}",
        lambda: f"UPS 1Z{d.s(UPPER_ALNUM, 6)}{d.digits(10)}",
        lambda: f"Order number {d.luhn('4', 16)} confirmed",
        lambda: f"FedEx shipment {d.digits(12)} arrives Thursday",
        lambda: f"ticket {d.pick('JIRA', 'OPS', 'SUP')}-{d.n(1, 99999)}",
        lambda: f"Invoice INV-{d.n(2020, 2030)}-{d.digits(6)} for 1,240.00 EUR",
        lambda: f"PO {d.digits(10)} approved",
        lambda: f"Tracking: 1Z999AA1{d.digits(10)}",
        lambda: (
            f"booking ref {d.s(string.ascii_uppercase + '23456789', 6)}, flight LH{d.n(100, 999)}"
        ),
        lambda: (
            f"IBAN DE{d.digits(2)} {d.digits(4)} {d.digits(4)} {d.digits(4)} {d.digits(4)} {d.digits(2)}"
        ),
        lambda: f"BIC COBADEFFXXX, account {d.digits(10)}",
        lambda: f"routing {d.digits(9)}, account ending {d.digits(4)}",
        lambda: f"Receipt {d.digits(4)}-{d.digits(4)}-{d.digits(4)}",
        lambda: f"VIN 1HGCM8{d.digits(4)}A{d.digits(6)}",
        lambda: f"IMEI {d.luhn('35', 15)}",
        lambda: f"Serial number SN-{d.n(2020, 2026)}-{d.digits(6)}",
        lambda: f"Employee ID {d.digits(8)}",
        lambda: f"Student number {d.n(2019, 2026)}{d.digits(4)}",
        lambda: f"Zoom meeting ID {d.digits(3)} {d.digits(4)} {d.digits(4)}",
        lambda: f"Customer number {d.digits(10)}",
        lambda: f"Case number {d.n(2020, 2026)}-CV-{d.digits(5)}",
        lambda: f"Gift card balance ${d.n(5, 200)}",
        lambda: f"Card ending in {d.digits(4)}",
        lambda: (
            f"Lot {d.n(2020, 2026)}-{d.digits(2)}-B, batch {d.digits(3)}-{d.digits(2)}-{d.digits(4)}"
        ),
        lambda: f"Loyalty card number {d.digits(12)}",
        lambda: f"GTIN {d.luhn('0001', 14)}",
        lambda: f"Policy number {d.s(string.ascii_uppercase, 3)}-{d.digits(9)}",
    )
    return d.r.choice(forms)()


def masked(d: Draw) -> str:
    forms = (
        lambda: f"card ending **** **** **** {d.digits(4)}",
        lambda: f"SSN ***-**-{d.digits(4)}",
        lambda: f"sk_live_••••{d.s(LOWER_ALNUM, 4)}",
        lambda: "password: ******** (hidden)",
        lambda: f"token ghp_…{d.s(ALNUM, 4)}",
        lambda: f"API key: {d.s(ALNUM, 4)}…{d.s(ALNUM, 4)} (truncated)",
        lambda: f"xxxx-xxxx-xxxx-{d.digits(4)}",
        lambda: f"AWS key AKIA************{d.s(UPPER_ALNUM, 4)}",
        lambda: "[REDACTED]",
        lambda: f"Visa •••• {d.digits(4)}",
        lambda: f"IBAN DE** **** **** **** **{d.digits(2)} {d.digits(2)}",
        lambda: "Authorization: Bearer ****",
        lambda: f"postgres://app:****@{d.host()}/app",
        lambda: f"passport no. XXXXX{d.digits(4)}",
    )
    return d.r.choice(forms)()


def code_and_config(d: Draw) -> str:
    forms = (
        "def check(password: str) -> bool:\n    return len(password) >= 12",
        "if token is None:\n    raise AuthError('missing token')",
        "const apiKey = process.env.API_KEY;",
        "let password = prompt('Password?');",
        "auth = HTTPBasicAuth(username, password)",
        "parser.add_argument('--password', help='database password')",
        "cache_key = f'user:{user_id}:profile'",
        "max_tokens: 4096\ntemperature: 0.2",
        "token_type: bearer\nexpires_in: 3600",
        "next_page_token: CAEQAA",
        "PWD=/home/alice/projects/api",
        'type="password" name="password" autocomplete="current-password"',
        "[server]\nhost = 0.0.0.0\nport = 8080\nworkers = 4",
        "database:\n  host: db.internal\n  port: 5432\n  user: app\n  sslmode: require",
        "LOG_LEVEL=info\nPORT=3000\nNODE_ENV=production",
        "session_timeout: 30m\ntoken_ttl: 1h\npassword_min_length: 12",
        "client = Client(os.environ['TWILIO_ACCOUNT_SID'], os.environ['TWILIO_AUTH_TOKEN'])",
        "requests.get(url, auth=(user, get_password()))",
        "server.login(user, password)",
        "define('WP_DEBUG', false);",
        "$config['base_url'] = 'https://example.com/';",
        "conn = psycopg2.connect(dsn)",
        "ssh.connect(host, username=user, key_filename='~/.ssh/id_ed25519')",
        "machine github.com login oauth-basic",
        "SELECT id, email FROM users WHERE password_hash IS NOT NULL;",
        "public_key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIO" + d.s(B64, 42) + " deploy@ci",
        "keyboard shortcut: Ctrl+K",
        "primary_key = 'id'",
        "sort_key: created_at",
        "ALTER TABLE users ADD COLUMN password_changed_at timestamptz;",
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'app.settings')",
        'props.put("timeout", "30");',
        'ds.setUrl("jdbc:postgresql://db/app");',
        "Rails.application.credentials.dig(:aws, :access_key_id)",
        "secretName: tls-cert",
        "kubectl get secret db -o yaml",
        "http -a $USER https://api.example.com",
        "mysql -u root -p",
        "docker login -u deploy --password-stdin < token.txt",
    )
    return d.pick(*forms)


def logs_and_markup(d: Draw) -> str:
    ip = ".".join(str(d.n(1, 254)) for _ in range(4))
    forms = (
        lambda: (
            f'{ip} - - [10/Oct/2026:13:55:{d.n(10, 59)} +0000] "GET /api/v1/items?page={d.n(1, 99)} HTTP/1.1" 200 {d.n(100, 99999)}'
        ),
        lambda: (
            f'{ip} - - [11/Oct/2026:08:01:02 +0000] "POST /login HTTP/2" 302 0 "-" "Mozilla/5.0"'
        ),
        lambda: (
            f"2026-10-10T13:55:36Z INFO request_id={d.s(HEX, 16)} method=GET path=/health status=200 duration_ms={d.n(1, 300)}"
        ),
        lambda: (
            f"WARN token refresh failed for user_id={d.n(1, 99999)} (retrying in {d.n(1, 30)}s)"
        ),
        lambda: f"ERROR auth: invalid password for user {d.user()} from {ip}",
        lambda: (
            f"kernel: [{d.n(1, 99999)}.{d.digits(6)}] usb 1-{d.n(1, 4)}: new high-speed USB device number {d.n(1, 30)}"
        ),
        lambda: "# Release checklist\n\n- [x] bump version\n- [ ] tag `v1.4.0`\n- [ ] announce",
        lambda: "| env | url |\n|---|---|\n| staging | https://staging.example.com |",
        lambda: "**Decision:** keep tokens short-lived; see [ADR-12](docs/adr/0012.md).",
        lambda: "```bash\nmake test && make deploy ENV=staging\n```",
        lambda: "会议改到下周三下午三点，地点在三楼会议室。",
        lambda: "Встреча перенесена на 15 мая, в 14:30.",
        lambda: "Die Übergabe ist am 3. März um 9 Uhr in Zürich.",
        lambda: "مرحبا، الاجتماع يوم الأحد الساعة العاشرة.",
        lambda: "Ünlü şef İstanbul'da yeni restoran açtı.",
        lambda: "東京オフィスの住所は後で確認します。",
        lambda: "https://github.com/example/repo/pull/" + str(d.n(1, 9999)),
        lambda: f"https://example.com/search?q=password+reset&page={d.n(1, 9)}",
        lambda: "https://user@example.com/login redirects to https://example.com:8443/app",
        lambda: f"ssh deploy@{d.host()}",
        lambda: f"Added api-{d.s(LOWER_ALNUM, 5)}.eu-west-1.compute.amazonaws.com to known_hosts",
        lambda: "The AKIA prefix marks AWS access keys; ghp_ tokens are GitHub's.",
        lambda: "sk-learn style estimators, task-runner-v2, skip-ci label",
        lambda: f"pip install 'requests>=2.{d.n(20, 32)},<3'",
        lambda: "docker pull ghcr.io/acme/api:sha-" + d.s(HEX, 7),
        lambda: "GitHub Actions: uses actions/checkout@v4",
    )
    return d.r.choice(forms)()


# --- a second batch: whole notes, other syntaxes, other languages -------------------------------

_BENIGN_LINES = (
    "Standup moved to 9:30.",
    "Ask Priya about the Q3 budget.",
    "Deploy window: Tuesday 14:00-16:00 UTC.",
    "The staging cluster runs on three nodes.",
    "Remember to renew the TLS certificate in March.",
    "Meeting ID 845 1234 5678.",
    "Ticket OPS-4821 is still open.",
    "Tracking number 1Z999AA10123456784.",
)


def _in_a_note(d: Draw, secret: str) -> str:
    lines = d.r.sample(_BENIGN_LINES, d.n(2, 4))
    lines.insert(d.n(0, len(lines)), secret)
    return d.pick("\n", " ", "\n- ").join(lines)


def secrets_in_notes(d: Draw) -> str:
    """A secret of any family, inside a note of several ordinary lines."""
    family = d.r.choice(
        [
            cloud_keys,
            code_hosts,
            assignments,
            prose_passwords,
            cards,
            us_identifiers,
            national_ids,
            headers_and_cookies,
            config_files,
        ]
    )
    return _in_a_note(d, family(d))


def manifests(d: Draw) -> str:
    password = d.password()
    encoded = base64.b64encode(password.encode()).decode()
    forms = (
        lambda: (
            f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  password: {encoded}"
        ),
        lambda: f"stringData:\n  DATABASE_URL: postgres://app:{password}@db:5432/app",
        lambda: (
            f"services:\n  db:\n    image: postgres:16\n    environment:\n      - POSTGRES_PASSWORD={password}"
        ),
        lambda: f'variable "db_password" {{\n  default = "{password}"\n}}',
        lambda: f"[database]\nhost = {d.host()}\nuser = {d.user()}\npassword = {password}",
        lambda: f"env:\n  SLACK_TOKEN: xoxb-{d.digits(12)}-{d.digits(13)}-{d.s(ALNUM, 24)}",
        lambda: f"DB_HOST={d.host()}\nDB_USER={d.user()}\nDB_PASS={password}\nDB_NAME=app",
        lambda: (
            f'<connectionStrings><add name="Main" connectionString="Server={d.host()};User Id={d.user()};Password={password};" /></connectionStrings>'
        ),
        lambda: f"spring:\n  datasource:\n    username: {d.user()}\n    password: {password}",
        lambda: f'{{"mail": {{"user": "{d.user()}@example.com", "pass": "{password}"}}}}',
    )
    return d.r.choice(forms)()


def ids_in_other_languages(d: Draw) -> str:
    forms = (
        lambda: f"Numéro de passeport : {d.digits(2)}{d.s(string.ascii_uppercase, 2)}{d.digits(5)}",
        lambda: f"numero di passaporto YA{d.digits(7)}",
        lambda: f"número de pasaporte PAA{d.digits(6)}",
        lambda: f"paspoortnummer N{d.s(UPPER_ALNUM, 8)}",
        lambda: f"パスポート番号 TK{d.digits(7)}",
        lambda: f"护照号码 E{d.digits(8)}",
        lambda: f"여권번호 M{d.digits(8)}",
        lambda: f"паспорт {d.digits(4)} {d.digits(6)}",
        lambda: f"Personalausweisnummer: T{d.s('CFGHJKLMNPRTVWXYZ0123456789', 8)}",
        lambda: f"número de identificación fiscal {d.digits(8)}{d.pick(*string.ascii_uppercase)}",
        lambda: (
            f"Sozialversicherungsnummer {d.digits(2)} {_ddmmyy(d)} {d.pick(*string.ascii_uppercase)} {d.digits(3)}"
        ),
        lambda: f"codice fiscale del cliente: {_codice_fiscale(d)}",
        lambda: f"Führerscheinnummer B{d.digits(9)}",
        lambda: f"rijbewijsnummer {d.digits(10)}",
    )
    return note(d, d.r.choice(forms)())


def more_benign_ids(d: Draw) -> str:
    forms = (
        lambda: f"Stripe account acct_{d.s(ALNUM, 16)}, invoice in_{d.s(ALNUM, 24)}",
        lambda: f"refund re_{d.s(ALNUM, 24)} issued",
        lambda: f"price_{d.s(ALNUM, 24)} is the monthly plan",
        lambda: f"Twilio recording RE{d.s(HEX, 32)} and messaging service MG{d.s(HEX, 32)}",
        lambda: f"Notion page {d.s(HEX, 32)}",
        lambda: f"Firebase uid {d.s(ALNUM, 28)}",
        lambda: f"dd.trace_id={d.n(10**18, 9 * 10**18)} dd.span_id={d.n(10**18, 9 * 10**18)}",
        lambda: f"https://twitter.com/acme/status/{d.n(10**18, 2 * 10**18)}",
        lambda: f"ns timestamp {d.n(1_600_000_000 * 10**9, 1_800_000_000 * 10**9)}",
        lambda: f"sort code {d.digits(2)}-{d.digits(2)}-{d.digits(2)}, account {d.digits(8)}",
        lambda: (
            f"IBAN FR76 {d.digits(4)} {d.digits(4)} {d.digits(4)} {d.digits(4)} {d.digits(4)} {d.digits(3)}"
        ),
        lambda: f"Employee ID E{d.digits(7)}",
        lambda: f"Member number {d.digits(8)} (gym)",
        lambda: f"lotto numbers {' '.join(str(d.n(1, 49)) for _ in range(6))}",
        lambda: f"GPS {d.n(-89, 89)}.{d.digits(6)}, {d.n(-179, 179)}.{d.digits(6)}",
        lambda: f"Windows build 10.0.{d.n(19041, 22631)}.{d.n(1000, 4000)}",
        lambda: f"iPhone {d.n(11, 16)} Pro, RTX {d.n(30, 50)}90, ThinkPad X1 Gen {d.n(9, 12)}",
        lambda: f"request {d.uuid()} took {d.n(10, 999)} ms",
        lambda: f"Order #{d.digits(4)}-{d.digits(4)}-{d.digits(4)}-{d.digits(4)} shipped",
        lambda: f"Invoice {d.n(2020, 2026)}-{d.digits(6)}, total {d.n(10, 999)}.{d.digits(2)} EUR",
        lambda: f"YouTube {d.s(B64URL, 11)}, playlist PL{d.s(B64URL, 32)}",
        lambda: f"Mongo _id {d.s(HEX, 24)}, etag {d.s(HEX, 32)}",
        lambda: f"Google Drive folder 1{d.s(B64URL, 32)}",
        lambda: f"S3 key uploads/{d.n(2020, 2026)}/{d.uuid()}.png",
    )
    return d.r.choice(forms)()


def more_benign_prose_and_code(d: Draw) -> str:
    forms = (
        "The password reset token expires in 15 minutes.",
        "I keep forgetting my password for the bank app.",
        "Use a strong password like a sentence of four random words.",
        "use ssh-agent to access the bastion without typing the key",
        "Use docker-compose to connect the services locally.",
        "Log in with your company Google account.",
        "Type yes when the installer asks to continue.",
        "password = hashlib.sha256(salt + raw).hexdigest()",
        "if password != confirm:\n    raise ValueError('mismatch')",
        "token = jwt.encode(payload, key, algorithm='HS256')",
        'api_key = get_secret("API_KEY")',
        'SECRET_KEY = os.getenv("SECRET_KEY")',
        'String password = request.getParameter("password");',
        "password_min_length = 12\ntoken_expiry = '1h'\nsecret_name: prod/db",
        "session.auth = (user, token)",
        "client = Client(sid, token)",
        "server.login(username, app_password)",
        "machine learning login page password reset flow",
        "We use 1Password to share the vault with the team.",
        "Bearer tokens are rejected after the key rotation.",
        "The API key lives in the CI secrets, named OPENAI_API_KEY.",
        "Passwords must not be reused; the policy checks the last 5.",
        "The door code changes every month; ask the front desk.",
        "Open it with the spare key under the mat.",
        "Sign in with Apple is enabled for iOS users.",
        "redis-cli -h cache.internal ping",
        "curl -u $CI_USER https://ci.example.com/api/json",
        "mysql -u app -p -h db.internal app",
        "docker login ghcr.io -u acme --password-stdin",
        "psql postgres://app@db.internal/app",
        "git clone https://github.com/acme/app.git",
        "https://<user>:<password>@registry.example.com/v2/",
        "postgres://{{ db_user }}:{{ db_password }}@db:5432/app",
        "export DATABASE_URL=postgres://$PGUSER:$PGPASSWORD@localhost/app",
    )
    return d.pick(*forms)


SENSITIVE: dict[str, Family] = {
    "cloud keys": cloud_keys,
    "code host and registry tokens": code_hosts,
    "AI provider keys": ai_keys,
    "payment provider keys": payment_keys,
    "messaging tokens and webhooks": messaging,
    "DevOps and SaaS tokens": devops_tokens,
    "private keys": private_keys,
    "wallet secrets": wallets,
    "compact tokens": compact_tokens,
    "headers, basic auth and cookies": headers_and_cookies,
    "assignments in code and config": assignments,
    "credentials by position to SDK calls": sdk_positional,
    "URL credentials and query tokens": url_credentials,
    ".pgpass, .netrc and other credential files": config_files,
    "passwords on command lines": command_lines,
    "passwords in prose": prose_passwords,
    "MFA seeds and recovery codes": mfa_secrets,
    "payment cards": cards,
    "US identifiers": us_identifiers,
    "national identifiers": national_ids,
    "immigration numbers": immigration,
    "secrets inside longer notes": secrets_in_notes,
    "manifests, compose files, multi-line config": manifests,
    "identity numbers labelled in other languages": ids_in_other_languages,
}

BENIGN: dict[str, Family] = {
    "plain notes": prose,
    "prose about security": security_talk,
    "placeholders and references": placeholders,
    "provider and cloud object IDs": object_ids,
    "digests, IDs, public keys": identifiers_and_digests,
    "numbers, dates, versions, addresses": numbers,
    "phone numbers": phones,
    "catalogue, commerce and bank references": catalogue_and_commerce,
    "masked values": masked,
    "code and config without secrets": code_and_config,
    "logs, markup, URLs, other scripts": logs_and_markup,
    "more object IDs, references and numbers": more_benign_ids,
    "more prose and code about credentials": more_benign_prose_and_code,
}

PER_FAMILY = 60


def draw(
    seed: int, per_family: int = PER_FAMILY
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """The sensitive and the benign texts of one draw, family by family."""
    d = Draw(seed)
    sensitive = {name: [make(d) for _ in range(per_family)] for name, make in SENSITIVE.items()}
    benign = {name: [make(d) for _ in range(per_family)] for name, make in BENIGN.items()}
    return sensitive, benign


def _rows(
    corpus: dict[str, list[str]], refuses: Callable[[str], bool], misses: int, want: bool
) -> tuple[int, int]:
    refused_total = total = 0
    for name, texts in corpus.items():
        outcomes = [refuses(text) for text in texts]
        refused = sum(outcomes)
        print(f"{name:>44}  {refused:4d}/{len(texts):<4d} {100 * refused / len(texts):6.1f}%")
        wrong = [text for text, outcome in zip(texts, outcomes, strict=True) if outcome != want]
        for text in wrong[:misses]:
            print(f"{'':>46}{text!r:.160}")
        refused_total += refused
        total += len(texts)
    print(f"{'all':>44}  {refused_total:4d}/{total:<4d} {100 * refused_total / total:6.1f}%")
    return refused_total, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1, help="the draw (default 1)")
    parser.add_argument(
        "--per-family",
        type=int,
        default=PER_FAMILY,
        help=f"texts per family (default {PER_FAMILY})",
    )
    parser.add_argument(
        "--misses", type=int, default=0, help="texts per family that went the wrong way to print"
    )
    options = parser.parse_args()
    from mymcp.plugins.mnemosyne.memory.policy import first_violation

    def refuses(text: str) -> bool:
        return first_violation(text) is not None

    sensitive, benign = draw(options.seed, options.per_family)
    print(f"seed {options.seed}: sensitive texts refused (refused is right)")
    _rows(sensitive, refuses, options.misses, want=True)
    print(f"\nseed {options.seed}: benign texts refused (refused is wrong)")
    _rows(benign, refuses, options.misses, want=False)


if __name__ == "__main__":
    main()
