"""Errors of the memory domain.

Every failure a Tool can report is one of these. The status and code are stable wire
values; the message a client reads is chosen by the Tool adapter (the same code reads
differently per Tool), unless the error carries a fixed one.

    MnemosyneError
     ├── InvalidRequest          invalid_request   (code and field vary)
     ├── ContentRefused          refused           disallowed_content (+ field, reason)
     ├── MutationDisabled        policy_error      mutation_disabled
     ├── NotFound                not_found         not_found
     ├── Conflict                conflict          revision_conflict, write_conflict, not_archived,
     │                                             ambiguous_reference, stale_cursor
     ├── OutcomeUncertain        uncertain         replacement_outcome_uncertain,
     │                                             deletion_outcome_uncertain
     └── StorageError            storage_error
          ├── SourceUnavailable                    memory_source_unavailable
          └── CandidateLimitExceeded               candidate_limit_exceeded

A storage failure or an uncertain outcome that the store reports carries a
:class:`~mymcp.plugins.mnemosyne.memory.faults.Fault` (its cause, errno name and directory)
for the Tool's log line; the answer never shows it.
"""

from __future__ import annotations

from typing import ClassVar

from mymcp.plugins.mnemosyne.memory.faults import Fault


class MnemosyneError(Exception):
    """Base of every domain error; never carries user content."""

    status: ClassVar[str] = "internal_error"
    default_code: ClassVar[str] = "internal_error"
    # Set by the store on storage failures and uncertain outcomes (memory/store.py).
    fault: Fault | None = None

    def __init__(
        self,
        code: str | None = None,
        *,
        field: str | None = None,
        reason: str | None = None,
        message: str | None = None,
    ) -> None:
        self.code = code or self.default_code
        self.field = field
        self.reason = reason
        self.message = message
        super().__init__(self.code)


class InvalidRequest(MnemosyneError):
    status = "invalid_request"
    default_code = "invalid_request"


class ContentRefused(MnemosyneError):
    status = "refused"
    default_code = "disallowed_content"


class MutationDisabled(MnemosyneError):
    status = "policy_error"
    default_code = "mutation_disabled"


class NotFound(MnemosyneError):
    status = "not_found"
    default_code = "not_found"


class Conflict(MnemosyneError):
    status = "conflict"
    default_code = "write_conflict"


class OutcomeUncertain(MnemosyneError):
    status = "uncertain"
    default_code = "replacement_outcome_uncertain"


class StorageError(MnemosyneError):
    status = "storage_error"
    default_code = "memory_source_unavailable"


class SourceUnavailable(StorageError):
    default_code = "memory_source_unavailable"


class CandidateLimitExceeded(StorageError):
    default_code = "candidate_limit_exceeded"
