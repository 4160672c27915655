"""Mnemosyne configuration: where memories live, which mutation Tools are switched on and
how many record files one scan may find.

Two inputs decide the mutation gates and the candidate limit: five environment variables
and an optional, read-only ``~/.mnemosyne/config.toml``. The environment is parsed first and
wins key by key; the file is consulted only when at least one variable is unset, and then it
is read at most once through no-follow descriptors so that a swap between the checks and the
read cannot redirect it.

A refused file raises :class:`SettingsError`, whose text is a fixed sentence per cause; the
operator learns where and why from its note (the path, the line and column, the key), which a
traceback prints after the sentence. Nothing here creates, edits or chmods anything on disk.
"""

from __future__ import annotations

import difflib
import errno
import os
import re
import stat
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, NamedTuple, NoReturn, TypeVar

from mymcp.plugin_api.setup import SetupError
from mymcp.plugins.mnemosyne.memory.files import MAX_CANDIDATES, read_at_most

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef, import-not-found]

__all__ = [
    "DEFAULT_CANDIDATE_LIMIT",
    "GATE_VARIABLES",
    "LIMIT_KEY",
    "LIMIT_VARIABLE",
    "MAX_CANDIDATE_LIMIT",
    "MAX_SETTINGS_BYTES",
    "MEMORY_ROOT_ERROR_MESSAGE",
    "ROOT_VARIABLE",
    "SETTINGS_ERROR_MESSAGES",
    "MemoryRootError",
    "MutationSettings",
    "Settings",
    "SettingsError",
    "SettingsProblem",
    "check_memory_root",
    "candidate_limit_value",
    "gate_variable_values",
    "limit_rule",
    "load_mutation_settings",
    "load_settings",
    "memory_root_problem",
    "read_settings_file",
    "resolve_memory_root",
    "schema_problems",
    "settings_path",
]

ROOT_VARIABLE = "MNEMOSYNE_MEMORY_ROOT"

# (environment variable, settings key), in the order the variables are parsed.
GATE_VARIABLES: tuple[tuple[str, str], ...] = (
    ("MNEMOSYNE_MEMORY_REMEMBER_ENABLED", "remember_enabled"),
    ("MNEMOSYNE_MEMORY_ARCHIVE_RESTORE_ENABLED", "archive_restore_enabled"),
    ("MNEMOSYNE_MEMORY_FORGET_ENABLED", "forget_enabled"),
    ("MNEMOSYNE_MEMORY_REVISE_ENABLED", "revise_enabled"),
)

# The candidate limit: how many record files one scan of a scope may find (the contract's
# 1,000 unless the operator raises it), its variable and its key in the settings file.
LIMIT_VARIABLE = "MNEMOSYNE_MEMORY_CANDIDATE_LIMIT"
LIMIT_KEY = "candidate_limit"
DEFAULT_CANDIDATE_LIMIT = MAX_CANDIDATES
MAX_CANDIDATE_LIMIT = 1_000_000

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
MEMORY_ROOT_ERROR_MESSAGE = "Mnemosyne memory root is not a usable directory"

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
        if key not in _GATE_KEYS:
            raise KeyError(key)
        value: bool = getattr(self, key)
        return value


_GATE_KEYS = frozenset(field.name for field in fields(MutationSettings))
_SETTING_KEYS = _GATE_KEYS | {LIMIT_KEY}


@dataclass(frozen=True)
class Settings:
    """Everything the operator set: the gates and the candidate limit."""

    gates: MutationSettings = MutationSettings()
    candidate_limit: int = DEFAULT_CANDIDATE_LIMIT


def limit_rule() -> str:
    """What the candidate limit may be, in the words every message about it uses."""
    return f"a whole number from {DEFAULT_CANDIDATE_LIMIT} through {MAX_CANDIDATE_LIMIT}"


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


class MemoryRootError(SetupError):
    """The memory root exists but cannot be served. The text is fixed; a note says where and why."""

    def __init__(self, root: Path, problem: str, source: str) -> None:
        super().__init__(MEMORY_ROOT_ERROR_MESSAGE)
        self.root = root
        self.problem = problem
        self.add_note(f"{os.path.abspath(root)} ({source}) {problem}")


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
    any file access; its ``setup_hint`` says what to do) and ``SettingsError`` for a settings
    file that fails any check. The file is not read when all four gate variables are set.
    """
    env = os.environ if environ is None else environ
    from_env = _parse_environment(env)
    if len(from_env) == len(GATE_VARIABLES):
        return MutationSettings(**from_env)
    return _settings(from_env, read_settings_file(settings_path(env, home)) or {}).gates


def load_settings(environ: Mapping[str, str] | None = None, home: Path | None = None) -> Settings:
    """Resolve the gates and the candidate limit, as :func:`load_mutation_settings` does.

    Both kinds of variable are parsed before any file access; the file is read (once) unless
    all five variables are set. Raises ``ValueError`` (a variable) and ``SettingsError``.
    """
    env = os.environ if environ is None else environ
    from_env: dict[str, bool | int] = dict(_parse_environment(env))
    limit = candidate_limit_value(env)
    if limit is not None:
        from_env[LIMIT_KEY] = limit
    from_file: dict[str, bool | int] = {}
    if len(from_env) < len(_SETTING_KEYS):
        from_file = read_settings_file(settings_path(env, home)) or {}
    return _settings(from_env, from_file)


def _settings(from_env: Mapping[str, bool | int], from_file: Mapping[str, bool | int]) -> Settings:
    def value(key: str, default: bool | int) -> bool | int:
        return from_env.get(key, from_file.get(key, default))

    gates = MutationSettings(**{key: bool(value(key, False)) for _, key in GATE_VARIABLES})
    return Settings(gates, int(value(LIMIT_KEY, DEFAULT_CANDIDATE_LIMIT)))


def gate_variable_values(env: Mapping[str, str]) -> dict[str, bool | None]:
    """Each gate variable that is set, in parse order: its value, or None when invalid."""
    return {
        variable: _ENV_VALUES.get(env[variable])
        for variable, _ in GATE_VARIABLES
        if variable in env
    }


def candidate_limit_value(env: Mapping[str, str]) -> int | None:
    """The candidate limit the variable sets, None when it is unset.

    Raises ``ValueError`` (with a ``setup_hint``) when it is set to anything but a whole
    number of plain digits within the allowed range; the value is never repeated.
    """
    text = env.get(LIMIT_VARIABLE)
    if text is None:
        return None
    number = int(text) if text.isascii() and text.isdigit() and len(text) <= 9 else None
    if number is None or not DEFAULT_CANDIDATE_LIMIT <= number <= MAX_CANDIDATE_LIMIT:
        error = ValueError(f"{LIMIT_VARIABLE} must be {limit_rule()}")
        hint = f"{LIMIT_VARIABLE} is set in the server's environment; make it {limit_rule()}, "
        error.setup_hint = hint + "or unset it"  # type: ignore[attr-defined]
        raise error
    return number


def _parse_environment(env: Mapping[str, str]) -> dict[str, bool]:
    parsed: dict[str, bool] = {}
    keys = dict(GATE_VARIABLES)
    for variable, value in gate_variable_values(env).items():
        if value is None:
            # A plain ValueError, as the Uvicorn factory's traceback has always named it.
            error = ValueError(f"{variable} must be 'true' or 'false'")
            hint = f"{variable} is set in the server's environment; make it true or false, "
            error.setup_hint = hint + "or unset it"  # type: ignore[attr-defined]
            raise error
        parsed[keys[variable]] = value
    return parsed


def _home_directory(env: Mapping[str, str]) -> Path:
    home = env.get("HOME")
    return Path(home) if home is not None else Path.home()


def _expand_user(value: str, env: Mapping[str, str]) -> Path:
    # Expand "~" against the same mapping the caller gave us; "~user" falls back to the OS.
    if value == "~" or value.startswith("~/"):
        return _home_directory(env) / value[2:]
    return Path(value).expanduser()


# --- startup checks ----------------------------------------------------------------------


def check_memory_root(environ: Mapping[str, str] | None = None) -> None:
    """Refuse a memory root that exists but cannot be served; a missing one is fine.

    Raises :class:`MemoryRootError`. Only looks (``stat``, ``access``); creates nothing.
    """
    env = os.environ if environ is None else environ
    root = resolve_memory_root(env)
    problem = memory_root_problem(root)
    if problem is not None:
        raise MemoryRootError(root, problem, _root_source(env)) from None


def _root_source(env: Mapping[str, str]) -> str:
    if env.get(ROOT_VARIABLE, ""):
        return f"from {ROOT_VARIABLE}"
    return f"the default; {ROOT_VARIABLE} is not set"


def memory_root_problem(root: Path) -> str | None:
    """Why ``root`` cannot serve as the memory root, with what to do, or None if it can.

    A root that does not exist yet is fine (the first remembered memory creates it). A
    symlinked root is followed, as recall and inspect follow it.
    """
    try:
        status = os.stat(root)
    except FileNotFoundError:
        if os.path.islink(root):
            return "is a symbolic link to nothing; point it at a directory or remove it"
        return None
    except NotADirectoryError:
        return "cannot exist: a part of its path is a file; choose another memory root"
    except OSError as error:
        return (
            f"cannot be looked at ({os.strerror(error.errno or 0)}); fix the permissions above it"
        )
    if not stat.S_ISDIR(status.st_mode):
        kind = "a regular file" if stat.S_ISREG(status.st_mode) else "not a directory"
        return f"is {kind}; move it away or set {ROOT_VARIABLE} to a directory"
    if not os.access(root, os.R_OK | os.X_OK):
        mode = stat.S_IMODE(status.st_mode)
        return f"cannot be read by this user (mode {mode:04o}); run: chmod u+rx {root}"
    return None


# --- the settings file -------------------------------------------------------------------


def settings_path(environ: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """Where the settings file is looked for: ``<home>/.mnemosyne/config.toml``."""
    env = os.environ if environ is None else environ
    return (home if home is not None else _home_directory(env)) / _APP_DIRECTORY / _SETTINGS_FILE


def _refuse(code: str, source: Path, problem: SettingsProblem | str) -> NoReturn:
    if isinstance(problem, str):
        problem = SettingsProblem(problem)
    raise SettingsError(code, source=source, problems=(problem,)) from None


def read_settings_file(path: Path) -> dict[str, bool | int] | None:
    """The gates and the limit the settings file at ``path`` sets, or None without a file.

    Runs every check of the loader, in its order, and raises the same ``SettingsError``.
    """
    data = _settings_bytes(path)
    if data is None:
        return None
    document, text = _parse_toml(data, path)
    problems = schema_problems(document, text)
    if problems:
        raise SettingsError("invalid_schema", source=path, problems=problems) from None
    section: dict[str, bool | int] = document.get(_SECTION, {})
    return dict(section)


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
    return _read_through_descriptors(directory, directory_stat, file_stat)


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
    directory: Path, directory_stat: os.stat_result, file_stat: os.stat_result
) -> bytes | None:
    """Re-check both objects on open descriptors, then read; None if the file vanished."""
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
        return _read_settings_at(directory_fd, file_stat, directory / _SETTINGS_FILE)
    finally:
        os.close(directory_fd)


def _read_settings_at(directory_fd: int, file_stat: os.stat_result, path: Path) -> bytes | None:
    # O_NONBLOCK keeps a FIFO swapped in after the lstat from blocking the open.
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY
    file_fd = _os_call(path, lambda: os.open(_SETTINGS_FILE, flags, dir_fd=directory_fd))
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


def schema_problems(document: Mapping[str, Any], text: str) -> tuple[SettingsProblem, ...]:
    """Everything in a parsed settings document that the rules refuse, in document order."""
    problems: list[SettingsProblem] = []
    for name, value in document.items():
        if name != _SECTION:
            problems.append(_unknown_top_level(name, value, text))
    section = document.get(_SECTION, {})
    if not isinstance(section, dict):
        problems.append(_section_not_a_table(section, text))
        return tuple(problems)
    for key, value in section.items():
        if key not in _SETTING_KEYS:
            problems.append(_unknown_key(key, text))
        elif key == LIMIT_KEY:
            if not _usable_limit(value):
                problems.append(_not_a_limit(value, text))
        elif type(value) is not bool:
            problems.append(_not_a_boolean(key, value, text))
    return tuple(problems)


def _unknown_top_level(name: str, value: Any, text: str) -> SettingsProblem:
    line, column = _position(text, None, name)
    if name in _SETTING_KEYS:
        return SettingsProblem(f"'{name}' must be inside the [memory] table", line, column)
    shown = _shown_key(name)
    hint = _suggestion(name, (_SECTION,), "[memory]") or "the only table is [memory]"
    kind = "table" if isinstance(value, dict) else "key"
    return SettingsProblem(f"unknown {kind} {shown}; {hint}", line, column)


def _section_not_a_table(section: Any, text: str) -> SettingsProblem:
    line, column = _position(text, None, _SECTION)
    if isinstance(section, list):
        return SettingsProblem("[[memory]] must be a single [memory] table", line, column)
    return SettingsProblem(
        "'memory' must be a table: a [memory] line with keys below", line, column
    )


def _unknown_key(key: str, text: str) -> SettingsProblem:
    line, column = _position(text, _SECTION, key)
    known = ", ".join(sorted(_SETTING_KEYS))
    hint = _suggestion(key, _SETTING_KEYS, None) or f"the known keys are {known}"
    return SettingsProblem(f"unknown key {_shown_key(key)} in [memory]; {hint}", line, column)


def _not_a_boolean(key: str, value: Any, text: str) -> SettingsProblem:
    line, column = _position(text, _SECTION, key)
    kind = "a string (remove the quotes)" if isinstance(value, str) else f"a {_toml_kind(value)}"
    return SettingsProblem(f"'{key}' must be true or false, not {kind}", line, column)


def _usable_limit(value: Any) -> bool:
    return type(value) is int and DEFAULT_CANDIDATE_LIMIT <= value <= MAX_CANDIDATE_LIMIT


def _not_a_limit(value: Any, text: str) -> SettingsProblem:
    line, column = _position(text, _SECTION, LIMIT_KEY)
    if type(value) is int:
        kind = "a number outside that range"
    elif isinstance(value, float):
        kind = "a number with a fraction"
    elif isinstance(value, str):
        kind = "a string (remove the quotes)"
    elif isinstance(value, bool):
        kind = "a boolean"
    else:
        kind = {"array": "an array"}.get(_toml_kind(value), f"a {_toml_kind(value)}")
    return SettingsProblem(f"'{LIMIT_KEY}' must be {limit_rule()}, not {kind}", line, column)


def _toml_kind(value: Any) -> str:
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "table"
    return "date or time"


_SAFE_KEY = re.compile(r"[A-Za-z0-9_.-]{1,64}")


def _shown_key(key: str) -> str:
    """A key as it may be shown back: plain names only, never arbitrary quoted text."""
    return f"'{key}'" if _SAFE_KEY.fullmatch(key) else "(a quoted key)"


def _suggestion(key: str, known: Iterable[str], shown: str | None) -> str | None:
    if not _SAFE_KEY.fullmatch(key):
        return None
    close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
    if not close:
        return None
    return f"did you mean {shown or repr(close[0])}?"


_TABLE_HEADER = re.compile(r"^\s*\[\[?\s*(?P<name>[A-Za-z0-9_-]+)\s*\]")


def _position(text: str, table: str | None, key: str) -> tuple[int | None, int | None]:
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
