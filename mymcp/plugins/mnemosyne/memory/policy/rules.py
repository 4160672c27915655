# ruff: noqa: E501 (the table: one rule, one line)
"""The table of rules, in the contract's order: private keys, credentials, compact tokens,
government identifiers, payment cards. The engine tries them in this order and the first
that refuses a value names its reason.

Each entry is one :class:`~.engine.Rule`: its id, reason, finder, validator and keywords.
Its samples (texts it must refuse, look-alikes the policy must store) are data, under the
same id in ``samples.toml`` beside this module, and the tests run them; kept out of the code,
no secret-shaped literal of theirs is a constant of the running package.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mymcp.plugins.mnemosyne.memory.policy import access, identifiers, keys, values
from mymcp.plugins.mnemosyne.memory.policy.access import matches
from mymcp.plugins.mnemosyne.memory.policy.assignments import KEYWORDS as NAME_KEYWORDS
from mymcp.plugins.mnemosyne.memory.policy.assignments import assignments, is_secret
from mymcp.plugins.mnemosyne.memory.policy.checksums import NATIONAL, stdnum
from mymcp.plugins.mnemosyne.memory.policy.engine import Rule, Table, Text
from mymcp.plugins.mnemosyne.memory.policy.words import IDENTITY, LABEL_INFIXES, LABELS, PHRASES

PRIVATE_KEY = "private_key_shape"
CREDENTIAL = "credential_shape"
COMPACT_TOKEN = "compact_token_shape"
GOVERNMENT_ID = "government_identifier_shape"
PAYMENT_CARD = "payment_card_shape"


def _real(body: str) -> bool:
    """A token's body that no placeholder stands for (``XXXX…``, ``0000…``, ``your-…``)."""
    return not values.is_placeholder(body, quoted=True, words=False)


def _token(
    id: str, prefixes: str, body: str, boundary: str = "A-Za-z0-9", reason: str = CREDENTIAL
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
        lambda text, rest: _real(rest),
        tuple(prefixes.split()),
        tokens=True,
    )


def _fixed(length: str, alphabet: str = "A-Za-z0-9") -> str:
    return f"[{alphabet}]{{{length}}}(?![{alphabet}])"


_U = "A-Za-z0-9_-"


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
_NATIONAL_SHAPES = {
    "br-cpf": ("br.cpf", "000.000.000-00"),
    "kr-rrn": ("kr.rrn", "000000-0000000"),
    "se-personnummer": ("se.personnummer", "000000-0000|000000+0000|00000000-0000"),
    "dk-cpr": ("dk.cpr", "000000-0000"),
    "is-kennitala": ("is_.kennitala", "000000-0000"),
    "fi-hetu": ("fi.hetu", "000000-0000|000000-000A|000000A000A|000000A0000"),
    "cz-rodne-cislo": ("cz.rc", "000000/0000"),
    "lv-personas-kods": ("lv.pvn", "000000-00000"),
    "ru-snils": ("ru.snils", "000-000-000 00|000-000-000-00"),
    "ch-ahv": ("ch.ssn", "000.0000.0000.00"),
    "be-national-number": ("be.nn", "00.00.00-000.00"),
    "pk-cnic": ("pk.cnic", "00000-0000000-0"),
    "ae-emirates-id": ("ae.eid", "000-0000-0000000-0"),
    "cl-rut": ("cl.rut", "00.000.000-0|0.000.000-0|00.000.000-A|0.000.000-A"),
    "ar-cuit": ("ar.cuit", "00-00000000-0"),
    "th-id": ("th.pin", "0-0000-00000-00-0"),
    "in-aadhaar": ("in_.aadhaar", "0000 0000 0000|0000-0000-0000"),
    "jp-my-number": ("jp.in_", "0000 0000 0000"),
    "fr-nir": ("fr.nir", "0 00 00 00 000 000 00|0 00 00 0A 000 000 00"),
    "au-medicare": ("au.medicare", "0000 00000 0"),
    "no-fodselsnummer": ("no.fodselsnummer", "000000 00000"),
    "de-steuer-id": ("de.idnr", "00 000 000 000"),
    "za-id": ("za.idnr", "000000 0000 000"),
    "cn-resident-id": ("cn.ric", "00000000000000000A|000000000000000000"),
    "gb-nino": ("gb.nino", "AA000000A|AA 00 00 00 A"),
    "es-dni": ("es.dni", "00000000A|00000000-A"),
    "es-nie": ("es.nie", "A0000000A|A-0000000-A"),
    "sg-nric": ("sg.nric", "A0000000A"),
    "it-codice-fiscale": ("it.codicefiscale", "AAAAAA00A00A000A"),
    "in-pan": ("in_.pan", "AAAAA0000A"),
    "mx-curp": ("mx.curp", "AAAA000000AAAAAA00|AAAA000000AAAAAAA0"),
    "hk-hkid": ("hk.hkid", "A000000(0)|A000000(A)|AA000000(0)|AA000000(A)"),
    "tw-national-id": ("tw.id", "A000000000"),
}
_USCIS = ("EAC", "WAC", "LIN", "SRC", "MSC", "NBC", "IOE", "YSC")


def _national(id: str, module: str, shapes: str) -> Rule:
    check = NATIONAL.get(module) or stdnum(module)
    finder = identifiers.formatted(tuple(shape.encode() for shape in shapes.split("|")))
    return Rule(id, GOVERNMENT_ID, finder, lambda text, number: check(number))


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
    _token("age-secret-key", "AGE-SECRET-KEY-1", "[02-9AC-HJ-NP-Z]{58}", reason=PRIVATE_KEY),
    _token("nostr-secret-key", "nsec1", "[02-9ac-hj-np-z]{58}", reason=PRIVATE_KEY),
    _token("extended-private-key", "xprv tprv yprv zprv uprv vprv", "[1-9A-HJ-NP-Za-km-z]{100,112}", reason=PRIVATE_KEY),
    Rule("wallet-import-format", PRIVATE_KEY, keys.wallet_import_format, lambda text, payload: payload[:1] in (b"\x80", b"\xef") and len(payload) in (33, 34), ("5", "K", "L", "c", "9"), tokens=True),
    Rule("raw-private-key", PRIVATE_KEY, keys.raw_keys, keywords=(*NAME_KEYWORDS, *keys.KEY_QUALIFIERS)),
    Rule("keypair-byte-array", PRIVATE_KEY, keys.byte_arrays),
    Rule("seed-phrase", PRIVATE_KEY, keys.seed_phrases, keywords=tuple(keys.SEED_WORDS)),
    # --- credentials: the contract's provider rules ----------------------------------------------
    Rule("aws-access-key-id", CREDENTIAL, lambda text: _AWS.finditer(text.token_text()), lambda text, m: _real(m.group()[4:]), ("*AKIA", "*ASIA"), tokens=True),
    _token("github-token", "ghp_ gho_ ghu_ ghs_ ghr_", "[A-Za-z0-9]{20,}(?![A-Za-z0-9_])", "A-Za-z0-9_"),
    _token("github-fine-grained-token", "github_pat_", "[A-Za-z0-9_]{20,}(?![A-Za-z0-9_])", "A-Za-z0-9_"),
    _token("slack-token", "xoxb- xoxa- xoxp- xoxr- xoxs-", "[A-Za-z0-9-]{10,}", "A-Za-z0-9-"),
    _token("stripe-secret-key", "sk_live_ rk_live_", "[A-Za-z0-9]{16,}", "A-Za-z0-9_"),
    _token("google-api-key", "AIza", "[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])", _U),
    _token("openai-style-key", "sk-", "[A-Za-z0-9_-]{20,}", _U),
    # --- credentials: more providers -------------------------------------------------------------
    _token("aws-other-key-id", "ABIA ACCA", "[A-Z0-9]{16}(?![A-Z0-9])"),
    _token("aws-session-token", "FwoGZXIvYXdz IQoJb3JpZ2lu", "[A-Za-z0-9/+=]{60,}"),
    _token("alibaba-access-key", "LTAI", _fixed("12,30")),
    _token("tencent-secret-id", "AKID", _fixed("32,40")),
    _token("google-oauth-secret", "GOCSPX-", _fixed("28,", _U)),
    _token("google-oauth-token", "ya29.", _fixed("30,", "A-Za-z0-9._-")),
    _token("google-refresh-token", "1//0", _fixed("30,", _U)),
    _token("firebase-messaging-key", "AAAA", "[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}"),
    _token("digitalocean-token", "dop_v1_ doo_v1_ dor_v1_", "[a-f0-9]{64}"),
    _token("heroku-token", "HRKU-", _fixed("30,", _U)),
    _token("netlify-token", "nfp_", _fixed("30,")),
    _token("fly-token", "fo1_", _fixed("30,", _U)),
    _token("fly-macaroon", "fm2_", "[A-Za-z0-9+/=_-]{40,}"),
    _token("doppler-token", "dp.", r"(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,32}\.)?[A-Za-z0-9]{40,}"),
    _token("vault-token", "hvs. hvb. hvr.", _fixed("24,", _U)),
    _token("tailscale-key", "tskey-", "[a-z]+-[A-Za-z0-9]{8,}-[A-Za-z0-9]{16,}"),
    _token("dynatrace-token", "dt0c01.", r"[A-Z0-9]{24}\.[A-Z0-9]{64}"),
    _token("databricks-token", "dapi", r"[a-f0-9]{32}(?:-\d)?(?![A-Za-z0-9])"),
    _token("supabase-token", "sbp_", "[a-f0-9]{40}"),
    _token("supabase-secret-key", "sb_secret_", _fixed("20,", _U)),
    _token("neon-key", "napi_", _fixed("40,")),
    _token("planetscale-token", "pscale_", "(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{30,}"),
    _token("gitlab-token", "glpat- glptt- gldt- glrt- glrtr- glft- glimt- glagent- glsoat- glcbt- glffct- gloas-", _fixed("20,", _U)),
    _token("gitlab-runner-registration-token", "GR1348941", _fixed("20,", _U)),
    _token("npm-token", "npm_", _fixed("36")),
    _token("pypi-token", "pypi-AgE", _fixed("50,", _U)),
    _token("rubygems-key", "rubygems_", "[a-f0-9]{48}"),
    _token("nuget-key", "oy2", "[a-z0-9]{43}(?![A-Za-z0-9])"),
    _token("cio-token", "cio", "[A-Za-z0-9]{32}(?![A-Za-z0-9])"),
    _token("docker-token", "dckr_pat_ dckr_oat_", _fixed("20,", _U)),
    _token("artifactory-key", "AKCp", _fixed("60,")),
    _token("artifactory-reference-token", "cmVmdGtu", _fixed("50,")),
    _token("clojars-token", "CLOJARS_", "[a-z0-9]{60}"),
    _token("pulumi-token", "pul-", "[a-f0-9]{40}"),
    _token("sonarqube-token", "sqp_ squ_ sqa_", "[a-f0-9]{40}"),
    _token("circleci-token", "CCIPAT_", "[A-Za-z0-9]{16,}_[a-f0-9]{40}"),
    _token("buildkite-token", "bkua_", "[a-f0-9]{40}"),
    _token("atlassian-token", "ATATT3 ATCTT3", "[A-Za-z0-9_=-]{100,}"),
    _token("bitbucket-app-password", "ATBB", "[A-Za-z0-9_=.-]{28,}"),
    _token("harness-token", "pat.", r"[A-Za-z0-9_-]{22}\.[a-f0-9]{24}\.[A-Za-z0-9]{20}"),
    _token("uppercase-api-token", "API-", "[A-Z0-9]{26}(?![A-Za-z0-9])"),
    _token("huggingface-token", "hf_", _fixed("30,")),
    _token("huggingface-org-token", "api_org_", _fixed("30,")),
    _token("groq-key", "gsk_", _fixed("40,")),
    _token("replicate-token", "r8_", _fixed("30,")),
    _token("perplexity-key", "pplx-", _fixed("40,")),
    _token("xai-key", "xai-", _fixed("50,")),
    _token("fireworks-key", "fw_", _fixed("20,")),
    _token("langsmith-key", "lsv2_", "(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"),
    _token("pinecone-key", "pcsk_", "[A-Za-z0-9_]{40,}"),
    _token("hex-secret-key", "sk_", "[a-f0-9]{40,}(?![A-Za-z0-9])"),
    _token("stripe-webhook-secret", "whsec_", _fixed("24,")),
    _token("square-token", "sq0atp- sq0csp-", _fixed("22,", _U)),
    _token("square-access-token", "EAAA", _fixed("60,", _U)),
    _token("facebook-access-token", "EAA", _fixed("90,")),
    _token("braintree-token", "access_token$production$", r"[0-9a-z]{16}\$[0-9a-f]{32}"),
    _token("razorpay-key", "rzp_live_", _fixed("14,")),
    _token("shopify-token", "shpat_ shpca_ shppa_ shpss_", "[a-fA-F0-9]{32}"),
    _token("flutterwave-key", "FLWSECK", "(?:_TEST)?-[a-f0-9]{32}-X"),
    _token("plaid-token", "access-production-", "[a-f0-9-]{36}"),
    _token("shippo-token", "shippo_live_", "[a-f0-9]{40}"),
    _token("easypost-key", "EZAK", "[a-f0-9]{54}"),
    _token("duffel-token", "duffel_live_", _fixed("40,", _U)),
    _token("slack-refresh-token", "xoxe.xox xoxe-", r"(?:[bp]-)?\d-[A-Za-z0-9]{60,}"),
    _token("slack-app-token", "xapp-", r"\d-[A-Z0-9]+-\d+-[a-f0-9]{32,}"),
    _token("slack-client-token", "xoxc-", r"\d{8,}-\d{8,}-\d{8,}-[a-f0-9]{32,}"),
    _token("slack-cookie-token", "xoxd-", "[A-Za-z0-9%]{40,}"),
    _token("twilio-api-key", "SK", "[0-9a-fA-F]{32}(?![A-Za-z0-9])"),
    _token("sendgrid-key", "SG.", r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
    _token("mailgun-key", "key-", "[0-9a-f]{32}(?![A-Za-z0-9])"),
    _token("brevo-key", "xkeysib- xsmtpsib-", "[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    _token("resend-key", "re_", "[A-Za-z0-9]{8}_[A-Za-z0-9]{24}"),
    _token("discord-bot-token", "M N O", r"[A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}"),
    _token("telegram-bot-token", "1 2 3 4 5 6 7 8 9", r"\d{7,9}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])"),
    _token("twitch-token", "oauth:", "[a-z0-9]{30}(?![A-Za-z0-9])"),
    _token("sentry-token", "sntrys_ sntryu_", "[A-Za-z0-9+/=_-]{60,}|[a-f0-9]{64}"),
    _token("new-relic-key", "NRAK- NRII- NRJS-", "[A-Z0-9]{27}|[A-Za-z0-9_-]{32}(?![A-Za-z0-9_-])|[a-f0-9]{19}"),
    _token("grafana-cloud-token", "glc_", "[A-Za-z0-9+/]{32,}"),
    _token("grafana-service-account-token", "glsa_", "[A-Za-z0-9]{32}_[a-f0-9]{8}"),
    _token("postman-key", "PMAK-", "[a-f0-9]{24}-[a-f0-9]{34}"),
    _token("linear-key", "lin_api_ lin_oauth_", _fixed("40,")),
    _token("notion-token", "secret_ ntn_", _fixed("40,")),
    _token("airtable-token", "pat", r"[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
    _token("asana-token", "1 2", r"/\d{10,}(?:/\d{10,})?:[a-f0-9]{32}"),
    _token("figma-token", "figd_", _fixed("40,", _U)),
    _token("contentful-token", "CFPAT-", _fixed("43", _U)),
    _token("mapbox-secret-token", "sk.eyJ", r"[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}"),
    _token("numbered-token", "1 2 3", r"[A-Za-z0-9]{26}_[A-Za-z0-9]{21}(?![A-Za-z0-9])"),
    _token("1password-service-token", "ops_eyJ", _fixed("50,", _U)),
    _token("1password-secret-key", "A3-", "[A-Z0-9]{6}-[A-Z0-9]{6}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}"),
    _token("dropbox-token", "sl.", _fixed("120,", _U)),
    _token("typeform-token", "tfp_", _fixed("40,", _U)),
    _token("adafruit-key", "aio_", _fixed("28")),
    _token("infracost-key", "ico-", _fixed("32")),
    _token("prefect-key", "pnu_", _fixed("36")),
    _token("readme-key", "rdme_", "[a-z0-9]{70}"),
    _token("yandex-token", "y0_ AQVN", "[A-Za-z0-9_-]{50,}|[A-Za-z0-9_-]{35,38}(?![A-Za-z0-9_-])"),
    _token("tk-us-token", "tk-us-", _fixed("48", _U)),
    _token("frameio-token", "fio-u-", "[A-Za-z0-9_=-]{64}"),
    _token("hubspot-token", "pat-", "(?:na|eu)1-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}"),
    _token("wakatime-key", "waka_", "[a-f0-9-]{36}"),
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
    Rule("password-named-after", CREDENTIAL, access.named_before, lambda text, value: values.looks_strong(value), access.PASSWORD_NOUNS),
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
    *(_national(id, *entry) for id, entry in _NATIONAL_SHAPES.items()),
    Rule("us-i94-number", GOVERNMENT_ID, matches(re.compile(r"i-94\b\D{0,24}?(?<!\d)(?:\d{11}|\d{9}[A-Z]\d)(?![\dA-Za-z])", re.IGNORECASE), "i-94"), keywords=("94",)),
    Rule("us-uscis-receipt-number", GOVERNMENT_ID, identifiers.formatted((b"AAA0000000000",), labelled=False), lambda text, number: number[:3] in _USCIS),
    Rule("us-medicare-mbi", GOVERNMENT_ID, identifiers.medicare_ids),
    Rule("labelled-identity-number", GOVERNMENT_ID, lambda text: identifiers.identity_candidates(text, _IDENTITY_SET), identifiers.labelled_identity, _IDENTITY_KEYWORDS),
    # --- payment cards ----------------------------------------------------------------------------
    Rule("payment-card", PAYMENT_CARD, identifiers.card_candidates, identifiers.card_number),
)  # fmt: skip

TABLE = Table(RULES)
