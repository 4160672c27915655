"""MyMCP: a local, single-user MCP host with the bundled Mnemosyne memory plugin."""
