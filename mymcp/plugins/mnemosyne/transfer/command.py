"""``mymcp export`` and ``mymcp import``: the operator's own commands, run at the terminal.

The host's command line parses the options and calls :func:`export_notebook` or
:func:`import_notebook`; everything else happens here. Both return the exit status: 0 when
the command did its work, 1 when the memory root, the file or the disk stops it (one or
two plain lines on standard error say what and where; nothing is written), 2 for an
unknown scope, and 130 when an import is interrupted. Paths appear in what they print,
which only the operator reads.

Neither needs a gate: export only reads, and import is the operator's act; it applies every
rule ``memory_remember`` applies (``importer.py``).
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO, TextIO

from mymcp.plugin_api.setup import setup_lines
from mymcp.plugins.mnemosyne.configuration.gates import load_settings
from mymcp.plugins.mnemosyne.configuration.memory_root import (
    ROOT_VARIABLE,
    memory_root_problem,
    resolve_memory_root,
)
from mymcp.plugins.mnemosyne.configuration.settings_file import SettingsError
from mymcp.plugins.mnemosyne.memory.model.errors import StorageError
from mymcp.plugins.mnemosyne.memory.model.values import format_timestamp
from mymcp.plugins.mnemosyne.memory.model.vocabulary import Scope
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore
from mymcp.plugins.mnemosyne.transfer.document import (
    build_document,
    encode_document,
    read_document,
)
from mymcp.plugins.mnemosyne.transfer.importer import Entry, Kind, Line, import_entries
from mymcp.plugins.mnemosyne.transfer.markdown import render_markdown
from mymcp.plugins.mnemosyne.transfer.server_memory import read_server_memory
from mymcp.plugins.mnemosyne.transfer.snapshot import read_snapshot
from mymcp.plugins.mnemosyne.transfer.source import MAX_SOURCE_BYTES, SourceRefused, shown

__all__ = ["INTERRUPTED", "export_notebook", "import_notebook"]

INTERRUPTED = 130

_LABELS = {
    Kind.CREATE: ("create", "created"),
    Kind.EXISTS: ("exists", "exists"),
    Kind.REFUSED: ("refused", "refused"),
    Kind.INVALID: ("invalid", "invalid"),
}


def export_notebook(
    *,
    output: str | None,
    scopes: Sequence[str] | None,
    format: str,
    out: TextIO,
    err: TextIO,
    environ: Mapping[str, str] | None = None,
) -> int:
    """Write the notebook (or ``scopes`` of it) to ``output``, or to ``out`` without one."""
    chosen = _scopes(scopes, err)
    if chosen is None:
        return 2
    env = os.environ if environ is None else environ
    root = _usable_root(env, "export", err)
    if root is None:
        return 1
    try:
        with _quiet_store_log():
            snapshot = read_snapshot(MemoryStore(watch_changes=False), root, chosen)
    except (OSError, StorageError) as error:
        _fail(err, "export", f"the memory root {root} could not be read ({_cause(error)})")
        return 1
    exported_at = format_timestamp(datetime.now(UTC))
    if format == "markdown":
        text = render_markdown(snapshot, scopes=chosen, exported_at=exported_at)
    else:
        text = encode_document(build_document(snapshot, scopes=chosen, exported_at=exported_at))
    if output is None:
        try:
            out.write(text)
            out.flush()
        except BrokenPipeError:  # the reader stopped reading, as ``| head`` does
            _silence(out)
            return 1
        return 0
    try:
        _write_private_file(Path(output), text)
    except OSError as error:
        _fail(err, "export", f"cannot write {output} ({_cause(error)})")
        return 1
    text = f"exported {len(snapshot.records)} records to {output}"
    if snapshot.skipped:
        text += f"; it names {len(snapshot.skipped)} files that recall and list skip"
    print(text, file=out)
    return 0


def import_notebook(
    *,
    source: str,
    format: str,
    apply: bool,
    out: TextIO,
    err: TextIO,
    environ: Mapping[str, str] | None = None,
    stdin: BinaryIO | None = None,
) -> int:
    """Import ``source`` (``-``: standard input), or with ``apply`` off say what would happen."""
    try:
        data = _read_source(source, stdin)
        entries, named_skips = _parse(data, format)
    except OSError as error:
        _fail(err, "import", f"cannot read {source} ({_cause(error)})")
        return 1
    except SourceRefused as refused:
        _fail(err, "import", f"{source}: {refused.problem}; nothing was imported", refused.hint)
        return 1
    env = os.environ if environ is None else environ
    root = _usable_root(env, "import", err, writing=True)
    limit = _candidate_limit(env, err) if root is not None else None
    if root is None or limit is None:
        return 1
    store = MemoryStore(watch_changes=False, candidate_limit=limit)
    counts: Counter[Kind] = Counter()
    try:
        _report_import(
            store, root, entries, apply=apply, named_skips=named_skips, out=out, counts=counts
        )
    except StorageError as error:
        done = f"{counts[Kind.CREATE]} records were created before it stopped"
        _fail(err, "import", f"the memory root {root} failed ({_cause(error)}); {done}", _AGAIN)
        return 1
    except KeyboardInterrupt:
        done = f"interrupted after {counts[Kind.CREATE]} records were created, each one whole"
        _fail(err, "import", done, _AGAIN)
        return INTERRUPTED
    except BrokenPipeError:  # the reader of the report stopped reading: stop too
        _silence(out)
        return 1
    return 0


def _report_import(
    store: MemoryStore,
    root: Path,
    entries: list[Entry],
    *,
    apply: bool,
    named_skips: int,
    out: TextIO,
    counts: Counter[Kind],
) -> None:
    """Run the import (or its dry run) and print its lines and counts, counting in ``counts``."""
    if not apply:
        print("dry run: nothing is written; run again with --apply to import", file=out)

    def emit(line: Line) -> None:
        counts[line.kind] += 1
        label = _LABELS[line.kind][1 if apply else 0]
        print(f"{label:<8} {line.where}: {line.detail}", file=out)

    with _quiet_store_log():
        import_entries(store, root, entries, apply=apply, emit=emit)
    print(_summary(counts, apply, named_skips), file=out)
    out.flush()


_AGAIN = "run the same command again: what is already there is skipped"


def _parse(data: bytes, format: str) -> tuple[list[Entry], int]:
    if format == "server-memory":
        return read_server_memory(data), 0
    return read_document(data)


def _read_source(source: str, stdin: BinaryIO | None) -> bytes:
    """At most one byte over the bound (so that a larger file is refused, not read whole)."""
    if source == "-":
        return (stdin or sys.stdin.buffer).read(MAX_SOURCE_BYTES + 1)
    with open(source, "rb") as file:
        return file.read(MAX_SOURCE_BYTES + 1)


def _summary(counts: Counter[Kind], apply: bool, named_skips: int) -> str:
    created = counts[Kind.CREATE]
    text = (
        (f"{created} created" if apply else f"{created} to create")
        + f", {counts[Kind.EXISTS]} already there, {counts[Kind.REFUSED]} refused, "
        + (f"{counts[Kind.INVALID]} invalid")
    )
    if not apply:
        return f"dry run: {text}; nothing was written"
    text = f"imported: {text}"
    if named_skips:
        text += f"; the export names {named_skips} files its notebook skipped, not imported"
    return text


# --- scopes, the memory root and files -----------------------------------------------------


def _scopes(names: Sequence[str] | None, err: TextIO) -> list[Scope] | None:
    if not names:
        return list(Scope)
    known = {str(scope): scope for scope in Scope}
    unknown = [name for name in names if name not in known]
    if unknown:
        _fail(
            err, "export", f"unknown scope {shown(unknown[0])}; the scopes are {', '.join(known)}"
        )
        return None
    wanted = {known[name] for name in names}
    return [scope for scope in Scope if scope in wanted]


def _usable_root(
    env: Mapping[str, str], command: str, err: TextIO, *, writing: bool = False
) -> Path | None:
    """The memory root, or None after saying why it cannot serve the command."""
    root = resolve_memory_root(env)
    shown = f"the memory root {os.path.abspath(root)}"
    problem = memory_root_problem(root)
    if problem is not None:
        _fail(err, command, f"{shown} {problem}")
        return None
    if writing and os.path.islink(root):
        _fail(
            err,
            command,
            f"{shown} is a symbolic link; new records are written only into a real folder",
            f"set {ROOT_VARIABLE} to the folder it points to",
        )
        return None
    return root


def _candidate_limit(env: Mapping[str, str], err: TextIO) -> int | None:
    """The operator's candidate limit (the server's setting), or None after saying why not."""
    try:
        return load_settings(env).candidate_limit
    except (ValueError, SettingsError) as error:
        lines = setup_lines(error) or [str(error)]
        _fail(err, "import", lines[0], *lines[1:2])
        return None


def _write_private_file(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (mode 0600) so that it is whole or absent, never partial."""
    directory = os.path.dirname(os.path.abspath(path))
    descriptor, temporary = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


@contextmanager
def _quiet_store_log() -> Iterator[None]:
    """Keep the store's skip warnings (meant for the server's log) off the terminal."""
    logger = logging.getLogger("mymcp.memory.store")
    handler = logging.NullHandler()
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)


def _silence(out: TextIO) -> None:
    """Point a closed output at the null device, so that closing it later raises nothing."""
    try:
        descriptor = out.fileno()
    except (OSError, ValueError):
        return
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, descriptor)
    os.close(null)


def _cause(error: BaseException) -> str:
    cause = error if isinstance(error, OSError) else error.__cause__
    if isinstance(cause, OSError) and cause.errno:
        return os.strerror(cause.errno)
    return "a file system error"


def _fail(err: TextIO, command: str, problem: str, hint: str | None = None) -> None:
    print(f"mymcp {command}: {problem}", file=err)
    if hint is not None:
        print(hint, file=err)
