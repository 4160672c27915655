"""Memory record files: the two schema versions, their parser and the canonical writer.

A file is decoded as strict UTF-8, parsed as strict JSON (no BOM, no duplicate keys, no
``NaN``/``Infinity``, bounded nesting) and then checked against the rules of its
``schema_version``. Version 1 (legacy) values are kept exactly as written; version 2
(canonical) values come out normalized. Any failure raises :class:`RecordInvalid` with
the skip reason the store logs.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, NamedTuple, NoReturn, TypeAlias, TypeVar

from mymcp import jsonvalue

from .values import (
    CANONICAL_ID_RE,
    CONTENT_LIMIT,
    LABEL_LIMIT,
    MAX_TAGS,
    TAG_LIMIT,
    TITLE_LIMIT,
    is_identifier,
    is_legacy_id,
    normalize_language,
    normalize_tags,
    normalize_text,
    parse_timestamp,
)
from .vocabulary import (
    SCOPE_RULES,
    LifecycleState,
    MemoryKind,
    NamespaceKind,
    Origin,
    RecordedVia,
    Scope,
)

__all__ = [
    "CANONICAL_VERSION",
    "INVALID_ENCODING",
    "INVALID_JSON",
    "INVALID_RECORD",
    "LEGACY_VERSION",
    "RECORD_SUFFIX",
    "CanonicalRecord",
    "Collection",
    "LegacyRecord",
    "Namespace",
    "Record",
    "RecordInvalid",
    "canonical_record_dict",
    "canonical_relative_parts",
    "duplicate_hash",
    "duplicate_key",
    "legacy_record_dict",
    "parse_record_bytes",
    "parse_record_object",
    "serialize_canonical",
    "serialize_record",
    "unknown_field",
]

LEGACY_VERSION: Final = 1
CANONICAL_VERSION: Final = 2
RECORD_SUFFIX: Final = ".json"  # the last suffix of every record file

INVALID_ENCODING: Final = "invalid_encoding"
INVALID_JSON: Final = "invalid_json"
INVALID_RECORD: Final = "invalid_record"


@dataclass(frozen=True)
class Namespace:
    kind: NamespaceKind
    id: str
    label: str | None


@dataclass(frozen=True)
class Collection:
    id: str
    label: str | None


@dataclass(frozen=True)
class LegacyRecord:
    """A version 1 record; every value is exactly as the file holds it."""

    id: str
    content: str
    title: str | None
    tags: tuple[str, ...]
    # The optional keys ("title", "tags") the file contains, in file order.
    field_order: tuple[str, ...]


@dataclass(frozen=True)
class CanonicalRecord:
    """A version 2 record with normalized values."""

    id: str
    scope: Scope
    namespace: Namespace
    collection: Collection | None
    kind: MemoryKind
    language: str
    title: str | None
    content: str
    tags: tuple[str, ...]
    origin: Origin
    recorded_via: RecordedVia
    state: LifecycleState
    revision: int
    created_at: str
    updated_at: str
    occurred_at: str | None

    @property
    def collection_id(self) -> str | None:
        return None if self.collection is None else self.collection.id


Record: TypeAlias = LegacyRecord | CanonicalRecord


class RecordInvalid(Exception):
    """A record file or object that is not a valid record; ``reason`` is the skip reason."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def _load_json(text: str) -> object:
    # Overflowing numbers pass here and fail the record rules, which take no float.
    try:
        return jsonvalue.decode(text, unique_keys=True, allow_overflow=True)
    except jsonvalue.JsonError:
        raise RecordInvalid(INVALID_JSON) from None


def parse_record_bytes(data: bytes) -> Record:
    """Parse the raw bytes of a record file.

    Raises :class:`RecordInvalid` with reason ``invalid_encoding`` (not strict UTF-8),
    ``invalid_json`` (BOM, syntax, duplicate keys, ``NaN``/``Infinity``, nesting too deep)
    or ``invalid_record`` (any record rule).
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordInvalid(INVALID_ENCODING) from exc
    return parse_record_object(_load_json(text))


# --- record rules ------------------------------------------------------------------------

_V1_REQUIRED: Final = frozenset({"schema_version", "id", "content"})
_V1_OPTIONAL: Final = ("title", "tags")
_V1_KEYS: Final = _V1_REQUIRED | frozenset(_V1_OPTIONAL)

_V2_KEYS: Final = frozenset(
    {
        "schema_version",
        "id",
        "scope",
        "namespace",
        "collection",
        "kind",
        "language",
        "title",
        "content",
        "tags",
        "provenance",
        "lifecycle",
        "created_at",
        "updated_at",
    }
)
_OCCURRED_AT: Final = "occurred_at"
_V2_EVENT_KEYS: Final = _V2_KEYS | {_OCCURRED_AT}

_KNOWN_KEYS: Final = _V1_KEYS | _V2_EVENT_KEYS
_NAMESPACE_KEYS: Final = ("kind", "id", "label")
_COLLECTION_KEYS: Final = ("id", "label")
_PROVENANCE_KEYS: Final = ("origin", "recorded_via")
_LIFECYCLE_KEYS: Final = ("state", "revision")
_NAMESPACE_SET: Final = frozenset(_NAMESPACE_KEYS)
_COLLECTION_SET: Final = frozenset(_COLLECTION_KEYS)
_PROVENANCE_SET: Final = frozenset(_PROVENANCE_KEYS)
_LIFECYCLE_SET: Final = frozenset(_LIFECYCLE_KEYS)
# The keys of the nested objects of a version 2 record.
_NESTED_KEYS: Final = {
    "namespace": _NAMESPACE_KEYS,
    "collection": _COLLECTION_KEYS,
    "provenance": _PROVENANCE_KEYS,
    "lifecycle": _LIFECYCLE_KEYS,
}

_T = TypeVar("_T")
_E = TypeVar("_E", bound=StrEnum)
_P = TypeVar("_P")


def _invalid() -> NoReturn:
    raise RecordInvalid(INVALID_RECORD)


def _valid(value: _T | None) -> _T:
    if value is None:
        _invalid()
    return value


def _check(condition: bool) -> None:
    if not condition:
        _invalid()


def _enum(cls: type[_E], value: object) -> _E:
    if not isinstance(value, str):
        _invalid()
    # The members by value, without the cost of calling the class (records are read in bulk).
    member = cls._value2member_map_.get(value)
    if member is None:
        _invalid()
    return member  # type: ignore[return-value]


def _fields(value: object, keys: frozenset[str]) -> dict[str, object]:
    """The object itself when it is a JSON object with exactly these keys."""
    if not isinstance(value, dict) or value.keys() != keys:
        _invalid()
    return value


def parse_record_object(obj: object) -> Record:
    """Check a decoded JSON value against the record rules of its schema version.

    Raises :class:`RecordInvalid` (``invalid_record``) on any broken rule.
    """
    # (Each version's rules take only keys it knows, all of them in _KNOWN_KEYS.)
    if not isinstance(obj, dict):
        _invalid()
    version = obj.get("schema_version")
    # ``type(...) is int`` keeps out bool and float (true, 2.0).
    _check(type(version) is int)
    if version == LEGACY_VERSION:
        return _parse_v1(obj)
    if version == CANONICAL_VERSION:
        return _parse_v2(obj)
    _invalid()


def unknown_field(obj: object) -> str | None:
    """The first key of a record object that no schema version knows, or None.

    Nested keys are named with a dot (``namespace.colour``). It only names keys: whether
    the record is valid is :func:`parse_record_object`'s answer.
    """
    if not isinstance(obj, dict):
        return None
    for key, value in obj.items():
        if key not in _KNOWN_KEYS:
            return str(key)
        known = _NESTED_KEYS.get(key)
        if known is not None and isinstance(value, dict):
            extra = [name for name in value if name not in known]
            if extra:
                return f"{key}.{extra[0]}"
    return None


def _verbatim_text(value: object, limit: int) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        _invalid()
    return value


def _verbatim_tags(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_TAGS:
        _invalid()
    tags = tuple(_verbatim_text(item, TAG_LIMIT) for item in value)
    _check(len(set(tags)) == len(tags))
    return tags


def _parse_v1(obj: dict[str, object]) -> LegacyRecord:
    _check(obj.keys() <= _V1_KEYS and obj.keys() >= _V1_REQUIRED)
    record_id = obj["id"]
    if not isinstance(record_id, str) or not is_legacy_id(record_id):
        _invalid()
    title = obj.get("title")
    return LegacyRecord(
        id=record_id,
        content=_verbatim_text(obj["content"], CONTENT_LIMIT),
        title=None if title is None else _verbatim_text(title, TITLE_LIMIT),
        tags=_verbatim_tags(obj["tags"]) if "tags" in obj else (),
        field_order=tuple(key for key in obj if key in _V1_OPTIONAL),
    )


def _label(value: object) -> str | None:
    return None if value is None else _valid(normalize_text(value, LABEL_LIMIT))


def _identifier(value: object) -> str:
    if not isinstance(value, str) or not is_identifier(value):
        _invalid()
    return value


def _namespace(fields: dict[str, object], scope: Scope) -> Namespace:
    kind = _enum(NamespaceKind, fields["kind"])
    _check(kind in SCOPE_RULES[scope].namespace_kinds)
    return Namespace(kind=kind, id=_identifier(fields["id"]), label=_label(fields["label"]))


def _collection(fields: dict[str, object] | None) -> Collection | None:
    if fields is None:
        return None
    return Collection(id=_identifier(fields["id"]), label=_label(fields["label"]))


class _Setting(NamedTuple):
    """Where a version 2 record belongs and how it came: the values that come back record
    after record."""

    scope: Scope
    kind: MemoryKind
    namespace: Namespace
    collection: Collection | None
    language: str
    origin: Origin
    recorded_via: RecordedVia
    state: LifecycleState


def _setting(
    obj: dict[str, object], provenance: dict[str, object], lifecycle: dict[str, object]
) -> _Setting:
    """The checked setting of a version 2 record, made once for the values its file gives
    (kept in _settings)."""
    namespace = _fields(obj["namespace"], _NAMESPACE_SET)
    collection = obj["collection"]
    place: tuple[object, ...] = (namespace["kind"], namespace["id"], namespace["label"])
    if collection is not None:
        collection = _fields(collection, _COLLECTION_SET)
        place += (collection["id"], collection["label"])  # a longer key: no null one equals it
    scope, kind, language = obj["scope"], obj["kind"], obj["language"]
    origin, state = provenance["origin"], lifecycle["state"]
    key = (scope, kind, language, origin, provenance["recorded_via"], state, *place)
    found = _known(_settings, key)
    if found is None:
        valid_scope, valid_kind = _pair(_SCOPE_KINDS, scope, kind)
        found = _Setting(
            valid_scope,
            valid_kind,
            _namespace(namespace, valid_scope),
            _collection(collection),
            _valid(normalize_language(language)),
            *_pair(_PROVENANCES, origin, provenance["recorded_via"]),
            _enum(LifecycleState, state),
        )
        _keep(_settings, key, found)
    return found


# The settings of valid records, by the values their files give: the same few come back
# record after record, so each is checked and made once (at most _PARTS_KEPT of them). A
# valid key holds only strings and None, which nothing else equals, so a value that
# breaks a rule never finds one.
_PARTS_KEPT: Final = 4096
_settings: dict[tuple[object, ...], _Setting] = {}
# Valid tags that are their own normalized form, with their casefolded forms.
_tag_folds: dict[str, str] = {}


def _known(kept: dict[tuple[object, ...], _T], key: tuple[object, ...]) -> _T | None:
    try:
        return kept.get(key)
    except TypeError:  # a list or an object among the values: unhashable, and invalid
        return None


def _keep(kept: dict[tuple[object, ...], _T], key: tuple[object, ...], value: _T) -> None:
    if len(kept) >= _PARTS_KEPT:
        kept.clear()
    kept[key] = value


def _revision(value: object) -> int:
    # ``type(...) is int`` keeps out bool (true) and float (1.0).
    if not isinstance(value, int) or type(value) is not int or value < 1:
        _invalid()
    return value


def _parse_v2(obj: dict[str, object]) -> CanonicalRecord:
    is_event = obj.get("kind") == MemoryKind.EVENT.value
    _check(obj.keys() == (_V2_EVENT_KEYS if is_event else _V2_KEYS))
    record_id = obj["id"]
    if not isinstance(record_id, str) or CANONICAL_ID_RE.fullmatch(record_id) is None:
        _invalid()
    lifecycle = _fields(obj["lifecycle"], _LIFECYCLE_SET)
    setting = _setting(obj, _fields(obj["provenance"], _PROVENANCE_SET), lifecycle)
    created_at = _valid(parse_timestamp(obj["created_at"]))
    updated_at = _valid(parse_timestamp(obj["updated_at"]))
    # Canonical timestamps are fixed-width ASCII, so string order is time order.
    _check(updated_at >= created_at)
    title = obj["title"]
    return CanonicalRecord(
        id=record_id,
        scope=setting.scope,
        namespace=setting.namespace,
        collection=setting.collection,
        kind=setting.kind,
        language=setting.language,
        title=None if title is None else _valid(normalize_text(title, TITLE_LIMIT)),
        content=_valid(normalize_text(obj["content"], CONTENT_LIMIT)),
        tags=_tags(obj["tags"]),
        origin=setting.origin,
        recorded_via=setting.recorded_via,
        state=setting.state,
        revision=_revision(lifecycle["revision"]),
        created_at=created_at,
        updated_at=updated_at,
        occurred_at=_valid(parse_timestamp(obj[_OCCURRED_AT])) if is_event else None,
    )


# The pairs of values a version 2 file may give, by those values: a scope with a kind of
# memory it holds, an origin with a way of recording.
_SCOPE_KINDS: Final[dict[tuple[object, object], tuple[Scope, MemoryKind]]] = {
    (scope.value, kind.value): (scope, kind)
    for scope, rule in SCOPE_RULES.items()
    for kind in rule.memory_kinds
}
_PROVENANCES: Final[dict[tuple[object, object], tuple[Origin, RecordedVia]]] = {
    (origin.value, via.value): (origin, via) for origin in Origin for via in RecordedVia
}


def _pair(pairs: dict[tuple[object, object], _P], first: object, second: object) -> _P:
    try:
        return pairs[first, second]  # only strings equal a key's values
    except (KeyError, TypeError):  # TypeError: a list or an object, unhashable (and invalid)
        _invalid()


def _tags(value: object) -> tuple[str, ...]:
    """A version 2 record's tags, normalized (``normalize_tags``).

    The same few tags come back record after record, most of them already in their form:
    those are kept with their casefolded forms (at most _PARTS_KEPT), and a list of them
    only needs its casefolded forms to differ.
    """
    try:
        folded = set(map(_tag_folds.__getitem__, value))  # type: ignore[call-overload]
    except (KeyError, TypeError):  # a tag not met in its form yet, or not a list of strings
        tags = _valid(normalize_tags(value))
        if len(_tag_folds) >= _PARTS_KEPT:
            _tag_folds.clear()
        if isinstance(value, list | tuple):  # it is, being valid
            pairs = zip(tags, value, strict=True)
            _tag_folds.update((tag, tag.casefold()) for tag, item in pairs if tag == item)
        return tags
    # Every item is a valid tag in its form: the rest of normalize_tags's rule.
    if not isinstance(value, list | tuple) or len(value) > MAX_TAGS or len(folded) != len(value):
        _invalid()
    return tuple(value)


def duplicate_key(memory: CanonicalRecord) -> tuple[object, ...]:
    """What two memories must share to be the same memory (``memory_remember``'s rule).

    Language, labels and origin are left out; tags count as a set, ignoring order and case.
    """
    return (
        memory.scope,
        memory.namespace.kind,
        memory.namespace.id,
        memory.collection_id,
        memory.kind,
        memory.occurred_at,
        memory.title,
        memory.content,
        tuple(sorted(tag.casefold() for tag in memory.tags)),
    )


def duplicate_hash(memory: CanonicalRecord) -> int:
    """A hash that memories equal by :func:`duplicate_key` share, the same in every process
    (records are also read in worker processes, where ``hash`` differs): a CRC-32 of the
    title and content only, so memories that differ in nothing else share it too and are
    told apart by comparing their keys."""
    text = f"{memory.title}\x00{memory.content}"
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


# --- canonical output --------------------------------------------------------------------


def canonical_relative_parts(
    scope: Scope | str, namespace_id: str, collection_id: str | None, memory_id: str
) -> tuple[str, ...]:
    """Root-relative path parts of a v2 record, e.g. ``("project", "demo", "mem_….json")``."""
    scope_name = scope.value if isinstance(scope, Scope) else scope
    directories = (scope_name, namespace_id) + (() if collection_id is None else (collection_id,))
    return (*directories, memory_id + RECORD_SUFFIX)


def _collection_dict(collection: Collection | None) -> dict[str, object] | None:
    if collection is None:
        return None
    return {"id": collection.id, "label": collection.label}


def canonical_record_dict(record: CanonicalRecord) -> dict[str, object]:
    """The record as plain JSON values, keys in canonical file order."""
    data: dict[str, object] = {
        "schema_version": CANONICAL_VERSION,
        "id": record.id,
        "scope": record.scope.value,
        "namespace": {
            "kind": record.namespace.kind.value,
            "id": record.namespace.id,
            "label": record.namespace.label,
        },
        "collection": _collection_dict(record.collection),
        "kind": record.kind.value,
        "language": record.language,
        "title": record.title,
        "content": record.content,
        "tags": list(record.tags),
        "provenance": {"origin": record.origin.value, "recorded_via": record.recorded_via.value},
        "lifecycle": {"state": record.state.value, "revision": record.revision},
        "created_at": record.created_at,
        "updated_at": record.updated_at,
    }
    if record.kind is MemoryKind.EVENT:
        data[_OCCURRED_AT] = record.occurred_at
    return data


def legacy_record_dict(record: LegacyRecord) -> dict[str, object]:
    """A version 1 record as plain JSON values: the keys its file has, values verbatim.

    The order is ``schema_version``, ``id``, the optional keys in the order the file had
    them, then ``content``; parsing it gives back the same record.
    """
    data: dict[str, object] = {"schema_version": LEGACY_VERSION, "id": record.id}
    for key in record.field_order:
        data[key] = record.title if key == "title" else list(record.tags)
    data["content"] = record.content
    return data


def _file_bytes(data: dict[str, object]) -> bytes:
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise RecordInvalid(INVALID_ENCODING) from exc


def serialize_canonical(record: CanonicalRecord) -> bytes:
    """The exact bytes of a canonical record file (UTF-8, indent 2, trailing newline).

    Raises :class:`RecordInvalid` (``invalid_encoding``) when a value holds a lone
    surrogate, which UTF-8 cannot represent.
    """
    return _file_bytes(canonical_record_dict(record))


def serialize_record(record: Record) -> bytes:
    """The file bytes of either version, written like :func:`serialize_canonical`."""
    if isinstance(record, CanonicalRecord):
        return serialize_canonical(record)
    return _file_bytes(legacy_record_dict(record))
