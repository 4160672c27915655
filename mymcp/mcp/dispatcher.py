"""JSON-RPC dispatch of one decoded MCP message against a runtime's Tool registry.

A transport asks :meth:`MCPDispatcher.prepare` (or ``prepare_modern``) for the answer to a
message. Everything that never waits (``initialize``, ``ping``, ``tools/list``,
``server/discover``, notifications and every protocol error) is answered right there, on
the caller's thread; a Tool call, which reads and writes files, comes back as a
:class:`ToolWork` for the transport to run on a worker thread. ``dispatch`` does both steps
in one call.

The answers that never change are :class:`~mymcp.mcp.encoding.FixedResult` values built once
per dispatcher (per protocol revision and era), so a transport writes their bytes without
encoding them again.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any, Protocol

from mymcp import settings
from mymcp.jsonvalue import JsonObject
from mymcp.mcp import jsonrpc, modern
from mymcp.mcp.encoding import FixedResult, fixed
from mymcp.mcp.era import HttpHeaders
from mymcp.mcp.instructions import INSTRUCTIONS
from mymcp.mcp.tool_registry import ToolRegistry

_logger = logging.getLogger("mcp")

Handler = Callable[[dict[str, Any]], Any]  # a method's result for the request's params
# The revision a 2026-07-28 request is answered in once it passed its checks.
_MODERN_VERSION = settings.MODERN_PROTOCOL_VERSIONS[-1]


class ToolWork:
    """A Tool call that passed every protocol check and must run off the event loop.

    :meth:`run` calls the Tool and returns the response envelope; a failing Tool is a
    bounded ``-32603``, exactly as in :meth:`MCPDispatcher.dispatch`.
    """

    __slots__ = ("run",)

    def __init__(self, run: Callable[[], JsonObject]) -> None:
        self.run = run


Prepared = JsonObject | ToolWork | None
_EMPTY = FixedResult({})


class RuntimeLike(Protocol):
    """Anything that carries the Tool registry to serve."""

    @property
    def registry(self) -> ToolRegistry: ...


class MCPDispatcher:
    """Answers MCP messages; stateless, so every method works without ``initialize``.

    ``prepare`` answers a message of the handshake era, ``prepare_modern`` one of
    2026-07-28 (``mymcp.mcp.era`` says which a message is); ``dispatch`` also runs the
    handshake era's Tool calls on the calling thread. Both eras reach the same Tools the same
    way: a Tool never knows which era a call came from.
    """

    def __init__(self, runtime: RuntimeLike) -> None:
        registry = getattr(runtime, "registry", None)
        if not isinstance(registry, ToolRegistry):
            raise ValueError("invalid MCP runtime")
        self._registry = registry
        # The answers that never change, encoded once: one Tool list, one discovery and
        # one initialize result per revision that negotiation can answer with.
        self._tools = fixed({"tools": registry.tools})
        self._discovery = FixedResult(modern.discover_result())
        self._initialize_results = {
            version: FixedResult(initialize_result(version))
            for version in {settings.PROTOCOL_VERSION, *settings.SUPPORTED_PROTOCOL_VERSIONS}
        }
        # A Tool list that cannot be encoded fails per request, with -32603, as it always did.
        tools = self._tools if self._tools is not None else {"tools": registry.tools}
        # Each method's result for the request's params. Both tables leave out tools/call,
        # which prepare() turns into ToolWork first.
        self._methods: dict[str, Handler] = {
            "initialize": self._initialize,
            "ping": lambda params: _EMPTY,
            "notifications/initialized": lambda params: _EMPTY,
            "tools/list": lambda params: tools,
        }
        # 2026-07-28: the methods and, for the cacheable ones, their time to live.
        self._modern_methods: dict[str, tuple[Handler, int | None]] = {
            modern.DISCOVER: (lambda params: self._discovery, modern.DISCOVER_TTL_MS),
            "tools/list": (lambda params: tools, modern.TOOLS_LIST_TTL_MS),
        }

    def dispatch(self, message: Any, *, protocol_version: str | None = None) -> JsonObject | None:
        """The response envelope for ``message``, or None for a notification.

        ``protocol_version`` is the revision the client says it speaks on this request (the
        ``MCP-Protocol-Version`` header), if any. A Tool call runs on the calling thread.
        """
        return _settled(self.prepare(message, protocol_version=protocol_version))

    def prepare(self, message: Any, *, protocol_version: str | None = None) -> Prepared:
        """Like :meth:`dispatch`, but a Tool call comes back as :class:`ToolWork`.

        Any other answer is final; a fixed one is shared and must not be changed.
        """
        if not isinstance(message, dict):
            return jsonrpc.error(None, jsonrpc.INVALID_REQUEST, "Invalid Request")
        if "id" not in message:
            return None
        request_id = message["id"]
        params = message.get("params", {})
        if not isinstance(params, dict):
            return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, "Invalid params")
        method = message.get("method")
        if isinstance(method, (list, dict)):
            return jsonrpc.error(request_id, jsonrpc.INVALID_REQUEST, "Invalid Request")
        if method == TOOLS_CALL:
            return self._tool_work(request_id, params, protocol_version, stateless=False)
        handler = self._methods.get(method) if isinstance(method, str) else None
        if handler is None:
            return jsonrpc.error(
                request_id, jsonrpc.METHOD_NOT_FOUND, _named("Unknown method", method)
            )
        return _run(handler, request_id, params, method)

    def prepare_modern(self, message: Any, headers: HttpHeaders | None = None) -> Prepared:
        """The 2026-07-28 answer to ``message`` (None for a notification); a Tool call comes
        back as :class:`ToolWork`. ``headers`` are the request's metadata headers over HTTP,
        None over stdio."""
        if not isinstance(message, dict):
            return jsonrpc.error(None, jsonrpc.INVALID_REQUEST, "Invalid Request")
        if "id" not in message:
            return None
        refused = modern.refusal(message, headers)
        if refused is not None:
            return refused
        request_id, method, params = message["id"], message["method"], message["params"]
        if method == TOOLS_CALL:
            return self._tool_work(request_id, params, _MODERN_VERSION, stateless=True)
        entry = self._modern_methods.get(method)
        if entry is None:
            return modern.not_found(request_id, method)
        handler, ttl_ms = entry
        response = _run(handler, request_id, params, method)
        return modern.completed(response, ttl_ms=ttl_ms)

    def _tool_work(
        self, request_id: Any, params: dict[str, Any], version: str | None, *, stateless: bool
    ) -> JsonObject | ToolWork:
        """A ``tools/call`` whose params and Tool name pass, as work; else its error.

        ``stateless``: a 2026-07-28 call, whose result gets that revision's fields.
        """
        name = params.get("name")
        arguments = params["arguments"] if "arguments" in params else {}
        if not isinstance(arguments, dict) or isinstance(name, (list, dict)):
            return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, "Invalid params")
        if name not in self._registry:
            return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, _named("Unknown tool", name))
        call = functools.partial(self._call_tool, request_id, name, arguments, version)
        if stateless:
            return ToolWork(functools.partial(_completed_call, call))
        return ToolWork(call)

    def _call_tool(
        self, request_id: Any, name: object, arguments: dict[str, Any], version: str | None
    ) -> JsonObject:
        try:
            result = self._registry.call_tool(name, arguments)
        except Exception:  # noqa: BLE001 - a failing Tool is a bounded JSON-RPC error
            _logger.error("handler failed method=%s", TOOLS_CALL)
            return jsonrpc.error(request_id, jsonrpc.INTERNAL_ERROR, "Internal error")
        if (
            isinstance(result, dict)
            and STRUCTURED_CONTENT in result
            and not speaks_structured_content(version)
        ):
            result = {key: value for key, value in result.items() if key != STRUCTURED_CONTENT}
        return jsonrpc.result(request_id, result)

    def _initialize(self, params: dict[str, Any]) -> Any:
        return self._initialize_results[negotiate_protocol_version(params.get("protocolVersion"))]


def _settled(prepared: Prepared) -> JsonObject | None:
    """A final answer with a plain copy of any fixed result, free to be changed."""
    response = prepared.run() if isinstance(prepared, ToolWork) else prepared
    if response is not None and isinstance(response.get("result"), FixedResult):
        response = {**response, "result": response["result"].plain()}
    return response


def _completed_call(call: Callable[[], JsonObject]) -> JsonObject:
    return modern.completed(call())


def _run(handler: Handler, request_id: Any, params: dict[str, Any], method: Any) -> JsonObject:
    try:
        return jsonrpc.result(request_id, handler(params))
    except Exception:  # noqa: BLE001 - a failing handler is a bounded JSON-RPC error
        _logger.error("handler failed method=%s", jsonrpc.log_value(method))
        return jsonrpc.error(request_id, jsonrpc.INTERNAL_ERROR, "Internal error")


TOOLS_CALL = modern.TOOLS_CALL
STRUCTURED_CONTENT = "structuredContent"
# The first MCP revision with structured Tool results; older clients get the text item only.
STRUCTURED_CONTENT_SINCE = "2025-06-18"


def speaks_structured_content(version: str | None) -> bool:
    """Whether a client on this revision (None: it did not say) knows ``structuredContent``."""
    return version is not None and version >= STRUCTURED_CONTENT_SINCE


def negotiate_protocol_version(requested: Any) -> str:
    """The revision to speak: the client's when supported, else the newest.

    A client that names no revision gets :data:`settings.PROTOCOL_VERSION`.
    """
    if requested is None:
        return settings.PROTOCOL_VERSION
    if isinstance(requested, str) and requested in settings.SUPPORTED_PROTOCOL_VERSIONS:
        return requested
    return settings.SUPPORTED_PROTOCOL_VERSIONS[-1]


# The first revision whose clients get the usage note; older ones get the answer without it.
INSTRUCTIONS_SINCE = "2025-03-26"


def initialize_result(requested: Any) -> dict[str, Any]:
    version = negotiate_protocol_version(requested)
    result: dict[str, Any] = {
        "protocolVersion": version,
        "capabilities": {"tools": {}},
        "serverInfo": {"name": settings.SERVER_NAME, "version": settings.SERVER_VERSION},
    }
    if version >= INSTRUCTIONS_SINCE:
        result["instructions"] = INSTRUCTIONS
    return result


def _named(prefix: str, value: Any) -> str:
    rendered = jsonrpc.echo(value)
    return f"{prefix}: {rendered}" if rendered is not None else prefix
