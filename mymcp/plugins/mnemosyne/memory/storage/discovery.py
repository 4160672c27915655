"""Discovery: which record files lie below a directory, in the order a scan reports them.

A walk goes depth first with the names of each directory in code point order, never
follows a symlink (it reports one as skipped), stops at the given depth and counts every
record file (a regular file whose last suffix is ``.json``) against the candidate limit.
It takes each file's ``lstat`` identity and reads nothing. Counting does the same without
stat-ing a single file, for the bound a write checks before it searches.

Filesystem failures propagate as ``OSError``; going past the limit raises
:class:`CandidateLimitExceeded`.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import NamedTuple

from mymcp.plugins.mnemosyne.memory.model.errors import CandidateLimitExceeded
from mymcp.plugins.mnemosyne.memory.storage import files

__all__ = [
    "CANDIDATE",
    "DIRECTORY",
    "TOO_DEEP",
    "Candidate",
    "Entries",
    "count_candidates",
    "list_entries",
    "summarize",
    "walk",
]

TOO_DEEP = "too_deep"  # skip reason of a directory beyond the depth

# What an entry of a directory is to a walk: one of these, or a skip reason.
CANDIDATE = "candidate"
DIRECTORY = "directory"

# The relevant entries of one directory in name order: (name, kind).
Entries = tuple[tuple[str, str], ...]


class Candidate(NamedTuple):
    """A record file found by a walk (a named tuple: walks create one per file)."""

    parts: tuple[str, ...]  # relative to the walk's start directory
    identity: files.Identity | None  # taken without following links; None if that failed


# Builds a Candidate from (parts, identity) without the Python-level __new__.
_new_candidate = functools.partial(tuple.__new__, Candidate)


def list_entries(fd: int) -> Entries:
    """List a directory: its candidates, subdirectories and skipped entries, by name."""
    return tuple(
        (entry.name, kind)
        for entry in files.list_directory(fd)
        if (kind := _classify(entry)) is not None
    )


def _classify(entry: os.DirEntry[str]) -> str | None:
    # Without following links, a symlink is neither a file nor a directory; the common
    # case (a regular file) is decided by the first test.
    try:
        if entry.is_file(follow_symlinks=False):
            return CANDIDATE if files.is_candidate_name(entry.name) else None
        if entry.is_dir(follow_symlinks=False):
            return DIRECTORY
        if entry.is_symlink():
            return files.SYMLINK
    except OSError:
        return files.UNREADABLE
    return None


def walk(
    start_fd: int,
    max_depth: int,
    *,
    report_too_deep: bool,
    on_skip: Callable[[str], None] | None = None,
    limit: int = files.MAX_CANDIDATES,
    entries_of: Callable[[int], Entries] = list_entries,
    on_directory: Callable[[int, tuple[str, ...]], None] | None = None,
    on_skip_at: Callable[[str, tuple[str, ...]], None] | None = None,
    identities: bool = True,
) -> list[Candidate]:
    """All candidates below ``start_fd`` in discovery order.

    Without ``identities`` no file is stat-ed: every candidate's identity is None (for a
    caller about to read every file, which takes the identity of what it reads).

    Symlinks, and directories beyond ``max_depth`` when ``report_too_deep``, are reported
    as they are met: to ``on_skip`` by their reason, to ``on_skip_at`` by the reason and
    the skipped entry's parts. ``entries_of`` lists a directory (a cache may answer instead
    of the filesystem); ``on_directory`` is called with each visited directory's
    descriptor and parts before it is listed.
    """

    def skip(reason: str, parts: tuple[str, ...]) -> None:
        if on_skip is not None:
            on_skip(reason)
        if on_skip_at is not None:
            on_skip_at(reason, parts)

    walker = _Walker(max_depth, report_too_deep, skip, limit, entries_of, on_directory)
    walker.identities = identities
    walker.visit(start_fd, (), 0)
    return walker.candidates


class _Walker:
    def __init__(
        self,
        max_depth: int,
        report_too_deep: bool,
        on_skip: Callable[[str, tuple[str, ...]], None],
        limit: int,
        entries_of: Callable[[int], Entries],
        on_directory: Callable[[int, tuple[str, ...]], None] | None,
    ) -> None:
        self.max_depth = max_depth
        self.report_too_deep = report_too_deep
        self.on_skip = on_skip
        self.limit = limit
        self.entries_of = entries_of
        self.on_directory = on_directory
        self.candidates: list[Candidate] = []
        self.identities = True

    def visit(self, fd: int, prefix: tuple[str, ...], depth: int) -> None:
        if self.on_directory is not None:
            self.on_directory(fd, prefix)
        for name, kind in self.entries_of(fd):
            if kind is CANDIDATE:
                self._add(fd, name, prefix)
            elif kind is DIRECTORY:
                self._enter(fd, name, prefix, depth)
            else:
                self.on_skip(kind, (*prefix, name))

    def _enter(self, fd: int, name: str, prefix: tuple[str, ...], depth: int) -> None:
        if depth >= self.max_depth:
            if self.report_too_deep:
                self.on_skip(TOO_DEEP, (*prefix, name))
            return
        try:
            child = files.open_subdirectory(fd, name)
        except files.SymlinkRefused:
            self.on_skip(files.SYMLINK, (*prefix, name))
            return
        with files.closing_fd(child):
            self.visit(child, (*prefix, name), depth + 1)

    def _add(self, fd: int, name: str, prefix: tuple[str, ...]) -> None:
        # Runs once per file on every walk.
        candidates = self.candidates
        if len(candidates) >= self.limit:
            raise CandidateLimitExceeded(limit=self.limit)
        identity = _identity(fd, name) if self.identities else None
        candidates.append(_new_candidate(((*prefix, name), identity)))


def _identity(fd: int, name: str) -> files.Identity | None:
    try:
        status = files.lstat_at(fd, name)
    except OSError:
        return None
    return None if status is None else files.identity_of(status)


# What counting needs of one directory: its candidates, and its subdirectories by name.
Summary = tuple[int, tuple[str, ...]]


def summarize(entries: Entries) -> Summary:
    """The candidates and the subdirectories of a listed directory."""
    count = sum(1 for _, kind in entries if kind is CANDIDATE)
    return count, tuple(name for name, kind in entries if kind is DIRECTORY)


def _listed_summary(fd: int) -> Summary:
    return summarize(list_entries(fd))


def count_candidates(
    fd: int,
    max_depth: int,
    limit: int = files.MAX_CANDIDATES,
    summary_of: Callable[[int], Summary] = _listed_summary,
) -> int:
    """Candidates below ``fd`` as a walk would find them, without stat-ing or reading any.

    Symlinks are never followed; raises :class:`CandidateLimitExceeded` once over ``limit``.
    ``summary_of`` sums a directory up (a cache of listings may answer instead).
    """
    try:
        return _count_candidates(fd, 0, max_depth, limit, summary_of)
    except _OverBudget:
        raise CandidateLimitExceeded(limit=limit) from None


class _OverBudget(Exception):
    """A count went past what was left of the limit."""


def _count_candidates(
    fd: int, depth: int, max_depth: int, budget: int, summary_of: Callable[[int], Summary]
) -> int:
    count, subdirectories = summary_of(fd)
    if count > budget:
        raise _OverBudget()
    for name in subdirectories if depth < max_depth else ():
        try:
            child = files.open_subdirectory(fd, name)
        except files.SymlinkRefused:
            continue  # replaced by a symlink since it was listed: skipped like any symlink
        with files.closing_fd(child):
            count += _count_candidates(child, depth + 1, max_depth, budget - count, summary_of)
        if count > budget:
            raise _OverBudget()
    return count
