"""Fixtures for host tests over a synthetic runtime (no plugin involved)."""

from tests.synthetic_host import host

__all__ = ["host"]
