"""JSON at the edges: the one strict decoder, the one compact encoder, the JSON-object type.

Every place that turns text into JSON values (request bodies, Tool arguments, the plugin
manifest, record files, listing cursors) decodes with :func:`decode`, choosing only what
its edge needs. Whatever the options, the decoder refuses ``NaN``, ``Infinity`` and
``-Infinity``, a leading byte order mark, nesting deeper than the interpreter's recursion
allows and integers past its digit limit. Every compact text (responses, Tool results,
cursor payloads) comes from :func:`encode`, which refuses non-finite numbers.

This module imports nothing of the project, so every layer may use it.
"""

from __future__ import annotations

import json
import math
from typing import Any, NoReturn, TypeAlias

__all__ = ["DuplicateKey", "JsonError", "JsonObject", "decode", "encode"]

JsonObject: TypeAlias = dict[str, Any]


class JsonError(ValueError):
    """The text is not one strict JSON document."""


class DuplicateKey(JsonError):
    """An object names one key twice, where keys must be unique."""


class _NonFinite(JsonError):
    pass


def _refuse_constant(name: str) -> NoReturn:
    raise _NonFinite("non-finite number")


def _finite_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise _NonFinite("non-finite number")
    return number


def _unique_object(pairs: list[tuple[str, Any]]) -> JsonObject:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise DuplicateKey("duplicate key")
    return result


# One decoder per combination of options, built once: (unique_keys, allow_overflow).
_DECODERS = {
    (unique, overflow): json.JSONDecoder(
        parse_constant=_refuse_constant,
        parse_float=float if overflow else _finite_float,
        object_pairs_hook=_unique_object if unique else None,
    )
    for unique in (False, True)
    for overflow in (False, True)
}
# Reads non-finite numbers, to tell whether a refused text also repeats a key.
_KEY_CHECKER = json.JSONDecoder(object_pairs_hook=_unique_object)


def decode(text: str, *, unique_keys: bool = False, allow_overflow: bool = False) -> Any:
    """The JSON value of ``text``; raises :class:`JsonError`.

    With ``unique_keys`` an object that repeats a key raises :class:`DuplicateKey` (else the
    last one wins), and a repeated key anywhere is reported before a non-finite number. With
    ``allow_overflow`` a number too large for a float becomes infinity, for an edge whose own
    rules refuse every float afterwards; by default it is refused.
    """
    try:
        return _DECODERS[unique_keys, allow_overflow].decode(text)
    except _NonFinite:
        if unique_keys and _repeats_a_key(text):
            raise DuplicateKey("duplicate key") from None
        raise JsonError("non-finite number") from None
    except JsonError:
        raise
    except (ValueError, RecursionError):
        # ValueError: syntax, a byte order mark, an integer past the digit limit.
        raise JsonError("not strict JSON") from None


def _repeats_a_key(text: str) -> bool:
    try:
        _KEY_CHECKER.decode(text)
    except DuplicateKey:
        return True
    except (ValueError, RecursionError):
        return False
    return False


# One encoder per combination of options, built once: (ensure_ascii, sort_keys).
_ENCODERS = {
    (ascii_only, sort): json.JSONEncoder(
        separators=(",", ":"), ensure_ascii=ascii_only, allow_nan=False, sort_keys=sort
    )
    for ascii_only in (False, True)
    for sort in (False, True)
}


def encode(value: object, *, ensure_ascii: bool = True, sort_keys: bool = False) -> str:
    """Compact JSON text (no spaces), exactly as ``json.dumps`` with those options writes it.

    Raises ``ValueError`` for a non-finite number and ``TypeError`` for a value JSON cannot
    hold.
    """
    return _ENCODERS[ensure_ascii, sort_keys].encode(value)
