"""Startup failures of the production factory (HOST_AND_PROTOCOL §4, MEMORY_READ §1.2-§1.5).

Bad operator settings must stop ``create_production_app()`` with a fixed message; under
Uvicorn the process exits 1 and serves nothing.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from mymcp.app import create_production_app
from mymcp.plugins.mnemosyne.configuration.memory_root import MemoryRootError
from mymcp.plugins.mnemosyne.configuration.settings_file import SettingsError
from tests.processes import child_environment, finished, free_port, run_mymcp, uvicorn_command
from tests.surface import GATE_OF, GATE_VARIABLES, LIMIT_VARIABLE

ErrorT = TypeVar("ErrorT", bound=Exception)
INVALID_GATE_VALUES = ["True", "TRUE", "1", "0", "", "yes", " true", "false\n", "on"]
INVALID_LIMIT_VALUES = ["", "999", "1000001", "1e5", "5_000", " 5000", "+5000", "-1", "lots"]
LIMIT_ERROR = f"{LIMIT_VARIABLE} must be a whole number from 1000 through 1000000"


@pytest.fixture(autouse=True)
def restore_logging() -> Iterator[None]:
    """The factory configures logging before it fails; put the previous state back."""
    levels = {name: logging.getLogger(name).level for name in ("", "mcp", "mymcp")}
    handlers = list(logging.getLogger().handlers)
    yield
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)
    logging.getLogger().handlers[:] = handlers


def _refused(expected: type[ErrorT]) -> ErrorT:
    """What the production factory raised, which must be an ``expected``."""
    with pytest.raises(expected) as caught:
        create_production_app()
    return caught.value


def _gate_error(variable: str) -> str:
    return f"{variable} must be 'true' or 'false'"


# --- mutation gates ---------------------------------------------------------------------------


@pytest.mark.parametrize("variable", GATE_VARIABLES)
@pytest.mark.parametrize("value", INVALID_GATE_VALUES, ids=repr)
def test_an_invalid_gate_value_stops_the_factory(
    variable: str, value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(variable, value)
    caught = _refused(ValueError)
    assert type(caught) is ValueError
    assert str(caught) == _gate_error(variable)


@pytest.mark.parametrize("variable", GATE_VARIABLES)
def test_the_gate_error_never_echoes_the_value(
    variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = "Leak-Marker-7f3a"
    monkeypatch.setenv(variable, marker)
    caught = _refused(ValueError)
    assert marker not in str(caught)
    assert marker not in repr(caught.args)


def test_the_first_invalid_gate_in_parse_order_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(GATE_OF["revise"], "1")
    monkeypatch.setenv(GATE_OF["forget"], "")
    monkeypatch.setenv(GATE_OF["archive_restore"], "True")
    monkeypatch.setenv(GATE_OF["remember"], "true")
    caught = _refused(ValueError)
    assert str(caught) == _gate_error(GATE_OF["archive_restore"])


def test_an_invalid_gate_is_reported_before_the_settings_file(
    hermetic_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _settings_file(hermetic_home, b"[memory\n")
    monkeypatch.setenv(GATE_OF["forget"], "False")
    caught = _refused(ValueError)
    assert not isinstance(caught, SettingsError)
    assert str(caught) == _gate_error(GATE_OF["forget"])


# --- the settings file ------------------------------------------------------------------------


def _settings_file(home: Path, content: bytes, *, mode: int = 0o600) -> Path:
    directory = home / ".mnemosyne"
    directory.mkdir(mode=0o700, exist_ok=True)
    os.chmod(directory, 0o700)
    path = directory / "config.toml"
    path.write_bytes(content)
    os.chmod(path, mode)
    return path


def _writes(content: bytes, *, mode: int = 0o600) -> Callable[[Path], None]:
    """An arrangement that writes ``content`` as the settings file, with ``mode``."""

    def arrange(home: Path) -> None:
        _settings_file(home, content, mode=mode)

    return arrange


_bad_toml = _writes(b"[memory\nremember_enabled = true\n")
_bom = _writes(b"\xef\xbb\xbf[memory]\nremember_enabled = true\n")
_not_utf8 = _writes(b"# \xff\n[memory]\n")
_unknown_key = _writes(b"[memory]\nremember = true\n")
_unknown_table = _writes(b"[server]\nport = 8000\n")
_string_boolean = _writes(b'[memory]\nremember_enabled = "true"\n')
_array_of_tables = _writes(b"[[memory]]\nremember_enabled = true\n")
_group_writable_file = _writes(b"[memory]\n", mode=0o620)
_other_writable_file = _writes(b"[memory]\n", mode=0o602)
_too_large = _writes(b"#" * 16384 + b"\n")


def _group_writable_directory(home: Path) -> None:
    _settings_file(home, b"[memory]\n")
    os.chmod(home / ".mnemosyne", 0o770)


def _settings_directory(home: Path) -> Path:
    """An empty private ``~/.mnemosyne``."""
    directory = home / ".mnemosyne"
    directory.mkdir(mode=0o700)
    os.chmod(directory, 0o700)
    return directory


def _symlinked_file(home: Path) -> None:
    target = home / "elsewhere.toml"
    target.write_bytes(b"[memory]\nremember_enabled = true\n")
    os.chmod(target, 0o600)
    (_settings_directory(home) / "config.toml").symlink_to(target)


def _dangling_symlink(home: Path) -> None:
    (_settings_directory(home) / "config.toml").symlink_to(home / "missing.toml")


def _symlinked_directory(home: Path) -> None:
    real = home / "real-settings"
    real.mkdir(mode=0o700)
    os.chmod(real, 0o700)
    (real / "config.toml").write_bytes(b"[memory]\n")
    os.chmod(real / "config.toml", 0o600)
    (home / ".mnemosyne").symlink_to(real, target_is_directory=True)


def _directory_as_file(home: Path) -> None:
    (_settings_directory(home) / "config.toml").mkdir()


SETTINGS_CASES = [
    pytest.param(_bad_toml, "Mnemosyne settings file is not valid TOML", id="bad-toml"),
    pytest.param(_bom, "Mnemosyne settings file is not valid TOML", id="bom"),
    pytest.param(_not_utf8, "Mnemosyne settings file is not valid TOML", id="not-utf8"),
    pytest.param(_unknown_key, "Mnemosyne settings file has an invalid schema", id="unknown-key"),
    pytest.param(_unknown_table, "Mnemosyne settings file has an invalid schema", id="table"),
    pytest.param(_string_boolean, "Mnemosyne settings file has an invalid schema", id="string"),
    pytest.param(_array_of_tables, "Mnemosyne settings file has an invalid schema", id="aot"),
    pytest.param(
        _group_writable_file,
        "Mnemosyne settings source permissions are unsafe",
        id="group-writable-file",
    ),
    pytest.param(
        _other_writable_file,
        "Mnemosyne settings source permissions are unsafe",
        id="other-writable-file",
    ),
    pytest.param(
        _group_writable_directory,
        "Mnemosyne settings source permissions are unsafe",
        id="group-writable-directory",
    ),
    pytest.param(_symlinked_file, "Mnemosyne settings file path is unsafe", id="symlink"),
    pytest.param(_dangling_symlink, "Mnemosyne settings file path is unsafe", id="dangling"),
    pytest.param(
        _symlinked_directory, "Mnemosyne settings file path is unsafe", id="symlinked-directory"
    ),
    pytest.param(
        _directory_as_file, "Mnemosyne settings source is not a regular file", id="directory"
    ),
    pytest.param(_too_large, "Mnemosyne settings file exceeds 16384 bytes", id="too-large"),
]


@pytest.mark.parametrize(("arrange", "message"), SETTINGS_CASES)
def test_an_invalid_settings_file_stops_the_factory(
    arrange: Callable[[Path], None], message: str, hermetic_home: Path
) -> None:
    arrange(hermetic_home)
    caught = _refused(SettingsError)
    assert str(caught) == message
    assert caught.__cause__ is None
    assert caught.__context__ is None
    assert str(hermetic_home) not in str(caught)


def test_an_invalid_settings_file_fails_even_when_the_environment_overrides_it(
    hermetic_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _unknown_key(hermetic_home)
    for variable in GATE_VARIABLES[:3]:
        monkeypatch.setenv(variable, "true")
    caught = _refused(SettingsError)
    assert str(caught) == "Mnemosyne settings file has an invalid schema"


def test_a_fully_set_environment_never_consults_the_settings_file(
    hermetic_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _bad_toml(hermetic_home)
    for variable in GATE_VARIABLES:
        monkeypatch.setenv(variable, "false")
    monkeypatch.setenv(LIMIT_VARIABLE, "1000")
    assert create_production_app() is not None


def test_the_settings_file_is_read_while_the_limit_variable_is_unset(
    hermetic_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _bad_toml(hermetic_home)
    for variable in GATE_VARIABLES:
        monkeypatch.setenv(variable, "false")
    caught = _refused(SettingsError)
    assert str(caught) == "Mnemosyne settings file is not valid TOML"


# --- the candidate limit ----------------------------------------------------------------------


@pytest.mark.parametrize("value", INVALID_LIMIT_VALUES, ids=repr)
def test_an_invalid_candidate_limit_stops_the_factory(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(LIMIT_VARIABLE, value)
    caught = _refused(ValueError)
    assert str(caught) == LIMIT_ERROR
    assert value not in str(caught) or value == ""


def test_an_invalid_candidate_limit_is_reported_before_the_settings_file(
    hermetic_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _settings_file(hermetic_home, b"[memory\n")
    monkeypatch.setenv(LIMIT_VARIABLE, "lots")
    caught = _refused(ValueError)
    assert not isinstance(caught, SettingsError)
    assert str(caught) == LIMIT_ERROR


# --- under Uvicorn ----------------------------------------------------------------------------


def _accepts_connections(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.slow  # starts a process
def test_uvicorn_exits_with_status_1_and_serves_nothing(hermetic_home: Path) -> None:
    port = free_port()
    env = child_environment(hermetic_home, None, {GATE_OF["remember"]: "yes"})
    completed = finished(uvicorn_command(port), env, timeout=20)
    assert completed.returncode == 1, completed.stderr
    lines = completed.stderr.strip().splitlines()
    assert lines[-1] == f"ValueError: {_gate_error(GATE_OF['remember'])}"
    assert "Traceback" in completed.stderr
    assert "yes" not in completed.stderr
    assert "Uvicorn running" not in completed.stderr
    assert "startup complete" not in completed.stderr
    assert not _accepts_connections(port)


# --- the commands: one or two plain lines, exit 1 ---------------------------------------------

COMMANDS = {
    "mymcp": [],
    "mymcp serve": ["serve"],
    "mymcp stdio": ["stdio"],
    "mymcp --port": ["--port", "{port}"],
}


def _root_is_a_file(home: Path) -> dict[str, str]:
    target = home / "memory-file"
    target.write_text("not a folder")
    return {"MNEMOSYNE_MEMORY_ROOT": str(target)}


def _root_below_a_file(home: Path) -> dict[str, str]:
    (home / "plain").write_text("x")
    return {"MNEMOSYNE_MEMORY_ROOT": str(home / "plain" / "memory")}


def _dangling_root(home: Path) -> dict[str, str]:
    (home / "link").symlink_to(home / "gone")
    return {"MNEMOSYNE_MEMORY_ROOT": str(home / "link")}


def _with_settings(arrange: Callable[[Path], object]) -> Callable[[Path], dict[str, str]]:
    def prepare(home: Path) -> dict[str, str]:
        arrange(home)
        return {}

    return prepare


# (arrange -> extra environment, first line, what the second line must name)
SETUP_FAILURES = [
    pytest.param(
        lambda home: {GATE_OF["remember"]: "maybe"},
        _gate_error(GATE_OF["remember"]),
        [GATE_OF["remember"], "true or false"],
        id="gate",
    ),
    pytest.param(
        lambda home: {LIMIT_VARIABLE: "maybe"},
        LIMIT_ERROR,
        [LIMIT_VARIABLE, "from 1000 through 1000000", "unset it"],
        id="limit",
    ),
    pytest.param(
        _with_settings(_writes(b"[memory]\ncandidate_limit = 50\n")),
        "Mnemosyne settings file has an invalid schema",
        ["config.toml, line 2, column 1", "'candidate_limit' must be a whole number"],
        id="limit-file",
    ),
    pytest.param(
        _with_settings(_bad_toml),
        "Mnemosyne settings file is not valid TOML",
        ["{home}/.mnemosyne/config.toml", "line 1, column 8"],
        id="toml",
    ),
    pytest.param(
        _with_settings(_writes(b"[memory]\nremeber_enabled = true\n")),
        "Mnemosyne settings file has an invalid schema",
        ["config.toml, line 2, column 1", "'remeber_enabled'", "did you mean 'remember_enabled'"],
        id="typo",
    ),
    pytest.param(
        _with_settings(_string_boolean),
        "Mnemosyne settings file has an invalid schema",
        ["line 2, column 1", "'remember_enabled' must be true or false", "quotes"],
        id="string",
    ),
    pytest.param(
        _with_settings(_group_writable_file),
        "Mnemosyne settings source permissions are unsafe",
        ["mode 0620", "chmod go-w {home}/.mnemosyne/config.toml"],
        id="permissions",
    ),
    pytest.param(
        _with_settings(_symlinked_file),
        "Mnemosyne settings file path is unsafe",
        ["{home}/.mnemosyne/config.toml", "symbolic link"],
        id="symlink",
    ),
    pytest.param(
        _root_is_a_file,
        "Mnemosyne memory root is not a usable directory",
        ["{home}/memory-file", "MNEMOSYNE_MEMORY_ROOT", "a regular file"],
        id="root-file",
    ),
    pytest.param(
        _root_below_a_file,
        "Mnemosyne memory root is not a usable directory",
        ["{home}/plain/memory", "a part of its path is a file"],
        id="root-below-file",
    ),
    pytest.param(
        _dangling_root,
        "Mnemosyne memory root is not a usable directory",
        ["{home}/link", "symbolic link to nothing"],
        id="root-dangling",
    ),
]


def _run_mymcp(arguments: list[str], home: Path, extra: dict[str, str]) -> tuple[int, str, str]:
    port = str(free_port())
    words = [word.format(port=port) for word in arguments]
    completed = run_mymcp(words, child_environment(home, None, extra))
    return completed.returncode, completed.stdout, completed.stderr


def _matrix() -> list[Any]:
    """Every mistake with plain ``mymcp``; three of them with each other form."""
    cases = [pytest.param("mymcp", *case.values, id=f"mymcp-{case.id}") for case in SETUP_FAILURES]
    for command in list(COMMANDS)[1:]:
        cases += [
            pytest.param(command, *case.values, id=f"{command}-{case.id}")
            for case in SETUP_FAILURES
            if case.id in {"gate", "typo", "root-file"}
        ]
    return cases


@pytest.mark.slow  # starts a process
@pytest.mark.parametrize(("command", "arrange", "headline", "named"), _matrix())
def test_a_setup_mistake_stops_each_command_with_two_plain_lines(
    command: str,
    arrange: Callable[[Path], dict[str, str]],
    headline: str,
    named: list[str],
    hermetic_home: Path,
) -> None:
    extra = arrange(hermetic_home)

    code, out, err = _run_mymcp(COMMANDS[command], hermetic_home, extra)

    assert code == 1, err
    assert out == ""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 2, err
    assert lines[0] == f"mymcp: {headline}"
    for fragment in named:
        assert fragment.format(home=hermetic_home) in lines[1], lines[1]
    assert "maybe" not in err  # a rejected gate value is never shown


@pytest.mark.slow  # starts a process
def test_mymcp_dev_stops_on_a_setup_mistake_before_reloading(hermetic_home: Path) -> None:
    env = child_environment(hermetic_home, None, {GATE_OF["forget"]: "TRUE"})
    code = "import sys; from mymcp import cli; sys.argv = ['mymcp-dev']; sys.exit(cli.dev())"
    completed = finished([sys.executable, "-c", code], env)

    assert completed.returncode == 1
    assert completed.stderr.splitlines()[0] == (f"mymcp: {_gate_error(GATE_OF['forget'])}")
    assert "Traceback" not in completed.stderr


@pytest.mark.slow  # starts a process
def test_under_uvicorn_the_traceback_ends_with_the_same_clear_message(
    hermetic_home: Path,
) -> None:
    _settings_file(hermetic_home, b"[memory]\nforget = true\n")
    env = child_environment(hermetic_home, None)
    completed = finished(uvicorn_command(free_port()), env)
    _, _, cli_err = _run_mymcp([], hermetic_home, {})

    assert completed.returncode == 1
    assert "Traceback" in completed.stderr
    lines = completed.stderr.strip().splitlines()
    assert lines[-2].endswith("SettingsError: Mnemosyne settings file has an invalid schema")
    assert lines[-1] == cli_err.splitlines()[1]
    assert f"{hermetic_home}/.mnemosyne/config.toml, line 2, column 1" in lines[-1]


def test_the_factory_refuses_a_memory_root_that_is_a_file(
    hermetic_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(
        "MNEMOSYNE_MEMORY_ROOT", str(_root_is_a_file(hermetic_home)["MNEMOSYNE_MEMORY_ROOT"])
    )

    caught = _refused(MemoryRootError)

    assert str(caught) == "Mnemosyne memory root is not a usable directory"
    assert caught.__notes__ == [
        f"{hermetic_home}/memory-file (from MNEMOSYNE_MEMORY_ROOT) is a regular file; "
        "move it away or set MNEMOSYNE_MEMORY_ROOT to a directory"
    ]


@pytest.mark.parametrize(("arrange", "message"), SETTINGS_CASES)
def test_each_refused_settings_file_carries_a_note_naming_its_path(
    arrange: Callable[[Path], None], message: str, hermetic_home: Path
) -> None:
    arrange(hermetic_home)
    caught = _refused(SettingsError)

    [note] = caught.__notes__
    assert note.startswith(f"{hermetic_home}/.mnemosyne")
    assert caught.message == message


def test_a_missing_memory_root_is_fine_at_startup(
    hermetic_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MNEMOSYNE_MEMORY_ROOT", str(hermetic_home / "not" / "yet"))

    assert create_production_app() is not None
    assert not (hermetic_home / "not").exists()
