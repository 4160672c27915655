"""One declaration per Tool, and the one place where a domain error becomes a Tool result.

A :class:`MemoryTool` holds everything about one Mnemosyne Tool: its public name, title,
description, input schema, effects (and so its consent rule), the gate that enables it,
its messages and its handler. The plugin adapter, ``tools/list``, ``list_tools``, the
annotations and the manifest parity check all read this one object.

A handler parses the (host-normalized) arguments, calls one domain service and renders
its answer: it returns the success payload, or raises a :class:`MnemosyneError`;
:meth:`MemoryTool.invoke` turns either into the MCP result and writes the Tool's one
terminal log event, which ends with the error's fault (cause, errno, directory) when the
store gave it one. A handler imports its service inside the function, so that declaring
the Tools loads no service (``plugin.SERVICE_MODULES`` lists them).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from mymcp import jsonvalue
from mymcp.jsonvalue import JsonObject
from mymcp.plugin_api import ConsentRequirement, ToolEffects
from mymcp.plugins.mnemosyne.memory.model.errors import CandidateLimitExceeded, MnemosyneError
from mymcp.plugins.mnemosyne.memory.model.records import CanonicalRecord
from mymcp.plugins.mnemosyne.memory.model.references import reference_dict

if TYPE_CHECKING:
    from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore

# The three effect profiles of Mnemosyne Tools (the manifest declares the same).
READS = ToolEffects(read_only=True, destructive=False, idempotent=True, open_world=False)
CHANGES = ToolEffects(read_only=False, destructive=False, idempotent=True, open_world=False)
DESTROYS = ToolEffects(read_only=False, destructive=True, idempotent=True, open_world=False)

# In a message, the place of the candidate limit that was passed (1000 unless the operator
# set another).
LIMIT_PLACEHOLDER = "{limit}"

# Messages every Tool that can meet the code gives, unless it names its own.
SHARED_MESSAGES: Mapping[str, str] = {
    "invalid_reference": "reference is invalid",
    "candidate_limit_exceeded": (
        f"memory scope contains more than {LIMIT_PLACEHOLDER} candidate files"
    ),
}


class ToolContext(Protocol):
    """What the plugin lends to every call: the shared store and the root resolver."""

    @property
    def store(self) -> MemoryStore: ...

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
    def store(self) -> MemoryStore:
        return self.context.store


Handler = Callable[[Mapping[str, Any], ToolCall], JsonObject]


@dataclass(frozen=True)
class MemoryTool:
    """The single declaration of one Mnemosyne Tool."""

    name: str
    title: str
    description: str
    input_schema: JsonObject
    effects: ToolEffects
    handler: Handler
    # Message per error code; a code missing here and from SHARED_MESSAGES falls back to
    # ``failure_message``.
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

    @property
    def consent(self) -> ConsentRequirement:
        """A Tool that only reads needs no approval; every other one, per call."""
        return ConsentRequirement.NONE if self.effects.read_only else ConsentRequirement.PER_CALL

    def definition(self) -> JsonObject:
        """The MCP Tool definition published in ``tools/list``."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": jsonvalue.decode(jsonvalue.encode(self.input_schema)),
        }

    def invoke(self, arguments: Mapping[str, Any], context: ToolContext) -> JsonObject:
        """Run the handler and return the MCP Tool result; never raises."""
        call = ToolCall(context)
        is_error = True
        log_field: str | None = None
        try:
            payload = self.handler(arguments, call)
            is_error = False
        except MnemosyneError as error:
            payload = self.error_payload(error)
            shown = error.status != "refused" and "field" in payload
            log_field = error.log_field if shown else None
            if error.fault is not None:
                call.note(**error.fault.log_fields())
        except Exception:  # noqa: BLE001 - anything unexpected is a bounded internal error
            payload = {
                "status": "internal_error",
                "code": "internal_error",
                "message": self.failure_message,
            }
        self._log(payload, is_error, log_field, call.notes)
        return tool_result(payload, is_error=is_error)

    def error_payload(self, error: MnemosyneError) -> JsonObject:
        payload: JsonObject = {
            "status": self.status_names.get(error.status, error.status),
            "code": error.code,
        }
        if error.field is not None and self.error_fields:
            payload["field"] = error.field
        if error.reason is not None:
            payload["reason"] = error.reason
        message = error.message or self._message(error.code)
        if isinstance(error, CandidateLimitExceeded):
            message = message.replace(LIMIT_PLACEHOLDER, str(error.limit))
        payload["message"] = message
        return payload

    def _message(self, code: str) -> str:
        return self.messages.get(code) or SHARED_MESSAGES.get(code) or self.failure_message

    def _log(
        self,
        payload: JsonObject,
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


def lifecycle_result(call: ToolCall, status: str, record: CanonicalRecord) -> JsonObject:
    """The answer of a change: its status, the memory's reference and lifecycle after it.

    The lifecycle is noted for the log as well.
    """
    call.note(lifecycle_state=record.state.value, revision=record.revision)
    return {
        "status": status,
        "reference": reference_dict(record, record.scope),
        "lifecycle": {"state": record.state.value, "revision": record.revision},
    }


def tool_result(payload: JsonObject, *, is_error: bool) -> JsonObject:
    """The MCP result: the payload as structured content, which the host also sends as the
    text item (its compact ASCII JSON)."""
    result: JsonObject = {"structuredContent": payload}
    if is_error:
        result["isError"] = True
    return result
