"""One version, in mymcp/settings.py: the package, /version, serverInfo and server.json use it.

The wheel's metadata and the bundle's manifest are checked in test_wheel.py and
test_bundle.py, where they are built.
"""

from __future__ import annotations

import importlib.metadata
import json
import tomllib
from collections.abc import Callable

from mymcp import settings
from tests.helpers import McpClient
from tests.processes import REPO_ROOT


def test_the_package_version_is_read_from_settings() -> None:
    with (REPO_ROOT / "pyproject.toml").open("rb") as handle:
        pyproject = tomllib.load(handle)

    assert "version" not in pyproject["project"]
    assert pyproject["project"]["dynamic"] == ["version"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "mymcp.settings.SERVER_VERSION"
    }


def test_the_installed_metadata_names_the_settings_version() -> None:
    assert importlib.metadata.version("mymcp") == settings.SERVER_VERSION


def test_version_and_server_info_name_the_settings_version(
    mcp: Callable[..., McpClient],
) -> None:
    client = mcp()
    initialized = client.rpc("initialize", {"protocolVersion": "2025-11-25"})

    assert client.http.get("/version").json()["version"] == settings.SERVER_VERSION
    assert initialized["result"]["serverInfo"]["version"] == settings.SERVER_VERSION


def test_the_bundle_template_leaves_the_version_to_the_build() -> None:
    template = json.loads((REPO_ROOT / "bundle" / "manifest.json").read_text(encoding="utf-8"))

    assert "version" not in template  # scripts/build-bundle writes settings.SERVER_VERSION


def test_the_registry_entry_and_its_package_name_the_settings_version() -> None:
    entry = json.loads((REPO_ROOT / "server.json").read_text(encoding="utf-8"))

    assert entry["version"] == settings.SERVER_VERSION
    assert [package["version"] for package in entry["packages"]] == [settings.SERVER_VERSION]
