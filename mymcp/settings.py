"""Host identity: the names and versions a client sees."""

SERVER_NAME = "mymcp"
SERVER_VERSION = "0.2.0"
# The revision answered when a client asks for it or names none (the contract's default).
PROTOCOL_VERSION = "2024-11-05"
# The handshake revisions (reached through initialize) this server speaks, oldest first.
SUPPORTED_PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
# The stateless revisions (every request carries its version in _meta), oldest first.
MODERN_PROTOCOL_VERSIONS = ("2026-07-28",)
APP_TITLE = "MyMCP"
