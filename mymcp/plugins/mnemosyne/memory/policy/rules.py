# ruff: noqa: E501 (one rule, one line)
"""The table of rules, in the contract's order: private keys, credentials, compact tokens,
government identifiers, payment cards. The engine tries them in this order and the first
that refuses a value names its reason.

Each entry is one :class:`~.engine.Rule`. Its samples are texts it must refuse and
look-alikes the whole policy must store; in a sample, ``{a20}`` stands for 20 random
characters of an alphabet: ``a`` letters and digits, ``A`` capitals and digits, ``l`` small
letters and digits, ``h`` hex digits, ``d`` digits, ``u`` Base64url, ``s`` Base64, ``5``
Base58, ``3`` Base32, ``b`` and ``B`` bech32 (the tests draw them, so no sample is a real secret).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mymcp.plugins.mnemosyne.memory.policy import access, identifiers, keys
from mymcp.plugins.mnemosyne.memory.policy.access import matches
from mymcp.plugins.mnemosyne.memory.policy.assignments import KEYWORDS as NAME_KEYWORDS
from mymcp.plugins.mnemosyne.memory.policy.assignments import assignments, is_secret
from mymcp.plugins.mnemosyne.memory.policy.checksums import NATIONAL, stdnum
from mymcp.plugins.mnemosyne.memory.policy.engine import Rule, Table, Text
from mymcp.plugins.mnemosyne.memory.policy.values import (
    is_placeholder,
    looks_random,
    looks_strong,
    prose_password,
)
from mymcp.plugins.mnemosyne.memory.policy.words import IDENTITY, LABEL_INFIXES, LABELS, PHRASES

PRIVATE_KEY = "private_key_shape"
CREDENTIAL = "credential_shape"
COMPACT_TOKEN = "compact_token_shape"
GOVERNMENT_ID = "government_identifier_shape"
PAYMENT_CARD = "payment_card_shape"

_PLACEHOLDER_BODY = re.compile(r"[xX]{4}|0{8}|your|here|placeholder|redact|dummy", re.IGNORECASE)


def _token(
    id: str,
    prefixes: str,
    body: str,
    sample: str,
    boundary: str = "A-Za-z0-9",
    reason: str = CREDENTIAL,
) -> Rule:
    """A token known by its prefixes (space-separated) and the shape of the rest."""
    pattern = re.compile(f"(?<![{boundary}])(?:{'|'.join(map(re.escape, prefixes.split()))}){body}")

    def find(text: Text) -> Iterator[str]:
        for prefix in prefixes.split():
            for at in text.hits.get(prefix, ()):
                if (match := pattern.match(text.token_text(), at)) is not None:
                    yield match.group()[len(prefix) :]

    return Rule(
        id,
        reason,
        find,
        lambda text, rest: not _PLACEHOLDER_BODY.search(rest),
        tuple(prefixes.split()),
        tokens=True,
        refuse=(sample,),
    )


def _fixed(length: str, alphabet: str = "A-Za-z0-9") -> str:
    return f"[{alphabet}]{{{length}}}(?![{alphabet}])"


_U = "A-Za-z0-9_-"


def _search(pattern: str, flags: int = 0) -> Any:
    """A finder: ``pattern`` searched in the long tokens."""
    compiled = re.compile(pattern, flags)
    return lambda text: compiled.finditer(text.token_text())


def _group(name: str | int) -> Any:
    return lambda text, match: not _PLACEHOLDER_BODY.search(match.group(name))


_PEM = re.compile(
    r"-----? ?(?:BEGIN|END) (?:[A-Z0-9]+ ){0,3}(?:PRIVATE|SECRET) KEY(?: BLOCK)? ?-{4,5}",
    re.IGNORECASE,
)
_AWS = re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])")
_SEGMENT = "[A-Za-z0-9_-]"
_NATIONAL_SHAPES = {
    "br-cpf": ("br.cpf", "000.000.000-00", "CPF 529.982.247-25"),
    "kr-rrn": ("kr.rrn", "000000-0000000", "890524-2807302"),
    "se-personnummer": ("se.personnummer", "000000-0000|000000+0000|00000000-0000", "811218-9876"),
    "dk-cpr": ("dk.cpr", "000000-0000", "050863-4226"),
    "is-kennitala": ("is_.kennitala", "000000-0000", "270786-3599"),
    "fi-hetu": ("fi.hetu", "000000-0000|000000-000A|000000A000A|000000A0000", "131052-308T"),
    "cz-rodne-cislo": ("cz.rc", "000000/0000|000000/000", "970712/2755"),
    "lv-personas-kods": ("lv.pvn", "000000-00000", "010675-14618"),
    "ru-snils": ("ru.snils", "000-000-000 00|000-000-000-00", "112-233-445 95"),
    "ch-ahv": ("ch.ssn", "000.0000.0000.00", "756.8758.2698.01"),
    "be-national-number": ("be.nn", "00.00.00-000.00", "55.07.14-807.74"),
    "pk-cnic": ("pk.cnic", "00000-0000000-0", "71481-3611938-9"),
    "ae-emirates-id": ("ae.eid", "000-0000-0000000-0", "784-1990-1234567-6"),
    "cl-rut": ("cl.rut", "00.000.000-0|0.000.000-0|00.000.000-A|0.000.000-A", "12.036.892-3"),
    "ar-cuit": ("ar.cuit", "00-00000000-0", "20-53186237-7"),
    "my-nric": ("my.nric", "000000-00-0000", "860315-14-2571"),
    "th-id": ("th.pin", "0-0000-00000-00-0", "1-3962-29749-67-5"),
    "in-aadhaar": ("in_.aadhaar", "0000 0000 0000|0000-0000-0000", "4991 1866 5246"),
    "jp-my-number": ("jp.in_", "0000 0000 0000", "5262 7350 2884"),
    "fr-nir": ("fr.nir", "0 00 00 00 000 000 00|0 00 00 0A 000 000 00", "1 82 08 75 086 932 29"),
    "au-medicare": ("au.medicare", "0000 00000 0", "2123 45670 1"),
    "no-fodselsnummer": ("no.fodselsnummer", "000000 00000", "150991 04659"),
    "de-steuer-id": ("de.idnr", "00 000 000 000", "85 317 894 267"),
    "za-id": ("za.idnr", "000000 0000 000", "840804 1951 085"),
    "cn-resident-id": ("cn.ric", "00000000000000000A|000000000000000000", "11010519491231002X"),
    "gb-nino": ("gb.nino", "AA000000A|AA 00 00 00 A", "AB123456C"),
    "es-dni": ("es.dni", "00000000A|00000000-A", "12345678Z"),
    "es-nie": ("es.nie", "A0000000A|A-0000000-A", "X1234567L"),
    "sg-nric": ("sg.nric", "A0000000A", "S1234567D"),
    "it-codice-fiscale": ("it.codicefiscale", "AAAAAA00A00A000A", "RSSMRA85T10A562S"),
    "in-pan": ("in_.pan", "AAAAA0000A", "ABCPE2170F"),
    "mx-curp": ("mx.curp", "AAAA000000AAAAAA00|AAAA000000AAAAAAA0", "GODE680922HDFRRNA6"),
    "hk-hkid": ("hk.hkid", "A000000(0)|A000000(A)|AA000000(0)|AA000000(A)", "A123456(3)"),
    "tw-national-id": ("tw.id", "A000000000", "A123456789"),
}
_LOGIN_WORDS = ("login", "log", "credentials", "credential", "creds", "signin", "sign")
_USCIS = ("EAC", "WAC", "LIN", "SRC", "MSC", "NBC", "IOE", "YSC")


def _national(id: str, module: str, shapes: str, sample: str) -> Rule:
    check = NATIONAL.get(module) or stdnum(module)
    finder = identifiers.formatted(tuple(shape.encode() for shape in shapes.split("|")))
    return Rule(id, GOVERNMENT_ID, finder, lambda text, number: check(number), refuse=(sample,))


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
    if text.value[match.start() - 1 : match.start()] == ":":
        return False  # arn:aws:secretsmanager:…:secret:prod/db
    if value[:1] in "\"'" and value[-1:] == value[:1] and len(value) >= 4:
        return not is_placeholder(value[1:-1], quoted=True)
    after = text.value[match.end() : match.end() + 2]
    continues = value.isalpha() and value.islower() and re.match(r"[ \t][a-z]", after) is not None
    return (
        len(value) >= 4
        and not continues
        and not is_placeholder(value, name=match.group("name").lower())
    )


_BASE_NAME = re.compile(
    r"(?<!\w)(?P<name>password|passwd|pwd|secret|api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|client[_-]?secret)\s*[:=]\s*(?P<value>\S{4,})",
    re.IGNORECASE,
)


RULES: tuple[Rule, ...] = (
    # --- private keys ---------------------------------------------------------------------------
    Rule("private-key-armour", PRIVATE_KEY, lambda text: _PEM.finditer(text.value), keywords=("----",),
         refuse=("-----BEGIN OPENSSH PRIVATE KEY-----", "-----begin private key-----", "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----", "-----END EC PRIVATE KEY-----", "-----BEGIN PGP SECRET KEY BLOCK-----"),
         store=("-----BEGIN PUBLIC KEY-----", "-----BEGIN CERTIFICATE-----", "-----BEGIN RSA  PRIVATE KEY-----", "BEGIN RSA PRIVATE KEY without the dashes is just words")),
    Rule("encrypted-pem-header", PRIVATE_KEY, matches(re.compile(r"DEK-Info: [A-Z0-9-]+,[0-9A-Fa-f]{16,}"), "dek-info"), keywords=("dek",),
         refuse=("Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,{H32}",), store=("DEK-Info headers mark an encrypted PEM key",)),
    Rule("private-key-body", PRIVATE_KEY, lambda text: (m for m in keys.BODY_MARKERS if m in text.token_text()),
         refuse=("body: MIIEpAIBAAKCAQEA{s60}", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ{s40}"), store=("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{s43}",)),
    Rule("private-key-base64-pem", PRIVATE_KEY, keys.encoded_pem, lambda text, pem: b"PRIVATE KEY" in pem or b"SECRET KEY" in pem, ("LS0tLS1CRUdJTi",), tokens=True,
         refuse=("client-key-data: LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0tCk1IY0NBUUVF",), store=("certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUQ=",)),
    Rule("putty-key-file", PRIVATE_KEY, lambda text: (at for at in text.at("putty-user-key-file-") if text.value.startswith("PuTTY", at)), keywords=("putty",),
         refuse=("PuTTY-User-Key-File-3: ssh-ed25519\nPrivate-Lines: 1",), store=("PuTTY is an SSH client for Windows",)),
    Rule("jwk-private-key", PRIVATE_KEY, keys.private_jwk, keywords=("kty",),
         refuse=('{"kty": "OKP", "crv": "Ed25519", "x": "{u43}", "d": "{u43}"}',), store=('{"kty": "RSA", "n": "{u60}", "e": "AQAB"}',)),
    Rule("wallet-keystore-file", PRIVATE_KEY, lambda text: [text] if b"kdf" in text.words else [], keywords=("ciphertext",),
         refuse=('{"crypto": {"cipher": "aes-128-ctr", "ciphertext": "{h64}", "kdf": "scrypt"}}',), store=("the ciphertext is stored next to the nonce",)),
    _token("age-secret-key", "AGE-SECRET-KEY-1", "[02-9AC-HJ-NP-Z]{58}", "AGE-SECRET-KEY-1{B58}", reason=PRIVATE_KEY),
    _token("nostr-secret-key", "nsec1", "[02-9ac-hj-np-z]{58}", "nsec1{b58}", reason=PRIVATE_KEY),
    _token("extended-private-key", "xprv tprv yprv zprv uprv vprv", "[1-9A-HJ-NP-Za-km-z]{100,112}", "xprv{5107}", reason=PRIVATE_KEY),
    Rule("wallet-import-format", PRIVATE_KEY, keys.wallet_import_format, lambda text, payload: payload[:1] in (b"\x80", b"\xef") and len(payload) in (33, 34), ("5", "K", "L", "c", "9"), tokens=True,
         refuse=("wallet: KwdMAjGmerYanjeui5SHS7JkmpZvVipYvB2LJGU1ZxJwYvP98617",), store=("a WIF-shaped 5Hueh9SaU7Za2WPn1gmvNmdj96hH9kzoy4jpd3ZfrrpSoXkTAnz",)),
    Rule("raw-private-key", PRIVATE_KEY, keys.raw_keys, keywords=(*NAME_KEYWORDS, "private", "secret", "wallet", "signing"),
         refuse=("PRIVATE_KEY=0x{h64}", "[Interface]\nPrivateKey = AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "my wallet private key is {h64}", "signing key: 0x{h64}"),
         store=("tx hash 0x{h64}", "sha256 {h64}", "private_key: ~/.ssh/id_ed25519", "PrivateKey = ${WG_PRIVATE_KEY}")),
    Rule("keypair-byte-array", PRIVATE_KEY, keys.byte_arrays,
         refuse=("id.json: [174,47,154,16,202,193,206,113,199,190,53,133,169,175,31,56,222,53,138,189,224,216,117,173,10,149,53,45,73,251,237,246,15,185,186,82,177,240,148,69,241,227,167,80,141,89,240,121,121,35,172,247,68,251,226,218,48,63,176,109,168,89,238,135]",),
         store=("weights: [" + ", ".join(["1"] * 64) + "]", "scores: [12, 45, 78, 3]")),
    Rule("seed-phrase", PRIVATE_KEY, keys.seed_phrases, keywords=tuple(keys.SEED_WORDS),
         refuse=("seed: abandon ability able about above absent absorb abstract absurd abuse access accident", "Wallet words\n1. zoo\n2. wrong\n3. apple\n4. music\n5. ocean\n6. river\n7. stone\n8. table\n9. urban\n10. valve\n11. wheat\n12. youth"),
         store=("Never share your seed phrase with anyone.", "seed: abandon ability able about above absent absorb abstract absurd abuse access", "abandon ability able about above absent absorb abstract absurd abuse access accident")),
    # --- credentials: the contract's provider rules ----------------------------------------------
    Rule("aws-access-key-id", CREDENTIAL, lambda text: _AWS.finditer(text.token_text()), lambda text, m: not _PLACEHOLDER_BODY.search(m.group(), 4), ("*AKIA", "*ASIA"), tokens=True,
         refuse=("AKIAABCDEFGHIJKLMNOP", "xAKIAABCDEFGHIJKLMNOP", "ASIA{A16}"), store=("AKIAABCDEFGHIJKLMNOPQ", "akiaabcdefghijklmnop", "AKIAXXXXXXXXXXXXXXXX")),
    _token("github-token", "ghp_ gho_ ghu_ ghs_ ghr_", "[A-Za-z0-9]{20,}(?![A-Za-z0-9_])", "ghp_{a36}", "A-Za-z0-9_"),
    _token("github-fine-grained-token", "github_pat_", "[A-Za-z0-9_]{20,}(?![A-Za-z0-9_])", "github_pat_{a22}_{a59}", "A-Za-z0-9_"),
    _token("slack-token", "xoxb- xoxa- xoxp- xoxr- xoxs-", "[A-Za-z0-9-]{10,}", "xoxb-{d12}-{d13}-{a24}", "A-Za-z0-9-"),
    _token("stripe-secret-key", "sk_live_ rk_live_", "[A-Za-z0-9]{16,}", "sk_live_{a24}", "A-Za-z0-9_"),
    _token("google-api-key", "AIza", "[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])", "AIza{u35}", _U),
    _token("openai-style-key", "sk-", "[A-Za-z0-9_-]{20,}", "sk-{a48}", _U),
    # --- credentials: more providers -------------------------------------------------------------
    _token("aws-other-key-id", "ABIA ACCA", "[A-Z0-9]{16}(?![A-Z0-9])", "ABIA{A16}"),
    _token("aws-session-token", "FwoGZXIvYXdz IQoJb3JpZ2lu", "[A-Za-z0-9/+=]{60,}", "IQoJb3JpZ2lu{s200}"),
    _token("alibaba-access-key", "LTAI", _fixed("12,30"), "LTAI{a20}"),
    _token("tencent-secret-id", "AKID", _fixed("32,40"), "AKID{a32}"),
    _token("google-oauth-secret", "GOCSPX-", _fixed("28,", _U), "GOCSPX-{u28}"),
    _token("google-oauth-token", "ya29.", _fixed("30,", "A-Za-z0-9._-"), "ya29.{u120}"),
    _token("google-refresh-token", "1//0", _fixed("30,", _U), "1//0{u60}"),
    _token("firebase-messaging-key", "AAAA", "[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}", "AAAA{u7}:APA91b{u134}"),
    _token("digitalocean-token", "dop_v1_ doo_v1_ dor_v1_", "[a-f0-9]{64}", "dop_v1_{h64}"),
    _token("heroku-token", "HRKU-", _fixed("30,", _U), "HRKU-{u60}"),
    _token("netlify-token", "nfp_", _fixed("30,"), "nfp_{a36}"),
    _token("fly-token", "fo1_", _fixed("30,", _U), "fo1_{u43}"),
    _token("fly-macaroon", "fm2_", "[A-Za-z0-9+/=_-]{40,}", "fm2_{s80}"),
    _token("doppler-token", "dp.", r"(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,32}\.)?[A-Za-z0-9]{40,}", "dp.st.prd.{a40}"),
    _token("vault-token", "hvs. hvb. hvr.", _fixed("24,", _U), "hvs.{u90}"),
    _token("tailscale-key", "tskey-", "[a-z]+-[A-Za-z0-9]{8,}-[A-Za-z0-9]{16,}", "tskey-auth-{a12}-{a30}"),
    _token("dynatrace-token", "dt0c01.", r"[A-Z0-9]{24}\.[A-Z0-9]{64}", "dt0c01.{A24}.{A64}"),
    _token("databricks-token", "dapi", r"[a-f0-9]{32}(?:-\d)?(?![A-Za-z0-9])", "dapi{h32}"),
    _token("supabase-token", "sbp_", "[a-f0-9]{40}", "sbp_{h40}"),
    _token("supabase-secret-key", "sb_secret_", _fixed("20,", _U), "sb_secret_{u32}"),
    _token("neon-key", "napi_", _fixed("40,"), "napi_{a64}"),
    _token("planetscale-token", "pscale_", "(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{30,}", "pscale_tkn_{a43}"),
    _token("gitlab-token", "glpat- glptt- gldt- glrt- glrtr- glft- glimt- glagent- glsoat- glcbt- glffct- gloas-", _fixed("20,", _U), "glpat-{u20}"),
    _token("gitlab-runner-registration-token", "GR1348941", _fixed("20,", _U), "GR1348941{u20}"),
    _token("npm-token", "npm_", _fixed("36"), "npm_{a36}"),
    _token("pypi-token", "pypi-AgE", _fixed("50,", _U), "pypi-AgEIcHlwaS5vcmc{u80}"),
    _token("rubygems-key", "rubygems_", "[a-f0-9]{48}", "rubygems_{h48}"),
    _token("nuget-key", "oy2", "[a-z0-9]{43}(?![A-Za-z0-9])", "oy2{l43}"),
    _token("cio-token", "cio", "[A-Za-z0-9]{32}(?![A-Za-z0-9])", "cio{a32}"),
    _token("docker-token", "dckr_pat_ dckr_oat_", _fixed("20,", _U), "dckr_pat_{u27}"),
    _token("artifactory-key", "AKCp", _fixed("60,"), "AKCp{a69}"),
    _token("artifactory-reference-token", "cmVmdGtu", _fixed("50,"), "cmVmdGtu{a56}"),
    _token("clojars-token", "CLOJARS_", "[a-z0-9]{60}", "CLOJARS_{l60}"),
    _token("pulumi-token", "pul-", "[a-f0-9]{40}", "pul-{h40}"),
    _token("sonarqube-token", "sqp_ squ_ sqa_", "[a-f0-9]{40}", "sqp_{h40}"),
    _token("circleci-token", "CCIPAT_", "[A-Za-z0-9]{16,}_[a-f0-9]{40}", "CCIPAT_{a22}_{h40}"),
    _token("buildkite-token", "bkua_", "[a-f0-9]{40}", "bkua_{h40}"),
    _token("atlassian-token", "ATATT3 ATCTT3", "[A-Za-z0-9_=-]{100,}", "ATATT3{u180}"),
    _token("bitbucket-app-password", "ATBB", "[A-Za-z0-9_=.-]{28,}", "ATBB{a32}"),
    _token("harness-token", "pat.", r"[A-Za-z0-9_-]{22}\.[a-f0-9]{24}\.[A-Za-z0-9]{20}", "pat.{u22}.{h24}.{a20}"),
    _token("uppercase-api-token", "API-", "[A-Z0-9]{26}(?![A-Za-z0-9])", "API-{A26}"),
    _token("huggingface-token", "hf_", _fixed("30,"), "hf_{a34}"),
    _token("huggingface-org-token", "api_org_", _fixed("30,"), "api_org_{a34}"),
    _token("groq-key", "gsk_", _fixed("40,"), "gsk_{a52}"),
    _token("replicate-token", "r8_", _fixed("30,"), "r8_{a37}"),
    _token("perplexity-key", "pplx-", _fixed("40,"), "pplx-{a48}"),
    _token("xai-key", "xai-", _fixed("50,"), "xai-{a80}"),
    _token("fireworks-key", "fw_", _fixed("20,"), "fw_{a24}"),
    _token("langsmith-key", "lsv2_", "(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}", "lsv2_pt_{h32}_{h10}"),
    _token("pinecone-key", "pcsk_", "[A-Za-z0-9_]{40,}", "pcsk_{a6}_{a64}"),
    _token("hex-secret-key", "sk_", "[a-f0-9]{40,}(?![A-Za-z0-9])", "sk_{h48}"),
    _token("stripe-webhook-secret", "whsec_", _fixed("24,"), "whsec_{a32}"),
    _token("square-token", "sq0atp- sq0csp-", _fixed("22,", _U), "sq0atp-{u22}"),
    _token("square-access-token", "EAAA", _fixed("60,", _U), "EAAA{u60}"),
    _token("facebook-access-token", "EAA", _fixed("90,"), "EAA{a100}"),
    _token("braintree-token", "access_token$production$", r"[0-9a-z]{16}\$[0-9a-f]{32}", "access_token$production${l16}${h32}"),
    _token("razorpay-key", "rzp_live_", _fixed("14,"), "rzp_live_{a14}"),
    _token("shopify-token", "shpat_ shpca_ shppa_ shpss_", "[a-fA-F0-9]{32}", "shpat_{h32}"),
    _token("flutterwave-key", "FLWSECK", "(?:_TEST)?-[a-f0-9]{32}-X", "FLWSECK-{h32}-X"),
    _token("plaid-token", "access-production-", "[a-f0-9-]{36}", "access-production-{h8}-{h4}-{h4}-{h4}-{h12}"),
    _token("shippo-token", "shippo_live_", "[a-f0-9]{40}", "shippo_live_{h40}"),
    _token("easypost-key", "EZAK", "[a-f0-9]{54}", "EZAK{h54}"),
    _token("duffel-token", "duffel_live_", _fixed("40,", _U), "duffel_live_{u43}"),
    _token("slack-refresh-token", "xoxe.xox xoxe-", r"(?:[bp]-)?\d-[A-Za-z0-9]{60,}", "xoxe-1-{a140}"),
    _token("slack-app-token", "xapp-", r"\d-[A-Z0-9]+-\d+-[a-f0-9]{32,}", "xapp-1-A{A10}-{d13}-{h64}"),
    _token("slack-client-token", "xoxc-", r"\d{8,}-\d{8,}-\d{8,}-[a-f0-9]{32,}", "xoxc-{d12}-{d12}-{d13}-{h64}"),
    _token("slack-cookie-token", "xoxd-", "[A-Za-z0-9%]{40,}", "xoxd-{a60}"),
    _token("twilio-api-key", "SK", "[0-9a-fA-F]{32}(?![A-Za-z0-9])", "SK{h32}"),
    _token("sendgrid-key", "SG.", r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}", "SG.{u22}.{u43}"),
    _token("mailgun-key", "key-", "[0-9a-f]{32}(?![A-Za-z0-9])", "key-{h32}"),
    _token("brevo-key", "xkeysib- xsmtpsib-", "[a-f0-9]{64}-[A-Za-z0-9]{16}", "xkeysib-{h64}-{a16}"),
    _token("resend-key", "re_", "[A-Za-z0-9]{8}_[A-Za-z0-9]{24}", "re_{a8}_{a24}"),
    _token("discord-bot-token", "M N O", r"[A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}", "MT{a24}.{u6}.{u38}"),
    _token("telegram-bot-token", "1 2 3 4 5 6 7 8 9", r"\d{7,9}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])", "1{d8}:AA{u33}"),
    _token("twitch-token", "oauth:", "[a-z0-9]{30}(?![A-Za-z0-9])", "oauth:{l30}"),
    _token("sentry-token", "sntrys_ sntryu_", "[A-Za-z0-9+/=_-]{60,}|[a-f0-9]{64}", "sntrys_{s90}"),
    _token("new-relic-key", "NRAK- NRII- NRJS-", "[A-Z0-9]{27}|[A-Za-z0-9_-]{32}(?![A-Za-z0-9_-])|[a-f0-9]{19}", "NRAK-{A27}"),
    _token("grafana-cloud-token", "glc_", "[A-Za-z0-9+/]{32,}", "glc_{s60}"),
    _token("grafana-service-account-token", "glsa_", "[A-Za-z0-9]{32}_[a-f0-9]{8}", "glsa_{a32}_{h8}"),
    _token("postman-key", "PMAK-", "[a-f0-9]{24}-[a-f0-9]{34}", "PMAK-{h24}-{h34}"),
    _token("linear-key", "lin_api_ lin_oauth_", _fixed("40,"), "lin_api_{a40}"),
    _token("notion-token", "secret_ ntn_", _fixed("40,"), "ntn_{a46}"),
    _token("airtable-token", "pat", r"[A-Za-z0-9]{14}\.[a-f0-9]{64}", "pat{a14}.{h64}"),
    _token("asana-token", "1 2", r"/\d{10,}(?:/\d{10,})?:[a-f0-9]{32}", "1/{d16}:{h32}"),
    _token("figma-token", "figd_", _fixed("40,", _U), "figd_{u40}"),
    _token("contentful-token", "CFPAT-", _fixed("43", _U), "CFPAT-{u43}"),
    _token("mapbox-secret-token", "sk.eyJ", r"[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}", "sk.eyJ{u40}.{u22}"),
    _token("numbered-token", "1 2 3", r"[A-Za-z0-9]{26}_[A-Za-z0-9]{21}(?![A-Za-z0-9])", "1{a26}_{a21}"),
    _token("1password-service-token", "ops_eyJ", _fixed("50,", _U), "ops_eyJ{u100}"),
    _token("1password-secret-key", "A3-", "[A-Z0-9]{6}-[A-Z0-9]{6}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}", "A3-{A6}-{A6}-{A5}-{A5}-{A5}-{A5}"),
    _token("dropbox-token", "sl.", _fixed("120,", _U), "sl.{u140}"),
    _token("typeform-token", "tfp_", _fixed("40,", _U), "tfp_{u44}"),
    _token("adafruit-key", "aio_", _fixed("28"), "aio_{a28}"),
    _token("infracost-key", "ico-", _fixed("32"), "ico-{a32}"),
    _token("prefect-key", "pnu_", _fixed("36"), "pnu_{a36}"),
    _token("readme-key", "rdme_", "[a-z0-9]{70}", "rdme_{l70}"),
    _token("yandex-token", "y0_ AQVN", "[A-Za-z0-9_-]{50,}|[A-Za-z0-9_-]{35,38}(?![A-Za-z0-9_-])", "y0_{u60}"),
    _token("tk-us-token", "tk-us-", _fixed("48", _U), "tk-us-{u48}"),
    _token("frameio-token", "fio-u-", "[A-Za-z0-9_=-]{64}", "fio-u-{u64}"),
    _token("hubspot-token", "pat-", "(?:na|eu)1-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}", "pat-na1-{h8}-{h4}-{h4}-{h4}-{h12}"),
    _token("wakatime-key", "waka_", "[a-f0-9-]{36}", "waka_{h8}-{h4}-{h4}-{h4}-{h12}"),
    Rule("azure-client-secret", CREDENTIAL, _search(r"(?<![\w~.-])[\w~.-]{3}\dQ~[\w~.-]{31,34}(?![\w~.-])", re.ASCII), valid=_group(0), keywords=("*Q~",), tokens=True, refuse=("{a3}8Q~{a34}",)),
    Rule("terraform-cloud-token", CREDENTIAL, _search(r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,}"), keywords=("atlasv1",), refuse=("{a14}.atlasv1.{u67}",)),
    Rule("mailchimp-key", CREDENTIAL, _search(r"(?<![A-Za-z0-9])[0-9a-f]{32}-us\d{1,2}(?![A-Za-z0-9])"), keywords=("*-us",), tokens=True, refuse=("{h32}-us14",), store=("{h32}-use",)),
    # --- credentials: webhook URLs ---------------------------------------------------------------
    Rule("slack-webhook", CREDENTIAL, _search(r"hooks\.slack\.com/(?:services|workflows|triggers)/(?:[A-Za-z0-9_-]+/)+(?P<secret>[A-Za-z0-9_-]{16,})"), _group("secret"), ("hooks",),
         refuse=("https://hooks.slack.com/services/T{A9}/B{A9}/{a24}",), store=("https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", "https://api.slack.com/messaging/webhooks")),
    Rule("discord-webhook", CREDENTIAL, _search(r"discord(?:app)?\.com/api/webhooks/\d{15,21}/(?P<secret>[A-Za-z0-9_-]{30,})"), _group("secret"), ("webhooks",), refuse=("https://discord.com/api/webhooks/{d19}/{u68}",)),
    Rule("teams-webhook", CREDENTIAL, _search(r"""(?:\.webhook\.office\.com/webhookb2|outlook\.office(?:365)?\.com/webhook)/(?P<secret>[^\s"'<>]{30,})""", re.IGNORECASE), _group("secret"), ("webhookb2", "webhook"),
         refuse=("https://contoso.webhook.office.com/webhookb2/{h32}@{h32}",)),
    Rule("google-chat-webhook", CREDENTIAL, _search(r"""chat\.googleapis\.com/v1/spaces/[^\s/]+/messages\?[^\s"'<>]*?(?:key|token)=(?P<secret>[\w%.-]{16,})"""), _group("secret"), ("googleapis",),
         refuse=("https://chat.googleapis.com/v1/spaces/AAAA{u7}/messages?key={u39}&token={u43}",)),
    Rule("zapier-webhook", CREDENTIAL, _search(r"hooks\.zapier\.com/hooks/catch/\d+/(?P<secret>[a-z0-9]{5,})"), _group("secret"), ("zapier",), refuse=("https://hooks.zapier.com/hooks/catch/{d7}/{l7}/",)),
    Rule("ifttt-webhook", CREDENTIAL, _search(r"maker\.ifttt\.com/trigger/[^\s/]+/with/key/(?P<secret>[A-Za-z0-9_-]{15,})"), _group("secret"), ("ifttt",), refuse=("https://maker.ifttt.com/trigger/door/with/key/{u22}",)),
    Rule("webhook-path-secret", CREDENTIAL, _search(r"/(?:hooks?/(?P<a>[A-Za-z0-9_-]{20,})|webhooks?/(?:[^\s/?#]+/)*(?P<b>[A-Za-z0-9_-]{24,}))"), lambda text, m: looks_random(m.group("a") or m.group("b"), minimum=20), ("hook", "hooks", "webhook", "webhooks"),
         refuse=("https://chat.mattermost.example.com/hooks/{l26}",), store=("https://example.com/webhooks/github", "our webhook endpoint is /hooks/deploy")),
    # --- credentials: headers, assignments, URLs, command lines ----------------------------------
    Rule("authorization-header", CREDENTIAL, matches(re.compile(r"""authorization["']?\s*[:=]\s*["']?(?:(?P<known>basic|bearer)\s+["']?(?P<credential>[^\s"']+)|(?P<scheme>token|bot|apikey|api-key|key|sso-key|ssws|digest|hmac|negotiate|ntlm|aws4-hmac-sha256|gitlab-ci-token|splunk|geniekey|klaviyo-api-key)\s+(?P<other>[^\s"']+))""", re.IGNORECASE), "authorization"), access.authorization, ("authorization",),
         refuse=("Authorization: Bearer abc", "AUTHORIZATION :  bearer\tx", 'Authorization: Bearer "abc"', '"Authorization": "Token {h40}"', "Authorization: Basic 'dXNlcjpwYXNz'"), store=("Authorization: Bearer $TOKEN", "Authorization: Bearer <token>", "Authorization: Token abc", "Authorization: Bearer")),
    Rule("bearer-token", CREDENTIAL, matches(re.compile(r"bearer\s+(?P<token>[A-Za-z0-9\-._~+/]+=*)", re.IGNORECASE), "bearer"), access.random_value, ("bearer",),
         refuse=("Bearer {u40}",), store=("Bearer abc", "Bearer authentication is enabled")),
    Rule("basic-credentials", CREDENTIAL, matches(re.compile(r"""basic\s+["']?(?P<encoded>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])""", re.IGNORECASE), "basic"), access.basic_credentials, ("basic",),
         refuse=("Basic YWxpY2U6czNjcmV0IQ==",), store=("Basic plan: 9 USD", "Basic authentication uses base64(user:password)")),
    Rule("credential-name", CREDENTIAL, matches(_BASE_NAME, "password", "passwd", "pwd", "secret", "api", "apikey", "access", "refresh", "client"), _base_name, ("password", "passwd", "pwd", "secret", "api", "apikey", "access", "refresh", "client"),
         refuse=("password=hunter2", "Password: abcd", "api-key=abcd", "secret:=abcd", "x-password=abcd", "apikey:zzzzzzzz", "access_token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln"),
         store=("password=abc", "password_hash=abcd", "api key=abcd", "secrets=abcd", "password: ${DB_PASSWORD}", "password: same as before", "Password: required for admin users only")),
    Rule("credential-assignment", CREDENTIAL, assignments, lambda text, assignment: is_secret(assignment), NAME_KEYWORDS,
         refuse=("db_password=hunter22", "mypassword=abcd", "export GITHUB_TOKEN={a40}", '{"clientSecret": "{u32}"}', "<password>Tr0ub4dor&3</password>", "--api-key {a32}", "https://api.example.com/data?auth_token={a32}", "the wifi password is sunflower77", "Das Passwort lautet Geheim#2024", "- name: DB_PASSWORD\n  value: s3cr3t-Value", "ALTER USER app WITH PASSWORD 'Xy7!secret';", "define('DB_PASSWORD', 'Tr0ub4dor&3');", "$db_password = \"Tr0ub4dor&3\";", "ds.setPassword(\"Tr0ub4dor&3\");", "setx API_TOKEN \"{a32}\"", "<property name=\"hibernate.connection.password\">Tr0ub4dor&3</property>"),
         store=("password = os.environ['DB_PASSWORD']", "api_key: <your-api-key>", "password_min_length: 12", "token: 4096", "next_page_token: {a24}", "cache_key: {h32}", "public_key: {s60}", "The password is stored in the vault.", "password policy v2.1", "Message SID: SM{h32}", "define('DB_PASSWORD', getenv('DB_PASSWORD'));")),
    Rule("url-credentials", CREDENTIAL, matches(re.compile(r"://(?P<user>[^/\s:@]*):(?P<password>[^/\s@]+)@"), "://"), access.url_password, ("://",),
         refuse=("https://user:pass@example.com", "postgres://u:p@db", "redis://:p4ssw0rd@cache:6379"), store=("ftp://user@example.com", "https://example.com:8080/path", "https://user:@host", "https://<user>:<token>@github.com/acme/repo.git", "postgres://app:${DB_PASSWORD}@db/app")),
    Rule("command-line-password", CREDENTIAL, access.command_lines, access.password_value, tuple(access.COMMANDS),
         refuse=("curl -u deploy:Tr0ub4dor https://ci.example.com", "sshpass -p 'R3dH@t2024' ssh admin@server", "http -a bob:Summer44# https://api.example.com", "redis-cli -h cache -a Kx8vQ2mZ49", "docker login -u deploy -p correct-Horse346!", "mysql -u root -pS3cure!9 prod"),
         store=("curl -u $USER:$PASS https://ci.example.com", "mysql -u root -p", "http -a user:<password> https://api.example.com")),
    Rule("pgpass-line", CREDENTIAL, access.pgpass_lines, access.password_value,
         refuse=("db.internal:5432:app:alice:S3cure!9", "*:*:*:postgres:Tr0ub4dor&3"), store=("hostname:port:database:username:password", "*:*:*:postgres:<password>", "00:11:22:33:44:55")),
    Rule("netrc-entry", CREDENTIAL, matches(re.compile(r"(?:machine\s+\S+|default)\s+login\s+\S+\s+password\s+(?P<password>\S+)"), "machine", "default"), access.password_value, ("machine",),
         refuse=("machine api.example.com login alice password Summer7?", "machine github.com\n  login ci-bot\n  password {a40}"), store=("machine api.example.com login <user> password <token>",)),
    Rule("credentials-by-position", CREDENTIAL, access.positional, access.positional_secret, access.POSITIONAL_WORDS,
         refuse=('client = Client("AC{h32}", "{h32}")', 'requests.get(url, auth=("bob", "M0nkey$87?"))', "server.login('alice@example.com', 'S3cure!36')", 'HTTPBasicAuth("app", "S3cure!40?")'),
         store=("client = Client(account_sid, auth_token)", "auth=(username, password)", 'Client("https://api.example.com", "v2")', 'connect("localhost", "8080")')),
    Rule("login-pair", CREDENTIAL, matches(re.compile(r"(?:log[ -]?in|credentials?|creds|sign[ -]?in)\b(?:[:=]\s*|(?:(?![.!?]\s)[^\n:=]){1,30}[:=][ \t]+)(?P<user>[^\s/:]{1,64})[ \t]*(?:[/:]|\n)[ \t]*(?P<password>\S{4,64})", re.IGNORECASE), *_LOGIN_WORDS), access.strict_password, _LOGIN_WORDS,
         refuse=("Login for the router: admin / Winter2024!", "credentials for staging: admin / Tr0ub4dor&3x", "auth-user-pass credentials:\nroot\nqwerty!491?"), store=("login: alice (SSO)", "credentials: stored in vault", "credentials come from Vault doi:10.4999/2ce691ab")),
    Rule("password-named-after", CREDENTIAL, access.named_before, lambda text, value: looks_strong(value), ("password", "passphrase", "passcode"),
         refuse=("P@ssw0rd2024 is the admin password",), store=("the admin password is rotated", "This is the password policy")),
    Rule("password-in-prose", CREDENTIAL, matches(re.compile(r"""(?:\buse\s+["']?(?P<a>\S+?)["']?\s+(?:to|for)\s+(?:unlock|log\s*in|login|sign\s*in|access|decrypt|open|connect|get\s+in)|\b(?:unlock|decrypt|open)\s+(?:it\s+|this\s+|that\s+|(?:the|my)\s+\w+\s+)?(?:with|using)\s+["']?(?P<b>\S+)|\b(?:log|sign)\s*(?:in|on)(?:\s+(?:as|to)\s+\S+)?\s+(?:with|using)\s+(?:[^\s:]+:)?["']?(?P<c>\S+)|\b(?:type|enter)\s+["']?(?P<d>\S+?)["']?\s+(?:when|at|as|if|in|to)\b|\bnew\s+(?:one|password|passphrase)\s*(?::|is)\s*["']?(?P<e>\S+))""", re.IGNORECASE), "use", "unlock", "decrypt", "open", "log", "sign", "type", "enter", "new"),
         lambda text, m: prose_password(next(g for g in m.group("a", "b", "c", "d", "e") if g).rstrip(".,;:)\"'")), ("use", "unlock", "decrypt", "log", "sign", "type", "enter", "new"),
         refuse=("use Tr0ub4dor90 to log in to the admin panel", "unlock it with Kx8vQ2mZ896&", "sign in as bob with sunflower22", "Type Winter#364 when it asks for the passphrase.", "log in with jenkins:sunflower51#", "Password reset done, new one: Zq8#mX2v37?"),
         store=("use the password manager to unlock the vault", "Use 1Password to unlock the shared vault", "Log in with your SSO account", "use OAuth2 to sign in", "open it with care", "Type your passphrase when it asks")),
    Rule("foreign-password", CREDENTIAL, access.foreign_passwords, access.foreign_password, access.FOREIGN_WORDS,
         refuse=("Пароль от почты: Kx8vQ2mZ", "数据库密码是Abc12345", "Hasło do routera: Warszawa#2023"), store=("Пароль хранится в менеджере паролей.", "密码必须至少包含十二个字符。")),
    Rule("session-cookie", CREDENTIAL, access.session_cookies, access.cookie_value, ("cookie",),
         refuse=("Cookie: theme=dark; remember_me={u40}",), store=("Set-Cookie: theme=dark; Path=/", "Cookie: lang=en-US; tz=Europe/Berlin")),
    Rule("totp-seed", CREDENTIAL, access.totp_seeds, access.totp_seed, ("totp", "2fa", "mfa", "authenticator", "otp", "factor"),
         refuse=("2FA setup key: JBSW Y3DP EHPK 3PXP", "authenticator key liw6 oqr7 7lgd i7lu 44rx xyl6 zjct eyli", "TOTP seed {316}"), store=("Enable 2FA and keep the recovery codes offline.", "2FA with your phone then scan code")),
    Rule("recovery-codes", CREDENTIAL, access.recovery_codes, access.codes, ("recovery", "backup", "scratch", "emergency", "rescue"),
         refuse=("recovery codes: 3f4a9-8b2c1 7d6e5-4f3a2", "backup codes:\n4f8k-2m9x\n7q3z-8w1c\n9d6h-3v5b", "GitHub recovery codes:\n{h5}-{h5}\n{h5}-{h5}"), store=("recovery codes were regenerated on 2024-03-01", "backup code review scheduled Friday", "recovery key rotation happens quarterly")),
    Rule("bitlocker-recovery-key", CREDENTIAL, lambda text: re.finditer(r"(?<![0-9-])\d{6}(?:-\d{6}){7}(?![0-9-])", text.value) if b"000000-000000" in text.shape else (), access.bitlocker,
         refuse=("BitLocker 013574-062458-099132-038016-086790-000011-000242-003663",), store=("BitLocker 123456-654321-111111-222222-333333-444444-555555-666667",)),
    # --- compact tokens ---------------------------------------------------------------------------
    Rule("jwt", COMPACT_TOKEN, matches(re.compile(rf"(?<![A-Za-z0-9_-])eyJ{_SEGMENT}{{8,}}\.(?:{_SEGMENT}+\.{_SEGMENT}+|eyJ{_SEGMENT}+\.|(?:{_SEGMENT}*\.){{3}}{_SEGMENT}+)(?!{_SEGMENT})"), "eyj", inside=True), keywords=("*eyJ",), tokens=True,
         refuse=("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", "eyJ12345678.a.b", "eyJhbGciOiJIUzI1NiJ9.a.b.c", "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.", "jwt=eyJhbGciOiJub25lIn0.eyJhIjoxfQ.x", "eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..aXY.Y2lwaGVy.dGFn"),
         store=("eyJhbGciOiJIUzI1NiJ9.payload", "eyJ1234567.a.b", "pk.eyJ1IjoiZXhhbXBsZSJ9.{u22}", "1.2.3", "v2.10.1", "2026.07.20", "api.example.com", "mymcp.plugins.mnemosyne.memory")),
    Rule("paseto", COMPACT_TOKEN, _search(rf"(?<![A-Za-z0-9])v[1-4]\.(?:local|public)\.{_SEGMENT}{{40,}}"), keywords=("local", "public"), refuse=("v4.local.{u80}",), store=("v4.local is a PASETO purpose",)),
    Rule("fernet", COMPACT_TOKEN, _search(rf"(?<![A-Za-z0-9])gAAAAA{_SEGMENT}{{80,}}={{0,2}}"), valid=_group(0), keywords=("*gAAAAA",), tokens=True, refuse=("gAAAAA{u100}==",)),
    # --- government identifiers -------------------------------------------------------------------
    Rule("passport-mrz", GOVERNMENT_ID, lambda text: re.finditer(r"(?<![A-Z0-9<])[PIACV][A-Z<][A-Z<]{3}[A-Z0-9<]{25,39}(?![A-Z0-9<])", text.value), lambda text, m: "<<" in m.group(), ("*<<",),
         refuse=("P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",), store=("a << b << c",)),
    Rule("us-ssn", GOVERNMENT_ID, identifiers.ssn_candidates, identifiers.valid_ssn,
         refuse=("123-45-6789", "SSN123-45-6789x", "SSN 219-09-9999", "ITIN 912-70-1234", "\uff11\uff12\uff13-\uff14\uff15-\uff16\uff17\uff18\uff19"),
         store=("000-00-0000", "part 219-09-9999", "000-12-3456", "666-12-3456", "219-00-9999", "0123-45-6789", "123-45-67890", "555-123-4567")),
    *(_national(id, *entry) for id, entry in _NATIONAL_SHAPES.items()),
    Rule("us-i94-number", GOVERNMENT_ID, matches(re.compile(r"i-94\b\D{0,24}?(?<!\d)(?:\d{11}|\d{9}[A-Z]\d)(?![\dA-Za-z])", re.IGNORECASE), "i-94"), keywords=("94",), refuse=("I-94 number 91934617583",), store=("form I-94 is filed online",)),
    Rule("us-uscis-receipt-number", GOVERNMENT_ID, identifiers.formatted((b"AAA0000000000",)), lambda text, number: number[:3] in _USCIS, refuse=("I-797 receipt WAC3068294106",), store=("order ABC1234567890",)),
    Rule("us-medicare-mbi", GOVERNMENT_ID, identifiers.medicare_ids, refuse=("Medicare 1EG4-TE5-MK73",), store=("model 0EG4-TE5-MK73",)),
    Rule("labelled-identity-number", GOVERNMENT_ID, lambda text: identifiers.identity_candidates(text, _IDENTITY_SET), identifiers.labelled_identity, _IDENTITY_KEYWORDS,
         refuse=("ssn: 219099999", "SSN 123 45 6789", "passport no. C01X00T47", "SIN: 046 454 286", "身份证号码 110105194912310021", "PESEL 44051401359", "A-Number: A987654320", "DNI 57.822.628 (Argentina)", "Driver license no. 330875123"),
         store=("License MIT, copyright 2019-2024", "Read the license strategy. 331645 copies were sold.", "SSN fields must be masked in every export.")),
    # --- payment cards ----------------------------------------------------------------------------
    Rule("payment-card", PAYMENT_CARD, identifiers.card_candidates, identifiers.card_number,
         refuse=("4111111111111111", "4111 1111 1111 1111", "4111-1111-1111-1111", "378282246310005", "4222222222222", "4111111111111111 0", "x4111111111111111", "card number: 6154 2321661931417", "pay with 4539 148803436467"),
         store=("0000000000000", "4111111111111112", "4111  1111 1111 1111", "4111--1111-1111-1111", "12345678901234567890", "1234 5678 9012 3456", "ISBN 978-3-16-148410-0", "order 4111111111111111", "1714478400000 ms", "counts 6154 2321661931417")),
)  # fmt: skip

TABLE = Table(RULES)
