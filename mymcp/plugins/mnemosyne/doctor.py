"""What ``mymcp doctor`` says about Mnemosyne: settings, gates, the memory root, the records.

Every finding is ``(level, text)`` with level ``ok``, ``warn`` or ``fail``. The texts name
paths, because they are read by the operator in their own terminal; the server's logs never
carry a path. Nothing here creates, changes or moves a file: the checks are ``stat``,
``access``, directory listings and no-follow reads.

The filesystem that holds the root (or, before the root exists, its nearest existing
parent) is looked at with ``statvfs``: free bytes and inodes, and whether it is mounted
read-only, named with the causes the server's log uses (``memory/model/faults.py``).

The records are found by the store's own walk (``memory/storage/discovery.py``: which files are
candidates, how deep folders are entered, which entries are skipped) and checked by the
store's rules, so that each file recall and list skip is named with its path below the
root and the reason, with the line and column of a JSON error. Each valid record is also put
to the content policy (``policy_scan.py``): a record it would refuse today is named by its
path, field and rule, never its value.
"""

from __future__ import annotations

import functools
import json
import os
import pwd
import stat
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from mymcp.plugin_api.setup import FAIL, OK, WARN, Finding
from mymcp.plugins.mnemosyne import policy_scan
from mymcp.plugins.mnemosyne.configuration.gates import (
    DEFAULT_CANDIDATE_LIMIT,
    GATE_VARIABLES,
    LIMIT_KEY,
    LIMIT_VARIABLE,
    candidate_limit_value,
    gate_variable_values,
    read_settings_file,
    settings_path,
)
from mymcp.plugins.mnemosyne.configuration.memory_root import (
    ROOT_VARIABLE,
    memory_root_problem,
    resolve_memory_root,
)
from mymcp.plugins.mnemosyne.configuration.settings_file import SettingsError, SettingsProblem
from mymcp.plugins.mnemosyne.memory.model import faults
from mymcp.plugins.mnemosyne.memory.model.records import (
    INVALID_ENCODING,
    INVALID_JSON,
    CanonicalRecord,
    RecordInvalid,
    parse_record_bytes,
)
from mymcp.plugins.mnemosyne.memory.model.vocabulary import LifecycleState, Scope
from mymcp.plugins.mnemosyne.memory.storage import discovery, files
from mymcp.plugins.mnemosyne.memory.storage.scan import (
    BULK_FROM,
    MAX_WORKERS,
    PATH_MISMATCH,
    SCOPE_DEPTH,
    directory_key,
    open_start,
    record_parts,
    runs,
)
from mymcp.plugins.mnemosyne.memory.storage.workers import Workers, usable_cpus
from mymcp.plugins.mnemosyne.plugin import DECLARED_TOOLS

__all__ = ["FAIL", "OK", "WARN", "Finding", "findings"]

_ALL = sys.maxsize  # the doctor counts every candidate, past the store's bound too
_WRITING_TOOLS = "remember, revise, archive, restore and forget"
_TOOLS_NEEDING_SPACE = "remember, revise, archive and restore"  # forget only removes a file
_STATE = {"true": "on", "false": "off"}
_UNSET_MEANS_OFF = " (a gate whose variable is not set is off)"
# Below either, the filesystem of the memory root is reported as nearly full.
LOW_SPACE_BYTES = 50_000_000
LOW_SPACE_INODES = 1_000
_SHOWN_TEMP_FOLDERS = 10
_SHOWN_REFUSED = 20  # per scope; mymcp explain --notebook lists them all
# Above this share of the candidate limit, a scope is reported as nearly full.
NEARLY_FULL = 0.8


def findings(environ: Mapping[str, str] | None = None) -> list[Finding]:
    """Every finding about the Mnemosyne setup of this environment, in reading order."""
    env = os.environ if environ is None else environ
    settings_file = settings_path(env)
    from_env = gate_variable_values(env)
    limit_from_env = _limit_from_environment(env)
    skipped = _all_set(from_env) and isinstance(limit_from_env, int)
    file_values, found = _settings_findings(settings_file, skipped=skipped)
    found += _gate_findings(from_env, file_values, settings_file)
    limit, limit_found = _limit_finding(limit_from_env, file_values, settings_file)
    found.append(limit_found)
    root = resolve_memory_root(env)
    any_gate_on = any(from_env.get(v, file_values.get(k)) for v, k in GATE_VARIABLES)
    found += _root_findings(root, _root_source(env), any_gate_on)
    found += _filesystem_findings(root, any_gate_on)
    found += _record_findings(root, limit)
    found += _leftover_temp_findings(root)
    return found


# --- settings and gates --------------------------------------------------------------------


def _all_set(from_env: Mapping[str, bool | None]) -> bool:
    return len(from_env) == len(GATE_VARIABLES) and None not in from_env.values()


def _limit_from_environment(env: Mapping[str, str]) -> int | ValueError | None:
    """The limit the variable sets, None when unset, the error when it is refused."""
    try:
        return candidate_limit_value(env)
    except ValueError as error:
        return error


def _settings_findings(path: Path, *, skipped: bool) -> tuple[dict[str, bool | int], list[Finding]]:
    """The file's gate values (empty when missing or refused) and what to say about it."""
    directory = path.parent
    if not os.path.lexists(directory):
        return {}, [(OK, f"no settings file: {directory} does not exist{_UNSET_MEANS_OFF}")]
    found: list[Finding] = []
    if os.path.lexists(path):
        found.append((OK, f"settings file {path}: {_mode_and_owner(path)}"))
    try:
        values = read_settings_file(path)
    except SettingsError as error:
        level = WARN if skipped else FAIL
        suffix = " (not read while all five variables are set)" if skipped else ""
        return {}, [*found, *_refusal(error, level, suffix)]
    if values is None:
        found.append((OK, f"no settings file: {path} does not exist{_UNSET_MEANS_OFF}"))
    elif skipped:
        found.append((OK, f"{path} is not read: all five variables are set"))
    return values or {}, found


def _refusal(error: SettingsError, level: str, suffix: str) -> list[Finding]:
    source = error.source or Path("config.toml")
    problems = error.problems or (SettingsProblem("refused"),)
    return [(level, f"{error.message}: {problem.located(source)}{suffix}") for problem in problems]


def _gate_findings(
    from_env: Mapping[str, bool | None], from_file: Mapping[str, bool | int], settings_file: Path
) -> list[Finding]:
    found: list[Finding] = []
    for variable, key in GATE_VARIABLES:
        tools = " and ".join(tool.name for tool in DECLARED_TOOLS if tool.gate == key)
        if variable in from_env and from_env[variable] is None:
            found.append((FAIL, f"{variable} must be 'true' or 'false'; the server will not start"))
        elif variable in from_env:
            value = "true" if from_env[variable] else "false"
            found.append((OK, f"{tools}: {_STATE[value]} ({variable}={value} in the environment)"))
        elif key in from_file:
            value = "true" if from_file[key] else "false"
            found.append((OK, f"{tools}: {_STATE[value]} ({key} = {value} in {settings_file})"))
        else:
            found.append((OK, f"{tools}: off (neither {variable} nor {key} is set)"))
    return found


def _limit_finding(
    from_env: int | ValueError | None, from_file: Mapping[str, bool | int], settings_file: Path
) -> tuple[int, Finding]:
    """The candidate limit the server would use, and where it comes from."""
    if isinstance(from_env, ValueError):
        text = f"{from_env}; the server will not start"
        return int(from_file.get(LIMIT_KEY, DEFAULT_CANDIDATE_LIMIT)), (FAIL, text)
    if from_env is not None:
        return from_env, (OK, f"candidate limit: {from_env} ({LIMIT_VARIABLE} in the environment)")
    if LIMIT_KEY in from_file:
        limit = int(from_file[LIMIT_KEY])
        return limit, (OK, f"candidate limit: {limit} ({LIMIT_KEY} = {limit} in {settings_file})")
    unset = f"neither {LIMIT_VARIABLE} nor {LIMIT_KEY} is set"
    text = f"candidate limit: {DEFAULT_CANDIDATE_LIMIT} ({unset})"
    return DEFAULT_CANDIDATE_LIMIT, (OK, text)


# --- the memory root -----------------------------------------------------------------------


def _root_source(env: Mapping[str, str]) -> str:
    return f"from {ROOT_VARIABLE}" if env.get(ROOT_VARIABLE, "") else "the default"


def _root_findings(root: Path, source: str, any_gate_on: bool) -> list[Finding]:
    shown = f"memory root {os.path.abspath(root)} ({source})"
    problem = memory_root_problem(root)
    if problem is not None:
        return [(FAIL, f"{shown} {problem}")]
    if not os.path.lexists(root):
        return [(OK, f"{shown} does not exist yet; the first remembered memory creates it")]
    found: list[Finding] = [(OK, f"{shown}: a directory, {_mode_and_owner(root)}")]
    if os.path.islink(root):
        text = (
            f"{shown} is a symbolic link to {os.path.realpath(root)}: recall, inspect, revise, "
            "archive, restore and forget follow it, memory_list and memory_remember refuse it"
        )
        found.append((WARN, text))
    if not os.access(root, os.W_OK) and not _mounted_read_only(root):
        level = WARN if any_gate_on else OK
        found.append((level, f"{shown} is not writable by this user: {_WRITING_TOOLS} fail"))
    mode = stat.S_IMODE(os.stat(root).st_mode)
    if mode & 0o077:
        text = f"{shown} can be read by other users (mode {mode:04o}); run: chmod 700 {root}"
        found.append((WARN, text))
    return found


def _mode_and_owner(path: Path) -> str:
    status = os.lstat(path)
    return f"mode {stat.S_IMODE(status.st_mode):04o}, owner {_user_name(status.st_uid)}"


def _user_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


# --- the filesystem that holds the memory root ----------------------------------------------


def _nearest_existing(path: Path) -> Path:
    current = Path(os.path.abspath(path))
    while not os.path.lexists(current) and current != current.parent:
        current = current.parent
    return current


def _mounted_read_only(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _filesystem_findings(root: Path, any_gate_on: bool) -> list[Finding]:
    where = _nearest_existing(root)
    try:
        usage = os.statvfs(where)
    except OSError as error:
        cause = faults.cause_of(error.errno)
        return [(WARN, f"the filesystem of {where} cannot be examined ({_reason(error)}, {cause})")]
    found = [_space_finding(where, usage, any_gate_on)]
    if usage.f_flag & os.ST_RDONLY:
        found.append(_read_only_finding(where, any_gate_on))
    return found


def _space_finding(where: Path, usage: os.statvfs_result, any_gate_on: bool) -> Finding:
    # Root may use the blocks and inodes a filesystem keeps back; everybody else may not.
    privileged = os.geteuid() == 0
    free_bytes = (usage.f_bfree if privileged else usage.f_bavail) * usage.f_frsize
    free_inodes = (usage.f_ffree if privileged else usage.f_favail) if usage.f_files else None
    shown = f"the filesystem of {where} has {_size(free_bytes)}"
    shown += " free" if free_inodes is None else f" and {free_inodes:,} inodes free"
    logged = f"logged as cause={faults.NO_SPACE}"
    if free_bytes == 0 or free_inodes == 0:
        text = f"{shown}: no space left, so {_TOOLS_NEEDING_SPACE} fail ({logged})"
        return (FAIL if any_gate_on else WARN, f"{text}; free some space or move the memory root")
    if free_bytes < LOW_SPACE_BYTES or (free_inodes is not None and free_inodes < LOW_SPACE_INODES):
        limits = f"{LOW_SPACE_BYTES // 10**6} MB or {LOW_SPACE_INODES:,} inodes"
        text = f"{shown}: little space left (less than {limits}); free some before writes fail"
        return (WARN, f"{text} ({logged})")
    return (OK, shown)


def _read_only_finding(where: Path, any_gate_on: bool) -> Finding:
    shown = f"the filesystem of {where} is mounted read-only"
    if not any_gate_on:
        return (OK, f"{shown}; reading works and every change Tool is off")
    text = f"{shown}, so {_WRITING_TOOLS} fail (logged as cause={faults.READ_ONLY})"
    advice = "the mount is the problem, not the folder's permissions: look at it with findmnt"
    return (FAIL, f"{text}; {advice} -T {where}, then remount it read-write or move the root")


def _size(count: int) -> str:
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} bytes"


def _leftover_temp_findings(root: Path) -> list[Finding]:
    """Temp files of interrupted writes, counted in the folders where records are written."""
    if not os.path.isdir(root) or memory_root_problem(root) is not None:
        return []
    counts: dict[str, int] = {}
    for scope in Scope:
        _count_temps(root, (str(scope),), counts)
    if not counts:
        return []
    total = sum(counts.values())
    folders = sorted(counts)
    shown = ", ".join(folders[:_SHOWN_TEMP_FOLDERS])
    if len(folders) > _SHOWN_TEMP_FOLDERS:
        shown += f" and {len(folders) - _SHOWN_TEMP_FOLDERS} more folders"
    text = f"{total} temp file{'' if total == 1 else 's'} of interrupted writes in {shown}"
    return [(WARN, f"{text}: the next write in that folder removes them")]


def _count_temps(root: Path, parts: tuple[str, ...], counts: dict[str, int]) -> None:
    """Count below a scope, its namespaces and their collections; links are not followed."""
    try:
        with files.closing_fd(files.open_directory(root.joinpath(*parts))) as fd:
            entries = files.list_directory(fd)
    except OSError:
        return  # a folder that cannot be listed is reported with the records
    found = 0
    for entry in entries:
        if files.is_temp_name(entry.name) and entry.is_file(follow_symlinks=False):
            found += 1
        elif len(parts) < 3 and entry.is_dir(follow_symlinks=False):
            _count_temps(root, (*parts, entry.name), counts)
    if found:
        counts["/".join(parts) + "/"] = found


# --- the records ---------------------------------------------------------------------------


# What the doctor says about a file or folder the walk skips.
_WALK_SKIP_DETAILS = {
    files.SYMLINK: "a symbolic link; never followed",
    discovery.TOO_DEEP: f"a folder more than {SCOPE_DEPTH} levels below its scope; never entered",
    files.UNREADABLE: "cannot be examined",
}


@dataclass
class _ScopeReport:
    scope: str
    valid: int = 0
    archived: int = 0
    legacy: int = 0
    skipped: list[tuple[str, str, str]] = field(default_factory=list)  # path, reason, detail
    refused: list[policy_scan.Refused] = field(default_factory=list)

    def walk_skip(self, reason: str, parts: tuple[str, ...]) -> None:
        shown = "/".join((self.scope, *parts)) + ("/" if reason == discovery.TOO_DEEP else "")
        self.skipped.append((shown, reason, _WALK_SKIP_DETAILS[reason]))


def _record_findings(root: Path, limit: int) -> list[Finding]:
    if not os.path.isdir(root) or memory_root_problem(root) is not None:
        return []
    found: list[Finding] = []
    scopes = {str(scope) for scope in Scope}
    for name in sorted(os.listdir(root)):
        if name not in scopes and not name.startswith("."):
            text = f"{name} (in the memory root) is not a scope folder and is never read"
            found.append((WARN, f"{text}; the scopes are {', '.join(map(str, Scope))}"))
    for scope in Scope:
        found += _scope_findings(root, str(scope), limit)
    return found


def _scope_findings(root: Path, scope: str, limit: int) -> list[Finding]:
    start = root / scope
    try:
        status = os.lstat(start)
    except FileNotFoundError:
        return [(OK, f"scope {scope}: no folder yet, no records")]
    if stat.S_ISLNK(status.st_mode):
        text = "is a symbolic link: recall finds nothing there and memory_list refuses it"
        return [(FAIL, f"scope {scope}: {scope}/ {text}")]
    if not stat.S_ISDIR(status.st_mode):
        return [(FAIL, f"scope {scope}: {scope} is not a folder; recall and list of it fail")]
    report = _ScopeReport(scope)
    try:
        start_fd = files.open_directory(start)
    except OSError as error:
        return [(FAIL, f"scope {scope}: a folder cannot be listed ({_reason(error)})")]
    with files.closing_fd(start_fd):
        try:
            candidates = discovery.walk(
                start_fd, SCOPE_DEPTH, report_too_deep=True, on_skip_at=report.walk_skip, limit=_ALL
            )
        except OSError as error:
            return [(FAIL, f"scope {scope}: a folder cannot be listed ({_reason(error)})")]
        if len(candidates) > limit:
            return [(FAIL, f"scope {scope}: {_over_limit(len(candidates), limit)}")]
        every = [candidate.parts for candidate in candidates]
        _check_candidates(os.fspath(root), start_fd, scope, every, report)
    found = [_scope_summary(scope, report), *_skipped_findings(report), *_refused_findings(report)]
    if len(candidates) > NEARLY_FULL * limit:
        found.append((WARN, f"scope {scope}: {_nearly_full(len(candidates), limit)}"))
    return found


_REFUSED_PAST_LIMIT = (
    "recall, memory_remember and memory_list of the whole scope answer candidate_limit_exceeded"
)
_RAISE_LIMIT = f"raise {LIMIT_VARIABLE} (or {LIMIT_KEY} in config.toml)"


def _over_limit(count: int, limit: int) -> str:
    return (
        f"holds {count} .json files, more than the candidate limit of {limit}: "
        f"{_REFUSED_PAST_LIMIT}; {_RAISE_LIMIT} to at least {count}"
    )


def _nearly_full(count: int, limit: int) -> str:
    return (
        f"holds {count} .json files, {count * 100 // limit}% of the candidate limit of {limit}; "
        f"past it, {_REFUSED_PAST_LIMIT}: {_RAISE_LIMIT}, or keep memories apart by namespace "
        "(memory_list of one namespace counts only that namespace's files)"
    )


def _scope_summary(scope: str, report: _ScopeReport) -> Finding:
    text = f"scope {scope}: {report.valid} valid record{'' if report.valid == 1 else 's'}"
    parts = [f"{report.archived} archived"] if report.archived else []
    parts += [f"{report.legacy} of version 1"] if report.legacy else []
    if parts:
        text += f" ({', '.join(parts)})"
    if report.skipped:
        text += f"; {len(report.skipped)} skipped by recall and list, listed below"
    if report.refused:
        text += f"; {len(report.refused)} hold what the content policy refuses today, listed below"
    return (WARN if report.skipped or report.refused else OK, text)


def _skipped_findings(report: _ScopeReport) -> Iterator[Finding]:
    for path, reason, detail in report.skipped:
        yield (FAIL, f"{path}: skipped ({reason}): {detail}")


def _refused_findings(report: _ScopeReport) -> Iterator[Finding]:
    """The records the content policy would refuse today (see docs/MANUAL.md)."""
    for refused in report.refused[:_SHOWN_REFUSED]:
        yield (WARN, f"{refused.line()}: the content policy refuses this today; {_ADVICE}")
    if len(report.refused) > _SHOWN_REFUSED:
        more = len(report.refused) - _SHOWN_REFUSED
        text = f"{more} more records the content policy refuses today"
        yield (WARN, f"scope {report.scope}: {text}; {_ALL_REFUSED}")


_ADVICE = 'see "Records the policy refuses today" in docs/MANUAL.md'
_ALL_REFUSED = "mymcp explain --notebook lists them all"


def _check_candidates(
    root: str, start_fd: int, scope: str, found: list[tuple[str, ...]], report: _ScopeReport
) -> None:
    """Check every file found, in order; a scope of BULK_FROM files or more is shared out
    among worker processes in runs, as recall's first scan shares it (each opens the scope's
    folder below ``root``, which must still be the one open here at ``start_fd``)."""
    count = min(usable_cpus(), MAX_WORKERS)
    if len(found) < BULK_FROM or count < 2:
        for parts in found:
            _check_candidate(start_fd, scope, parts, report)
        return
    key = directory_key(start_fd)
    spans = runs(len(found), count)
    jobs = [_CheckRun(root, key, scope, tuple(found[at:end])) for at, end in spans]
    with Workers(count) as workers:
        here = functools.partial(_check_run_at, start_fd)
        for checked in workers.in_order(_check_run, jobs, here):
            report.valid += checked.valid
            report.archived += checked.archived
            report.legacy += checked.legacy
            report.skipped += checked.skipped
            report.refused += checked.refused


class _CheckRun(NamedTuple):
    """A run of files for a worker: the memory root, the scope folder's device and inode,
    the scope's name, and the files' parts below it."""

    root: str
    key: tuple[int, int]
    scope: str
    files: tuple[tuple[str, ...], ...]


def _check_run(job: _CheckRun) -> _ScopeReport:
    """Check a run of files in a worker process (it fails, to be checked here, when the
    scope's folder is not the one the doctor walked)."""
    start_fd = open_start(job.root, (job.scope,), job.key)
    with files.closing_fd(start_fd):
        return _check_run_at(start_fd, job)


def _check_run_at(start_fd: int, job: _CheckRun) -> _ScopeReport:
    report = _ScopeReport(job.scope)
    for parts in job.files:
        _check_candidate(start_fd, job.scope, parts, report)
    return report


def _check_candidate(
    start_fd: int, scope: str, parts: tuple[str, ...], report: _ScopeReport
) -> None:
    shown = "/".join((scope, *parts))
    # Read exactly as the store reads it, so the doctor names the skips recall and list make.
    try:
        data = files.read_candidate(start_fd, parts).data
    except files.EntrySkipped as skipped:
        report.skipped.append((shown, skipped.reason, _read_detail(skipped)))
        return
    try:
        record = parse_record_bytes(data)
    except RecordInvalid as invalid:
        report.skipped.append((shown, invalid.reason, _invalid_detail(invalid.reason, data)))
        return
    if isinstance(record, CanonicalRecord):
        expected = record_parts(record)
        if expected != (scope, *parts):
            text = f"its scope, namespace, collection and id place it at {'/'.join(expected)}"
            report.skipped.append((shown, PATH_MISMATCH, text))
            return
        report.archived += record.state is LifecycleState.ARCHIVED
    else:
        report.legacy += 1
    report.valid += 1
    if (refusal := policy_scan.first_refusal(record)) is not None:
        report.refused.append(policy_scan.Refused(shown, *refusal))


def _read_detail(skipped: files.EntrySkipped) -> str:
    if skipped.reason == files.OVERSIZED and skipped.identity is not None:
        size = skipped.identity[files.SIZE]
        return f"{size} bytes; a record holds at most {files.MAX_RECORD_BYTES}"
    cause = skipped.__cause__
    if isinstance(cause, OSError):
        return f"cannot be read ({_reason(cause)})"
    return "is not a regular file"


def _reason(error: OSError) -> str:
    return os.strerror(error.errno or 0)


def _invalid_detail(reason: str, data: bytes) -> str:
    if reason == INVALID_ENCODING:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = data.count(b"\n", 0, error.start) + 1
            return f"not UTF-8 at line {line} (byte {error.start}); save it as UTF-8"
    if reason == INVALID_JSON:
        return _json_detail(data.decode("utf-8"))
    return (
        "JSON, but not a valid record: a key is missing, unknown, or has a value outside the rules"
    )


def _json_detail(text: str) -> str:
    if text.startswith("\ufeff"):
        return "starts with a byte-order mark; save it as UTF-8 without one"
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        return f"line {error.lineno}, column {error.colno}: {error.msg}"
    except (ValueError, RecursionError):
        return "not strict JSON (a number too large, or nesting too deep)"
    return "not strict JSON (a duplicate key, NaN or Infinity, or nesting too deep)"
