"""memory_recall answers the same in every process: over stdio, two servers started with
different hash seeds (``PYTHONHASHSEED``) answer every question alike, each asked as soon as
the server is up (while the meaning tables may still be loading), and a notebook written
again under other IDs gets the same meaning hits in the same order."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.mnemosyne.tools.recall_support import canonical
from tests.processes import INITIALIZE, StdioPeer, child_environment, mymcp_command

# Seven memories that meet "physician" alike (each writes "doctor" once in its content), so
# the meaning tier's five places go to memories of equal score; and others for each tier.
VISITS = [
    ("Knee", "The doctor looked at my knee after the run."),
    ("Allergy", "Asked the doctor about the pollen tablets."),
    ("Flight", "The doctor signed the form for the long flight."),
    ("Bloods", "The doctor took bloods on Tuesday."),
    ("Eyes", "The doctor sent me to the eye clinic."),
    ("Back", "The doctor said to rest my back for a week."),
    ("Sleep", "The doctor asked how I sleep."),
]
OTHERS = [
    ("Deploys", "Deploys go through the staging cluster first."),
    ("Coffee", "Orders a flat white coffee every morning."),
    ("Family", "I call Mum every Sunday evening."),
]
MEANING_QUESTIONS = ["physician", "medic", "mom"]
QUESTIONS = [*MEANING_QUESTIONS, "doctor", "deploying", "staging deploys", "tea", "xyzzy"]


def _notebook(root: Path, numbers: Sequence[int]) -> None:
    for number, (title, content) in zip(numbers, [*VISITS, *OTHERS], strict=True):
        canonical(root, number, content, title=title)


def _answers(
    tmp_path: Path, home: Path, root: Path, seed: str, questions: Sequence[str]
) -> list[list[tuple[str, Any]]]:
    """Each question's memories (title and ``match``) from a fresh ``mymcp stdio``."""
    env = child_environment(home, root, {"PYTHONHASHSEED": seed})
    peer = StdioPeer(mymcp_command("stdio"), env, tmp_path / f"stderr-{seed}.log")
    try:
        peer.request("initialize", INITIALIZE)
        answers = []
        for number, query in enumerate(questions, 2):
            params = {"name": "memory_recall", "arguments": {"query": query, "scope": "project"}}
            reply = peer.request("tools/call", params, number)["result"]["structuredContent"]
            answers.append([(memory["title"], memory["match"]) for memory in reply["memories"]])
        return answers
    finally:
        peer.stop()


@pytest.mark.slow  # two server processes
def test_two_processes_with_other_hash_seeds_answer_alike(
    tmp_path: Path, hermetic_home: Path
) -> None:
    root = tmp_path / "memory"
    _notebook(root, range(1, 11))

    first = _answers(tmp_path, hermetic_home, root, "1", QUESTIONS)
    second = _answers(tmp_path, hermetic_home, root, "2", QUESTIONS)

    assert first == second
    assert [title for title, _ in first[0]] == ["Allergy", "Back", "Bloods", "Eyes", "Flight"]


@pytest.mark.slow  # two server processes
def test_a_notebook_written_again_under_other_ids_gets_the_same_meaning_hits(
    tmp_path: Path, hermetic_home: Path
) -> None:
    first_root, second_root = tmp_path / "first", tmp_path / "second"
    _notebook(first_root, range(1, 11))
    _notebook(second_root, range(10, 0, -1))

    first = _answers(tmp_path, hermetic_home, first_root, "1", MEANING_QUESTIONS)
    second = _answers(tmp_path, hermetic_home, second_root, "2", MEANING_QUESTIONS)

    assert first == second
    assert all(first)
