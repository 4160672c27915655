"""The test harness's own rules: shared pieces live in support modules, each exactly once."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.processes import REPO_ROOT


def _is_python_script(path: Path) -> bool:
    return path.is_file() and path.read_bytes().startswith(b"#!/usr/bin/env python3")


# Everything that starts servers or shares test pieces: tests, benchmarks, Python scripts.
HARNESS_FILES = sorted(
    [
        *(REPO_ROOT / "tests").rglob("*.py"),
        *(REPO_ROOT / "bench").glob("*.py"),
        *filter(_is_python_script, (REPO_ROOT / "scripts").iterdir()),
    ]
)


def _where(path: Path) -> str:
    return path.relative_to(REPO_ROOT).as_posix()


def _imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, and every name it imports from one (as ``module.name``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def _is_test_module(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return name.startswith("tests.") and (last == "conftest" or last.startswith("test_"))


def test_nothing_imports_a_test_module_or_a_conftest() -> None:
    offenders = {
        _where(path): sorted(filter(_is_test_module, _imported_modules(path)))
        for path in HARNESS_FILES
    }
    assert {where: names for where, names in offenders.items() if names} == {}


def test_the_process_helpers_are_defined_once() -> None:
    helper = re.compile(
        r"^\s*def (_?free_port|_?child_environment|server_environment|_?wait_(?:for|until)_\w+)\(",
        re.MULTILINE,
    )
    defined = {_where(path): helper.findall(path.read_text("utf-8")) for path in HARNESS_FILES}
    assert {where: names for where, names in defined.items() if names} == {
        "tests/processes.py": ["free_port", "child_environment", "wait_until_healthy"]
    }


def test_only_the_contract_pin_types_the_four_gate_variables() -> None:
    gate = re.compile(r"MNEMOSYNE_MEMORY_[A-Z_]+_ENABLED")
    typed = {
        _where(path)
        for path in HARNESS_FILES
        if len(set(gate.findall(path.read_text(encoding="utf-8")))) == 4
    }
    assert typed == {"tests/mnemosyne/configuration/settings_support.py"}


def test_the_plugin_s_tests_mirror_its_packages() -> None:
    # Each package folder of the plugin has its test folder at the same place below
    # tests/mnemosyne, and no test folder there is left without its package.
    plugin = REPO_ROOT / "mymcp" / "plugins" / "mnemosyne"
    tests = REPO_ROOT / "tests" / "mnemosyne"
    packages = {
        init.parent.relative_to(plugin).as_posix() for init in plugin.rglob("*/__init__.py")
    }
    folders = {
        path.parent.relative_to(tests).as_posix()
        for path in tests.rglob("*/*.py")
        if "__pycache__" not in path.parts
    }

    assert "memory/storage" in packages
    assert packages == folders
