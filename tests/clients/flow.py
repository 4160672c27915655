"""Call sequences whose arguments depend on earlier results, for any client driver.

A template argument ``"$reference"`` stands for the reference of the memory the sequence
works on (taken from the first result that names one, with ``schema_version`` 2 added when
missing), and ``"$revision"`` for the last ``lifecycle.revision`` a result reported. This
module imports nothing from the repository, so the 1.x SDK script can use it as well.
"""

from __future__ import annotations

import json
from typing import Any

REFERENCE = "$reference"
REVISION = "$revision"


class Flow:
    """Fills in templates from the results seen so far."""

    def __init__(self) -> None:
        self.reference: dict[str, Any] | None = None
        self.revision: int | None = None

    def arguments(self, template: Any) -> Any:
        if template == REFERENCE:
            return self.reference
        if template == REVISION:
            return self.revision
        if isinstance(template, dict):
            return {key: self.arguments(value) for key, value in template.items()}
        if isinstance(template, list):
            return [self.arguments(item) for item in template]
        return template

    def saw(self, structured: Any, text: str) -> None:
        """Take what a Tool result reports: its ``structuredContent``, else its JSON text."""
        payload = structured
        if payload is None:
            try:
                payload = json.loads(text)
            except ValueError:
                return
        if not isinstance(payload, dict):
            return
        reference = payload.get("reference")
        if self.reference is None and isinstance(reference, dict):
            self.reference = {"schema_version": 2, **reference}
        memory = payload.get("memory")
        lifecycle = payload.get("lifecycle") or (memory or {}).get("lifecycle")
        if isinstance(lifecycle, dict) and isinstance(lifecycle.get("revision"), int):
            self.revision = lifecycle["revision"]
