"""Storage failures through POST /mcp: the contract's answer, and the cause in the log line.

Each fault is an ``OSError`` with a real errno raised by the operating-system call the store
makes (creating a temporary file, removing a record, syncing a directory, opening a folder),
so every layer above it runs as it does when a disk fills up or a mount turns read-only.
"""

from __future__ import annotations

import errno
import logging
import os
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mymcp.plugins.mnemosyne.memory.model import faults
from tests.helpers import McpClient, canonical_record, log_events, snapshot_tree, write_record
from tests.mnemosyne.tools.mutation_support import OTHER_ID, existing, fix_clock, reference_of
from tests.tmpfs import fill_bytes, fill_inodes, remount, small_tmpfs

# (errno, the cause the log names): every row of the table, and one errno it does not hold.
CAUSES = [
    (errno.ENOSPC, "no_space"),
    (errno.EDQUOT, "no_space"),
    (errno.EROFS, "read_only"),
    (errno.EACCES, "permission"),
    (errno.EPERM, "permission"),
    (errno.EIO, "io_error"),
    (errno.EMFILE, "too_many_open_files"),
    (errno.ENFILE, "too_many_open_files"),
    (errno.EXDEV, "other"),
]
CAUSE_IDS = [errno.errorcode[number] for number, _ in CAUSES]
DIRECTORY = "project/mnemosyne/decisions"
REFERENCE = reference_of(canonical_record())
# Remember arguments for a new memory in the folder of canonical_record().
REMEMBER_ARGUMENTS = {
    **{key: canonical_record()[key] for key in ("scope", "namespace", "collection", "kind")},
    "language": "en",
    "title": "Fault injection",
    "content": "A memory that the full disk refuses.",
    "tags": [],
    "origin": "explicit_user_statement",
}
REVISE_ARGUMENTS = {
    "reference": REFERENCE,
    "expected_revision": 1,
    "namespace_label": "Mnemosyne",
    "collection_label": "Decisions",
    "title": "Revised",
    "content": "The revised text.",
    "tags": [],
}
CHANGE = {"reference": REFERENCE, "expected_revision": 1}


def _failing(number: int) -> OSError:
    return OSError(number, os.strerror(number))


def _is_directory(fd: int) -> bool:
    return stat.S_ISDIR(os.fstat(fd).st_mode)


def fail_temp_files(monkeypatch: pytest.MonkeyPatch, number: int) -> None:
    """Creating a new file fails, as on a full, read-only or forbidden directory."""
    real = os.open

    def guarded(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & os.O_CREAT:
            raise _failing(number)
        return real(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded)


def fail_unlink(monkeypatch: pytest.MonkeyPatch, number: int) -> None:
    """Removing a record file fails."""
    real = os.unlink

    def guarded(path: Any, *args: Any, **kwargs: Any) -> None:
        if str(path).endswith(".json"):
            raise _failing(number)
        real(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", guarded)


def fail_directory_sync(monkeypatch: pytest.MonkeyPatch, number: int) -> None:
    """``fsync`` of a directory fails; files still sync."""
    real = os.fsync

    def guarded(fd: int) -> None:
        if _is_directory(fd):
            raise _failing(number)
        real(fd)

    monkeypatch.setattr(os, "fsync", guarded)


def fail_folder_opens(monkeypatch: pytest.MonkeyPatch, number: int) -> None:
    """Opening a folder below the root fails (the root itself still opens)."""
    real = os.open

    def guarded(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & os.O_DIRECTORY and kwargs.get("dir_fd") is not None:
            raise _failing(number)
        return real(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded)


# The past tense each change Tool's storage failure message uses.
PAST = {
    "memory_remember": "stored",
    "memory_revise": "revised",
    "memory_archive": "archived",
    "memory_restore": "restored",
    "memory_forget": "forgotten",
}
UNCERTAIN_CODES = {
    "memory_revise": ("replacement_outcome_uncertain", "revise"),
    "memory_archive": ("replacement_outcome_uncertain", "archive"),
    "memory_restore": ("replacement_outcome_uncertain", "restore"),
    "memory_forget": ("deletion_outcome_uncertain", "deletion"),
}


@dataclass(frozen=True)
class Case:
    """One change Tool meeting a fault: what is on disk first, and the call."""

    tool: str
    state: str | None  # lifecycle state of the record placed first; None places none
    arguments: dict[str, Any]
    inject: Callable[[pytest.MonkeyPatch, int], None]


def _unavailable(tool: str) -> dict[str, Any]:
    message = f"memory could not be {PAST[tool]}"
    return {"status": "storage_error", "code": "memory_source_unavailable", "message": message}


def _uncertain(tool: str) -> dict[str, Any]:
    code, op = UNCERTAIN_CODES[tool]
    message = f"memory {op} outcome is uncertain; inspect the same reference before any retry"
    return {"status": "uncertain", "code": code, "message": message}


WRITES = [
    Case("memory_remember", None, REMEMBER_ARGUMENTS, fail_temp_files),
    Case("memory_revise", "active", REVISE_ARGUMENTS, fail_temp_files),
    Case("memory_archive", "active", CHANGE, fail_temp_files),
    Case("memory_restore", "archived", CHANGE, fail_temp_files),
    Case("memory_forget", "archived", CHANGE, fail_unlink),
]
UNCERTAIN = [
    Case("memory_revise", "active", REVISE_ARGUMENTS, fail_directory_sync),
    Case("memory_archive", "active", CHANGE, fail_directory_sync),
    Case("memory_restore", "archived", CHANGE, fail_directory_sync),
    Case("memory_forget", "archived", CHANGE, fail_directory_sync),
]


@pytest.fixture
def client(mcp: Callable[..., McpClient]) -> McpClient:
    return mcp(remember=True, revise=True, archive_restore=True, forget=True)


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    fix_clock(monkeypatch)


def _prepare(root: Path, case: Case) -> None:
    if case.state is not None:
        existing(root, lifecycle={"state": case.state, "revision": 1})
    else:  # the folders exist, so the failure is the record's own file
        (root / DIRECTORY).mkdir(parents=True, mode=0o700)


def _event(caplog: pytest.LogCaptureFixture, tool: str) -> str:
    [(_, message)] = log_events(caplog, f"mcp.{tool}")
    return message


@pytest.mark.parametrize(("number", "cause"), CAUSES, ids=CAUSE_IDS)
@pytest.mark.parametrize("case", WRITES, ids=[case.tool for case in WRITES])
def test_a_failed_write_answers_as_the_contract_and_logs_its_cause(
    client: McpClient,
    memory_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    case: Case,
    number: int,
    cause: str,
) -> None:
    _prepare(memory_root, case)
    before = snapshot_tree(memory_root)
    case.inject(monkeypatch, number)
    caplog.set_level(logging.INFO)

    reply = client.call(case.tool, case.arguments)

    assert reply.is_error and reply.payload == _unavailable(case.tool)
    assert snapshot_tree(memory_root) == before
    name = errno.errorcode[number]
    assert _event(caplog, case.tool).endswith(f" cause={cause} errno={name} directory={DIRECTORY}")


@pytest.mark.parametrize("case", UNCERTAIN, ids=[case.tool for case in UNCERTAIN])
def test_an_unconfirmed_change_is_uncertain_and_logs_its_cause(
    client: McpClient,
    memory_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    case: Case,
) -> None:
    _prepare(memory_root, case)
    case.inject(monkeypatch, errno.EIO)
    caplog.set_level(logging.INFO)

    reply = client.call(case.tool, case.arguments)

    assert reply.is_error and reply.payload == _uncertain(case.tool)
    event = _event(caplog, case.tool)
    code = UNCERTAIN_CODES[case.tool][0]
    assert event.startswith(f"event={case.tool} outcome=uncertain code={code} ")
    assert event.endswith(f" cause=io_error errno=EIO directory={DIRECTORY}")


def test_remember_whose_directory_sync_fails_keeps_its_answer_and_names_the_cause(
    client: McpClient,
    memory_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    (memory_root / DIRECTORY).mkdir(parents=True, mode=0o700)
    fail_directory_sync(monkeypatch, errno.EIO)
    caplog.set_level(logging.INFO)

    reply = client.call("memory_remember", REMEMBER_ARGUMENTS)

    assert reply.payload == _unavailable("memory_remember")
    assert _event(caplog, "memory_remember").endswith(
        f" cause=io_error errno=EIO directory={DIRECTORY}"
    )


@pytest.mark.parametrize("inject", [fail_temp_files, fail_directory_sync])
def test_a_failed_remember_removes_the_folders_it_made(
    client: McpClient,
    memory_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    inject: Callable[[pytest.MonkeyPatch, int], None],
) -> None:
    memory_root.mkdir(mode=0o700)
    (memory_root / "project").mkdir(mode=0o700)
    before = snapshot_tree(memory_root)
    inject(monkeypatch, errno.ENOSPC)

    reply = client.call("memory_remember", REMEMBER_ARGUMENTS)

    assert reply.payload == _unavailable("memory_remember")
    assert snapshot_tree(memory_root) == before


def test_a_remember_whose_record_became_visible_keeps_its_folders(
    client: McpClient, memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory_root.mkdir(mode=0o700)
    real = os.fsync

    def fail_once_the_record_is_linked(fd: int) -> None:
        # Folder syncs succeed until the record's own directory is synced after the link.
        if _is_directory(fd) and any((memory_root / DIRECTORY).glob("*.json")):
            raise _failing(errno.EIO)
        real(fd)

    monkeypatch.setattr(os, "fsync", fail_once_the_record_is_linked)

    reply = client.call("memory_remember", REMEMBER_ARGUMENTS)

    assert reply.payload == _unavailable("memory_remember")
    assert len(list((memory_root / DIRECTORY).glob("*.json"))) == 1


def test_remember_on_a_root_that_cannot_be_made_names_the_root(
    client: McpClient,
    memory_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def read_only(path: Any, *args: Any, **kwargs: Any) -> None:
        raise _failing(errno.EROFS)

    monkeypatch.setattr(os, "mkdir", read_only)
    caplog.set_level(logging.INFO)

    reply = client.call("memory_remember", REMEMBER_ARGUMENTS)

    assert reply.payload == _unavailable("memory_remember")
    assert not memory_root.exists()
    assert _event(caplog, "memory_remember").endswith(" cause=read_only errno=EROFS directory=.")


# (Tool, arguments, answer status, message, the directory in the log line)
READS = [
    ("memory_recall", {"query": "memory", "scope": "project"}, "retrieval_error",
     "memory source could not be read", "project"),
    ("memory_list", {"scope": "project", "namespace_id": "mnemosyne"}, "storage_error",
     "memory could not be listed", "project/mnemosyne"),
    ("memory_inspect", {"reference": REFERENCE}, "storage_error",
     "memory could not be inspected", DIRECTORY),
]  # fmt: skip


@pytest.mark.parametrize(("tool", "arguments", "status", "message", "directory"), READS,
                         ids=[row[0] for row in READS])  # fmt: skip
def test_a_failed_read_answers_as_the_contract_and_logs_its_cause(
    client: McpClient,
    memory_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    tool: str,
    arguments: dict[str, Any],
    status: str,
    message: str,
    directory: str,
) -> None:
    existing(memory_root)
    fail_folder_opens(monkeypatch, errno.EIO)
    caplog.set_level(logging.INFO)

    reply = client.call(tool, arguments)

    assert reply.is_error
    assert reply.payload == {
        "status": status,
        "code": "memory_source_unavailable",
        "message": message,
    }
    assert _event(caplog, tool).endswith(f" cause=io_error errno=EIO directory={directory}")


def _fail_reads_of(monkeypatch: pytest.MonkeyPatch, name: str, number: int) -> None:
    """Reading the bytes of the file ``name`` fails (it opens; ``read`` does not)."""
    real_open, real_read = os.open, os.read
    opened: set[int] = set()

    def tracking_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        fd = real_open(path, flags, *args, **kwargs)
        if path == name:
            opened.add(fd)
        return fd

    def guarded_read(fd: int, size: int) -> bytes:
        if fd in opened:
            raise _failing(number)
        return real_read(fd, size)

    monkeypatch.setattr(os, "open", tracking_open)
    monkeypatch.setattr(os, "read", guarded_read)


def test_a_record_that_cannot_be_read_is_skipped_with_its_cause(
    client: McpClient,
    memory_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    record = existing(memory_root)
    _fail_reads_of(monkeypatch, f"{record['id']}.json", errno.EIO)
    caplog.set_level(logging.INFO)

    reply = client.call("memory_list", {"scope": "project"})

    assert reply.payload["memories"] == []
    assert log_events(caplog, "mymcp.memory.store") == [
        (
            logging.WARNING,
            "skipped scope='project' reason='unreadable' cause='io_error' errno='EIO' "
            f"directory='{DIRECTORY}'",
        )
    ]


def test_a_skip_in_a_hand_made_folder_leaves_the_folder_name_out(
    client: McpClient,
    memory_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    legacy = {"schema_version": 1, "id": "old", "content": "a memory"}
    write_record(memory_root, legacy, "project", "My Notes", "old.json")
    _fail_reads_of(monkeypatch, "old.json", errno.EACCES)
    caplog.set_level(logging.INFO)

    client.call("memory_recall", {"query": "memory", "scope": "project"})

    skip = "skipped scope='project' reason='unreadable' cause='permission' errno='EACCES'"
    assert log_events(caplog, "mymcp.memory.store") == [(logging.WARNING, skip)]


def test_every_errno_of_the_table_has_a_cause_and_others_are_other() -> None:
    assert {number: faults.cause_of(number) for number, _ in CAUSES} == dict(CAUSES)
    assert faults.cause_of(None) == "other"
    assert set(faults.CAUSES.values()) | {"other"} == {cause for _, cause in CAUSES}


# --- a real tmpfs that fills up or turns read-only (root only) ----------------------------------


def _fill_all_bytes(mounted: Path) -> Callable[[], None]:
    filler = fill_bytes(mounted)
    return filler.unlink


def _fill_all_inodes(mounted: Path) -> Callable[[], None]:
    folder = fill_inodes(mounted)
    return lambda: shutil.rmtree(folder)


def _mount_read_only(mounted: Path) -> Callable[[], None]:
    remount(mounted, "ro")
    return lambda: remount(mounted, "rw")


# (how the fault is made and cleared, the cause and errno, whether forget fails too)
REAL_FAULTS = [
    pytest.param(_fill_all_bytes, "no_space", "ENOSPC", False, id="full"),
    pytest.param(_fill_all_inodes, "no_space", "ENOSPC", False, id="no-inodes"),
    pytest.param(_mount_read_only, "read_only", "EROFS", True, id="read-only"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("make_fault", "cause", "name", "forget_fails"), REAL_FAULTS)
def test_a_real_fault_answers_as_the_contract_and_a_write_works_once_it_clears(
    mcp: Callable[..., McpClient],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    make_fault: Callable[[Path], Callable[[], None]],
    cause: str,
    name: str,
    forget_fails: bool,
) -> None:
    with small_tmpfs(tmp_path / "fs") as mounted:
        root = mounted / "memory"
        monkeypatch.setenv("MNEMOSYNE_MEMORY_ROOT", str(root))
        client = mcp(remember=True, revise=True, archive_restore=True, forget=True)
        existing(root, lifecycle={"state": "active", "revision": 1})
        archived = existing(root, id=OTHER_ID, lifecycle={"state": "archived", "revision": 1})
        other = {**CHANGE, "reference": reference_of(archived)}
        calls = [
            ("memory_remember", REMEMBER_ARGUMENTS),
            ("memory_revise", REVISE_ARGUMENTS),
            ("memory_archive", CHANGE),
            ("memory_restore", other),
        ]
        before = snapshot_tree(root)
        clear = make_fault(mounted)
        caplog.set_level(logging.INFO)

        for tool, arguments in calls:
            assert client.call(tool, arguments).payload == _unavailable(tool), tool
            assert _event(caplog, tool).endswith(
                f" cause={cause} errno={name} directory={DIRECTORY}"
            )
            caplog.clear()
        assert snapshot_tree(root) == before
        forgotten = client.call("memory_forget", other).payload
        if forget_fails:
            assert forgotten == _unavailable("memory_forget")
            assert snapshot_tree(root) == before
        else:  # removing a file needs no space
            assert forgotten["status"] == "forgotten"

        clear()
        assert client.call("memory_remember", REMEMBER_ARGUMENTS).payload["status"] == "remembered"
