"""Plugins bundled with the MyMCP host."""
