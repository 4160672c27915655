"""MCP Tool adapters of the Mnemosyne plugin: one declaration per Tool."""
