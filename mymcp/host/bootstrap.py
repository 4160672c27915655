"""``build_production_runtime``: the bundled Mnemosyne plugin behind the host.

Reads the packaged inert manifest, checks it against the plugin's own definition and the
gate-selected contribution, then composes the runtime. Nothing is written anywhere.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from mymcp import plugin_api
from mymcp.host.runtime import HostRuntime, RuntimeGenerationId, build_host_runtime
from mymcp.mcp import list_tools
from mymcp.plugins.mnemosyne import plugin as mnemosyne

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
# What the entry points need from the bundled plugin besides its Tools, named here so that no
# other module outside the plugin imports it: a check that refuses a memory root that exists
# but is no usable directory (after build_production_runtime; it only looks), the plugin's own
# commands of mymcp, its pages beside /mcp (the notebook) and its findings for mymcp doctor.
check_production_setup = mnemosyne.check_setup
add_plugin_commands = mnemosyne.add_commands
production_pages = mnemosyne.pages
diagnose_production_setup = mnemosyne.findings


def wait_until_warm(timeout: float = WARM_UP_TIMEOUT_SECONDS) -> None:
    """Wait, at most ``timeout`` seconds, until the plugin has loaded what its Tools use.

    ``mymcp serve`` listens only then, so no request races the warm-up; ``mymcp stdio``
    answers ``initialize`` at once instead and does not wait.
    """
    mnemosyne.wait_until_warm(timeout)
