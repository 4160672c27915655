"""The notebook scanned: stored records the content policy would refuse today.

``mymcp doctor``, ``mymcp explain --notebook`` and :func:`policy_scan.scan` name each such
record by its path below the memory root, the field and the rule; never the value, and
nothing changes. Every secret here is drawn at random.
"""

from __future__ import annotations

import io
import json
import random
import re
import string
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mymcp import cli
from mymcp.plugins.mnemosyne import doctor, policy_scan
from mymcp.plugins.mnemosyne.memory.model.records import parse_record_bytes
from mymcp.plugins.mnemosyne.memory.storage import scan
from mymcp.plugins.mnemosyne.memory.storage.workers import Workers
from tests.clients.scenario import LEGACY_ID, LEGACY_RECORD
from tests.doctoring import found, private_root, run_unchanged, tree_state
from tests.helpers import CANONICAL_ID, canonical_record, place_canonical, write_record

RNG = random.Random(34)
AWS_KEY = "AKIA" + "".join(RNG.choice(string.ascii_uppercase + "234567") for _ in range(16))
CARD = "4111 1111 1111 1111"
CANONICAL_PATH = f"project/mnemosyne/decisions/{CANONICAL_ID}.json"
LEGACY_PATH = f"preference/drinks/{LEGACY_ID}.json"
ADVICE = 'see "Records the policy refuses today" in docs/MANUAL.md'


@pytest.fixture
def root(memory_root: Path) -> Path:
    return private_root(memory_root)


def _hand_written(root: Path, content: str) -> None:
    """The sample canonical record, edited by hand to hold ``content``."""
    place_canonical(root, canonical_record(content=content))


def test_doctor_names_the_path_field_and_rule_of_a_record_holding_an_aws_key(
    root: Path, tmp_path: Path
) -> None:
    _hand_written(root, f"deploy with {AWS_KEY} on Fridays")

    code, lines = run_unchanged(tmp_path)

    assert code == 0  # a warning: the setup works, the notebook holds what it should not
    text = f"{CANONICAL_PATH}: content (credential_shape, rule aws-access-key-id)"
    assert found(lines, "warn", text, "the content policy refuses this today", ADVICE), lines
    assert found(lines, "warn", "scope project: 1 valid record; 1 hold what the content policy")
    assert not [line for line in lines if AWS_KEY in line or AWS_KEY[4:] in line]


def test_a_clean_notebook_gets_no_such_finding(root: Path, tmp_path: Path) -> None:
    code, lines = run_unchanged(tmp_path)

    assert code == 0
    assert not [line for line in lines if "content policy" in line], lines


def test_doctor_lists_twenty_records_of_a_scope_and_counts_the_rest(
    root: Path, tmp_path: Path
) -> None:
    for number in range(22):
        record = canonical_record(id=f"mem_{number:032x}", content=f"ssn 123-45-{number + 1000}")
        place_canonical(root, record)

    code, lines = run_unchanged(tmp_path)

    assert len(found(lines, "warn", "(government_identifier_shape, rule us-ssn)")) == 20
    more = "scope project: 2 more records the content policy refuses today; mymcp explain"
    assert found(lines, "warn", more), lines


def test_the_scan_names_each_record_in_notebook_order_and_changes_nothing(root: Path) -> None:
    _hand_written(root, "Prefers green tea.")
    labelled = canonical_record(id="mem_" + "1" * 32, namespace={
        "kind": "project", "id": "mnemosyne", "label": AWS_KEY,
    }, content=f"card {CARD}")  # fmt: skip
    place_canonical(root, labelled)
    tagged = canonical_record(id="mem_" + "2" * 32, tags=["ok", "123-45-6789"])
    place_canonical(root, tagged)
    write_record(root, {**LEGACY_RECORD, "content": f"card {CARD}"}, *LEGACY_PATH.split("/"))
    before = tree_state(root)

    scanned = policy_scan.scan(root)

    assert tree_state(root) == before
    assert scanned.records == 4
    folder = "project/mnemosyne/decisions"
    assert scanned.refused == [
        policy_scan.Refused(LEGACY_PATH, "content", "payment_card_shape", "payment-card"),
        policy_scan.Refused(
            f"{folder}/mem_{'1' * 32}.json", "namespace.label", "credential_shape",
            "aws-access-key-id",
        ),
        policy_scan.Refused(
            f"{folder}/mem_{'2' * 32}.json", "tags[1]", "government_identifier_shape", "us-ssn"
        ),
    ]  # fmt: skip


def test_a_record_is_judged_in_remembers_order_first_refusal_first() -> None:
    record = canonical_record(title=f"card {CARD}", content=AWS_KEY, tags=["123-45-6789"])
    parsed = parse_record_bytes(json.dumps(record).encode())
    assert policy_scan.first_refusal(parsed) == ("title", "payment_card_shape", "payment-card")


def test_a_short_value_is_judged_alike_in_every_record_that_holds_it() -> None:
    tag = "123-45-6789"
    refused = canonical_record(tags=["plain", tag])
    clean = canonical_record(tags=["plain"], title="plain")
    verdicts = [
        policy_scan.first_refusal(parse_record_bytes(json.dumps(record).encode()))
        for record in (refused, clean, refused, clean)
    ]
    expected = ("tags[1]", "government_identifier_shape", "us-ssn")
    assert verdicts == [expected, None, expected, None]


def test_a_missing_root_is_an_empty_notebook(tmp_path: Path) -> None:
    assert policy_scan.scan(tmp_path / "absent") == policy_scan.Scanned(0, [])


# --- mymcp explain --notebook ------------------------------------------------------------------


@pytest.fixture
def explain_notebook(
    capsys: pytest.CaptureFixture[str],
) -> Callable[[], tuple[int | None, str, str]]:
    def run() -> tuple[int | None, str, str]:
        code = cli.main(["explain", "--notebook"])
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


def test_explain_notebook_lists_each_refused_record_and_exits_1(
    root: Path, explain_notebook: Callable[[], tuple[int | None, str, str]]
) -> None:
    _hand_written(root, f"aws {AWS_KEY}")
    before = tree_state(root)

    code, out, err = explain_notebook()

    assert tree_state(root) == before
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert lines[0] == (
        f"refused today: {CANONICAL_PATH}: content (credential_shape, rule aws-access-key-id)"
    )
    assert re.fullmatch(
        rf"1 of the 2 records in the memory root .+: the policy refuses them today; {ADVICE} "
        "for what to do about them",
        lines[1],
    )
    assert AWS_KEY not in out and AWS_KEY[4:] not in out


def test_explain_notebook_of_a_clean_notebook_exits_0(
    root: Path, explain_notebook: Callable[[], tuple[int | None, str, str]]
) -> None:
    code, out, err = explain_notebook()

    assert (code, err) == (0, "")
    assert re.fullmatch(r"stored: no record of the 2 in the memory root .+ refuses today\n", out)


def test_explain_notebook_names_a_root_it_cannot_use_on_standard_error(
    memory_root: Path, explain_notebook: Callable[[], tuple[int | None, str, str]]
) -> None:
    memory_root.parent.mkdir(parents=True, exist_ok=True)
    memory_root.write_text("not a folder")

    code, out, err = explain_notebook()

    assert (code, out) == (1, "")
    assert err.startswith("mymcp explain: the memory root ") and len(err.splitlines()) == 1


def test_explain_reads_no_standard_input_with_notebook(
    root: Path,
    monkeypatch: pytest.MonkeyPatch,
    explain_notebook: Callable[[], tuple[int | None, str, str]],
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\xff")))
    assert explain_notebook()[0] == 0


def test_the_manual_example_prints_what_the_manual_says(
    memory_root: Path, explain_notebook: Callable[[], tuple[int | None, str, str]]
) -> None:
    section = (Path(__file__).resolve().parents[2] / "docs" / "MANUAL.md").read_text("utf-8")
    section = section.split("### Records the policy refuses today", 1)[1]
    printed = re.search(r"```text\n(.+?)\n```", section, re.DOTALL)
    assert printed is not None
    path = re.search(r"refused today: (\S+?)\.json", printed[1])
    assert path is not None
    scope, namespace, collection, name = path[1].split("/")
    content = f"aws {AWS_KEY}"
    record = canonical_record(id=name, content=content)
    record["namespace"]["id"], record["collection"]["id"] = namespace, collection
    place_canonical(memory_root, record)
    place_canonical(memory_root, canonical_record(id="mem_" + "f" * 32))

    code, out, _ = explain_notebook()

    assert code == 1
    assert out.replace(str(memory_root), "/home/you/.mnemosyne/memory") == printed[1] + "\n"


def test_a_scope_checked_on_worker_processes_gets_the_findings_checked_here(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for number in range(40):
        content = f"ssn 123-45-{number + 1000}" if number % 7 == 0 else f"plain note {number}"
        state = "archived" if number % 11 == 0 else "active"
        lifecycle = {"state": state, "revision": 1}
        record = canonical_record(id=f"mem_{number:032x}", content=content, lifecycle=lifecycle)
        place_canonical(root, record)
    write_record(root, "{not json", "project", "mnemosyne", "decisions", "broken.json")
    astray = canonical_record(id=f"mem_{99:032x}")
    write_record(root, astray, "project", "elsewhere", f"mem_{99:032x}.json")
    write_record(root, {"schema_version": 1, "id": "old", "content": "tea"}, "project", "old.json")

    def doctor_lines() -> tuple[int, list[str]]:
        code, lines = run_unchanged(tmp_path)
        machine = ("the filesystem of", "is free for mymcp serve")  # other processes change these
        return code, [line for line in lines if not any(text in line for text in machine)]

    here = doctor_lines()
    started: list[int] = []

    class Counted(Workers):
        def __init__(self, count: int) -> None:
            started.append(count)
            super().__init__(count)

    monkeypatch.setattr(doctor, "BULK_FROM", 2)
    monkeypatch.setattr(scan, "MIN_RUN", 4)
    monkeypatch.setattr(doctor, "usable_cpus", lambda: 2)
    monkeypatch.setattr(doctor, "Workers", Counted)
    checked_here: list[object] = []
    check_here = doctor._check_run_at  # in this process; the workers call their own

    def noted(start_fd: int, job: Any) -> Any:
        checked_here.append(job)
        return check_here(start_fd, job)

    monkeypatch.setattr(doctor, "_check_run_at", noted)

    assert doctor_lines() == here
    assert started and set(started) == {2}  # a pool of two for each scope of two files or more
    assert checked_here == []  # every run was checked by a worker
    code, lines = here
    assert code == 1  # the files recall skips are failures
    assert found(lines, "warn", "(government_identifier_shape, rule us-ssn)")
    assert found(lines, "fail", "broken.json: skipped (invalid_json)")
    assert found(lines, "fail", "elsewhere/mem_", "skipped (path_mismatch)")
