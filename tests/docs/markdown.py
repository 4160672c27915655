"""Reading the documentation: which files, their fenced blocks, markers, prose and headings.

Examples are marked with HTML comments (invisible when the Markdown is rendered) on the line
right before a fenced block:

    <!-- call memory_recall -->     the block is the ``arguments`` object of one Tool call
    <!-- result -->                 the block is what that call answers (see ``matches``)
    <!-- record <path> -->          the block is a record file at <path> below the memory root
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS: tuple[Path, ...] = (
    ROOT / "README.md",
    ROOT / "VISION.md",
    *sorted((ROOT / "docs").glob("*.md")),
)
# A result string ending in this character matches any string that starts with the rest.
ELLIPSIS = "\u2026"

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<ticks>`{3,})(?P<lang>[\w-]*)\s*$")
_MARKER = re.compile(r"^\s*<!--\s*(?P<text>.*?)\s*-->\s*$")
_HEADING = re.compile(r"^(#{1,6})\s+(?P<title>.+?)\s*#*\s*$")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


@dataclass(frozen=True)
class Block:
    """One fenced block: its language, dedented text, marker (if any) and first line number."""

    document: Path
    line: int
    lang: str
    text: str
    marker: str | None

    @property
    def where(self) -> str:
        return f"{self.document.relative_to(ROOT)}:{self.line}"


def blocks(document: Path) -> list[Block]:
    """Every fenced block of ``document``, in order."""
    lines = document.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        start = index
        ticks = opening["ticks"]
        index += 1
        body: list[str] = []
        while index < len(lines) and lines[index].strip() != ticks:
            body.append(lines[index])
            index += 1
        found.append(
            Block(
                document=document,
                line=start + 1,
                lang=opening["lang"],
                text=textwrap.dedent("\n".join(body)) + "\n",
                marker=_marker_before(lines, start),
            )
        )
        index += 1
    return found


def _marker_before(lines: list[str], start: int) -> str | None:
    for previous in reversed(lines[:start]):
        if previous.strip():
            match = _MARKER.match(previous)
            return match["text"] if match else None
    return None


def prose(document: Path) -> str:
    """The text outside fenced blocks (inline code kept)."""
    lines = document.read_text(encoding="utf-8").splitlines()
    kept: list[str] = []
    fence: str | None = None
    for line in lines:
        opening = _FENCE.match(line)
        if fence is None and opening is not None:
            fence = opening["ticks"]
        elif fence is not None and line.strip() == fence:
            fence = None
        elif fence is None:
            kept.append(line)
    return _HTML_COMMENT.sub(" ", "\n".join(kept))


def anchors(document: Path) -> set[str]:
    """The link anchors GitHub generates for the headings of ``document``."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for line in prose(document).splitlines():
        match = _HEADING.match(line)
        if match is None:
            continue
        slug = _slug(match["title"])
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def _slug(title: str) -> str:
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def matches(expected: Any, actual: Any) -> bool:
    """Equality with key order, where a string ending in ``…`` matches by prefix."""
    if isinstance(expected, str) and expected.endswith(ELLIPSIS):
        return isinstance(actual, str) and actual.startswith(expected[: -len(ELLIPSIS)])
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and list(expected) == list(actual)
            and all(matches(expected[key], actual[key]) for key in expected)
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(expected) == len(actual)
            and all(matches(item, other) for item, other in zip(expected, actual, strict=True))
        )
    return type(expected) is type(actual) and bool(expected == actual)
