"""Hypothesis strategies for JSON values, shared by the fuzz and encoding tests."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st


def json_scalars(
    *, text: int = 20, also: st.SearchStrategy[Any] | None = None
) -> st.SearchStrategy[Any]:
    """null, booleans, integers, finite floats, strings of up to ``text`` characters, ``also``."""
    scalars = (
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=text)
    )
    return scalars if also is None else scalars | also


def json_values(
    scalars: st.SearchStrategy[Any], *, width: int = 4, key: int = 8, leaves: int = 20
) -> st.SearchStrategy[Any]:
    """Arrays and objects of at most ``width`` items over ``scalars``, ``leaves`` in all."""
    return st.recursive(
        scalars,
        lambda children: (
            st.lists(children, max_size=width)
            | st.dictionaries(st.text(max_size=key), children, max_size=width)
        ),
        max_leaves=leaves,
    )
