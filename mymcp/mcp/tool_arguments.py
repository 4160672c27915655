"""What the host does to a Tool call's arguments before the Tool sees them.

First it drops the client control arguments: what an MCP client adds to Tool calls for
itself. Some clients give their model a switch of their own on every Tool and forward it in
``tools/call`` unchanged whenever the model sets it. Such an argument tells the client how to
schedule calls; it is not a request to the Tool, so every Tool, ``list_tools`` included,
answers exactly as it would without it. :data:`CLIENT_CONTROL_ARGUMENTS` is the one list:
each entry names the argument and the JSON type that client sends; a value of another type
is not that switch and reaches the Tool like any other argument (a Tool that takes no such
argument then reports it as unexpected). A Tool whose own schema declares a property of the
same name keeps it.

Then it undoes one extra JSON-encoding layer: some clients send structured arguments as JSON
text (``"tags": "[\\"x\\"]"``). Guided by the Tool's input schema, a string is decoded once
where the schema does not allow a string and the decoded value is allowed. Everything else
passes through unchanged, and the caller's object is never mutated. An object's members are
read against every ``oneOf``/``anyOf`` branch that fits it: a branch does not fit when it
pins a member the object has (with ``const``, or with an integer range of one value) to some
other value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Final

from mymcp import jsonvalue
from mymcp.jsonvalue import JsonObject


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "null": lambda value: value is None,
    "boolean": lambda value: isinstance(value, bool),
    # float(int) overflows past ~1e308, so integers are integral without conversion.
    "integer": lambda value: value.is_integer() if isinstance(value, float) else _is_number(value),
    "number": _is_number,
    "string": lambda value: isinstance(value, str),
    "array": lambda value: isinstance(value, list),
    "object": lambda value: isinstance(value, dict),
}


CLIENT_CONTROL_ARGUMENTS: Final[Mapping[str, Callable[[Any], bool]]] = MappingProxyType(
    {
        # Gemini CLI: true runs the call only after the previous one finished, false lets
        # them run side by side.
        "wait_for_previous": lambda value: isinstance(value, bool),
    }
)


def tool_arguments(arguments: Mapping[str, Any], input_schema: Any) -> Any:
    """The arguments the Tool with ``input_schema`` gets: a normalized copy, less the client
    control arguments its schema does not declare. The caller's mapping is never changed."""
    properties = input_schema.get("properties") if isinstance(input_schema, dict) else None
    declared = properties if isinstance(properties, Mapping) else {}
    kept = {
        name: value
        for name, value in arguments.items()
        if name not in CLIENT_CONTROL_ARGUMENTS
        or name in declared
        or not CLIENT_CONTROL_ARGUMENTS[name](value)
    }
    return _normalize(kept, input_schema)


def _normalize(value: Any, schema: Any) -> Any:
    if not isinstance(schema, dict):
        return value
    if isinstance(value, str):
        return _decode_if_permitted(value, schema)
    if isinstance(value, dict):
        return {
            name: _normalize_member(name, member, value, schema) for name, member in value.items()
        }
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [_normalize(item, schema["items"]) for item in value]
    return value


def _normalize_member(name: str, member: Any, container: JsonObject, schema: JsonObject) -> Any:
    candidates = _candidates(schema, name, container)
    if not candidates:
        return member
    if len(candidates) == 1:
        return _normalize(member, candidates[0])
    return _normalize(member, {"anyOf": candidates})


def _candidates(schema: JsonObject, name: str, container: JsonObject) -> list[JsonObject]:
    found: list[JsonObject] = []
    properties = schema.get("properties")
    if isinstance(properties, dict) and isinstance(properties.get(name), dict):
        found.append(properties[name])
    for keyword in ("oneOf", "anyOf"):
        branches = schema.get(keyword)
        if isinstance(branches, list):
            for branch in branches:
                if isinstance(branch, dict) and _applicable(branch, container):
                    found.extend(_candidates(branch, name, container))
    return found


def _applicable(branch: JsonObject, container: JsonObject) -> bool:
    """False when a member the value has contradicts the one value the branch pins it to."""
    properties = branch.get("properties")
    if not isinstance(properties, dict):
        return True
    for name, member_schema in properties.items():
        if name not in container:
            continue
        pinned = _pinned_value(member_schema)
        member = container[name]
        if pinned and (_json_type(member) != _json_type(pinned[0]) or member != pinned[0]):
            return False
    return True


def _pinned_value(schema: Any) -> tuple[Any] | tuple[()]:
    """The single value a member schema allows: its ``const``, or a one-value integer range.

    The range form ``{"type": "integer", "minimum": n, "maximum": n}`` is how a portable
    schema spells ``const`` (which several providers refuse), so it discriminates branches
    in the same way.
    """
    if not isinstance(schema, dict):
        return ()
    if "const" in schema:
        return (schema["const"],)
    low, high = schema.get("minimum"), schema.get("maximum")
    if schema.get("type") == "integer" and type(low) is int and low == high:
        return (low,)
    return ()


def _decode_if_permitted(text: str, schema: JsonObject) -> Any:
    if _permits(schema, text):
        return text
    try:
        decoded = jsonvalue.decode(text)
    except jsonvalue.JsonError:
        return text
    return decoded if _permits(schema, decoded) else text


def _permits(schema: Any, value: Any) -> bool:
    if not isinstance(schema, dict):
        return True
    declared = schema.get("type")
    names = [declared] if isinstance(declared, str) else declared
    if isinstance(names, list) and not any(_matches_type(name, value) for name in names):
        return False
    if "const" in schema and _json_type(schema["const"]) != _json_type(value):
        return False
    for keyword in ("oneOf", "anyOf"):
        branches = schema.get(keyword)
        if isinstance(branches, list):
            objects = [branch for branch in branches if isinstance(branch, dict)]
            if not any(_permits(branch, value) for branch in objects):
                return False
    return True


def _matches_type(name: Any, value: Any) -> bool:
    check = _TYPE_CHECKS.get(name) if isinstance(name, str) else None
    return check is not None and check(value)


def _json_type(value: Any) -> str:
    """The JSON type of a decoded value, integers and fractions alike being ``number``."""
    matches = (name for name, check in _TYPE_CHECKS.items() if name != "integer" and check(value))
    return next(matches, "other")
