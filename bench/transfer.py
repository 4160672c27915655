"""Section: ``mymcp export`` and ``mymcp import`` of 1,000, 5,000 and 10,000 records.

A notebook holds its records spread over the six scopes, each under the 1,000 files at which
recall stops: one memory root holds at most 5,000 of them here (about 834 per scope), so the
10,000-record row exports and imports two roots of 5,000, one after the other, and adds
their times. A tenth of the records are version 1, a twentieth archived, a third collected.

Each row times, through the commands' own entry points (no process start): the JSON export
and the Markdown export of the seeded roots, the dry run of importing each export into an
empty root, the import itself (``--apply``), and the same import again, which finds every
record already there. Every write of the import is made durable (``fsync`` of the file and
of its folder), so the apply column mostly measures the disk. The record counts of
``--sizes`` do not apply.
"""

from __future__ import annotations

import functools
import io
import math
import os
import random
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from common import WORDS, print_table

from mymcp.plugins.mnemosyne.memory.model.records import (
    CanonicalRecord,
    Collection,
    LegacyRecord,
    Namespace,
    Record,
    canonical_relative_parts,
    serialize_record,
)
from mymcp.plugins.mnemosyne.memory.model.vocabulary import (
    SCOPE_RULES,
    LifecycleState,
    MemoryKind,
    Origin,
    RecordedVia,
    Scope,
)
from mymcp.plugins.mnemosyne.transfer import command

SIZES = (1000, 5000, 10000)
PER_ROOT = 5000
HEADER = (
    "records",
    "roots",
    "export json s",
    "export md s",
    "dry run s",
    "apply s",
    "again s",
    "apply rec/s",
    "json MiB",
)


def _text(rng: random.Random, low: int, high: int) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    return " ".join(words).capitalize() + "."


def _record(rng: random.Random, index: int) -> tuple[Record, tuple[str, ...]]:
    scope = list(Scope)[index % len(Scope)]
    rule = SCOPE_RULES[scope]
    namespace_id = f"{rng.choice(WORDS)}-{index % 9}"
    if index % 10 == 9:
        name = f"note-{index}.json"
        legacy = LegacyRecord(f"note-{index}", _text(rng, 20, 200), None, (), ())
        return legacy, (str(scope), "notes", name)
    kinds = [kind for kind in rule.memory_kinds if kind is not MemoryKind.EVENT]
    collection = Collection(rng.choice(WORDS), None) if index % 3 == 0 else None
    stamp = f"2025-{1 + index % 12:02d}-{1 + index % 28:02d}T{index % 24:02d}:00:00Z"
    record = CanonicalRecord(
        id=f"mem_{rng.getrandbits(128):032x}",
        scope=scope,
        namespace=Namespace(
            rule.namespace_kinds[index % len(rule.namespace_kinds)], namespace_id, None
        ),
        collection=collection,
        kind=kinds[index % len(kinds)],
        language="en",
        title=_text(rng, 3, 8),
        content=_text(rng, 30, 300),
        tags=tuple(rng.sample(WORDS, 3)),
        origin=Origin.EXPLICIT_USER_STATEMENT,
        recorded_via=RecordedVia.MEMORY_REMEMBER,
        state=LifecycleState.ARCHIVED if index % 20 == 19 else LifecycleState.ACTIVE,
        revision=1 + index % 3,
        created_at=stamp,
        updated_at=stamp,
        occurred_at=None,
    )
    parts = canonical_relative_parts(scope, namespace_id, record.collection_id, record.id)
    return record, parts


def _seed(root: Path, count: int, seed: int) -> None:
    rng = random.Random(seed)
    for index in range(count):
        record, parts = _record(rng, index)
        path = root.joinpath(*parts)
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        path.write_bytes(serialize_record(record))


def _timed(action: Callable[[], int]) -> float:
    started = time.perf_counter()
    code = action()
    elapsed = time.perf_counter() - started
    if code != 0:
        raise RuntimeError(f"the command answered {code}")
    return elapsed


def _export(environ: dict[str, str], format: str, output: Path) -> int:
    quiet = io.StringIO()
    return command.export_notebook(
        output=str(output), scopes=None, format=format, out=quiet, err=quiet, environ=environ
    )


def _import(environ: dict[str, str], document: Path, apply: bool) -> int:
    quiet = io.StringIO()
    return command.import_notebook(
        source=str(document), format="mymcp", apply=apply, out=quiet, err=quiet, environ=environ
    )


def _time_root(workspace: Path, number: int, count: int) -> tuple[list[float], float]:
    """The five timings of one seeded root, and the size of its export in MiB."""
    home = workspace / "home"
    home.mkdir(exist_ok=True)
    source, target = workspace / f"source-{number}", workspace / f"target-{number}"
    _seed(source, count, seed=number)
    document, markdown = workspace / f"notebook-{number}.json", workspace / f"notebook-{number}.md"
    reading = {"HOME": str(home), "MNEMOSYNE_MEMORY_ROOT": str(source)}
    writing = {"HOME": str(home), "MNEMOSYNE_MEMORY_ROOT": str(target)}
    times = [
        _timed(functools.partial(_export, reading, "json", document)),
        _timed(functools.partial(_export, reading, "markdown", markdown)),
        _timed(functools.partial(_import, writing, document, False)),
        _timed(functools.partial(_import, writing, document, True)),
        _timed(functools.partial(_import, writing, document, True)),
    ]
    return times, os.path.getsize(document) / 2**20


def _row(size: int, workspace: Path) -> tuple[object, ...]:
    roots = math.ceil(size / PER_ROOT)
    totals = [0.0] * 5
    megabytes = 0.0
    for number in range(roots):
        times, size_mib = _time_root(workspace, number, min(PER_ROOT, size - number * PER_ROOT))
        totals = [total + spent for total, spent in zip(totals, times, strict=True)]
        megabytes += size_mib
    rate = size / totals[3]
    return (f"{size:,}", roots, *(f"{t:.2f}" for t in totals), f"{rate:,.0f}", f"{megabytes:.1f}")


def run(sizes: Sequence[int] = ()) -> None:
    """Print one row per notebook size (the record counts of ``--sizes`` do not apply)."""
    rows = []
    for size in SIZES:
        with tempfile.TemporaryDirectory(prefix="mymcp-bench-transfer-") as workspace:
            rows.append(_row(size, Path(workspace)))
    load = ", ".join(f"{figure:.2f}" for figure in os.getloadavg())
    print_table(
        f"mymcp export and import, in seconds (scopes under 1,000 files each; load average {load})",
        HEADER,
        rows,
    )
