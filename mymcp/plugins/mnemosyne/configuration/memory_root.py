"""Where Mnemosyne's memories live, and whether that place can serve.

The memory root is ``$MNEMOSYNE_MEMORY_ROOT`` when it is set and not empty, else
``~/.mnemosyne/memory``. It is ``~``-expanded against the environment the caller gives, but
never resolved, and nothing here creates it: the first remembered memory does. At startup
:func:`check_memory_root` refuses a root that exists but cannot be served with
:class:`MemoryRootError`, whose text is a fixed sentence and whose note says where and why.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from mymcp.plugin_api.setup import SetupError

__all__ = [
    "MEMORY_ROOT_ERROR_MESSAGE",
    "ROOT_VARIABLE",
    "MemoryRootError",
    "app_directory",
    "check_memory_root",
    "memory_root_problem",
    "resolve_memory_root",
]

ROOT_VARIABLE = "MNEMOSYNE_MEMORY_ROOT"
MEMORY_ROOT_ERROR_MESSAGE = "Mnemosyne memory root is not a usable directory"

_APP_DIRECTORY = ".mnemosyne"
_MEMORY_DIRECTORY = "memory"


class MemoryRootError(SetupError):
    """The memory root exists but cannot be served. The text is fixed; a note says where and why."""

    def __init__(self, root: Path, problem: str, source: str) -> None:
        super().__init__(MEMORY_ROOT_ERROR_MESSAGE)
        self.root = root
        self.problem = problem
        self.add_note(f"{os.path.abspath(root)} ({source}) {problem}")


def app_directory(env: Mapping[str, str], home: Path | None = None) -> Path:
    """``<home>/.mnemosyne``: the default root's parent and the settings file's directory.

    ``home`` defaults to ``$HOME`` of ``env``, else the process's home directory.
    """
    return (home if home is not None else _home_directory(env)) / _APP_DIRECTORY


def resolve_memory_root(environ: Mapping[str, str] | None = None) -> Path:
    """Return the memory root: ``$MNEMOSYNE_MEMORY_ROOT`` when non-empty, else the default.

    The path is ``~``-expanded but neither resolved nor checked; nothing is created.
    """
    env = os.environ if environ is None else environ
    configured = env.get(ROOT_VARIABLE, "")
    if configured:
        return _expand_user(configured, env)
    return app_directory(env) / _MEMORY_DIRECTORY


def _home_directory(env: Mapping[str, str]) -> Path:
    home = env.get("HOME")
    return Path(home) if home is not None else Path.home()


def _expand_user(value: str, env: Mapping[str, str]) -> Path:
    # Expand "~" against the same mapping the caller gave us; "~user" falls back to the OS.
    if value == "~" or value.startswith("~/"):
        return _home_directory(env) / value[2:]
    return Path(value).expanduser()


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
