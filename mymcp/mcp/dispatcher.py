"""What one decoded MCP message asks for, against a runtime's Tool registry.

:meth:`MCPDispatcher.answer` answers a message in its era (``mymcp.mcp.era`` decides which:
the handshake era or 2026-07-28). Everything
that never waits (``initialize``, ``ping``, ``tools/list``, ``server/discover``, notifications
and every protocol error) is answered at once; a Tool call that passed its checks comes back
as a :data:`ToolCall`, which the session runs on a worker thread. Both eras reach the same
Tools the same way: a Tool never learns which era a call came from.

The answers that never change are :class:`~mymcp.mcp.encoding.Fixed` results built once
here, one per answer and revision, so they are never encoded again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from mymcp import settings
from mymcp.jsonvalue import JsonObject
from mymcp.mcp import encoding, jsonrpc, modern
from mymcp.mcp.encoding import Fixed
from mymcp.mcp.era import Era, HttpHeaders
from mymcp.mcp.tool_registry import ToolRegistry

TOOLS_CALL = modern.TOOLS_CALL
# The first MCP revision with structured Tool results; older clients get the text item only.
STRUCTURED_CONTENT_SINCE = "2025-06-18"
# The first revision whose clients get the usage note; older ones get the answer without it.
INSTRUCTIONS_SINCE = "2025-03-26"

# A Tool call that passed every check: calling it runs the Tool and gives the envelope.
ToolCall = Callable[[], JsonObject]
Prepared = JsonObject | ToolCall | None


class RuntimeLike(Protocol):
    """Anything that carries the Tool registry to serve."""

    @property
    def registry(self) -> ToolRegistry: ...


class MCPDispatcher:
    """Answers the MCP messages of one transport; every method works without ``initialize``.

    With ``remembers_initialize`` (stdio, which has no header) it keeps the revision the last
    ``initialize`` negotiated, for the handshake-era calls that follow.
    """

    def __init__(self, runtime: RuntimeLike, *, remembers_initialize: bool = False) -> None:
        registry = getattr(runtime, "registry", None)
        if not isinstance(registry, ToolRegistry):
            raise ValueError("invalid MCP runtime")
        self._registry = registry
        self._remembers = remembers_initialize
        self.version: str | None = None
        tools = {"tools": registry.tools}
        note = getattr(runtime, "instructions", "")  # the plugins' usage note for agents
        self._initialize_results = {
            version: Fixed(_initialize_result(version, note))
            for version in settings.SUPPORTED_PROTOCOL_VERSIONS
        }
        empty = Fixed({})
        self._answers: dict[object, Fixed] = {
            "ping": empty,
            "notifications/initialized": empty,
            "tools/list": Fixed(tools),
        }
        discover = modern.completed(modern.discover_result(note), ttl_ms=modern.DISCOVER_TTL_MS)
        listed = modern.completed(tools, ttl_ms=modern.TOOLS_LIST_TTL_MS)
        self._modern_answers = {modern.DISCOVER: Fixed(discover), "tools/list": Fixed(listed)}

    def answer(self, message: Any, era: Era, headers: HttpHeaders | None = None) -> Prepared:
        """The answer to ``message`` in ``era`` (None for a notification); ``headers`` are the
        request's metadata headers over HTTP, None over stdio.

        The decision order: not an object, notification, then the era's own: in the handshake
        era ``params`` not an object and the method; at 2026-07-28 the checks of
        ``modern.refusal`` and the method.
        """
        if not isinstance(message, dict):
            return jsonrpc.error(None, jsonrpc.INVALID_REQUEST, "Invalid Request")
        if "id" not in message:
            return None
        if era is Era.MODERN:
            return self._modern(message, headers)
        request_id, params = message["id"], message.get("params", {})
        if not isinstance(params, dict):
            return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, "Invalid params")
        method = message.get("method")
        if isinstance(method, (list, dict)):
            return jsonrpc.error(request_id, jsonrpc.INVALID_REQUEST, "Invalid Request")
        if method == TOOLS_CALL:  # structuredContent for a client on a revision that has it
            version = headers.protocol_version if headers is not None else self.version
            structured = version is not None and version >= STRUCTURED_CONTENT_SINCE
            return self._tool_call(request_id, params, structured)
        if method == "initialize":
            return jsonrpc.result(request_id, self._initialize(params))
        answer = self._answers.get(method)
        if answer is None:
            unknown = _named("Unknown method", method)
            return jsonrpc.error(request_id, jsonrpc.METHOD_NOT_FOUND, unknown)
        return jsonrpc.result(request_id, answer)

    def _modern(self, message: dict[str, Any], headers: HttpHeaders | None) -> Prepared:
        refused = modern.refusal(message, headers)
        if refused is not None:
            return refused
        request_id, method, params = message["id"], message["method"], message["params"]
        if method == TOOLS_CALL:
            return self._tool_call(request_id, params, True, completed=True)
        answer = self._modern_answers.get(method)
        if answer is None:
            return modern.not_found(request_id, method)
        return jsonrpc.result(request_id, answer)

    def _tool_call(
        self, request_id: Any, params: dict[str, Any], structured: bool, completed: bool = False
    ) -> JsonObject | ToolCall:
        """A ``tools/call`` whose arguments and Tool name pass, as a call; else its error.

        ``structured``: the client reads ``structuredContent``; ``completed``: a 2026-07-28
        call, whose result gets that revision's fields.
        """
        name = params.get("name")
        arguments = params["arguments"] if "arguments" in params else {}
        if not isinstance(arguments, dict) or isinstance(name, (list, dict)):
            return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, "Invalid params")
        if name not in self._registry:
            return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, _named("Unknown tool", name))

        def run() -> JsonObject:
            result = self._registry.call_tool(name, arguments)
            result = encoding.tool_result(result, structured=structured)
            return jsonrpc.result(request_id, _completed(result) if completed else result)

        return run

    def _initialize(self, params: dict[str, Any]) -> Fixed:
        """The revision to speak: the client's when supported, else the newest; a client that
        names none gets :data:`settings.PROTOCOL_VERSION`."""
        requested = params.get("protocolVersion")
        version = settings.PROTOCOL_VERSION if requested is None else requested
        if version not in settings.SUPPORTED_PROTOCOL_VERSIONS:
            version = settings.SUPPORTED_PROTOCOL_VERSIONS[-1]
        if self._remembers:
            self.version = version
        return self._initialize_results[version]


def _initialize_result(version: str, instructions: str) -> dict[str, Any]:
    result: dict[str, Any] = {
        "protocolVersion": version,
        "capabilities": {"tools": {}},
        "serverInfo": modern.server_info(),
    }
    if instructions and version >= INSTRUCTIONS_SINCE:
        result["instructions"] = instructions
    return result


def _completed(result: Any) -> Any:
    """A Tool's result at 2026-07-28; a fixed result (``list_tools``) is completed once."""
    if type(result) is not Fixed:
        return modern.completed(result)
    if result.completed is None:
        result.completed = Fixed(modern.completed(result))
    return result.completed


def _named(prefix: str, value: Any) -> str:
    rendered = jsonrpc.echo(value)
    return f"{prefix}: {rendered}" if rendered is not None else prefix
