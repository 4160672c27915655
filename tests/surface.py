"""Names of the served surface, read from the code so no test types them again.

The operator gate variables in the order the server parses them, and the Tools in the order
``tools/list`` gives them. Each is pinned to its contract value by one test only
(``tests/mnemosyne/test_configuration.py`` and ``tests/host/test_bootstrap.py``). Standard
library and package declarations only: ``scripts/`` import this under a plain ``python3``.
"""

from __future__ import annotations

import mymcp.plugins.mnemosyne.configuration.gates
from mymcp.mcp import list_tools
from mymcp.plugins.mnemosyne.plugin import DECLARED_TOOLS

_SETTINGS = mymcp.plugins.mnemosyne.configuration.gates
GATE_VARIABLES: tuple[str, ...] = tuple(variable for variable, _ in _SETTINGS.GATE_VARIABLES)
# Each gate by its short name (``remember``, ``archive_restore``, ...): its variable.
GATE_OF: dict[str, str] = {
    key.removesuffix("_enabled"): variable for variable, key in _SETTINGS.GATE_VARIABLES
}
# The variable of the candidate limit (pinned in tests/mnemosyne/configuration/test_gates.py).
LIMIT_VARIABLE: str = _SETTINGS.LIMIT_VARIABLE
GATES_ON = dict.fromkeys(GATE_VARIABLES, "true")
GATES_OFF = dict.fromkeys(GATE_VARIABLES, "false")

LIST_TOOLS = list_tools.NAME
# The plugin's Tools in declaration order, which is the order of tools/list after list_tools.
TOOL_ORDER: tuple[str, ...] = tuple(tool.name for tool in DECLARED_TOOLS)
READ_TOOLS: tuple[str, ...] = tuple(tool.name for tool in DECLARED_TOOLS if tool.gate is None)
# What tools/list holds with every gate on, and with every gate off.
ALL_LISTED: tuple[str, ...] = (LIST_TOOLS, *TOOL_ORDER)
READ_LISTED: tuple[str, ...] = (LIST_TOOLS, *READ_TOOLS)


def gates(**enabled: bool) -> dict[str, str]:
    """The named gate variables, ``true`` or ``false``: ``gates(remember=True, forget=False)``."""
    return {GATE_OF[gate]: "true" if on else "false" for gate, on in enabled.items()}
