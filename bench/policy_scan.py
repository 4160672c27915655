"""Section: the notebook scanned for what the content policy refuses, at 1,000 to 10,000 records.

``mymcp explain --notebook`` (through ``policy_scan.scan``) and ``mymcp doctor`` (the
plugin's findings, with the candidate limit raised so that every scope is read) put every
stored record to the policy. The records are the export benchmark's (``bench/transfer.py``:
six scopes, a tenth of version 1, a third collected), one in fifty holding an AWS key in its
content; the table shows the seconds each takes and how many records each names. The goal is
10,000 records in under five seconds. Run it alone with ``python bench/run.py --only
policy_scan`` or ``python bench/policy_scan.py``; the record counts of ``--sizes`` do not apply.
"""

from __future__ import annotations

import dataclasses
import os
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import transfer  # noqa: E402
from common import REPO_ROOT, print_table  # noqa: E402

if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from mymcp.plugins.mnemosyne import doctor, policy_scan  # noqa: E402
from mymcp.plugins.mnemosyne.configuration.gates import LIMIT_VARIABLE  # noqa: E402
from mymcp.plugins.mnemosyne.configuration.memory_root import ROOT_VARIABLE  # noqa: E402
from mymcp.plugins.mnemosyne.memory.model.records import serialize_record  # noqa: E402

SIZES = (1000, 5000, 10000)
SECRET_EVERY = 50
_KEY_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def _seed(root: Path, count: int) -> None:
    rng = random.Random(count)
    for index in range(count):
        record, parts = transfer._record(rng, index)
        if index % SECRET_EVERY == 0:
            key = "AKIA" + "".join(rng.choice(_KEY_ALPHABET) for _ in range(16))
            record = dataclasses.replace(record, content=f"{record.content} key {key}")
        path = root.joinpath(*parts)
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        path.write_bytes(serialize_record(record))


def _row(workspace: Path, count: int) -> tuple[object, ...]:
    root = workspace / f"root-{count}"
    _seed(root, count)
    started = time.perf_counter()
    scanned = policy_scan.scan(root)
    scan_seconds = time.perf_counter() - started
    environ = {**os.environ, "HOME": str(workspace), ROOT_VARIABLE: str(root)}
    environ[LIMIT_VARIABLE] = str(count + 1)
    started = time.perf_counter()
    findings = doctor.findings(environ)
    doctor_seconds = time.perf_counter() - started
    named = sum("content policy refuses this today" in text for _, text in findings)
    return (count, f"{scan_seconds:.2f}", len(scanned.refused), f"{doctor_seconds:.2f}", named)


def run(sizes: Sequence[int] = ()) -> None:
    """Print the table (the record sizes of the other sections do not apply)."""
    with tempfile.TemporaryDirectory() as directory:
        rows = [_row(Path(directory), count) for count in SIZES]
    print_table(
        "the notebook scanned for what the content policy refuses (seconds; the doctor lists "
        "at most 20 records a scope)",
        ("records", "explain --notebook s", "named", "doctor s", "doctor names"),
        rows,
    )


if __name__ == "__main__":
    run()
