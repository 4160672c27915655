"""Each rule of the policy's table on its own samples, and the table's own invariants.

Every entry of ``memory/policy/rules.toml`` holds texts its rule must refuse and look-alikes
the whole policy must store: here each refused sample is decided by that very rule, with its
reason, also when the rule runs alone (no prefilter, no other rule before it), and each
look-alike is stored. A sample's ``{a20}``-style pieces are drawn from a fixed seed (see the
head of the table file).
"""

from __future__ import annotations

import random
import re
import string

import pytest

from mymcp.plugins.mnemosyne.memory import policy
from mymcp.plugins.mnemosyne.memory.policy.engine import Rule, Text
from mymcp.plugins.mnemosyne.memory.policy.rules import RULES, entries

ALPHABETS = {
    "a": string.ascii_letters + string.digits,
    "A": string.ascii_uppercase + string.digits,
    "l": string.ascii_lowercase + string.digits,
    "h": "0123456789abcdef",
    "H": "0123456789ABCDEF",
    "d": string.digits,
    "u": string.ascii_letters + string.digits + "-_",
    "s": string.ascii_letters + string.digits + "+/",
    "5": "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz",
    "3": string.ascii_uppercase + "234567",
    "b": "qpzry9x8gf2tvdw0s3jn54khce6mua7l",
    "B": "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
}
PIECE = re.compile(r"\{([aAlhHdus53bB])(\d+)\}")


def expand(sample: str, seed: int = 23, alphabet: str | None = None) -> str:
    """The sample with each ``{a20}`` piece drawn (or filled with ``alphabet``'s first char)."""
    rng = random.Random(f"{seed}:{sample}")

    def draw(match: re.Match[str]) -> str:
        size = int(match.group(2))
        if alphabet is not None:
            return alphabet * size
        return "".join(rng.choice(ALPHABETS[match.group(1)]) for _ in range(size))

    return PIECE.sub(draw, sample)


SAMPLES = entries()
REFUSE = [(rule.id, rule.reason, text) for rule in RULES for text in SAMPLES[rule.id]["refuse"]]
BY_ID = {rule.id: rule for rule in RULES}
STORE = [(rule.id, text) for rule in RULES for text in SAMPLES[rule.id].get("store", [])]


@pytest.mark.parametrize(
    ("rule", "reason", "sample"), REFUSE, ids=[f"{r}:{i}" for i, (r, _, _) in enumerate(REFUSE)]
)
def test_each_rule_refuses_its_samples(rule: str, reason: str, sample: str) -> None:
    for seed in (23, 24):
        assert policy.explain(expand(sample, seed)) == (reason, rule)
        assert BY_ID[rule].fires(Text(expand(sample, seed)))  # alone, on a fresh text


@pytest.mark.parametrize(
    ("rule", "sample"), STORE, ids=[f"{r}:{i}" for i, (r, _) in enumerate(STORE)]
)
def test_each_look_alike_of_a_rule_is_stored(rule: str, sample: str) -> None:
    assert policy.explain(expand(sample)) is None


TOKENS = [rule for rule in RULES if rule.tokens and PIECE.search(SAMPLES[rule.id]["refuse"][0])]


@pytest.mark.parametrize("rule", TOKENS, ids=[rule.id for rule in TOKENS])
def test_a_token_whose_body_is_a_placeholder_is_stored(rule: Rule) -> None:
    assert policy.explain(expand(SAMPLES[rule.id]["refuse"][0], alphabet="X")) is None


def test_every_rule_has_an_id_a_reason_and_a_sample() -> None:
    ids = [rule.id for rule in RULES]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", id) for id in ids)
    assert all(rule.reason in policy.REASONS for rule in RULES)
    assert list(SAMPLES) == ids  # one entry per rule, in the table's order
    assert all(SAMPLES[id]["refuse"] for id in ids)


def test_the_table_runs_the_reasons_in_the_contracts_order() -> None:
    order = [
        "private_key_shape",
        "credential_shape",
        "compact_token_shape",
        "government_identifier_shape",
        "payment_card_shape",
    ]
    reasons = [rule.reason for rule in RULES]
    assert reasons == sorted(reasons, key=order.index)
