"""Client control arguments: what an MCP client adds to Tool calls for itself.

Some clients give their model a switch of their own on every Tool and forward it in
``tools/call`` unchanged whenever the model sets it. Such an argument tells the client how to
schedule calls; it is not a request to the Tool. The host drops it before the arguments are
normalized and checked, so every Tool, ``list_tools`` included, answers exactly as it would
without it.

:data:`CLIENT_CONTROL_ARGUMENTS` is the one list. Each entry names the argument and the JSON
type that client sends; a value of another type is not that switch and reaches the Tool like
any other argument (a Tool that takes no such argument then reports it as unexpected). A Tool
whose own schema declares a property of the same name keeps it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Final

CLIENT_CONTROL_ARGUMENTS: Final[Mapping[str, Callable[[Any], bool]]] = MappingProxyType(
    {
        # Gemini CLI: true runs the call only after the previous one finished, false lets
        # them run side by side.
        "wait_for_previous": lambda value: isinstance(value, bool),
    }
)


def without_control_arguments(
    arguments: Mapping[str, Any], input_schema: Mapping[str, Any]
) -> Mapping[str, Any]:
    """``arguments`` less the client control arguments that ``input_schema`` does not declare.

    The caller's mapping is never changed; when there is nothing to drop it is returned as is.
    """
    properties = input_schema.get("properties")
    declared = properties if isinstance(properties, Mapping) else {}
    dropped = [
        name
        for name, accepts in CLIENT_CONTROL_ARGUMENTS.items()
        if name in arguments and name not in declared and accepts(arguments[name])
    ]
    if not dropped:
        return arguments
    return {name: value for name, value in arguments.items() if name not in dropped}
