"""What ``mymcp explain`` says about a text: would Mnemosyne's content policy refuse it?

The answer is for the operator's own terminal: ``stored``, or ``refused`` with the reason a
Tool would report and the id of the policy rule that decided, so that a person can see which
kind of text the policy took for a secret. It never repeats any part of the text, and nothing
here logs. The text is judged as ``content``: line endings unified, NFC, outer blanks trimmed.

``mymcp explain --notebook`` asks the same of every stored record (:mod:`.policy_scan`): it
names each record the policy would refuse today by its path below the memory root, the field
and the rule, never the value, and changes nothing.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from mymcp.plugins.mnemosyne import policy_scan
from mymcp.plugins.mnemosyne.configuration.memory_root import (
    memory_root_problem,
    resolve_memory_root,
)
from mymcp.plugins.mnemosyne.memory import policy
from mymcp.plugins.mnemosyne.memory.model.errors import StorageError
from mymcp.plugins.mnemosyne.memory.model.values import CONTENT_LIMIT, normalize_text

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


ADVICE = 'see "Records the policy refuses today" in docs/MANUAL.md for what to do about them'


def explain_notebook(environ: Mapping[str, str] | None = None) -> tuple[int, list[str], str]:
    """The exit code (0 none, 1 some), the lines to print about the stored records the policy
    would refuse today, and what stopped the scan ("" when nothing did; the code is then 1)."""
    root = resolve_memory_root(os.environ if environ is None else environ)
    shown = f"the memory root {os.path.abspath(root)}"
    problem = memory_root_problem(root)
    if problem is not None:
        return REFUSED, [], f"mymcp explain: {shown} {problem}"
    try:
        scanned = policy_scan.scan(root)
    except (OSError, StorageError):
        return REFUSED, [], f"mymcp explain: {shown} could not be read"
    if not scanned.refused:
        text = f"stored: no record of the {scanned.records:,} in {shown} holds what the policy"
        return STORED, [f"{text} refuses today"], ""
    lines = [f"refused today: {refused.line()}" for refused in scanned.refused]
    total = f"{len(scanned.refused):,} of the {scanned.records:,} records in {shown}"
    return REFUSED, [*lines, f"{total}: the policy refuses them today; {ADVICE}"], ""
