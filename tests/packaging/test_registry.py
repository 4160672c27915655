"""server.json: MyMCP's entry for the MCP registry, and the README line that claims it.

The registry's published schema (revision 2025-12-11) is not part of the repository; it is
read from ``../shared/registry/`` beside the checkout when it is there, and that one test is
skipped, saying so, when it is not. The facts the entry must hold for MyMCP are checked
either way.
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from typing import Any

import jsonschema
import pytest

from mymcp import cli, settings
from mymcp.plugins.mnemosyne.configuration.gates import GATE_VARIABLES
from mymcp.plugins.mnemosyne.configuration.memory_root import ROOT_VARIABLE
from tests.processes import REPO_ROOT

SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
SCHEMA = REPO_ROOT.parent / "shared" / "registry" / "server.schema.2025-12-11.json"
NAME = re.compile(r"[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+")
GATES = {variable for variable, _ in GATE_VARIABLES}


@pytest.fixture(scope="module")
def entry() -> dict[str, Any]:
    document: dict[str, Any] = json.loads((REPO_ROOT / "server.json").read_text("utf-8"))
    return document


@pytest.fixture(scope="module")
def package(entry: dict[str, Any]) -> dict[str, Any]:
    [only] = entry["packages"]
    assert isinstance(only, dict)
    return only


def test_server_json_is_valid_against_the_registry_schema(entry: dict[str, Any]) -> None:
    if not SCHEMA.is_file():
        pytest.skip(f"the registry's schema is not at ../shared/registry/{SCHEMA.name}")
    schema = json.loads(SCHEMA.read_text("utf-8"))
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    renamed = copy.deepcopy(entry) | {"name": "no namespace"}

    assert schema["$id"] == entry["$schema"] == SCHEMA_URL
    assert [error.message for error in validator.iter_errors(entry)] == []
    assert not validator.is_valid(renamed)  # the validator does reject what it should


def test_the_entry_names_its_schema_and_a_namespaced_name(entry: dict[str, Any]) -> None:
    assert entry["$schema"] == SCHEMA_URL
    assert NAME.fullmatch(entry["name"])
    assert entry["name"].endswith(f"/{settings.SERVER_NAME}")
    assert 0 < len(entry["description"]) <= 100


def test_the_readme_carries_the_ownership_line_pypi_shows(entry: dict[str, Any]) -> None:
    readme = (REPO_ROOT / "README.md").read_text("utf-8")
    with (REPO_ROOT / "pyproject.toml").open("rb") as handle:
        assert tomllib.load(handle)["project"]["readme"] == "README.md"  # PyPI's description

    assert re.search(rf"^<!-- mcp-name: {re.escape(entry['name'])} -->$", readme, re.MULTILINE)


def test_the_package_is_mymcp_from_pypi_started_over_stdio(package: dict[str, Any]) -> None:
    with (REPO_ROOT / "pyproject.toml").open("rb") as handle:
        name = tomllib.load(handle)["project"]["name"]
    arguments = [argument["value"] for argument in package["packageArguments"]]

    assert (package["registryType"], package["identifier"]) == ("pypi", name)
    assert (package["runtimeHint"], package["transport"]) == ("uvx", {"type": "stdio"})
    assert [argument["type"] for argument in package["packageArguments"]] == ["positional"]
    assert cli.parse_arguments(arguments).command == "stdio"


def test_every_setting_variable_is_described_and_none_is_required(
    package: dict[str, Any],
) -> None:
    variables = {variable["name"]: variable for variable in package["environmentVariables"]}

    assert set(variables) == {ROOT_VARIABLE, *GATES}
    assert variables[ROOT_VARIABLE]["format"] == "filepath"
    for name, variable in variables.items():
        assert variable["description"].strip(), name
        assert variable["isRequired"] is False
        assert not variable.get("isSecret", False)
    for name in GATES:
        assert (variables[name]["format"], variables[name]["choices"]) == (
            "boolean",
            ["true", "false"],
        )
