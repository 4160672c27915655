"""One declaration per Tool, and the one place where a domain error becomes a Tool result.

A :class:`MemoryTool` holds everything about one Mnemosyne Tool: its public name, title,
description, input schema, effect and consent metadata, the gate that enables it, its
messages and its handler. The plugin adapter, ``tools/list``, ``list_tools``, the
annotations and the manifest parity check all read this one object.

A handler receives the (host-normalized) arguments and a :class:`ToolCall`. It returns the
success payload, or raises a :class:`MnemosyneError`; :meth:`MemoryTool.invoke` turns
either into the MCP result and writes the Tool's one terminal log event.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from mymcp.mcp.jsonrpc import EncodedObject
from mymcp.plugin.contracts import ConsentRequirement, ToolEffects
from mymcp.plugins.mnemosyne.memory.errors import MnemosyneError

Payload = dict[str, Any]

# The three effect profiles of Mnemosyne Tools (the manifest declares the same).
READS = ToolEffects(read_only=True, destructive=False, idempotent=True, open_world=False)
CHANGES = ToolEffects(read_only=False, destructive=False, idempotent=True, open_world=False)
DESTROYS = ToolEffects(read_only=False, destructive=True, idempotent=True, open_world=False)


class ToolContext(Protocol):
    """What the plugin lends to every call: the shared store and the root resolver."""

    @property
    def store(self) -> Any: ...

    def memory_root(self) -> Path: ...


@dataclass
class ToolCall:
    """One Tool call: the plugin context plus the bounded log fields gathered so far."""

    context: ToolContext
    notes: dict[str, object] = field(default_factory=dict)

    def note(self, **fields: object) -> None:
        """Add bounded metadata to the terminal log event (never user content)."""
        self.notes.update(fields)

    def memory_root(self) -> Path:
        """Resolve the memory root now; call only once the arguments are valid."""
        return self.context.memory_root()

    @property
    def store(self) -> Any:
        return self.context.store


Handler = Callable[[Mapping[str, Any], ToolCall], Payload]


@dataclass(frozen=True)
class MemoryTool:
    """The single declaration of one Mnemosyne Tool."""

    name: str
    title: str
    description: str
    input_schema: Mapping[str, Any]
    effects: ToolEffects
    consent: ConsentRequirement
    handler: Handler
    # Message per error code; a code missing here falls back to ``failure_message``.
    messages: Mapping[str, str]
    failure_message: str
    # Settings key of the operator gate that enables the Tool; None means always on.
    gate: str | None = None
    # Error statuses that are an ordinary answer and so are logged at INFO.
    quiet_statuses: frozenset[str] = frozenset()
    # Wire renames of error statuses (recall reports storage failures as retrieval_error).
    status_names: Mapping[str, str] = field(default_factory=dict)
    # Whether error payloads carry the ``field`` member.
    error_fields: bool = True

    def definition(self) -> dict[str, Any]:
        """The MCP Tool definition published in ``tools/list``."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": json.loads(json.dumps(self.input_schema)),
        }

    def invoke(self, arguments: Mapping[str, Any], context: ToolContext) -> dict[str, Any]:
        """Run the handler and return the MCP Tool result; never raises."""
        call = ToolCall(context)
        is_error = True
        log_field: str | None = None
        try:
            payload = self.handler(arguments, call)
            is_error = False
        except MnemosyneError as error:
            payload = self.error_payload(error)
            log_field = None if error.status == "refused" else payload.get("field")
        except Exception:  # noqa: BLE001 - anything unexpected is a bounded internal error
            payload = {
                "status": "internal_error",
                "code": "internal_error",
                "message": self.failure_message,
            }
        self._log(payload, is_error, log_field, call.notes)
        return tool_result(payload, is_error=is_error)

    def error_payload(self, error: MnemosyneError) -> Payload:
        payload: Payload = {
            "status": self.status_names.get(error.status, error.status),
            "code": error.code,
        }
        if error.field is not None and self.error_fields:
            payload["field"] = error.field
        if error.reason is not None:
            payload["reason"] = error.reason
        payload["message"] = error.message or self.messages.get(error.code, self.failure_message)
        return payload

    def _log(
        self,
        payload: Payload,
        is_error: bool,
        log_field: str | None,
        notes: Mapping[str, object],
    ) -> None:
        status = payload["status"]
        parts = [f"event={self.name}", f"outcome={status}"]
        if is_error:
            parts.append(f"code={payload['code']}")
        if log_field is not None:
            parts.append(f"field={log_field}")
        parts.extend(f"{key}={value}" for key, value in notes.items())
        if status == "internal_error":
            level = logging.ERROR
        elif is_error and status not in self.quiet_statuses:
            level = logging.WARNING
        else:
            level = logging.INFO
        logging.getLogger(f"mcp.{self.name}").log(level, " ".join(parts))


def compact_json(value: object) -> str:
    """The wire form of a payload: compact separators, non-ASCII escaped, never NaN."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def tool_result(payload: Payload, *, is_error: bool) -> dict[str, Any]:
    """The MCP result: one text item of compact ASCII JSON, plus the same object structured.

    The structured copy carries its text along, so the response encoder does not encode the
    payload a second time. A handler that assembled a large payload's text from memoized
    pieces hands it over as an ``EncodedObject`` already; that text must be exactly what
    :func:`compact_json` would write.
    """
    if not isinstance(payload, EncodedObject):
        payload = EncodedObject(payload, compact_json(payload))
    result: dict[str, Any] = {"content": [{"type": "text", "text": payload.json_text}]}
    result["structuredContent"] = payload
    if is_error:
        result["isError"] = True
    return result
