"""The content policy measured on the generated corpus, class by class.

Targets of the policy: at least 95% of the sensitive texts of every class refused, at most
1% of the benign texts of every class refused. ``python bench/policy.py`` prints the same
figures as a table.
"""

from __future__ import annotations

import pytest

from tests.mnemosyne.memory.policy_corpus import BENIGN, SENSITIVE, figures, misses

SENSITIVE_TARGET = 0.95
BENIGN_LIMIT = 0.01


@pytest.mark.parametrize("name", sorted(SENSITIVE))
def test_each_sensitive_class_is_refused(name: str) -> None:
    refused, total = figures({name: SENSITIVE[name]})[name]
    stored = [text for _, text in misses({name: SENSITIVE[name]}, refused=True)]
    assert total >= 20
    assert refused / total >= SENSITIVE_TARGET, stored[:5]


@pytest.mark.parametrize("name", sorted(BENIGN))
def test_each_benign_class_is_stored(name: str) -> None:
    refused, total = figures({name: BENIGN[name]})[name]
    wrong = [text for _, text in misses({name: BENIGN[name]}, refused=False)]
    assert total >= 6
    assert refused / total <= BENIGN_LIMIT, wrong[:5]


def test_the_corpus_covers_every_class_of_the_issue() -> None:
    assert len(SENSITIVE) == 12
    assert len(BENIGN) == 27
    assert sum(map(len, SENSITIVE.values())) >= 900
    assert sum(map(len, BENIGN.values())) >= 1000
