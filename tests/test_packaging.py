"""Package metadata facts from ``pyproject.toml`` and the host identity constants."""

from __future__ import annotations

import importlib
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from mymcp import settings

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def pyproject() -> dict[str, Any]:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        return tomllib.load(handle)


def requirement_name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9._-]+(\[[^\]]*\])?", requirement)
    assert match, requirement
    return match.group(0).lower()


def test_name_version_and_description(pyproject: dict[str, Any]) -> None:
    project = pyproject["project"]

    assert project["name"] == "mymcp"
    assert settings.SERVER_VERSION == "0.2.0"
    assert project["description"] == (
        "Local-first MCP host for narrowly scoped integrations, with bundled Mnemosyne memory."
    )


def test_python_readme_and_license(pyproject: dict[str, Any]) -> None:
    project = pyproject["project"]

    assert project["requires-python"] == ">=3.11"
    assert project["readme"] == "README.md"
    assert (ROOT / "README.md").is_file()
    assert project["license"] == "Apache-2.0"


def test_an_spdx_license_string_has_a_build_floor_that_understands_it(
    pyproject: dict[str, Any],
) -> None:
    requires = pyproject["build-system"]["requires"]
    floors = [re.fullmatch(r"setuptools>=(\d+)(\.\d+)*", item) for item in requires]
    floor = next(int(match.group(1)) for match in floors if match)

    assert pyproject["build-system"]["build-backend"] == "setuptools.build_meta"
    assert isinstance(pyproject["project"]["license"], str)
    assert floor >= 77


def test_no_person_or_foreign_repository_is_named(pyproject: dict[str, Any]) -> None:
    project = pyproject["project"]

    assert "urls" not in project
    assert "maintainers" not in project
    for author in project.get("authors", []):
        assert set(author) == {"name"} and author["name"].lower() in {"mymcp", "the mymcp project"}


def test_runtime_dependencies_are_fastapi_and_uvicorn_unpinned(pyproject: dict[str, Any]) -> None:
    dependencies = pyproject["project"]["dependencies"]
    names = {requirement_name(item) for item in dependencies}

    assert {"fastapi", "uvicorn[standard]"} <= names
    for item in dependencies:
        if requirement_name(item) in {"fastapi", "uvicorn[standard]"}:
            assert item == requirement_name(item)


def test_the_content_policy_brings_python_stdnum_from_its_first_complete_release(
    pyproject: dict[str, Any],
) -> None:
    assert "python-stdnum>=2.1" in pyproject["project"]["dependencies"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "python-stdnum" in readme and "LGPL-2.1-or-later" in readme


def test_the_test_extra_brings_pytest(pyproject: dict[str, Any]) -> None:
    extra = {
        requirement_name(item) for item in pyproject["project"]["optional-dependencies"]["test"]
    }

    assert "pytest" in extra


def test_console_scripts(pyproject: dict[str, Any]) -> None:
    scripts = pyproject["project"]["scripts"]

    assert scripts == {
        "mymcp": "mymcp.cli:main",
        "mymcp-dev": "mymcp.cli:dev",
        "mymcp-test": "mymcp.cli:test",
    }
    for target in scripts.values():
        module, _, function = target.partition(":")
        assert callable(getattr(importlib.import_module(module), function))


def test_every_package_ships_its_data_files(pyproject: dict[str, Any]) -> None:
    package_data = pyproject["tool"]["setuptools"]["package-data"]

    assert list(package_data) == ["*"]  # every package, not a list that new folders miss
    assert {"*.json", "*.txt", "*.toml", "*.html", "*.css", "*.js"} <= set(package_data["*"])
    manifest = ROOT / "mymcp" / "plugins" / "mnemosyne" / "manifest.json"
    assert json.loads(manifest.read_bytes())["id"] == "mnemosyne"


def test_pytest_configuration(pyproject: dict[str, Any]) -> None:
    options = pyproject["tool"]["pytest"]["ini_options"]

    assert "--import-mode=importlib" in options["addopts"].split()
    assert options["testpaths"] == ["tests"]


def test_settings_hold_only_the_host_identity() -> None:
    public = {name for name in vars(settings) if not name.startswith("_")}

    assert public - {"annotations"} == {
        "SERVER_NAME",
        "SERVER_VERSION",
        "PROTOCOL_VERSION",
        "SUPPORTED_PROTOCOL_VERSIONS",
        "MODERN_PROTOCOL_VERSIONS",  # the stateless revision 2026-07-28 (issue 14)
        "APP_TITLE",
    }
    assert settings.SERVER_NAME == "mymcp"
    assert settings.PROTOCOL_VERSION == "2024-11-05"
    assert settings.APP_TITLE == "MyMCP"
