"""Value rules shared by record parsing and Tool validation.

Every check here is a pure function that accepts any Python object and answers ``None``
(or ``False``) when the value breaks its rule; nothing raises on odd input types. The
normalizing functions return the canonical form a v2 record stores.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime
from typing import Final

__all__ = [
    "CANONICAL_ID_RE",
    "CONTENT_LIMIT",
    "IDENTIFIER_LIMIT",
    "IDENTIFIER_RE",
    "LABEL_LIMIT",
    "LANGUAGE_LIMIT",
    "LANGUAGE_RE",
    "LEGACY_ID_RE",
    "MAX_TAGS",
    "RESULT_LIMIT",
    "TAG_LIMIT",
    "TITLE_LIMIT",
    "UNDETERMINED_LANGUAGE",
    "canonical_tag_key",
    "format_timestamp",
    "is_canonical_id",
    "is_identifier",
    "is_legacy_id",
    "normalize_language",
    "normalize_tag",
    "normalize_tags",
    "normalize_text",
    "parse_event_timestamp",
    "parse_timestamp",
]

# Length limits, counted in code points after normalization.
TITLE_LIMIT: Final = 200
CONTENT_LIMIT: Final = 4000
LABEL_LIMIT: Final = 100
TAG_LIMIT: Final = 50
MAX_TAGS: Final = 10
LANGUAGE_LIMIT: Final = 35
IDENTIFIER_LIMIT: Final = 64
# The most memories one recall answers with.
RESULT_LIMIT: Final = 5

UNDETERMINED_LANGUAGE: Final = "und"

# All patterns are meant for ``fullmatch``: ``$`` would let a trailing newline through.
IDENTIFIER_RE: Final = re.compile(rf"[a-z0-9](?:[a-z0-9_-]{{0,{IDENTIFIER_LIMIT - 2}}}[a-z0-9])?")
CANONICAL_ID_RE: Final = re.compile(r"mem_[0-9a-f]{32}")
LEGACY_ID_RE: Final = re.compile(r"[A-Za-z0-9._-]{1,100}")
LANGUAGE_RE: Final = re.compile(r"[a-z]{2,8}(?:-[a-z0-9]{1,8})*")

# ``\d`` is Unicode-aware on purpose: stored timestamps may use any decimal digits.
_TIMESTAMP_RE: Final = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z")
# The remember Tool only tolerates non-ASCII digits in the year.
_EVENT_TIMESTAMP_RE: Final = re.compile(
    r"(\d{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})Z"
)


def _matches(pattern: re.Pattern[str], value: object) -> bool:
    return isinstance(value, str) and pattern.fullmatch(value) is not None


def is_identifier(value: object) -> bool:
    """True for a namespace or collection ID (taken as is: no trimming, no case folding)."""
    return _matches(IDENTIFIER_RE, value)


def is_canonical_id(value: object) -> bool:
    """True for a v2 memory ID: ``mem_`` and 32 lowercase hex digits."""
    return _matches(CANONICAL_ID_RE, value)


def is_legacy_id(value: object) -> bool:
    """True for a v1 memory ID (case-sensitive; never used to build a path)."""
    return _matches(LEGACY_ID_RE, value)


def _unify(value: str) -> str:
    """Line endings to ``\\n``, then Unicode NFC."""
    if value.isascii() and "\r" not in value:
        return value  # already both: ASCII text is its own NFC form
    return unicodedata.normalize("NFC", value.replace("\r\n", "\n").replace("\r", "\n"))


def normalize_text(value: object, limit: int) -> str | None:
    """Canonical form of a title, content or label, or None when it is not acceptable.

    Outer whitespace is trimmed, inner whitespace kept; the result must be non-empty
    and at most ``limit`` code points.
    """
    if not isinstance(value, str):
        return None
    text = _unify(value).strip()
    if not text or len(text) > limit:
        return None
    return text


def normalize_tag(value: object) -> str | None:
    """Canonical form of one tag: every whitespace run becomes a single space."""
    if not isinstance(value, str):
        return None
    tag = " ".join(_unify(value).split())
    if not tag or len(tag) > TAG_LIMIT:
        return None
    return tag


def normalize_tags(value: object) -> tuple[str, ...] | None:
    """Canonical tag array: at most MAX_TAGS valid tags, no two equal after casefolding.

    Order and case of the tags are kept.
    """
    if not isinstance(value, list | tuple) or len(value) > MAX_TAGS:
        return None
    tags: list[str] = []
    seen: set[str] = set()
    for item in value:
        tag = normalize_tag(item)
        if tag is None or tag.casefold() in seen:
            return None
        seen.add(tag.casefold())
        tags.append(tag)
    return tuple(tags)


def canonical_tag_key(tag: str) -> str:
    """The form under which two tags count as the same: casefolded, whitespace collapsed."""
    return " ".join(tag.casefold().split())


def normalize_language(value: object) -> str | None:
    """Canonical language tag; ``None`` means undetermined (``und``)."""
    if value is None:
        return UNDETERMINED_LANGUAGE
    if not isinstance(value, str):
        return None
    language = value.strip().lower()
    if len(language) > LANGUAGE_LIMIT or LANGUAGE_RE.fullmatch(language) is None:
        return None
    return language


def _parse_instant(pattern: re.Pattern[str], value: object) -> str | None:
    if not isinstance(value, str):
        return None
    match = pattern.fullmatch(value)
    if match is None:
        return None
    # int() reads any Unicode decimal digit, so the output below is always ASCII.
    year, month, day, hour, minute, second = (int(part) for part in match.groups())
    try:
        datetime(year, month, day, hour, minute, second)
    except ValueError:
        return None
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}Z"


def parse_timestamp(value: object) -> str | None:
    """A stored ``YYYY-MM-DDTHH:MM:SSZ`` instant, re-emitted with ASCII digits, or None.

    The instant must exist on the UTC calendar (no 29 February outside leap years, no
    second 60). Any decimal digit is accepted in every digit position.
    """
    if isinstance(value, str) and value in _valid_stamps:
        return value
    parsed = _parse_instant(_TIMESTAMP_RE, value)
    if parsed is not None and parsed == value:
        # Instants are read in bulk with every record; most are already in their form.
        if len(_valid_stamps) >= _STAMPS_KEPT:
            _valid_stamps.clear()
        _valid_stamps.add(parsed)
    return parsed


# Canonical instants seen valid, at most _STAMPS_KEPT of them.
_STAMPS_KEPT: Final = 4096
_valid_stamps: set[str] = set()


def parse_event_timestamp(value: object) -> str | None:
    """Like :func:`parse_timestamp`, with the stricter digit rule of ``memory_remember``.

    Only the year may be written with non-ASCII decimal digits.
    """
    return _parse_instant(_EVENT_TIMESTAMP_RE, value)


def format_timestamp(instant: datetime) -> str:
    """Format an aware datetime as a canonical UTC timestamp, truncated to the second."""
    moment = instant.astimezone(UTC)
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
        f"T{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}Z"
    )
