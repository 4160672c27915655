"""Recorded handshake-era exchanges: the exact bytes a 2025-era client gets, pinned."""
