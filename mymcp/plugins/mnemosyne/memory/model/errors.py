"""Errors of the memory domain.

Every failure a Tool can report is one of these. The status and code are stable wire
values; the message a client reads is chosen by the Tool adapter (the same code reads
differently per Tool), unless the error carries a fixed one.

    MnemosyneError
     ├── InvalidRequest          invalid_request   (code and field vary)
     │    └── UnexpectedArgument                   the Tool's code; field names the argument
     ├── ContentRefused          refused           disallowed_content (+ field, reason)
     ├── MutationDisabled        policy_error      mutation_disabled
     ├── NotFound                not_found         not_found
     ├── Conflict                conflict          revision_conflict, write_conflict, not_archived,
     │                                             ambiguous_reference, stale_cursor
     ├── OutcomeUncertain        uncertain         replacement_outcome_uncertain,
     │                                             deletion_outcome_uncertain
     └── StorageError            storage_error
          ├── SourceUnavailable                    memory_source_unavailable
          │    └── RecordChanged                   (a record's file changed under a read)
          └── CandidateLimitExceeded               candidate_limit_exceeded

A storage failure or an uncertain outcome that the store reports carries a
:class:`~mymcp.plugins.mnemosyne.memory.model.faults.Fault` (its cause, errno name and directory)
for the Tool's log line; the answer never shows it.
"""

from __future__ import annotations

import re
from typing import ClassVar, Final

from mymcp.plugins.mnemosyne.memory.model.faults import Fault

UNEXPECTED: Final = "unexpected argument"
# The argument names an answer may repeat: short words of ASCII letters, digits, ``_``, ``.``
# and ``-``, as Tool property names are.
SHOWN_NAME: Final = re.compile(r"[A-Za-z0-9_.-]{1,64}")


class MnemosyneError(Exception):
    """Base of every domain error; never carries user content."""

    status: ClassVar[str] = "internal_error"
    default_code: ClassVar[str] = "internal_error"
    # Set by the store on storage failures and uncertain outcomes (memory/storage/store.py).
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

    @property
    def log_field(self) -> str | None:
        """The ``field`` the Tool's log event may show."""
        return self.field


class InvalidRequest(MnemosyneError):
    status = "invalid_request"
    default_code = "invalid_request"


class UnexpectedArgument(InvalidRequest):
    """An argument the Tool does not take: ``field`` and the message name it.

    ``code`` is what the Tool's contract reports for a key it does not take, and
    ``contract_field`` the field it names there; the log shows that field, never a name a
    client chose. A name that is not a plain word (:data:`SHOWN_NAME`) is not echoed:
    ``field`` is then ``contract_field`` and the message names no argument.
    """

    def __init__(self, code: str, name: str, *, contract_field: str) -> None:
        shown = name if isinstance(name, str) and SHOWN_NAME.fullmatch(name) else None
        super().__init__(
            code,
            field=shown or contract_field,
            message=f"{UNEXPECTED}: {shown}" if shown else UNEXPECTED,
        )
        self.contract_field = contract_field

    @property
    def log_field(self) -> str | None:
        return self.contract_field


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


class RecordChanged(SourceUnavailable):
    """A record's file changed or went away between the scan that found it and the moment
    its whole record was read again; a read that meets it may start over once."""


class CandidateLimitExceeded(StorageError):
    """More record files than the candidate limit; ``limit`` is the limit that was passed."""

    default_code = "candidate_limit_exceeded"

    def __init__(self, *, limit: int) -> None:
        super().__init__()
        self.limit = limit
