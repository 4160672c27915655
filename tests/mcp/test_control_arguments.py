"""Client control arguments: dropped before a Tool sees its arguments, and only those."""

from __future__ import annotations

from typing import Any

import pytest

from mymcp.mcp.tool_arguments import CLIENT_CONTROL_ARGUMENTS, without_control_arguments
from mymcp.mcp.tool_registry import ToolRegistration, ToolRegistry
from tests.synthetic_host import tool_definition

SCHEMA: dict[str, Any] = {"type": "object", "properties": {"n": {"type": "integer"}}}


def test_the_list_holds_gemini_clis_switch() -> None:
    assert list(CLIENT_CONTROL_ARGUMENTS) == ["wait_for_previous"]


@pytest.mark.parametrize("value", [True, False])
def test_wait_for_previous_is_dropped(value: bool) -> None:
    arguments = {"n": 1, "wait_for_previous": value}
    assert without_control_arguments(arguments, SCHEMA) == {"n": 1}
    assert arguments == {"n": 1, "wait_for_previous": value}


@pytest.mark.parametrize("value", ["true", 1, 0, None, [], {}])
def test_a_value_of_another_type_is_kept_for_the_tool_to_judge(value: Any) -> None:
    arguments = {"n": 1, "wait_for_previous": value}
    assert without_control_arguments(arguments, SCHEMA) == arguments


def test_a_tool_that_declares_the_name_keeps_it() -> None:
    schema = {"type": "object", "properties": {"wait_for_previous": {"type": "boolean"}}}
    arguments = {"wait_for_previous": True}
    assert without_control_arguments(arguments, schema) == arguments


def test_arguments_without_one_are_passed_as_they_are() -> None:
    arguments = {"n": 1, "waitForPrevious": True}
    assert without_control_arguments(arguments, SCHEMA) is arguments


def test_call_tool_drops_it_before_normalizing() -> None:
    received: list[dict[str, Any]] = []

    def handler(arguments: dict[str, Any]) -> Any:
        received.append(arguments)
        return {"content": []}

    registry = ToolRegistry([ToolRegistration(tool_definition("echo", SCHEMA), handler)])
    registry.call_tool("echo", {"wait_for_previous": False, "n": "2"})
    assert received == [{"n": 2}]
