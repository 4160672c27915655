"""``build_production_runtime``: the bundled Mnemosyne plugin behind the host.

Reads the packaged inert manifest, checks it against the plugin's own definition and the
gate-selected contribution, then composes the runtime. Nothing is written anywhere.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mymcp import plugin_api
from mymcp.host.runtime import HostRuntime, RuntimeGenerationId, build_host_runtime
from mymcp.mcp import list_tools
from mymcp.plugin_api.setup import CommandHost
from mymcp.plugins.mnemosyne import plugin as mnemosyne
from mymcp.plugins.mnemosyne.configuration.memory_root import check_memory_root

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

SUPPORTED_HOST_API = 1
WARM_UP_TIMEOUT_SECONDS = 2.0


class _Resources:
    """``importlib.resources.files``, without importing it for a package on disk.

    Importing ``importlib.resources`` costs every start about 5 ms (a fifth of the stdio
    start's own time); a package installed as files is read from its folder directly.
    """

    @staticmethod
    def files(package: str) -> Traversable:
        location = getattr(importlib.import_module(package), "__file__", None)
        if location is not None and Path(location).is_file():
            return Path(location).parent
        from importlib import resources

        return resources.files(package)


resources = _Resources()


def build_production_runtime(
    *, generation_factory: Callable[[], RuntimeGenerationId | str] = RuntimeGenerationId.new
) -> HostRuntime:
    """The runtime of the bundled plugin with the operator's gates; startup errors propagate.

    ``generation_factory`` names the runtime (a :class:`RuntimeGenerationId` or its string
    value); by default each runtime gets a fresh random name.
    """
    source = resources.files("mymcp.plugins.mnemosyne").joinpath("manifest.json").read_bytes()
    manifest_definition = plugin_api.parse_manifest_bytes(source)
    adapter_definition = mnemosyne.mnemosyne_plugin_definition()
    contribution = mnemosyne.mnemosyne_contribution()
    plugin_api.validate_plugin_contract(
        manifest_definition=manifest_definition,
        adapter_definition=adapter_definition,
        contribution=contribution,
        supported_host_api=plugin_api.HostApiVersion(SUPPORTED_HOST_API),
    )
    bindings = [
        plugin_api.PublicToolBinding(tool.capability, tool.capability.local_id.value)
        for tool in contribution.tools
    ]
    return build_host_runtime(
        [contribution], bindings, list_tools.registration, generation_factory=generation_factory
    )


# --- the operator's setup ------------------------------------------------------------------
# What the entry points need from the bundled plugin besides its Tools, kept here so that no
# other module outside the plugin imports it.


def check_production_setup() -> None:
    """Refuse to serve a memory root that exists but is not a usable directory.

    Runs after :func:`build_production_runtime`; it only looks and never writes.
    """
    check_memory_root()


def wait_until_warm(timeout: float = WARM_UP_TIMEOUT_SECONDS) -> None:
    """Wait, at most ``timeout`` seconds, until the plugin has loaded what its Tools use.

    ``mymcp serve`` listens only then, so no request races the warm-up; ``mymcp stdio``
    answers ``initialize`` at once instead and does not wait.
    """
    mnemosyne.wait_until_warm(timeout)


def add_plugin_commands(commands: Any, host: CommandHost) -> None:
    """The plugin's own commands of ``mymcp`` (``notebook``, ``export``, ``import``,
    ``explain``), with what the host lends them."""
    from mymcp.plugins.mnemosyne.commands import add_commands

    add_commands(commands, host)


def production_pages() -> list[plugin_api.PageRoutes]:
    """The plugin's own pages the production app serves beside ``/mcp`` (the notebook)."""
    from mymcp.plugins.mnemosyne.notebook import page_router

    return [page_router]


def diagnose_production_setup() -> list[tuple[str, str]]:
    """The plugin's findings about the operator's setup, ``(level, text)`` each; reads only."""
    from mymcp.plugins.mnemosyne import doctor

    return doctor.findings()
