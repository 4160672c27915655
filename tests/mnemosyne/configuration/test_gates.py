"""Tests for configuration/gates.py: the gate variables, the [memory] table, the limit."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mymcp.plugins.mnemosyne.configuration import gates, memory_root, settings_file
from mymcp.plugins.mnemosyne.configuration.gates import (
    GATE_VARIABLES,
    LIMIT_KEY,
    LIMIT_VARIABLE,
    MutationSettings,
    Settings,
    load_mutation_settings,
    load_settings,
)
from mymcp.plugins.mnemosyne.configuration.memory_root import ROOT_VARIABLE
from mymcp.plugins.mnemosyne.configuration.settings_file import SettingsProblem
from tests.mnemosyne.configuration.settings_support import (
    ALL_OFF,
    ALL_ON,
    ALL_VARIABLES,
    ARCHIVE_RESTORE,
    FORGET,
    LIMIT,
    LIMIT_MESSAGE,
    REMEMBER,
    REVISE,
    VALID_FILE,
    app_dir,
    expect_error,
    snapshot,
    write_settings,
)

# --- environment gates -------------------------------------------------------------------


def test_gate_variables_are_listed_in_parse_order() -> None:
    assert GATE_VARIABLES == (
        (REMEMBER, "remember_enabled"),
        (ARCHIVE_RESTORE, "archive_restore_enabled"),
        (FORGET, "forget_enabled"),
        (REVISE, "revise_enabled"),
    )
    assert ROOT_VARIABLE == "MNEMOSYNE_MEMORY_ROOT"


def test_everything_is_disabled_without_environment_or_file(home: Path) -> None:
    assert load_mutation_settings() == ALL_OFF


@pytest.mark.parametrize(("variable", "key"), GATE_VARIABLES)
def test_each_variable_enables_only_its_own_gate(
    home: Path, monkeypatch: pytest.MonkeyPatch, variable: str, key: str
) -> None:
    monkeypatch.setenv(variable, "true")
    result = load_mutation_settings()
    assert {k: result.enabled(k) for _, k in GATE_VARIABLES} == {
        k: k == key for _, k in GATE_VARIABLES
    }


def test_explicit_false_overrides_file_true(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_settings(home, VALID_FILE)
    monkeypatch.setenv(REMEMBER, "false")
    assert load_mutation_settings().remember_enabled is False


_GATE_MESSAGE = f"{FORGET} must be 'true' or 'false'"
_BAD_GATES = ["", "True", "TRUE", "1", "0", "yes", " true", "false\n", "on"]
_BAD_LIMITS = ["", "999", "0", "1000001", "1e5", "5_000", " 5000", "5000 ", "+5000", "-1", "٥٠٠٠"]


@pytest.mark.parametrize(
    ("variable", "value", "load", "message"),
    [(FORGET, value, load_mutation_settings, _GATE_MESSAGE) for value in _BAD_GATES]
    + [(LIMIT, value, load_settings, LIMIT_MESSAGE) for value in _BAD_LIMITS],
)
def test_an_invalid_variable_is_named_and_refused_with_a_hint(
    home: Path, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, load: Any, message: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValueError) as caught:
        load()
    assert type(caught.value) is ValueError
    assert str(caught.value) == message
    hint = caught.value.setup_hint  # type: ignore[attr-defined]
    assert variable in hint and "unset it" in hint


def test_invalid_value_is_not_echoed(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(REVISE, "secret-value-7f3a")
    with pytest.raises(ValueError) as caught:
        load_mutation_settings()
    assert "secret-value-7f3a" not in str(caught.value)


def test_first_invalid_variable_in_row_order_wins(home: Path) -> None:
    # Mapping order is deliberately the reverse of the row order.
    environ = {REVISE: "nope", FORGET: "nope", ARCHIVE_RESTORE: "nope", "HOME": str(home)}
    with pytest.raises(ValueError, match=f"^{ARCHIVE_RESTORE} must be 'true' or 'false'$"):
        load_mutation_settings(environ)


@pytest.mark.parametrize(
    ("variable", "value", "load"),
    [(REVISE, "maybe", load_mutation_settings), (LIMIT, "many", load_settings)],
    ids=["gate", "limit"],
)
def test_the_environment_is_parsed_before_any_file_access(
    home: Path, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, load: Any
) -> None:
    write_settings(home, "not toml at all [", mode=0o666)
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValueError, match=variable):
        load()


def test_all_four_set_never_touches_the_filesystem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    for name in ("lstat", "stat", "open", "fstat", "read", "scandir", "listdir"):
        real = getattr(os, name)

        def spy(*args: Any, _name: str = name, _real: Any = real, **kwargs: Any) -> Any:
            calls.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(os, name, spy)
    environ = dict.fromkeys(ALL_VARIABLES, "true")
    environ["HOME"] = str(tmp_path / "does-not-exist")
    assert load_mutation_settings(environ) == ALL_ON
    assert calls == []


def test_all_four_set_ignores_an_invalid_file(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_settings(home, b"\xff\xfe garbage", mode=0o666)
    home.chmod(0o000)
    try:
        for variable in ALL_VARIABLES:
            monkeypatch.setenv(variable, "false")
        assert load_mutation_settings() == ALL_OFF
    finally:
        home.chmod(0o700)


def test_invalid_file_fails_even_when_environment_covers_its_keys(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_settings(home, "[memory]\nremember_enabled = 'true'\n")
    for variable in ALL_VARIABLES[:3]:
        monkeypatch.setenv(variable, "true")
    expect_error("invalid_schema")


def test_environment_wins_per_key_then_file_then_false(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_settings(home, "[memory]\nremember_enabled = true\nforget_enabled = true\n")
    monkeypatch.setenv(REMEMBER, "false")
    monkeypatch.setenv(REVISE, "true")
    assert load_mutation_settings() == MutationSettings(
        remember_enabled=False,
        archive_restore_enabled=False,
        forget_enabled=True,
        revise_enabled=True,
    )


def test_explicit_mapping_and_home_are_used_instead_of_process_state(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(REMEMBER, "garbage")  # ignored: an explicit mapping is given
    other_home = tmp_path / "other"
    other_home.mkdir()
    write_settings(other_home, "[memory]\nforget_enabled = true\n")
    result = load_mutation_settings({}, home=other_home)
    assert result == MutationSettings(forget_enabled=True)


def test_enabled_rejects_unknown_keys() -> None:
    with pytest.raises(KeyError):
        MutationSettings().enabled("enabled")


@settings(max_examples=150, deadline=None)
@given(variable=st.sampled_from(ALL_VARIABLES), value=st.text(max_size=40))
def test_any_other_string_is_refused_without_echo(variable: str, value: str) -> None:
    if value in ("true", "false"):
        return
    with pytest.raises(ValueError) as caught:
        load_mutation_settings({variable: value}, home=Path("/nonexistent-home"))
    assert str(caught.value) == f"{variable} must be 'true' or 'false'"


# --- the settings file: presence and accepted shapes ------------------------------------


def test_missing_application_directory_means_all_false(home: Path) -> None:
    assert load_mutation_settings() == ALL_OFF


def test_missing_settings_file_means_all_false(home: Path) -> None:
    app_dir(home)
    assert load_mutation_settings() == ALL_OFF


def test_missing_home_means_all_false(tmp_path: Path) -> None:
    assert load_mutation_settings({}, home=tmp_path / "absent") == ALL_OFF


def test_full_table_enables_every_gate(home: Path) -> None:
    write_settings(
        home,
        "[memory]\nremember_enabled = true\narchive_restore_enabled = true\n"
        "forget_enabled = true\nrevise_enabled = true\n",
    )
    assert load_mutation_settings() == ALL_ON


def test_inline_table_is_accepted(home: Path) -> None:
    write_settings(home, "memory = { revise_enabled = true, forget_enabled = false }\n")
    assert load_mutation_settings() == MutationSettings(revise_enabled=True)


@pytest.mark.parametrize("text", ["", "# nothing here\n", "[memory]\n", "memory = {}\n"])
def test_empty_documents_mean_all_false(home: Path, text: str) -> None:
    write_settings(home, text)
    assert load_mutation_settings() == ALL_OFF


@pytest.mark.parametrize(("dir_mode", "file_mode"), [(0o700, 0o600), (0o755, 0o644)])
def test_usual_modes_are_accepted(home: Path, dir_mode: int, file_mode: int) -> None:
    write_settings(home, VALID_FILE, mode=file_mode)
    app_dir(home, dir_mode)
    assert load_mutation_settings().remember_enabled is True


def test_file_of_exactly_the_limit_is_accepted(home: Path) -> None:
    padding = 16384 - len(VALID_FILE) - 1
    write_settings(home, VALID_FILE + b"#" * padding + b"\n")
    assert (home / ".mnemosyne" / "config.toml").stat().st_size == 16384
    assert load_mutation_settings().remember_enabled is True


def test_settings_file_is_opened_and_read_once(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_settings(home, VALID_FILE)
    opened: list[str] = []
    real_open = os.open

    def spy(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        opened.append(os.fsdecode(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", spy)
    load_mutation_settings()
    assert opened.count("config.toml") == 1
    assert [name for name in opened if name.endswith(".mnemosyne")] == [str(home / ".mnemosyne")]


@pytest.mark.parametrize("with_file", [False, True])
def test_loading_creates_and_changes_nothing(home: Path, with_file: bool) -> None:
    if with_file:
        write_settings(home, VALID_FILE)
    before = snapshot(home)
    load_mutation_settings()
    assert snapshot(home) == before


def test_failed_loading_creates_and_changes_nothing(home: Path) -> None:
    write_settings(home, VALID_FILE, mode=0o666)
    before = snapshot(home)
    expect_error("unsafe_permissions")
    assert snapshot(home) == before


@pytest.mark.parametrize(
    "text",
    [
        "[[memory]]\nremember_enabled = true\n",
        "memory = 1\n",
        "memory = true\n",
        "memory = 'remember_enabled'\n",
        "memory = []\n",
        "[memory]\nremember_enabled = true\nunknown = true\n",
        "[memory]\nREMEMBER_ENABLED = true\n",
        "[memory.remember_enabled]\n",
        "other = 1\n",
        "[other]\n[memory]\n",
        '[memory]\nremember_enabled = "true"\n',
        "[memory]\nforget_enabled = 1\n",
        "[memory]\nrevise_enabled = [true]\n",
    ],
    ids=[
        "array-of-tables",
        "integer",
        "boolean",
        "string",
        "array",
        "unknown-key",
        "wrong-case-key",
        "nested-table",
        "unknown-top-level",
        "extra-table",
        "string-true",
        "integer-flag",
        "array-flag",
    ],
)
def test_invalid_schema(home: Path, text: str) -> None:
    write_settings(home, text)
    expect_error("invalid_schema")


# --- the candidate limit ---------------------------------------------------------------------


def test_the_limit_is_named_and_defaults_to_the_contracts_bound(home: Path) -> None:
    assert (LIMIT_VARIABLE, LIMIT_KEY) == (LIMIT, "candidate_limit")
    assert load_settings() == Settings(ALL_OFF, 1000)


@pytest.mark.parametrize("value", ["1000", "1001", "100000", "1000000"])
def test_the_limit_variable_sets_the_limit(
    home: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv(LIMIT, value)
    assert load_settings().candidate_limit == int(value)


@settings(max_examples=150, deadline=None)
@given(value=st.text(max_size=12))
def test_any_other_limit_text_is_refused_without_echo(value: str) -> None:
    if value.isascii() and value.isdigit() and 1000 <= int(value) <= 1_000_000:
        return
    with pytest.raises(ValueError) as caught:
        load_settings({LIMIT: value}, home=Path("/nonexistent-home"))
    assert str(caught.value) == LIMIT_MESSAGE


def test_the_settings_file_sets_the_limit_and_the_variable_wins(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_settings(home, "[memory]\ncandidate_limit = 100_000\nforget_enabled = true\n")
    assert load_settings() == Settings(MutationSettings(forget_enabled=True), 100_000)
    monkeypatch.setenv(LIMIT, "5000")
    assert load_settings().candidate_limit == 5000
    assert load_mutation_settings() == MutationSettings(forget_enabled=True)


def test_all_five_variables_set_never_read_the_file(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_settings(home, b"\xff\xfe garbage", mode=0o666)
    for variable in ALL_VARIABLES:
        monkeypatch.setenv(variable, "true")
    monkeypatch.setenv(LIMIT, "2000")
    assert load_settings() == Settings(ALL_ON, 2000)


def test_the_file_is_read_when_only_the_limit_variable_is_unset(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_settings(home, "[memory]\ncandidate_limit = 3000\n")
    for variable in ALL_VARIABLES:
        monkeypatch.setenv(variable, "false")
    assert load_settings() == Settings(ALL_OFF, 3000)


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("999", "a number outside that range"),
        ("1_000_001", "a number outside that range"),
        ('"5000"', "a string (remove the quotes)"),
        ("5000.0", "a number with a fraction"),
        ("true", "a boolean"),
        ("[5000]", "an array"),
    ],
)
def test_an_unusable_limit_in_the_file_is_an_invalid_schema(
    home: Path, value: str, kind: str
) -> None:
    write_settings(home, f"[memory]\ncandidate_limit = {value}\n")
    error = expect_error("invalid_schema", home=home)
    (problem,) = error.problems
    rule = "'candidate_limit' must be a whole number from 1000 through 1000000"
    assert problem == SettingsProblem(f"{rule}, not {kind}", 2, 1)
    assert value.strip('"') not in problem.text


@pytest.mark.parametrize("module", [gates, memory_root, settings_file])
def test_module_has_no_host_or_web_imports(module: Any) -> None:
    source = Path(module.__file__).read_text()
    for forbidden in ("fastapi", "starlette", "mymcp.host", "mymcp.mcp", "mymcp.transports"):
        assert forbidden not in source
