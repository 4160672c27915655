"""How MCP messages reach the server: ``http`` and ``stdio`` (standard input and output)."""
