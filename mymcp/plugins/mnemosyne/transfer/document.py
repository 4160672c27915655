"""MyMCP's own export: one versioned JSON document, written from a snapshot and read back.

Format version 1 (``docs/EXPORT_AND_IMPORT.md`` describes it for people)::

    {"format": "mymcp-notebook", "format_version": 1, "exported_at": "<timestamp>",
     "scopes": [<the scopes exported>],
     "records": [{"reference": {...}, "path": "<root-relative path>", "record": {...}}, ...],
     "skipped": [{"path": "<root-relative path>", "reason": "<why>"}, ...]}

A record appears as the record parser reads it: a version 2 record with normalized values
in file key order, a version 1 record with its values exactly as written. ``reference`` is
the reference the Tools use for it. Reading checks every field: a document of another
format or version, or with a field this version does not define, is refused as a whole;
one entry that breaks a rule is reported and the others are imported.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from mymcp.plugins.mnemosyne.memory.model.errors import InvalidRequest
from mymcp.plugins.mnemosyne.memory.model.records import (
    CanonicalRecord,
    RecordInvalid,
    canonical_record_dict,
    legacy_record_dict,
    parse_record_object,
    unknown_field,
)
from mymcp.plugins.mnemosyne.memory.model.references import parse_reference, reference_dict
from mymcp.plugins.mnemosyne.memory.model.values import parse_timestamp
from mymcp.plugins.mnemosyne.memory.model.vocabulary import Scope
from mymcp.plugins.mnemosyne.memory.storage import files
from mymcp.plugins.mnemosyne.memory.storage.scan import SCOPE_DEPTH, record_parts
from mymcp.plugins.mnemosyne.transfer.importer import Entry, Incoming, Kind, Line
from mymcp.plugins.mnemosyne.transfer.snapshot import Snapshot
from mymcp.plugins.mnemosyne.transfer.source import (
    SourceRefused,
    field_problem,
    json_of,
    shown,
    text_of,
)

__all__ = ["FORMAT", "FORMAT_VERSION", "build_document", "encode_document", "read_document"]

FORMAT = "mymcp-notebook"
FORMAT_VERSION = 1

_TOP_FIELDS = ("format", "format_version", "exported_at", "scopes", "records", "skipped")
_ENTRY_FIELDS = ("reference", "path", "record")
_MAX_NAME_BYTES = 255  # the longest file or folder name most filesystems take


def build_document(
    snapshot: Snapshot, *, scopes: Sequence[Scope], exported_at: str
) -> dict[str, object]:
    """The export document of ``snapshot``, whose records are those of ``scopes``."""
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "exported_at": exported_at,
        "scopes": [str(scope) for scope in scopes],
        "records": [
            {
                "reference": reference_dict(found.record, found.scope),
                "path": found.path,
                "record": (
                    canonical_record_dict(found.record)
                    if isinstance(found.record, CanonicalRecord)
                    else legacy_record_dict(found.record)
                ),
            }
            for found in snapshot.records
        ],
        "skipped": [{"path": entry.path, "reason": entry.reason} for entry in snapshot.skipped],
    }


def encode_document(document: dict[str, object]) -> str:
    """The document as UTF-8-ready text: indent 2, non-ASCII kept, a final newline."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


# --- reading -------------------------------------------------------------------------------


def read_document(data: bytes) -> tuple[list[Entry], int]:
    """The entries of an export, and how many skipped files it names.

    Raises :class:`SourceRefused` for a file that is not a format version 1 export.
    """
    text = text_of(data)
    try:
        document = json_of(text)
    except SourceRefused as refused:
        if _looks_like_json_lines(text):
            refused.hint = _SERVER_MEMORY_HINT
        raise
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise SourceRefused(
            f'not a MyMCP export (it has no "format": "{FORMAT}")', _SERVER_MEMORY_HINT
        )
    _check_top(document)
    scopes = {Scope(name) for name in document["scopes"]}
    entries = list(_entries(document["records"], scopes))
    return entries, len(document["skipped"])


_SERVER_MEMORY_HINT = "for the official memory server's memory.jsonl, add --format server-memory"


def _looks_like_json_lines(text: str) -> bool:
    """Whether the first line alone is an entity or relation of the official memory server."""
    first = text.lstrip().partition("\n")[0]
    try:
        value = json_of(first)
    except SourceRefused:
        return False
    return isinstance(value, dict) and value.get("type") in ("entity", "relation")


def _check_top(document: dict[str, Any]) -> None:
    version = document.get("format_version")
    if type(version) is not int or version != FORMAT_VERSION:
        shown = f"format version {version}" if type(version) is int else "an unknown format version"
        raise SourceRefused(
            f"a MyMCP export of {shown}, which this MyMCP cannot read "
            f"(it reads version {FORMAT_VERSION})",
            "import it with the MyMCP that exported it, or a newer one",
        )
    problem = field_problem(document, _TOP_FIELDS)
    if problem is not None:
        raise SourceRefused(f"{problem} at the top of the document")
    if parse_timestamp(document["exported_at"]) is None:
        raise SourceRefused("exported_at is not a timestamp like 2026-01-31T12:00:00Z")
    scopes = document["scopes"]
    known = {str(scope) for scope in Scope}
    if not isinstance(scopes, list) or not all(name in known for name in scopes):
        raise SourceRefused("scopes is not a list of scope names")
    if not isinstance(document["records"], list):
        raise SourceRefused("records is not a list")
    skipped = document["skipped"]
    if not isinstance(skipped, list) or not all(_is_skip(entry) for entry in skipped):
        raise SourceRefused("skipped is not a list of objects with a path and a reason")


def _is_skip(entry: object) -> bool:
    return (
        isinstance(entry, dict)
        and entry.keys() == {"path", "reason"}
        and all(isinstance(value, str) for value in entry.values())
    )


def _entries(records: list[object], scopes: set[Scope]) -> Iterator[Entry]:
    for index, value in enumerate(records, start=1):
        where = f"record {index}"
        try:
            yield _entry(where, value, scopes)
        except _Broken as broken:
            yield Line(Kind.INVALID, where, str(broken))


class _Broken(Exception):
    """An entry that breaks a rule; the text says which, never with a value."""


def _entry(where: str, value: object, scopes: set[Scope]) -> Incoming:
    if not isinstance(value, dict):
        raise _Broken("not a JSON object")
    problem = field_problem(value, _ENTRY_FIELDS)
    if problem is not None:
        raise _Broken(problem)
    field = unknown_field(value["record"])
    if field is not None:
        raise _Broken(f"unknown field {shown('record.' + field)}")
    try:
        reference = parse_reference(value["reference"], legacy=True)
        record = parse_record_object(value["record"])
    except InvalidRequest:
        raise _Broken("its reference is not a memory reference") from None
    except RecordInvalid:
        raise _Broken("its record breaks a rule of its schema_version") from None
    if reference.scope not in scopes:
        raise _Broken(f"its scope {reference.scope} is not among the exported scopes")
    if reference_dict(record, reference.scope) != reference.as_dict():
        raise _Broken("its reference does not name its record")
    parts = _path_parts(value["path"], reference.scope)
    if isinstance(record, CanonicalRecord) and record_parts(record) != parts:
        raise _Broken("its path is not where its scope, namespace, collection and id place it")
    return Incoming(where, record, parts)


def _path_parts(path: object, scope: Scope) -> tuple[str, ...]:
    """The parts of a root-relative record path: in the scope, at most as deep as recall reads."""
    if not isinstance(path, str):
        raise _Broken("its path is not a string")
    parts = tuple(path.split("/"))
    if parts[0] != str(scope) or not 2 <= len(parts) <= SCOPE_DEPTH + 2:
        raise _Broken("its path is not a record file of its scope, at most four folders deep")
    if not files.is_candidate_name(parts[-1]) or not all(map(_plain_name, parts)):
        raise _Broken("its path is not a record file of its scope, at most four folders deep")
    return parts


def _plain_name(name: str) -> bool:
    if name in ("", ".", "..") or "\0" in name:
        return False
    try:
        return len(name.encode("utf-8")) <= _MAX_NAME_BYTES
    except UnicodeEncodeError:
        return False
