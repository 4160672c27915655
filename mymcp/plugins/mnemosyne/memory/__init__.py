"""The Mnemosyne memory domain.

Everything here is plain Python over the filesystem: no web framework, no JSON-RPC,
nothing from the host. The MCP adapters in ``mymcp.plugins.mnemosyne.tools`` call into it.
"""
