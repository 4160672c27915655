"""The write protocol of one record file, run by the store under the root's lock.

A record is serialized and checked first (:func:`encode_record`). Then, in its open
directory, it is either published as a new file that can never replace an existing one
(:func:`publish`), swapped in for a file whose bytes are still those that were read
(:func:`swap`), or such a file is removed (:func:`remove`). Each first removes the temporary
files that earlier, interrupted writes left in the directory. New bytes always go to a
hidden temporary file, made durable before it becomes visible, and every change is
followed by an ``fsync`` of the directory.

A changed file raises :class:`Conflict`, an unconfirmed change :class:`OutcomeUncertain`;
any other filesystem failure propagates as ``OSError`` for the store to map.
"""

from __future__ import annotations

import hashlib

from mymcp.plugins.mnemosyne.memory.model.errors import (
    Conflict,
    InvalidRequest,
    MnemosyneError,
    OutcomeUncertain,
    SourceUnavailable,
)
from mymcp.plugins.mnemosyne.memory.model.records import (
    CanonicalRecord,
    Record,
    RecordInvalid,
    parse_record_bytes,
    serialize_record,
)
from mymcp.plugins.mnemosyne.memory.storage import files

__all__ = ["check_replacement", "encode_record", "publish", "remove", "swap"]


def encode_record(record: Record, *, field: str = "memory") -> bytes:
    """The file bytes of ``record``, checked to parse back unchanged and to fit the limit.

    Raises :class:`InvalidRequest` (``invalid_record`` with the given field) otherwise.
    """
    try:
        payload = serialize_record(record)
        if len(payload) <= files.MAX_RECORD_BYTES and parse_record_bytes(payload) == record:
            return payload
    except RecordInvalid:
        pass
    raise InvalidRequest("invalid_record", field=field)


def check_replacement(
    expected: CanonicalRecord, on_disk: CanonicalRecord, new: CanonicalRecord
) -> None:
    """``new`` may follow ``on_disk`` only as the next revision of ``expected``, same identity."""
    if on_disk.revision != expected.revision or new.revision != expected.revision + 1:
        raise Conflict("revision_conflict")
    if _immutable(on_disk) != _immutable(new):
        raise Conflict("write_conflict")


def _immutable(record: CanonicalRecord) -> tuple[object, ...]:
    return (
        record.id,
        record.scope,
        record.namespace.kind,
        record.namespace.id,
        record.collection_id,
        record.kind,
        record.language,
        record.origin,
        record.recorded_via,
        record.created_at,
        record.occurred_at,
    )


def publish(dir_fd: int, memory_id: str, name: str, payload: bytes) -> None:
    """Make ``payload`` the new file ``name``; an existing file is a :class:`Conflict`."""
    files.remove_leftover_temps(dir_fd)
    temp = files.write_temp(dir_fd, memory_id, payload)
    try:
        try:
            files.link_no_clobber(dir_fd, temp, name)
        except FileExistsError as exc:
            raise Conflict("write_conflict") from exc
        # A failed sync leaves the record visible; remember has no "uncertain" outcome.
        files.sync_directory(dir_fd)
    finally:
        files.remove_quietly(dir_fd, temp)


def swap(dir_fd: int, memory_id: str, name: str, payload: bytes, digest: str) -> None:
    """Replace the file ``name``, which must still hash to ``digest``, by ``payload``."""
    files.remove_leftover_temps(dir_fd)
    temp = files.write_temp(dir_fd, memory_id, payload)
    try:
        _require_unchanged(dir_fd, name, digest, unreadable=SourceUnavailable)
        files.rename_over(dir_fd, temp, name)
        try:
            files.sync_directory(dir_fd)
        except OSError as exc:
            raise OutcomeUncertain("replacement_outcome_uncertain") from exc
    finally:
        files.remove_quietly(dir_fd, temp)


def remove(dir_fd: int, name: str, digest: str) -> None:
    """Remove the file ``name``, which must still hash to ``digest``."""
    files.remove_leftover_temps(dir_fd)
    if files.is_symlink(files.lstat_at(dir_fd, name)):
        raise files.SymlinkRefused()
    _require_unchanged(dir_fd, name, digest, unreadable=Conflict)
    try:
        files.unlink(dir_fd, name)
    except FileNotFoundError as exc:
        raise Conflict("write_conflict") from exc
    try:
        files.sync_directory(dir_fd)
    except OSError as exc:
        raise OutcomeUncertain("deletion_outcome_uncertain") from exc


def _require_unchanged(
    dir_fd: int, name: str, digest: str, *, unreadable: type[MnemosyneError]
) -> None:
    """A :class:`Conflict` unless ``name`` still holds the bytes that hash to ``digest``."""
    try:
        on_disk = files.read_file_at(dir_fd, name)
    except files.EntrySkipped as exc:
        raise unreadable() from exc
    if hashlib.sha256(on_disk.data).hexdigest() != digest:
        raise Conflict("write_conflict")
