"""The MCP protocol layer: JSON-RPC envelopes, dispatch, Tool registry and arguments."""
