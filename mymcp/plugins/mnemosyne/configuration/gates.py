"""The operator's switches: which mutation Tools are on, and how many files one scan may find.

Two inputs decide them: five environment variables (four gates and the candidate limit) and
the ``[memory]`` table of an optional ``~/.mnemosyne/config.toml``. The variables are parsed
first and win key by key; the file is consulted only when at least one of them is unset, and
then read once by :mod:`.settings_file`. Every gate is off unless something turns it on; the
candidate limit is the contract's 1,000 unless the operator raises it.

A bad variable raises ``ValueError`` (naming the variable, never its value, with a
``setup_hint``); a file that breaks a rule raises :class:`SettingsError` (``invalid_schema``,
each problem with its line and column).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from mymcp.plugins.mnemosyne.configuration.memory_root import app_directory
from mymcp.plugins.mnemosyne.configuration.settings_file import (
    SettingsError,
    SettingsProblem,
    key_position,
    read_document,
    shown_key,
    suggestion,
    toml_kind,
)
from mymcp.plugins.mnemosyne.memory.storage.files import MAX_CANDIDATES

__all__ = [
    "DEFAULT_CANDIDATE_LIMIT",
    "GATE_VARIABLES",
    "LIMIT_KEY",
    "LIMIT_VARIABLE",
    "MAX_CANDIDATE_LIMIT",
    "MutationSettings",
    "Settings",
    "candidate_limit_value",
    "gate_variable_values",
    "limit_rule",
    "load_mutation_settings",
    "load_settings",
    "read_settings_file",
    "schema_problems",
    "settings_path",
]

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

_SETTINGS_FILE = "config.toml"
_SECTION = "memory"
_ENV_VALUES = {"true": True, "false": False}


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


def settings_path(environ: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """Where the settings file is looked for: ``<home>/.mnemosyne/config.toml``."""
    env = os.environ if environ is None else environ
    return app_directory(env, home) / _SETTINGS_FILE


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


# --- the [memory] table ------------------------------------------------------------------


def read_settings_file(path: Path) -> dict[str, bool | int] | None:
    """The gates and the limit the settings file at ``path`` sets, or None without a file.

    Runs every check of the loader, in its order, and raises the same ``SettingsError``.
    """
    found = read_document(path)
    if found is None:
        return None
    document, text = found
    problems = schema_problems(document, text)
    if problems:
        raise SettingsError("invalid_schema", source=path, problems=problems) from None
    section: dict[str, bool | int] = document.get(_SECTION, {})
    return dict(section)


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
    line, column = key_position(text, None, name)
    if name in _SETTING_KEYS:
        return SettingsProblem(f"'{name}' must be inside the [memory] table", line, column)
    hint = suggestion(name, (_SECTION,), "[memory]") or "the only table is [memory]"
    kind = "table" if isinstance(value, dict) else "key"
    return SettingsProblem(f"unknown {kind} {shown_key(name)}; {hint}", line, column)


def _section_not_a_table(section: Any, text: str) -> SettingsProblem:
    line, column = key_position(text, None, _SECTION)
    if isinstance(section, list):
        return SettingsProblem("[[memory]] must be a single [memory] table", line, column)
    return SettingsProblem(
        "'memory' must be a table: a [memory] line with keys below", line, column
    )


def _unknown_key(key: str, text: str) -> SettingsProblem:
    line, column = key_position(text, _SECTION, key)
    known = ", ".join(sorted(_SETTING_KEYS))
    hint = suggestion(key, _SETTING_KEYS, None) or f"the known keys are {known}"
    return SettingsProblem(f"unknown key {shown_key(key)} in [memory]; {hint}", line, column)


def _not_a_boolean(key: str, value: Any, text: str) -> SettingsProblem:
    line, column = key_position(text, _SECTION, key)
    kind = "a string (remove the quotes)" if isinstance(value, str) else f"a {toml_kind(value)}"
    return SettingsProblem(f"'{key}' must be true or false, not {kind}", line, column)


def _usable_limit(value: Any) -> bool:
    return type(value) is int and DEFAULT_CANDIDATE_LIMIT <= value <= MAX_CANDIDATE_LIMIT


def _not_a_limit(value: Any, text: str) -> SettingsProblem:
    line, column = key_position(text, _SECTION, LIMIT_KEY)
    if type(value) is int:
        kind = "a number outside that range"
    elif isinstance(value, float):
        kind = "a number with a fraction"
    elif isinstance(value, str):
        kind = "a string (remove the quotes)"
    elif isinstance(value, bool):
        kind = "a boolean"
    else:
        kind = {"array": "an array"}.get(toml_kind(value), f"a {toml_kind(value)}")
    return SettingsProblem(f"'{LIMIT_KEY}' must be {limit_rule()}, not {kind}", line, column)
