"""A response's bytes, and what is kept encoded so that no answer is encoded twice.

:func:`encode` writes a response envelope exactly as ``json.dumps`` writes it, compact, as
raw UTF-8 (which never holds a newline byte); an envelope whose text cannot be UTF-8 (a lone
surrogate) is written as the ASCII text ``json.dumps`` gives with ``ensure_ascii``. It raises
for an envelope JSON cannot hold; :func:`failure` is then the answer. Two kinds of value are
written from text kept beside them:

- :class:`Fixed`: a result every request gets unchanged (the Tool lists, ``initialize``,
  ``server/discover``, ``ping``), encoded once when the dispatcher is built; only the request
  id is encoded per request. About ten per dispatcher, never changed.
- a Tool's structured content: :func:`tool_result` gives a result that carries only
  ``structuredContent`` the text item MCP asks for beside it (its compact ASCII JSON), and
  that same text is written for ``structuredContent``. It lives as long as its response.
"""

from __future__ import annotations

from collections.abc import Mapping
from json.encoder import encode_basestring
from typing import Any

from mymcp import jsonvalue
from mymcp.mcp import jsonrpc

STRUCTURED_CONTENT = "structuredContent"
_SMALL = 10**18


class Fixed(dict[str, Any]):
    """A result that every request gets unchanged, with its JSON encoded once.

    ``encoded`` is its compact JSON as raw UTF-8, or None when it cannot be encoded that way;
    such a result then fails per request, as encoding it would. ``completed`` is the same
    result with the fields of 2026-07-28 (``modern.completed``), once a call has needed it.
    """

    __slots__ = ("completed", "encoded")

    def __init__(self, value: Mapping[str, Any]) -> None:
        super().__init__(value)
        self.completed: Fixed | None = None  # as a 2026-07-28 result, made on first use
        try:
            self.encoded: bytes | None = jsonvalue.encode(self, ensure_ascii=False).encode()
        except (TypeError, ValueError, RecursionError, UnicodeEncodeError):
            self.encoded = None


class _Structured(dict[str, Any]):
    """A Tool's structured content together with its compact ASCII JSON text."""

    __slots__ = ("text",)

    def __init__(self, value: Mapping[str, Any], text: str) -> None:
        super().__init__(value)
        self.text = text


def tool_result(result: Any, *, structured: bool) -> Any:
    """A Tool's result as a client gets it.

    A result with ``structuredContent`` (an object) and no ``content`` gets, first, one text
    item holding the compact ASCII JSON of that object, as MCP asks of a Tool with structured
    results; ``structuredContent`` itself is kept only for a client that reads it
    (``structured``). Raises ``ValueError`` or ``TypeError`` for content JSON cannot hold.
    """
    if not isinstance(result, dict) or STRUCTURED_CONTENT not in result:
        return result
    payload = result[STRUCTURED_CONTENT]
    if "content" in result or not isinstance(payload, dict):
        return result if structured else _without_structured(result)
    text = jsonvalue.encode(payload)
    answer: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    for key, value in result.items():
        if key != STRUCTURED_CONTENT:
            answer[key] = value
        elif structured:
            answer[key] = _Structured(payload, text)
    return answer


def _without_structured(result: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in result.items() if key != STRUCTURED_CONTENT}


# --- the bytes of a response -----------------------------------------------------------------


def encode(envelope: Mapping[str, Any]) -> bytes:
    """The bytes of ``envelope`` (as ``jsonrpc.result`` or ``jsonrpc.error`` builds it);
    raises ``ValueError``, ``TypeError`` or ``RecursionError`` when JSON cannot hold it."""
    key = "result" if "result" in envelope else "error"
    request_id, payload = envelope["id"], envelope[key]
    kind = type(request_id)  # the usual ids, written as json.dumps writes them, for less
    head = (
        int.__repr__(request_id)
        if kind is int and -_SMALL < request_id < _SMALL
        else encode_basestring(request_id)
        if kind is str
        else jsonvalue.encode(request_id, ensure_ascii=False)
    )
    try:
        if type(payload) is Fixed and payload.encoded is not None:
            return b"".join((_head(head, key).encode(), payload.encoded, b"}"))
        return f"{_head(head, key)}{_text(payload, False)}}}".encode()
    except UnicodeEncodeError:  # a lone surrogate: the whole answer is written in ASCII
        ascii_head = jsonvalue.encode(request_id)
        return f"{_head(ascii_head, key)}{_text(payload, True)}}}".encode("ascii")


def failure(request_id: Any) -> tuple[bytes, dict[str, Any]]:
    """The internal-error answer to a request, and its envelope; a null id when its own id
    cannot be written."""
    envelope = jsonrpc.internal_error(request_id)
    try:
        return encode(envelope), envelope
    except (ValueError, TypeError, RecursionError):  # nested too deep for the encoder
        envelope = jsonrpc.internal_error(None)
        return encode(envelope), envelope


def _head(request_id: str, key: str) -> str:
    return f'{{"jsonrpc":"2.0","id":{request_id},"{key}":'


def _text(payload: Any, ascii_only: bool) -> str:
    """``payload`` as JSON text, its structured members written as the text they keep."""
    if not _holds_structured(payload):
        return jsonvalue.encode(payload, ensure_ascii=ascii_only)
    members = (
        f"{jsonvalue.encode(key, ensure_ascii=ascii_only)}:{_member(value, ascii_only)}"
        for key, value in payload.items()
    )
    return f"{{{','.join(members)}}}"


def _holds_structured(payload: Any) -> bool:
    return (
        isinstance(payload, dict)
        and any(type(value) is _Structured for value in payload.values())
        and all(type(key) is str for key in payload)
    )


def _member(value: Any, ascii_only: bool) -> str:
    # Without a \u escape the ASCII text is also the raw UTF-8 text: nothing in it is non-ASCII.
    if type(value) is _Structured and (ascii_only or "\\u" not in value.text):
        return value.text
    return jsonvalue.encode(value, ensure_ascii=ascii_only)
