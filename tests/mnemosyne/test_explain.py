"""``mymcp explain``: the verdict on a text from standard input, its exit code, and no echo."""

from __future__ import annotations

import io
import logging
import re
import sys
from pathlib import Path

import pytest

from mymcp import cli
from mymcp.plugins.mnemosyne.memory.policy.rules import RULES

ROOT = Path(__file__).resolve().parents[2]
SECRET = "Tr0ub4dor&3xQ"


def explain(monkeypatch: pytest.MonkeyPatch, data: bytes) -> int | None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    return cli.main(["explain"])


def test_a_refused_text_gets_its_reason_and_rule_and_exit_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert explain(monkeypatch, f"db password: {SECRET}\r\n".encode()) == 1
    out = capsys.readouterr()
    assert out.out == "refused: credential_shape (rule credential-name)\n"
    assert out.err == ""


def test_a_stored_text_exits_0(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert explain(monkeypatch, b"Prefers green tea in the morning.\n") == 0
    assert capsys.readouterr().out == "stored: no rule of the content policy refuses this text\n"


@pytest.mark.parametrize(
    "text",
    [
        "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5h",
        "SSN 219-09-9999",
        "card 4111 1111 1111 1111",
        "-----BEGIN OPENSSH PRIVATE KEY-----",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
    ],
)
def test_the_answer_never_repeats_the_text_nor_logs(
    text: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    assert explain(monkeypatch, text.encode()) == 1
    out = capsys.readouterr().out
    verdict = re.fullmatch(r"refused: ([a-z_]+) \(rule ([a-z0-9-]+)\)\n", out)
    assert verdict is not None
    assert verdict[2] in {rule.id for rule in RULES}
    parts = [p for p in re.findall(r"[A-Za-z0-9]{4,}", text) if len(p) >= 6 or re.search(r"\d", p)]
    assert parts and all(part not in out for part in parts)
    assert caplog.records == []


def test_a_text_longer_than_content_allows_is_judged_and_named_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert explain(monkeypatch, ("tea " * 1200).encode()) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("note: content holds at most 4,000")


def test_standard_input_that_is_not_utf8_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert explain(monkeypatch, b"\xff\xfe password") == 2
    out = capsys.readouterr()
    assert (out.out, out.err) == ("", "mymcp: standard input is not UTF-8 text\n")


def test_the_manual_example_prints_what_the_manual_says(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    section = (ROOT / "docs" / "MANUAL.md").read_text(encoding="utf-8")
    section = section.split("### When a note of yours is refused", 1)[1]
    note = re.search(r"For the note\s+`([^`]+)`", section)
    printed = re.search(r"```text\n(.+?)\n```", section, re.DOTALL)
    assert note is not None and printed is not None
    assert explain(monkeypatch, note[1].encode()) == 1
    assert capsys.readouterr().out == printed[1] + "\n"
