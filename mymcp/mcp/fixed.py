"""Answers that never change, encoded once: only the request id is written per request.

``tools/list``, ``initialize``, ``server/discover``, ``ping`` and the ``list_tools`` Tool give
the same result to every request of a process (per protocol revision and era), and the
largest of them is tens of kilobytes of JSON. A :class:`FixedResult` is such a result
together with its compact JSON text, encoded when it is built. Writing an answer then means
writing the envelope around that text with the request's id in it (:func:`splice`), and the
bytes are exactly those ``json.dumps`` would write for the whole envelope
(``tests/mcp/test_fixed.py`` compares them for many ids).

A fixed result is shared by every request that gets it, so nothing may change it once built:
the dispatcher hands the transports the shared object and gives everyone else a copy.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from mymcp import jsonvalue

_HEAD = b'{"jsonrpc":"2.0","id":'
_RESULT = b',"result":'
_ENVELOPE_KEYS = ("jsonrpc", "id", "result")
# Variants a fixed result can have: one per era's completion of it (see variant()).
MAX_VARIANTS = 4


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
