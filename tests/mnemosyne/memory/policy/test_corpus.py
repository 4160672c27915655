"""The content policy measured on the generated corpus, class by class.

Targets of the policy: at least 95% of the sensitive texts of every class refused, at most
1% of the benign texts of every class refused. ``python bench/policy.py`` prints the same
figures as a table.
"""

from __future__ import annotations

import random

import pytest

from mymcp.plugins.mnemosyne.memory.policy import first_violation
from tests.mnemosyne.memory.policy.policy_corpus import BENIGN, SENSITIVE, figures, misses

SENSITIVE_TARGET = 0.95
BENIGN_LIMIT = 0.01
# Texts of different classes side by side, as a note collects them: the same seeds every run.
SIDE_BY_SIDE = 400
SEPARATORS = (" ", "\n", ". ")


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


def _side_by_side(seed: int, corpus: dict[str, list[str]]) -> tuple[list[str], str]:
    rng = random.Random(seed)
    texts = [text for name in sorted(corpus) for text in corpus[name]]
    return rng.sample(texts, 6), rng.choice(SEPARATORS)


def test_benign_texts_side_by_side_are_stored() -> None:
    refused = []
    for seed in range(SIDE_BY_SIDE):
        pieces, separator = _side_by_side(seed, BENIGN)
        if first_violation(separator.join(pieces)) is not None:
            refused.append(pieces)
    assert refused == []


def test_a_sensitive_text_among_benign_ones_is_refused() -> None:
    stored = []
    for seed in range(SIDE_BY_SIDE):
        pieces, separator = _side_by_side(seed, BENIGN)
        secret = random.Random(-seed).choice(_all(SENSITIVE))
        pieces.insert(seed % len(pieces), secret)
        if first_violation(separator.join(pieces)) is None:
            stored.append(secret)
    assert stored == []


def _all(corpus: dict[str, list[str]]) -> list[str]:
    return [text for name in sorted(corpus) for text in corpus[name]]
