"""What ``mymcp explain`` says about a text: would Mnemosyne's content policy refuse it?

The answer is for the operator's own terminal: ``stored``, or ``refused`` with the reason a
Tool would report and the id of the policy rule that decided, so that a person can see which
kind of text the policy took for a secret. It never repeats any part of the text, and nothing
here logs. The text is judged as ``content``: line endings unified, NFC, outer blanks trimmed.
"""

from __future__ import annotations

import sys

from mymcp.plugins.mnemosyne.memory import policy
from mymcp.plugins.mnemosyne.memory.values import CONTENT_LIMIT, normalize_text

STORED = 0
REFUSED = 1


def explain(text: str) -> tuple[int, list[str]]:
    """The exit code (0 stored, 1 refused) and the lines to print for ``text``."""
    content = normalize_text(text, sys.maxsize)
    if content is None:
        return STORED, ["stored: the text is empty (a memory's content cannot be)"]
    verdict = policy.explain(content)
    lines = (
        ["stored: no rule of the content policy refuses this text"]
        if verdict is None
        else [f"refused: {verdict[0]} (rule {verdict[1]})"]
    )
    if len(content) > CONTENT_LIMIT:
        lines.append(f"note: content holds at most {CONTENT_LIMIT:,} characters; this is longer")
    return (STORED if verdict is None else REFUSED), lines
