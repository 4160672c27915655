"""Discovery: the walk's order, skips, depth and candidate limit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mymcp.plugins.mnemosyne.memory.model.errors import CandidateLimitExceeded
from mymcp.plugins.mnemosyne.memory.storage import discovery, files
from tests.helpers import touch


def _walk(
    start: Path, max_depth: int = 4, *, report_too_deep: bool = True, limit: int = 1000
) -> tuple[list[tuple[str, ...]], list[str]]:
    skipped: list[str] = []
    fd = files.open_directory(start)
    with files.closing_fd(fd):
        found = discovery.walk(
            fd, max_depth, report_too_deep=report_too_deep, on_skip=skipped.append, limit=limit
        )
    return [candidate.parts for candidate in found], skipped


def test_walk_is_depth_first_in_code_point_order(start: Path) -> None:
    for name in ("b.json", "B.json", "a.json", "\u00e9.json", "_.json", "a/x.json", "a/A.json"):
        touch(start / name)

    found, skipped = _walk(start)

    assert found == [
        ("B.json",),
        ("_.json",),
        ("a", "A.json"),
        ("a", "x.json"),
        ("a.json",),
        ("b.json",),
        ("\u00e9.json",),
    ]
    assert skipped == []


def test_walk_silently_ignores_files_that_are_not_candidates(start: Path) -> None:
    os.mkfifo(start / "fifo.json")
    for name in ("x.JSON", ".json", "notes.txt", ".mem_1.abcdefgh.tmp", "x.json.tmp"):
        touch(start / name)
    touch(start / "folder.json" / "inner.json")

    found, skipped = _walk(start)

    assert found == [("folder.json", "inner.json")]
    assert skipped == []


def test_walk_reports_every_symlink_and_never_follows_it(start: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    touch(outside / "secret.json")
    touch(start / "real.json")
    (start / "dir-link").symlink_to(outside, target_is_directory=True)
    (start / "file-link.json").symlink_to(start / "real.json")
    (start / "dangling.txt").symlink_to(tmp_path / "nowhere")

    found, skipped = _walk(start)

    assert found == [("real.json",)]
    assert skipped == ["symlink", "symlink", "symlink"]


def test_walk_enters_directories_only_below_the_maximum_depth(start: Path) -> None:
    touch(start / "a/b/c/d/found.json")
    touch(start / "a/b/c/d/e/lost.json")
    touch(start / "a/b/c/d/f/lost.json")

    found, skipped = _walk(start, 4)

    assert found == [("a", "b", "c", "d", "found.json")]
    assert skipped == ["too_deep", "too_deep"]


def test_walk_at_depth_zero_skips_subdirectories_silently_when_asked(start: Path) -> None:
    touch(start / "top.json")
    touch(start / "sub" / "inner.json")

    assert _walk(start, 0, report_too_deep=False) == ([("top.json",)], [])
    assert _walk(start, 0, report_too_deep=True) == ([("top.json",)], ["too_deep"])


def test_walk_records_the_lstat_identity_of_each_candidate(start: Path) -> None:
    path = touch(start / "x.json", b"12345")
    fd = files.open_directory(start)
    with files.closing_fd(fd):
        (candidate,) = discovery.walk(fd, 4, report_too_deep=True, on_skip=print)
    assert candidate.identity == files.identity_of(path.lstat())


def test_walk_counts_every_candidate_against_the_limit(start: Path) -> None:
    for index in range(5):
        touch(start / f"{index}.json", b"not json at all")

    assert len(_walk(start, limit=5)[0]) == 5
    with pytest.raises(CandidateLimitExceeded):
        _walk(start, limit=4)


def test_walk_fails_when_a_directory_cannot_be_listed(
    start: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    touch(start / "x.json")

    def refuse(_: object) -> None:
        raise PermissionError("denied")

    monkeypatch.setattr(os, "scandir", refuse)
    with pytest.raises(OSError):
        _walk(start)
