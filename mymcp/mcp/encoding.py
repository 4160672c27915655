"""A response's bytes, and every answer and cache kept encoded along the message path.

:func:`serialize` turns a response envelope into compact UTF-8 JSON (which never holds a
newline byte), falling back to a bounded ``-32603`` and then to a null id when the envelope
cannot be encoded. What is kept encoded, each with its bound:

- :class:`FixedResult`: a result that never changes (``tools/list``, ``initialize``,
  ``server/discover``, ``ping``, the ``list_tools`` Tool), encoded when it is built; only the
  request id is written per request (:func:`splice`), and the bytes are exactly those
  ``json.dumps`` writes for the whole envelope (``tests/mcp/test_fixed.py``). One per
  answer and revision of a dispatcher (about ten), each with at most :data:`MAX_VARIANTS`
  variants (the 2026-07-28 completion of it). Shared by every request, so never changed.
- :class:`EncodedObject`: a member of a Tool result handed over with its own compact ASCII
  text (a Tool's structured payload, whose text is also its text item), written as that text
  instead of being encoded again; it lives as long as its response.
- :func:`error_body`: the few refusals made before dispatch (null id), at most 16.
- :func:`shown`: how ids and methods appear in log lines; the methods a client sends most
  are rendered once (seven of them).
"""

from __future__ import annotations

import copy
import functools
import threading
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from mymcp import jsonvalue
from mymcp.mcp import jsonrpc

_HEAD = b'{"jsonrpc":"2.0","id":'
_RESULT = b',"result":'
_ENVELOPE_KEYS = ("jsonrpc", "id", "result")
# Variants a fixed result can have: one per era's completion of it (see variant()).
MAX_VARIANTS = 4


# --- answers that never change ---------------------------------------------------------------


class FixedResult(dict[str, Any]):
    """A result object that every request gets unchanged, with its JSON encoded once.

    ``encoded`` is the compact JSON text as raw UTF-8, exactly as the response encoder
    writes this object. Building one raises ``ValueError`` for a value that cannot be
    encoded that way (a lone surrogate, a non-finite number).
    """

    __slots__ = ("encoded", "_variants", "_lock")

    def __init__(self, value: Mapping[str, Any]) -> None:
        super().__init__(value)
        try:
            self.encoded = jsonvalue.encode(self, ensure_ascii=False).encode("utf-8")
        except (TypeError, UnicodeEncodeError) as error:
            raise ValueError("a fixed result must be plain JSON text") from error
        self._variants: dict[Hashable, FixedResult] = {}
        self._lock = threading.Lock()

    def variant(
        self, key: Hashable, build: Callable[[FixedResult], Mapping[str, Any]]
    ) -> FixedResult:
        """The fixed result ``build`` makes of this one, built once per ``key``.

        At most :data:`MAX_VARIANTS` keys; the variants live as long as this result.
        """
        found = self._variants.get(key)
        if found is not None:
            return found
        made = FixedResult(build(self))
        with self._lock:
            if key not in self._variants and len(self._variants) >= MAX_VARIANTS:
                return made  # never expected: the eras use two keys
            return self._variants.setdefault(key, made)

    def plain(self) -> dict[str, Any]:
        """A fresh deep copy as a plain dict, free to be changed."""
        return copy.deepcopy(dict(self))


def fixed(value: Mapping[str, Any]) -> FixedResult | None:
    """``value`` as a :class:`FixedResult`, or None when it cannot be encoded once.

    Such a value is answered the ordinary way, where encoding it fails with ``-32603``.
    """
    try:
        return FixedResult(value)
    except (ValueError, RecursionError):
        return None


def encoded_id(request_id: Any) -> bytes | None:
    """The request id as the response encoder writes it inside an envelope, or None.

    None when that encoding fails or is not UTF-8 (a lone surrogate): the caller then
    encodes the whole envelope the ordinary way, with its fallbacks.
    """
    if type(request_id) is int:
        try:
            return int.__repr__(request_id).encode("ascii")
        except ValueError:  # more digits than Python converts
            return None
    try:
        return jsonvalue.encode(request_id, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError, RecursionError, UnicodeEncodeError):
        return None


def splice(envelope: Mapping[str, Any]) -> bytes | None:
    """The bytes of ``envelope`` when it is a result envelope around a :class:`FixedResult`.

    None for any other envelope, or when its id cannot be spliced in.
    """
    result = envelope.get("result")
    if type(result) is not FixedResult or tuple(envelope) != _ENVELOPE_KEYS:
        return None
    if envelope["jsonrpc"] != "2.0":
        return None
    request_id = encoded_id(envelope["id"])
    if request_id is None:
        return None
    return b"".join((_HEAD, request_id, _RESULT, result.encoded, b"}"))


# --- members handed over with their text -----------------------------------------------------


class EncodedObject(dict[str, Any]):
    """A JSON object handed over together with its compact, ASCII-only JSON text.

    A handler that already holds the text of a large member of its result (a Tool's
    structured payload, whose text it also sends as the text item) wraps the member in this,
    and :func:`encode_message` writes the text instead of encoding the object a second time.
    The text must be exactly ``json.dumps(obj, separators=(",", ":"), ensure_ascii=True)``;
    neither may change afterwards.
    """

    def __init__(self, value: Mapping[str, Any], text: str) -> None:
        super().__init__(value)
        self.json_text = text


def encode_message(message: Mapping[str, Any], *, ensure_ascii: bool) -> str:
    """The compact JSON text of a response, exactly as ``json.dumps`` writes it (and raises).

    Members of ``result`` that are :class:`EncodedObject` values are written as their kept
    text whenever that is the same text ``json.dumps`` would write.
    """
    members = message.get("result")
    if not isinstance(members, dict) or not _splices(message, members):
        return jsonvalue.encode(message, ensure_ascii=ensure_ascii)
    rest = {key: value for key, value in message.items() if key != "result"}
    head = jsonvalue.encode(rest, ensure_ascii=ensure_ascii)
    body = ",".join(
        f"{jsonvalue.encode(key, ensure_ascii=ensure_ascii)}:{_member_text(value, ensure_ascii)}"
        for key, value in members.items()
    )
    return f'{head[:-1]},"result":{{{body}}}}}'


def _member_text(value: Any, ensure_ascii: bool) -> str:
    # Without a \u escape the ASCII text is also the raw UTF-8 one: nothing in it is non-ASCII.
    if isinstance(value, EncodedObject) and (ensure_ascii or "\\u" not in value.json_text):
        return value.json_text
    return jsonvalue.encode(value, ensure_ascii=ensure_ascii)


def _splices(message: Mapping[str, Any], members: dict[Any, Any]) -> bool:
    """Whether ``message`` is an envelope whose ``result`` (its last key) holds encoded members."""
    return (
        len(message) > 1
        and list(message)[-1] == "result"
        and all(isinstance(key, str) for key in members)
        and any(isinstance(value, EncodedObject) for value in members.values())
    )


# --- the bytes of a response -----------------------------------------------------------------


def serialize(response: dict[str, Any], request_id: Any) -> tuple[bytes, dict[str, Any]]:
    """The response bytes, falling back to -32603 (and then to a null id) when unencodable.

    Returns the bytes and the envelope they encode.
    """
    spliced = splice(response)
    if spliced is not None:
        return spliced, response
    for candidate in (
        response,
        jsonrpc.error(request_id, jsonrpc.INTERNAL_ERROR, "Internal error"),
        # An id nested just inside the decoder's depth limit may exceed the encoder's.
        jsonrpc.error(None, jsonrpc.INTERNAL_ERROR, "Internal error"),
    ):
        body = _encode(candidate)
        if body is not None:
            return body, candidate
    raise AssertionError("the null-id error envelope is always encodable")


@functools.lru_cache(maxsize=16)  # the transports' few fixed refusals
def error_body(code: int, message: str) -> bytes:
    """The bytes of an error answer that has no request to refer to (a null id)."""
    return serialize(jsonrpc.error(None, code, message), None)[0]


def _encode(response: dict[str, Any]) -> bytes | None:
    try:
        text = encode_message(response, ensure_ascii=False)
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: escape instead of failing
            return encode_message(response, ensure_ascii=True).encode("ascii")
    except (TypeError, ValueError, RecursionError):
        return None


# --- what log lines show ---------------------------------------------------------------------

# The methods a client sends most, rendered as jsonrpc.log_value renders them.
_KNOWN_METHODS = {
    method: jsonrpc.log_value(method)
    for method in (
        "initialize",
        "ping",
        "tools/list",
        "tools/call",
        "server/discover",
        "notifications/initialized",
        "notifications/cancelled",
    )
}
_SMALL = 10**18  # an integer of at most 18 digits renders in full


def shown(value: Any) -> str:
    """``jsonrpc.log_value(value)``, without its checks for a known method or a small id."""
    if type(value) is str:
        known = _KNOWN_METHODS.get(value)
        if known is not None:
            return known
    elif type(value) is int and -_SMALL < value < _SMALL:
        return str(value)
    return jsonrpc.log_value(value)
