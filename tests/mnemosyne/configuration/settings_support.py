"""What the configuration tests share: the variables, the fixed messages, files on disk."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mymcp.plugins.mnemosyne.configuration.gates import MutationSettings, load_mutation_settings
from mymcp.plugins.mnemosyne.configuration.settings_file import SettingsError

REMEMBER = "MNEMOSYNE_MEMORY_REMEMBER_ENABLED"
ARCHIVE_RESTORE = "MNEMOSYNE_MEMORY_ARCHIVE_RESTORE_ENABLED"
FORGET = "MNEMOSYNE_MEMORY_FORGET_ENABLED"
REVISE = "MNEMOSYNE_MEMORY_REVISE_ENABLED"
ALL_VARIABLES = (REMEMBER, ARCHIVE_RESTORE, FORGET, REVISE)
LIMIT = "MNEMOSYNE_MEMORY_CANDIDATE_LIMIT"
LIMIT_MESSAGE = f"{LIMIT} must be a whole number from 1000 through 1000000"

# Pinned independently of the module so a wording drift fails here.
MESSAGES = {
    "invalid_toml": "Mnemosyne settings file is not valid TOML",
    "invalid_schema": "Mnemosyne settings file has an invalid schema",
    "unreadable": "Mnemosyne settings file could not be read",
    "not_regular": "Mnemosyne settings source is not a regular file",
    "unsafe_path": "Mnemosyne settings file path is unsafe",
    "too_large": "Mnemosyne settings file exceeds 16384 bytes",
    "unsafe_permissions": "Mnemosyne settings source permissions are unsafe",
}

ALL_ON = MutationSettings(True, True, True, True)
ALL_OFF = MutationSettings()
VALID_FILE = b"[memory]\nremember_enabled = true\n"


def app_dir(home: Path, mode: int = 0o700) -> Path:
    directory = home / ".mnemosyne"
    directory.mkdir(exist_ok=True)
    directory.chmod(mode)
    return directory


def write_settings(home: Path, data: bytes | str, mode: int = 0o600) -> Path:
    path = app_dir(home) / "config.toml"
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    path.chmod(mode)
    return path


def snapshot(root: Path) -> dict[str, tuple[int, int, int, bytes | None]]:
    entries: dict[str, tuple[int, int, int, bytes | None]] = {}
    for current, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(current) / name
            info = path.lstat()
            content = path.read_bytes() if stat.S_ISREG(info.st_mode) else None
            key = str(path.relative_to(root))
            entries[key] = (info.st_mode, info.st_size, info.st_mtime_ns, content)
    return entries


def expect_error(code: str, **kwargs: Any) -> SettingsError:
    with pytest.raises(SettingsError) as caught:
        load_mutation_settings(**kwargs)
    error = caught.value
    assert error.code == code
    assert str(error) == MESSAGES[code]
    assert error.message == MESSAGES[code]
    assert error.__cause__ is None
    assert error.__suppress_context__ is True
    assert error.__context__ is None
    return error


def before_directory_open(monkeypatch: pytest.MonkeyPatch, action: Callable[[], object]) -> None:
    """Run `action` once, after the lstat checks and just before the no-follow opens."""
    real_open = os.open
    done = False

    def patched(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        nonlocal done
        if not done and str(path).endswith(".mnemosyne"):
            done = True
            action()
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", patched)
