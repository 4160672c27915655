"""Why the filesystem failed, in the words an operator can act on.

One table maps an ``OSError``'s errno to a *cause*: ``no_space`` (the disk or a quota is
full, of bytes or of inodes), ``read_only`` (a read-only mount), ``permission``,
``io_error`` (the device reports a failure), ``too_many_open_files``, and ``other`` for
everything else. The store attaches a :class:`Fault` to each storage failure it reports,
and the doctor names the same causes.

A fault is logged as bounded metadata only: the cause, the errno's symbolic name and the
directory below the memory root, built from the scope and from namespace and collection
IDs. Never exception text, file names or anything a record holds.
"""

from __future__ import annotations

import errno
from dataclasses import dataclass

from mymcp.plugins.mnemosyne.memory.model.values import is_identifier
from mymcp.plugins.mnemosyne.memory.model.vocabulary import Scope

__all__ = [
    "CAUSES",
    "IO_ERROR",
    "NO_SPACE",
    "OTHER",
    "PERMISSION",
    "READ_ONLY",
    "TOO_MANY_OPEN_FILES",
    "Fault",
    "cause_of",
    "fault_of",
]

NO_SPACE = "no_space"
READ_ONLY = "read_only"
PERMISSION = "permission"
IO_ERROR = "io_error"
TOO_MANY_OPEN_FILES = "too_many_open_files"
OTHER = "other"

# The one mapping from errno to cause; an errno missing here is ``other``.
CAUSES: dict[int, str] = {
    errno.ENOSPC: NO_SPACE,
    errno.EDQUOT: NO_SPACE,
    errno.EROFS: READ_ONLY,
    errno.EACCES: PERMISSION,
    errno.EPERM: PERMISSION,
    errno.EIO: IO_ERROR,
    errno.EMFILE: TOO_MANY_OPEN_FILES,
    errno.ENFILE: TOO_MANY_OPEN_FILES,
}

_SCOPES = frozenset(str(scope) for scope in Scope)
_CHAIN_LIMIT = 8  # exceptions followed back through __cause__ / __context__


def cause_of(number: int | None) -> str:
    """The cause of an errno (None, an error without one, is ``other``)."""
    return CAUSES.get(number, OTHER) if number is not None else OTHER


@dataclass(frozen=True, slots=True)
class Fault:
    """What failed, for the log: a cause, the errno's name when known, and where."""

    cause: str
    errno_name: str | None
    directory: tuple[str, ...]  # below the memory root; () is the root itself

    def log_fields(self) -> dict[str, str]:
        """``cause``, then ``errno`` and ``directory`` when they can be shown."""
        fields = {"cause": self.cause}
        if self.errno_name is not None:
            fields["errno"] = self.errno_name
        shown = _shown_directory(self.directory)
        if shown is not None:
            fields["directory"] = shown
        return fields


def fault_of(error: BaseException, directory: tuple[str, ...]) -> Fault:
    """The fault behind ``error``: the first ``OSError`` it is or was raised from."""
    found = _first_os_error(error)
    number = None if found is None else found.errno
    name = None if number is None else errno.errorcode.get(number)
    return Fault(cause_of(number), name, directory)


def _first_os_error(error: BaseException) -> OSError | None:
    current: BaseException | None = error
    for _ in range(_CHAIN_LIMIT):
        if current is None:
            return None
        if isinstance(current, OSError):
            return current
        current = current.__cause__ or current.__context__
    return None


def _shown_directory(parts: tuple[str, ...]) -> str | None:
    """``scope/namespace/collection``, ``.`` for the root; None when a name is no ID.

    Only a scope followed by namespace and collection IDs is shown: any other folder name
    (a hand-made folder of version 1 records) is unbounded text and stays out of the log.
    """
    if not parts:
        return "."
    if parts[0] not in _SCOPES or not all(is_identifier(name) for name in parts[1:]):
        return None
    return "/".join(parts)
