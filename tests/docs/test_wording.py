"""The documentation describes the product as it is, in its own words."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.docs.markdown import DOCUMENTS, ROOT, prose

DOCS_IDS = [str(document.relative_to(ROOT)) for document in DOCUMENTS]
RUN_LENGTH = 12
# Material outside the repository that the documentation must not copy. It exists next to
# the clone only in the shared workspace (and in CI); elsewhere the check is skipped.
SHARED = ROOT.parent / "shared"
SOURCES = {"seeds": ("seeds", "*.txt"), "contract": ("contract", "*.md")}

_HISTORY = re.compile(
    r"\b(?:phases?|tracks?|tracked|tracking|cutovers?|delivered)\b|\bTRACK_", re.IGNORECASE
)


@pytest.mark.parametrize("document", DOCUMENTS, ids=DOCS_IDS)
def test_no_history_narration(document: Path) -> None:
    found = [
        (number, match.group())
        for number, line in enumerate(document.read_text(encoding="utf-8").splitlines(), 1)
        for match in _HISTORY.finditer(line)
    ]

    assert found == []


def _squashed_words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _foreign_text(name: str) -> str:
    folder, pattern = SOURCES[name]
    files = sorted((SHARED / folder).glob(pattern))
    if not files:
        pytest.skip(f"{SHARED / folder} is not present next to this clone")
    # Joined without separators: the material also holds words glued together by lost spaces.
    return "".join(
        "".join(_squashed_words(path.read_text(encoding="utf-8", errors="replace")))
        for path in files
    )


@pytest.fixture(scope="module", params=sorted(SOURCES))
def foreign(request: pytest.FixtureRequest) -> tuple[str, set[str], str]:
    text = _foreign_text(request.param)
    window = 24
    index = {text[start : start + window] for start in range(len(text) - window + 1)}
    return request.param, index, text


@pytest.mark.parametrize("document", DOCUMENTS, ids=DOCS_IDS)
def test_no_twelve_word_run_is_copied(document: Path, foreign: tuple[str, set[str], str]) -> None:
    name, index, text = foreign
    words = _squashed_words(prose(document))
    copied = []
    for start in range(len(words) - RUN_LENGTH + 1):
        run = "".join(words[start : start + RUN_LENGTH])
        if (run[:24] in index if len(run) >= 24 else True) and run in text:
            copied.append(" ".join(words[start : start + RUN_LENGTH]))

    assert copied == [], f"runs found in {name}: {copied[:5]}"
