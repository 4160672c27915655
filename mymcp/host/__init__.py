"""The host: one immutable runtime composed from plugin contributions."""

from mymcp.host.runtime import HostRuntime, RuntimeGenerationId, build_host_runtime

__all__ = ["HostRuntime", "RuntimeGenerationId", "build_host_runtime"]
