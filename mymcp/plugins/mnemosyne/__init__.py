"""Mnemosyne: user-governed local memory, bundled with MyMCP as a plugin."""
