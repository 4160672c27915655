"""Mnemosyne configuration: where memories live and which mutation Tools are switched on.

Two inputs decide the mutation gates: four environment variables and an optional, read-only
``~/.mnemosyne/config.toml``. The environment is parsed first and wins key by key; the file is
consulted only when at least one variable is unset, and then it is read at most once through
no-follow descriptors so that a swap between the checks and the read cannot redirect it.

Nothing here creates, edits or chmods anything on disk.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, TypeVar

from mymcp.plugins.mnemosyne.memory.files import read_at_most

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef, import-not-found]

__all__ = [
    "GATE_VARIABLES",
    "MAX_SETTINGS_BYTES",
    "ROOT_VARIABLE",
    "SETTINGS_ERROR_MESSAGES",
    "MutationSettings",
    "SettingsError",
    "load_mutation_settings",
    "resolve_memory_root",
]

ROOT_VARIABLE = "MNEMOSYNE_MEMORY_ROOT"

# (environment variable, settings key), in the order the variables are parsed.
GATE_VARIABLES: tuple[tuple[str, str], ...] = (
    ("MNEMOSYNE_MEMORY_REMEMBER_ENABLED", "remember_enabled"),
    ("MNEMOSYNE_MEMORY_ARCHIVE_RESTORE_ENABLED", "archive_restore_enabled"),
    ("MNEMOSYNE_MEMORY_FORGET_ENABLED", "forget_enabled"),
    ("MNEMOSYNE_MEMORY_REVISE_ENABLED", "revise_enabled"),
)

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

_APP_DIRECTORY = ".mnemosyne"
_SETTINGS_FILE = "config.toml"
_MEMORY_DIRECTORY = "memory"
_SECTION = "memory"
_GROUP_OR_OTHER_WRITE = 0o022
_ENV_VALUES = {"true": True, "false": False}

_T = TypeVar("_T")


@dataclass(frozen=True)
class MutationSettings:
    """Resolved on/off state of each mutation gate (everything is off by default)."""

    remember_enabled: bool = False
    archive_restore_enabled: bool = False
    forget_enabled: bool = False
    revise_enabled: bool = False

    def enabled(self, key: str) -> bool:
        """Return the gate named by a settings key such as ``"forget_enabled"``."""
        if key not in _SETTING_KEYS:
            raise KeyError(key)
        value: bool = getattr(self, key)
        return value


_SETTING_KEYS = frozenset(field.name for field in fields(MutationSettings))


class SettingsError(Exception):
    """The settings file was refused; ``code`` names why and the text is a fixed sentence.

    The text never carries file contents, parser detail, OS error text or the path.
    """

    def __init__(self, code: str) -> None:
        self.code = code
        self.message = SETTINGS_ERROR_MESSAGES[code]
        super().__init__(self.message)


def resolve_memory_root(environ: Mapping[str, str] | None = None) -> Path:
    """Return the memory root: ``$MNEMOSYNE_MEMORY_ROOT`` when non-empty, else the default.

    The path is ``~``-expanded but neither resolved nor checked; nothing is created.
    """
    env = os.environ if environ is None else environ
    configured = env.get(ROOT_VARIABLE, "")
    if configured:
        return _expand_user(configured, env)
    return _home_directory(env) / _APP_DIRECTORY / _MEMORY_DIRECTORY


def load_mutation_settings(
    environ: Mapping[str, str] | None = None, home: Path | None = None
) -> MutationSettings:
    """Resolve the mutation gates from the environment and, if needed, the settings file.

    Raises ``ValueError`` for a gate variable that is not exactly ``true`` or ``false`` (before
    any file access) and ``SettingsError`` for a settings file that fails any check.
    """
    env = os.environ if environ is None else environ
    from_env = _parse_environment(env)
    if len(from_env) == len(GATE_VARIABLES):
        return MutationSettings(**from_env)
    directory = (home if home is not None else _home_directory(env)) / _APP_DIRECTORY
    from_file = _read_settings_file(directory)
    merged = {key: from_env.get(key, from_file.get(key, False)) for _, key in GATE_VARIABLES}
    return MutationSettings(**merged)


def _parse_environment(env: Mapping[str, str]) -> dict[str, bool]:
    parsed: dict[str, bool] = {}
    for variable, key in GATE_VARIABLES:
        raw = env.get(variable)
        if raw is None:
            continue
        if raw not in _ENV_VALUES:
            raise ValueError(f"{variable} must be 'true' or 'false'")
        parsed[key] = _ENV_VALUES[raw]
    return parsed


def _home_directory(env: Mapping[str, str]) -> Path:
    home = env.get("HOME")
    return Path(home) if home is not None else Path.home()


def _expand_user(value: str, env: Mapping[str, str]) -> Path:
    # Expand "~" against the same mapping the caller gave us; "~user" falls back to the OS.
    if value == "~" or value.startswith("~/"):
        return _home_directory(env) / value[2:]
    return Path(value).expanduser()


# --- the settings file -------------------------------------------------------------------


def _read_settings_file(directory: Path) -> dict[str, bool]:
    directory_stat = _os_call(os.lstat, directory)
    if directory_stat is None:
        return {}
    if not stat.S_ISDIR(directory_stat.st_mode):  # symlinks are not directories under lstat
        raise SettingsError("unsafe_path") from None
    _check_permissions(directory_stat)
    file_stat = _os_call(os.lstat, directory / _SETTINGS_FILE)
    if file_stat is None:
        return {}
    _check_file_stat(file_stat)
    data = _read_through_descriptors(directory, directory_stat, file_stat)
    if data is None:
        return {}
    return _validate_schema(_parse_toml(data))


def _check_file_stat(file_stat: os.stat_result) -> None:
    if stat.S_ISLNK(file_stat.st_mode):
        raise SettingsError("unsafe_path") from None
    if not stat.S_ISREG(file_stat.st_mode):
        raise SettingsError("not_regular") from None
    _check_permissions(file_stat)
    _check_size(file_stat.st_size)


def _check_permissions(status: os.stat_result) -> None:
    if status.st_mode & _GROUP_OR_OTHER_WRITE:
        raise SettingsError("unsafe_permissions") from None


def _check_size(size: int) -> None:
    if size > MAX_SETTINGS_BYTES:
        raise SettingsError("too_large") from None


def _same_object(first: os.stat_result, second: os.stat_result) -> bool:
    return (first.st_dev, first.st_ino) == (second.st_dev, second.st_ino)


def _read_through_descriptors(
    directory: Path, directory_stat: os.stat_result, file_stat: os.stat_result
) -> bytes | None:
    """Re-check both objects on open descriptors, then read; None if the file vanished."""
    directory_flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    directory_fd = _os_call(os.open, directory, directory_flags)
    if directory_fd is None:
        return None
    try:
        opened = _os_call(os.fstat, directory_fd)
        if opened is None or not stat.S_ISDIR(opened.st_mode):
            raise SettingsError("unsafe_path") from None
        if not _same_object(opened, directory_stat):
            raise SettingsError("unsafe_path") from None
        _check_permissions(opened)
        return _read_settings_at(directory_fd, file_stat)
    finally:
        os.close(directory_fd)


def _read_settings_at(directory_fd: int, file_stat: os.stat_result) -> bytes | None:
    # O_NONBLOCK keeps a FIFO swapped in after the lstat from blocking the open.
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY
    file_fd = _os_call(lambda: os.open(_SETTINGS_FILE, flags, dir_fd=directory_fd))
    if file_fd is None:
        return None
    try:
        opened_file = _os_call(os.fstat, file_fd)
        if opened_file is None:
            return None
        if not stat.S_ISREG(opened_file.st_mode):
            raise SettingsError("not_regular") from None
        if not _same_object(opened_file, file_stat):
            raise SettingsError("unsafe_path") from None
        _check_permissions(opened_file)
        _check_size(opened_file.st_size)
        data = _os_call(_read_settings, file_fd)
    finally:
        os.close(file_fd)
    if data is None:
        return None
    _check_size(len(data))
    return data


def _os_call(action: Callable[..., _T], *args: Any) -> _T | None:
    """Run an OS call; None when the target is missing, a SettingsError for any other failure.

    The error is raised outside the ``except`` block so no OS exception rides along as context.
    """
    try:
        return action(*args)
    except FileNotFoundError:
        return None
    except OSError as error:
        code = _os_error_code(error)
    raise SettingsError(code) from None


def _os_error_code(error: OSError) -> str:
    if error.errno in (errno.ELOOP, errno.ENOTDIR):
        return "unsafe_path"
    if error.errno == errno.EISDIR:
        return "not_regular"
    return "unreadable"


def _parse_toml(data: bytes) -> dict[str, Any]:
    document: dict[str, Any] | None = None
    if not data.startswith(b"\xef\xbb\xbf"):
        try:
            document = tomllib.loads(data.decode("utf-8", errors="strict"))
        except (ValueError, RecursionError):  # decode and TOML errors are ValueErrors
            document = None
    if document is None:
        raise SettingsError("invalid_toml") from None
    return document


def _validate_schema(document: dict[str, Any]) -> dict[str, bool]:
    if not set(document) <= {_SECTION}:
        raise SettingsError("invalid_schema") from None
    section = document.get(_SECTION, {})
    if not isinstance(section, dict) or not set(section) <= _SETTING_KEYS:
        raise SettingsError("invalid_schema") from None
    if not all(type(value) is bool for value in section.values()):
        raise SettingsError("invalid_schema") from None
    return dict(section)


def _read_settings(fd: int) -> bytes:
    """The settings bytes, at most one byte past the limit (enough to detect too_large)."""
    return read_at_most(fd, MAX_SETTINGS_BYTES + 1)
