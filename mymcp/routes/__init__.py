"""HTTP routes: the MCP endpoint and the operational endpoints."""
