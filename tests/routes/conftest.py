"""Fixtures for host tests over a synthetic runtime (no plugin involved)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.synthetic_host import SyntheticHost, build_host


@pytest.fixture
def host() -> Iterator[SyntheticHost]:
    """The app built by ``create_app`` over the synthetic Tools, behind a TestClient."""
    built = build_host()
    yield built
    built.gate.release.set()
    built.client.close()
