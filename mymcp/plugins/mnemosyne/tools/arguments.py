"""The argument names a Tool takes, and the one answer to any other.

Every Tool that refuses an argument it does not take reports it with its contract's status
and code, at the step where its contract checks the names (the first step, except in
``memory_remember``, which checks ``origin`` before), and names the first such argument in
the order the client sent them. ``memory_recall`` and ``list_tools`` ignore arguments they do
not take, as their contract says.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from mymcp.plugins.mnemosyne.memory.model.errors import UnexpectedArgument


def refuse_unexpected(
    arguments: Mapping[str, Any], allowed: Collection[str], *, code: str, field: str
) -> None:
    """Raise :class:`UnexpectedArgument` for the first argument not in ``allowed``.

    ``code`` and ``field`` are what the Tool's contract reports at this step.
    """
    for name in arguments:
        if name not in allowed:
            raise UnexpectedArgument(code, name, contract_field=field)
