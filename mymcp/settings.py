"""Host identity: the names and versions a client sees."""

SERVER_NAME = "mymcp"
SERVER_VERSION = "0.2.0"
# The revision the original 0.2.0 spoke; still answered when a client asks for it or for nothing.
PROTOCOL_VERSION = "2024-11-05"
# Every MCP revision this server speaks, oldest first.
SUPPORTED_PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
APP_TITLE = "MyMCP"
