"""The settings file, ``~/.mnemosyne/config.toml``, read as a careful reader reads it.

The file is optional and read-only to us. Before and while it is read, every object on the
way is checked: its directory and the file must be what they claim (a real directory, a
regular file: links are not followed), written by their owner alone, and at most
:data:`MAX_SETTINGS_BYTES` long. The file is read once, through no-follow descriptors opened
below the directory that was checked, so a swap between the checks and the read cannot
redirect it; then it must be UTF-8 without a byte-order mark and TOML.

A refused file raises :class:`SettingsError`, whose text is a fixed sentence per cause; the
operator learns where and why from its note (the path, the line and column, the key), which
a traceback prints after the sentence. What the document may hold is for its reader
(:mod:`.gates`) to say; the helpers here place a problem in the text and show a key without
repeating arbitrary text. Nothing here creates, edits or chmods anything on disk.
"""

from __future__ import annotations

import difflib
import errno
import os
import re
import stat
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple, NoReturn, TypeVar

from mymcp.plugin_api.setup import SetupError
from mymcp.plugins.mnemosyne.memory.storage.files import read_at_most

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef, import-not-found]

__all__ = [
    "MAX_SETTINGS_BYTES",
    "SETTINGS_ERROR_MESSAGES",
    "SettingsError",
    "SettingsProblem",
    "key_position",
    "read_document",
    "shown_key",
    "suggestion",
    "toml_kind",
]

MAX_SETTINGS_BYTES = 16384

SETTINGS_ERROR_MESSAGES: Mapping[str, str] = {
    "invalid_toml": "Mnemosyne settings file is not valid TOML",
    "invalid_schema": "Mnemosyne settings file has an invalid schema",
    "unreadable": "Mnemosyne settings file could not be read",
    "not_regular": "Mnemosyne settings source is not a regular file",
    "unsafe_path": "Mnemosyne settings file path is unsafe",
    "too_large": "Mnemosyne settings file exceeds 16384 bytes",
    "unsafe_permissions": "Mnemosyne settings source permissions are unsafe",
}

_GROUP_OR_OTHER_WRITE = 0o022

_T = TypeVar("_T")


class SettingsProblem(NamedTuple):
    """One thing wrong with the settings file, in plain words, with its place when known."""

    text: str
    line: int | None = None
    column: int | None = None

    def located(self, source: Path) -> str:
        """``<source>, line L, column C: <text>`` (as much of the place as is known)."""
        where = str(source)
        if self.line is not None:
            where += f", line {self.line}"
            if self.column is not None:
                where += f", column {self.column}"
        return f"{where}: {self.text}"


class SettingsError(SetupError):
    """The settings file was refused; ``code`` names why and the text is a fixed sentence.

    The text never carries file contents, parser detail, OS error text or the path. Those go
    to the operator through ``source`` (the file or directory at fault), ``problems`` (what is
    wrong there, each with its line and column when known) and one note built from them.
    """

    def __init__(
        self, code: str, *, source: Path | None = None, problems: Iterable[SettingsProblem] = ()
    ) -> None:
        self.code = code
        self.message = SETTINGS_ERROR_MESSAGES[code]
        super().__init__(self.message)
        self.source = source
        self.problems = tuple(problems)
        if source is not None and self.problems:
            self.add_note(_settings_note(source, self.problems))


def _settings_note(source: Path, problems: tuple[SettingsProblem, ...]) -> str:
    note = problems[0].located(source)
    if len(problems) > 1:
        note += f" (and {len(problems) - 1} more: mymcp doctor lists them all)"
    return note


def _refuse(code: str, source: Path, problem: SettingsProblem | str) -> NoReturn:
    if isinstance(problem, str):
        problem = SettingsProblem(problem)
    raise SettingsError(code, source=source, problems=(problem,)) from None


def read_document(path: Path) -> tuple[dict[str, Any], str] | None:
    """The TOML document at ``path`` and its text, or None when there is no file.

    Raises :class:`SettingsError` for a file that fails a check before, while or after it is
    read, or is not TOML.
    """
    data = _settings_bytes(path)
    if data is None:
        return None
    return _parse_toml(data, path)


def _settings_bytes(path: Path) -> bytes | None:
    directory = path.parent
    directory_stat = _os_call(directory, os.lstat, directory)
    if directory_stat is None:
        return None
    if not stat.S_ISDIR(directory_stat.st_mode):  # symlinks are not directories under lstat
        _refuse("unsafe_path", directory, _not_a_directory(directory))
    _check_permissions(directory_stat, directory)
    file_stat = _os_call(path, os.lstat, path)
    if file_stat is None:
        return None
    _check_file_stat(file_stat, path)
    return _read_through_descriptors(path, directory_stat, file_stat)


def _not_a_directory(directory: Path) -> str:
    if directory.is_symlink():
        return "is a symbolic link; make it a real directory (links are not followed here)"
    return "is not a directory; it must be the directory that holds config.toml"


def _check_file_stat(file_stat: os.stat_result, path: Path) -> None:
    if stat.S_ISLNK(file_stat.st_mode):
        text = "is a symbolic link; put the file itself there (links are not followed here)"
        _refuse("unsafe_path", path, text)
    if not stat.S_ISREG(file_stat.st_mode):
        _refuse("not_regular", path, _not_regular(file_stat))
    _check_permissions(file_stat, path)
    _check_size(file_stat.st_size, path)


def _not_regular(status: os.stat_result) -> str:
    kind = "a directory" if stat.S_ISDIR(status.st_mode) else "not a plain file"
    return f"is {kind}; config.toml must be a regular file"


def _check_permissions(status: os.stat_result, path: Path) -> None:
    if status.st_mode & _GROUP_OR_OTHER_WRITE:
        mode = stat.S_IMODE(status.st_mode)
        text = f"is writable by group or others (mode {mode:04o}); run: chmod go-w {path}"
        _refuse("unsafe_permissions", path, text)


def _check_size(size: int, path: Path) -> None:
    if size > MAX_SETTINGS_BYTES:
        text = f"is {size} bytes, more than the {MAX_SETTINGS_BYTES} allowed"
        _refuse("too_large", path, text)


def _same_object(first: os.stat_result, second: os.stat_result) -> bool:
    return (first.st_dev, first.st_ino) == (second.st_dev, second.st_ino)


_SWAPPED = "was replaced while it was being read; check it and start again"


def _read_through_descriptors(
    path: Path, directory_stat: os.stat_result, file_stat: os.stat_result
) -> bytes | None:
    """Re-check both objects on open descriptors, then read; None if the file vanished."""
    directory = path.parent
    directory_flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    directory_fd = _os_call(directory, os.open, directory, directory_flags)
    if directory_fd is None:
        return None
    try:
        opened = _os_call(directory, os.fstat, directory_fd)
        if opened is None or not stat.S_ISDIR(opened.st_mode):
            _refuse("unsafe_path", directory, _SWAPPED)
        if not _same_object(opened, directory_stat):
            _refuse("unsafe_path", directory, _SWAPPED)
        _check_permissions(opened, directory)
        return _read_settings_at(directory_fd, file_stat, path)
    finally:
        os.close(directory_fd)


def _read_settings_at(directory_fd: int, file_stat: os.stat_result, path: Path) -> bytes | None:
    # O_NONBLOCK keeps a FIFO swapped in after the lstat from blocking the open.
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY
    file_fd = _os_call(path, lambda: os.open(path.name, flags, dir_fd=directory_fd))
    if file_fd is None:
        return None
    try:
        opened_file = _os_call(path, os.fstat, file_fd)
        if opened_file is None:
            return None
        if not stat.S_ISREG(opened_file.st_mode):
            _refuse("not_regular", path, _not_regular(opened_file))
        if not _same_object(opened_file, file_stat):
            _refuse("unsafe_path", path, _SWAPPED)
        _check_permissions(opened_file, path)
        _check_size(opened_file.st_size, path)
        data = _os_call(path, _read_settings, file_fd)
    finally:
        os.close(file_fd)
    if data is None:
        return None
    _check_size(len(data), path)
    return data


def _os_call(source: Path, action: Callable[..., _T], *args: Any) -> _T | None:
    """Run an OS call; None when the target is missing, a SettingsError for any other failure.

    The error is raised outside the ``except`` block so no OS exception rides along as context.
    """
    try:
        return action(*args)
    except FileNotFoundError:
        return None
    except OSError as error:
        code = _os_error_code(error)
        reason = os.strerror(error.errno) if error.errno else "an operating-system error"
    problem = SettingsProblem(f"cannot be used ({reason})")
    _refuse(code, source, problem)


def _os_error_code(error: OSError) -> str:
    if error.errno in (errno.ELOOP, errno.ENOTDIR):
        return "unsafe_path"
    if error.errno == errno.EISDIR:
        return "not_regular"
    return "unreadable"


_BOM = b"\xef\xbb\xbf"
_TOML_POSITION = re.compile(r"^(?P<reason>.*) \(at line (?P<line>\d+), column (?P<column>\d+)\)$")


def _parse_toml(data: bytes, path: Path) -> tuple[dict[str, Any], str]:
    """The TOML document and its text; ``invalid_toml`` with the place of the first error."""
    problem: SettingsProblem | None = None
    if data.startswith(_BOM):
        problem = SettingsProblem("starts with a byte-order mark; save it as UTF-8 without one")
    else:
        try:
            text = data.decode("utf-8", errors="strict")
            return tomllib.loads(text), text
        except UnicodeDecodeError as error:
            problem = _encoding_problem(data, error.start)
        except (ValueError, RecursionError) as error:  # TOML errors are ValueErrors
            problem = _toml_problem(error)
    _refuse("invalid_toml", path, problem)


def _encoding_problem(data: bytes, offset: int) -> SettingsProblem:
    line_start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", errors="replace")) + 1
    text = "is not valid UTF-8 here; save the file as UTF-8"
    return SettingsProblem(text, data.count(b"\n", 0, offset) + 1, column)


def _toml_problem(error: BaseException) -> SettingsProblem:
    match = _TOML_POSITION.match(str(error)) if isinstance(error, ValueError) else None
    if match is None:
        return SettingsProblem("is not valid TOML; check its syntax")
    reason = match["reason"].rstrip(".")
    return SettingsProblem(f"{reason}", int(match["line"]), int(match["column"]))


def toml_kind(value: Any) -> str:
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "table"
    return "date or time"


_SAFE_KEY = re.compile(r"[A-Za-z0-9_.-]{1,64}")


def shown_key(key: str) -> str:
    """A key as it may be shown back: plain names only, never arbitrary quoted text."""
    return f"'{key}'" if _SAFE_KEY.fullmatch(key) else "(a quoted key)"


def suggestion(key: str, known: Iterable[str], shown: str | None) -> str | None:
    if not _SAFE_KEY.fullmatch(key):
        return None
    close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
    if not close:
        return None
    return f"did you mean {shown or repr(close[0])}?"


_TABLE_HEADER = re.compile(r"^\s*\[\[?\s*(?P<name>[A-Za-z0-9_-]+)\s*\]")


def key_position(text: str, table: str | None, key: str) -> tuple[int | None, int | None]:
    """Line and column (from 1) where ``key`` is written in ``table``, if it can be found.

    A best effort over the text, as TOML's parser reports no places in a valid document: a
    ``[key]`` header, ``key =`` (bare or quoted) under the table's header, else ``key =``
    anywhere (an inline or dotted table).
    """
    name = re.escape(key)
    written = rf"""(?:{name}|"{name}"|'{name}')"""
    at_start = re.compile(rf"^\s*{written}\s*=")
    anywhere = re.compile(rf"""(?<![\w"'-]){written}\s*=""")
    lines = text.splitlines()
    current: str | None = None
    for number, line in enumerate(lines, 1):
        header = _TABLE_HEADER.match(line)
        if header is not None:
            current = header["name"]
            if table is None and current == key:
                return number, line.index("[") + 1
        elif current == table and at_start.match(line):
            return number, len(line) - len(line.lstrip()) + 1
    for number, line in enumerate(lines, 1):
        found = anywhere.search(line)
        if found is not None:
            return number, found.start() + 1
    return None, None


def _read_settings(fd: int) -> bytes:
    """The settings bytes, at most one byte past the limit (enough to detect too_large)."""
    return read_at_most(fd, MAX_SETTINGS_BYTES + 1)
