"""The dependency arrows, pinned by parsing imports, and imports without side effects."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.surface import GATE_OF

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "mymcp"

WEB = ("fastapi", "starlette", "uvicorn")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth (lazy imports included), absolute names."""
    package = (
        module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    )
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def violations(paths: list[Path], forbidden: tuple[str, ...]) -> list[str]:
    return sorted(
        f"{path.relative_to(ROOT)} imports {name}"
        for path in paths
        for name in imported_modules(path)
        if any(within(name, prefix) for prefix in forbidden)
    )


def sources(*relative: str) -> list[Path]:
    found: list[Path] = []
    for item in relative:
        target = PACKAGE / item
        found.extend(sorted(target.rglob("*.py")) if target.is_dir() else [target])
    assert found, relative
    return found


def test_the_scanner_sees_imports_of_every_form() -> None:
    routes = imported_modules(PACKAGE / "transports" / "http.py")
    app = imported_modules(PACKAGE / "startup.py")

    assert "starlette.requests" in routes  # a "from x.y import z" import
    assert "mymcp.mcp.errors" in routes  # a "from package import module" import
    assert "mymcp.host.bootstrap" in app  # imported lazily inside the factory
    assert within("mymcp.plugin.x", "mymcp.plugin")
    assert not within("mymcp.plugins.mnemosyne", "mymcp.plugin")


MNEMOSYNE = PACKAGE / "plugins" / "mnemosyne"
MEMORY = "mymcp.plugins.mnemosyne.memory"
# The rooms of the memory domain, each with the rooms it may import (itself included):
# model <- storage <- recall; model <- policy; model, storage, policy <- services.
ROOMS: dict[str, tuple[str, ...]] = {
    "model": ("model",),
    "storage": ("model", "storage"),
    "recall": ("model", "storage", "recall"),
    "policy": ("model", "policy"),
    "services": ("model", "storage", "policy", "services"),
}


def test_the_memory_domain_imports_nothing_above_it() -> None:
    # Nothing of the host, and nothing of the plugin's adapters (its Tools, commands, page,
    # settings, export and import): they call into the domain, never the other way.
    adapters = tuple(
        f"mymcp.plugins.mnemosyne.{entry.name.removesuffix('.py')}"
        for entry in MNEMOSYNE.iterdir()
        if entry.name not in ("memory", "__init__.py", "__pycache__")
        and (entry.suffix == ".py" or (entry / "__init__.py").is_file())
    )
    forbidden = (
        *WEB,
        "mymcp.mcp",
        "mymcp.host",
        "mymcp.transports",
        "mymcp.plugin_api",
        "mymcp.app",
        *adapters,
    )

    assert "mymcp.plugins.mnemosyne.tools" in adapters
    assert violations(sources("plugins/mnemosyne/memory"), forbidden) == []


def test_the_memory_domain_is_these_rooms_and_nothing_else() -> None:
    memory = MNEMOSYNE / "memory"
    rooms = {entry.name for entry in memory.iterdir() if (entry / "__init__.py").is_file()}
    modules = sorted(path.name for path in memory.glob("*.py"))

    assert rooms == set(ROOMS)
    assert modules == ["__init__.py"]


@pytest.mark.parametrize("room", sorted(ROOMS))
def test_each_room_of_the_memory_domain_imports_only_the_rooms_it_builds_on(room: str) -> None:
    others = tuple(f"{MEMORY}.{other}" for other in ROOMS if other not in ROOMS[room])

    assert violations(sources(f"plugins/mnemosyne/memory/{room}"), others) == []


def test_plugin_contracts_and_runtime_know_no_transport_or_concrete_plugin() -> None:
    forbidden = (*WEB, "mymcp.transports", "mymcp.plugins", "mymcp.app", "mymcp.host.bootstrap")

    assert violations([*sources("plugin_api"), PACKAGE / "host" / "runtime.py"], forbidden) == []


def test_the_protocol_layer_knows_no_transport_host_or_plugin() -> None:
    forbidden = (
        *WEB,
        "mymcp.transports",
        "mymcp.host",
        "mymcp.plugins",
        "mymcp.plugin_api",
        "mymcp.app",
    )

    assert violations(sources("mcp"), forbidden) == []


def test_only_bootstrap_imports_the_concrete_plugin() -> None:
    outside = [
        path
        for path in sources(".")
        if not within(module_name(path), "mymcp.plugins")
        and module_name(path) != "mymcp.host.bootstrap"
    ]

    assert violations(outside, ("mymcp.plugins",)) == []


def test_the_json_module_imports_nothing_of_the_project_or_the_web() -> None:
    imported = imported_modules(PACKAGE / "jsonvalue.py")

    assert [name for name in imported if within(name, "mymcp")] == []
    assert violations([PACKAGE / "jsonvalue.py"], WEB) == []


def test_the_json_module_serves_every_layer() -> None:
    # Each of these layers imports it, and the rules above forbid none of those imports.
    users = {
        module_name(path) for path in sources(".") if "mymcp.jsonvalue" in imported_modules(path)
    }

    for layer in ("mymcp.mcp", "mymcp.plugin_api", MEMORY):
        assert any(within(name, layer) for name in users), layer


def test_the_plugin_reaches_the_host_only_through_the_plugin_api() -> None:
    # Its Tools, its page and its commands alike: of the project, only the plugin API, the
    # JSON module and the plugin itself.
    found = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sources("plugins")
        for name in imported_modules(path)
        if within(name, "mymcp")
        and not any(
            within(name, allowed)
            for allowed in ("mymcp.plugins", "mymcp.plugin_api", "mymcp.jsonvalue")
        )
        and name != "mymcp"
    ]

    assert found == []


def test_the_page_s_sessions_and_the_plugin_s_notebook_reads_know_no_web_framework() -> None:
    notebook = PACKAGE / "plugins" / "mnemosyne" / "notebook"
    plain = [notebook / "access.py", notebook / "data.py"]

    assert violations(plain, (*WEB, "mymcp.host", "mymcp.mcp")) == []


def test_the_host_package_does_not_import_bootstrap() -> None:
    assert violations([PACKAGE / "host" / "__init__.py"], ("mymcp.host.bootstrap",)) == []


IMPORT_PROBE = textwrap.dedent(
    """
    import importlib, logging, sys
    module = importlib.import_module(sys.argv[1])
    root = logging.getLogger()
    assert root.handlers == [], root.handlers
    assert root.level == logging.WARNING, root.level
    for name in ("mcp", "mymcp"):
        logger = logging.getLogger(name)
        assert logger.handlers == [] and logger.level == logging.NOTSET, name
    builders = ("mymcp.host.bootstrap", "mymcp.plugins.mnemosyne.plugin")
    loaded = [name for name in builders if name in sys.modules]
    assert loaded == [], loaded
    app = sys.modules.get("mymcp.app")
    assert app is None or not hasattr(app, "app")
    """
)


@pytest.mark.parametrize(
    "module",
    [
        "mymcp",
        "mymcp.app",
        "mymcp.host",
        "mymcp.mcp.dispatcher",
        "mymcp.plugin_api",
        "mymcp.transports.http",
    ],
)
def test_importing_builds_no_runtime_and_configures_no_logging(module: str) -> None:
    environment = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(ROOT),
        "HOME": "/nonexistent-home-for-import-test",
        "MNEMOSYNE_MEMORY_ROOT": "relative/not/allowed",
        GATE_OF["remember"]: "not-a-boolean",
    }

    completed = subprocess.run(
        [sys.executable, "-c", IMPORT_PROBE, module],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert completed.returncode == 0, completed.stderr
    assert completed.stderr == ""
