"""Provider credentials recognised by their own shape (reason ``credential_shape``).

Most services give their keys and tokens a fixed prefix (``ghp_``, ``glpat-``, ``npm_``,
``xoxb-``, ``SG.``…) and a fixed alphabet and length; a few have another fixed structure
(Azure client secrets carry ``Q~`` at a fixed place, Discord bot tokens are three dotted
parts). Webhook URLs of chat services embed their secret in the path.

Every token is at least 15 characters long, so the detector only looks at the stretches
of the text around runs of 15 or more token characters (see :meth:`Text.tokens`): ordinary
prose has almost none, and those few are searched with one regular expression in which
the prefixes are grouped by their first character.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterable, Iterator

from mymcp.plugins.mnemosyne.memory.policy.looks import looks_random
from mymcp.plugins.mnemosyne.memory.policy.text import Text

__all__ = ["has_provider_token", "has_webhook_url"]

_ALNUM = "A-Za-z0-9"
_B64URL = "A-Za-z0-9_-"

# (prefix, rest of the token, characters that must not stand just before the prefix).
# The first six groups are the contract's base detectors, exactly, boundaries included.
_BASE: tuple[tuple[str, str, str], ...] = (
    *((prefix, r"[A-Z0-9]{16}(?![A-Z0-9])", "A-Z0-9") for prefix in ("AKIA", "ASIA")),
    *((f"gh{kind}_", r"[A-Za-z0-9]{20,}(?![A-Za-z0-9_])", "A-Za-z0-9_") for kind in "pousr"),
    ("github_pat_", r"[A-Za-z0-9_]{20,}(?![A-Za-z0-9_])", "A-Za-z0-9_"),
    *((f"xox{kind}-", r"[A-Za-z0-9-]{10,}", "A-Za-z0-9-") for kind in "baprs"),
    *((f"{kind}k_live_", r"[A-Za-z0-9]{16,}", "A-Za-z0-9_") for kind in "sr"),
    ("AIza", r"[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])", "A-Za-z0-9_-"),
    ("sk-", r"[A-Za-z0-9_-]{20,}", "A-Za-z0-9_-"),
)


def _fixed(length: int | str, alphabet: str = _ALNUM) -> str:
    return f"[{alphabet}]{{{length}}}(?![{alphabet}])"


# Prefix and rest of the token for everything else; the boundary is "no letter or digit".
_PREFIXED: tuple[tuple[str, str], ...] = (
    # cloud
    *((prefix, r"[A-Z0-9]{16}(?![A-Z0-9])") for prefix in ("ABIA", "ACCA")),
    *((prefix, r"[A-Za-z0-9/+=]{60,}") for prefix in ("FwoGZXIvYXdz", "IQoJb3JpZ2lu")),
    ("LTAI", _fixed("12,30")),
    ("AKID", _fixed("32,40")),
    ("GOCSPX-", _fixed("28,", _B64URL)),
    ("ya29.", _fixed("30,", "A-Za-z0-9._-")),
    ("1//0", _fixed("30,", _B64URL)),
    ("AAAA", r"[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}"),
    *((f"do{kind}_v1_", r"[a-f0-9]{64}") for kind in "por"),
    ("HRKU-", _fixed("30,", _B64URL)),
    ("nfp_", _fixed("30,")),
    ("fo1_", _fixed("30,", _B64URL)),
    ("fm2_", r"[A-Za-z0-9+/=_-]{40,}"),
    ("dp.", r"(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,32}\.)?[A-Za-z0-9]{40,}"),
    *((f"hv{kind}.", _fixed("24,", _B64URL)) for kind in "sbr"),
    ("tskey-", r"[a-z]+-[A-Za-z0-9]{8,}-[A-Za-z0-9]{16,}"),
    ("dt0c01.", r"[A-Z0-9]{24}\.[A-Z0-9]{64}"),
    ("dapi", r"[a-f0-9]{32}(?:-\d)?(?![A-Za-z0-9])"),
    ("sbp_", r"[a-f0-9]{40}"),
    ("sb_secret_", _fixed("20,", _B64URL)),
    ("napi_", _fixed("40,")),
    ("pscale_", r"(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{30,}"),
    # code hosts, registries, CI
    *(
        (f"{prefix}-", _fixed("20,", _B64URL))
        for prefix in (
            "glpat glptt gldt glrt glrtr glft glimt glagent glsoat glcbt glffct gloas".split()
        )
    ),
    ("GR1348941", _fixed("20,", _B64URL)),
    ("npm_", _fixed(36)),
    ("pypi-AgE", _fixed("50,", _B64URL)),
    ("rubygems_", r"[a-f0-9]{48}"),
    ("oy2", r"[a-z0-9]{43}(?![A-Za-z0-9])"),
    ("cio", r"[A-Za-z0-9]{32}(?![A-Za-z0-9])"),
    ("dckr_pat_", _fixed("20,", _B64URL)),
    ("dckr_oat_", _fixed("20,", _B64URL)),
    ("AKCp", _fixed("60,")),
    ("cmVmdGtu", _fixed("50,")),
    ("CLOJARS_", r"[a-z0-9]{60}"),
    ("pul-", r"[a-f0-9]{40}"),
    *((f"sq{kind}_", r"[a-f0-9]{40}") for kind in "pua"),
    ("CCIPAT_", r"[A-Za-z0-9]{16,}_[a-f0-9]{40}"),
    ("bkua_", r"[a-f0-9]{40}"),
    ("ATATT3", r"[A-Za-z0-9_=-]{100,}"),
    ("ATCTT3", r"[A-Za-z0-9_=-]{100,}"),
    ("ATBB", r"[A-Za-z0-9_=.-]{28,}"),
    ("pat.", r"[A-Za-z0-9_-]{22}\.[a-f0-9]{24}\.[A-Za-z0-9]{20}"),
    ("API-", r"[A-Z0-9]{26}(?![A-Za-z0-9])"),
    # AI providers
    ("hf_", _fixed("30,")),
    ("api_org_", _fixed("30,")),
    ("gsk_", _fixed("40,")),
    ("r8_", _fixed("30,")),
    ("pplx-", _fixed("40,")),
    ("xai-", _fixed("50,")),
    ("fw_", _fixed("20,")),
    ("lsv2_", r"(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"),
    ("pcsk_", r"[A-Za-z0-9_]{40,}"),
    ("sk_", r"[a-f0-9]{40,}(?![A-Za-z0-9])"),
    # payments and commerce
    ("whsec_", _fixed("24,")),
    ("sq0atp-", _fixed("22,", _B64URL)),
    ("sq0csp-", _fixed("40,", _B64URL)),
    ("EAAA", _fixed("60,", _B64URL)),
    ("EAA", _fixed("90,")),
    ("access_token$production$", r"[0-9a-z]{16}\$[0-9a-f]{32}"),
    ("rzp_live_", _fixed("14,")),
    *((f"shp{kind}_", r"[a-fA-F0-9]{32}") for kind in ("at", "ca", "pa", "ss")),
    ("FLWSECK", r"(?:_TEST)?-[a-f0-9]{32}-X"),
    ("access-production-", r"[a-f0-9-]{36}"),
    ("shippo_live_", r"[a-f0-9]{40}"),
    ("EZAK", r"[a-f0-9]{54}"),
    ("duffel_live_", _fixed("40,", _B64URL)),
    # messaging and e-mail
    ("xoxe.xox", r"[bp]-\d-[A-Za-z0-9]{60,}"),
    ("xoxe-", r"\d-[A-Za-z0-9]{60,}"),
    ("xapp-", r"\d-[A-Z0-9]+-\d+-[a-f0-9]{32,}"),
    ("xoxc-", r"\d{8,}-\d{8,}-\d{8,}-[a-f0-9]{32,}"),
    ("xoxd-", r"[A-Za-z0-9%]{40,}"),
    ("SK", r"[0-9a-fA-F]{32}(?![A-Za-z0-9])"),
    ("SG.", r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
    ("key-", r"[0-9a-f]{32}(?![A-Za-z0-9])"),
    ("xkeysib-", r"[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    ("xsmtpsib-", r"[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    ("re_", r"[A-Za-z0-9]{8}_[A-Za-z0-9]{24}"),
    *((first, r"[A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}") for first in "MNO"),
    *((first, r"\d{7,9}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])") for first in "123456789"),
    ("oauth:", r"[a-z0-9]{30}(?![A-Za-z0-9])"),
    # DevOps and SaaS
    ("sntrys_", r"[A-Za-z0-9+/=_-]{60,}"),
    ("sntryu_", r"[a-f0-9]{64}"),
    ("NRAK-", r"[A-Z0-9]{27}"),
    ("NRII-", _fixed("32", _B64URL)),
    ("NRJS-", r"[a-f0-9]{19}"),
    ("glc_", r"[A-Za-z0-9+/]{32,}"),
    ("glsa_", r"[A-Za-z0-9]{32}_[a-f0-9]{8}"),
    ("PMAK-", r"[a-f0-9]{24}-[a-f0-9]{34}"),
    ("lin_api_", _fixed("40")),
    ("lin_oauth_", _fixed("40,")),
    ("secret_", _fixed("43")),
    ("ntn_", _fixed("40,")),
    ("pat", r"[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
    *((first, r"/\d{10,}(?:/\d{10,})?:[a-f0-9]{32}") for first in "12"),
    ("figd_", _fixed("40,", _B64URL)),
    ("CFPAT-", _fixed("43", _B64URL)),
    ("sk.eyJ", r"[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}"),
    *((first, r"[A-Za-z0-9]{26}_[A-Za-z0-9]{21}(?![A-Za-z0-9])") for first in "123"),
    ("ops_eyJ", _fixed("50,", _B64URL)),
    ("A3-", r"[A-Z0-9]{6}-[A-Z0-9]{6}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}"),
    ("sl.", _fixed("120,", _B64URL)),
    ("tfp_", _fixed("40,", _B64URL)),
    ("aio_", _fixed("28")),
    ("ico-", _fixed("32")),
    ("pnu_", _fixed("36")),
    ("rdme_", r"[a-z0-9]{70}"),
    ("y0_", _fixed("50,", _B64URL)),
    ("AQVN", _fixed("35,38", _B64URL)),
    ("tk-us-", _fixed("48", _B64URL)),
    ("fio-u-", r"[A-Za-z0-9_=-]{64}"),
    ("pat-", r"(?:na|eu)1-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}"),
    ("waka_", r"[a-f0-9-]{36}"),
)


def _grouped(entries: Iterable[tuple[str, str]]) -> re.Pattern[str]:
    """One pattern for every (prefix, rest), the prefixes grouped by their first character.

    The pattern opens with "no letter or digit before": inside a run of letters and digits
    (most positions of a token) the engine rejects a position with one comparison; at the
    start of a token it tests one branch per first character, each opening with a literal.
    """
    groups: dict[str, list[str]] = defaultdict(list)
    for prefix, rest in entries:
        groups[prefix[0]].append(re.escape(prefix[1:]) + rest)
    branches = (
        re.escape(first) + "(?:" + "|".join(sorted(items, key=len, reverse=True)) + ")"
        for first, items in sorted(groups.items())
    )
    return re.compile("(?<![A-Za-z0-9])(?:" + "|".join(branches) + ")")


# AKIA/ASIA keys may follow a small letter ("xAKIA…" is refused): their own rule.
_AWS = re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])")
_BASE_RE = _grouped((prefix, rest) for prefix, rest, _ in _BASE if prefix not in ("AKIA", "ASIA"))
_BASE_BOUNDARY = {prefix: re.compile(f"[{boundary}]") for prefix, _, boundary in _BASE}
_PREFIXED_RE = _grouped(_PREFIXED)

# Structured secrets without a literal prefix, each behind a cheap literal marker.
_MARKED: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("Q~", re.compile(r"(?<![\w~.-])[\w~.-]{3}\dQ~[\w~.-]{31,34}(?![\w~.-])", re.ASCII)),
    (".atlasv1.", re.compile(r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,}")),
    ("-us", re.compile(r"(?<![A-Za-z0-9])[0-9a-f]{32}-us\d{1,2}(?![A-Za-z0-9])")),
)
_PLACEHOLDER_BODY = re.compile(r"[xX]{4}|0{8}|your|here|placeholder|redact|dummy", re.IGNORECASE)


# Each prefix of _BASE_RE holds one of these, so a text without them has no match.
_BASE_PIECES = ("gh", "github_pat_", "xox", "k_live_", "AIza", "sk-")


def _from_every_start(pattern: re.Pattern[str], chunk: str) -> Iterator[re.Match[str]]:
    """Each match, then the next one from one character past its start: a match the caller
    rejects (a placeholder, a bad boundary) must not hide a token that starts inside it."""
    at = 0
    while (match := pattern.search(chunk, at)) is not None:
        yield match
        at = match.start() + 1


def _base_at(chunk: str) -> bool:
    if ("AKIA" in chunk or "ASIA" in chunk) and any(
        not _PLACEHOLDER_BODY.search(match.group(), 4) for match in _AWS.finditer(chunk)
    ):
        return True
    if not any(piece in chunk for piece in _BASE_PIECES):
        return False
    for match in _from_every_start(_BASE_RE, chunk):
        start = match.start()
        prefix = next(p for p in _BASE_BOUNDARY if chunk.startswith(p, start))
        if start and _BASE_BOUNDARY[prefix].match(chunk[start - 1]):
            continue
        if not _PLACEHOLDER_BODY.search(match.group(), len(prefix)):
            return True
    return False


def _prefixed_at(chunk: str) -> bool:
    return any(
        not _PLACEHOLDER_BODY.search(match.group())
        for match in _from_every_start(_PREFIXED_RE, chunk)
    )


def _marked_at(chunk: str) -> bool:
    return any(marker in chunk and pattern.search(chunk) for marker, pattern in _MARKED)


def has_provider_token(text: Text) -> bool:
    """A key or token of a known provider, recognised by its prefix or structure."""
    chunks = text.chunk_text()
    return bool(chunks) and (_base_at(chunks) or _prefixed_at(chunks) or _marked_at(chunks))


_WEBHOOK_WORDS = frozenset(b"hook hooks webhook webhooks webhookb2 googleapis ifttt".split())
_WEBHOOKS = re.compile(
    r"""
    hooks\.slack\.com/(?:services|workflows|triggers)/(?:[A-Za-z0-9_-]+/)+(?P<a>[A-Za-z0-9_-]{16,})
    | discord(?:app)?\.com/api/webhooks/\d{15,21}/(?P<b>[A-Za-z0-9_-]{30,})
    | \.webhook\.office\.com/webhookb2/(?P<c>[^\s"'<>]{30,})
    | outlook\.office(?:365)?\.com/webhook/(?P<d>[^\s"'<>]{30,})
    | chat\.googleapis\.com/v1/spaces/[^\s/]+/messages\?[^\s"'<>]*?(?:key|token)=(?P<e>[\w%.-]{16,})
    | hooks\.zapier\.com/hooks/catch/\d+/(?P<f>[a-z0-9]{5,})
    | maker\.ifttt\.com/trigger/[^\s/]+/with/key/(?P<g>[A-Za-z0-9_-]{15,})
    | /hooks?/(?P<h>[A-Za-z0-9_-]{20,})
    | /webhooks?/(?:[^\s/?#]+/)*(?P<i>[A-Za-z0-9_-]{24,})
    """,
    re.VERBOSE | re.IGNORECASE,
)


def has_webhook_url(text: Text) -> bool:
    """An incoming-webhook URL whose path carries its secret."""
    if not text.mentions(_WEBHOOK_WORDS):
        return False
    chunks = text.chunks()
    begins = [begin for begin, _ in chunks]
    # Only the chunks where one of the pieces occurs: every webhook pattern holds one.
    named: set[int] = set()
    for piece in _WEBHOOK_PIECES:
        for at in text.positions(piece):
            index = bisect_right(begins, at) - 1
            if index >= 0 and at + len(piece) <= chunks[index][1]:
                named.add(index)
    value = text.value
    return bool(named) and _webhook_in(
        " ".join(value[chunks[index][0] : chunks[index][1]] for index in sorted(named))
    )


_WEBHOOK_PIECES = ("hook", "googleapis", "ifttt")


def _webhook_in(chunk: str) -> bool:
    for match in _from_every_start(_WEBHOOKS, chunk):
        secret = next(group for group in match.groups() if group is not None)
        if _PLACEHOLDER_BODY.search(secret):
            continue
        named = match.lastgroup not in {"h", "i"}
        if named or looks_random(secret, minimum=20):
            return True
    return False
